"""Constant memory for small read-only inputs (Lift's constant address space; OpenCL 1.2
Sect. 6.5.3): ``input→toConstant`` reads one of the program's input arrays through
``toConstant`` everywhere, and the code generator declares its parameter ``constant``
instead of ``global const`` (``codegen.constant``). Every work-item reading the same
element at once (MRI-Q's k-space samples, a convolution's weights, K-means' centroids) is
then served by the device's constant cache and broadcast.

It is a step of the derivation, on the whole program ``λxs. e``: an input is a kernel's
parameter, which has one address space. The kernel never writes its inputs (its results go
to buffers of their own), and ``toConstant`` of an array the program computes is refused by
the code generator. Constant memory is small: the rule keeps the constant inputs of a
program within what every OpenCL device holds (``CONSTANT_BYTES``, 64 KiB, the least
``CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE``; ``CONSTANT_ARGS``, 8 buffers, the least
``CL_DEVICE_MAX_CONSTANT_ARGS``); a run checks them against the device's own limits
(``runtime.oversized_constant_memory``).
"""

from __future__ import annotations

from ..expr import (
    Apply,
    Expr,
    Lambda,
    Prim,
    Var,
    fresh_name,
    keep_signature,
    substitute,
    walk,
)
from ..types import ArrayType, ScalarType, TupleType, Type, VectorType
from .rule import Refused, RuleParam, Site, basic_rule

# The least constant memory an OpenCL device (full profile) has: bytes in all, buffers
CONSTANT_BYTES = 64 * 1024
CONSTANT_ARGS = 8

_SCALAR_BYTES = {"float": 4, "int": 4, "uint": 4, "double": 8, "bool": 4, "long": 8,
                 "char": 1, "uchar": 1, "short": 2, "ushort": 2, "half": 2, "ulong": 8}


def bytes_of(t: Type) -> int | None:
    """The bytes an input of type ``t`` takes (None: a size is not known)."""
    match t:
        case ArrayType(elem, size) | VectorType(elem, size):
            inner = bytes_of(elem)
            return None if inner is None or not size.is_integer_constant else \
                int(size.value) * inner
        case TupleType(items):
            parts = [bytes_of(item) for item in items]
            return None if None in parts else sum(parts)
        case ScalarType(name):
            return _SCALAR_BYTES.get(name, 4)
    return None


def buffers_of(t: Type) -> int:
    """The buffers an input of type ``t`` is passed in (one per tuple component)."""
    while isinstance(t, ArrayType):
        t = t.elem
    return len(t.items) if isinstance(t, TupleType) else 1


def constant_inputs(program: Lambda) -> list[str]:
    """The program's inputs read through ``toConstant`` already."""
    return [p for p in program.params if isinstance(p, str) and _reads_constant(program.body, p)]


def _reads_constant(body: Expr, name: str) -> bool:
    """Whether the free variable ``name`` is read through ``toConstant`` (its free
    occurrences renamed first to a name no inner binder has)."""
    free = fresh_name(f"{name}_input", {n.name for _, n in walk(body) if isinstance(n, Var)}
                      | {b for _, n in walk(body) if isinstance(n, Lambda) for b in n.names()})
    body = substitute(body, name, Var(free))
    return any(isinstance(n, Apply) and isinstance(n.fn, Prim) and n.fn.name == "toConstant"
               and n.args == (Var(free),) for _, n in walk(body))


def _inputs(site: Site) -> dict[str, Type]:
    root = site.node
    if site.path or not isinstance(root, Lambda) or site.typing is None:
        return {}
    return {p: t for p, t in zip(root.params, site.typing.args) if isinstance(p, str)}


def _candidates(site: Site) -> list[str]:
    return [name for name in _inputs(site) if isinstance(_why_not(site, name), str)]


def _why_not(site: Site, name: str) -> Refused | str:
    """The refusal of putting input ``name`` in constant memory, or the name."""
    root = site.node
    if site.path or not isinstance(root, Lambda):
        return Refused("it rewrites a whole program λxs. e (a kernel's inputs are its "
                       "parameters)")
    inputs = _inputs(site)
    if name not in inputs:
        return Refused(f"the program has no input {name} (its inputs: "
                       f"{', '.join(inputs) or 'none'})")
    t = inputs[name]
    if not isinstance(t, ArrayType):
        return Refused(f"{name} is not an array ({t}): a scalar input is read once")
    if name in constant_inputs(root):
        return Refused(f"{name} is read from constant memory already")
    if name not in root.body.free_vars():
        return Refused(f"the program does not read {name}")
    size = bytes_of(t)
    if size is None:
        return Refused(f"the size of {name} ({t}) is not known here: constant memory holds "
                       f"{CONSTANT_BYTES} bytes on every device")
    others = constant_inputs(root)
    total = size + sum(bytes_of(inputs[o]) or 0 for o in others)
    if total > CONSTANT_BYTES:
        return Refused(f"{name} takes {size} bytes ({total} with the other constant inputs): "
                       f"more than the {CONSTANT_BYTES} bytes of constant memory every device "
                       f"has (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)")
    count = buffers_of(t) + sum(buffers_of(inputs[o]) for o in others)
    if count > CONSTANT_ARGS:
        return Refused(f"{name} would make {count} constant buffers: more than the "
                       f"{CONSTANT_ARGS} every device takes (CL_DEVICE_MAX_CONSTANT_ARGS)")
    return name


@basic_rule(
    "input→toConstant", "λ… xs …. e → λ… xs …. e[toConstant xs / xs]", "memory",
    "Lift (constant address space); OpenCL 1.2 Sect. 6.5.3",
    params=(RuleParam("input", "the input array read from constant memory", _candidates,
                      kind="choice"),),
    doc="A small read-only input array read from constant memory: its kernel parameter is "
        "declared constant (cached, and broadcast to work-items that read the same element). "
        "At most 64 KiB and 8 buffers of constant inputs per program, what every device "
        "holds; a run checks the device's own limits.")
def INPUT_TO_CONSTANT(site: Site, p) -> Expr | Refused:
    name = str(p["input"])
    why = _why_not(site, name)
    if isinstance(why, Refused):
        return why
    root = site.node
    body = substitute(root.body, name, Apply(Prim("toConstant"), (Var(name),)))
    return keep_signature(Lambda(root.params, body), root)


RULES = [INPUT_TO_CONSTANT]
