"""Two digits: draw one digit over another with two pens (or one digit alone) and watch a CapsNet
trained on overlapping pairs and single digits read them and redraw each from its own capsule (the
paper's section 6, Figure 5), beside a CNN trained on the same examples. Each network reads its
strongest digit, and a second one where its count rule reads two (`capsnet.digit_count`: the
second-strongest score, and for the CapsNet the ink only the second capsule's redrawing covers,
against lines chosen on validation examples: pairs.json's count, `capsnet.studies.pairs_measurement`).

`TwoDigitsSection.layout` lays the section out inside the app's Blocks and wires its events: a drawing
pad of two pens (`DrawingPad` with two colours: each stroke's pen travels with it, and the networks
read the overlay of both pens' ink, the colours only for the person), the section's panel (one
gr.HTML, the only output the page updates while a stroke is drawn), *Decode as*, and the API's
`/predict_pair`. The pair goes through `overlaid_inks_to_mnist`, the step the training examples
went through (`capsnet.data.pairs.render`; `capsnet.data.written` does the same in tensors), so a drawn pair
reaches the network as the training pairs did.

The examples are MNIST test pairs, `assets/pairs/`: the first test pairs of
`capsnet.data.pairs.fixed_pairs` (the ones `capsnet.studies.pairs_measurement` reads), whatever the networks
make of them; `python -m bench.pair_examples --data-dir DATA` makes them again. An example tapped
and not drawn over is read from its 28x28 ink as it is, as the measurement reads it.
"""

import dataclasses
import logging
import re
from collections.abc import Sequence
from dataclasses import InitVar, dataclass, field
from pathlib import Path

import gradio as gr
import numpy as np
import torch
from PIL import Image

from capsnet.baseline import BaselineCNN
from capsnet.data.pairs import scores
from capsnet.data.preprocess import MIN_CONTRAST, SketchError, overlaid_inks_to_mnist, sketch_to_mnist
from capsnet.digit_count import CountRule, counted, second_ink, top_two
from capsnet.model import CapsNet
from capsnet.studies.pairs_measurement_file import PAPER, RESULTS_FILE
from capsnet.studies.statistics import Difference, percent
from playground import batches, drawing_pad, page_modules, serving, views
from playground.networks import Measurement, PairNetworks
from playground.two_digit_views import PairView, figure5, pair_panel, tinted

log = logging.getLogger("playground")

PENS = ("#1f6fd1", "#e66100")  # blue and orange, each pen's (and the digit it redraws) colour; the
# paper's Figure 5 uses red and green, which many people cannot tell apart
TWO_READ = "the two read"
DECODE_CHOICES = [TWO_READ] + [str(digit) for digit in range(10)]
API_PIXEL = 10  # /predict_pair's picture is 280x280
EXAMPLES_FOLDER = Path(__file__).parent.parent / "assets" / "pairs"
EXAMPLE_NAME = re.compile(r"mnist_test_pair_(\d+)_(\d)_(\d)\.png")  # mnist_test_pair_0003_0_7.png
PROMPT = (
    "Draw a digit with pen 1, then another over it with pen 2, or one digit alone (or tap an MNIST test "
    "pair): each capsule redraws its own."
)
UNMEASURED_THRESHOLD = 0.5  # without pairs.json's count: halfway between the margin loss's m+ and m- (eq. 4)


class PairInputError(ValueError):
    """A value the page cannot have sent to the section; the message says what is wrong."""


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
    revision: int


@dataclass(frozen=True, eq=False)
class NetworksOutput:
    """Both pairs networks' outputs for one image."""

    capsules: torch.Tensor  # the CapsNet's v_j, [10, 16]
    lengths: torch.Tensor  # [10]
    both: torch.Tensor  # its two longest capsules, each redrawn alone, [2, 1, 28, 28]
    second_ink: torch.Tensor  # [], `capsnet.digit_count.second_ink`
    probabilities: torch.Tensor  # the CNN's ten sigmoids, [10]


def pens_of(redrawn: np.ndarray, layers: np.ndarray) -> tuple[int, ...]:
    """The pen of each redrawn digit [k, 28, 28]: the assignment of the two pens' ink [2, 28, 28]
    that the redrawings cover more of, (0, 1) or (1, 0) for two; (0,) or (1,) for one."""
    overlap = np.einsum("rhw,phw->rp", redrawn, layers)  # [k redrawn, 2 pens]
    if len(redrawn) == 1:
        return (int(overlap[0].argmax()),)
    return (0, 1) if overlap[0, 0] + overlap[1, 1] >= overlap[0, 1] + overlap[1, 0] else (1, 0)


def checked_decode_as(decode_as) -> int | None:
    """The digit *Decode as* names, None for the two read.

    Raises:
        PairInputError: not one of its choices.
    """
    if decode_as not in DECODE_CHOICES:
        raise PairInputError(f"Decode as must be one of {', '.join(DECODE_CHOICES)}, got {decode_as!r:.40}")
    return None if decode_as == TWO_READ else int(decode_as)


