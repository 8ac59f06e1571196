"""Training works: the loss falls on a few hundred MNIST images, and train.py documents its flags."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from capsnet import CapsNet, CapsNetConfig, capsule_loss
from capsnet.digit_count import CountRule
from capsnet.shipping.saving import atomic_save_pretrained, load_checkpoint
from capsnet.training.moving_average import update_moving_average, warm_decay
from capsnet.training.validation import ValidationRead
from harness.paths import REPO, WEIGHTS
from tests.support.train_flags import train_flags


@pytest.mark.slow
def test_training_lowers_the_loss_on_a_few_hundred_images(mnist_test):
    torch.manual_seed(0)
    images = torch.stack([mnist_test[i][0] for i in range(256)])  # [256, 1, 28, 28]
    labels = torch.tensor([mnist_test[i][1] for i in range(256)])
    model = CapsNet(CapsNetConfig()).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    epoch_losses = []
    for _ in range(3):
        losses = []
        for x, y in zip(images.split(32), labels.split(32), strict=True):
            loss = capsule_loss(model(x, y), x, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        epoch_losses.append(sum(losses) / len(losses))
    assert epoch_losses[2] < 0.7 * epoch_losses[0], epoch_losses
    with torch.inference_mode():
        accuracy = (model.eval()(images).prediction == labels).float().mean().item()
    assert accuracy > 0.5  # from 10% by chance, after 24 steps


@pytest.mark.slow
def test_cli_help_lists_the_flags():
    result = subprocess.run(
        [sys.executable, "train.py", "--help"], cwd=REPO, capture_output=True, text=True, check=True
    )
    for flag in (
        "--data-dir",
        "--device",
        "--batch-size",
        "--seed",
        "--resume",
        "--max-minutes",
        "--limit",
        "--out",
        "--push-to-hub",
        "--lr",
        "--lr-decay",
        "--epochs",
        "--model",
        "--val-size",
        "--device-data",
        "--routing-iterations",
    ):
        assert flag in result.stdout, flag
    assert "global batch" in result.stdout and "torchrun" in result.stdout


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this system")
def test_pair_renderers_count_the_cores_the_process_may_use_not_the_machines():
    """Two runs pinned to half a GPU host's cores each must not each start a renderer per core of
    the whole host (bench/gpu_pairs.sh)."""
    only_core = min(os.sched_getaffinity(0))
    read = "from capsnet.training.sharded_data import USABLE_CORES; print(USABLE_CORES)"
    pinned = subprocess.run(
        [sys.executable, "-c", read],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {only_core}),
    )
    assert pinned.stdout.split()[-1] == "1"


def test_dry_run_runs_one_batch_and_overwrites_nothing(tiny_mnist, tmp_path):
    import train

    out, checkpoint = tmp_path / "weights", tmp_path / "last.pt"
    assert train.main(train_flags(tiny_mnist, out, checkpoint, dry_run=True, val_size=16)) == 0
    assert not out.exists() and not checkpoint.exists()


@pytest.mark.slow
def test_routing_iterations_trains_with_that_routing_saves_it_and_resume_must_repeat_it(
    tiny_mnist, tmp_path, monkeypatch
):
    import capsnet.model
    import train

    routed = []
    for name in ("dynamic_routing", "dynamic_routing_from_weights"):
        routing = getattr(capsnet.model, name)
        monkeypatch.setattr(
            capsnet.model, name, lambda *args, routing=routing: routed.append(args[-1]) or routing(*args)
        )
    first, second = tmp_path / "first", tmp_path / "second"
    flags = train_flags(tiny_mnist, None, tmp_path / "last.pt", val_size=16, batch_size=16, amp="off", epochs=1)
    assert train.main([*flags, "--out", str(first)]) == 0
    assert json.loads((first / "config.json").read_text())["routing_iterations"] == 3 and set(routed) == {3}
    routed.clear()
    assert (
        train.main(
            [*flags, "--out", str(second), "--init-from", str(first), "--routing-iterations", "1", "--val-size", "0"]
        )
        == 0
    )  # no validation: the epoch is kept, whatever it reads
    assert set(routed) == {1}  # training, and the test set read at the end
    assert json.loads((second / "config.json").read_text())["routing_iterations"] == 1
    assert (
        train.main(
            [*flags, "--out", str(second), "--init-from", str(first), "--val-size", "0", "--epochs", "2", "--resume"]
        )
        == 2
    )  # the checkpoint trained with 1 iteration
    assert train.main([*flags, "--out", str(second), "--model", "cnn", "--routing-iterations", "1"]) == 2


def test_moving_average_warms_up_then_decays_at_the_given_rate():
    # first update after the copy (n = 1 averaged so far): decay (1 + 1) / (10 + 1), so the average
    # moves 9/11 of the way
    assert warm_decay(0.999, 1) == 2 / 11
    assert warm_decay(0.999, 10**6) == 0.999  # long after: the given decay


def test_update_moving_average_is_averaged_models_update_bit_for_bit(model):
    """train.py's host-counted update against AveragedModel.update_parameters with the same
    warm-up as its avg_fn: the same weights, bit for bit, and the same count."""
    from torch.optim.swa_utils import AveragedModel

    def average(averaged, current, n):
        return averaged + (1 - warm_decay(0.9, n.item())) * (current - averaged)

    reference, ours = AveragedModel(model, avg_fn=average), AveragedModel(model)
    for updates in range(4):  # the first update copies; then three averaging ones
        with torch.no_grad():
            for p in model.parameters():
                p.add_(torch.randn_like(p))
        reference.update_parameters(model)
        update_moving_average(ours, model, 0.9, updates)
    assert int(ours.n_averaged) == int(reference.n_averaged) == 4
    for (name, expected), actual in zip(reference.module.named_parameters(), ours.module.parameters(), strict=True):
        assert torch.equal(actual, expected), name
    assert not torch.equal(next(ours.module.parameters()), next(model.parameters()))  # averaged, not copied


def test_a_bf16_training_step_gives_finite_fp32_gradients_to_every_parameter(model):
    images, labels = torch.rand(8, 1, 28, 28), torch.arange(8)  # 8 images: routing from W, as in training
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(images, labels)
        loss = capsule_loss(out, images, labels)
    assert out.capsules.dtype == out.couplings.dtype == loss.dtype == torch.float32  # routing stays fp32
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad.dtype == torch.float32 and torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0, name


@pytest.mark.slow
def test_bf16_autocast_reads_digits_as_fp32_does(trained_model, mnist_test):
    images = mnist_test.data[:200].unsqueeze(1).float() / 255
    with torch.inference_mode():
        full = trained_model(images)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            mixed = trained_model(images)
    assert (mixed.prediction == full.prediction).float().mean() >= 0.99
    torch.testing.assert_close(mixed.lengths, full.lengths, atol=0.05, rtol=0)


@pytest.mark.slow
def test_amp_flag_decides_bf16_and_metrics_record_it(tiny_mnist, tmp_path):
    import train

    for amp, expected in (("bf16", True), ("off", False)):
        run = tmp_path / amp
        assert (
            train.main(train_flags(tiny_mnist, run, epochs=1, batch_size=32, val_size=16, device="cpu", amp=amp)) == 0
        )
        assert json.loads((run / "metrics.json").read_text())["bf16_autocast"] is expected


@pytest.mark.slow  # whole runs of train.py: their cost is their point
def test_a_run_with_default_flags_writes_a_new_folder_and_leaves_the_shipped_weights_as_they_were(
    tiny_mnist, tmp_path, monkeypatch, capsys
):
    """A newcomer's first `python train.py --data-dir DATA` (here a tiny one) in a checkout whose
    weights/ holds the shipped CapsNet."""
    import train

    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no shipped weights in {WEIGHTS}")
    shutil.copytree(WEIGHTS, tmp_path / "weights", ignore=shutil.ignore_patterns("cnn", "pairs*"))
    shipped = {file.name: file.read_bytes() for file in (tmp_path / "weights").iterdir()}
    monkeypatch.chdir(tmp_path)
    assert (
        train.main(
            ["--data-dir", str(tiny_mnist), "--val-size", "16", "--batch-size", "16", "--epochs", "1", "--amp", "off"]
        )
        == 0
    )
    assert {file.name: file.read_bytes() for file in (tmp_path / "weights").iterdir()} == shipped
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("capsnet-digits-") and (run / "model.safetensors").is_file()
    assert f"CAPSNET_WEIGHTS={Path('runs') / run.name} python app.py" in capsys.readouterr().out


@pytest.mark.slow  # whole runs of train.py: their cost is their point
def test_a_run_keeps_its_checkpoint_in_its_folder_where_a_bare_resume_finds_it(
    tiny_mnist, tmp_path, monkeypatch, capsys
):
    """No --out, no --checkpoint: last.pt beside the run's weights, and `--resume` goes on from the
    newest runs/MODEL-TASK-DATE of its network and task (a decoy's last.pt is no checkpoint: read,
    it would stop the run)."""
    import train

    monkeypatch.chdir(tmp_path)
    flags = ["--data-dir", str(tiny_mnist), "--val-size", "16", "--batch-size", "16", "--amp", "off"]
    assert train.main([*flags, "--epochs", "1"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    assert {"last.pt", "model.safetensors"} <= {file.name for file in run.iterdir()}
    assert not (tmp_path / "checkpoints").exists()
    for decoy in ("capsnet-digits-20000101-000000", "cnn-digits-29991231-235959", "capsnet-pairs-29991231-235959"):
        (tmp_path / "runs" / decoy).mkdir()
        (tmp_path / "runs" / decoy / "last.pt").write_bytes(b"not a checkpoint")
    capsys.readouterr()

    assert train.main([*flags, "--epochs", "2", "--resume"]) == 0
    assert f"resumed from {Path('runs') / run.name / 'last.pt'} after epoch 1" in capsys.readouterr().out
    assert load_checkpoint(run / "last.pt")["epoch"] == 2
    assert json.loads((run / "metrics.json").read_text())["epochs"] == 2
    assert len(list((tmp_path / "runs").iterdir())) == 4  # no new folder


@pytest.mark.parametrize(
    "start",
    [
        pytest.param([], id="afresh"),  # the other way in, in the slow tier
        pytest.param(["--init-from", "{out}"], id="init-from-there", marks=pytest.mark.slow),
    ],
)
def test_a_run_into_a_folder_that_holds_another_runs_weights_is_refused_in_one_line(
    tiny_mnist, tmp_path, capsys, start
):
    import train

    out = tmp_path / "weights"
    atomic_save_pretrained(CapsNet(), out)
    before = {file.name: file.read_bytes() for file in out.iterdir()}
    argv = [
        *train_flags(tiny_mnist, out, tmp_path / "last.pt", val_size=16, batch_size=16, epochs=1, amp="off"),
        *[flag.format(out=out) for flag in start],
    ]
    assert train.main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"train.py: error: --out {out} holds the weights of another run") and error.count("\n") == 1
    assert {file.name: file.read_bytes() for file in out.iterdir()} == before
    assert not (tmp_path / "last.pt").exists()


@pytest.mark.slow  # a whole run of train.py: its cost is its point
def test_overwrite_lets_a_run_replace_another_runs_weights(tiny_mnist, tmp_path):
    import train

    out = tmp_path / "weights"
    atomic_save_pretrained(CapsNet(), out)
    before = (out / "model.safetensors").read_bytes()
    argv = train_flags(tiny_mnist, out, tmp_path / "last.pt", batch_size=16, epochs=1, amp="off", val_size=0)
    assert train.main([*argv, "--overwrite"]) == 0  # no validation: the epoch replaces them
    assert (out / "model.safetensors").read_bytes() != before


@pytest.mark.slow
def test_resume_writes_to_the_folder_its_run_wrote_to(tiny_mnist, tmp_path):
    import train

    out = tmp_path / "run"
    flags = train_flags(tiny_mnist, None, tmp_path / "last.pt", val_size=16, batch_size=16, amp="off")
    assert train.main([*flags, "--out", str(out), "--epochs", "1"]) == 0
    assert train.main([*flags, "--epochs", "2", "--resume"]) == 0  # no --out: the checkpoint's
    assert json.loads((out / "metrics.json").read_text())["epochs"] == 2


@pytest.mark.slow
def test_a_written_pairs_run_chooses_the_epoch_read_exactly_not_the_one_whose_strongest_digits_read_best(
    tiny_mnist, tmp_path, monkeypatch
):
    """The page shows the count and the digits: an epoch that names more of them right, miscounting
    more, is not the one a person gets most from. Each epoch's validation read is scripted here
    (the figure itself is the study's: the next test)."""
    import train
    from capsnet.training.run import Run

    reads = iter(
        [
            ValidationRead(0.9, 0.2, CountRule(0.4)),
            ValidationRead(0.5, 0.4, CountRule(0.3)),
            ValidationRead(0.95, 0.1, CountRule(0.5)),
        ]
    )
    monkeypatch.setattr(Run, "read_validation", lambda run, model, data: next(reads))
    out = tmp_path / "weights"
    assert (
        train.main(
            train_flags(
                tiny_mnist,
                out,
                tmp_path / "last.pt",
                task="pairs",
                model="cnn",
                val_size=16,
                batch_size=16,
                epochs=3,
                amp="off",
            )
        )
        == 0
    )
    metrics = json.loads((out / "metrics.json").read_text())
    assert [epoch["val_read_exactly"] for epoch in metrics["history"]] == [0.2, 0.4, 0.1]
    assert [epoch["val_accuracy"] for epoch in metrics["history"]] == [0.9, 0.5, 0.95]
    assert metrics["chosen_epoch"] == 2 and metrics["val_read_exactly"] == 0.4 and metrics["val_accuracy"] == 0.5
    assert metrics["count_rule"] == {"second": 0.3, "second_ink": None} and "read exactly" in metrics["selection"]
    card = (out / "README.md").read_text()
    assert metrics["selection"] in card and "The chosen epoch read 40.00% of the validation examples exactly" in card


@pytest.mark.slow
def test_a_written_runs_validation_figure_is_what_the_pairs_study_reports_as_read_exactly(mnist_test):
    """On the shipped pairs CapsNet: the count rule chosen on the examples themselves, as
    capsnet.studies.pairs_measurement chooses it on its validation examples, and the share read
    exactly with it, the figure the study reports; beside it, the strongest digits right."""
    from capsnet import load_model
    from capsnet.data.pairs import digits_right
    from capsnet.data.written import DigitSet, fixed_examples
    from capsnet.studies import pairs_measurement_people
    from capsnet.training.processes import Processes
    from capsnet.training.sharded_data import written_batches
    from capsnet.training.validation import validation_read

    if not (WEIGHTS / "pairs" / "model.safetensors").exists():
        pytest.skip(f"no shipped pairs weights in {WEIGHTS / 'pairs'}")
    model, cpu = load_model(WEIGHTS / "pairs"), torch.device("cpu")
    images, labels = mnist_test.data[:200], mnist_test.targets[:200]
    read = validation_read(
        model, written_batches(images, labels, 1, Processes(), cpu), True, digits_right, Processes(), cpu
    )
    inputs, example_labels, _ = fixed_examples(DigitSet.of(images, labels), 1)
    scores, ink = pairs_measurement_people.count_readings(model, inputs)
    count = pairs_measurement_people.count_rule(scores, ink, example_labels)
    measured = pairs_measurement_people.reading_measures(scores, example_labels, CountRule.from_record(count), ink)
    assert read.count_rule == CountRule.from_record(count) and read.count_rule.second_ink is not None
    assert read.read_exactly == pytest.approx(measured["exactly_right"]["share"], abs=1e-12)
    assert read.accuracy == pytest.approx(measured["strongest_right"]["share"], abs=1e-12)
    assert read.figure == read.read_exactly != read.accuracy
