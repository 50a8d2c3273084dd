"""Vector values of a C body (``float4 r; r.xyz = p2.xyz - p1.xyz;``, as N-body's
``calcAcc`` writes them) in the lanes of wider vectors: structure of arrays. n lanes of a
``float4`` are four ``floatN`` vectors, one per component (a struct of them, like a tuple of
vectors), so that every operation on the float4 becomes the same operation on each
component's vector and N-body's bodies sit n to a vector as its hand-written CPU kernel puts
them.

What a component-wise form exists for: component reads and swizzles (``.x``, ``.xyz``,
``.s01``, ``.lo``/``.hi``/``.even``/``.odd``) and assignments to them, ``+ - * /`` and unary
minus (a number with a vector: every component), vector literals (``(float4)(r.xyz,
1.0f)``), the math built-ins applied component by component (those ``c_lanes`` applies to
lanes: ``sqrt``, ``fabs``, ``fmin``, …), ``dot`` and ``length``. Anything else on a vector
(comparisons, ``?:`` between vectors, ``cross``, ``normalize``, casts to vectors, widths
other than 2, 3 and 4) is refused with a ``CBodyError`` naming the operation and where it is.

Sub-expressions of vector type are held in temporaries (``struct … v1_ = {…};``), so that
each component reads a name and the text does not grow with the depth of the expression.
"""

from __future__ import annotations

from . import c_syntax as S

COMPONENT_WIDTHS = (2, 3, 4)  # float8 and float16 elements would be 8 or 16 vectors
_LETTERS = "xyzw"
COMPONENT_WISE = ("sqrt", "rsqrt", "cbrt", "exp", "exp2", "log", "log2", "sin", "cos", "tan",
                  "fabs", "floor", "ceil", "round", "trunc", "native_sqrt", "native_rsqrt",
                  "native_exp", "native_log", "native_sin", "native_cos", "native_recip",
                  "half_sqrt", "half_rsqrt", "fmin", "fmax", "min", "max", "fma", "mad",
                  "pow", "copysign", "mix", "clamp")


def swizzle(name: str, width: int) -> list[int] | None:
    """The components ``.name`` selects of a vector of ``width`` (None: not a swizzle of
    it)."""
    if name and all(c in _LETTERS for c in name):
        picked = [_LETTERS.index(c) for c in name]
    elif len(name) > 1 and name[0] in "sS" and all(c in "0123456789abcdefABCDEF"
                                                   for c in name[1:]):
        picked = [int(c, 16) for c in name[1:]]
    elif name in ("lo", "hi", "even", "odd") and width in (2, 4):
        half = width // 2
        picked = {"lo": list(range(half)), "hi": list(range(half, width)),
                  "even": list(range(0, width, 2)), "odd": list(range(1, width, 2))}[name]
    else:
        return None
    return picked if all(k < width for k in picked) else None


