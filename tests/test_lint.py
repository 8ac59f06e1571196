"""The tree passes ruff (pyproject.toml's [tool.ruff], the version requirements-dev.txt pins): its
linter, and its formatter's check that every file is as `ruff format` writes it. A failure shows
ruff's report, a line a finding; `ruff check --fix .` and `ruff format .` mend most of them
(`ruff format --diff .` shows what it would change)."""

import subprocess
import sys

import pytest

from bench.support.paths import REPO


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff_finds_nothing(command):
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", *command, "--output-format", "concise", "."],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ruff.returncode == 0, f"ruff {' '.join(command)} .:\n{ruff.stdout}{ruff.stderr}"
