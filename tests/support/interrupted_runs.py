"""train.py runs interrupted on purpose: killed or signalled in epoch 2, or given a loss that turns NaN."""

import re
import signal
import subprocess
import threading
import time

from harness.paths import REPO


def kill_9_during_epoch_2(command: list[str], env: dict[str, str], steps_per_epoch: int) -> None:
    """Run ``command`` (a `train.py` in its own process) until its progress bar shows a step of
    epoch 2 done, then kill it with SIGKILL."""
    returncode, _ = send_during_epoch_2(command, env, steps_per_epoch, signal.SIGKILL)
    assert returncode == -signal.SIGKILL


def send_during_epoch_2(command: list[str], env: dict[str, str], steps_per_epoch: int, signum: int) -> tuple[int, str]:
    """Run ``command`` (a `train.py` in its own process) until its progress bar shows a step of
    epoch 2 done, then send it ``signum``; its return code and output once it has ended."""
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = bytearray()
    reader = threading.Thread(
        target=lambda: [output.extend(chunk) for chunk in iter(lambda: process.stdout.read1(4096), b"")], daemon=True
    )
    reader.start()
    in_epoch_2 = re.compile(rb"epoch 2:.*\| [1-9]\d*/%d" % steps_per_epoch)  # tqdm: a step of epoch 2 done
    deadline = time.monotonic() + 600
    while not in_epoch_2.search(bytes(output)):
        assert process.poll() is None, f"train.py ended before epoch 2 got going:\n{output.decode()}"
        assert time.monotonic() < deadline, f"epoch 2 did not start in time:\n{output.decode()}"
        time.sleep(0.05)
    process.send_signal(signum)
    process.wait(timeout=120)
    reader.join(timeout=60)
    return process.returncode, output.decode()


def nan_after(steps: int):
    """train.py's capsule_loss, NaN after its first ``steps`` calls (training steps: validation
    reads call none): monkeypatch it over capsnet.training.losses.capsule_loss."""
    from capsnet.training import losses

    calls = []
    train_loss = losses.capsule_loss

    def loss(*args):
        calls.append(1)
        return train_loss(*args) * (float("nan") if len(calls) > steps else 1)

    return loss
