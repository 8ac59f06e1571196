"""What the studies share: accuracies and differences as figures with 95% intervals, images compared
pixel by pixel, and results written as JSON that a diff can read."""

import json
import math
from dataclasses import dataclass

import torch

from capsnet.studies.shape_measures import EPS

DECIMALS = 4  # every figure in a results file is rounded to this many decimals
SEED = 0  # of the bootstrap's resamples
BOOTSTRAP_RESAMPLES = 10_000
WILSON_Z = 1.959964  # a 95% interval for a share


def rounded(value: float) -> float:
    return round(float(value), DECIMALS) + 0.0  # + 0.0: no -0.0


@torch.inference_mode()
def share(hits: torch.Tensor) -> dict:
    """The share of ``hits`` (bool [N]) and its 95% Wilson score interval."""
    n, p = len(hits), hits.double().mean().item()
    centre = (p + WILSON_Z**2 / (2 * n)) / (1 + WILSON_Z**2 / n)
    half = WILSON_Z / (1 + WILSON_Z**2 / n) * math.sqrt(p * (1 - p) / n + WILSON_Z**2 / (4 * n**2))
    return {"share": rounded(p), "low": rounded(max(0.0, centre - half)), "high": rounded(min(1.0, centre + half))}


def correlation(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Pearson correlation over the pixels of each pair of images [N, 1, H, W] -> [N]."""
    a = a.flatten(1) - a.flatten(1).mean(1, keepdim=True)
    b = b.flatten(1) - b.flatten(1).mean(1, keepdim=True)
    return (a * b).sum(1) / ((a * a).sum(1) * (b * b).sum(1)).sqrt().clamp_min(EPS)


def ink_error(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """sum |a - b| / sum b over the pixels of each pair of images [N, 1, H, W] -> [N]."""
    return (a - b).abs().sum((1, 2, 3)) / b.sum((1, 2, 3)).clamp_min(EPS)


def paired(capsnet_right: torch.Tensor, cnn_right: torch.Tensor) -> dict[str, float]:
    """How two networks differ on the same changed digits (robustness.PAIRED_MEASURES).

    Args:
        capsnet_right, cnn_right: bool [C, N], whether each network read the c-th change of digit
            n as its digit. The bootstrap resamples the N digits, each with all C of its changes.
    """
    per_digit = (capsnet_right.double() - cnn_right.double()).mean(0)  # [N]
    generator = torch.Generator().manual_seed(SEED)
    picks = torch.randint(len(per_digit), (BOOTSTRAP_RESAMPLES, len(per_digit)), generator=generator)
    low, high = per_digit[picks].mean(1).quantile(torch.tensor([0.025, 0.975], dtype=torch.float64)).tolist()
    return {
        "only_capsnet": int((capsnet_right & ~cnn_right).sum()),
        "only_cnn": int((cnn_right & ~capsnet_right).sum()),
        "difference": round(per_digit.mean().item(), DECIMALS) + 0.0,
        "low": round(low, DECIMALS) + 0.0,
        "high": round(high, DECIMALS) + 0.0,
    }


def percent(fraction: float) -> str:
    return f"{100 * fraction:.1f}%"


def in_interval(measured: dict) -> str:
    """ "84.5% [83.8, 85.2]": a share of `share` and its 95% interval, in percent."""
    return f"{percent(measured['share'])} [{100 * measured['low']:.1f}, {100 * measured['high']:.1f}]"


def signed_points(fraction: float) -> str:
    """ "+0.9": a difference of accuracies in points, signed, one decimal; one that rounds to zero
    keeps its side ("-0.0" for -0.03 points, "+0.0" for 0)."""
    return f"{'-' if fraction < 0 else '+'}{abs(round(100 * fraction, 1)):.1f}"


def difference(paired_measures: dict) -> dict[str, float]:
    """A difference of `paired` and its 95% interval, without the counts (fractions, as `paired` gives them)."""
    return {key: paired_measures[key] for key in ("difference", "low", "high")}


@dataclass(frozen=True)
class Difference:
    """A difference of accuracies (fractions, as `paired` gives it) and its 95% interval."""

    difference: float
    low: float
    high: float

    @classmethod
    def of(cls, measured: dict) -> "Difference":
        """The difference a results file records (`paired`'s, or `difference`'s)."""
        return cls(float(measured["difference"]), float(measured["low"]), float(measured["high"]))

    def points(self) -> str:
        """ "+1.0 [+0.1, +1.9]": the difference in points and its 95% interval: how every page, table
        and chart writes one."""
        return f"{signed_points(self.difference)} [{signed_points(self.low)}, {signed_points(self.high)}]"


def points(measured: dict) -> str:
    """Difference.points of the difference a results file records."""
    return Difference.of(measured).points()


def to_json(results: dict) -> str:
    """A results file's text (robustness.json, pairs.json): keys sorted, two-space nesting, each
    sweep step on one line."""

    def render(value, depth: int) -> str:
        pad = " " * depth
        if isinstance(value, dict):
            items = [f"{pad} {json.dumps(key)}: {render(item, depth + 1)}" for key, item in sorted(value.items())]
            return "{\n" + ",\n".join(items) + f"\n{pad}}}"
        if isinstance(value, list) and value and isinstance(value[0], dict):  # sweep steps
            return "[\n" + ",\n".join(f"{pad} {json.dumps(step, sort_keys=True)}" for step in value) + f"\n{pad}]"
        return json.dumps(value)

    return render(results, 0) + "\n"
