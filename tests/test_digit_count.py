"""One digit or two (capsnet.digit_count): the ink only the second redrawing covers, the rule and
its choice on validation examples, balanced between single digits and pairs."""

import torch

from capsnet.digit_count import (
    CountRule,
    Tallies,
    balanced_right,
    best_rule,
    choose_rule,
    counted,
    read_exactly,
    rule_tallies,
    second_ink,
    uncovered,
)
from harness.paths import REPO


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
    scores = torch.zeros(100, 10)
    scores[:, 0], scores[:, 1] = 0.9, second  # the strongest digit 0, the second 1
    labels = torch.stack([torch.zeros(100, dtype=torch.long), truly_two.long()], dim=1)  # (0, 0) or (0, 1)
    rule = choose_rule(scores, None, labels)
    assert rule == CountRule(0.46) and balanced_right(rule.two(second), truly_two) > 0.9


def test_read_exactly_asks_the_count_and_every_digit_named():
    read = torch.tensor([[3, 5], [3, 5], [3, 5], [3, 5], [3, 5]])
    two = torch.tensor([True, False, False, True, True])
    labels = torch.tensor([[5, 3], [3, 3], [5, 3], [3, 3], [3, 7]])
    # a pair read as both its digits; a 3 read as one 3; a pair read as one digit; a 3 read as two; one digit wrong
    assert read_exactly(read, two, labels).tolist() == [True, True, False, False, False]


def test_tallies_of_two_shares_choose_the_rule_and_read_exactly_as_the_whole_set_does():
    """train.py's processes each tally their share of the validation examples; the sums choose."""
    torch.manual_seed(0)
    scores, ink = torch.rand(300, 10), torch.rand(300) * 0.3
    first = torch.randint(0, 10, (300,))
    labels = torch.stack([first, torch.where(torch.rand(300) < 0.25, first, (first + 3) % 10)], dim=1)
    whole = rule_tallies(scores, ink, labels).as_table()
    halves = (
        rule_tallies(scores[:150], ink[:150], labels[:150]).as_table()
        + rule_tallies(scores[150:], ink[150:], labels[150:]).as_table()
    )
    assert torch.equal(whole, halves)
    rule, chosen = best_rule(Tallies.of_table(halves), redraws=True)
    assert rule == choose_rule(scores, ink, labels) and rule.second_ink is not None
    read, two = counted(scores, rule, ink)
    truly_two = labels[:, 0] != labels[:, 1]
    assert chosen.read_exactly == read_exactly(read, two, labels).sum() and chosen.examples == 300
    assert chosen.singles_counted_one == (~two & ~truly_two).sum() and chosen.pairs == truly_two.sum()


def test_the_two_strongest_digits_are_asked_for_in_top_two_alone():
    """`top_two` is the one place that writes out topk(2), so that the two digits read are one
    definition, not copies that drift."""
    sources = [*(REPO / "capsnet").rglob("*.py"), *(REPO / "playground").glob("*.py"), REPO / "app.py"]
    written_out = {str(path.relative_to(REPO)): path.read_text(encoding="utf-8").count(".topk(2") for path in sources}
    assert {path: count for path, count in written_out.items() if count} == {
        "capsnet/digit_count.py": 1,  # top_two itself
    }
