"""Turn it: rotate, stretch and shear your own digit and watch the capsule's pose follow while a
CNN reads beside it.

`TurnItSection.layout` lays the section out inside the app's Blocks and wires its events: the transform
sliders (`transform_sliders.TransformSliders`, one gr.HTML), the turn panel (`TurnView`, the only
output of a slider's move) and the rotation sweep (`SweepView`). What is turned is the network's
28x28 input of the current drawing, changed by `capsnet.data.affine.transform`, the change the
robustness measurement makes to MNIST's test digits (`weights/robustness.json`).

The page draws the panel and the sweep from numbers (playground/page/turn_view.js, sweep_view.js):
its own, where it turns the digit itself, or the server's (turn_views.py), the same renderer for
both.
"""

from dataclasses import InitVar, dataclass, field

import gradio as gr
import numpy as np
import torch

from capsnet.baseline import BaselineCNN
from capsnet.data.affine import SWEEPS, AffineChange, transform
from capsnet.dimensions import PAPER_RANGE
from capsnet.model import CapsNet
from capsnet.shipping.onnx_file import CHANGE
from capsnet.studies.dimension_names_file import DimensionNames
from capsnet.studies.robustness_file import RESULTS_FILE
from capsnet.studies.statistics import Difference, percent
from playground import page_modules, serving, turn_views, views
from playground.drawing_pad import DrawingError, DrawingPad
from playground.networks import Measurement
from playground.page_network import RUNTIME, PageGraph
from playground.reading import ReadingSection
from playground.transform_sliders import UNCHANGED, TransformSliders, TurnError, change_of

SWEEP_ANGLES = np.array(SWEEPS["rotation"][0])  # degrees: a drawing's rotation sweep, the measurement's steps
POSE_LIMIT = PAPER_RANGE  # a dimension's move that fills its bar: the paper's slider range
NO_CURVE = 'MNIST\'s test digits: not measured for these weights ("What we measured" above says why).'
NO_READING = (
    "No digit to turn: draw one above (or draw it again: the server keeps the readings of "
    "the pages used most recently)."
)


