"""Every flag train.py cannot go on with, and every checkpoint --resume cannot go on from, ends in
one line `train.py: error: ...` and exit 2, before any file is read or written; the device of each
process under torchrun."""

import pytest
import torch

import train
from capsnet.training.processes import DeviceError, pick_device, use_bf16


def files_under(folder):
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.mark.parametrize(
    "flag",
    [
        ["--limit", "0"],
        ["--limit", "-5"],
        ["--batch-size", "0"],
        ["--batch-size", "-4"],
        ["--lr", "-1"],
        ["--lr", "nan"],
        ["--lr", "inf"],
        ["--lr-decay", "1e30"],
        ["--lr-decay", "0"],
        ["--ema-decay", "1.5"],
        ["--ema-decay", "1"],
        ["--ema-decay", "-0.1"],
        ["--max-minutes", "-1"],
        ["--max-minutes", "0"],
        ["--max-minutes", "nan"],
        ["--val-size", "-1"],
        ["--epochs", "0"],
        ["--seed", "-1"],
        ["--seed", str(2**63)],
    ],
    ids=" ".join,
)
def test_a_bad_flag_is_one_line_and_exit_2_touching_no_file(tiny_mnist, tmp_path, capsys, flag):
    before = files_under(tiny_mnist)
    argv = [
        "--data-dir",
        str(tiny_mnist),
        "--out",
        str(tmp_path / "weights"),
        "--checkpoint",
        str(tmp_path / "last.pt"),
        "--epochs",
        "1",
        "--val-size",
        "16",
        "--device",
        "cpu",
        *flag,
    ]
    assert train.main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"train.py: error: {flag[0]} ") and error.count("\n") == 1, error
    assert files_under(tmp_path) == [] and files_under(tiny_mnist) == before


def test_a_bare_resume_with_no_run_to_go_on_with_is_one_line_and_exit_2(tiny_mnist, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert train.main(["--data-dir", str(tiny_mnist), "--resume"]) == 2
    error = capsys.readouterr().err
    assert error == (
        "train.py: error: no checkpoint at runs/capsnet-digits-DATE/last.pt: start without --resume, or give "
        "--out the folder of the run to resume\n"
    )
    assert files_under(tmp_path) == []


@pytest.mark.parametrize("device", ["cuda", "mps"])
def test_a_device_that_is_not_there_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, device):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert train.main(["--device", device, "--out", str(tmp_path / "weights"), "--data-dir", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"train.py: error: --device {device}: ") and error.count("\n") == 1
    assert files_under(tmp_path) == []


@pytest.mark.parametrize("name", ["auto", "cuda"])
def test_each_process_takes_the_gpu_it_sees(monkeypatch, name):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)  # CUDA_VISIBLE_DEVICES: one GPU a process
    assert pick_device(name, local_rank=1) == torch.device("cuda", 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)  # every GPU of the machine
    assert pick_device(name, local_rank=3) == torch.device("cuda", 3)
    with pytest.raises(DeviceError, match="LOCAL_RANK"):
        pick_device(name, local_rank=4)


def test_amp_auto_takes_bf16_on_a_gpu_only_where_it_computes_bf16_natively(monkeypatch):
    """Before Ampere, CUDA emulates bf16 (torch.cuda.is_bf16_supported() says yes by default): slower
    than fp32."""
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: including_emulation)
    assert not use_bf16("auto", torch.device("cuda", 0))
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)
    assert use_bf16("auto", torch.device("cuda", 0))
    assert use_bf16("bf16", torch.device("cuda", 0)) and not use_bf16("off", torch.device("cuda", 0))
