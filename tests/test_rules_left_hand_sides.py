"""A rule's left-hand side (``Rule.lhs``) is the shape it rewrites: where the pattern refuses a
site, the rule refuses it with the same reason, whatever its parameters."""

from workbench.expr import walk
from workbench.notation import parse
from workbench.notation.parser import parse_type
from workbench.programs import library
from workbench.rewriting.application import annotation_of, site_at
from workbench.rewriting.site import Refused
from workbench.rules import rules

PROGRAMS = [(library("blas")["dot"], ("[float]_64", "[float]_64")),
            (parse("reduce (+) 0 ∘ map abs ∘ join ∘ split 8"), ("[float]_64",)),
            (parse("map (λrow. reduce (+) 0 (map (λx. x * 2.0) row))"), ("[[float]_8]_8",))]


def test_the_basic_rules_and_the_walked_macros_state_their_left_hand_side():
    basic = [r for r in rules if r.expand is None and r.lhs is not None]
    assert len(basic) > 50
    assert {"map-reduce-fusion", "reduce-chunks", "map-reduce-vectorize"} <= {
        r.name for r in rules if r.expand is not None and r.lhs is not None}


def test_a_rule_refuses_where_its_left_hand_side_does_with_its_reason():
    checked = 0
    for expr, texts in PROGRAMS:
        types = tuple(parse_type(t) for t in texts)
        note = annotation_of(expr, types)
        for path, _ in walk(expr):
            site = site_at(expr, path, note)
            for rule in rules:
                if rule.lhs is None or (rule.pair and site.next is None):
                    continue
                refused = rule.lhs.refusal(site)
                if refused is None:
                    continue
                outcome = rule.rewrite(site, {})
                assert isinstance(outcome, Refused) and outcome.reason == refused.reason, \
                    (rule.name, str(site.node))
                checked += 1
    assert checked > 100
