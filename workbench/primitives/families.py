"""Families of primitives, each declared once (as tinygrad's ``GroupOp``): the names that rules,
the interpreter's memory estimate, the code generator and the search take alike. A family
that a declaration's field already says (the maps: ``Primitive.is_map``; the layouts:
``Primitive.layout``) is read from the declarations instead; the tests check that the
families below name declared primitives and agree with the fields they overlap.
"""

from __future__ import annotations

# Every reduction: a fold by the operator f from the value z (``reduce f z``, their first two
# parameters), whole or in parts, high-level or sequential (ICFP Figs. 4, 5, 6d, 7b)
REDUCTIONS = frozenset({"reduce", "reducePart", "reduceSeq", "reduceSeqUnroll"})
# The reductions of a whole array to one value
WHOLE_REDUCTIONS = REDUCTIONS - {"reducePart"}
# A whole array folded in one loop, before or after its lowering (ICFP Fig. 7b, reduce →
# reduceSeq) and not unrolled: what the rules that move a reduction or read its operator
# rewrite (reduce–map interchange, the spellings of a matrix product), and what the
# interpreter runs as one contraction
FOLDS = frozenset({"reduce", "reduceSeq"})
# The reductions one work-item runs as a loop of its own (``Kernel.REDUCE_SEQ``)
SEQUENTIAL_REDUCTIONS = frozenset({"reduceSeq", "reduceSeqUnroll"})

# Where a function's results are stored (ICFP Fig. 7d's toGlobal and toLocal, Lift's
# toPrivate)
STORES = frozenset({"toGlobal", "toLocal", "toPrivate"})
# Every primitive with an address space (``Primitive.address_space``): the stores and the
# private copy a sequential reduction makes of its next element ahead (``prefetch``)
STORES_AND_PREFETCH = STORES | {"prefetch"}
# Those that store into private memory: they belong to one work-item
PRIVATE_STORES = frozenset({"toPrivate", "prefetch"})

__all__ = ["REDUCTIONS", "WHOLE_REDUCTIONS", "FOLDS", "SEQUENTIAL_REDUCTIONS", "STORES",
           "STORES_AND_PREFETCH", "PRIVATE_STORES"]
