"""The model card's text (capsnet/shipping/model_card.py writes it), section by section: the
network and the paper, its results (MNIST's test set, Semeion's, the test pairs), how it was trained
and how its epoch was chosen (from the run's record, metrics.json), what it misreads, and how to use
and load it."""

from collections import Counter

from capsnet.shipping.metrics_file import RunRecord

PAPER = "https://arxiv.org/abs/1710.09829"
NAMES = {
    "capsnet": "CapsNet (Sabour, Frosst & Hinton 2017) on MNIST",
    "cnn": "The CNN baseline of Sabour, Frosst & Hinton 2017 on MNIST",
}
PAIR_NAMES = {
    "capsnet": "CapsNet (Sabour, Frosst & Hinton 2017) on two overlapping MNIST digits",
    "cnn": "The CNN baseline of Sabour, Frosst & Hinton 2017 on two overlapping MNIST digits",
}
PAIRS_ABOUT = (
    "Trained on two overlapping digits of different classes (the paper's MultiMNIST, section 6, made on the fly "
    "by `capsnet/data/pairs.py`): each digit moved by up to 4 pixels in a 36x36 field, the brighter pixel winning "
    "where they meet, then the playground's preprocessing into 28x28 (crop to the ink, fit into 20x20, centre "
    "of mass at the centre). It reads the two digits as its two strongest outputs{how}."
)
WRITTEN_ABOUT = (
    "Trained last on examples as people write them (`capsnet/data/written.py`, made on the fly): {singles} of them "
    "one digit, the rest two of different classes laid over each other as in the paper's MultiMNIST (section 6), "
    "each digit turned, slanted, scaled and stretched, in MNIST's ink thinned or thickened or redrawn from its "
    "skeleton with a pen 1 to 4 pixels wide, some in other writers' ink (stretched to fill a square box, drawn "
    "coarse and enlarged, hard-edged), then the playground's preprocessing into 28x28. It reads the digits as its "
    "strongest outputs{how}; whether one digit or two is there, by a rule chosen on validation examples "
    "(`capsnet.digit_count`: its second-strongest output, and for the CapsNet the ink only that capsule's "
    "redrawing covers; `pairs.json` beside the CapsNet's weights)."
)
PAIRS_HOW = {
    "capsnet": " (its two longest capsules), and redraws each from its own capsule alone",
    "cnn": " (ten independent sigmoids, not a softmax: read them with `torch.sigmoid(out.logits)`)",
}
ABOUT = {
    "capsnet": (
        "The three-layer capsule network of [*Dynamic Routing Between Capsules*]({paper}) (section 4): "
        "Conv1 (256 9x9 kernels), PrimaryCaps (32 types of 8-D capsules, 9x9 kernels, stride 2), DigitCaps "
        "(ten 16-D capsules, {routing} iterations of routing by agreement), and the reconstruction decoder "
        "(512, 1024, 784). {parameters:,} parameters. The length of digit capsule j is how sure the network is "
        "that digit j is there; its 16 numbers are the digit's pose, from which the decoder redraws it."
    ),
    "cnn": (
        "The CNN baseline of [*Dynamic Routing Between Capsules*]({paper}) (section 5): three 5x5 convolutions "
        "of 256, 256 and 128 channels, fully connected layers of 328 and 192, dropout, a 10-way softmax. The "
        'paper\'s exact network ("same" padding, no pooling) has 35.4M parameters and takes 5.7 times the '
        "CapsNet's time to train (measured on CPUs under bf16); this one keeps its layers and adds 2x2 max "
        "pooling after the first two convolutions, unpadded: {parameters:,} parameters, 0.6x the CapsNet's "
        "multiply-adds per image. It is "
        "the playground's point of comparison: the same data, shifts and selection protocol as the CapsNet."
    ),
}
LOAD = {
    "capsnet": (
        "from capsnet import load_model\n"
        'model = load_model("{repo}")            # a folder or a Hub repo id; safetensors only\n'
        "out = model(images)                        # images: [B, 1, 28, 28] floats in [0, 1]\n"
        "out.prediction, out.lengths, out.capsules  # [B], [B, 10], [B, 10, 16]"
    ),
    "cnn": (
        "from capsnet.baseline import BaselineCNN\n"
        "from capsnet.shipping.pretrained import load_model\n"
        'model = load_model("{repo}", BaselineCNN)  # a folder or a Hub repo id; safetensors only\n'
        "out = model(images)                         # images: [B, 1, 28, 28] floats in [0, 1]\n"
        "out.prediction, out.probabilities           # [B], [B, 10]"
    ),
}
UNSEEN = {  # what it has never seen, by what it trained on
    "written": (
        "It has seen one digit or two of different classes, from MNIST's writers: two digits of the "
        "same class cannot be told from one, three or more are read as two, and other people's digits "
        "read worse than MNIST's (docs/pairs.md)."
    ),
    "pairs": (
        "It has only seen two overlapping MNIST digits of different classes: it always names two "
        "digits, so a single digit is read with a second one beside it, and two digits of the same "
        "class cannot be told."
    ),
    "digits": (
        "It has only seen single, centred, upright MNIST digits: it reads any input as one of ten "
        'digits (there is no "not a digit"), and letters, several digits or digits turned far from '
        "upright are read as some digit all the same."
    ),
}


