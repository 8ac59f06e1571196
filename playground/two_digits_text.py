"""What the Two-digits section says above its pad: its introduction (how routing can pull two
overlapping digits apart), what the paper claims for them (Sabour et al. 2017, section 6 and
Figure 5: MultiMNIST's pairs, the CapsNet against a CNN baseline) and what pairs.json, the
measurement of the pairs networks (`capsnet.studies.pairs_measurement`), found (`measured`).
"""

from capsnet.studies.pairs_measurement_file import PAPER, RESULTS_FILE
from capsnet.studies.statistics import Difference, percent
from playground.networks import Measurement

PAPER_CLAIM = (
    f"**What the paper claims.** Sabour et al. trained on MultiMNIST, each MNIST digit laid over another of a "
    f"different class, each moved by up to 4 pixels (their frames overlap {percent(PAPER['frame_overlap'])} on "
    f"average): their CapsNet misread **{percent(PAPER['capsnet_error'])}** of the test pairs (its two longest "
    f"capsules not the pair's two digits), a CNN baseline **{percent(PAPER['cnn_error'])}** (section 6); and "
    "each digit, redrawn from its own capsule, came back whole (Figure 5)."
)
INTRODUCTION = """
## Two digits
Draw a digit with pen 1, switch to pen 2 and draw another digit over it, or tap an MNIST test
pair; or draw one digit alone. A CapsNet trained on overlapping pairs and single digits reads the
overlay (the colours are only for you): one digit, or two where its second-longest capsule is
long enough, each redrawn from that digit's own capsule alone, in the colour of the pen whose ink
it redraws; a CNN trained on the same examples reads beside it.

**Why routing can pull them apart.** Every primary capsule, a part such as a stroke or a loop,
predicts each digit capsule, and routing sends its vote to the digit whose other parts agree with
its prediction. A stroke of the 3 agrees with the rest of the 3, not with the 5: each part ends up
explaining one digit, so each digit capsule holds the pose of its own strokes only, and the
decoder redraws it alone, the other digit left out. A CNN pools the strongest features of each
neighbourhood, whichever digit they came from.

{claim}

**What we measured.** {ours}
"""


def measured(measurement: Measurement) -> str:
    """A sentence of what `capsnet.studies.pairs_measurement` found for the pairs networks
    (pairs.json beside the CapsNet's weights, `networks.pairs_results`), or why there is none."""
    if measurement.results is None:
        return f"Not measured for these weights: {measurement.why_not}. Fix: `{measurement.command}` writes it."
    m = measurement.results
    who_reads_more = verdict(
        m.lead,
        "the CapsNet reads more pairs, as in the paper",
        "unlike in the paper, the CNN reads more pairs",
        "no clear difference between them",
    )
    what_routing_does = verdict(
        m.unrouted_gain,
        "it reads more pairs without routing",
        "routing helps it, as the paper found",
        "routing makes no clear difference",
    )
    ink_line = (
        ""
        if m.rule.second_ink is None
        else f" and its redrawing covers {percent(m.rule.second_ink)} or more of the ink the longest leaves"
    )
    return (
        f"Both networks, trained here on the same examples, read the same "
        f"{m.test_pairs:,} MNIST test pairs: both digits right **{percent(m.capsnet_both_right)}** "
        f"for the CapsNet, **{percent(m.cnn_both_right)}** for the CNN (CapsNet − CNN in points, with its "
        f"95% interval: {m.lead.points()}): {who_reads_more}, after far fewer pairs than the paper's 60M "
        f"(docs/pairs.md). Without routing the CapsNet reads {percent(m.unrouted_both_right)} (in points, "
        f"with its 95% interval: {m.unrouted_gain.points()}): "
        f"{what_routing_does}. Other people's digits read worse: of Semeion's, laid in pairs the same way, "
        f"the CapsNet reads both right in {percent(m.semeion_pairs_right)}, "
        f"and {percent(m.semeion_singles_right)} of them alone. It reads a "
        f"second digit where its second-longest capsule is {m.rule.second:.2f} long or longer"
        f"{ink_line} (chosen on validation examples): MNIST's single test digits are read as one digit in "
        f"{percent(m.mnist_singles_counted)}, its test pairs as two in "
        f"{percent(m.mnist_pairs_counted)}. Each digit redrawn from its own "
        f"capsule misses {percent(m.redrawn_error)} of that digit's ink, against "
        f"{percent(m.overlay_error)} for the whole overlay. From `{RESULTS_FILE}` "
        f"(`python -m capsnet.studies.pairs_measurement`)."
    )


def verdict(difference: Difference, above: str, below: str, neither: str) -> str:
    """What a difference's 95% interval says: ``above`` when all of it lies above zero, ``below``
    when all of it lies below, ``neither`` when it holds zero."""
    return above if difference.low > 0 else below if difference.high < 0 else neither
