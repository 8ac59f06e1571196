"""dimensions.json, what `capsnet.studies.dimension_names` writes beside the weights it named,
written and read back, checked against them: the names the page's sliders and Figure 4 show,
without the study's measuring code (which loads MNIST through torchvision)."""

import json
from dataclasses import dataclass
from pathlib import Path

from capsnet.studies.results_file import load_measured

NAMES_FILE = "dimensions.json"


@dataclass(frozen=True)
class DimensionName:
    name: str  # what moving the dimension up does, e.g. "wider →", or "barely changes"
    kind: str  # which rule named it: "measure", "place", "reshapes", "barely changes", "whole digit", "varies"
    held: float | None  # the fraction of the held-out digits on which its claim held; None: it claims nothing
    effect: float  # how much the image changes over the range (EFFECT_SIZE)


@dataclass(frozen=True)
class DimensionNames:
    """dimensions.json, checked against the weights beside it. Per class, 16 entries in dimension order."""

    paper: tuple[tuple[DimensionName, ...], ...]  # [class][dimension], over the paper's +-0.25
    spread: tuple[tuple[DimensionName, ...], ...]  # [class][dimension], over +-spread_range sd
    sd: tuple[tuple[float, ...], ...]  # [class][dimension]: the spread of v_j over the class's digits
    spread_range: float  # the spread range in sd (3)

    def by_effect(self, digit: int, scale: str = "paper") -> tuple[int, ...]:
        """The dimensions of ``digit`` ordered by effect size, largest first; ``scale``: "paper" or "spread"."""
        names = {"paper": self.paper, "spread": self.spread}[scale][digit]
        return tuple(sorted(range(len(names)), key=lambda d: -names[d].effect))


def load_dimension_names(folder: str | Path) -> DimensionNames:
    """The dimension names shipped beside the weights in ``folder`` (a local folder).

    Raises:
        ResultsError: dimensions.json is missing or malformed, or it records other weights than the
            folder's model.safetensors.
    """
    folder = Path(folder)
    return load_measured(
        folder / NAMES_FILE,
        {"capsnet": folder},
        f"python -m capsnet.studies.dimension_names --weights {folder} --data-dir DATA",
        read_names,
    )


def read_names(names: dict) -> DimensionNames:
    """The DimensionNames in dimensions.json's object."""
    classes = [names["classes"][str(digit)] for digit in range(len(names["classes"]))]
    if any([entry["dimension"] for entry in entries] != list(range(len(entries))) for entries in classes):
        raise ValueError("each class must list its dimensions in order, 0 first")
    return DimensionNames(
        **{
            scale: tuple(
                tuple(
                    DimensionName(
                        entry[scale]["name"],
                        entry[scale]["kind"],
                        None if entry[scale]["held"] is None else float(entry[scale]["held"]),
                        float(entry[scale]["effect"]),
                    )
                    for entry in entries
                )
                for entries in classes
            )
            for scale in ("paper", "spread")
        },
        sd=tuple(tuple(float(entry["sd"]) for entry in entries) for entries in classes),
        spread_range=float(names["spread_range_sd"]),
    )


def to_json(names: dict) -> str:
    """dimensions.json's text: the header indented, then one line per dimension, so that a diff
    shows which dimensions' names changed."""
    header = json.dumps({key: value for key, value in names.items() if key != "classes"}, indent=1, ensure_ascii=False)
    classes = ",\n".join(
        f'  "{digit}": [\n' + ",\n".join(f"   {json.dumps(entry, ensure_ascii=False)}" for entry in entries) + "\n  ]"
        for digit, entries in names["classes"].items()
    )
    return f'{header[:-2]},\n "classes": {{\n{classes}\n }}\n}}\n'