@dataclass(eq=False)
class TurnItSection:
    """The Turn-it section over the app's CapsNet and the CNN baseline, beside MNIST's test digits
    turned where ``robustness`` holds a measurement for them.

    The event functions take the reading of the current drawing (`reading.Reading`, gr.State):
    its ``image`` (the network's input, [28, 28] in [0, 1]), ``capsules`` ([10, 16]), ``lengths``
    and ``winner``; and the drawing pad's value, which they read where the page read it and the
    server has not (`ReadingSection.reading_of`).
    """

    reading: ReadingSection  # the app's CapsNet and the drawing it read
    cnn: BaselineCNN
    names: DimensionNames | None  # the measured names of each digit's dimensions, or None
    robustness: InitVar[Measurement]  # robustness.json for both networks, or why there is none
    cnn_graph: PageGraph  # the CNN's probabilities, for the page to read a turned digit with
    turn_graph: PageGraph  # capsnet.data.affine.transform, for the page to turn a digit with
    curve: turn_views.Curve | None = field(init=False)  # MNIST's test digits turned, measured; None where not
    finding: str = field(init=False)  # what the measurement found, or why there is none (Markdown)

    def __post_init__(self, robustness: Measurement):
        self.curve, self.finding = measured(robustness)

    @property
    def capsnet(self) -> CapsNet:
        return self.reading.network

    def turned(self, reading, change: AffineChange) -> turn_views.Turned:
        """Both networks on the drawing changed by ``change``, and how the drawn digit's capsule moved."""
        image = transform(torch.from_numpy(reading.image), change)  # [28, 28]
        with serving.network_slot(), torch.inference_mode():
            out, cnn = self.capsnet(image[None, None]), self.cnn(image[None, None])
        moved = out.capsules[0, reading.winner] - reading.capsules[reading.winner]  # [16]
        return turn_views.Turned(
            image.numpy(),
            out.lengths[0].numpy(),
            int(out.prediction[0]),
            out.reconstruction[0, 0].numpy(),
            moved.numpy(),
            cnn.probabilities[0].numpy(),
            int(cnn.prediction[0]),
        )

    def sweep(self, reading) -> turn_views.Sweep:
        """Both networks on the drawing turned through SWEEP_ANGLES, in one batch."""
        matrices = torch.stack([AffineChange(rotation=float(angle)).matrix() for angle in SWEEP_ANGLES])  # [A, 2, 3]
        image = torch.from_numpy(reading.image)[None, None]  # [1, 1, 28, 28]
        images = transform(image.expand(len(SWEEP_ANGLES), -1, -1, -1), matrices)  # [A, 1, 28, 28]
        with serving.network_slot(), torch.inference_mode():
            out, cnn = self.capsnet(images), self.cnn(images)
        digit = reading.winner
        return turn_views.Sweep(
            digit,
            SWEEP_ANGLES,
            out.lengths[:, digit].numpy(),
            out.prediction.numpy(),
            cnn.probabilities[:, digit].numpy(),
            cnn.prediction.numpy(),
        )

    def labels(self, digit: int) -> list[str]:
        """ "d7: wider →": each dimension of capsule ``digit`` with what it was measured to do."""
        dimensions = range(self.capsnet.config.digit_capsule_dim)
        if self.names is None:
            return [f"d{d + 1}" for d in dimensions]
        return [f"d{d + 1}: {self.names.paper[digit][d].name}" for d in dimensions]

    def panel(self, reading, sliders) -> dict:
        """The turn panel's numbers for the drawing changed as ``sliders`` say, or why it cannot be."""
        try:
            change, revision = change_of(sliders)
        except TurnError as error:
            return turn_views.turn_message(f"Cannot turn the digit: {error}")
        return turn_views.turn_numbers(
            self.turned(reading, change), reading.winner, float(reading.lengths[reading.winner]), revision
        )

    def turn(self, reading, sliders, drawing: dict | None = None) -> dict:
        """A transform slider moved: the turn panel, the one output of the event."""
        try:
            reading = self.reading.reading_of(reading, drawing)
        except DrawingError as error:
            return turn_views.turn_message(f"Cannot read this drawing: {error}")
        return turn_views.turn_message(NO_READING) if reading is None else self.panel(reading, sliders)

    def follow(self, reading, sliders) -> dict | None:
        """The turn panel for the current reading at the sliders' values; None for none."""
        return None if reading is None else self.panel(reading, sliders)

    def sweep_view(self, reading) -> dict | None:
        """The current reading's rotation sweep; None for none."""
        return None if reading is None else turn_views.sweep_numbers(self.sweep(reading), reading.revision)

    def show(self, reading, sliders, drawing: dict | None = None) -> tuple:
        """The section is on the screen and shows another reading than the current one (turn_sweep.js
        asks): the turn panel and the sweep for the current one."""
        try:
            reading = self.reading.reading_of(reading, drawing)
        except DrawingError as error:
            return turn_views.turn_message(f"Cannot read this drawing: {error}"), gr.skip()
        return self.follow(reading, sliders), self.sweep_view(reading)

    def layout(self, reading: gr.State, pad: DrawingPad, page_event: dict) -> None:
        """The section, laid out where it is called inside the app's Blocks, its events wired:
        a slider's move updates the turn panel alone; a new reading brings the panel and the sweep
        for it once the section is on the screen (made in the page where it turns the digit
        itself, else by ``show``). The server's events take ``pad``'s drawing."""
        gr.Markdown(INTRODUCTION.format(claim=PAPER_CLAIM, ours=self.finding), elem_id="turn-it")
        with gr.Row(equal_height=False):
            with gr.Column(scale=4, min_width=300):
                sliders = TransformSliders(elem_id="turn-sliders")
            with gr.Column(scale=5, min_width=300):
                panel = TurnView(
                    None,
                    elem_id="turn-panel",
                    runtime_url=RUNTIME,
                    turn_url=self.turn_graph.url,
                    cnn_url=self.cnn_graph.url,
                    change_fields=list(CHANGE),
                    unchanged=UNCHANGED,
                    labels=[self.labels(digit) for digit in range(self.capsnet.config.num_classes)],
                    pose_limit=POSE_LIMIT,
                    sweep_angles=SWEEP_ANGLES.tolist(),
                )
        sweep = SweepView(None, elem_id="turn-sweep", curve=turn_views.curve_numbers(self.curve), no_curve=NO_CURVE)

        sliders.input(
            self.turn, inputs=[reading, sliders, pad], outputs=panel, trigger_mode="always_last", **page_event
        )
        sweep.refresh(
            self.show, inputs=[reading, sliders, pad], outputs=[panel, sweep], trigger_mode="always_last", **page_event
        )


class TurnView(views.NumbersView):
    """The turn panel, drawn by the page (playground/page/turn_panel.js, turn_view.js) from its own
    turn of the digit, or from ``value`` where the server turned it.

    Args:
        value: `turn_views.turn_numbers`, `turn_views.turn_message`, or None before any drawing.
            Optional, as are the props (the page's networks, the sliders' fields, the pose's labels
            and limit, the sweep's angles), because Gradio (6.31.0) rebuilds an output component
            from its other constructor arguments whenever an event returns an update for it.
    """

    def __init__(self, value: dict | None = None, **kwargs):
        super().__init__(
            value=value,
            html_template='<div class="turn-view"></div>',
            js_on_load=page_modules.mounted("turn_panel.js"),
            **kwargs,
        )


