"""Two overlapping digits (the paper's MultiMNIST, section 6), made on the fly from MNIST digits.

The paper overlays a digit on another of a different class, each moved by up to 4 pixels in each
direction in a 36x36 image (28 plus the shifts). Here each pair is laid out the same way, in a
36x36 field, with the brighter pixel winning where the two digits' ink meets (what a pen drawn
over another gives; the paper does not say how it combines them). The 36x36 overlay then goes
through the playground's own preprocessing (`overlaid_inks_to_mnist`: crop to the ink, fit into
20x20, centre of mass at the centre of 28x28), so that the network keeps its 28x28 input and its
cost, and a pair drawn on the page reaches it exactly as the training pairs did. Each digit is
moved and scaled as the overlay is, so that each capsule can be asked to redraw its own digit
alone (the paper's reconstruction target for MultiMNIST). The choices and what they give: docs/pairs.md.
"""

from dataclasses import dataclass

import numpy as np
import torch

from capsnet.data.preprocess import BOX, INK_THRESHOLD, crop_to_ink, overlaid_inks_to_mnist
from capsnet.digit_count import top_two

MAX_SHIFT = 4  # each digit moved by up to 4 pixels in each direction ...
PAIR_FIELD = 28 + 2 * MAX_SHIFT  # ... inside a 36x36 field, as the paper's MultiMNIST
TEST_SEED = 0  # the test pairs are the same for every network and every run


@dataclass(frozen=True)
class Pairs:
    """Which two digits of a set make each pair, and where each is moved.

    first, second: indices into the set's images, [N] each, of digits of different classes.
    shifts: int64 [N, 2, 2], (down, right) in -4..4 of the first and of the second digit.
    """

    first: torch.Tensor
    second: torch.Tensor
    shifts: torch.Tensor

    def __len__(self) -> int:
        return len(self.first)

    def __getitem__(self, chosen: torch.Tensor) -> "Pairs":
        """The pairs at the indices ``chosen``."""
        return Pairs(self.first[chosen], self.second[chosen], self.shifts[chosen])

    def labels(self, digit_labels: torch.Tensor) -> torch.Tensor:
        """The two classes of each pair, [N, 2]: the first digit's, then the second's."""
        return torch.stack([digit_labels[self.first], digit_labels[self.second]], dim=1)


def draw_pairs(labels: torch.Tensor, first: torch.Tensor, generator: torch.Generator) -> Pairs:
    """A pair for each digit of ``first``: a partner drawn uniformly from the digits of ``labels``
    of another class, and both digits' shifts, uniform in -4..4 each.

    Args:
        labels: the classes of the set's digits, int64 [M].
        first: indices into the set of the digits that come first, int64 [N].
        generator: all that is random is drawn from it (the same seed, the same pairs).
    """
    second = torch.randint(len(labels), (len(first),), generator=generator)
    while (same := labels[second] == labels[first]).any():  # redraw a partner of the same class
        second[same] = torch.randint(len(labels), (int(same.sum()),), generator=generator)
    shifts = torch.randint(-MAX_SHIFT, MAX_SHIFT + 1, (len(first), 2, 2), generator=generator)
    return Pairs(first, second, shifts)


def fixed_pairs(
    images: torch.Tensor,
    labels: torch.Tensor,
    seed: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, Pairs]:
    """One pair for each digit of a set, that digit first, fixed by ``seed`` (the validation pairs
    from the held-out training digits, the test pairs from MNIST's test digits with TEST_SEED).

    Returns:
        inputs [N, 1, 28, 28], each digit alone [N, 2, 1, 28, 28], the two classes [N, 2], and
        the pairs themselves.
    """
    pairs = draw_pairs(labels, torch.arange(len(labels)), torch.Generator().manual_seed(seed))
    inputs, digits = render(images, pairs)
    return inputs, digits, pairs.labels(labels), pairs


def placed(digit: np.ndarray, shift: torch.Tensor) -> np.ndarray:
    """A 28x28 digit in the 36x36 field, moved by (down, right) from its centre."""
    field = np.zeros((PAIR_FIELD, PAIR_FIELD), dtype=np.float32)
    top, left = MAX_SHIFT + int(shift[0]), MAX_SHIFT + int(shift[1])
    field[top : top + digit.shape[0], left : left + digit.shape[1]] = digit
    return field


def render(images: torch.Tensor, pairs: Pairs) -> tuple[torch.Tensor, torch.Tensor]:
    """The network's input for each pair and each digit of it alone, in the input's frame.

    Args:
        images: the set's digits, uint8 [M, 28, 28] (MNIST's ``data``).
        pairs: which of them to pair, and how.

    Returns:
        inputs: float32 [N, 1, 28, 28], the overlay through the playground's preprocessing;
        digits: float32 [N, 2, 1, 28, 28], the first and the second digit alone, moved and scaled
        as the overlay was.
    """
    firsts = images[pairs.first].numpy().astype(np.float32) / 255  # [N, 28, 28]
    seconds = images[pairs.second].numpy().astype(np.float32) / 255
    fields = np.empty((len(pairs), 3, 28, 28), dtype=np.float32)
    for n, (a, b, shift) in enumerate(zip(firsts, seconds, pairs.shifts, strict=True)):
        fields[n] = overlaid_inks_to_mnist(np.stack([placed(a, shift[0]), placed(b, shift[1])]))
    fields = torch.from_numpy(fields)
    return fields[:, :1], fields[:, 1:].unsqueeze(2)


