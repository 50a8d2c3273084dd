"""Which rules random walks take, from the rules' tags (``rules.rule.NOT_WALKED``)."""

from workbench.rules import blocking, copies, extraction, interchange, pact, rules, scans, skeletons
from workbench.rules.rule import BLOCKING, IDENTITY, NOT_WALKED, OTHER_SEED, Rule, tagged
from workbench.search.space import walk_rules

# The ICFP space (Figs. 6 and 7, PACT's maps, the macros) in which the recorded searches
# replay: a change here changes every strategy's choices (raise its version in VERSIONS).
# pad-map-interchange applies only to pads (Lift's stencils), which no recorded search has.
WALKED = [
    "reorder-commute", "split-join", "reduce-partial", "partial-partial", "partial-reduce",
    "partial-iterate", "partial-split", "join-split", "split-join-cancel", "joinVec-splitVec",
    "splitVec-joinVec", "map-fusion", "reduceSeq-mapSeq-fusion", "map→mapGlobal",
    "map→mapWorkgroup", "map→mapLocal", "map→mapWarp", "map→mapLane", "map→mapSeq",
    "reduce→reduceSeq", "reorder→reorderStride", "reorder→id", "toLocal", "toGlobal",
    "toPrivate", "vectorize", "id-elim", "map-reduce-fusion", "map-reduce-fusion-strided",
    "reduce-chunks", "reduce-chunks-strided", "reduce-vectorize", "map-reduce-vectorize",
    "map-reduceSeq-fusion", "workgroup-reduce", "workgroup-map-reduce", "two-stage-reduction",
    "reduce-single", "reduceSeq→reduceSeqUnroll", "mapSeq→mapSeqUnroll", "pad-map-interchange"]


def test_walks_take_the_rules_of_icfp_s_space_in_catalogue_order():
    assert [r.name for r in walk_rules()] == WALKED


def test_a_tagged_rule_is_not_walked_and_an_untagged_one_is():
    names = {r.name for r in walk_rules()}
    for rule in rules:
        assert (rule.name in names) == (not rule.tags & NOT_WALKED), rule.name
    assert {r.name for r in rules if IDENTITY in r.tags} >= {"id-after", "id-before", "id→map"}


def test_every_rule_of_blocking_and_of_the_other_seeds_is_tagged():
    tags = {r.name: r.tags for r in rules}
    for module, tag in ((interchange, BLOCKING), (copies, BLOCKING), (blocking, BLOCKING),
                        (extraction, OTHER_SEED), (scans, OTHER_SEED), (skeletons, OTHER_SEED),
                        (pact, OTHER_SEED)):
        for rule in module.RULES:
            assert tag in tags[rule.name], rule.name


def test_tags_leave_a_rule_equal_to_itself():
    rule = Rule("r", "f → f", "algorithmic", "none", lambda site, p: site.node)
    assert tagged(rule, IDENTITY) == rule and tagged(rule, IDENTITY).tags == {IDENTITY}
    assert tagged(rule) is rule
