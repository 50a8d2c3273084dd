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
