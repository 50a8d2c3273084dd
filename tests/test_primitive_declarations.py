"""A primitive's declaration says how code is generated for it, in typed fields, once."""

import pytest

from workbench.codegen.ir import LoopLevel
from workbench.primitives import PRIMITIVES, MapLevel, Primitive

FORMS = ("layout", "map_level", "address_space", "kernel", "view", "c_name")
# generated where tuples are (a projection of a tuple value), not as a primitive of its own
BY_THE_TUPLES = {"get"}


def forms(decl: Primitive) -> list[str]:
    return [name for name in FORMS if getattr(decl, name) is not None]


@pytest.mark.parametrize("name", sorted(n for n, d in PRIMITIVES.items() if d.codegen))
def test_a_primitive_the_code_generator_knows_declares_one_way_to_generate_it(name):
    decl = PRIMITIVES[name]
    assert len(forms(decl)) == (0 if name in BY_THE_TUPLES else 1), (name, forms(decl))


@pytest.mark.parametrize("name", sorted(n for n, d in PRIMITIVES.items() if not d.codegen))
def test_a_high_level_primitive_declares_no_code_but_its_meaning(name):
    decl = PRIMITIVES[name]
    # map's level is "any" (to be lowered); reorder's index functions are the identity's
    assert forms(decl) in ([], ["layout"]) or decl.map_level is MapLevel.ANY, forms(decl)
    assert decl.high_level


def test_every_level_a_map_runs_on_is_a_level_of_loops():
    for level in MapLevel:
        if level not in (MapLevel.ANY, MapLevel.VECTOR):
            assert LoopLevel(level) == level
    assert {d.name for d in PRIMITIVES.values() if d.is_map} == \
        {d.name for d in PRIMITIVES.values() if d.map_level is not None}


def test_unrolled_primitives_are_sequential_loops():
    unrolled = {d.name for d in PRIMITIVES.values() if d.unrolled}
    assert unrolled == {"mapSeqUnroll", "reduceSeqUnroll"}
    assert all(PRIMITIVES[n].map_level in (None, MapLevel.SEQ) for n in unrolled)
