"""Expressions printed in Lift's spelling (``to_text(e, style="lift")``), so that a
derivation can be exported as Lift code: ``Join() o MapWrg(Join() o MapLcl(MapSeq(id)) o
Split(4)) o Split(1024)``; ``lift_program`` prints a whole definition, ``val name =
fun(ArrayTypeWSWC(Float, N), p0 => ... $ p0)``, with the user functions it uses as
``UserFun``s. ``lift.parse_lift`` reads the text back.

Where Lift has no spelling the workbench's own is used, in Lift's call syntax
(``ReducePart(add, 0.0f, 4)``, ``GatherOffsets(0, m)``, ``Loop(3, fun((i, x) => ...))``);
scalar code is written with infix operators (``fun(x => x * 3.0f)``), which ``parse_lift``
also reads.
"""

from __future__ import annotations

from ..expr import (
    Apply,
    BinOp,
    Compose,
    Expr,
    Lambda,
    Lit,
    Prim,
    Section,
    TupleExpr,
    UnOp,
    UserFun,
    Var,
    walk,
)
from ..sizes import Size
from ..types import ArrayType, FunctionType, ScalarType, TupleType, Type, VectorType, function_parts
from .printer import literal_text

# Lift's names of the workbench's primitives.
LIFT_NAMES = {
    "map": "Map", "mapGlobal": "MapGlb", "mapWorkgroup": "MapWrg", "mapLocal": "MapLcl",
    "mapSeq": "MapSeq", "mapSeqUnroll": "MapSeqUnroll", "mapWarp": "MapWarp",
    "mapLane": "MapLane", "mapVec": "MapVec", "reduce": "Reduce", "reduceSeq": "ReduceSeq",
    "reduceSeqUnroll": "ReduceSeqUnroll", "reducePart": "ReducePart", "split": "Split",
    "join": "Join", "zip": "Zip", "iterate": "Iterate", "transpose": "Transpose",
    "toGlobal": "toGlobal", "toLocal": "toLocal", "toPrivate": "toPrivate",
    "splitVec": "asVector", "joinVec": "asScalar", "reorderStride": "ReorderStride",
    "slide": "Slide", "head": "Head", "tail": "Tail", "id": "Id", "reorder": "Reorder",
    "scan": "Scan", "scanSeq": "ScanSeq", "slide2D": "Slide2D", "get": "Get",
}
_SECTIONS = {"+": "add", "*": "mult", "-": "subtract"}
_BOUNDARIES = {"padClamp": "Clamp", "padWrap": "Wrap", "padMirror": "Mirror"}


def to_lift(expr: Expr) -> str:
    return _Printer().show(expr)


