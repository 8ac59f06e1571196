"""train.py survives kill -9, SIGINT and SIGTERM, corrupt or mismatched checkpoints, and a
non-finite loss.

The runs use a tiny copy of MNIST (64 training and 64 test images in torchvision's layout) so that
each epoch, test evaluation included, takes seconds.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

import train
from capsnet import CapsNet
from capsnet.shipping.saving import atomic_save_pretrained, atomic_torch_save, load_checkpoint
from capsnet.training import final_reads, losses
from capsnet.training.processes import use_bf16
from harness.paths import REPO
from tests.support.interrupted_runs import kill_9_during_epoch_2, nan_after, send_during_epoch_2
from tests.support.train_flags import TINY_RUN_EPOCHS, TINY_RUN_STEPS, tiny_run_flags, train_flags


def run_to_the_end(*args: str) -> None:
    """train.main in this process: only the run that is killed needs a process of its own."""
    assert train.main(list(args)) == 0


def tensors(run: Path) -> dict[str, torch.Tensor]:
    """The run's saved model, and its last checkpoint's raw weights, moving average and Adam moments."""
    state = load_checkpoint(run / "checkpoints" / "last.pt")
    return {
        **{f"weights/{k}": v for k, v in load_file(run / "weights" / "model.safetensors").items()},
        **{f"model/{k}": v for k, v in state["model"].items()},
        **{f"ema/{k}": v for k, v in state["ema"].items()},
        **{f"adam/{i}/{k}": v for i, moments in state["optimizer"]["state"].items() for k, v in moments.items()},
    }


def without_wall_times(history: list[dict]) -> list[dict]:
    return [{k: v for k, v in epoch.items() if k != "seconds"} for epoch in history]


def metrics(run: Path) -> dict:
    """metrics.json (written with the best epoch's weights) without what differs from run to run."""
    values = json.loads((run / "weights" / "metrics.json").read_text())
    volatile = {"train_seconds", "date", "command"}
    return {**{k: v for k, v in values.items() if k not in volatile}, "history": without_wall_times(values["history"])}


@pytest.fixture(scope="module")
def uninterrupted(tiny_run) -> Path:
    return tiny_run


@pytest.fixture(scope="module")
def uninterrupted_state(uninterrupted) -> dict:
    """The uninterrupted run's last checkpoint, read once: the tests that write edited copies of it
    build new dicts and leave this one as it is."""
    return load_checkpoint(uninterrupted / "checkpoints" / "last.pt")


def file_state(path: Path) -> tuple[int, int, int]:
    """What a write changes in a file: its inode (a file put in its place), size and modification time."""
    stat = path.stat()
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


@pytest.mark.slow
def test_kill_9_then_resume_ends_where_an_uninterrupted_run_ends(tiny_mnist, uninterrupted, tmp_path):
    run = tmp_path / "killed"
    # As many threads as this process uses, so that the float sums are the same in both.
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": str(torch.get_num_threads())}
    kill_9_during_epoch_2([sys.executable, "train.py", *tiny_run_flags(tiny_mnist, run)], env, TINY_RUN_STEPS)
    assert load_checkpoint(run / "checkpoints" / "last.pt")["epoch"] == 1, "the kill came after epoch 2 ended"

    run_to_the_end(*tiny_run_flags(tiny_mnist, run), "--resume")

    expected, actual = tensors(uninterrupted), tensors(run)
    assert expected.keys() == actual.keys()
    for name in expected:
        assert torch.equal(actual[name], expected[name]), name
    assert metrics(run) == metrics(uninterrupted)
    history = without_wall_times(load_checkpoint(run / "checkpoints" / "last.pt")["history"])
    assert history == without_wall_times(load_checkpoint(uninterrupted / "checkpoints" / "last.pt")["history"])
    assert [epoch["epoch"] for epoch in history] == list(range(1, TINY_RUN_EPOCHS + 1))


@pytest.fixture
def signals_raise():
    """SIGINT and SIGTERM raise an error in this process while the test runs: a train.py that does
    not handle them fails the test instead of ending pytest (KeyboardInterrupt stops the session)."""

    def raise_in_the_test(signum, frame):
        raise RuntimeError(f"{signal.Signals(signum).name} reached the test: train.py did not handle it")

    previous = {signum: signal.signal(signum, raise_in_the_test) for signum in (signal.SIGINT, signal.SIGTERM)}
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def signal_at_call(number: int, signum: int, function):
    """``function``, which sends this process ``signum`` during its ``number``-th call."""
    calls = []

    def wrapped(*args, **kwargs):
        calls.append(1)
        if len(calls) == number:
            os.kill(os.getpid(), signum)
        return function(*args, **kwargs)

    return wrapped


def temporary_files(run) -> list[str]:
    return [str(path) for path in run.rglob("*") if path.name.endswith(".tmp") or path.name == ".saving"]


@pytest.mark.slow  # the fast tier keeps a signal during the checkpoint's write, and its stop
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_mid_epoch_stops_after_the_step_and_resume_ends_where_an_uninterrupted_run_ends(
    tiny_mnist, uninterrupted, tmp_path, capsys, monkeypatch, signals_raise, signum
):
    name = signal.Signals(signum).name
    # during step 2 of epoch 2: the step is finished, then the run stops
    monkeypatch.setattr(losses, "capsule_loss", signal_at_call(TINY_RUN_STEPS + 2, signum, losses.capsule_loss))
    assert train.main(tiny_run_flags(tiny_mnist, tmp_path)) == 128 + signum
    error = capsys.readouterr().err
    assert error == (
        f"train.py: stopped by {name} after step 2 of {TINY_RUN_STEPS} of epoch 2. The best weights "
        f"so far (epoch 1) are kept in {tmp_path / 'weights'}/; {tmp_path / 'checkpoints' / 'last.pt'} "
        "holds the run after step 2 of epoch 2, where --resume goes on.\n"
    )
    assert temporary_files(tmp_path) == []
    checkpoint = load_checkpoint(tmp_path / "checkpoints" / "last.pt")
    assert checkpoint["epoch"] == 1 and checkpoint["partial"]["epoch"] == 2 and checkpoint["partial"]["steps"] == 2
    stopped = json.loads((tmp_path / "weights" / "metrics.json").read_text())
    assert (
        stopped["status"] == f"stopped by {name} after step 2 of {TINY_RUN_STEPS} of epoch 2; --resume goes on "
        "from there"
    )
    assert stopped["mnist_test_accuracy"] is None and [e["epoch"] for e in stopped["history"]] == [1]

    monkeypatch.undo()
    run_to_the_end(*tiny_run_flags(tiny_mnist, tmp_path), "--resume")
    assert f"resumed from {tmp_path / 'checkpoints' / 'last.pt'} after step 2 of epoch 2" in capsys.readouterr().out
    expected, actual = tensors(uninterrupted), tensors(tmp_path)
    assert expected.keys() == actual.keys()
    for tensor in expected:
        assert torch.equal(actual[tensor], expected[tensor]), tensor
    assert metrics(tmp_path) == metrics(uninterrupted)
    assert temporary_files(tmp_path) == []


def test_a_signal_while_the_checkpoint_is_written_lets_the_write_finish(
    tiny_mnist, tmp_path, monkeypatch, signals_raise
):
    """SIGINT during epoch 1's checkpoint: the checkpoint is whole, then the run stops (it was a
    RuntimeError out of torch.save's writer, exit 1)."""
    monkeypatch.setattr(torch, "save", signal_at_call(1, signal.SIGINT, torch.save))
    assert train.main(tiny_run_flags(tiny_mnist, tmp_path)) == 130
    assert load_checkpoint(tmp_path / "checkpoints" / "last.pt")["epoch"] == 1
    assert temporary_files(tmp_path) == []


@pytest.mark.slow
def test_the_cnn_resumed_mid_epoch_draws_the_dropout_it_would_have_drawn(
    tiny_mnist, tmp_path, monkeypatch, signals_raise
):
    """The CNN's dropout draws from the global random state: an interrupted epoch keeps it."""
    cnn = ["--model", "cnn", "--amp", "off"]
    run_to_the_end(*tiny_run_flags(tiny_mnist, tmp_path / "uninterrupted", *cnn))
    monkeypatch.setattr(
        losses, "cross_entropy_loss", signal_at_call(TINY_RUN_STEPS + 1, signal.SIGINT, losses.cross_entropy_loss)
    )
    assert train.main(tiny_run_flags(tiny_mnist, tmp_path / "stopped", *cnn)) == 130
    assert load_checkpoint(tmp_path / "stopped" / "checkpoints" / "last.pt")["partial"]["steps"] == 1
    monkeypatch.undo()
    run_to_the_end(*tiny_run_flags(tiny_mnist, tmp_path / "stopped", *cnn), "--resume")
    expected, actual = tensors(tmp_path / "uninterrupted"), tensors(tmp_path / "stopped")
    for tensor in expected:
        assert torch.equal(actual[tensor], expected[tensor]), tensor


@pytest.mark.slow
def test_a_signal_during_the_test_read_stops_it_and_resume_reads_it(
    tiny_mnist, uninterrupted, tmp_path, capsys, monkeypatch, signals_raise
):
    monkeypatch.setattr(final_reads, "predictions", signal_at_call(1, signal.SIGINT, final_reads.predictions))
    assert train.main(tiny_run_flags(tiny_mnist, tmp_path)) == 130
    error = capsys.readouterr().err
    assert error.startswith("train.py: stopped by SIGINT before the test set was read. ") and error.count("\n") == 1
    stopped = json.loads((tmp_path / "weights" / "metrics.json").read_text())
    assert stopped["status"] == "stopped by SIGINT before the test set was read; --resume reads it"
    assert stopped["mnist_test_accuracy"] is None and not (tmp_path / "weights" / "README.md").exists()

    monkeypatch.undo()
    run_to_the_end(*tiny_run_flags(tiny_mnist, tmp_path), "--resume")
    assert "nothing left to train, only the test" in capsys.readouterr().out
    assert metrics(tmp_path) == metrics(uninterrupted)


@pytest.mark.slow
def test_ctrl_c_before_the_first_step_stops_at_once_in_one_line_writing_nothing(tiny_mnist, tmp_path):
    """While MNIST is read (or downloaded) nothing is written yet: Ctrl-C needs no wait for a step."""
    sigint_while_reading_mnist = (  # Ctrl-C's default, also where SIGINT came ignored (a background job)
        "import os, signal, sys, train\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "read = train.mnist\n"
        "train.mnist = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGINT) or read(*args, **kwargs)\n"
        f"sys.exit(train.main({tiny_run_flags(tiny_mnist, tmp_path)!r}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", sigint_while_reading_mnist], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 130, result.stderr
    assert result.stderr.strip() == "train.py: interrupted"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_sigterm_to_a_train_py_process_exits_143_without_a_traceback_and_it_resumes(
    tiny_mnist, uninterrupted, tmp_path
):
    # As many threads as this process uses, so that the float sums are the same in both.
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": str(torch.get_num_threads())}
    returncode, output = send_during_epoch_2(
        [sys.executable, "train.py", *tiny_run_flags(tiny_mnist, tmp_path)], env, TINY_RUN_STEPS, signal.SIGTERM
    )
    assert returncode == 143, output
    assert "Traceback" not in output and "train.py: stopped by SIGTERM after " in output
    assert temporary_files(tmp_path) == []
    run_to_the_end(*tiny_run_flags(tiny_mnist, tmp_path), "--resume")
    expected, actual = tensors(uninterrupted), tensors(tmp_path)
    for tensor in expected:
        assert torch.equal(actual[tensor], expected[tensor]), tensor
    assert metrics(tmp_path) == metrics(uninterrupted)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda whole: whole.read_bytes()[: whole.stat().st_size // 2], id="truncated"),
        pytest.param(lambda whole: b"", id="empty"),
        pytest.param(lambda whole: os.urandom(1 << 20), id="noise"),
    ],
)
def test_corrupt_checkpoint_is_a_clear_error(tiny_mnist, uninterrupted, tmp_path, capsys, damage):
    checkpoint = tmp_path / "last.pt"
    checkpoint.write_bytes(damage(uninterrupted / "checkpoints" / "last.pt"))
    assert train.main([*tiny_run_flags(tiny_mnist, tmp_path), "--checkpoint", str(checkpoint), "--resume"]) == 2
    error = capsys.readouterr().err
    assert f"checkpoint {checkpoint} is unreadable" in error and "without --resume" in error
    assert "Traceback" not in error


