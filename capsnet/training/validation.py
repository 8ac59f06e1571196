"""What chooses a run's epoch: the moving average read on the held-out images after each epoch,
over every process's share of them. MNIST's digits and the paper's pairs are read right or not;
written examples (one digit or two, as people write them) are read exactly or not, as the page
shows them: the count and the digits, counting with the rule chosen on these same examples
(`capsnet.digit_count`, as capsnet.studies.pairs_measurement chooses it)."""

import dataclasses
from dataclasses import dataclass

import torch
from torch.utils.data import DataLoader

from capsnet.data.pairs import strongest_right
from capsnet.digit_count import CountRule, Tallies, best_rule, count_readings, rule_tallies
from capsnet.shipping.evaluate import correct_and_total
from capsnet.training.processes import Processes


@dataclass(frozen=True)
class ValidationRead:
    """An epoch's moving average on the held-out images."""

    accuracy: float  # read right: a digit; a pair both right; a written example, its strongest digits
    read_exactly: float | None = None  # written examples: the count and the digits right, counting with count_rule
    count_rule: CountRule | None = None  # the rule that counts these examples best

    @property
    def figure(self) -> float:
        """What the epoch is chosen on: read exactly where the examples are counted, else read right."""
        return self.accuracy if self.read_exactly is None else self.read_exactly

    def in_words(self) -> str:
        """The figure as train.py prints it: "validation accuracy 98.1000%"."""
        if self.read_exactly is None:
            return f"validation accuracy {self.accuracy:.4%}"
        return f"validation examples read exactly {self.read_exactly:.4%} (strongest right {self.accuracy:.4%})"

    def as_history(self) -> dict:
        """The keys of an epoch in metrics.json's history: val_accuracy, and where counted,
        val_read_exactly and val_count_rule."""
        if self.read_exactly is None:
            return {"val_accuracy": self.accuracy}
        return {
            "val_accuracy": self.accuracy,
            "val_read_exactly": self.read_exactly,
            "val_count_rule": dataclasses.asdict(self.count_rule),
        }


def validation_read(
    model: torch.nn.Module, loader: DataLoader, counted: bool, right, processes: Processes, device: torch.device
) -> ValidationRead:
    """``model`` on this process's share ``loader`` of the held-out images, summed over every
    process: each read right (``right``: what that means), or, ``counted`` (written examples,
    labels (d, d) for one digit d), read exactly with the count rule chosen on them all."""
    if not counted:
        correct, total = processes.sum(*correct_and_total(model, loader, device, right), device=device)
        return ValidationRead(correct / total)
    model.eval()
    labels = []

    def inputs():
        for images, batch_labels in loader:
            labels.append(batch_labels)  # [b, 2]
            yield images.to(device, non_blocking=True)  # [b, 1, 28, 28]

    scores, ink = count_readings(model, inputs())
    scores, ink, labels = scores.cpu(), None if ink is None else ink.cpu(), torch.cat(labels)
    table = rule_tallies(scores, ink, labels).as_table()  # [R, 5]: summed over the processes below
    strongest = strongest_right(scores, labels).sum().item()
    *summed, strongest = processes.sum(*table.flatten().tolist(), strongest, device=device)
    tallies = Tallies.of_table(torch.tensor(summed, dtype=torch.float64).view_as(table))
    rule, chosen = best_rule(tallies, ink is not None)
    examples = chosen.examples.item()
    return ValidationRead(strongest / examples, chosen.read_exactly.item() / examples, rule)