def wall_time(seconds: float) -> str:
    """Hours to a tenth; minutes where that rounds to none (under 3 minutes), seconds under one."""
    if seconds >= 180:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.0f} s"


def how_it_ran(run: RunRecord) -> str:
    return (
        f"`{run.command}` ({run.device or '?'}, bf16 autocast {'on' if run.bf16_autocast else 'off'}, "
        f"torch {run.torch_version or '?'}, {wall_time(run.train_seconds)} of wall time)"
    )


def share_in_words(single_share: float) -> str:
    """The share of a written run's examples that held one digit, as the card says it."""
    return {0.25: "a quarter", 0.5: "half"}.get(single_share, f"{single_share:.0%}")


def examples_of(record: RunRecord) -> str:
    """What the run trained on, as the card tells it: "digits" (MNIST's), "pairs" (two overlapping
    digits) or "written" (one digit or two, as people write them)."""
    if record.task != "pairs":
        return "digits"
    return "written" if record.examples == "written" else "pairs"


def title_and_about(model_name: str, record: RunRecord, parameters: int, routing: int | None) -> str:
    """The card's title and what the network is: the paper's network, what it was trained on, the code."""
    examples = examples_of(record)
    paragraphs = [
        f"# {(NAMES if examples == 'digits' else PAIR_NAMES)[model_name]}",
        ABOUT[model_name].format(paper=PAPER, routing=routing, parameters=parameters),
    ]
    if examples == "pairs":
        paragraphs.append(PAIRS_ABOUT.format(how=PAIRS_HOW[model_name]))
    if examples == "written":
        paragraphs.append(WRITTEN_ABOUT.format(how=PAIRS_HOW[model_name], singles=share_in_words(record.single_share)))
    paragraphs.append(
        "Trained with the code of the Capsule Network Playground (`train.py`), which also serves "
        "these weights in an interactive demo: draw a digit and watch the network read it."
    )
    return "\n\n".join(paragraphs)


def results(record: RunRecord, test_accuracy: float, semeion: tuple | None) -> str:
    """The Results table: the test pairs (and the written test examples) first where the run trained on
    them, MNIST's test set, Semeion's digits where they were read."""
    examples = examples_of(record)
    rows = ["## Results", "", "| data | accuracy |", "| --- | --- |"]
    if examples != "digits":
        rows.append(
            f"| overlapping test pairs of MNIST's test digits (10,000), both digits right | "
            f"**{record.pairs_test_both_right:.2%}** |"
        )
    if examples == "written":
        rows.append(
            f"| written test examples of MNIST's test digits (10,000, one digit or two), the strongest right | "
            f"{record.written_test_right:.2%} |"
        )
    rows.append(
        f"| MNIST test set (10,000 single digits), its strongest output | {test_accuracy:.2%} |"
        if examples != "digits"
        else f"| MNIST test set (10,000 digits) | **{test_accuracy:.2%}** |"
    )
    if semeion:
        rows.append(f"| Semeion (1,593 digits by other writers, 16x16, evaluation only) | {semeion[0]:.2%} |")
    return "\n".join(rows)