def test_missing_checkpoint_is_a_clear_error(tiny_mnist, tmp_path, capsys):
    assert train.main([*tiny_run_flags(tiny_mnist, tmp_path), "--resume"]) == 2
    error = capsys.readouterr().err
    assert f"no checkpoint at {tmp_path / 'checkpoints' / 'last.pt'}" in error
    assert "start without --resume" in error


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda state: [1, 2, 3], "{path} is not a train.py checkpoint"),
        (
            lambda state: {**state, "model": {"conv1.weight": torch.zeros(3)}},
            "checkpoint {path} does not fit this network",
        ),
        (lambda state: {**state, "optimizer": {}}, "checkpoint {path} does not fit this network"),
    ],
)
def test_a_torch_file_that_is_no_checkpoint_is_a_clear_error(
    tiny_mnist, uninterrupted_state, tmp_path, capsys, edit, message
):
    checkpoint = tmp_path / "checkpoints" / "last.pt"
    atomic_torch_save(edit(uninterrupted_state), checkpoint)
    assert train.main([*tiny_run_flags(tiny_mnist, tmp_path), "--resume"]) == 2
    error = capsys.readouterr().err
    assert message.format(path=checkpoint) in error and "without --resume" in error


@pytest.mark.parametrize(
    "changed, flag",
    [
        ("batch_size=32", ["--batch-size", "32"]),
        ("limit=32", ["--limit", "32"]),
        ("lr=0.01", ["--lr", "0.01"]),
        ("seed=2", ["--seed", "2"]),
    ],
)
def test_resume_with_other_flags_is_refused(tiny_mnist, uninterrupted, tmp_path, capsys, changed, flag):
    checkpoint = uninterrupted / "checkpoints" / "last.pt"
    before = file_state(checkpoint)
    assert train.main([*tiny_run_flags(tiny_mnist, tmp_path), "--checkpoint", str(checkpoint), "--resume", *flag]) == 2
    error = capsys.readouterr().err
    assert f"checkpoint {checkpoint} was made with" in error and f"asks for {changed}" in error
    assert file_state(checkpoint) == before and not (tmp_path / "weights").exists()


