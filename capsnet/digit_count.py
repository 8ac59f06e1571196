"""One digit or two: how many digits an image holds, read from a pairs network's outputs.

A network trained on single digits and overlapping pairs always names its strongest digit; it names
its second-strongest too where that says a second digit is there. The CapsNet says so in two ways:
its second capsule is long (the margin loss, eq. 4, trains a capsule to be longer than m+ = 0.9
where its digit is present and shorter than m- = 0.1 where it is absent), and the decoder's
redrawing of that capsule (section 6: each digit redrawn from its own capsule alone) covers ink that
the longest capsule's redrawing leaves: a second digit is there. Where there is none, the second
redrawing only goes over the first digit's ink again. The CNN has only its second-strongest sigmoid.

A `CountRule` reads two digits where the second score reaches its line and, for the CapsNet, the
second redrawing covers at least its share of the ink. Both lines are chosen on validation examples
(`choose_rule`), never on test digits, so that single digits and pairs are counted right equally
well: the mean of the two shares (balanced accuracy), since a set with more pairs than single
digits would otherwise pull the lines towards reading two.
"""
from dataclasses import dataclass

import torch

SECOND_LINES = tuple(round(0.02 * k, 2) for k in range(1, 50))        # tried for the second score
SECOND_INK_LINES = (None, *(round(0.01 * k, 2) for k in range(1, 31)))  # tried for the second redrawing's ink


@dataclass(frozen=True)
class CountRule:
    """Where a network reads a second digit."""
    second: float                    # the second-strongest score reaches this ...
    second_ink: float | None = None  # ... and the second redrawing covers this share of the ink the first leaves

    @classmethod
    def from_record(cls, count: dict) -> "CountRule":
        """The rule a measurement recorded (pairs.json's ``count`` of a network: second, second_ink)."""
        return cls(float(count["second"]), None if count["second_ink"] is None else float(count["second_ink"]))

    def two(self, second: torch.Tensor, second_ink: torch.Tensor | None = None) -> torch.Tensor:
        """Whether each image holds two digits, bool [N], from its second-strongest score [N] and
        the share of its ink that only the second redrawing covers [N] (needed where the rule asks)."""
        two = second >= self.second
        if self.second_ink is not None:
            two &= second_ink >= self.second_ink
        return two


def counted(scores: torch.Tensor, rule: CountRule, ink: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The digits a network names in each image: its strongest, and its second-strongest where
    ``rule`` reads two (from that score [N, 10] and ``ink``, the share only its redrawing covers [N]).
    Returns the two strongest [N, 2] (the paper: the two longest capsules) and whether both are named [N]."""
    top = scores.topk(2, dim=1)
    return top.indices, rule.two(top.values[:, 1], ink)


def uncovered(images: torch.Tensor, redrawn: torch.Tensor) -> torch.Tensor:
    """The share of each image's ink that a redrawing leaves: sum(max(x - r, 0)) / sum(x) over the
    pixels, images and redrawn [N, 1, 28, 28] -> [N]."""
    left = (images - redrawn).clamp_min(0).flatten(1).sum(dim=1)
    return left / images.flatten(1).sum(dim=1).clamp_min(1e-6)


def second_ink(images: torch.Tensor, redrawn: torch.Tensor) -> torch.Tensor:
    """The share of each image's ink that the second digit's redrawing covers and the first's
    leaves. images [N, 1, 28, 28]; redrawn [N, 2, 1, 28, 28], the two strongest digits each redrawn
    from its own capsule (``CapsNet.decode(capsules, two_strongest)``) -> [N]."""
    return uncovered(images, redrawn[:, 0]) - uncovered(images, redrawn.amax(dim=1))


def balanced_right(two: torch.Tensor, truly_two: torch.Tensor) -> float:
    """The mean of the share of single digits counted one and the share of pairs counted two."""
    return ((~two[~truly_two]).double().mean() + two[truly_two].double().mean()).item() / 2


def choose_rule(second: torch.Tensor, second_ink: torch.Tensor | None, truly_two: torch.Tensor) -> CountRule:
    """The rule that counts validation examples best (`balanced_right`; of equals, the lowest lines).

    Args:
        second: each example's second-strongest score, [N].
        second_ink: the share of its ink that only the second redrawing covers, [N]; None for a
            network that redraws nothing (the CNN): then only the second score is asked.
        truly_two: bool [N], whether the example holds two digits.
    """
    ink_lines = SECOND_INK_LINES if second_ink is not None else (None,)
    rules = [CountRule(s, k) for s in SECOND_LINES for k in ink_lines]
    return max(rules, key=lambda rule: balanced_right(rule.two(second, second_ink), truly_two))
