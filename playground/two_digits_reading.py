"""The reading of one digit or two drawn over each other: both pairs networks on the overlay, the
CapsNet's digits each redrawn from its own capsule (the paper's section 6, Figure 5), and the digits
each network reads, its strongest and a second one where its count rule reads two
(`capsnet.digit_count`: the second-strongest score, and for the CapsNet the ink only the second
capsule's redrawing covers, against the lines pairs.json chose on validation examples).

The page makes a drawing 28x28 (playground/page/two_digits_reading.js `pairFields`, the step the
training examples went through: `overlaid_inks_to_mnist`) and sends it where its own networks cannot
read it (`read_fields`, playground/answers.py); /predict_pair's image goes through
`overlaid_inks_to_mnist` here (`read`). Drawings read at the same moment go through the networks as
one batch (`batches.Batched`).
"""

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from capsnet.baseline import BaselineCNN
from capsnet.data.pairs import scores
from capsnet.data.preprocess import overlaid_inks_to_mnist
from capsnet.digit_count import CountRule, counted, second_ink, top_two
from capsnet.model import CapsNet
from playground import batches, serving
from playground.networks import Measurement, PairNetworks

log = logging.getLogger("playground")

UNMEASURED_THRESHOLD = 0.5  # without pairs.json's count: halfway between the margin loss's m+ and m- (eq. 4)


@dataclass(frozen=True, eq=False)
class PairReading:
    """What the two pairs networks made of one drawing, kept per user (gr.State)."""

    image: np.ndarray  # the networks' input, [28, 28] in [0, 1]
    layers: np.ndarray  # each pen's ink moved and scaled as the input, [2, 28, 28]
    capsules: torch.Tensor  # the pairs CapsNet's v_j, [10, 16]
    lengths: np.ndarray  # [10]
    read: tuple[int, ...]  # the digits it read: its longest capsule, and the second where the rule reads two
    second: int  # its second-longest capsule, read or not
    second_ink: float  # the share of the ink only that capsule's redrawing covers (`capsnet.digit_count`)
    redrawn: np.ndarray  # each digit read redrawn from its own capsule alone, [1 or 2, 28, 28]
    probabilities: np.ndarray  # the pairs CNN's ten sigmoids, [10]
    cnn_read: tuple[int, ...]  # the digits it read, the more probable first


@dataclass(frozen=True, eq=False)
class NetworksOutput:
    """Both pairs networks' outputs for one image."""

    capsules: torch.Tensor  # the CapsNet's v_j, [10, 16]
    lengths: torch.Tensor  # [10]
    both: torch.Tensor  # its two longest capsules, each redrawn alone, [2, 1, 28, 28]
    second_ink: torch.Tensor  # [], `capsnet.digit_count.second_ink`
    probabilities: torch.Tensor  # the CNN's ten sigmoids, [10]


@dataclass(eq=False)
class PairReader:
    """The pairs CapsNet and the pairs CNN reading drawings of one digit or two, each network
    counting with its rule."""

    capsnet: CapsNet
    cnn: BaselineCNN
    rule: CountRule  # where the CapsNet reads a second digit
    cnn_rule: CountRule  # where the CNN does
    _run_together: batches.Batched = field(init=False, repr=False)  # `_run` of the drawings read at once

    def __post_init__(self):
        self._run_together = batches.Batched(self._run)

    @classmethod
    def of(cls, pairs: PairNetworks) -> "PairReader":
        """The reader of loaded pairs networks, counting as pairs.json chose for them (`measured_rules`)."""
        rules = measured_rules(pairs.measurement)
        return cls(pairs.capsnet, pairs.cnn, *(rules or (CountRule(UNMEASURED_THRESHOLD),) * 2))

    def read(self, inks: np.ndarray) -> PairReading | None:
        """Both networks on two pens' ink [2, H, W] (any scale) drawn over each other: the overlay
        made 28x28 as the training pairs were, one digit read or two (`counted` with each
        network's rule), each digit read redrawn from its own capsule; None for too little ink."""
        fields = overlaid_inks_to_mnist(inks)  # [3, 28, 28]: overlay, pen 1, pen 2
        return None if fields is None else self.read_fields(fields)

    def read_fields(self, fields: np.ndarray) -> PairReading:
        """Both networks on the 28x28 input fields[0] whose pens' ink is fields[1:] ([3, 28, 28]);
        the networks run in one batch with whatever other drawings are read at the same moment."""
        out = self._run_together(fields[0])
        strongest, two = counted(out.lengths[None], self.rule, out.second_ink[None])  # [1, 2], [1]
        read = strongest[0, : 1 + int(two)]  # [1 or 2]
        cnn_strongest, cnn_two = counted(out.probabilities[None], self.cnn_rule)
        return PairReading(
            fields[0],
            fields[1:],
            out.capsules,
            out.lengths.numpy(),
            tuple(read.tolist()),
            int(strongest[0, 1]),
            float(out.second_ink),
            out.both[: len(read), 0].numpy(),
            out.probabilities.numpy(),
            tuple(cnn_strongest[0, : 1 + int(cnn_two)].tolist()),
        )

    def _run(self, images: Sequence[np.ndarray]) -> list[NetworksOutput]:
        """Both networks on each 28x28 image, as one batch."""
        batch = torch.from_numpy(np.stack(images))[:, None]  # [N, 1, 28, 28]
        with torch.inference_mode():
            (capsules, lengths), cnn = self.capsnet.capsules(batch), self.cnn(batch)
            both = self.capsnet.decode(capsules, top_two(lengths))  # [N, 2, 1, 28, 28]: each capsule alone
            ink, probabilities = second_ink(batch, both), scores(cnn)  # [N], [N, 10]
        parts = (capsules, lengths, both, ink, probabilities)
        return [NetworksOutput(*each) for each in zip(*parts, strict=True)]

    def redraw(self, reading: PairReading, digit: int) -> np.ndarray:
        """Capsule ``digit`` of the reading redrawn alone, [28, 28]."""
        with serving.network_slot(), torch.inference_mode():
            return self.capsnet.decode(reading.capsules[None], torch.tensor([digit]))[0, 0].numpy()


def measured_rules(measurement: Measurement) -> tuple[CountRule, CountRule] | None:
    """Each network's count rule as pairs.json chose it; None where it holds none for these
    networks (the reader then counts with UNMEASURED_THRESHOLD, and says so in the log)."""
    if measurement.results is None:
        log.warning(
            "The Two-digits section counts from %s: no count rule was measured for these weights", UNMEASURED_THRESHOLD
        )
        return None
    return measurement.results.rule, measurement.results.cnn_rule
