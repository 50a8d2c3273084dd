"""The README's 30-second example runs as written."""

import doctest
from pathlib import Path


def test_readme_python_examples():
    text = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    blocks = [part.split("```", 1)[0] for part in text.split("```python")[1:]]
    assert blocks
    runner = doctest.DocTestRunner()
    for i, block in enumerate(blocks):
        test = doctest.DocTestParser().get_doctest(block, {}, f"README block {i}", "README.md", 0)
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


def test_readme_catalogue_lists_every_primitive_and_rule():
    from workbench.primitives import PRIMITIVES
    from workbench.rules import rules

    text = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    catalogue = text[text.index("## The catalogue"):text.index("## Map of the folders")]
    missing = [name for name in [*PRIMITIVES, *(r.name for r in rules)]
               if f"`{name}`" not in catalogue]
    assert not missing, f"not in the README's catalogue (python -m workbench.catalogue): {missing}"
