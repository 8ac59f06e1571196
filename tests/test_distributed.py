"""train.py under torchrun: two processes (gloo, on the CPU) train as one does on the same global
batch, a run one of whose processes is killed with kill -9 resumes where an uninterrupted one
ends, and a NaN loss in one process stops both. Each run is a real `torchrun
--standalone --nproc_per_node=2 train.py ...`."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from capsnet.shipping.saving import load_checkpoint
from harness.paths import REPO
from tests.support.train_flags import train_flags

pytestmark = pytest.mark.slow

VAL_IMAGES, BATCH_SIZE = 64, 32
TRAIN_IMAGES, EPOCHS = 224, 2  # the runs that are interrupted: 7 steps an epoch, 16 images a process each
# One thread a process: the two processes of a run then do the float sums the one process does.
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
# fp32 over 4 steps of Adam: the two processes' gradients are averaged in another order than one
# process sums them, which moves the weights by a few 1e-7 (measured here: at most 8.4e-7).
FP32_TOLERANCE = 1e-5


def flags(data: Path, run: Path, train_images: int, epochs: int, *extra: str) -> list[str]:
    return [
        *train_flags(
            data,
            run / "weights",
            run / "last.pt",
            limit=train_images,
            val_size=VAL_IMAGES,
            batch_size=BATCH_SIZE,
            epochs=epochs,
            device="cpu",
            device_data="on",
            amp="off",
        ),
        *extra,
    ]


def torchrun(*args: str, script: str = "train.py") -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", script, *args]


def run(command: list[str]) -> str:
    result = subprocess.run(command, cwd=REPO, env=ENV, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def trained_state(run_dir: Path) -> dict[str, torch.Tensor]:
    state = load_checkpoint(run_dir / "last.pt")
    return {**{f"model/{k}": v for k, v in state["model"].items()}, **{f"ema/{k}": v for k, v in state["ema"].items()}}


def without_wall_times(history: list[dict]) -> list[dict]:
    return [{k: v for k, v in epoch.items() if k != "seconds"} for epoch in history]


@pytest.mark.parametrize("task", ["digits", "pairs"])
def test_two_processes_train_as_one_process_on_the_same_global_batch(small_mnist, tmp_path, task):
    one, two = tmp_path / "one", tmp_path / "two"
    run([sys.executable, "train.py", *flags(small_mnist, one, 4 * BATCH_SIZE, 1, "--task", task)])  # 4 steps
    output = run(torchrun(*flags(small_mnist, two, 4 * BATCH_SIZE, 1, "--task", task)))
    assert "2 process(es), global batch 32" in output
    expected, actual = trained_state(one), trained_state(two)
    assert expected.keys() == actual.keys()
    for name in expected:  # the moving average too: it follows the same weights in every process
        torch.testing.assert_close(actual[name], expected[name], atol=FP32_TOLERANCE, rtol=0, msg=name)
    # the validation accuracy is over every process's share of the held-out images
    assert without_wall_times(load_checkpoint(two / "last.pt")["history"]) == without_wall_times(
        load_checkpoint(one / "last.pt")["history"]
    )
    assert (two / "weights" / "metrics.json").exists()


@pytest.fixture(scope="module")
def uninterrupted(small_mnist, tmp_path_factory) -> Path:
    """The folder of a torchrun of TRAIN_IMAGES for EPOCHS that nothing stopped: where the
    interrupted runs, resumed, must end."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    run(torchrun(*flags(small_mnist, folder, TRAIN_IMAGES, EPOCHS)))
    return folder


@pytest.mark.parametrize("killed_rank", [1, 0])
def test_a_torchrun_killed_mid_epoch_resumes_where_an_uninterrupted_one_ends(
    small_mnist, uninterrupted, tmp_path, killed_rank
):
    killed = tmp_path / "killed"
    launcher, output, reader = torchrun_until_epoch_2(flags(small_mnist, killed, TRAIN_IMAGES, EPOCHS))
    os.kill(worker_of_rank(launcher.pid, killed_rank), signal.SIGKILL)
    assert launcher.wait(timeout=120) != 0  # torchrun stops the other process and fails
    reader.join(timeout=60)
    checkpoint = load_checkpoint(killed / "last.pt")  # the last good checkpoint is intact
    assert checkpoint["epoch"] == 1, "the kill came after epoch 2 ended"

    output = run(torchrun(*flags(small_mnist, killed, TRAIN_IMAGES, EPOCHS), "--resume"))
    assert f"resumed from {killed / 'last.pt'} after epoch 1" in output
    expected, actual = trained_state(uninterrupted), trained_state(killed)
    for name in expected:
        assert torch.equal(actual[name], expected[name]), name
    assert without_wall_times(load_checkpoint(killed / "last.pt")["history"]) == without_wall_times(
        load_checkpoint(uninterrupted / "last.pt")["history"]
    )
    for file in ("model.safetensors", "config.json"):
        assert (killed / "weights" / file).read_bytes() == (uninterrupted / "weights" / file).read_bytes(), file


