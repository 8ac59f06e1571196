"""The tree passes its linters. The Python passes ruff (pyproject.toml's [tool.ruff], the version
requirements-dev.txt pins): its linter, and its formatter's check that every file is as `ruff format`
writes it. A failure shows ruff's report, a line a finding; `ruff check --fix .` and `ruff format .`
mend most of them (`ruff format --diff .` shows what it would change).

The page's JavaScript passes Biome (biome.json, the version package.json pins, which `npm ci`
installs): its formatter and linter, warnings included, as `npm run check` runs them; `npx biome check
--write` mends the format and the safe fixes. (Its tests run in test_javascript_ports.)"""

import subprocess
import sys

import pytest

from harness.paths import REPO


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


def test_biome_finds_nothing():
    assert (REPO / "node_modules" / ".bin" / "biome").exists(), "no node_modules/.bin/biome: run `npm ci` (Node 20)"
    biome = subprocess.run(
        ["npm", "run", "--silent", "check", "--", "--reporter=concise", "--colors=off", "--max-diagnostics=none"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert biome.returncode == 0, f"npm run check (biome check):\n{biome.stdout}{biome.stderr}"
