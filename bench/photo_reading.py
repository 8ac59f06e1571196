"""How the shipped CapsNet reads digits in photos, through sketch_to_mnist (what /predict does with
an uploaded picture).

Photos made by four generators made differently (harness/photos.py): `choice`, on which the photo
path's settings were chosen; `report` and `lamp`, whose first figures each led to changes of the
path; and `window`, written before the last change was made and read once for these figures. No
set of real photos of digits is on these machines. Printed, with the CPU:

- MNIST test digits (--count, the same ones throughout) photographed by each generator under each
  of its four lights: the share read right, with its 95% interval;
- Semeion's digits (other people's handwriting) photographed by the window generator under each
  light, against Semeion read plainly (its 16x16 digits as strokes, as `capsnet.shipping.evaluate`
  reads them);
- photos of no digit (--blank-count of each kind): blank paper under each light of each generator,
  ruled paper under each report light, heavy noise: how many give NoDigitError, None or a reading.

With --against REV, every photo is read by that revision's capsnet/data/preprocess.py too (git
show), in the same run: the figures before and after a change of the photo path.

    python -m bench.photo_reading --data-dir DATA --against 4e7eea0

The figures it measured, with the machine: docs/api.md.
"""

import argparse
import importlib.util
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from bench.train_throughput import cpu_model
from capsnet import load_model
from capsnet.data.datasets import load_semeion, mnist
from capsnet.data.preprocess import NoDigitError, sketch_to_mnist
from capsnet.shipping.evaluate import semeion_predictions
from capsnet.studies.statistics import in_interval, share
from harness.paths import REPO
from harness.photos import LIGHTS, choice_photo, lamp_photo, report_photo, window_photo

GENERATORS = {"choice": choice_photo, "report": report_photo, "lamp": lamp_photo, "window": window_photo}
SEED = 2017
SEMEION_PAD = 3  # Semeion's 16x16 digits fill their box: 3 pixels a side make it MNIST's 20 of 28
NO_DIGIT = -1  # what a reader gives for a photo it says holds no digit (NoDigitError) ...
EMPTY = -2  # ... and for one it takes for an empty canvas (None)


