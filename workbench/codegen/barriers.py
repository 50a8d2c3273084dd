"""Barrier elision: the pass that removes the barriers the emitter placed where they are
provably unnecessary (SPEC 6).

The emitter puts a barrier after every ``mapLocal`` (and after the lane maps and the
single-work-item steps of a warp or work-group), so that what one work-item wrote is seen
by the others before they read it. A barrier is unnecessary when nothing follows it: it is
the last statement of the kernel, and the only loops it sits in are ``mapWorkgroup`` loops
that each work-group runs exactly once (their extent is the number of work-groups
launched), so no later statement and no later iteration can read or overwrite what the
work-items wrote before it.
"""

from __future__ import annotations


def unnecessary(lines: list[str], barriers: list, groups: dict[int, int]) -> list[int]:
    """The line numbers of the barriers that can go; ``barriers`` holds each one's line and
    enclosing loops (level, extent, dimension), ``groups`` the work-groups launched per
    dimension."""
    gone = []
    for line, loops in barriers:
        last = all(rest.strip() == "}" for rest in lines[line + 1:])
        once = all(level == "workgroup" and extent == groups.get(dim)
                   for level, extent, dim in loops)
        if last and once:
            gone.append(line)
    return gone


def elide(lines: list[str], barriers: list, groups: dict[int, int]) -> list[str]:
    drop = set(unnecessary(lines, barriers, groups))
    return [text for i, text in enumerate(lines) if i not in drop]
