"""What the 16 dimensions of a digit capsule encode: nudge them, decode (capsnet.dimensions), measure
and name the change, and check the name on digits it was not made from.

Sabour et al. 2017, section 5.1: "we can see what the individual dimensions represent by making
use of the decoder network and feeding it a perturbed version of the activity vector". The paper
tweaks one dimension at a time by intervals of 0.05 in the range [-0.25, 0.25] (its Figure 4) and
names a few by eye. Here every class's 16 dimensions are named from measurements instead:

1. take the capsule v_j the network gives each of the first DIGITS_PER_CLASS test digits of class
   j (the naming digits), sweep one dimension over a range in 11 steps, and decode;
2. measure each decoded image (``capsnet.studies.shape_measures``: ink, width, height, slant, x, y) and fit
   each measure's change over the sweep (a least-squares line through the 11 steps);
3. ask how much of the pixel change between the sweep's ends each measure explains: the change
   that its pure transformation (a shift, a stretch, a shear, a dilation) by the measured amount
   makes to the unperturbed reconstruction, against the decoder's own;
4. name the dimension (``name_dimension``), the first of these whose claim holds on NAMING_HOLDS
   of the naming digits (``capsnet.studies.dimension_names_claims``): the visible measure that explains
   most, or the pair of them ("wider →": what dragging the slider to the right does); below a
   visible effect, "barely changes"; where ink is added and taken away ("the bottom grows →",
   ``capsnet.studies.ink_places``); a visible measure that moves the same way on the digits
   though no pure change of it explains the pixels ("reshapes, taller →"); else "changes shape:
   whole digit";
5. check the name's claim on the next DIGITS_PER_CLASS test digits of the class, decoded at the
   range's ends: where it holds on fewer than HOLDS of them, the name says "varies from digit to
   digit" instead.

Two ranges: the paper's +-0.25 for every dimension, and +-3 standard deviations of the dimension
over the class's naming digits (SPREAD_RANGE), since the dimensions' spreads differ up to tenfold
within a class.

    python -m capsnet.studies.dimension_names --weights weights --data-dir DATA   # writes weights/dimensions.json

What the names say of the shipped weights, beside the paper's: docs/dimensions.md.
"""

import argparse
from dataclasses import dataclass
from pathlib import Path

import torch

from capsnet.data.datasets import mnist
from capsnet.dimensions import PAPER_RANGE, SWEEP, sweep_reconstructions
from capsnet.model import CapsNet
from capsnet.shipping.pretrained import SERVED_BY, WEIGHTS_FILE, load_model
from capsnet.studies.dimension_names_claims import (
    BARELY_CHANGES,
    HOLDS,
    NAMING_HOLDS,
    VARIES,
    WHOLE_DIGIT,
    Claim,
    DirectionClaim,
    Evidence,
    NoClaim,
    evidence,
    held,
)
from capsnet.studies.dimension_names_file import NAMES_FILE, load_dimension_names, to_json
from capsnet.studies.dimension_names_tables import kinds_table, names_table
from capsnet.studies.ink_places import PLACE_CLAIMS
from capsnet.studies.results_file import WEIGHTS_SHA256, weights_sha256
from capsnet.studies.shape_measures import EPS, MEASURES, measure, transform

SPREAD_RANGE = 3.0  # the other sweep: -3 .. 3 standard deviations of the dimension over the class
DIGITS_PER_CLASS = 100  # the first 100 test digits of a class name it, the next 100 check the names
EFFECT_SIZE = (
    "sum over pixels of |x(+range) - x(-range)| / sum of x(0): the grey-level change between "
    "the sweep's ends as a fraction of the unperturbed reconstruction's ink, mean over the digits"
)
UNITS = {
    "ink": "ink_percent",
    "width": "width_px",
    "height": "height_px",
    "slant": "slant_degrees",
    "x": "x_px",
    "y": "y_px",
}  # each measure's change over the sweep, as dimensions.json names it

# The smallest change of each measure over a sweep that can name a dimension: at the app's 10 screen
# pixels per image pixel each is visible, and each alone changes a reconstruction of the shipped
# weights by an effect of 0.1-0.2 (the median over 300 test digits).
VISIBLE = {
    "ink": 20.0,  # percent of the digit's ink
    "width": 1.0,
    "height": 1.0,  # pixels (of 4 sigma)
    "slant": 5.0,  # degrees: the top of a 20-pixel-tall digit moves 1.7 pixels
    "x": 0.5,
    "y": 0.5,
}  # pixels
EXPLAINS = 0.25  # a measure, or a pair, names a dimension when its pure change reproduces 25% of the pixel change
JOINS = 0.10  # a pair is preferred to its best single measure when it reproduces 10 points more
BARELY = 0.25  # an effect below this, no measure naming it: "barely changes" (a 1-pixel shift makes 0.2-0.7)


