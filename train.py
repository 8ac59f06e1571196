"""Train the paper's CapsNet on MNIST.

    python train.py --data-dir ../shared/data            # the shipped weights' recipe: see README
    python train.py --resume                              # continue from checkpoints/last.pt
    python train.py --init-from weights --lr 2e-4         # train the shipped weights further
"""
import argparse
import datetime
import json
import os
import shlex
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import torch
from torch.optim.swa_utils import AveragedModel
from tqdm import tqdm

from capsnet import CapsNet, CapsNetConfig, WeightsError, capsule_loss, load_model
from capsnet.checkpoint import atomic_save_pretrained, atomic_torch_save, load_checkpoint
from capsnet.data import batches, mnist
from capsnet.evaluate import accuracy


RECIPE = ("batch_size", "limit", "lr", "lr_decay", "ema_decay", "seed", "dry_run", "init_from")  # what --resume must repeat
CHECKPOINT_KEYS = ("model", "ema", "optimizer", "schedule", "rng", "epoch", "best_accuracy", "seconds", "history")


class NonFiniteLossError(RuntimeError):
    """The loss became NaN or infinite: training stops and the best weights so far are kept."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", default="./data", help="where torchvision's MNIST lives or is downloaded to (default: ./data)")
    p.add_argument("--out", default="weights", help="folder for the best model and metrics.json (default: weights)")
    p.add_argument("--checkpoint", default="checkpoints/last.pt", help="the checkpoint written after every epoch (default: checkpoints/last.pt)")
    p.add_argument("--resume", action="store_true", help="continue from --checkpoint exactly where it stopped")
    p.add_argument("--init-from", metavar="WEIGHTS", default=None,
                   help="start from these weights (a save_pretrained folder or Hub repo id) instead of a random "
                        "initialisation; the optimiser and the schedule start afresh (default: random)")
    p.add_argument("--epochs", type=int, default=14, help="number of epochs in all, resumed ones included (default: 14)")
    p.add_argument("--batch-size", type=int, default=64, help="images per step (default: 64)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's initial learning rate (default: 1e-3)")
    p.add_argument("--lr-decay", type=float, default=0.85, help="exponential decay of the learning rate per epoch (default: 0.85)")
    p.add_argument("--ema-decay", type=float, default=0.999, help="decay of the weights' moving average that is evaluated and saved (default: 0.999)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default: 1)")
    p.add_argument("--device", choices=["auto", "cuda", "mps", "cpu"], default="auto", help="auto: cuda, then mps, then cpu (default: auto)")
    p.add_argument("--amp", choices=["auto", "bf16", "off"], default="auto",
                   help="bf16 autocast; auto: on CUDA with bf16 and on CPUs with native bf16 (AVX512-BF16/AMX) (default: auto)")
    p.add_argument("--limit", type=int, default=None, help="train on the first N training images only (default: all)")
    p.add_argument("--max-minutes", type=float, default=None, help="stop cleanly at the last epoch boundary that fits in this budget (default: none)")
    p.add_argument("--dry-run", action="store_true", help="one batch, one epoch, nothing saved: a quick check that everything runs")
    p.add_argument("--push-to-hub", metavar="REPO_ID", default=None, help="upload the best model to this Hugging Face repo at the end")
    return p.parse_args(argv)


def pick_device(name: str) -> torch.device:
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: no CUDA GPU is visible to PyTorch")
    if name == "mps" and not torch.backends.mps.is_available():
        raise SystemExit("--device mps: MPS is not available on this machine")
    return torch.device(name)


def use_bf16(amp: str, device: torch.device) -> bool:
    """bf16 autocast where the hardware computes in bf16 natively; emulated bf16 is slower than fp32."""
    if amp != "auto":
        return amp == "bf16"
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    if device.type == "cpu":
        return torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    return False


def train_one_epoch(model, ema, loader, optimizer, device, autocast, epoch, dry_run) -> tuple[float, float]:
    """One pass over the loader; returns the mean loss and the training accuracy."""
    model.train()
    loss_sum = correct = seen = 0
    bar = tqdm(loader, desc=f"epoch {epoch}", unit="batch", leave=False, file=sys.stdout)
    for step, (images, labels) in enumerate(bar, start=1):
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        with autocast():
            out = model(images, labels)
            loss = capsule_loss(out, images, labels)
        if not torch.isfinite(loss):
            raise NonFiniteLossError(f"epoch {epoch}, step {step}: the loss became {loss.item()}; "
                                     "training stopped.")
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        ema.update_parameters(model)
        loss_sum += loss.item() * labels.numel()
        correct += (out.prediction == labels).sum().item()
        seen += labels.numel()
        bar.set_postfix(loss=f"{loss_sum / seen:.4f}", acc=f"{correct / seen:.4f}")
        if dry_run:
            break
    return loss_sum / seen, correct / seen


def capture_rng(generator: torch.Generator) -> dict:
    state = {"torch": torch.get_rng_state(), "shuffle": generator.get_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict, generator: torch.Generator) -> None:
    torch.set_rng_state(state["torch"])
    generator.set_state(state["shuffle"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def moving_average(decay: float):
    """AveragedModel's avg_fn for an exponential moving average whose decay warms up as
    min(decay, (1 + n) / (10 + n)) after n updates (as TensorFlow's ExponentialMovingAverage does
    with num_updates), so that the first epochs' average is not dragged towards the random start."""
    def average(averaged: torch.Tensor, current: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        warm_decay = min(decay, (1 + n.item()) / (10 + n.item()))
        return averaged + (1 - warm_decay) * (current - averaged)
    return average


def recipe(args: argparse.Namespace) -> dict:
    """The flags that shape the run's trajectory: a resumed run must repeat them to end where an
    uninterrupted one would."""
    return {name: getattr(args, name) for name in RECIPE}


def resume(path: Path, args: argparse.Namespace, model, ema, optimizer, schedule,
           shuffle: torch.Generator) -> dict:
    """Restore model, moving average, optimiser, schedule and RNG from the checkpoint at ``path``.

    Raises:
        RuntimeError: the checkpoint is missing or unreadable, was made with other flags, or does
            not fit this network; the message names the file and what to do.
    """
    state = load_checkpoint(path)
    if not isinstance(state, dict):
        raise RuntimeError(f"{path} is not a train.py checkpoint; delete it and train again without --resume")
    if missing := [key for key in CHECKPOINT_KEYS if key not in state]:
        raise RuntimeError(f"checkpoint {path} lacks {', '.join(missing)}; delete it and train again "
                           "without --resume")
    made_with, wanted = state.get("recipe", {}), recipe(args)  # checkpoints from before recipes lack one
    if changed := [name for name in made_with if made_with[name] != wanted[name]]:
        raise RuntimeError(
            f"checkpoint {path} was made with {', '.join(f'{n}={made_with[n]}' for n in changed)}, this run "
            f"asks for {', '.join(f'{n}={wanted[n]}' for n in changed)}: resume with the same flags, "
            "or train afresh without --resume (the checkpoint is then overwritten)")
    try:
        model.load_state_dict(state["model"])
        ema.load_state_dict(state["ema"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        restore_rng(state["rng"], shuffle)
    except (KeyError, RuntimeError, TypeError, ValueError) as error:
        first_line = str(error).splitlines()[0] if str(error) else ""
        raise RuntimeError(f"checkpoint {path} does not fit this network ({error.__class__.__name__}: "
                           f"{first_line}); delete it and train again without --resume") from error
    return state


def write_metrics(out_dir: Path, metrics: dict) -> None:
    tmp = out_dir / "metrics.json.tmp"
    tmp.write_text(json.dumps(metrics, indent=2) + "\n")
    os.replace(tmp, out_dir / "metrics.json")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    device = pick_device(args.device)
    bf16 = use_bf16(args.amp, device)
    autocast = (lambda: torch.autocast(device.type, dtype=torch.bfloat16)) if bf16 else nullcontext
    out_dir, checkpoint_path = Path(args.out), Path(args.checkpoint)

    try:
        train_set = mnist(args.data_dir, train=True, augment=True)
        test_set = mnist(args.data_dir, train=False)
    except RuntimeError as error:
        print(f"train.py: error: {error}", file=sys.stderr)
        return 2
    if args.limit:
        train_set = torch.utils.data.Subset(train_set, range(min(args.limit, len(train_set))))
    shuffle = torch.Generator().manual_seed(args.seed)
    train_loader = batches(train_set, args.batch_size, shuffle=True, generator=shuffle, device=device)
    test_loader = batches(test_set, 500, device=device)

    try:
        model = (load_model(args.init_from) if args.init_from else CapsNet(CapsNetConfig())).to(device)
    except WeightsError as error:
        print(f"train.py: error: --init-from: {error}", file=sys.stderr)
        return 2
    ema = AveragedModel(model, avg_fn=moving_average(args.ema_decay))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    schedule = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=args.lr_decay)
    start_epoch, best_accuracy, seconds, history, saved_any = 1, -1.0, 0.0, [], False
    if args.resume:
        try:
            state = resume(checkpoint_path, args, model, ema, optimizer, schedule, shuffle)
        except RuntimeError as error:
            print(f"train.py: error: {error}", file=sys.stderr)
            return 2
        start_epoch, best_accuracy = state["epoch"] + 1, state["best_accuracy"]
        seconds, history = state["seconds"], state["history"]
        saved_any = state.get("saved_any", True)   # checkpoints from before --init-from always saved
        print(f"resumed from {checkpoint_path} after epoch {state['epoch']}")
    elif args.init_from:  # the weights the run starts from are the ones to beat: never saved over by worse
        best_accuracy = accuracy(model, test_loader, device)
        print(f"starting from {args.init_from}: test accuracy {best_accuracy:.4%}, the figure to beat")

    epochs = 1 if args.dry_run else args.epochs
    print(f"device {device}, bf16 autocast {'on' if bf16 else 'off'}, {len(train_set)} training images, "
          f"epochs {start_epoch}..{epochs}")
    started = time.monotonic()
    for epoch in range(start_epoch, epochs + 1):
        epoch_started = time.monotonic()
        lr = optimizer.param_groups[0]["lr"]
        try:
            train_loss, train_accuracy = train_one_epoch(model, ema, train_loader, optimizer, device,
                                                         autocast, epoch, args.dry_run)
        except NonFiniteLossError as error:
            kept = (f"The best weights so far (test accuracy {best_accuracy:.4%}) are kept in {out_dir}/, "
                    f"the last finished epoch in {checkpoint_path}." if best_accuracy >= 0 else
                    "No epoch finished, so nothing was saved.")
            print(f"train.py: error: {error} {kept} Train again with a lower --lr.", file=sys.stderr)
            return 1
        schedule.step()
        test_accuracy = accuracy(ema.module, test_loader, device)
        epoch_seconds = time.monotonic() - epoch_started
        seconds += epoch_seconds
        history.append({"epoch": epoch, "lr": lr, "train_loss": round(train_loss, 6),
                        "train_accuracy": round(train_accuracy, 6), "test_accuracy": test_accuracy,
                        "seconds": round(epoch_seconds, 1)})
        print(f"epoch {epoch}: loss {train_loss:.4f}, train accuracy {train_accuracy:.4%}, "
              f"test accuracy {test_accuracy:.4%}, {epoch_seconds:.0f} s")
        if args.dry_run:
            break                # a dry run checks that everything runs; it overwrites no weights
        if test_accuracy > best_accuracy:
            best_accuracy, saved_any = test_accuracy, True
            atomic_save_pretrained(ema.module, out_dir)
            write_metrics(out_dir, {
                "mnist_test_accuracy": test_accuracy, "best_epoch": epoch, "epochs": epoch,
                "train_seconds": round(seconds, 1), "device": str(device), "bf16_autocast": bf16,
                "torch_version": torch.__version__,
                "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "command": shlex.join(["python", "train.py", *(sys.argv[1:] if argv is None else argv)]),
                "train_images": len(train_set), "init_from": args.init_from, "history": history})
        atomic_torch_save({"model": model.state_dict(), "ema": ema.state_dict(),
                           "optimizer": optimizer.state_dict(), "schedule": schedule.state_dict(),
                           "rng": capture_rng(shuffle), "epoch": epoch, "best_accuracy": best_accuracy,
                           "seconds": seconds, "history": history, "recipe": recipe(args),
                           "saved_any": saved_any}, checkpoint_path)
        elapsed_minutes = (time.monotonic() - started) / 60
        if args.max_minutes is not None and epoch < epochs and \
                elapsed_minutes + epoch_seconds / 60 > args.max_minutes:
            print(f"stopping after epoch {epoch}: another epoch would pass --max-minutes {args.max_minutes}")
            break
    if args.init_from and not saved_any:
        print(f"no epoch beat the starting weights ({best_accuracy:.4%}); nothing written to {out_dir}/")
        return 0
    print(f"best test accuracy {best_accuracy:.4%}; model in {out_dir}/")
    if args.push_to_hub:
        CapsNet.from_pretrained(out_dir).push_to_hub(args.push_to_hub)
        print(f"pushed to https://huggingface.co/{args.push_to_hub}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