def preprocess_of(revision: str) -> Callable:
    """The sketch_to_mnist of ``revision``'s capsnet/data/preprocess.py, loaded from git."""
    source = subprocess.run(
        ["git", "show", f"{revision}:capsnet/data/preprocess.py"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(f"preprocess_at_{revision}", file.name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    Path(file.name).unlink()
    return module.sketch_to_mnist


def outcome(read: Callable, photo: np.ndarray) -> np.ndarray | int:
    """What ``read`` makes of ``photo``: a 28x28 field, NO_DIGIT or EMPTY."""
    try:
        field = read(photo)
    except NoDigitError:
        return NO_DIGIT
    return EMPTY if field is None else field


@torch.inference_mode()
def digits_read(model, outcomes: list) -> np.ndarray:
    """The digit ``model`` reads in each field of ``outcomes``, NO_DIGIT or EMPTY where there was none."""
    fields = [o for o in outcomes if isinstance(o, np.ndarray)]
    read = iter(model(torch.from_numpy(np.stack(fields))[:, None]).prediction.tolist() if fields else [])
    return np.array([next(read) if isinstance(o, np.ndarray) else o for o in outcomes])


def read_photos(model, readers: dict[str, Callable], photos: list[np.ndarray]) -> tuple[dict, float]:
    """Each reader's digits for ``photos`` ({name: int [N]}), and the last reader's median time a
    photo, in ms."""
    digits = {}
    for name, read in readers.items():
        outcomes, times = [], []
        for photo in photos:
            start = time.perf_counter()
            outcomes.append(outcome(read, photo))
            times.append(time.perf_counter() - start)
        digits[name] = digits_read(model, outcomes)
    return digits, 1000 * float(np.median(times))


def accuracy_table(title: str, model, readers: dict, images: np.ndarray, labels: np.ndarray, generators) -> None:
    """Print the share of ``images`` (float [N, S, S] coverage fields) read right, photographed by
    each of ``generators`` under each light, by each reader."""
    print(title)
    print(f"  {'photos':30s}" + "".join(f"{name:>24s}" for name in readers) + "   no digit said   ms a photo")
    for name, photograph in generators.items():
        for number, light in enumerate(LIGHTS):
            rng = np.random.default_rng([SEED, len(images), list(GENERATORS).index(name), number])
            digits, ms = read_photos(model, readers, [photograph(image, light, rng) for image in images])
            cells = "".join(f"{in_interval(share(torch.from_numpy(d == labels))):>24s}" for d in digits.values())
            said = (digits[list(readers)[-1]] == NO_DIGIT).sum()
            print(f"  {name + ', ' + light:30s}{cells}   {said:13d}   {ms:10.0f}", flush=True)


def no_digit_table(readers: dict, count: int, sets: list[str]) -> None:
    """Print what each reader makes of ``count`` photos of each kind of no digit, made by ``sets``."""
    kinds = {}
    for name in sets:
        options = {"ruled": False} if name == "report" else {}
        kinds |= {f"blank, {name}, {light}": (GENERATORS[name], light, options) for light in LIGHTS}
    if "report" in sets:
        kinds |= {f"ruled, report, {light}": (report_photo, light, {"ruled": True}) for light in LIGHTS}
        kinds["heavy noise (0.1), report, even"] = (report_photo, "even", {"ruled": False, "noise": 0.1})
    print(f"photos of no digit, {count} of each: no digit said / None / read as a digit")
    print(f"  {'photos':40s}" + "".join(f"{name:>22s}" for name in readers))
    example = None
    for number, (kind, (photograph, light, options)) in enumerate(kinds.items()):
        rng = np.random.default_rng([SEED, 99, number])
        photos = [photograph(None, light, rng, **options) for _ in range(count)]
        cells = ""
        for read in readers.values():
            outcomes = [outcome(read, photo) for photo in photos]
            said, empty = sum(o is NO_DIGIT for o in outcomes), sum(o is EMPTY for o in outcomes)
            cells += f"{f'{said} / {empty} / {count - said - empty}':>22s}"
        print(f"  {kind:40s}{cells}", flush=True)
        if example is None:
            try:
                sketch_to_mnist(photos[0])
            except NoDigitError as error:
                example = str(error)
    print(f"  e.g. {example}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default="./data", help="MNIST, and semeion/semeion.data (default: ./data)")
    p.add_argument("--weights", default="weights", help="the MNIST CapsNet (default: weights)")
    p.add_argument("--count", type=int, default=300, help="MNIST test digits photographed (default: 300)")
    p.add_argument("--semeion-count", type=int, default=1593, help="Semeion digits photographed (default: all 1593)")
    p.add_argument("--blank-count", type=int, default=50, help="photos of each kind of no digit (default: 50)")
    p.add_argument("--against", default=None, help="a git revision whose preprocessing reads every photo too")
    p.add_argument("--sets", nargs="+", choices=GENERATORS, default=list(GENERATORS), help="makes (default: all)")
    args = p.parse_args(argv)
    print(f"CPU: {cpu_model()}; torch {torch.__version__}; {torch.get_num_threads()} threads")
    model = load_model(args.weights).eval()
    readers = {f"at {args.against}": preprocess_of(args.against)} if args.against else {}
    readers["this checkout"] = sketch_to_mnist

    test = mnist(args.data_dir, train=False)
    picks = np.sort(np.random.default_rng(SEED).choice(len(test), args.count, replace=False))
    images, labels = test.data[picks].numpy() / 255, test.targets[picks].numpy()
    generators = {name: GENERATORS[name] for name in args.sets}
    accuracy_table(f"MNIST test digits ({args.count}), read right", model, readers, images, labels, generators)

    semeion_path = Path(args.data_dir) / "semeion" / "semeion.data"
    semeion, semeion_labels = load_semeion(semeion_path)
    plainly = share(torch.from_numpy(semeion_predictions(model, str(semeion_path)) == semeion_labels))
    picks = np.sort(np.random.default_rng(SEED).permutation(len(semeion))[: args.semeion_count])
    fields = np.pad(semeion[picks] / 255, ((0, 0), (SEMEION_PAD,) * 2, (SEMEION_PAD,) * 2))
    accuracy_table(
        f"Semeion's digits ({len(picks):,}), read right; read plainly, all {len(semeion):,}: {in_interval(plainly)}",
        model,
        readers,
        fields,
        semeion_labels[picks],
        {"window": window_photo},
    )
    no_digit_table(readers, args.blank_count, args.sets)


if __name__ == "__main__":
    main()
