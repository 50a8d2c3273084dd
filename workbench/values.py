"""Runtime values of the reference interpreter, batched so that ``map`` is vectorised.

The interpreter evaluates the body of ``map f`` once for all elements: inside ``depth``
enclosing maps, every value carries ``depth`` leading *batch axes* (possibly of length 1,
broadcast as in NumPy). Representation of a value at depth ``d``:

* a scalar: an ndarray of shape ``batch`` (``d`` axes);
* an array or SIMD vector of scalars: an ndarray whose axis ``d`` is the array axis;
* a tuple: a Python ``tuple`` of values;
* an array of tuples: a ``Zipped`` of array values (structure of arrays), all sharing axis ``d``.

Functions here only move axes; they never look at types.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Zipped:
    """Arrays whose elements are tuples, stored as one array value per tuple component.

    ``levels`` counts the array levels above the tuple: ``[(A, B)]_N`` has 1,
    ``[[(A, B)]_M]_N`` has 2 (its parts then have two array axes).
    """

    parts: tuple
    levels: int = 1


def _reshape(value, fn, delta: int):
    """Apply a reshaping ``fn`` to every leaf; arrays of tuples gain ``delta`` levels."""
    if isinstance(value, Zipped):
        return Zipped(tuple(_reshape(p, fn, delta) for p in value.parts), value.levels + delta)
    if isinstance(value, tuple):
        return tuple(_reshape(p, fn, delta) for p in value)
    return fn(value)


def leaves(value) -> list[np.ndarray]:
    if isinstance(value, Zipped):
        return [leaf for part in value.parts for leaf in leaves(part)]
    if isinstance(value, tuple):
        return [leaf for part in value for leaf in leaves(part)]
    return [value]


def transform(value, fn):
    """Apply ``fn`` to every ndarray leaf of an array value (keeps Zipped structure)."""
    if isinstance(value, Zipped):
        return Zipped(tuple(transform(p, fn) for p in value.parts), value.levels)
    if isinstance(value, tuple):
        return tuple(transform(p, fn) for p in value)
    return fn(value)


def length(value, depth: int) -> int:
    """Length of the array axis of an array value at ``depth``."""
    return leaves(value)[0].shape[depth]


def lift(value, from_depth: int, to_depth: int):
    """Re-express a value computed at ``from_depth`` for use at a deeper ``to_depth``.

    New batch axes of length 1 are inserted after the existing ones, so the value broadcasts
    against values that really vary along them.
    """
    extra = to_depth - from_depth
    if extra == 0:
        return value

    def expand(leaf):
        leaf = np.asarray(leaf)
        return leaf.reshape(leaf.shape[:from_depth] + (1,) * extra + leaf.shape[from_depth:])

    return transform(value, expand)


def elements(value):
    """View the elements of an array value at depth d as one value at depth d + 1."""
    if isinstance(value, Zipped):
        parts = tuple(elements(p) for p in value.parts)
        return parts if value.levels == 1 else Zipped(parts, value.levels - 1)
    return value


def collect(value, depth: int, n: int):
    """Inverse of ``elements``: the results of a map body (at depth+1) as an array of ``n``."""
    if isinstance(value, tuple):
        return Zipped(tuple(collect(p, depth, n) for p in value))
    if isinstance(value, Zipped):
        return Zipped(tuple(collect(p, depth, n) for p in value.parts), value.levels + 1)

    def widen(leaf):
        leaf = np.asarray(leaf)
        if leaf.ndim < depth + 1:
            leaf = leaf.reshape((1,) * (depth + 1 - leaf.ndim) + leaf.shape)
        if leaf.shape[depth] != n:
            leaf = np.broadcast_to(leaf, leaf.shape[:depth] + (n,) + leaf.shape[depth + 1:])
        return leaf

    return transform(value, widen)


def take(value, depth: int, index):
    """Element(s) ``index`` (an int or an index array) along the array axis at ``depth``."""
    return transform(value, lambda leaf: np.take(leaf, index, axis=depth))


def split(value, depth: int, n: int):
    def fn(leaf):
        shape = leaf.shape
        return leaf.reshape(shape[:depth] + (shape[depth] // n, n) + shape[depth + 1:])

    return _reshape(value, fn, 1)


def join(value, depth: int):
    def fn(leaf):
        shape = leaf.shape
        return leaf.reshape(shape[:depth] + (shape[depth] * shape[depth + 1],) + shape[depth + 2:])

    return _reshape(value, fn, -1)


def swap(value, depth: int):
    """Transpose the two array axes at ``depth`` and ``depth + 1``."""
    return transform(value, lambda leaf: np.swapaxes(leaf, depth, depth + 1))


def concat(values: list, depth: int):
    first = values[0]
    if isinstance(first, Zipped):
        return Zipped(tuple(concat([v.parts[i] for v in values], depth)
                            for i in range(len(first.parts))), first.levels)
    arrays = [np.asarray(v) for v in values]
    shape = np.broadcast_shapes(*[a.shape[:depth] + (1,) + a.shape[depth + 1:] for a in arrays])
    arrays = [np.broadcast_to(a, shape[:depth] + (a.shape[depth],) + shape[depth + 1:])
              for a in arrays]
    return np.concatenate(arrays, axis=depth)


def lanes(parts: tuple, depth: int) -> Zipped:
    """A tuple of vectors (ndarrays with their lane axis at ``depth``) and scalars as one
    vector of tuples, each scalar widened to every lane (``mapVec`` on a tuple). Where
    some parts are float4s in lanes (their lane axis, then their components'), the width is
    theirs, and a float4 of another width is one float4 widened to every lane."""
    shapes = [np.shape(leaf) for leaf in leaves(parts) if np.ndim(leaf) > depth]
    deepest = max(len(shape) for shape in shapes)
    n = next(shape[depth] for shape in shapes if len(shape) == deepest)

    def widen(part):
        if isinstance(part, tuple):  # (acc, (x, y)): the tuples inside, lane by lane
            return tuple(widen(p) for p in part)
        if np.ndim(part) > depth and np.shape(part)[depth] == n:
            return part
        return full_like_length(part, depth, n)

    return Zipped(tuple(widen(p) for p in parts))


def full_like_length(value, depth: int, n: int):
    """``value`` (at depth) repeated ``n`` times as an array at depth."""
    return collect(lift(value, depth, depth + 1), depth, n)


def element_at(value, depth: int, i: int):
    """Element ``i`` of an array value at ``depth``, as a value at ``depth``."""
    if isinstance(value, Zipped):
        parts = tuple(element_at(p, depth, i) for p in value.parts)
        return parts if value.levels == 1 else Zipped(parts, value.levels - 1)
    return np.take(value, i, axis=depth)


def gather(value, depth: int, index: np.ndarray):
    """``out[i] = value[index[i]]`` along the array axis at ``depth`` (index is 1-D)."""
    return transform(value, lambda leaf: np.take(leaf, index, axis=depth))


def windows(value, depth: int, size: int, step: int):
    """Overlapping windows of ``size`` elements, ``step`` apart (the ``slide`` primitive)."""

    def fn(leaf):
        view = np.lib.stride_tricks.sliding_window_view(leaf, size, axis=depth)
        view = np.moveaxis(view, -1, depth + 1)
        # every step-th window, as a view: a copy of a 3-D stencil's windows at 256³ is
        # 27 times its grid (1.7 GB) and took most of the interpreter's time
        return view[(slice(None),) * depth + (slice(None, None, step),)]

    return _reshape(value, fn, 1)
