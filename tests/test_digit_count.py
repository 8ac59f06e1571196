"""One digit or two (capsnet.digit_count): the ink only the second redrawing covers, the rule and
its choice on validation examples, balanced between single digits and pairs."""
import torch

from capsnet.digit_count import CountRule, balanced_right, choose_rule, second_ink, uncovered


def strokes(*columns: int) -> torch.Tensor:
    """A [1, 28, 28] image with a full-ink vertical stroke in each of ``columns``, rows 4..23."""
    image = torch.zeros(1, 28, 28)
    for column in columns:
        image[0, 4:24, column] = 1.0
    return image


def test_the_second_redrawing_counts_only_the_ink_the_first_leaves():
    pair, single = strokes(8, 18), strokes(8)
    first, second, elsewhere = strokes(8), strokes(18), strokes(3)
    redrawn = torch.stack([torch.stack([first, second]), torch.stack([first, first]), torch.stack([first, elsewhere])])
    images = torch.stack([pair, single, single])
    torch.testing.assert_close(uncovered(images, redrawn[:, 0]), torch.tensor([0.5, 0.0, 0.0]))
    # A pair: the second covers the half the first left. A single digit redrawn twice, or a second
    # digit drawn where there is no ink: nothing more is covered.
    torch.testing.assert_close(second_ink(images, redrawn), torch.tensor([0.5, 0.0, 0.0]))


def test_a_rule_reads_two_where_both_lines_are_reached():
    second, ink = torch.tensor([0.2, 0.5, 0.5, 0.7]), torch.tensor([0.3, 0.01, 0.1, 0.1])
    assert CountRule(0.4).two(second).tolist() == [False, True, True, True]
    assert CountRule(0.4, 0.05).two(second, ink).tolist() == [False, False, True, True]


def test_the_rule_is_chosen_balanced_between_single_digits_and_pairs():
    """95 pairs (15 with a short second capsule) and 5 single digits: counting everything two is 95%
    right but only 50% balanced; the rule chosen counts the single digits one."""
    truly_two = torch.arange(100) >= 5
    second = torch.where(truly_two, 0.6, 0.45)
    second[5:20] = 0.4
    always_two = CountRule(0.02).two(second)
    assert (always_two == truly_two).float().mean() == 0.95 and balanced_right(always_two, truly_two) == 0.5
    rule = choose_rule(second, None, truly_two)
    assert rule == CountRule(0.46) and balanced_right(rule.two(second), truly_two) > 0.9
