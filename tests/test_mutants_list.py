"""The mutation check's mutants (tests/mutants.py) still name lines of the code: each
original line occurs once in its file, so ``python -m tests.mutants`` plants every one."""

from pathlib import Path

import pytest

from tests.mutants import MUTANTS

ROOT = Path(__file__).parent.parent


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_mutants_line_is_in_its_file_once(mutant):
    text = (ROOT / mutant.file).read_text(encoding="utf-8")
    assert text.count(mutant.original) == 1, f"{mutant.name}: update the mutant's line"
    assert mutant.mutated != mutant.original
