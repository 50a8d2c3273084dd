"""Hand-written OpenCL peers of Lift's benchmark programs (``benchmarks.lift_programs``),
written from the designs the fast implementations use, one module per program family, each
in a variant for a GPU and one tuned for PoCL on a CPU:

- ``nbody``: bodies tiled through local memory for a group of 128, ``rsqrt``, float4 (GPU);
  eight bodies in the lanes of float8 vectors against every other body (CPU);
- ``md``: SHOC's molecular dynamics, each atom over its neighbour list;
- ``kmeans``, ``nearest_neighbour``: as Rodinia writes them (a point a work-item, the
  features in the program's feature-major layout); on the CPU eight points in vector lanes;
- ``mriq``: Parboil's ``computeQ`` with the k-space samples tiled through local memory;
- ``stencils``: one output a work-item on a 2-D or 3-D grid of neighbouring reads (GPU); a
  row a work-item, float8 along it (CPU);
- ``gesummv``: a row per group with float4 loads and a tree reduction (GPU); a row a
  work-item with float8 accumulators (CPU);
- ``blackscholes``: vectorised, the branch a ``select``.

``peer(name, kind, args, target)`` builds a program's peer for inputs ``args`` (as
``lift_programs.inputs_of`` draws them) and a device's ``Target`` (``target_of``: its
compute units, its vectors); ``flops(name, args)`` counts its arithmetic (the program's, the
same for any kernel of it). Every peer is checked against the program's
NumPy reference (tests/test_peers.py); ``python -m benchmarks.peers`` times them all.
"""

from __future__ import annotations

from . import blackscholes, gesummv, kmeans, md, mriq, nbody, nearest_neighbour, stencils
from .core import Bound, Launch, Peer, PeerBuildError, Target, target_of

KINDS = ("cpu", "gpu")

_BUILDERS = {**stencils.PEERS, **nbody.PEERS, **kmeans.PEERS, **nearest_neighbour.PEERS,
             **mriq.PEERS, **md.PEERS, **blackscholes.PEERS, **gesummv.PEERS}


def names() -> list[str]:
    """The programs with a hand-written peer."""
    return list(_BUILDERS)


def peer(name: str, kind: str, args: list, target: Target | None = None) -> Peer:
    """``name``'s hand-written peer for a ``kind`` of device ("cpu" or "gpu", any other
    kind gets the CPU's) of ``target``'s compute units and vectors (two units, float8 when
    none is given), for inputs ``args``."""
    if name not in _BUILDERS:
        raise KeyError(f"no hand-written peer of {name!r}; there are: {', '.join(_BUILDERS)}")
    return _BUILDERS[name][0]("gpu" if kind == "gpu" else "cpu", args, target or Target())


def flops(name: str, args: list) -> float:
    """The floating-point operations of one run of ``name`` on inputs ``args``."""
    return _BUILDERS[name][1](args)


__all__ = ["Bound", "KINDS", "Launch", "Peer", "PeerBuildError", "Target", "flops", "names",
           "peer", "target_of"]
