"""The OpenCL C text of a user function written in C (a Lift ``UserFun`` body): its body
as written, between the names it needs and their removal.

A Lift body names its tuple types as Lift's generator declares them: ``Tuple`` for the
function's own tuple type (its result's, or else its one tuple parameter's) and
``Tuple2_float_float`` spelled out. The workbench declares ``struct Tuple_float_float``, so
each such name the body uses is ``#define``d to the struct before the body and ``#undef``ined
after it, with the macros the body defines itself: nothing a body names leaks into the
functions and kernels after it.
"""

from __future__ import annotations

from ..notation.c_syntax import preprocess, tokenize, type_name
from ..sizes import Size
from ..types import ScalarType, TupleType, Type, VectorType, function_parts
from .c_types import StructRegistry, c_type

_SCALARS = {"int", "float", "double", "bool"}


def function_text(name: str, body: str, fn_type: Type, program: StructRegistry) -> str:
    """The body to print inside the function's braces (directives on lines of their own)."""
    tokens = tokenize(name, body)
    _, macros = preprocess(name, tokens)
    params, result = function_parts(fn_type)
    names: dict[str, str] = {}
    for t in tokens:
        if t.kind != "ident" or t.text in names or not t.text.startswith("Tuple"):
            continue
        if t.text == "Tuple":
            own = _own_tuple(params, result)
            if own is not None:
                names["Tuple"] = c_type(own, program)
            continue
        spelled = _tuple_type(type_name(t.text))
        if spelled is not None:
            names[t.text] = c_type(spelled, program)
    before = [f"#define {k} {v}" for k, v in names.items()]
    after = [f"#undef {k}" for k in [*names, *dict.fromkeys(macros)]]
    return "\n".join([*before, body.strip("\n"), *after])


def _own_tuple(params: list[Type], result: Type) -> TupleType | None:
    if isinstance(result, TupleType):
        return result
    found = {p for p in params if isinstance(p, TupleType)}
    return found.pop() if len(found) == 1 else None


def _tuple_type(t) -> TupleType | None:
    """The tuple type of a Lift struct name's items (Tuple2_float_int), if all are
    scalars or vectors the workbench has."""
    if t is None or t.name != "Tuple" or not t.items:
        return None
    items: list[Type] = []
    for item in t.items:
        if item.name not in _SCALARS:
            return None
        scalar = ScalarType(item.name)
        if item.width:
            items.append(VectorType(scalar, Size.const(item.width)))
        else:
            items.append(scalar)
    return TupleType(tuple(items))