def test_sigterm_to_torchrun_stops_both_processes_after_one_step_and_resume_ends_where_an_uninterrupted_run_does(
    small_mnist, uninterrupted, tmp_path
):
    stopped = tmp_path / "stopped"
    launcher, output, reader = torchrun_until_epoch_2(flags(small_mnist, stopped, TRAIN_IMAGES, EPOCHS))
    launcher.send_signal(signal.SIGTERM)  # torchrun sends it on to both processes
    assert launcher.wait(timeout=120) != 0
    reader.join(timeout=60)
    assert re.search(rb"train.py: stopped by SIGTERM after (step \d+ of 7 of )?epoch [12]\.", output), output.decode()
    assert not [path for path in stopped.rglob("*") if path.name.endswith(".tmp") or path.name == ".saving"]

    run(torchrun(*flags(small_mnist, stopped, TRAIN_IMAGES, EPOCHS), "--resume"))
    expected, actual = trained_state(uninterrupted), trained_state(stopped)
    for name in expected:
        assert torch.equal(actual[name], expected[name]), name
    assert [e["val_accuracy"] for e in load_checkpoint(stopped / "last.pt")["history"]] == [
        e["val_accuracy"] for e in load_checkpoint(uninterrupted / "last.pt")["history"]
    ]


def torchrun_until_epoch_2(train_flags: list[str]) -> tuple[subprocess.Popen, bytearray, threading.Thread]:
    """torchrun of train.py with two processes, once rank 0's progress bar shows a step of epoch 2
    done: the launcher, its output so far (still growing) and the thread that reads it."""
    launcher = subprocess.Popen(
        torchrun(*train_flags),
        cwd=REPO,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    output = bytearray()
    reader = threading.Thread(
        target=lambda: [output.extend(chunk) for chunk in iter(lambda: launcher.stdout.read1(4096), b"")], daemon=True
    )
    reader.start()
    in_epoch_2 = re.compile(rb"epoch 2:.*\| [1-7]/7")  # rank 0's progress bar: a step of epoch 2 done
    deadline = time.monotonic() + 300
    while not in_epoch_2.search(bytes(output)):
        assert launcher.poll() is None, f"torchrun ended before epoch 2 got going:\n{output.decode()}"
        assert time.monotonic() < deadline, f"epoch 2 did not start in time:\n{output.decode()}"
        time.sleep(0.05)
    return launcher, output, reader


def worker_of_rank(launcher_pid: int, rank: int) -> int:
    """The pid of torchrun's worker process of ``rank`` (read from each child's environment)."""
    children = Path(f"/proc/{launcher_pid}/task/{launcher_pid}/children").read_text().split()
    for pid in map(int, children):
        environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        if f"RANK={rank}".encode() in environment:
            return pid
    raise AssertionError(f"torchrun ({launcher_pid}) has no worker of rank {rank} among {children}")


def test_a_nan_loss_in_one_process_stops_every_process_with_the_same_message(small_mnist, tmp_path):
    """Process 1 alone sees a NaN at its step 3 (its weights stay finite, as do process 0's): both
    stop after the same read, rank 0 says where, and both return 1; none waits in an all-reduce."""
    command = torchrun(
        "1", "3", *flags(small_mnist, tmp_path, 4 * BATCH_SIZE, 2), script="tests/support/nan_in_one_process.py"
    )
    result = subprocess.run(
        command, cwd=REPO, env={**ENV, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=600
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "rank 0: train.py returned 1" in output and "rank 1: train.py returned 1" in output, output
    message = (
        "train.py: error: epoch 1, step 3: the loss became nan in process 1 of 2; training stopped. No epoch "
        "finished, so nothing was saved. Train again with a lower --lr."
    )
    assert output.count(message) == 1, output
    assert output.count("Traceback") == 1 and "ChildFailedError" in output, output  # torchrun's own report
    assert not (tmp_path / "weights").exists() and not (tmp_path / "last.pt").exists()
