"""An epoch of train.py's steps, timed as train.py runs them: MNIST on the training device with
per-batch shifts against a DataLoader over torchvision's RandomCrop, and one process against
torchrun's N (gloo on the CPU, nccl on CUDA). Each run is a real `train.py` (or `torchrun ...
train.py`) on the first --images training images for --epochs epochs, with no validation split; the
figure is the last epoch's own seconds as metrics.json records them (its steps; loading MNIST and
the final test are not counted), scaled to the 55,000 images of a full epoch. On a GPU, time two
epochs or more: the first also pays for CUDA's start and cuDNN's choice of convolutions.

    python -m bench.train_epoch --data-dir DATA --images 6400
    python -m bench.train_epoch --data-dir DATA --images 6400 --model cnn --processes 1 2
    python -m bench.train_epoch --data-dir DATA --images 6400 --task pairs   # pairs/s, rendering included
    python -m bench.train_epoch --data-dir DATA --images 55000 --epochs 3 --batch-size 128 256 --device-data on  # a GPU

With --task pairs, an epoch is --images overlapping pairs made on the fly as train.py makes them
(in the main process on the CPU, by worker processes on CUDA), so the figure counts their rendering;
--device-data does not apply (pairs are always made on the CPU).

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from bench.train_throughput import cpu_model
from harness.paths import REPO

FULL_EPOCH = 55_000  # MNIST's training set less train.py's default validation split


def epoch_seconds(
    data_dir: str,
    images: int,
    model: str,
    device_data: str,
    processes: int,
    batch_size: int,
    task: str = "digits",
    epochs: int = 1,
    examples: str = "written",
) -> float:
    """The seconds of the last of ``epochs`` epochs' steps over ``images`` training images (pairs,
    with --task pairs, made as ``examples`` says: train.py's --examples)."""
    with tempfile.TemporaryDirectory() as run:
        flags = [
            "--data-dir",
            data_dir,
            "--model",
            model,
            "--task",
            task,
            "--limit",
            str(images),
            "--val-size",
            "0",
            "--epochs",
            str(epochs),
            "--batch-size",
            str(batch_size),
            "--device-data",
            device_data,
            "--out",
            f"{run}/weights",
            "--checkpoint",
            f"{run}/last.pt",
            "--no-names",  # the sliders' names are no part of an epoch's time
            *(["--examples", examples] if task == "pairs" else []),
        ]
        launcher = (
            [sys.executable, "train.py"]
            if processes == 1
            else [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--standalone",
                f"--nproc_per_node={processes}",
                "train.py",
            ]
        )
        result = subprocess.run([*launcher, *flags], cwd=REPO, capture_output=True, text=True)
        if result.returncode:
            raise SystemExit(f"{' '.join(launcher + flags)} failed ({result.returncode}):\n{result.stderr[-4000:]}")
        return json.loads(Path(run, "weights", "metrics.json").read_text())["history"][-1]["seconds"]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", default="./data", help="torchvision's MNIST folder (default: ./data)")
    p.add_argument("--images", type=int, default=6400, help="training images in the timed epoch (default: 6400)")
    p.add_argument("--model", choices=["capsnet", "cnn"], default="capsnet", help="the network (default: capsnet)")
    p.add_argument(
        "--batch-size", type=int, nargs="+", default=[64], help="the global batch; several: each is timed (default: 64)"
    )
    p.add_argument("--epochs", type=int, default=1, help="epochs a run; the last is timed (default: 1)")
    p.add_argument("--device-data", nargs="+", default=["on", "off"], help="the data paths to time (default: on off)")
    p.add_argument("--processes", nargs="+", type=int, default=[1], help="process counts to time (default: 1)")
    p.add_argument(
        "--task",
        choices=["digits", "pairs"],
        default="digits",
        help="digits: MNIST; pairs: two overlapping digits made on the fly (default: digits)",
    )
    p.add_argument(
        "--examples",
        choices=["written", "mnist-pairs"],
        default="written",
        help="--task pairs: train.py's --examples, how they are made (default: written)",
    )
    args = p.parse_args(argv)
    gpu = f"; GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}" if torch.cuda.is_available() else ""
    what = "pairs" if args.task == "pairs" else "images"
    print(
        f"CPU: {cpu_model()}{gpu}; {args.model} on {args.task}, {args.images} {what} an epoch, "
        f"the last of {args.epochs} timed"
    )
    for batch_size in args.batch_size:
        for processes in args.processes:
            for device_data in args.device_data if args.task == "digits" else ["on"]:
                seconds = epoch_seconds(
                    args.data_dir,
                    args.images,
                    args.model,
                    device_data,
                    processes,
                    batch_size,
                    args.task,
                    args.epochs,
                    args.examples,
                )
                rate = args.images / seconds
                print(
                    f"global batch {batch_size}, {processes} process(es)"
                    + (f", data on the device {device_data:>3}" if args.task == "digits" else "")
                    + f": {seconds:.1f} s, {rate:.0f} {what}/s, "
                    + (
                        f"a full epoch ({FULL_EPOCH:,} images) {FULL_EPOCH / rate:.1f} s"
                        if args.task == "digits"
                        else f"a million pairs {1e6 / rate / 60:.1f} min"
                    )
                )


if __name__ == "__main__":
    main()