class SweepView(views.NumbersView):
    """The rotation sweep beside MNIST's curve, drawn by the page (playground/page/turn_sweep.js,
    sweep_view.js) from the page's own sweep, or from ``value`` where the server swept; it fires
    "refresh" where the page cannot sweep a new reading itself.

    Args:
        value: `turn_views.sweep_numbers`, or None before any drawing.
        curve: `turn_views.curve_numbers`, MNIST's curve, or None where there is none.
        no_curve: what the MNIST chart's place says where ``curve`` is None. Both optional because
            Gradio (6.31.0) rebuilds an output component from its other constructor arguments
            whenever an event returns an update for it.
    """

    def __init__(self, value: dict | None = None, curve: dict | None = None, no_curve: str = "", **kwargs):
        super().__init__(
            value=value,
            html_template='<div class="sweep-view"></div>',
            js_on_load=page_modules.mounted("turn_sweep.js", events=("refresh",)),
            curve=curve,
            no_curve=no_curve,
            **kwargs,
        )


PAPER_CLAIM = (
    "**What the paper claims.** Sabour et al. trained on MNIST with shifts only and tested on affNIST, "
    "MNIST's digits each under a small random affine change: their CapsNet read **79%** of them, a CNN "
    "with about as many parameters and as accurate on MNIST **66%** (section 5.2)."
)
INTRODUCTION = """
## Turn it
Turn, stretch, shear or move your digit (the 28x28 image the network reads, changed as
`capsnet.data.affine.transform` changes it) and watch two networks read it: the CapsNet, and the
paper's CNN baseline, trained on the same MNIST digits.

**Equivariance against invariance.** A capsule's length says whether its digit is there, its
direction (the 16 numbers) how it is drawn. So as the digit turns the reading should stay
(*invariance*) while the pose changes with the digit (*equivariance*): the bars show how far each
of the drawn digit's 16 numbers moved, and the decoder, which redraws the digit from them alone,
should draw it turned. A CNN keeps only the answer.

{claim}

**What we measured.** {ours}
"""


def degrees(angle: float) -> str:
    """ "+40°", "0°", "−40°" (a minus sign, not a hyphen)."""
    return f"{angle:+.0f}°".replace("+0°", "0°").replace("-", "−")


def lead(paired: Difference) -> str:
    """ "CapsNet − CNN in points, with its 95% interval: +0.9 [+0.1, +1.9]", from robustness.json's paired measures."""
    return f"CapsNet − CNN in points, with its 95% interval: {paired.points()}"


def measured(measurement: Measurement) -> tuple[turn_views.Curve | None, str]:
    """The rotation curve over MNIST's test digits that `capsnet.studies.robustness` measured for the
    networks the app reads with, and a sentence of what it found; None and why not where it did not.

    Args:
        measurement: robustness.json beside the CapsNet's weights, checked against both networks'
            (`networks.robustness_results`).
    """
    if measurement.results is None:
        return None, (
            f"Not measured for these weights: {measurement.why_not}. `{measurement.command}` measures both "
            f"networks and writes `{RESULTS_FILE}` beside the CapsNet's weights; the page shows it from its next start."
        )
    m = measurement.results
    curve = turn_views.Curve(np.array(m.angles), np.array(m.capsnet_turned), np.array(m.cnn_turned), m.digit_count)
    ranges = ", ".join(f"{name} {low:g} … {high:g}" for name, low, high in m.affnist_ranges)
    finding = (
        f"Both networks read the same changed images of {curve.images:,} MNIST test digits. Under random "
        f"changes in affNIST's ranges ({m.affnist_images:,} images: {ranges}) the CapsNet reads "
        f"**{percent(m.capsnet_affnist)}**, the CNN **{percent(m.cnn_affnist)}** "
        f"({lead(m.affnist_lead)}; unchanged: {percent(m.capsnet_unchanged)} and {percent(m.cnn_unchanged)}); "
        f"turned {degrees(curve.angles[0])} … {degrees(curve.angles[-1])}, on average "
        f"over the steps {percent(curve.capsnet.mean())} and {percent(curve.cnn.mean())} "
        f"({lead(m.turned_lead)}). The curves below come from "
        f"`{RESULTS_FILE}` (`python -m capsnet.studies.robustness`)."
    )
    return curve, finding