class _Printer:
    def show(self, e: Expr) -> str:
        if isinstance(e, Compose):
            return " o ".join(self.operand(f) for f in e.fns)
        if isinstance(e, Prim):
            return self.primitive(e)
        if isinstance(e, Apply):
            return self.application(e)
        if isinstance(e, Lambda):
            # Lift's lambdas do not destructure: λ(acc, x). e is fun((acc, x) => e), which
            # takes a pair the same way
            params = e.params[0] if len(e.params) == 1 and isinstance(e.params[0], tuple) \
                else e.params
            names = [self.pattern(p) for p in params]
            head = names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"
            return f"fun({head} => {self.show(e.body)})"
        if isinstance(e, Var):
            return e.name
        if isinstance(e, UserFun):
            return e.name
        if isinstance(e, Lit):
            text = literal_text(e.value)
            return text + "f" if isinstance(e.value, float) else text
        if isinstance(e, Section):
            if e.left is None and e.right is None:
                return _SECTIONS.get(e.op) or f"fun((x, y) => x {e.op} y)"
            if e.left is not None:
                return f"fun(y => {self.show(e.left)} {e.op} y)"
            return f"fun(x => x {e.op} {self.show(e.right)})"
        if isinstance(e, BinOp):
            return f"({self.show(e.left)} {e.op} {self.show(e.right)})"
        if isinstance(e, UnOp):
            return f"{e.op}({self.show(e.operand)})"
        if isinstance(e, TupleExpr):
            return "Tuple(" + ", ".join(self.show(i) for i in e.items) + ")"
        raise TypeError(f"cannot print {type(e).__name__} in Lift's spelling")  # pragma: no cover

    def operand(self, e: Expr) -> str:
        text = self.show(e)
        return f"({text})" if isinstance(e, Lambda) else text

    def pattern(self, p) -> str:
        return p if isinstance(p, str) else "(" + ", ".join(self.pattern(q) for q in p) + ")"

    def primitive(self, e: Prim) -> str:
        decl = e.decl
        if e.name in _BOUNDARIES:
            left, right = e.args
            return f"Pad({left}, {right}, Pad.Boundary.{_BOUNDARIES[e.name]})"
        if e.name == "pad":
            return f"PadConstant({e.args[0]}, {e.args[1]}, {self.show(e.args[2])})"
        if e.name == "pad2D":
            return f"Pad2D({e.args[0]}, {e.args[1]}, {self.show(e.args[2])})"
        if e.name == "iterate":
            return f"Iterate({_size(e.args[0])})({self.show(e.args[1])})"
        if e.name == "gather" or e.name == "scatter":
            return f"{e.name.capitalize()}({self.index_function(e.args[0])})"
        if decl.category == "scalar":
            return e.name
        name = LIFT_NAMES.get(e.name, e.name[0].upper() + e.name[1:])
        statics, function = [], None
        for param, arg in zip(decl.params, e.args):
            if param.kind == "dim":
                if arg:
                    name = f"{name}({arg})"
            elif param.kind == "size":
                statics.append(_size(arg))
            elif param.kind == "sizes":
                statics.extend(_size(a) for a in arg)
            elif param.kind == "index":
                statics.append(str(arg))
            elif param.kind == "distribution":
                raise ValueError(f"{e} has no Lift spelling: Lift's programs run on "
                                 f"one device, where a redistribution is the identity; leave "
                                 f"it out to write the program in Lift")
            elif param.kind == "fun" and decl.is_map:
                function = self.show(arg)
            else:
                statics.append(self.show(arg))
        if function is not None:
            return f"{name}({function})"
        return f"{name}({', '.join(statics)})"

    def index_function(self, f: Expr) -> str:
        if isinstance(f, Lambda) and len(f.params) == 2 and \
                f.body == BinOp("-", BinOp("-", Var(f.params[1]), Lit(1)), Var(f.params[0])):
            return "reverse"
        return self.show(f)

    def application(self, e: Apply) -> str:
        fn = e.fn
        if isinstance(fn, Prim) and fn.name == "get" and len(e.args) == 1:
            return f"Get({self.show(e.args[0])}, {fn.args[0]})"
        if isinstance(fn, Prim) and fn.name == "at" and len(e.args) == 2:
            index, array = e.args  # Lift's xs.at(i)
            return f"{_atomic(self.show(array))}.at({self.show(index)})"
        if isinstance(fn, Prim) and fn.name == "zip":
            return "Zip(" + ", ".join(self.show(a) for a in e.args) + ")"
        if isinstance(fn, Prim) and fn.decl.category == "scalar":
            return f"{fn.name}(" + ", ".join(self.show(a) for a in e.args) + ")"
        if isinstance(fn, UserFun | Var | Section) or (isinstance(fn, Prim) and fn.name == "id"):
            return f"{self.show(fn)}(" + ", ".join(self.show(a) for a in e.args) + ")"
        head = self.show(fn)
        if isinstance(fn, Lambda):
            return f"{head}(" + ", ".join(self.show(a) for a in e.args) + ")"
        if len(e.args) == 1:
            return f"{head} $ {self.argument(e.args[0])}"
        return f"FunCall({head}, " + ", ".join(self.show(a) for a in e.args) + ")"

    def argument(self, e: Expr) -> str:
        text = self.show(e)
        return f"({text})" if isinstance(e, Apply) and " $ " in text else text


def _atomic(text: str) -> str:
    """text as the receiver of a method call (``x``, ``Get(p, 1)``), in parentheses where
    an operator outside parentheses would take the call as its operand (``f $ x``)."""
    depth = 0
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and ch == " ":
            return f"({text})"
    return text


def _size(s: Size) -> str:
    text = str(s)
    if text.isdigit() or text.isidentifier():
        return text
    return text.replace("/", " /^ ")


def lift_type(t: Type) -> str:
    """A type in Lift's spelling (``ArrayTypeWSWC(Float, N)``)."""
    if isinstance(t, ScalarType):
        return t.name.capitalize()
    if isinstance(t, VectorType):
        return f"{t.elem.name.capitalize()}{int(t.size.value)}"
    if isinstance(t, TupleType):
        return "TupleType(" + ", ".join(lift_type(i) for i in t.items) + ")"
    if isinstance(t, ArrayType):
        return f"ArrayTypeWSWC({lift_type(t.elem)}, {_size(t.size)})"
    raise TypeError(f"no Lift spelling for the type {t}")


