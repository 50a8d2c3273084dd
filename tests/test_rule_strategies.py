"""The strategy combinators of ``rewriting.strategies`` (ELEVATE's seq, leftChoice, try,
repeat, topDown, bottomUp, normalize): each on a small expression, with the steps it
records, and a refusal where nothing applies."""

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import parse
from workbench.rewriting.strategies import (
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
from workbench.rules.rule import Refused


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


# --- strategies as arguments, and locations --------------------------------------------------

def test_traversals_take_strategies_and_locations_name_the_place():
    from workbench.rewriting.strategies import (
        all_,
        argument,
        body,
        element,
        fmap,
        function,
        last_element,
        one,
        rule,
    )

    start = state("join ∘ map (map abs) ∘ split 8", "[float]_64")
    inner = element("map", fmap(rule("map→mapSeq")))(start)
    assert str(inner.expr) == "join ∘ map (mapSeq abs) ∘ split 8"
    assert inner.steps[0].path == (1, 0) and inner.focus == ()  # back where it started
    outer = top_down(seq(rule("map→mapGlobal", dim=0), fmap(rule("map→mapSeq"))))(start)
    assert str(outer.expr) == "join ∘ mapGlobal (mapSeq abs) ∘ split 8"
    assert isinstance(element("reduce", rule("map→mapSeq"))(start), Refused)
    assert str(last_element("map", rule("map→mapSeq"))(
        state("map abs ∘ map abs", "[float]_8")).expr) == "map abs ∘ mapSeq abs"
    every = all_(try_lower())(state("map abs ∘ map abs", "[float]_8"))
    assert str(every.expr) == "mapSeq abs ∘ mapSeq abs"
    first = one(try_lower(strict=True))(state("map abs ∘ map abs", "[float]_8"))
    assert str(first.expr) == "mapSeq abs ∘ map abs"
    applied = state("λxs. map abs xs", "[float]_8")
    done = body(function(rule("map→mapSeq")))(applied)
    assert str(done.expr) == "λxs. mapSeq abs xs" and done.steps[0].path == (0, 0)
    assert isinstance(body(argument(rule("map→mapSeq")))(applied), Refused)  # xs is no map


def try_lower(strict: bool = False):
    from workbench.rewriting.strategies import rule

    return rule("map→mapSeq") if strict else attempt(rule("map→mapSeq"))


def test_a_refused_basic_step_says_which_rule_where_and_its_number():
    from workbench.rewriting.strategies import StepRefused, rule

    result = seq(rule("map→mapSeq"), rule("map→mapSeq"))(state("map abs", "[float]_8"))
    assert isinstance(result, StepRefused)
    assert (result.rule, result.path, result.number) == ("map→mapSeq", (), 2)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_top_down_applies_where_the_first_rule_at_a_path_in_pre_order_applies(data):
    """``top_down(rule)`` = ``rule_at`` at the first path (pre-order) where it applies;
    ``bottom_up`` the same from the innermost; neither moves the focus."""
    from workbench.expr import walk

    depth = data.draw(st.integers(1, 3))
    text = " ∘ ".join(data.draw(st.lists(st.sampled_from(
        ["map abs", "join ∘ map (map abs) ∘ split 4", "join ∘ split 2", "map (λx. x * 2.0)"]),
        min_size=1, max_size=depth)))
    start = state(text, "[float]_64")
    from workbench.rewriting.strategies import rule

    for order, strategy in (("top-down", top_down(rule("map→mapSeq"))),
                            ("bottom-up", bottom_up(rule("map→mapSeq")))):
        paths = [p for p, _ in walk(start.expr)]
        if order == "bottom-up":
            paths.reverse()
        expected = next((r for r in (rule_at("map→mapSeq", p)(start) for p in paths)
                         if not isinstance(r, Refused)), None)
        result = strategy(start)
        if expected is None:
            assert isinstance(result, Refused)
        else:
            assert result.expr == expected.expr and result.steps == expected.steps
            assert result.focus == start.focus
