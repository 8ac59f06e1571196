"""dimensions.json, what `capsnet.studies.dimension_names` writes beside the weights it named,
read back and checked against them: the names the page's sliders and Figure 4 show, without the
study's measuring code (which loads MNIST through torchvision)."""
import json
from dataclasses import dataclass
from pathlib import Path

from capsnet.pretrained import WEIGHTS_FILE, WeightsError
from capsnet.saving import sha256

NAMES_FILE = "dimensions.json"


@dataclass(frozen=True)
class DimensionName:
    name: str      # what moving the dimension up does, e.g. "wider →", or "barely changes"
    effect: float  # how much the image changes over the range (EFFECT_SIZE)


@dataclass(frozen=True)
class DimensionNames:
    """dimensions.json, checked against the weights beside it. Per class, 16 entries in dimension order."""
    paper: tuple[tuple[DimensionName, ...], ...]   # [class][dimension], over the paper's +-0.25
    spread: tuple[tuple[DimensionName, ...], ...]  # [class][dimension], over +-spread_range sd
    sd: tuple[tuple[float, ...], ...]              # [class][dimension]: the spread of v_j over the class's digits
    spread_range: float                            # the spread range in sd (3)

    def by_effect(self, digit: int, scale: str = "paper") -> tuple[int, ...]:
        """The dimensions of ``digit`` ordered by effect size, largest first; ``scale``: "paper" or "spread"."""
        names = {"paper": self.paper, "spread": self.spread}[scale][digit]
        return tuple(sorted(range(len(names)), key=lambda d: -names[d].effect))


class DimensionNamesError(WeightsError):
    """dimensions.json is missing, malformed or computed from other weights; the message says how to rebuild it."""

    def __init__(self, problem: str, folder: Path):  # its own fix, not WeightsError's (train or point elsewhere)
        super().__init__(problem, f"Fix: python -m capsnet.studies.dimension_names --weights {folder} --data-dir DATA writes it "
                                  "for these weights.")


def load_dimension_names(folder: str | Path) -> DimensionNames:
    """The dimension names shipped beside the weights in ``folder`` (a local folder).

    Raises:
        DimensionNamesError: dimensions.json is missing or malformed, or its weights_sha256 is not
            the SHA-256 of the folder's model.safetensors.
    """
    folder = Path(folder)
    path, weights = folder / NAMES_FILE, folder / WEIGHTS_FILE
    try:
        names = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DimensionNamesError(f"{path} is missing", folder) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DimensionNamesError(f"{path} cannot be read as JSON ({error})", folder) from None
    try:
        recorded = names["weights_sha256"]
        classes = [names["classes"][str(digit)] for digit in range(len(names["classes"]))]
        if any([entry["dimension"] for entry in entries] != list(range(len(entries))) for entries in classes):
            raise ValueError("each class must list its dimensions in order, 0 first")
        result = DimensionNames(
            **{scale: tuple(tuple(DimensionName(entry[scale]["name"], float(entry[scale]["effect"]))
                                  for entry in entries) for entries in classes)
               for scale in ("paper", "spread")},
            sd=tuple(tuple(float(entry["sd"]) for entry in entries) for entries in classes),
            spread_range=float(names["spread_range_sd"]))
    except (KeyError, TypeError, ValueError) as error:
        raise DimensionNamesError(f"{path} is not a dimensions file ({error.__class__.__name__}: {error})",
                                  folder) from None
    if not weights.is_file():
        raise DimensionNamesError(f"{weights} is missing, so {path} cannot be checked against it", folder)
    if recorded != (actual := sha256(weights)):
        raise DimensionNamesError(f"{path} was computed from other weights than {weights} (its "
                                  f"weights_sha256 is {str(recorded)[:12]}…, the file's {actual[:12]}…)", folder)
    return result
