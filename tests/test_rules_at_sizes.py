"""Rewrites at concrete sizes: a rule offered (or applied) where the input types are
concrete checks its side conditions against the sizes they bind, the body's sizes
included (the ``N`` of ``reducePart (+) 0 (N/128)`` is 512 at ``[float]_512``)."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from workbench import SizeError, apply, rewrites, typecheck
from workbench.programs import library
from workbench.rules import RewriteRefused
from workbench.types import function_parts, substitute_sizes

# Library programs whose sizes are all bound by their input types, with sizes to try.
PROGRAMS = [("figures", f"fig10_{i}", "N") for i in range(9)] + [
    ("figures", "vectorScal", "N"), ("figures", "vectorScalLow", "N"),
    ("blas", "asum", "N"), ("blas", "dot", "N"), ("blas", "scal", "N"),
    ("blas", "vecSum", "N"), ("blas", "gemv", "N"), ("mm", "mm", "N"),
    ("reductions", "listing5_8", "N"), ("blackscholes", "blackScholes", "N"),
]
OTHER_SIZES = {"M": 8, "K": 16}


def concrete_types(expr, sizes):
    return [substitute_sizes(t, sizes) for t in function_parts(expr.declared_type)[0]]


def test_a_partial_reduction_that_does_not_divide_the_bound_size_is_not_offered():
    fig10_1 = library("figures")["fig10_1"]  # reducePart (+) 0 (N/128): 4 values at N = 512
    offered = [r.params["n"] for r in rewrites(fig10_1, "[float]_512", at=(0,))
               if r.rule == "reduce-partial"]
    assert offered and all(int(n) <= 4 and 4 % int(n) == 0 for n in offered)


def test_applying_it_anyway_is_refused_naming_the_rule_and_place():
    fig10_1 = library("figures")["fig10_1"]
    with pytest.raises(RewriteRefused) as info:
        apply(fig10_1, "reduce-partial", "0", "[float]_512", n=8)
    assert (info.value.rule, info.value.path) == ("reduce-partial", (0,))


def test_the_symbolic_program_still_offers_every_factor():
    fig10_1 = library("figures")["fig10_1"]
    offered = {str(r.params["n"]) for r in rewrites(fig10_1, at=(0,))
               if r.rule == "reduce-partial"}
    assert "8" in offered  # N is unknown: 8 divides N/128 under a recorded assumption
    assert "N/1024" in offered  # and fractions of N, as Fig. 10 uses


def test_a_result_that_does_not_fit_the_sizes_is_a_size_error():
    fig10_1 = library("figures")["fig10_1"]
    wrong = apply(fig10_1, "reduce-partial", "0", n=8)  # symbolic: accepted
    with pytest.raises(SizeError):
        typecheck(wrong, "[float]_512")


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(PROGRAMS), st.sampled_from([128, 512, 1024, 4096]), st.data())
def test_every_rewrite_offered_at_concrete_sizes_type_checks_at_those_sizes(program, n, data):
    file, name, size = program
    expr = library(file)[name]
    sizes = {**OTHER_SIZES, size: n}
    types = concrete_types(expr, sizes)
    try:
        typecheck(expr, *types, sizes=sizes)
    except SizeError:
        assume(False)  # the program itself does not fit these sizes (split 1024 of 128)
    for _ in range(2):  # the program, then a rewrite of it chosen at random
        offered = rewrites(expr, *types)
        for r in offered:
            typecheck(r.result, *types, sizes=sizes)  # a SizeError where one does not fit
        if not offered:
            break
        expr = data.draw(st.sampled_from(offered)).result


def test_a_rewrite_inside_iterate_fits_every_iteration_at_the_bound_sizes():
    """Under ``iterate`` the body meets a shorter array each time: at N = 512 the last of
    the seven iterations splits arrays of length 2, so no split-join of its map fits."""
    from workbench import parse
    from workbench.expr import keep_signature
    from workbench.programs import library

    expr = keep_signature(parse(
        "reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (iterate 7 (join ∘ map (reducePart (+) 0 1) ∘ "
        "split 2)) ∘ split (65536/N) ∘ joinVec ∘ map (mapVec abs) ∘ splitVec 16"),
        library("figures")["fig10_1"])
    offered = [r for r in rewrites(expr, "[float]_512")
               if r.rule == "split-join" and r.path == (2, 0, 0, 1)]
    assert offered == []
    for r in rewrites(expr, "[float]_512"):
        typecheck(r.result, "[float]_512")  # every offered rewrite fits


def test_a_rewrite_inside_a_loop_fits_every_stage_at_the_bound_sizes():
    """``loop`` too applies its stage to a shorter array each time (the campaign found
    split 32 offered inside a loop whose last stage reduces arrays of 16 elements)."""
    from workbench import parse

    expr = parse("reduce (+) 0 ∘ joinVec ∘ reduce (mapVec (+)) 0 ∘ splitVec 2 ∘ "
                 "loop 7 (λi. join ∘ map (reducePart (+) 0 1) ∘ split 2)")
    for r in rewrites(expr, "[float]_1024"):
        typecheck(r.result, "[float]_1024")  # every offered rewrite fits
