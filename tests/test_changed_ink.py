"""The pairs networks under changed ink (capsnet.studies.changed_ink): each change does what it says,
the digits are made MNIST-style again, and the table reads the results in the changes' order."""

import pytest
import torch

from capsnet.data.preprocess import INK_THRESHOLD
from capsnet.studies.changed_ink import CHANGES, changed_digits, measure, squared, table
from capsnet.studies.statistics import to_json
from tests.support.shapes import bar


def box(image: torch.Tensor) -> tuple[int, int]:
    """The height and width of an image's ink box."""
    strong = image >= INK_THRESHOLD * image.max()
    return int(strong.any(dim=1).sum()), int(strong.any(dim=0).sum())


def test_squared_digits_are_as_wide_as_they_are_tall_about_their_box():
    tall, wide = squared(torch.stack([bar(18, 4), bar(6, 14)]))
    height, width = box(tall)
    assert height == 20 and abs(width - 20) <= 1  # the rim counts: 18 + 2 tall
    height, width = box(wide)
    assert height == 8 and abs(width - 8) <= 1
    assert abs(tall.sum(dim=0).nonzero().float().mean() - 13.5) < 1  # still about the box's centre


def test_changed_digits_are_made_mnist_style_again(mnist_test):
    images = mnist_test.data[:20]
    for name, (change, _) in CHANGES.items():
        made = changed_digits(images, change)
        assert made.dtype == torch.uint8 and made.shape == (20, 28, 28), name
        sides = [max(box(digit.float())) for digit in made]
        assert min(sides) >= 19 and max(sides) <= 21, (name, sides)  # fitted into 20x20 again
    hard = changed_digits(images, CHANGES["hard-edged"][0])
    as_written = changed_digits(images, CHANGES["as written"][0])

    def grey(digits):
        return ((digits > 25) & (digits < 230)).float().mean()

    assert grey(hard) < 0.5 * grey(as_written)  # hard edges: little half-tone left


@pytest.mark.slow
def test_the_measurement_reads_both_networks_on_the_same_changed_pairs(mnist_test):
    from capsnet.shipping.pretrained import load_pair_networks

    capsnet, cnn = load_pair_networks("weights/pairs", "weights/pairs-cnn")
    results = measure({"capsnet": capsnet, "cnn": cnn}, mnist_test.data[:60], mnist_test.targets[:60])
    assert list(results) == list(CHANGES)
    for row in results.values():
        for network in ("capsnet", "cnn"):
            low, high = row[network]["pairs_both_right"]["low"], row[network]["pairs_both_right"]["high"]
            assert 0 <= low <= row[network]["pairs_both_right"]["share"] <= high <= 1
        difference = row["capsnet"]["pairs_both_right"]["share"] - row["cnn"]["pairs_both_right"]["share"]
        assert row["lead"]["difference"] == pytest.approx(difference, abs=1.5e-4)  # each share rounded to 4 places
    assert results["as written"]["capsnet"]["singles_right"]["share"] > 0.9
    shown = table({"changes": {name: results[name] for name in reversed(list(results))}})
    assert [line.split(" |")[0][2:] for line in shown.splitlines()[2:]] == list(CHANGES)
    assert to_json({"changes": results})