def test_resume_with_another_autocast_or_device_is_refused(
    tiny_mnist, uninterrupted, uninterrupted_state, tmp_path, capsys
):
    """metrics.json records one device and one autocast for the whole run: a resumed run must keep both."""
    checkpoint = uninterrupted / "checkpoints" / "last.pt"
    made_with_bf16 = use_bf16("auto", torch.device("cpu"))  # the uninterrupted run's --amp auto
    other_amp = "off" if made_with_bf16 else "bf16"
    assert (
        train.main(
            [*tiny_run_flags(tiny_mnist, tmp_path), "--checkpoint", str(checkpoint), "--resume", "--amp", other_amp]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert f"was made with bf16_autocast={made_with_bf16}" in error and error.count("\n") == 1
    checkpoint = tmp_path / "last.pt"
    state = uninterrupted_state
    atomic_torch_save({**state, "recipe": {**state["recipe"], "device": "cuda"}}, checkpoint)
    assert train.main([*tiny_run_flags(tiny_mnist, tmp_path), "--checkpoint", str(checkpoint), "--resume"]) == 2
    assert "was made with device=cuda, this run asks for device=cpu" in capsys.readouterr().err
    assert not (tmp_path / "weights").exists()


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda state: {**state, "recipe": [1, 2]}, "holds recipe as list, not as train.py writes it"),
        (lambda state: {**state, "epoch": "2"}, "holds epoch as str, not as train.py writes it"),
        (lambda state: {**state, "history": [1]}, "holds history as list, not as train.py writes it"),
    ],
)
def test_a_checkpoint_with_an_unknown_or_mistyped_entry_is_one_line_and_exit_2(
    tiny_mnist, uninterrupted_state, tmp_path, capsys, edit, message
):
    checkpoint = tmp_path / "checkpoints" / "last.pt"
    atomic_torch_save(edit(uninterrupted_state), checkpoint)
    before = file_state(checkpoint)
    assert train.main([*tiny_run_flags(tiny_mnist, tmp_path), "--resume"]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"train.py: error: checkpoint {checkpoint} ") and message in error
    assert error.count("\n") == 1 and "without --resume" in error
    assert file_state(checkpoint) == before and not (tmp_path / "weights").exists()


