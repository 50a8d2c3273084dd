"""Phase 3 of the exploration (CASES 2016 Sect. 5.3), parameters: every size a power of two
in a range (by what it sizes, ``roles``), kept when the types check (the sizes divide) and the
kernel fits the device (``resources.check``), for one program's choices at once (NumPy) or
one by one; and the programs whose vectors lie contiguous in memory. Also a candidate made
concrete (``concrete``, ``assign``)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import WorkbenchError
from ...expr import Expr, bind_sizes
from ...rewriting.step import Step
from ...sizes import Size
from .algorithmic import size_names
from .options import Options
from .resources import Limits, Resources, check, divides, exceeded, resources, usage_by
from .variants import Variant

# The parameters of the macro rules by what they size, and the values tried for each (powers
# of two "in a reasonable range", CASES 2016 Sect. 5.3).
ROLES = {("1d-blocking", "k"): "block", ("2d-blocking", "k"): "block",
         ("2d-blocking", "l"): "block", ("tiling", "m"): "tile", ("tiling", "n"): "tile",
         ("innermost-tiling", "s"): "chunk"}


def roles(v: Variant) -> dict[str, str]:
    """What each size variable of a program sizes (block, tile, chunk), from the macro
    steps that introduced it."""
    out = {}
    for s in v.steps:
        for name, value in s.params.items():
            if isinstance(value, Size) and len(value.free_vars) == 1 and \
                    value == Size.var(next(iter(value.free_vars))):
                out[next(iter(value.free_vars))] = ROLES.get((s.rule, name), "tile")
    return out


def _ranges(v: Variant, options: Options) -> tuple[list[str], list[tuple[int, ...]]]:
    """A program's size variables, in order, and the values tried for each (by its role)."""
    names = size_names(v.expr)
    kinds = roles(v)
    return names, [options.values.get(kinds.get(n, "tile"), (2, 4, 8, 16)) for n in names]


def assignments(v: Variant, r: Resources, options: Options, limits: Limits,
                pruned: dict[str, int]):
    """The parameter choices of one program that fit, depth first: a choice is pruned as
    soon as the sizes it fixes do not divide (counting every choice it stands for)."""
    names, ranges = _ranges(v, options)
    # each divisibility the types assume is checked once its sizes are all chosen
    checks: dict[int, list] = {}
    for total, divisor in r.divides:
        used = (total.free_vars | divisor.free_vars) & set(names)
        last = max((names.index(n) for n in used), default=-1)
        checks.setdefault(last, []).append((total, divisor))

    def below(i: int) -> int:
        return math.prod(len(x) for x in ranges[i + 1:])

    def visit(i: int, env: dict):
        for total, divisor in checks.get(i - 1, []):
            if not divides(total, divisor, env):
                pruned["sizes that do not divide"] = \
                    pruned.get("sizes that do not divide", 0) + below(i - 1)
                return
        if i == len(names):
            why = check(r, env, limits, divisions=False)
            if why is None:
                yield dict(env)
            else:
                pruned[why] = pruned.get(why, 0) + 1
            return
        for value in ranges[i]:
            env[names[i]] = value
            yield from visit(i + 1, env)
        env.pop(names[i], None)

    yield from visit(0, {})


