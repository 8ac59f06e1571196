"""What a dimension's name claims about each digit, and the rule that checks it, fixed before any
name is made (docs/dimensions.md, "Names that hold"):

- a direction ("wider →", "thicker strokes and moves left →") holds on a digit when each named
  measure moves that way between the range's ends, x(-range) to x(+range); "wider", "taller" and
  their opposites claim both the 4-sigma measure and the ink's reach (``shape_measures.reach``);
- a place ("the bottom grows →", ``ink_places``) holds on a digit when each named part gains (or
  loses) ink with the named sign, per pixel at least ``ink_places.STANDS_OUT`` times as much as any
  other ninth of the digit's box gains or loses;
- a name earns its claim on the digits that name it only where the claim holds on NAMING_HOLDS of
  them, and keeps it only where it holds on HOLDS of as many digits of its class that it was not
  made from; otherwise it says VARIES. "barely changes" and "changes shape: whole digit" claim
  nothing to check.
"""

from dataclasses import dataclass

import torch

from capsnet.studies.ink_places import PlaceClaim, thirds
from capsnet.studies.shape_measures import measure, reach

NAMING_HOLDS = 0.9  # a claim names a dimension when it holds on 90% of the digits that name it ...
HOLDS = 0.8  # ... and keeps the name when it holds on 80% of the held-out digits
PHRASES = {
    "ink": ("thinner strokes", "thicker strokes"),
    "width": ("narrower", "wider"),
    "height": ("shorter", "taller"),
    "slant": ("slants left", "slants right"),
    "x": ("moves left", "moves right"),
    "y": ("moves up", "moves down"),
}  # (falls, rises)


@dataclass(frozen=True)
class Evidence:
    """What a range's ends show on each of N digits: every measure's change from x(-range) to
    x(+range), the ink's reach's, and where the change adds and removes ink."""

    changes: dict[str, torch.Tensor]  # each of shape_measures.MEASURES: [N], at +range minus at -range
    reaches: dict[str, torch.Tensor]  # "width", "height": [N], likewise
    shares: torch.Tensor  # [N, 2, 9]: ink_places.thirds of the change


def evidence(low: torch.Tensor, middle: torch.Tensor, high: torch.Tensor) -> Evidence:
    """The Evidence of N digits decoded at -range (``low``), 0 (``middle``, whose ink sets each
    digit's box) and +range (``high``), each [N, H, W]."""
    before, after = measure(low), measure(high)
    reach_before, reach_after = reach(low), reach(high)
    return Evidence(
        changes={k: after[k] - before[k] for k in before},
        reaches={k: reach_after[k] - reach_before[k] for k in reach_after},
        shares=thirds(high - low, middle),
    )


@dataclass(frozen=True)
class DirectionClaim:
    """Dragging the slider right moves each named measure the named way."""

    moves: tuple[tuple[str, int], ...]  # (measure, +1 rises or -1 falls), the better explanation first
    reshapes: bool = False  # the measures move, but none of their pure changes explains the pixels

    @property
    def kind(self) -> str:
        return "reshapes" if self.reshapes else "measure"

    @property
    def name(self) -> str:
        phrases = [PHRASES[k][sign > 0] for k, sign in self.moves]
        if sorted(phrases) in (["taller", "wider"], ["narrower", "shorter"]):
            phrases = ["larger" if dict(self.moves)["width"] > 0 else "smaller"]
        elif all(phrase.startswith("moves ") for phrase in phrases):  # "moves left and down"
            phrases[1:] = [phrase.removeprefix("moves ") for phrase in phrases[1:]]
        return ("reshapes, " if self.reshapes else "") + " and ".join(phrases) + " →"

    def holds(self, seen: Evidence) -> torch.Tensor:
        """On which digits every named measure moves the named way, [N] booleans."""
        held = torch.ones_like(seen.changes["ink"], dtype=torch.bool)
        for k, sign in self.moves:
            held &= sign * seen.changes[k] > 0
            if k in seen.reaches:
                held &= sign * seen.reaches[k] > 0
        return held


@dataclass(frozen=True)
class NoClaim:
    """A name that says only that the digit changes, or hardly: nothing to check on a digit."""

    name: str
    kind: str


BARELY_CHANGES = NoClaim("barely changes", "barely changes")
WHOLE_DIGIT = NoClaim("changes shape: whole digit", "whole digit")
VARIES = NoClaim("varies from digit to digit", "varies")
Claim = DirectionClaim | PlaceClaim | NoClaim
KINDS = ("measure", "place", "reshapes", BARELY_CHANGES.kind, WHOLE_DIGIT.kind, VARIES.kind)  # as dimensions.json says
SAYS_NOTHING = (BARELY_CHANGES.kind, WHOLE_DIGIT.kind, VARIES.kind)  # names that say only that the digit changes


def held(claim: DirectionClaim | PlaceClaim, seen: Evidence) -> float:
    """The fraction of the digits in ``seen`` on which ``claim`` holds (counted, so 90 of 100 is 0.9)."""
    holds = claim.holds(seen.shares) if isinstance(claim, PlaceClaim) else claim.holds(seen)
    return int(holds.sum()) / len(holds)
