"""The tables `python -m capsnet.studies.pairs_measurement --show` prints from pairs.json, as
docs/pairs.md shows them: both networks on the test pairs beside the paper's figures, and how
each counts and reads other people's digits."""

from capsnet.studies.pairs_measurement_file import PAPER
from capsnet.studies.pairs_measurement_people import VALIDATION_SIZE
from capsnet.studies.statistics import in_interval, percent, points

PEOPLE_ROWS = (  # (set, measure, what the row says)
    ("mnist_pairs", "count_right", "MNIST test pairs read as two digits"),
    ("mnist_pairs", "names_absent_one", "MNIST test pairs without a 1 read with a 1"),
    ("mnist_singles", "strongest_right", "single MNIST test digits, the strongest right"),
    ("mnist_singles", "count_right", "single MNIST test digits read as one digit"),
    ("semeion_pairs", "strongest_right", "Semeion pairs (other writers), both digits right"),
    ("semeion_pairs", "count_right", "Semeion pairs read as two digits"),
    ("semeion_pairs", "names_absent_one", "Semeion pairs without a 1 read with a 1"),
    ("semeion_singles", "strongest_right", "single Semeion digits, the strongest right"),
    ("semeion_singles", "count_right", "single Semeion digits read as one digit"),
    ("written_test", "strongest_right", "written test examples (a quarter single), the strongest right"),
    ("written_test", "exactly_right", "written test examples read exactly (the count and the digits)"),
)


def rule_text(count: dict) -> str:
    """A network's count rule in words: "second ≥ 0.38, its redrawing ≥ 4% of the ink"."""
    text = f"second ≥ {count['second']:.2f}"
    return text if count["second_ink"] is None else f"{text}, its redrawing ≥ {percent(count['second_ink'])} of the ink"


def people_table(results: dict) -> str:
    """The Markdown table of how both networks count and read other people's digits."""
    people = results["people"]
    c, n = people["capsnet"], people["cnn"]
    rows = [
        "| with the count | CapsNet | CNN baseline |",
        "| --- | --- | --- |",
        f"| a second digit read where (chosen on {VALIDATION_SIZE:,} written validation examples) | "
        f"{rule_text(c['count'])} | {rule_text(n['count'])} |",
        *(
            f"| written validation examples, {what} | {percent(c['count'][key])} | {percent(n['count'][key])} |"
            for key, what in (
                ("validation_singles_counted_one", "single digits read as one"),
                ("validation_pairs_counted_two", "pairs read as two"),
            )
        ),
        *(
            f"| {what} ({people['sets'][name]:,}) | {in_interval(c[name][measure])} | {in_interval(n[name][measure])} |"
            for name, measure, what in PEOPLE_ROWS
        ),
    ]
    return "\n".join(rows) + "\n\n95% Wilson intervals. Semeion is read for evaluation only."


def table(results: dict) -> str:
    """The Markdown table of both networks on the test pairs, beside the paper's figures."""
    c, n = results["capsnet"], results["cnn"]
    rows = [
        "| | CapsNet | CNN baseline |",
        "| --- | --- | --- |",
        f"| both digits right, {results['test_pairs']:,} test pairs | **{percent(c['both_right'])}** | "
        f"**{percent(n['both_right'])}** |",
        f"| error (the paper: CapsNet {percent(PAPER['capsnet_error'])}, CNN {percent(PAPER['cnn_error'])}) | "
        f"{percent(1 - c['both_right'])} | {percent(1 - n['both_right'])} |",
        f"| at least one right | {percent(c['at_least_one_right'])} | {percent(n['at_least_one_right'])} |",
        *(
            f"| both right, ink boxes {100 * b['low']:.0f}-{100 * b['high']:.0f}% covered ({b['pairs']:,} pairs) | "
            f"{percent(cb['both_right'])} | {percent(b['both_right'])} |"
            for cb, b in zip(c["by_overlap"], n["by_overlap"], strict=True)
            if b["pairs"]
        ),
        *(
            f"| both right, the pair scaled by {b['low']:.2f}-{b['high']:.2f} into 20x20 ({b['pairs']:,} pairs) | "
            f"{percent(cb['both_right'])} | {percent(b['both_right'])} |"
            for cb, b in zip(c["by_scale"], n["by_scale"], strict=True)
            if b["pairs"]
        ),
        *(
            f"| both right, capsules routed with {row['iterations']} iteration{'s' * (row['iterations'] > 1)}"
            f"{' (as trained)' if row['iterations'] == c['routing_iterations'] else ''} | "
            f"{percent(row['both_right'])}"
            f"{'' if row['iterations'] == c['routing_iterations'] else ' ' + points(row['gain'])} | |"
            for row in c["by_routing_iterations"]
        ),
        f"| single MNIST test digits | {percent(c['mnist_single_digit_accuracy'])} | "
        f"{percent(n['mnist_single_digit_accuracy'])} |",
        f"| pairs only this network read right | {results['only_capsnet']:,} | {results['only_cnn']:,} |",
    ]
    return "\n".join(rows) + (
        f"\n\nThe CapsNet's lead: {points(results['lead'])} points (95% intervals, bootstrap over the pairs; beside "
        f"another routing, its gain over the r it trained with). The preprocessing scales a pair by "
        f"{results['scale']:.2f} on average. Mean overlap of the two digits' 28x28 frames "
        f"{percent(results['overlap']['frames'])} (the paper: {percent(PAPER['frame_overlap'])}), of their ink boxes "
        f"{percent(results['overlap']['ink_boxes'])}. Each digit redrawn from its own capsule: pixel error "
        f"{percent(c['redrawn_error'])} of its ink (the whole overlay against it: {percent(c['overlay_error'])}), "
        f"correlation {c['redrawn_correlation']:.2f} ({c['overlay_correlation']:.2f})."
    )