def example_layers(path: Path) -> np.ndarray:
    """uint8 [2, 28, 28], the two digits' ink of an example pair: saved side by side, 56x28, as
    black ink on white."""
    ink = 255 - np.asarray(Image.open(path).convert("L"))
    return np.stack([ink[:, :28], ink[:, 28:]])


def examples() -> list[drawing_pad.Example]:
    """The MNIST test pairs under the pad, in the order of the test pairs."""
    found = sorted(path for path in EXAMPLES_FOLDER.glob("*.png") if EXAMPLE_NAME.fullmatch(path.name))
    pairs = []
    for path in found:
        _, a, b = EXAMPLE_NAME.fullmatch(path.name).groups()
        layers = example_layers(path)
        pairs.append(
            drawing_pad.Example(
                f"{a} and {b}",
                f"MNIST test pair: {a} (pen 1) and {b} (pen 2)",
                layers,
                tinted(layers / 255, list(PENS)),
            )
        )
    return pairs


@dataclass(eq=False)
class TwoDigitsSection:
    """The Two-digits section over the pairs CapsNet and the pairs CNN, counting as pairs.json
    chose for them; without them (``problem`` says why) it explains itself and how to train them."""

    pairs: InitVar[PairNetworks]
    capsnet: CapsNet | None = field(init=False)
    cnn: BaselineCNN | None = field(init=False)
    problem: str | None = field(init=False)  # why the networks could not be loaded
    finding: str = field(init=False)  # what pairs.json found, or why there is none (Markdown)
    rule: CountRule = field(init=False)  # where the CapsNet reads a second digit
    cnn_rule: CountRule = field(init=False)  # where the CNN does
    _run_together: batches.Batched = field(init=False, repr=False)  # `_run` of the drawings read at once

    def __post_init__(self, pairs: PairNetworks):
        self.capsnet, self.cnn, self.problem = pairs.capsnet, pairs.cnn, pairs.problem
        self.rule = self.cnn_rule = CountRule(UNMEASURED_THRESHOLD)
        self._run_together = batches.Batched(self._run)
        if pairs.problem is not None:
            self.finding = "Nothing to measure without the networks."
            return
        self.finding, rules = measured(pairs.measurement), measured_rules(pairs.measurement)
        if rules is not None:
            self.rule, self.cnn_rule = rules

    def read(self, inks: np.ndarray, revision: int = 0) -> PairReading | None:
        """Both networks on two pens' ink [2, H, W] (any scale) drawn over each other: the overlay
        made 28x28 as the training pairs were, one digit read or two (`counted` with each
        network's rule), each digit read redrawn from its own capsule; None for too little ink."""
        fields = overlaid_inks_to_mnist(inks)  # [3, 28, 28]: overlay, pen 1, pen 2
        return None if fields is None else self.read_fields(fields, revision)

    def read_fields(self, fields: np.ndarray, revision: int = 0) -> PairReading:
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
            revision,
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

    def view(self, reading: PairReading, decode_as: int | None) -> PairView:
        pens = pens_of(reading.redrawn, reading.layers)
        shown = decode_as is not None and decode_as not in reading.read
        return PairView(
            reading.image,
            reading.layers,
            reading.lengths,
            reading.read,
            reading.second,
            reading.second_ink,
            self.rule,
            reading.redrawn,
            tuple(PENS[pen] for pen in pens),
            PENS,
            reading.probabilities,
            reading.cnn_read,
            self.cnn_rule,
            reading.revision,
            decode_as if shown else None,
            self.redraw(reading, decode_as) if shown else None,
        )

    def panel(self, reading: PairReading | None, decode_as: int | None) -> str:
        return pair_panel(None if reading is None else self.view(reading, decode_as), PROMPT)

    def read_drawing(self, value, decode_as) -> tuple:
        """The two-pen pad changed (while a stroke is drawn, and at its end): read what is on it
        now and show it; a value the page cannot have sent gets its reason in the panel."""
        try:
            drawing = drawing_pad.parse(value, pens=len(PENS))
            digit = checked_decode_as(decode_as)
        except (drawing_pad.DrawingError, PairInputError) as error:
            return gr.skip(), views.message_panel(f"Cannot read these two digits: {error}")
        if drawing.drawing and serving.crowded():  # a stroke still being drawn: let go first (serving.crowded)
            return gr.skip(), gr.skip()
        if drawing.background is not None and not drawing.strokes:  # an example tapped, not drawn over
            fields = example_fields(drawing.background)
            reading = None if fields is None else self.read_fields(fields, drawing.revision)
        else:
            reading = self.read(drawing_pad.inks(drawing, pens=len(PENS)), drawing.revision)
        return reading, self.panel(reading, digit)

    def decode_again(self, reading: PairReading | None, decode_as) -> str:
        """*Decode as* changed: the panel with that capsule redrawn too."""
        try:
            digit = checked_decode_as(decode_as)
        except PairInputError as error:
            return views.message_panel(f"Cannot decode: {error}")
        return self.panel(reading, digit)

    def predict_pair(self, image) -> tuple[dict | None, np.ndarray | None]:
        """/predict_pair: read an image of one digit or two overlapping (any size, dark ink on light
        paper or the reverse): how many digits and which, the ten capsule lengths, the CNN's count,
        digits and ten probabilities, and the digits read redrawn from their own capsules over the
        input (Figure 5, 280x280, the longer capsule's digit in blue). None for an empty or
        unreadable image."""
        if self.problem is not None:
            raise gr.Error(f"The pairs networks are not loaded: {self.problem}")
        try:
            pixels = sketch_to_mnist(image)
        except (SketchError, OSError) as error:
            gr.Warning(f"Cannot read this image: {error}")
            return None, None
        if pixels is None:
            return None, None
        reading = self.read(np.stack([pixels, np.zeros_like(pixels)]))
        answer = {
            "count": len(reading.read),
            "digits": list(reading.read),
            "lengths": [round(float(x), 4) for x in reading.lengths],
            "second_ink": round(reading.second_ink, 4),
            "count_rule": dataclasses.asdict(self.rule),
            "cnn_count": len(reading.cnn_read),
            "cnn_digits": list(reading.cnn_read),
            "cnn_probabilities": [round(float(x), 4) for x in reading.probabilities],
            "cnn_count_rule": dataclasses.asdict(self.cnn_rule),
        }
        return answer, views.upscaled(figure5(reading.image, reading.redrawn, PENS), API_PIXEL)

    def layout(self, page_event: dict) -> None:
        """The section, laid out where it is called inside the app's Blocks, its events wired,
        and the API's /predict_pair."""
        gr.Markdown(INTRODUCTION.format(claim=PAPER_CLAIM, ours=self.finding), elem_id="two-digits")
        api_image = gr.Image(type="pil", image_mode=None, visible=False)
        api_reading = gr.JSON(visible=False)
        api_picture = gr.Image(format="png", visible=False)
        gr.on(
            [],
            self.predict_pair,
            inputs=api_image,
            outputs=[api_reading, api_picture],
            api_name="predict_pair",
            show_progress="hidden",
        )
        if self.problem is not None:
            gr.Markdown(
                f"**This section needs the networks trained on pairs, and cannot load them.** {self.problem}",
                elem_id="two-digits-missing",
            )
            return
        reading = gr.State(None)
        with gr.Row(equal_height=False):
            with gr.Column(scale=5, min_width=300):
                pad = drawing_pad.DrawingPad(
                    examples(),
                    colours=PENS,
                    hint="Draw a digit, then another over it with pen 2, or one alone",
                    examples_caption="or start from an MNIST test pair",
                    elem_id="pair-pad",
                )
            with gr.Column(scale=4, min_width=300):
                panel = gr.HTML(
                    pair_panel(None, PROMPT),
                    elem_id="pair-panel",
                    js_on_load=page_modules.mounted("strip.js"),
                    strip_pad="#pair-pad canvas",
                    strip_height=PAIR_STRIP_HEIGHT,
                )
                decode_as = gr.Radio(
                    DECODE_CHOICES,
                    value=TWO_READ,
                    label="Decode as",
                    elem_id="pair-decode-as",
                    info="redraw another digit's capsule too: one of a digit that is not there should redraw little",
                )
        pad.change(
            self.read_drawing,
            inputs=[pad, decode_as],
            outputs=[reading, panel],
            trigger_mode="always_last",
            **page_event,
        )
        decode_as.input(
            self.decode_again, inputs=[reading, decode_as], outputs=panel, trigger_mode="always_last", **page_event
        )


