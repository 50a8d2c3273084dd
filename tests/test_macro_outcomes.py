"""A macro is tried cheaply: a left-hand side it states refuses as its strategy would, and
an outcome kept from an earlier run on the same copy of a site is the one a fresh run
gives (``rewriting.macro``)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import TypeCheckError
from workbench.expr import signature_of, walk
from workbench.notation import parse
from workbench.notation.parser import parse_type
from workbench.programs import library
from workbench.rewriting import macro as macro_module
from workbench.rewriting.application import annotation_of, site_at
from workbench.rewriting.macro import exact_key, local_copy
from workbench.rules import rules
from workbench.rules.rule import Refused
from workbench.search.space import random_walk

MACROS = [r for r in rules if r.expand is not None]
PROGRAMS = [(library("blas")["dot"], ("[float]_4096", "[float]_4096")),
            (library("blas")["asum"], ("[float]_4096",)),
            (parse("reduce (+) 0 ∘ map abs"), ("[float]_1024",))]


def _sites(data):
    """Every site of a program after a few random moves (a walk cut short)."""
    expr, texts = data.draw(st.sampled_from(PROGRAMS))
    types = tuple(parse_type(t) for t in texts)
    seed = data.draw(st.integers(0, 2 ** 16))
    depth = data.draw(st.integers(0, 4))
    if depth:
        expr, _ = random_walk(expr, types, random.Random(seed), depth=depth)
    note = annotation_of(expr, types)
    return [site_at(expr, path, note) for path, _ in walk(expr)]


def _fresh(site, rule, params):
    """The macro's outcome from a run of its strategy, none kept."""
    pair = rule.pair and site.next is not None
    copy, types, at = local_copy(site, pair)
    return macro_module._run(rule, params, copy, types, at, pair)


def _or_type_error(run, *args):
    """The outcome, or the type error that refuses it (as ``try_rule`` takes it)."""
    try:
        return run(*args)
    except TypeCheckError as err:
        return Refused(err.reason)


def test_the_walked_macros_state_their_left_hand_side():
    walked = {"map-reduce-fusion", "map-reduce-fusion-strided", "reduce-chunks",
              "reduce-chunks-strided", "map-reduce-vectorize"}
    assert walked <= {r.name for r in MACROS if r.lhs is not None}


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_a_left_hand_side_refuses_where_the_strategy_does_with_its_reason(data):
    for site in _sites(data):
        for rule in MACROS:
            if rule.lhs is None or (rule.pair and site.next is None):
                continue
            refused = rule.lhs.refusal(site)
            if refused is None:
                continue
            for combo in [p.candidates(site)[:1] for p in rule.params] or [[]]:
                params = {p.name: v for p, v in zip(rule.params, combo)}
                try:
                    outcome = _fresh(site, rule, params)
                except TypeCheckError:
                    # the whole definition, copied with its declared type and without its
                    # input types, does not type-check for the strategy: its refusal was
                    # that type error, and is now the shape the macro rewrites
                    assert site.path == () and signature_of(site.node) is not None
                    continue
                assert getattr(outcome, "reason", None) == refused.reason, \
                    (rule.name, str(site.node))


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_a_kept_outcome_is_the_one_a_fresh_run_gives(data):
    for site in _sites(data):
        for rule in MACROS:
            if rule.pair and site.next is None:
                continue
            choices = [p.candidates(site)[:2] for p in rule.params]
            for combo in zip(*choices) if choices else [()]:
                params = {p.name: v for p, v in zip(rule.params, combo)}
                kept = _or_type_error(macro_module.run, site, rule, params)
                again = _or_type_error(macro_module.run, site, rule, params)
                fresh = _or_type_error(_fresh, site, rule, params)
                for outcome in (kept, again):
                    if hasattr(fresh, "reason"):
                        assert outcome.reason == fresh.reason
                    else:
                        assert exact_key(outcome[0].expr) == exact_key(fresh[0].expr)
                        assert outcome[0].steps == fresh[0].steps


def test_the_exact_key_tells_renamed_binders_and_signed_zeros_apart():
    assert parse("map (λx. x)") == parse("map (λy. y)")
    assert exact_key(parse("map (λx. x)")) != exact_key(parse("map (λy. y)"))
    assert exact_key(parse("map (λx. x)")) == exact_key(parse("map (λx. x)"))
    assert exact_key(parse("map (λx. x + 0.0)")) != exact_key(parse("map (λx. x + -0.0)"))