def lift_program(expr: Expr, name: str | None = None) -> str:
    """A whole Lift definition of an expression with a declared type: its sizes as
    ``SizeVar``s, its user functions as ``UserFun``s with C bodies, and ``val name =
    fun(types..., (p0, ...) => ... $ p0)``."""
    from ..typecheck import declared_type_of

    name = name or getattr(expr, "definition_name", None) or "program"
    declared = declared_type_of(expr)
    if not isinstance(declared, FunctionType):
        raise ValueError(f"{name} has no declared type: give one (a program file's signature)")
    params, _ = function_parts(declared)
    lines = []
    from ..expr import size_arguments
    from ..primitives.skeletons import stage_variables

    sizes = sorted({v for t in params for v in _size_vars(t)} |
                   {v for _, node in walk(expr) if isinstance(node, Prim)
                    for s in size_arguments(node) for v in s.free_vars} - stage_variables(expr))
    for s in sizes:
        lines.append(f'val {s} = SizeVar("{s}")')
    for fn in user_functions(expr):
        lines.append(user_fun(fn))
    names = [f"p{i}" for i in range(len(params))]
    types = ", ".join(lift_type(t) for t in params)
    if isinstance(expr, Lambda) and len(expr.params) == len(params) and \
            all(isinstance(p, str) for p in expr.params):
        head = expr.params[0] if len(params) == 1 else "(" + ", ".join(expr.params) + ")"
        body = to_lift(expr.body)
    else:
        head = names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"
        body = f"{to_lift(expr)} $ {names[0]}" if len(names) == 1 else \
            f"FunCall({to_lift(expr)}, {', '.join(names)})"
    lines.append(f"val {name} = fun(\n  {types},\n  {head} => {body})")
    return "\n".join(lines) + "\n"


def _size_vars(t: Type):
    while isinstance(t, ArrayType | VectorType):
        yield from t.size.free_vars
        t = t.elem
    if isinstance(t, TupleType):
        for item in t.items:
            yield from _size_vars(item)


def user_functions(expr: Expr) -> list[UserFun]:
    """The user functions an expression calls, each once, in the order they occur."""
    seen: dict[str, UserFun] = {}
    for _, node in walk(expr):
        if isinstance(node, UserFun) and node.name not in seen:
            seen[node.name] = node
    return list(seen.values())


def user_fun(fn: UserFun) -> str:
    """A user function as Lift writes it: ``val name = UserFun("name", Array("x"), "{ return
    ...; }", Seq(Float), Float)`` (its C body printed from the scalar language)."""
    body = fn.body
    if body is None and fn.c_body is not None and fn.type is not None:  # written in C
        params_t, result = function_parts(fn.type)
        names = ", ".join(f'"{p}"' for p in fn.params)
        quote = '"""' if '"' in fn.c_body or "\n" in fn.c_body or "\\" in fn.c_body else '"'
        return (f'val {fn.name} = UserFun("{fn.name}", Array({names}), '
                f'{quote}{fn.c_body}{quote}, '
                f"Seq({', '.join(lift_type(t) for t in params_t)}), {lift_type(result)})")
    if fn.type is None or not isinstance(body, Lambda) or \
            not all(isinstance(p, str) for p in body.params):
        raise ValueError(f"user function {fn.name}: a declared type and a body with plain "
                         f"parameters are needed to print it as a Lift UserFun")
    params_t, result = function_parts(fn.type)
    value = body.body
    if isinstance(value, TupleExpr):
        code = f"{{ Tuple t = {c_expression(value)}; return t; }}"
    else:
        code = f"{{ return {c_expression(value)}; }}"
    names = ", ".join(f'"{p}"' for p in body.params)
    return (f'val {fn.name} = UserFun("{fn.name}", Array({names}), "{code}", '
            f"Seq({', '.join(lift_type(t) for t in params_t)}), {lift_type(result)})")


_C_NAMES = {"abs": "fabs", "min": "fmin", "max": "fmax"}
_CASTS = {"float", "int", "double", "bool"}


def c_expression(e: Expr) -> str:
    """A scalar expression as C, as ``c_body`` reads it back."""
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Lit):
        text = literal_text(e.value)
        return text + "f" if isinstance(e.value, float) else text
    if isinstance(e, BinOp):
        return f"({c_expression(e.left)} {e.op} {c_expression(e.right)})"
    if isinstance(e, UnOp):
        return f"{e.op}({c_expression(e.operand)})"
    if isinstance(e, TupleExpr):
        return "{" + ", ".join(c_expression(i) for i in e.items) + "}"
    if isinstance(e, Apply) and isinstance(e.fn, Prim):
        name, args = e.fn.name, [c_expression(a) for a in e.args]
        if name == "get":
            return f"{args[0]}._{e.fn.args[0]}"
        if name == "select":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        if name in _CASTS:
            return f"(({name}){args[0]})"
        if e.fn.decl.category == "scalar":
            return f"{_C_NAMES.get(name, name)}({', '.join(args)})"
    raise ValueError(f"{e} has no C spelling in a Lift UserFun")