def test_resume_with_nothing_left_to_train_reads_only_the_weights_its_run_chose(
    tiny_mnist, uninterrupted, tmp_path, capsys
):
    """A finished run resumed into another --out, which holds other weights: their test accuracy is
    not this run's, and nothing is written beside them."""
    other = tmp_path / "other"
    atomic_save_pretrained(CapsNet(), other)
    before = {file.name: file.read_bytes() for file in other.iterdir()}
    checkpoint = uninterrupted / "checkpoints" / "last.pt"
    assert (
        train.main(
            [*tiny_run_flags(tiny_mnist, tmp_path), "--checkpoint", str(checkpoint), "--out", str(other), "--resume"]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert error.startswith(f"train.py: error: {other}/ does not hold the weights this run chose")
    assert {file.name: file.read_bytes() for file in other.iterdir()} == before


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda state: {key: value for key, value in state.items() if key != "out"}, id="a field fewer"),
        pytest.param(lambda state: {**state, "momentum": 0.9}, id="a field more"),
        pytest.param(
            lambda state: {**state, "recipe": {**state["recipe"], "momentum": 0.9}}, id="another recipe's flags"
        ),
    ],
)
def test_a_checkpoint_written_by_other_code_is_refused_in_one_line(
    tiny_mnist, uninterrupted_state, tmp_path, capsys, edit
):
    """Checkpoints are temporary: one of older (or newer) code is not converted field by field."""
    checkpoint = tmp_path / "checkpoints" / "last.pt"
    atomic_torch_save(edit(uninterrupted_state), checkpoint)
    assert train.main([*tiny_run_flags(tiny_mnist, tmp_path), "--resume"]) == 2
    error = capsys.readouterr().err
    assert error == (
        f"train.py: error: checkpoint {checkpoint} was written by other code than this train.py: start "
        "a new run (without --resume), or resume it with the train.py that wrote it\n"
    )
    assert not (tmp_path / "weights").exists()