@dataclass(frozen=True)
class DimensionSweep:
    """What sweeping one dimension over a range does to the decoded digits, on average over them."""

    name: str  # e.g. "wider →": what moving the dimension up does; VARIES where its claim did not hold
    kind: str  # "measure", "place", "reshapes", "barely changes", "whole digit" or "varies"
    held: float | None  # the fraction of the held-out digits on which the name's claim held; None: no claim
    claimed: str | None  # the name whose claim held too rarely, where the name is VARIES
    effect: float  # how much the image changes over the sweep (EFFECT_SIZE)
    changes: dict[str, float]  # each measure's change over the sweep: ink in percent, slant in degrees, else pixels
    explained: dict[str, float]  # the fraction of the pixel change each measure's pure change reproduces


def class_capsules(model: CapsNet, dataset, digit: int) -> torch.Tensor:
    """The capsules v the network gives the first 2 x DIGITS_PER_CLASS test digits of class ``digit``:
    the naming digits, then the held-out ones.

    Args:
        model: the trained network.
        dataset: torchvision's MNIST test set (its ``data`` and ``targets``).
        digit: the class, 0..9.

    Returns:
        [2N, 10, 16], computed as one batch (so always by the same routing code).
    """
    index = (dataset.targets == digit).nonzero()[: 2 * DIGITS_PER_CLASS, 0]
    images = dataset.data[index].unsqueeze(1).float() / 255  # [2N, 1, 28, 28], as ToTensor gives
    return model(images).capsules