class Components:
    """The part of ``c_lanes``' writer that handles vector values (kind "components": the
    ``items`` are the vectors of the components, one per component)."""

    # --- values -------------------------------------------------------------------------
    def named(self, text: str, t) -> str:
        """The value as a name whose fields may be read (a temporary if it is not one)."""
        if text.replace("_", "a").replace(".", "a").isalnum() and not text[0].isdigit():
            return text
        tmp = self.fresh("v")
        self.emit(f"{self.c_name(t)} {tmp} = {text};")
        return tmp

    def parts(self, text: str, t, width: int, node: S.Node) -> list[tuple[str, object]]:
        """The ``width`` components of a value: a vector's own, or a number given to every
        component."""
        if t.kind == "components":
            if len(t.items) != width:
                raise self.error(node, f"a vector of {len(t.items)} components where one of "
                                       f"{width} was expected")
            base = self.named(text, t)
            return [(f"{base}._{k}", item) for k, item in enumerate(t.items)]
        if t.kind == "tuple":
            raise self.error(node, "a tuple where a vector was expected")
        return [(text, t)] * width

    def pack(self, parts: list[tuple[str, object]], node: S.Node,
             elem: str | None = None) -> tuple[str, object]:
        """A vector of the components ``parts`` as n lanes each of ``elem`` (by default the
        common type of the parts), held in a temporary."""
        elem = elem or self.common_elem([t for _, t in parts])
        t = self.components_of(elem, len(parts))
        texts = [self.as_vector(text, pt, elem, node) for text, pt in parts]
        tmp = self.fresh("v")
        self.emit(f"{self.c_name(t)} {tmp} = {{{', '.join(texts)}}};")
        return tmp, t

    # --- expressions ----------------------------------------------------------------------
    def component_field(self, node: S.Field, base: str, t) -> tuple[str, object]:
        picked = swizzle(node.name, len(t.items))
        if picked is None:
            raise self.error(node, f"the field .{node.name} of a vector of {len(t.items)} "
                                   f"components")
        base = self.named(base, t)
        if len(picked) == 1:
            return f"{base}._{picked[0]}", t.items[picked[0]]
        if len(picked) not in COMPONENT_WIDTHS:
            raise self.error(node, f"the swizzle .{node.name}: vectors of 2, 3 or 4 "
                                   f"components")
        return self.pack([(f"{base}._{k}", t.items[k]) for k in picked], node)

    def component_binary(self, node: S.Binary, a: str, at, b: str, bt) -> tuple[str, object]:
        if node.op not in ("+", "-", "*", "/"):
            raise self.error(node, f"'{node.op}' on a vector (a component-wise form exists "
                                   f"for + - * / only)")
        width = len((at if at.kind == "components" else bt).items)
        return self.pack([self.combine(node.op, pa, pat, pb, pbt, node) for (pa, pat), (pb, pbt)
                          in zip(self.parts(a, at, width, node.left),
                                 self.parts(b, bt, width, node.right))], node)

    def component_unary(self, node: S.Unary, text: str, t) -> tuple[str, object]:
        if node.op not in ("-", "+"):
            raise self.error(node, f"'{node.op}' on a vector")
        return self.pack([(f"({node.op}{p})", pt) for p, pt in
                          self.parts(text, t, len(t.items), node)], node)

    def vector_literal(self, node: S.VectorLiteral) -> tuple[str, object]:
        width = node.type.width
        if width not in COMPONENT_WIDTHS or node.type.name not in ("float", "int", "uint"):
            raise self.error(node, f"the vector type {node.type.name}{width}: components "
                                   f"in lanes are vectors of 2, 3 or 4 float, int or uint")
        parts = []
        for item in node.items:
            text, t = self.expr(item)
            parts += self.parts(text, t, len(t.items), item) if t.kind == "components" \
                else [(text, t)]
        if len(parts) == 1:
            parts = parts * width
        if len(parts) != width:
            raise self.error(node, f"{len(parts)} components for a {node.type.name}{width}")
        return self.pack(parts, node, node.type.name)

    def component_call(self, node: S.Call, args: list) -> tuple[str, object]:
        name = node.name
        widths = {len(t.items) for _, t in args if t.kind == "components"}
        if len(widths) > 1:
            raise self.error(node, f"{name} of vectors of different widths")
        width = widths.pop()
        if name in ("dot", "length"):
            if name == "length":
                args = args * 2
            if len(args) != 2:
                raise self.error(node, f"{name} of {len(args)} arguments")
            terms = [self.combine("*", pa, pat, pb, pbt, node) for (pa, pat), (pb, pbt) in
                     zip(self.parts(*args[0], width, node), self.parts(*args[1], width, node))]
            total = terms[0]
            for term in terms[1:]:
                total = self.combine("+", *total, *term, node)
            if name == "length":
                return self.lane_call(node, "sqrt", [total])
            return total
        if name not in COMPONENT_WISE:
            raise self.error(node, f"the built-in {name} of a vector, which has no "
                                   f"component-wise form here (the math functions applied "
                                   f"component by component, dot and length have)")
        columns = [self.parts(text, t, width, a) for (text, t), a in zip(args, node.args)]
        return self.pack([self.lane_call(node, name, list(row)) for row in zip(*columns)],
                         node)

    # --- statements -----------------------------------------------------------------------
    def assign_components(self, s: S.Assign, base: str, t) -> None:
        """An assignment to a swizzle of a vector (``r.xyz = …``): each component selected
        gets its part of the value."""
        picked = swizzle(s.target.name, len(t.items))
        if picked is None or len(set(picked)) != len(picked):
            raise self.error(s.target, f"the field .{s.target.name} of a vector of "
                                       f"{len(t.items)} components, assigned")
        value: S.Node = s.value
        if s.op != "=":
            value = S.Binary(s.line, s.column, s.op[:-1], s.target, s.value)
        text, vt = self.expr(value)
        parts = self.parts(text, vt, len(picked), value) if vt.kind == "components" \
            or len(picked) > 1 else [(text, vt)]
        for k, (part, pt) in zip(picked, parts):
            item = t.items[k]
            self.store(f"{base}._{k}", item, self.convert(part, pt, item, value))
