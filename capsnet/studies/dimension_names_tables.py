"""The tables `python -m capsnet.studies.dimension_names --show` prints from dimensions.json, as
docs/dimensions.md shows them: each digit's names with how often each held, and how many names of
each range are of each kind."""

from collections import Counter

from capsnet.dimensions import PAPER_RANGE
from capsnet.studies.dimension_names_claims import KINDS, SAYS_NOTHING, VARIES
from capsnet.studies.dimension_names_file import DimensionNames


def names_table(names: DimensionNames, digits: list[int]) -> str:
    """A Markdown table: for each digit, its 16 names over the paper's range, the largest effect
    first, each with how often it held on the held-out digits where that was not always."""
    lines = [
        f"| digit | over ±{PAPER_RANGE:g}, largest effect first (→ left out); (n): held on n% of the held-out "
        "digits, else all or no claim |",
        "| --- | --- |",
    ]
    for digit in digits:
        cells = []
        for d in names.by_effect(digit):
            name = names.paper[digit][d]
            held = "" if name.held is None or name.held == 1 else f" ({100 * name.held:.0f})"
            cells.append(f"d{d + 1} {name.name.removesuffix(' →')}{held}")
        lines.append(f"| {digit} | {'; '.join(cells)} |")
    return "\n".join(lines)


def kinds_table(names: DimensionNames) -> str:
    """A Markdown table: how many of each range's names are of each kind, and how many say only
    that the digit changes."""
    scales = {f"±{PAPER_RANGE:g}": names.paper, f"±{names.spread_range:g} sd": names.spread}
    counts = {label: Counter(name.kind for row in rows for name in row) for label, rows in scales.items()}
    lines = [
        "| range | " + " | ".join(KINDS) + " | say only that it changes | lowest held |",
        "| --- |" + " --- |" * (len(KINDS) + 2),
    ]
    for label, rows in scales.items():
        rates = [name.held for row in rows for name in row if name.kind != VARIES.kind and name.held is not None]
        silent = sum(counts[label][kind] for kind in SAYS_NOTHING)
        kinds = " | ".join(str(counts[label][kind]) for kind in KINDS)
        lines.append(f"| {label} | {kinds} | {silent} | {min(rates):.2f} |")
    return "\n".join(lines)
