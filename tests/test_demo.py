"""`make demo` and the README quote one command, and its scree has a shape (issue 24, 5)."""
import re
import shlex
from pathlib import Path

from dppca import load_adult
from dppca.cli import _parser

ROOT = Path(__file__).resolve().parent.parent


def test_demo_command_is_the_readme_command_with_every_adult_component():
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^demo:.*\n\t(.*)$", makefile, flags=re.M).group(1)
    command = recipe.replace("$(VENV)/bin/", "")
    assert f"`make demo` runs `{command}`" in (ROOT / "README.md").read_text()
    args = _parser().parse_args(shlex.split(command)[1:])
    # the scree has one point per component: all of adult's numeric columns (5), not 2
    assert args.data == "adult" and args.k == load_adult().select_dtypes("number").shape[1] == 5
