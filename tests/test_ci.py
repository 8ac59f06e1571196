"""CI does not pass without its data: .ci/run stops before installing anything when ../shared/data
lacks MNIST or Semeion, and with CAPSNET_REQUIRE_DATA=1 (which it sets) a test whose data set is
missing fails instead of skipping."""

import os
import shutil
import subprocess
import sys

import pytest

from harness.paths import REPO

DATA_FILES = [
    "MNIST/raw/train-images-idx3-ubyte",
    "MNIST/raw/train-labels-idx1-ubyte",
    "MNIST/raw/t10k-images-idx3-ubyte",
    "MNIST/raw/t10k-labels-idx1-ubyte",
    "semeion/semeion.data",
]


def run_ci_beside(shared, tmp_path) -> subprocess.CompletedProcess:
    """.ci/run in a checkout of its own with ``shared`` beside it as ../shared."""
    checkout = tmp_path / "checkout"
    (checkout / ".ci").mkdir(parents=True)
    shutil.copy(REPO / ".ci" / "run", checkout / ".ci" / "run")
    if shared is not None:
        shutil.copytree(shared, tmp_path / "shared")
    return subprocess.run(["bash", str(checkout / ".ci" / "run")], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("missing", [None, *DATA_FILES], ids=["no-shared-folder", *DATA_FILES])
def test_ci_stops_saying_which_data_file_is_missing(tmp_path, missing):
    shared = None
    if missing is not None:
        shared = tmp_path / "made" / "shared"
        for name in DATA_FILES:
            if name != missing:
                (shared / "data" / name).parent.mkdir(parents=True, exist_ok=True)
                (shared / "data" / name).write_bytes(b"\0")
    ran = run_ci_beside(shared, tmp_path)
    assert ran.returncode == 1
    assert f"no {tmp_path}/shared/data/{missing or DATA_FILES[0]}" in ran.stderr and "nothing was run" in ran.stderr
    assert not (tmp_path / "checkout" / ".venv").exists()


@pytest.mark.slow
@pytest.mark.parametrize("required, outcome, code", [("1", "1 error", 1), ("0", "1 skipped", 0)])
def test_a_missing_data_set_fails_a_test_where_data_is_required(tmp_path, required, outcome, code):
    env = {**os.environ, "CAPSNET_DATA_DIR": str(tmp_path), "CAPSNET_REQUIRE_DATA": required, "COLUMNS": "300"}
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_preprocess.py::test_semeion_digits",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == code and outcome in ran.stdout, ran.stdout[-2000:]
    assert f"no Semeion digits at {tmp_path}/semeion/semeion.data" in ran.stdout
