"""The README's Python example runs as written."""
import re
from pathlib import Path

import pytest

README = Path(__file__).parent.parent / "README.md"


@pytest.mark.slow
def test_readme_example_runs(monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
