"""The families of primitives (``primitives.families``) name declared primitives and agree with
the declarations' fields they overlap."""

from workbench.primitives import PRIMITIVES, Kernel, families


def test_every_family_names_declared_primitives():
    for name in families.__all__:
        family = getattr(families, name)
        assert isinstance(family, frozenset) and family, name
        assert family <= set(PRIMITIVES), (name, sorted(family - set(PRIMITIVES)))


def test_the_reductions_fold_by_an_operator_from_a_value():
    for name in families.REDUCTIONS:
        kinds = [p.kind for p in PRIMITIVES[name].params[:2]]
        assert kinds == ["fun", "value"], name
    assert families.FOLDS <= families.WHOLE_REDUCTIONS <= families.REDUCTIONS
    assert families.SEQUENTIAL_REDUCTIONS <= families.WHOLE_REDUCTIONS


def test_the_sequential_reductions_are_the_ones_made_as_a_loop():
    assert families.SEQUENTIAL_REDUCTIONS == {
        n for n, p in PRIMITIVES.items() if p.kernel is Kernel.REDUCE_SEQ}


def test_the_stores_and_prefetch_are_the_primitives_with_an_address_space():
    assert families.STORES_AND_PREFETCH == {
        n for n, p in PRIMITIVES.items() if p.address_space is not None}
    assert families.STORES < families.STORES_AND_PREFETCH
    assert families.PRIVATE_STORES == {
        n for n in families.STORES_AND_PREFETCH if PRIMITIVES[n].address_space == "private"}
