"""The page's JavaScript ports (playground/page/) agree with the Python they port: tests/js/fixtures.py
writes what the Python makes of inputs of its own, and Node's own runner runs tests/js/*.test.js
against it, `node --test tests/js/` (Node 20's form for a folder) with CAPSNET_JS_FIXTURES naming the
folder; `npm test` does both. A failure shows node's report, each failed test with what differs."""

import os
import re
import shutil
import subprocess

import pytest

from harness.paths import REPO
from tests.js import fixtures

MIN_TESTS = 10  # fewer means node found only some of the test files


@pytest.fixture(scope="module")
def fixture_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("js-fixtures")
    fixtures.write(folder)
    return folder


def test_node_runs_the_javascript_tests_against_the_python_and_all_pass(fixture_folder):
    assert shutil.which("node"), "no node on PATH: the JavaScript's tests need Node 20"
    node = subprocess.run(
        # A file a process, as many at once as there are cores: pytest waits meanwhile (Node's default
        # leaves one core free, which on two cores runs the files one after another).
        ["node", "--test", f"--test-concurrency={os.cpu_count()}", "--test-reporter=tap", "tests/js/"],
        cwd=REPO,
        env={**os.environ, "CAPSNET_JS_FIXTURES": str(fixture_folder)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    summary = {key: int(n) for key, n in re.findall(r"^# (tests|fail) (\d+)$", node.stdout, re.MULTILINE)}  # TAP's end
    assert node.returncode == 0 and summary.get("tests", 0) >= MIN_TESTS and summary.get("fail") == 0, (
        f"node --test tests/js/ ran {summary.get('tests', 'no')} tests (at least {MIN_TESTS} expected), "
        f"{summary.get('fail', 'some')} failed:\n{node.stdout}{node.stderr}"
    )
