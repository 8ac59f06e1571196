"""The page's JavaScript (playground/page/) under Node's own runner: `node --test tests/js/` (Node
20's form for a folder; `npm test` does the same). Each module is tested for what it does: the
ink a drawing makes and its 28x28, the renderers, the seam's questions to the server
(tests/js/page_networks.test.js); the page's readings against the networks are the browser tests'.
A failure shows node's report, each failed test with what differs."""

import os
import re
import shutil
import subprocess

from harness.paths import REPO

MIN_TESTS = 40  # fewer means node found only some of the test files


def test_node_runs_the_javascript_tests_and_all_pass():
    assert shutil.which("node"), "no node on PATH: the JavaScript's tests need Node 20"
    node = subprocess.run(
        # A file a process, as many at once as there are cores: pytest waits meanwhile (Node's default
        # leaves one core free, which on two cores runs the files one after another).
        ["node", "--test", f"--test-concurrency={os.cpu_count()}", "--test-reporter=tap", "tests/js/"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    summary = {key: int(n) for key, n in re.findall(r"^# (tests|fail) (\d+)$", node.stdout, re.MULTILINE)}  # TAP's end
    assert node.returncode == 0 and summary.get("tests", 0) >= MIN_TESTS and summary.get("fail") == 0, (
        f"node --test tests/js/ ran {summary.get('tests', 'no')} tests (at least {MIN_TESTS} expected), "
        f"{summary.get('fail', 'some')} failed:\n{node.stdout}{node.stderr}"
    )
