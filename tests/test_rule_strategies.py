"""The strategy combinators of ``rules.strategies`` (ELEVATE's seq, leftChoice, try,
repeat, topDown, bottomUp, normalize): each on a small expression, with the steps it
records, and a refusal where nothing applies."""

from workbench import parse
from workbench.rules.rule import Refused
from workbench.rules.strategies import (
    State,
    attempt,
    bottom_up,
    choice,
    normalize,
    repeat,
    rule_at,
    seq,
    top_down,
)


def state(text: str, *types: str) -> State:
    from workbench import parse_type

    return State(parse(text), tuple(parse_type(t) for t in types))


def test_top_down_and_bottom_up_pick_the_outermost_and_the_innermost_place():
    start = state("map (map abs)", "[[float]_8]_8")
    outer = top_down("map→mapGlobal", dim=0)(start)
    inner = bottom_up("map→mapSeq")(start)
    assert str(outer.expr) == "mapGlobal (map abs)" and outer.steps[0].path == ()
    assert str(inner.expr) == "map (mapSeq abs)" and inner.steps[0].path == (0,)


def test_normalize_applies_a_rule_until_it_applies_nowhere():
    result = normalize("map→mapSeq")(state("map (map abs)", "[[float]_8]_8"))
    assert str(result.expr) == "mapSeq (mapSeq abs)"
    assert [s.rule for s in result.steps] == ["map→mapSeq", "map→mapSeq"]
    assert normalize("map→mapSeq")(result) == result  # nothing left: no step


def test_seq_choice_attempt_and_repeat_compose():
    start = state("map abs", "[float]_1024")
    split = seq(rule_at("split-join", (), n=128), rule_at("map→mapWorkgroup", (1,), dim=0))
    done = split(start)
    assert str(done.expr) == "join ∘ mapWorkgroup (map abs) ∘ split 128"
    refused = rule_at("map→mapLocal", (), dim=0)(start)  # no work-group around it
    assert isinstance(refused, Refused)
    assert isinstance(seq(split, rule_at("map→mapLocal", (), dim=0))(start), Refused)
    either = choice(rule_at("map→mapLocal", (), dim=0), rule_at("map→mapGlobal", (), dim=0))
    assert str(either(start).expr) == "mapGlobal abs"
    assert attempt(rule_at("map→mapLocal", (), dim=0))(start) == start
    assert str(repeat(top_down("map→mapSeq"))(state("map (map abs)", "[[float]_8]_8")).expr) \
        == "mapSeq (mapSeq abs)"
