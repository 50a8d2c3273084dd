"""How a kernel's time reads as a rate against the device's measured ceilings
(``workbench.ceilings``): GFLOP/s over the arithmetic ceiling for a dense program, GB/s
over a copy's for a stencil or a map, whose work is moving its bytes."""

from __future__ import annotations


def unit(program_kind: str) -> str:
    """``GFLOP/s`` for a dense program (N-body, MD, K-means, MRI-Q's ``computeQ``, GESUMMV:
    ``LiftProgram.kind`` "dense"), ``GB/s`` for a stencil or a map."""
    return "GFLOP/s" if program_kind == "dense" else "GB/s"


def rate(program_kind: str, flops: float | None, nbytes: float | None, ms: float | None,
         ceilings=None) -> tuple[float | None, float | None]:
    """A time as the program's rate (``unit``) and its share of the device's ceiling for
    that rate (None where there is no time or no ceiling): ``workbench.rates``' reading."""
    from workbench.rates import rates

    if not ms:
        return None, None
    read = rates(ms, nbytes, flops, ceilings)
    if unit(program_kind) == "GFLOP/s":
        return read.gflop_per_s, read.share_of_peak
    return read.gb_per_s, read.share_of_copy


def rate_text(program_kind: str, value: float | None, share: float | None) -> str:
    """``12.3 GB/s (45%)``; a dash for no rate."""
    if value is None:
        return "–"
    return f"{value:.3g} {unit(program_kind)}" + (f" ({share:.0%})" if share is not None
                                                  else "")