PAIR_STRIP_HEIGHT = 120  # the panel's two digits and their redrawings on a narrow screen, CSS pixels
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


def example_fields(background: np.ndarray) -> np.ndarray | None:
    """An example's two digits, uint8 [2, 28, 28] as the preprocessing placed them, as the input
    the measurement reads (their overlay) and each pen's ink: float32 [3, 28, 28]; None for too
    little ink (as `overlaid_inks_to_mnist`). Blown up to the pad and made 28x28 again, as drawn
    strokes are, they would blur and move."""
    layers = background.astype(np.float32) / 255
    if layers.max() < MIN_CONTRAST:
        return None
    return np.concatenate([layers.max(axis=0, keepdims=True), layers])


def measured(measurement: Measurement) -> str:
    """A sentence of what `capsnet.studies.pairs_measurement` found for the pairs networks
    (pairs.json beside the CapsNet's weights, `networks.pairs_results`), or why there is none."""
    if measurement.results is None:
        return f"Not measured for these weights: {measurement.why_not}"
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


def measured_rules(measurement: Measurement) -> tuple[CountRule, CountRule] | None:
    """Each network's count rule as pairs.json chose it; None where it holds none for these
    networks (the section then counts with UNMEASURED_THRESHOLD, and says so in the log)."""
    if measurement.results is None:
        log.warning(
            "The Two-digits section counts from %s: no count rule was measured for these weights", UNMEASURED_THRESHOLD
        )
        return None
    return measurement.results.rule, measurement.results.cnn_rule


def verdict(difference: Difference, above: str, below: str, neither: str) -> str:
    """What a difference's 95% interval says: ``above`` when all of it lies above zero, ``below``
    when all of it lies below, ``neither`` when it holds zero."""
    return above if difference.low > 0 else below if difference.high < 0 else neither