def nan_loss(*args, **kwargs) -> torch.Tensor:
    return torch.tensor(float("nan"), requires_grad=True)


def test_non_finite_loss_stops_and_keeps_the_best_weights(tiny_mnist, uninterrupted, tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "weights").mkdir()
    for file in ("checkpoints/last.pt", "weights/model.safetensors", "weights/config.json", "weights/metrics.json"):
        shutil.copyfile(uninterrupted / file, run / file)
    monkeypatch.setattr(losses, "capsule_loss", nan_loss)

    assert train.main([*tiny_run_flags(tiny_mnist, run, "--resume"), "--epochs", str(TINY_RUN_EPOCHS + 1)]) == 1

    error = capsys.readouterr().err
    assert f"epoch {TINY_RUN_EPOCHS + 1}, step 1: the loss became nan" in error
    chosen = json.loads((uninterrupted / "weights" / "metrics.json").read_text())["chosen_epoch"]
    assert f"best weights so far (epoch {chosen})" in error and str(run / "weights") in error
    for file in ("checkpoints/last.pt", "weights/model.safetensors", "weights/config.json", "weights/metrics.json"):
        assert (run / file).read_bytes() == (uninterrupted / file).read_bytes(), file


def test_non_finite_loss_in_the_first_epoch_saves_nothing(tiny_mnist, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(losses, "capsule_loss", nan_loss)
    assert train.main(tiny_run_flags(tiny_mnist, tmp_path)) == 1
    assert "No epoch finished, so nothing was saved" in capsys.readouterr().err
    assert not (tmp_path / "weights").exists() and not (tmp_path / "checkpoints").exists()


@pytest.mark.slow
def test_a_first_run_that_stops_after_saving_weights_leaves_a_metrics_json_that_says_so(
    tiny_mnist, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(losses, "capsule_loss", nan_after(TINY_RUN_STEPS))
    assert train.main(tiny_run_flags(tiny_mnist, tmp_path)) == 1
    assert (tmp_path / "weights" / "model.safetensors").exists()
    values = json.loads((tmp_path / "weights" / "metrics.json").read_text())
    assert values["status"] == "stopped: epoch 2, step 1: the loss became nan"
    assert values["mnist_test_accuracy"] is None and values["chosen_epoch"] == values["epochs"] == 1
    assert [epoch["epoch"] for epoch in values["history"]] == [1]
    error = capsys.readouterr().err
    assert (
        f"kept in {tmp_path / 'weights'}/; {tmp_path / 'checkpoints' / 'last.pt'} holds the run after epoch 1" in error
    )


@pytest.mark.slow
def test_a_fine_tune_stopped_by_a_nan_says_what_it_kept(tiny_mnist, uninterrupted, tmp_path, capsys, monkeypatch):
    """No epoch beat the starting weights (lr 0: the weights never move), then a NaN: no weights
    were written, and the checkpoint of epoch 1 was."""
    monkeypatch.setattr(losses, "capsule_loss", nan_after(TINY_RUN_STEPS))
    assert (
        train.main([*tiny_run_flags(tiny_mnist, tmp_path), "--init-from", str(uninterrupted / "weights"), "--lr", "0"])
        == 1
    )
    error = capsys.readouterr().err
    assert (
        f"No epoch beat the starting weights, so nothing was written to {tmp_path / 'weights'}/; "
        f"{tmp_path / 'checkpoints' / 'last.pt'} holds the run after epoch 1, where --resume goes on" in error
    )
    assert not (tmp_path / "weights").exists()


@pytest.mark.slow
def test_init_from_starts_at_the_given_weights_and_never_saves_over_them_unbeaten(
    tiny_mnist, uninterrupted, tmp_path, capsys
):
    source = uninterrupted / "weights"
    recorded = json.loads((source / "metrics.json").read_text())["val_accuracy"]
    run = tmp_path / "init"
    # lr 0: the weights never move, so the starting accuracy is every epoch's, and none beats it.
    assert train.main([*tiny_run_flags(tiny_mnist, run), "--init-from", str(source), "--lr", "0"]) == 0
    out = capsys.readouterr().out
    assert f"starting from {source}: validation accuracy {recorded:.4%}, the figure to beat" in out
    assert "no epoch beat the starting weights" in out
    assert not (run / "weights").exists()


def test_init_from_missing_weights_is_a_clear_error(tiny_mnist, tmp_path, capsys):
    assert train.main([*tiny_run_flags(tiny_mnist, tmp_path), "--init-from", str(tmp_path / "nowhere")]) == 2
    error = capsys.readouterr().err
    assert "--init-from" in error and "nowhere" in error and "Traceback" not in error


def test_missing_data_is_a_clear_error(tmp_path, capsys, monkeypatch):
    def offline(*args, **kwargs):
        raise RuntimeError("no network")

    monkeypatch.setattr("torchvision.datasets.MNIST.download", offline)
    assert train.main(train_flags(tmp_path / "nothing", tmp_path / "w", tmp_path / "c.pt")) == 2
    error = capsys.readouterr().err
    assert "MNIST is not in" in error and "--data-dir" in error


def test_failed_checkpoint_write_keeps_the_previous_file(tmp_path, monkeypatch):
    checkpoint = tmp_path / "last.pt"
    atomic_torch_save({"epoch": 1}, checkpoint)
    before = checkpoint.read_bytes()

    def crash_midway(state, f):
        f.write(b"half a checkpoint")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", crash_midway)
    with pytest.raises(OSError):
        atomic_torch_save({"epoch": 2}, checkpoint)
    assert checkpoint.read_bytes() == before
    assert [file.name for file in tmp_path.iterdir()] == ["last.pt"]


def test_failed_weights_write_keeps_the_previous_files(tmp_path):
    class CrashingModel:
        def save_pretrained(self, folder):
            (Path(folder) / "model.safetensors").write_bytes(b"half the weights")
            raise OSError("disk full")

    (tmp_path / "model.safetensors").write_bytes(b"the old weights")
    with pytest.raises(OSError):
        atomic_save_pretrained(CrashingModel(), tmp_path)
    assert (tmp_path / "model.safetensors").read_bytes() == b"the old weights"
    assert [file.name for file in tmp_path.iterdir()] == ["model.safetensors"]
