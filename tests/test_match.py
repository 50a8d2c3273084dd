"""Patterns for rules' left-hand sides (``rewriting.match``): a pattern fits exactly the terms of
its shape, its captures rebuild the term, and a term that does not fit is refused with the
reason of the innermost part that says what was expected there."""

from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import expressions
from workbench import parse
from workbench.expr import Apply, Compose, Lambda, Prim
from workbench.rewriting.match import Match, app, composed, kind, lam, map_of, prim
from workbench.rules import Refused

NESTED = app(map_of(lam("a", app(map_of("g"), "ys", why="body: not a map applied"),
                        why="not a lambda")),
             "xs", why="top: not a map applied")

terms = st.one_of(expressions(scope=("xs", "ys")), st.sampled_from([
    parse("λm. map (λr. map abs r) m").body, parse("λm. map (λr. abs r) m").body,
    parse("λm. map abs m").body, parse("λm. map (λr. map abs m) m").body]))


def by_hand(e) -> str | None:
    """What the nested pattern checks, written out: None where it fits, else the reason."""
    if not (isinstance(e, Apply) and len(e.args) == 1 and isinstance(e.fn, Prim)
            and e.fn.name == "map" and len(e.fn.args) == 1):
        return "top: not a map applied"
    f = e.fn.args[0]
    if not (isinstance(f, Lambda) and len(f.params) == 1 and isinstance(f.params[0], str)):
        return "not a lambda"
    body = f.body
    if not (isinstance(body, Apply) and len(body.args) == 1 and isinstance(body.fn, Prim)
            and body.fn.name == "map" and len(body.fn.args) == 1):
        return "body: not a map applied"
    return None


@given(terms)
def test_a_pattern_fits_what_the_hand_written_test_accepts_with_its_reason(e):
    m = NESTED.match(e)
    expected = by_hand(e)
    if expected is None:
        assert isinstance(m, Match)
        rebuilt = Apply(Prim("map", (Lambda((m.a,), Apply(Prim("map", (m.g,)), (m.ys,))),)),
                        (m.xs,))
        assert rebuilt == e
    else:
        assert m == Refused(expected)


@given(expressions(scope=("xs", "ys")))
def test_a_name_used_twice_fits_equal_terms_only(e):
    twice = app("f", "x", "x")
    m = twice.match(e)
    fits = isinstance(e, Apply) and len(e.args) == 2 and e.args[0] == e.args[1]
    assert isinstance(m, Match) == fits


@given(expressions(scope=("xs",)))
def test_rest_captures_the_remaining_parts(e):
    m = composed("first", rest="others").match(e)
    if isinstance(e, Compose) and e.fns:
        assert m.first == e.fns[0] and m.others == e.fns[1:]
    else:
        assert isinstance(m, Refused)


def test_side_conditions_are_tested_once_the_shape_fits_and_name_the_captures():
    lhs = app(map_of(lam("a", "body")), "xs", why="it rewrites map (λa. e) xs") \
        .where(lambda m: m.a not in m.xs.free_vars(), "the array depends on {a}")
    assert lhs.match(parse("map abs")) == Refused("it rewrites map (λa. e) xs")
    assert isinstance(lhs.match(parse("λa. map (λb. b) a").body), Match)
    assert lhs.match(parse("λb. map (λb. b) b").body) == Refused("the array depends on b")


def test_primitives_by_one_of_several_names_with_or_without_their_arguments():
    reductions = prim(("reduce", "reduceSeq"), "f", "z", name="r")
    m = reductions.match(parse("reduceSeq (+) 0"))
    assert m.r.name == "reduceSeq" and str(m.f) == "(+)" and str(m.z) == "0"
    assert isinstance(prim("split").match(parse("split 4")), Match)
    assert isinstance(prim("split", "n").match(parse("join")), Refused)
    assert isinstance(kind(Lambda).match(parse("λx. x")), Match)
    assert kind(Lambda, why="a lambda").match(parse("abs")) == Refused("a lambda")


def test_a_part_without_a_reason_refuses_with_its_nearest_enclosing_reason():
    lhs = app(map_of(lam("x", app(prim("zip"), "a", "b"))), "xs", why="outer")
    assert lhs.match(parse("λys. map (λx. abs x) ys").body) == Refused("outer")
    assert lhs.match(parse("map abs")) == Refused("outer")
    assert app("f", "x").match(parse("abs")) == Refused("it does not have the rule's shape")


def test_rewrites_pass_over_rules_of_another_shape_and_list_what_trying_each_lists(
        monkeypatch):
    # ``rewrites`` skips a rule at a node without its left-hand side before listing its
    # parameters: the rewrites listed are those of trying every rule with every parameter
    import random

    from workbench.programs import library
    from workbench.rewriting import application

    def listed(expr, types):
        return [(r.rule, r.path, str(r.params), str(r.result))
                for r in application.rewrites(expr, *types)]

    rng = random.Random(3)
    for name, types in (("asum", ["[float]_1024"]),
                        ("gemv", ["[[float]_64]_32", "[float]_64", "[float]_32", "float",
                                  "float"])):
        expr = library("blas")[name]
        for _ in range(3):
            shaped = listed(expr, types)
            with monkeypatch.context() as every_rule:
                every_rule.setattr(application, "_has_shape", lambda rule, site: True)
                assert listed(expr, types) == shaped
            assert shaped
            expr = application.rewrites(expr, *types)[rng.randrange(len(shaped))].result