def assignments_at_once(v: Variant, r: Resources, options: Options, limits: Limits,
                         pruned: dict[str, int]) -> list[dict] | None:
    """``assignments`` with every parameter choice checked at once (NumPy), in the same
    order and with the same counts; None (nothing counted) where a value might not be exact
    in floating point — a value tried that is not a power of two, a size with a symbolic
    power or division — or the choices are too many to hold."""
    names, ranges = _ranges(v, options)
    if not all(isinstance(x, int) and x >= 1 and not x & (x - 1) for xs in ranges for x in xs):
        return None
    count = math.prod(len(xs) for xs in ranges)
    if count > 1 << 22:
        return None
    grid = np.array(list(itertools.product(*ranges)), dtype=np.int64).reshape(count, len(names))
    columns = {n: grid[:, i].astype(float) for i, n in enumerate(names)}
    values: dict[int, np.ndarray] = {}

    def value(size: Size) -> np.ndarray:
        if id(size) not in values:
            x = size.evaluate_many(columns)
            if x is None:
                raise _NotExact
            values[id(size)] = np.broadcast_to(np.asarray(x, dtype=float), (count,))
        return values[id(size)]

    def whole(x: np.ndarray) -> np.ndarray:
        return (x >= 1) & (x == np.floor(x))

    counts: dict[str, int] = {}
    try:
        ok = np.ones(count, dtype=bool)
        for total, divisor in r.divides:
            t, d = value(total), value(divisor)
            fits = whole(t) & whole(d)
            ok &= fits & (np.fmod(t, np.where(fits, d, 1.0)) == 0)
        counts["sizes that do not divide"] = int(count - ok.sum())
        work_group, groups, local, private = usage_by(r, lambda s, unknown: value(s))
    except _NotExact:
        return None
    reasons = exceeded(r, limits, work_group, groups, local * 4, private * 4)
    for why, fails in reasons:  # each choice counted by the first reason that prunes it
        fails = np.broadcast_to(np.asarray(fails, dtype=bool), ok.shape)
        counts[why] = int((ok & fails).sum())
        ok &= ~fails
    for why, n in counts.items():
        if n:
            pruned[why] = pruned.get(why, 0) + n
    return [dict(zip(names, row)) for row in grid[ok].tolist()]


class _NotExact(Exception):
    """A size whose values floating point might not give exactly."""


def phase3(programs: list[Variant], types: tuple, options: Options, limits: Limits
           ) -> tuple[list[tuple[Variant, dict]], dict[str, int]]:
    """Every parameter choice that fits, and how many were pruned by what."""
    kept: list[tuple[Variant, dict]] = []
    pruned: dict[str, int] = {}
    for v in programs:
        try:
            r = resources(v, types)
        except WorkbenchError:
            pruned["programs whose types do not check"] = \
                pruned.get("programs whose types do not check", 0) + 1
            continue
        found = assignments_at_once(v, r, options, limits, pruned)
        if found is None:
            found = list(assignments(v, r, options, limits, pruned))
        if found and not _vectors_contiguous(v, found[0], types):
            pruned[NOT_CONTIGUOUS] = pruned.get(NOT_CONTIGUOUS, 0) + len(found)
            continue
        kept.extend((v, env) for env in found)
    return kept, pruned


NOT_CONTIGUOUS = "vectors not contiguous in memory"


def _vectors_contiguous(v: Variant, env: dict, types: tuple) -> bool:
    """Whether the parts a program reads as vectors (``private-vectors``, ``vectorize``) lie
    contiguous in memory, as code generation finds for one choice of its parameters (the
    layouts of its copies and inputs decide it, not the parameters' values)."""
    if not any(s.rule in ("private-vectors", "vectorize") for s in v.steps):
        return True
    from ...codegen import CodegenError
    from ...codegen.program import opencl

    try:
        opencl(concrete(v, env)[0], *types)
    except CodegenError as err:
        return "contiguous" not in str(err)
    except Exception:  # another failure (a generator bug included): each run reports it
        return True
    return True


def assign(v: Variant, values: dict[tuple[str, str], int]) -> dict[str, int]:
    """A program's parameters named by the macro step that introduced them:
    ``{("2d-blocking", "k"): 4, ("tiling", "m"): 8, …}`` → ``{"v3": 4, "v7": 8, …}``."""
    env = {}
    for s in v.steps:
        for name, value in s.params.items():
            if (s.rule, name) in values and isinstance(value, Size) and value.free_vars:
                env[next(iter(value.free_vars))] = values[(s.rule, name)]
    return env


def concrete(v: Variant, env: dict[str, int]) -> tuple[Expr, list[Step]]:
    """The program with its parameters, and the steps that derive it."""
    sizes = {k: Size.const(n) for k, n in env.items()}
    steps = []
    for s in v.steps:
        params = {k: (p.substitute(sizes) if isinstance(p, Size) else p)
                  for k, p in s.params.items()}
        steps.append(Step(s.rule, s.path, params))
    return bind_sizes(v.expr, sizes), steps