class RenderedBatches(torch.utils.data.Dataset):
    """Batches of pairs, each rendered when it is asked for: a DataLoader's worker processes render
    them while the network trains on the one before (on a GPU, which outruns one CPU core's
    rendering); in the main process otherwise.

    Item k: (inputs [b, 1, 28, 28], the two classes [b, 2], each digit alone [b, 2, 1, 28, 28]) of
    the pairs at ``order[k]`` (as `render`).
    """

    def __init__(self, images: torch.Tensor, labels: torch.Tensor, pairs: Pairs, order: list[torch.Tensor]):
        self.images, self.labels, self.pairs, self.order = images, labels, pairs, order

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, k: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        chosen = self.pairs[self.order[k]]
        inputs, digits = render(self.images, chosen)
        return inputs, chosen.labels(self.labels), digits


def box_overlap(images: torch.Tensor, pairs: Pairs) -> tuple[np.ndarray, np.ndarray]:
    """How much the two digits' bounding boxes overlap in the 36x36 field, per pair: the share of
    each box that the other covers, averaged over the two, and intersection over union."""
    strong = images.numpy() >= INK_THRESHOLD * 255  # [M, 28, 28]
    rows, columns = strong.any(axis=2), strong.any(axis=1)  # [M, 28] each

    def box(index: torch.Tensor, shift: torch.Tensor) -> np.ndarray:  # [N, 4]: top, bottom, left, right
        r, c = rows[index.numpy()], columns[index.numpy()]
        top, bottom = r.argmax(axis=1), 27 - r[:, ::-1].argmax(axis=1)
        left, right = c.argmax(axis=1), 27 - c[:, ::-1].argmax(axis=1)
        down, across = shift[:, 0].numpy(), shift[:, 1].numpy()
        return np.stack([top + down, bottom + down + 1, left + across, right + across + 1], axis=1)

    a, b = box(pairs.first, pairs.shifts[:, 0]), box(pairs.second, pairs.shifts[:, 1])
    height = np.clip(np.minimum(a[:, 1], b[:, 1]) - np.maximum(a[:, 0], b[:, 0]), 0, None)
    width = np.clip(np.minimum(a[:, 3], b[:, 3]) - np.maximum(a[:, 2], b[:, 2]), 0, None)
    intersection = height * width
    area_a = (a[:, 1] - a[:, 0]) * (a[:, 3] - a[:, 2])
    area_b = (b[:, 1] - b[:, 0]) * (b[:, 3] - b[:, 2])
    covered = (intersection / area_a + intersection / area_b) / 2
    return covered, intersection / (area_a + area_b - intersection)


def frame_overlap(pairs: Pairs) -> np.ndarray:
    """How much the two digits' 28x28 frames overlap, per pair (what the paper's "80% overlap"
    measures: (28 - |rows apart|) (28 - |columns apart|) / 28^2)."""
    apart = (pairs.shifts[:, 0] - pairs.shifts[:, 1]).abs().numpy()  # [N, 2]
    return ((28 - apart[:, 0]) * (28 - apart[:, 1])) / 28**2


def scale(images: torch.Tensor, pairs: Pairs) -> np.ndarray:
    """How much the playground's preprocessing scales each pair: BOX over the longer side of the
    overlay's ink box in the 36x36 field, cropped by `crop_to_ink` as `overlaid_inks_to_mnist`
    crops it. Below 1, each digit of the pair comes out smaller than an MNIST digit, which fills
    BOX on its own."""
    scales = np.empty(len(pairs))
    firsts, seconds = images[pairs.first].numpy(), images[pairs.second].numpy()
    for n, (a, b, shift) in enumerate(zip(firsts, seconds, pairs.shifts, strict=True)):
        overlay = np.maximum(placed(a / 255, shift[0]), placed(b / 255, shift[1]))  # [36, 36]
        scales[n] = BOX / max(crop_to_ink((overlay / overlay.max())[None]).shape[1:])
    return scales


def scores(output) -> torch.Tensor:
    """How present each digit is, [B, 10]: a CapsNet's capsule lengths, or the multi-label CNN's
    ten sigmoids (independent probabilities, not a softmax)."""
    return output.lengths if hasattr(output, "lengths") else torch.sigmoid(output.logits)


def both_right(read: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Whether the two digits read are the pair's two classes, in either order, bool [B]."""
    return (read.sort(dim=1).values == labels.sort(dim=1).values).all(dim=1)


def pair_right(output, labels: torch.Tensor) -> torch.Tensor:
    """Whether a network's output reads both digits of each pair, bool [B]."""
    return both_right(top_two(scores(output)), labels)


def strongest_right(scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Whether the strongest digits of ``scores`` [B, 10], as many as each example holds, are its
    digits, bool [B]: the strongest for a single digit d (labels (d, d), `capsnet.data.written`), the
    two strongest for a pair (then the same as `pair_right`). How many there are is not asked."""
    read = top_two(scores)
    single = labels[:, 0] == labels[:, 1]
    return torch.where(single, read[:, 0] == labels[:, 0], both_right(read, labels))


def digits_right(output, labels: torch.Tensor) -> torch.Tensor:
    """`strongest_right` of a network's output."""
    return strongest_right(scores(output), labels)