def how_it_was_trained(record: RunRecord) -> str:
    """How it was trained: each run's command, the data, how the epoch was chosen, the validation curve."""
    runs = record.runs()
    lines = [
        "## How it was trained",
        "",
        (
            f"- Command: {how_it_ran(record)}."
            if len(runs) == 1
            else "- Commands, in order, each run going on from the weights the one before chose: "
            + "; ".join(how_it_ran(run) for run in runs)
            + f"; {wall_time(sum(run.train_seconds for run in runs))} in all."
        ),
        training_data(record, runs[0].init_from),
        f"- Selection: {record.selection}.",
    ]
    if record.val_read_exactly is not None:
        rule = record.count_rule
        lines.append(
            f"- The chosen epoch read {record.val_read_exactly:.2%} of the validation examples exactly (the "
            f"count and the digits), reading two digits where the second-strongest output reaches "
            f"{rule['second']:.2f}"
            + ("" if rule["second_ink"] is None else f" and its redrawing covers {rule['second_ink']:.0%} of the ink")
            + " (the rule chosen on the same examples); its strongest digits right: "
            + f"{record.val_accuracy:.2%}."
        )
    val = " | ".join(
        ", ".join(f"{e['val_accuracy']:.2%}" for e in run.history if e.get("val_accuracy") is not None) for run in runs
    ).strip(" |")
    if val:
        apart = " (the runs apart by |)" if len(runs) > 1 else ""
        lines.append(f"- Validation accuracy after each epoch{apart}: {val}.")
    return "\n".join(lines)


def training_data(record: RunRecord, init_from: str | None) -> str:
    """The line on the data it trained on and how; ``init_from``: the weights the first run started from."""
    examples = examples_of(record)
    if examples == "digits":
        return (
            f"- Data: MNIST's training set, {record.train_images:,} images, shifted by up to 2 pixels "
            "(the paper's only augmentation); Adam, the learning rate decayed per epoch; an exponential "
            "moving average of the weights is what is evaluated and saved."
        )
    made = (
        "the last run's examples as people write them, earlier runs' overlapping pairs,"
        if examples == "written"
        else "overlapping pairs"
    )
    return (
        f"- Data: {made} made afresh every epoch from MNIST's training set, {record.train_images:,} "
        f"digits{'' if examples == 'written' else ', each pair of two classes'}; "
        f"{'starting from the weights in `' + init_from + '`; ' if init_from else ''}"
        "Adam, the learning rate decayed per epoch; an exponential moving average of the weights is what "
        "is evaluated and saved."
    )


def what_it_misreads(record: RunRecord, mistakes: Counter, semeion: tuple | None) -> str:
    """What it misreads: its commonest mistakes on MNIST's test set and on Semeion's digits, and what
    it has never seen."""
    paragraphs = [
        "## What it misreads (measured)",
        f"On MNIST's test set it misreads {sum(mistakes.values())} of 10,000 digits; the most common "
        "(true digit → read as, count): "
        + ", ".join(f"{t} → {r} ({n})" for (t, r), n in mistakes.most_common(6))
        + ".",
    ]
    if semeion:
        _, per_digit, semeion_mistakes = semeion
        worst = sorted(per_digit, key=per_digit.get)[:3]
        paragraphs.append(
            "On Semeion's digits, written by other people and scanned at 16x16, it reads "
            + ", ".join(f"{d}s at {per_digit[d]:.0%}" for d in worst)
            + " (its weakest digits); the most common mistakes: "
            + ", ".join(f"{t} → {r} ({n})" for (t, r), n in semeion_mistakes.most_common(4))
            + "."
        )
    return "\n\n".join([*paragraphs, UNSEEN[examples_of(record)]])


def use_and_loading(model_name: str, repo: str) -> str:
    """What it is for, and the code that loads it from ``repo``."""
    return "\n\n".join(
        [
            "## Intended use",
            "Teaching and demonstration: the Capsule Network Playground, and comparisons of capsule networks "
            "with CNNs on MNIST-like digits. Not for reading real documents, cheques or forms.",
            "## How to load it",
            f"```python\n{LOAD[model_name].format(repo=repo)}\n```",
            "The code: `pip install` the playground's requirements and put its `capsnet/` package on the path.",
        ]
    )


def card_text(
    model_name: str,
    metrics: RunRecord | dict,
    parameters: int,
    routing: int | None,
    test_accuracy: float,
    mistakes: Counter,
    semeion: tuple[float, dict[int, float], Counter] | None,
    repo: str,
) -> str:
    """The card's markdown, below its metadata (``metrics``: the weights' record, or metrics.json's
    values), its sections in order."""
    record = RunRecord.of(metrics) if isinstance(metrics, dict) else metrics
    sections = [
        title_and_about(model_name, record, parameters, routing),
        results(record, test_accuracy, semeion),
        how_it_was_trained(record),
        what_it_misreads(record, mistakes, semeion),
        use_and_loading(model_name, repo),
    ]
    return "\n\n".join(sections) + "\n"
