"""The OpenCL map hierarchy check (PACT map rules; ICFP Sect. 4.2)."""

import pytest

from workbench import parse
from workbench.nesting import NestingError, check_nesting, context, well_formed
from workbench.programs import library


@pytest.mark.parametrize("name", ["listing5_8", "listing5_13"])
def test_reduction_listings_are_well_formed(name):
    assert check_nesting(library("reductions")[name]) == []


def test_figure_3_is_well_formed():
    assert check_nesting(library("figures")["vectorScalLow"]) == []


@pytest.mark.parametrize("text,words", [
    ("mapLocal id", "mapLocal must be inside a mapWorkgroup"),
    ("mapWorkgroup (mapLocal (mapLocal id))", "nested in another mapLocal of dimension 0"),
    ("mapWorkgroup (mapLane id)", "mapLane must be inside a mapWarp"),
    ("mapWorkgroup (mapLocal (mapWarp id))", "mapWarp cannot run inside a mapLocal"),
    ("mapGlobal (mapWorkgroup id)", "mapWorkgroup cannot run inside a mapGlobal"),
    ("mapWorkgroup (mapGlobal id)", "mapGlobal cannot run inside a mapWorkgroup"),
    ("toLocal (mapSeq id)", "toLocal must be inside a mapWorkgroup"),
])
def test_misplaced_maps_are_named(text, words):
    problems = check_nesting(parse(text))
    assert problems and words in problems[0].message
    with pytest.raises(NestingError, match=words):
        well_formed(parse(text))


def test_two_dimensional_nesting_is_allowed():
    grid = parse("mapWorkgroup 1 (mapWorkgroup 0 (mapLocal 1 (mapLocal 0 id)))")
    assert check_nesting(grid) == []
    assert check_nesting(parse("mapGlobal 1 (mapGlobal 0 id)")) == []


def test_context_lists_enclosing_maps():
    e = parse("mapWorkgroup (mapLocal (mapSeq id))")
    assert context(e, (0, 0, 0)) == (("workgroup", 0), ("local", 0), ("seq", 0))
