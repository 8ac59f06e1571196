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
digits would otherwise pull the lines towards reading two. An example is read exactly where the
count is right and the digits named are its digits (`read_exactly`): what the page shows. The
choice works from sums over the examples (`rule_tallies`), so that the sums of several shares of
the examples (train.py's processes) choose as the whole set would.
"""

from collections.abc import Iterable
from dataclasses import dataclass, fields

import torch

from capsnet.model import CapsNetOutput

SECOND_LINES = tuple(round(0.02 * k, 2) for k in range(1, 50))  # tried for the second score
SECOND_INK_LINES = (None, *(round(0.01 * k, 2) for k in range(1, 31)))  # tried for the second redrawing's ink
PRECISION = torch.float32  # what a rule compares scores, ink shares and its lines in: the networks' own


@dataclass(frozen=True)
class CountRule:
    """Where a network reads a second digit."""

    second: float  # the second-strongest score reaches this ...
    second_ink: float | None = None  # ... and the second redrawing covers this share of the ink the first leaves

    @classmethod
    def from_record(cls, count: dict) -> "CountRule":
        """The rule a measurement recorded (pairs.json's ``count`` of a network: second, second_ink)."""
        return cls(float(count["second"]), None if count["second_ink"] is None else float(count["second_ink"]))

    def two(self, second: torch.Tensor, second_ink: torch.Tensor | None = None) -> torch.Tensor:
        """Whether each image holds two digits, bool [N], from its second-strongest score [N] and
        the share of its ink that only the second redrawing covers [N] (needed where the rule asks),
        each compared with its line `as_compared`."""
        two = second.to(PRECISION) >= as_compared(self.second)
        if self.second_ink is not None:
            two &= second_ink.to(PRECISION) >= as_compared(self.second_ink)
        return two


def as_compared(value: float) -> float:
    """A score, an ink share or a line as a rule compares it, in PRECISION: a line of 0.02 is
    0.019999999552965164, which a score of float32's 0.02 reaches. What describes a reading compares
    and writes these numbers too, so that it says what was counted."""
    return torch.tensor(value, dtype=PRECISION).item()


def top_two(scores: torch.Tensor) -> torch.Tensor:
    """The two digits read in each image, the stronger first, [..., 2] from scores [..., 10] (the
    paper: the two longest capsules)."""
    return scores.topk(2, dim=-1).indices


def strongest_two(scores: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The two strongest digits of each image [N, 2] (`top_two`) and the second one's score [N]."""
    read = top_two(scores)
    return read, scores.gather(1, read[:, 1:]).squeeze(1)


def counted(
    scores: torch.Tensor, rule: CountRule, ink: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The digits a network names in each image: its strongest, and its second-strongest where
    ``rule`` reads two (from that score [N, 10] and ``ink``, the share only its redrawing covers [N]).
    Returns the two strongest [N, 2] (the paper: the two longest capsules) and whether both are named [N]."""
    read, second = strongest_two(scores)
    return read, rule.two(second, ink)


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


def names_absent(read: torch.Tensor, two: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Whether a digit is named that the image does not hold, bool [N]: ``read`` the two strongest
    [N, 2], both named where ``two`` [N], else the strongest alone; labels [N, 2], (d, d) for one d."""
    named = torch.where(two.unsqueeze(1), read, read[:, :1])  # the one digit named twice
    return (named.unsqueeze(2) != labels.unsqueeze(1)).all(dim=2).any(dim=1)


def read_exactly(read: torch.Tensor, two: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Whether the count is right and the digits named are the image's, bool [N] (``read``, ``two``
    and ``labels`` as `names_absent`'s)."""
    return ~names_absent(read, two, labels) & (two == (labels[:, 0] != labels[:, 1]))


def rules_tried(redraws: bool) -> list[CountRule]:
    """Every rule `choose_rule` weighs: each second line, and each ink line for a network that
    redraws its digits (the CapsNet)."""
    return [CountRule(s, k) for s in SECOND_LINES for k in (SECOND_INK_LINES if redraws else (None,))]


@dataclass(frozen=True)
class Tallies:
    """Sums over a set of examples for each rule of `rules_tried`, float64 [R] each (one rule's,
    ``tallies[r]``: float64 [] each). The tables (`as_table`) of several sets added are the table of
    the sets together."""

    singles_counted_one: torch.Tensor  # single digits counted one
    pairs_counted_two: torch.Tensor  # pairs counted two
    read_exactly: torch.Tensor  # examples read exactly: the count and the digits
    singles: torch.Tensor  # single digits
    pairs: torch.Tensor  # pairs

    @classmethod
    def of_table(cls, table: torch.Tensor) -> "Tallies":
        """The tallies of a table [..., 5] whose columns are the fields, in order (`as_table`)."""
        return cls(*table.unbind(-1))

    def as_table(self) -> torch.Tensor:
        """The tallies as one table, float64 [R, 5] (one rule's: [5]), a column for each field, in order."""
        return torch.stack([getattr(self, f.name) for f in fields(self)], dim=-1)

    def __getitem__(self, rule: int) -> "Tallies":
        """The tallies of the rule at place ``rule`` of `rules_tried`."""
        return Tallies.of_table(self.as_table()[rule])

    @property
    def examples(self) -> torch.Tensor:
        return self.singles + self.pairs


def rule_tallies(scores: torch.Tensor, ink: torch.Tensor | None, labels: torch.Tensor) -> Tallies:
    """For each rule of `rules_tried`, sums over the examples (`Tallies`). Sums of several sets'
    tallies are the tallies of the sets together.

    Args:
        scores: each example's scores [N, 10]; ink: the share of its ink that only the second
            redrawing covers [N] (`second_ink`), None for a network that redraws nothing.
        labels: [N, 2], (d, d) for one digit d.
    """
    read, second = strongest_two(scores)  # [N, 2], [N]
    two = torch.stack([rule.two(second, ink) for rule in rules_tried(ink is not None)])  # [R, N]
    exactly = torch.stack([read_exactly(read, each, labels) for each in two])  # [R, N]
    single = (labels[:, 0] == labels[:, 1]).expand_as(two)  # [R, N]
    return Tallies(
        singles_counted_one=tally(~two & single),
        pairs_counted_two=tally(two & ~single),
        read_exactly=tally(exactly),
        singles=tally(single),
        pairs=tally(~single),
    )


def tally(hits: torch.Tensor) -> torch.Tensor:
    """How many of each row of ``hits`` (bool [R, N]) are true, float64 [R]."""
    return hits.sum(dim=1, dtype=torch.float64)


def best_rule(tallies: Tallies, redraws: bool) -> tuple[CountRule, Tallies]:
    """The rule whose `rule_tallies` count the examples best (balanced: the mean of the share of
    single digits counted one and the share of pairs counted two; of equals, the lowest lines),
    and its tallies."""
    singles, pairs = tallies.singles.clamp_min(1), tallies.pairs.clamp_min(1)  # a set of one kind: its share alone
    balanced = (tallies.singles_counted_one / singles + tallies.pairs_counted_two / pairs) / 2
    best = int(balanced.argmax())  # argmax: the first of equals
    return rules_tried(redraws)[best], tallies[best]


def choose_rule(scores: torch.Tensor, ink: torch.Tensor | None, labels: torch.Tensor) -> CountRule:
    """The rule that counts validation examples best (`best_rule`), from their scores [N, 10],
    ``ink`` (`second_ink`, [N]; None for a network that redraws nothing: then only the second score
    is asked) and labels [N, 2] ((d, d) for one digit d)."""
    return best_rule(rule_tallies(scores, ink, labels), ink is not None)[0]


@torch.inference_mode()
def count_readings(model, batches: Iterable[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor | None]:
    """What a network counts digits by, for each image of ``batches`` ([b, 1, 28, 28] each, where
    the network is): its scores [N, 10] (a CapsNet's capsule lengths, the CNN's ten sigmoids, as
    `capsnet.data.pairs.scores`) and, for a CapsNet, the share of the ink that only its
    second-strongest capsule's redrawing covers [N] (`second_ink`; None for the CNN, which redraws
    nothing)."""
    all_scores, inks = [], []
    for batch in batches:
        out = model(batch)
        if isinstance(out, CapsNetOutput):
            all_scores.append(out.lengths)
            inks.append(second_ink(batch, model.decode(out.capsules, top_two(out.lengths))))
        else:
            all_scores.append(torch.sigmoid(out.logits))
    return torch.cat(all_scores), torch.cat(inks) if inks else None