def sweep_dimensions(
    model: CapsNet, capsules: torch.Tensor, held_out: torch.Tensor, digit: int, offsets: torch.Tensor
) -> list[DimensionSweep]:
    """Sweep every dimension of capsule ``digit``, decode, measure, name, and check the names (the
    module's steps 1-5).

    Args:
        model: supplies the decoder.
        capsules: v for N naming digits of class ``digit``, [N, 10, 16].
        held_out: v for M other digits of the class, which check the names, [M, 10, 16].
        digit: the class, 0..9.
        offsets: the sweep of each dimension, [16, S], symmetric about 0 with S odd (the middle is 0).

    Returns:
        16 sweeps, in dimension order.
    """
    dims, steps = offsets.shape
    images = torch.stack([sweep_reconstructions(model, v, digit, offsets) for v in capsules])  # [N, 16, S, 28, 28]
    ends = offsets[:, [0, steps // 2, -1]]  # [16, 3]
    checks = torch.stack([sweep_reconstructions(model, v, digit, ends) for v in held_out])  # [M, 16, 3, 28, 28]
    measures = measure(images)  # each [N, 16, S]
    t = offsets - offsets.mean(-1, keepdim=True)  # [16, S]
    span = offsets[:, -1] - offsets[:, 0]  # [16]
    middle, delta = images[:, :, steps // 2], images[:, :, -1] - images[:, :, 0]  # [N, 16, 28, 28]
    ink = measures["ink"][:, :, steps // 2].clamp_min(EPS)  # [N, 16]
    # Least-squares slope of each measure against the offset, times the span: change over the sweep.
    change = {k: (m * t).sum(-1) / (t * t).sum(-1) * span for k, m in measures.items()}  # each [N, 16]
    pure = torch.stack(
        [
            (
                transform(middle.flatten(0, 1), k, change[k].flatten() / 2)
                - transform(middle.flatten(0, 1), k, -change[k].flatten() / 2)
            ).view_as(delta)
            for k in MEASURES
        ]
    )  # [6, N, 16, 28, 28]
    explained = explained_fractions(delta, pure)  # [16, 6, 6]
    effect = (delta.abs().sum((-2, -1)) / ink).mean(0)  # [16]
    change["ink"] = 100 * change["ink"] / ink  # percent of each digit's ink
    sweeps = []
    for d in range(dims):
        changes = {k: change[k][:, d].mean().item() for k in MEASURES}
        naming = evidence(images[:, d, 0], images[:, d, steps // 2], images[:, d, -1])
        claim = name_dimension(changes, explained[d], effect[d].item(), naming)
        kept, rate = check_name(claim, evidence(*checks[:, d].unbind(1)))
        sweeps.append(
            DimensionSweep(
                name=kept.name,
                kind=kept.kind,
                held=rate,
                claimed=claim.name if kept is VARIES else None,
                effect=effect[d].item(),
                changes=changes,
                explained={k: explained[d, i, i].item() for i, k in enumerate(MEASURES)},
            )
        )
    return sweeps


def explained_fractions(delta: torch.Tensor, pure: torch.Tensor) -> torch.Tensor:
    """1 - |delta - predicted|^2 / |delta|^2 over all digits, the prediction being one measure's
    pure change (the diagonal) or the sum of two (off the diagonal).

    Args:
        delta: the decoder's change between the sweep's ends, [N, 16, H, W].
        pure: each measure's pure change, [6, N, 16, H, W].

    Returns:
        [16, 6, 6], symmetric, in [0, 1]: 1 is a perfect explanation, 0 none (a prediction worse
        than none counts 0, and so does a dimension that changes nothing).
    """
    total = (delta**2).sum((0, 2, 3))  # [16]
    along = torch.einsum("ndhw,kndhw->dk", delta, pure)  # [16, 6]
    gram = torch.einsum("kndhw,lndhw->dkl", pure, pure)  # [16, 6, 6]
    single = gram.diagonal(dim1=1, dim2=2)  # [16, 6]
    # |delta - a - b|^2 = |delta|^2 - 2 delta.a - 2 delta.b + |a|^2 + |b|^2 + 2 a.b
    pair = (
        total[:, None, None]
        - 2 * along[:, :, None]
        - 2 * along[:, None, :]
        + single[:, :, None]
        + single[:, None, :]
        + 2 * gram
    )  # [16, 6, 6]
    pair.diagonal(dim1=1, dim2=2).copy_(total[:, None] - 2 * along + single)
    fraction = (1 - pair / total.clamp_min(EPS)[:, None, None]).clamp_min(0)
    return torch.where(total[:, None, None] > 0, fraction, 0.0)


def name_dimension(changes: dict[str, float], explained: torch.Tensor, effect: float, naming: Evidence) -> Claim:
    """The name a dimension earns from its measurements (the module's step 4): the first of these
    whose claim holds on NAMING_HOLDS of the naming digits.

    1. the visible measure that explains most of the pixel change, or the pair of them, when it
       explains EXPLAINS; a pair only when it explains JOINS more than its better half;
    2. "barely changes", when the effect is below BARELY;
    3. where ink is added and taken away: of the place claims that hold, the one naming fewest of
       the box's cells, then the one that holds on most digits;
    4. "reshapes, ...": of the visible measures, the one that explains most, then the one that moves
       most, counted in VISIBLE steps;
    5. "changes shape: whole digit".

    Args:
        changes: each measure's change over the sweep, mean over the naming digits (DimensionSweep.changes).
        explained: [6, 6] fractions of the pixel change explained (``explained_fractions``).
        effect: how much the image changes (EFFECT_SIZE).
        naming: what the range's ends show on each naming digit.
    """
    visible = [i for i, k in enumerate(MEASURES) if abs(changes[k]) >= VISIBLE[k]]
    direction = {i: 1 if changes[MEASURES[i]] > 0 else -1 for i in visible}
    explanations = [(i,) for i in visible] + [(i, j) for i in visible for j in visible if i < j]
    if explanations:

        def fraction(e: tuple[int, ...]) -> float:  # a single measure is on the diagonal
            return explained[e[0], e[-1]].item()

        best = max(explanations, key=lambda e: fraction(e) - JOINS * (len(e) - 1))  # a pair must gain JOINS
        if fraction(best) >= EXPLAINS:
            chosen = sorted(best, key=lambda i: -explained[i, i])  # the better one first
            claim = DirectionClaim(tuple((MEASURES[i], direction[i]) for i in chosen))
            if held(claim, naming) >= NAMING_HOLDS:
                return claim
    if effect < BARELY:
        return BARELY_CHANGES
    places = [(claim, rate) for claim in PLACE_CLAIMS if (rate := held(claim, naming)) >= NAMING_HOLDS]
    if places:
        return min(places, key=lambda place: (place[0].cells, -place[1]))[0]
    reshapes = [
        DirectionClaim(((MEASURES[i], direction[i]),), reshapes=True)
        for i in sorted(visible, key=lambda i: (-explained[i, i], -abs(changes[MEASURES[i]]) / VISIBLE[MEASURES[i]]))
    ]
    return next((claim for claim in reshapes if held(claim, naming) >= NAMING_HOLDS), WHOLE_DIGIT)


def check_name(claim: Claim, held_out: Evidence) -> tuple[Claim, float | None]:
    """The name kept after checking its claim on the held-out digits (the module's step 5): the
    claim itself where it holds on HOLDS of them, else VARIES; and the fraction it held on (None
    for a name that claims nothing)."""
    if isinstance(claim, NoClaim):
        return claim, None
    rate = held(claim, held_out)
    return (claim if rate >= HOLDS else VARIES), rate


def class_entries(model: CapsNet, dataset, digit: int) -> list[dict]:
    """dimensions.json's 16 entries for class ``digit``: both ranges' sweeps and the spread sd.

    Args:
        model: the trained network.
        dataset: torchvision's MNIST test set.
        digit: the class, 0..9.
    """
    v = class_capsules(model, dataset, digit)  # [2N, 10, 16]
    naming, held_out = v[:DIGITS_PER_CLASS], v[DIGITS_PER_CLASS:]  # [N, 10, 16] each
    sd = naming[:, digit].std(0)  # [16]
    ranges = {
        "paper": SWEEP.expand(len(sd), -1),  # [16, S] each
        "spread": SPREAD_RANGE * sd[:, None] * SWEEP / PAPER_RANGE,
    }
    sweeps = {scale: sweep_dimensions(model, naming, held_out, digit, offsets) for scale, offsets in ranges.items()}
    return [
        {
            "dimension": d,
            "sd": round(sd[d].item(), 4),
            **{
                scale: {
                    "name": r[d].name,
                    "kind": r[d].kind,
                    "held": None if r[d].held is None else round(r[d].held, 2),
                    **({"claimed": r[d].claimed} if r[d].claimed else {}),
                    "effect": round(r[d].effect, 3),
                    "measures": {UNITS[k]: round(r[d].changes[k], 1) for k in MEASURES},
                    "explained": {k: round(r[d].explained[k], 2) for k in MEASURES},
                }
                for scale, r in sweeps.items()
            },
        }
        for d in range(len(sd))
    ]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description="Measure and name what each digit capsule dimension encodes, "
        f"for every class, and write {NAMES_FILE} beside the weights (docs/dimensions.md)."
    )
    p.add_argument(
        "--weights",
        default=SERVED_BY["capsnet", "digits"].folder,
        help=f"a folder holding {WEIGHTS_FILE} (default: %(default)s)",
    )
    p.add_argument("--data-dir", default="./data", help="torchvision's MNIST folder (default: ./data)")
    p.add_argument("--out", default=None, help=f"the JSON file to write (default: WEIGHTS/{NAMES_FILE})")
    p.add_argument(
        "--show",
        type=int,
        nargs="+",
        metavar="DIGIT",
        default=None,
        help=f"print the names in WEIGHTS/{NAMES_FILE} for these digits, the largest effects first, "
        "with how often each held, and the count of each kind of name, instead of measuring "
        "(default: measure)",
    )
    args = p.parse_args(argv)
    if args.show:
        names = load_dimension_names(args.weights)
        print(names_table(names, args.show), kinds_table(names), sep="\n\n")
        return
    folder = Path(args.weights)
    model, dataset = load_model(folder), mnist(args.data_dir, train=False)
    with torch.inference_mode():
        classes = {str(digit): class_entries(model, dataset, digit) for digit in range(model.config.num_classes)}
    names = {
        "weights_file": WEIGHTS_FILE,
        WEIGHTS_SHA256: weights_sha256({"capsnet": folder}),
        "digits_per_class": DIGITS_PER_CLASS,
        "digits": f"the first {DIGITS_PER_CLASS} of each class in MNIST's test set name it; v is the capsule of "
        "their class",
        "held_out": f"the next {DIGITS_PER_CLASS} of each class check the names: held is the fraction of them on "
        f"which a name's claim held (null: it claims nothing); below {HOLDS:g} the name says "
        f"'{VARIES.name}' and claimed is the name that did not hold",
        "naming_holds": NAMING_HOLDS,
        "holds": HOLDS,
        "sweep_steps": len(SWEEP),
        "offset_range": PAPER_RANGE,
        "spread_range_sd": SPREAD_RANGE,
        "ranges": {
            "paper": f"every dimension moved by -{PAPER_RANGE} .. {PAPER_RANGE}, the paper's",
            "spread": f"each dimension moved by -{SPREAD_RANGE:g} .. {SPREAD_RANGE:g} sd, its "
            "standard deviation over the class's naming digits",
        },
        "effect_size": EFFECT_SIZE,
        "classes": classes,
    }
    out = Path(args.out) if args.out else folder / NAMES_FILE
    out.write_text(to_json(names), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
