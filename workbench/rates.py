"""A kernel's rates, one definition for every place that shows them (``run``'s result, a
search's best, the command line's ``--json``, the widget, the notebooks and the plots).

- **Effective GB/s**: the bytes of the program's own inputs and output (what any
  implementation must read and write at least once) over the kernel time. It does not
  depend on how a kernel moves its data, so it rises whenever a step makes the kernel
  faster, and it reads directly against the device's copy.
- **GFLOP/s**: the arithmetic operations the kernel IR counts (``codegen.features``) over
  the kernel time.
- Each beside the device's ceilings measured on it (``workbench.ceilings``: a copy's GB/s,
  fused multiply-adds' GFLOP/s), as a share. Above 100 % of a copy the data did not all come
  from memory: the inputs were (partly) in a cache, and the text says so.

Scalars (a size, a constant) count as the bytes they are; a tuple output counts every
component.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rates:
    """A kernel time read as rates (None where a count or the time is unknown), with the
    device's ceilings where they were measured."""

    kernel_ms: float
    bytes: int | None
    operations: int | None
    copy_gb_per_s: float | None = None  # the device's copy
    peak_gflop_per_s: float | None = None  # the device's fused multiply-adds

    @property
    def gb_per_s(self) -> float | None:
        if not self.bytes or not self.kernel_ms or self.kernel_ms <= 0:
            return None
        return self.bytes / (self.kernel_ms * 1e6)

    @property
    def gflop_per_s(self) -> float | None:
        if not self.operations or not self.kernel_ms or self.kernel_ms <= 0:
            return None
        return self.operations / (self.kernel_ms * 1e6)

    @property
    def share_of_copy(self) -> float | None:
        rate = self.gb_per_s
        return rate / self.copy_gb_per_s if rate and self.copy_gb_per_s else None

    @property
    def share_of_peak(self) -> float | None:
        rate = self.gflop_per_s
        return rate / self.peak_gflop_per_s if rate and self.peak_gflop_per_s else None

    @property
    def in_cache(self) -> bool:
        """Faster than a copy of its inputs and output: some of them came from a cache."""
        return (self.share_of_copy or 0) > 1

    def text(self) -> str:
        """``2.10 GB/s (22% of a copy's 9.5 GB/s), 0.52 GFLOP/s (0.4% of the peak 140)``;
        over a copy's rate, ``… (in cache: 150% of a copy's …)``."""
        parts = []
        if self.gb_per_s is not None:
            part = f"{self.gb_per_s:.2f} GB/s"
            if self.share_of_copy is not None:
                cache = "in cache: " if self.in_cache else ""
                part += f" ({cache}{self.share_of_copy:.0%} of a copy's {self.copy_gb_per_s:.1f})"
            parts.append(part)
        if self.gflop_per_s is not None:
            part = f"{self.gflop_per_s:.2f} GFLOP/s"
            if self.share_of_peak is not None:
                part += f" ({self.share_of_peak:.1%} of the peak {self.peak_gflop_per_s:.0f})"
            parts.append(part)
        return ", ".join(parts)

    def as_json(self) -> dict:
        return {"bytes": self.bytes, "operations": self.operations,
                "gb_per_s": self.gb_per_s, "gflop_per_s": self.gflop_per_s,
                "copy_gb_per_s": self.copy_gb_per_s,
                "peak_gflop_per_s": self.peak_gflop_per_s,
                "share_of_copy": self.share_of_copy, "share_of_peak": self.share_of_peak,
                "in_cache": self.in_cache}


def rates(kernel_ms: float, bytes: int | None, operations: int | None,
          ceilings=None) -> Rates:
    """The rates of a kernel time, read against ``ceilings`` (a ``ceilings.Ceilings``)
    where given."""
    return Rates(kernel_ms, bytes, operations,
                 getattr(ceilings, "gb_per_s", None), getattr(ceilings, "gflop_per_s", None))


def program_operations(program) -> int | None:
    """The arithmetic operations a compiled program's kernels perform (the IR's count;
    None where it is not known)."""
    features = getattr(program, "features", None)
    if features is None:
        return None
    return sum(k.arithmetic for k in features.kernels)


def program_bytes(program) -> int | None:
    """The bytes of a compiled program's own inputs and outputs (its input and output
    buffers: every component of a tuple, scalars as the numbers they are)."""
    try:
        parts = [b for group in program.input_parts for b in group] + list(program.output_parts)
        return sum(int(b.length) * b.scalar_dtype().itemsize for b in parts)
    except (AttributeError, TypeError, ValueError):
        return None


def of_program(kernel_ms: float, program, ceilings=None) -> Rates:
    """The rates of a compiled program's kernel time."""
    return rates(kernel_ms, program_bytes(program), program_operations(program), ceilings)
