"""Turn it: rotate, stretch and shear your own digit and watch the capsule's pose follow while a
CNN reads beside it.

`TurnItSection.layout` lays the section out inside the app's Blocks: the transform sliders
(`transform_sliders.TransformSliders`, one gr.HTML), the turn panel (`TurnView`) and the rotation
sweep (`SweepView`). What is turned is the network's 28x28 input of the current drawing, changed by
`capsnet.data.affine.transform` (exported as the page's turn graph), the change the robustness
measurement makes to MNIST's test digits (`weights/robustness.json`). The page turns and reads it
(playground/page/turn_panel.js), with its own networks or, where it cannot, the server's
(playground/answers.py), and draws the panel and the sweep (turn_view.js, sweep_view.js).
"""

from dataclasses import InitVar, dataclass, field

import gradio as gr
import numpy as np

from capsnet.data.affine import SWEEPS
from capsnet.dimensions import PAPER_RANGE
from capsnet.model import CapsNet
from capsnet.shipping.onnx_file import CHANGE
from capsnet.studies.dimension_names_file import DimensionNames
from capsnet.studies.robustness_file import RESULTS_FILE
from capsnet.studies.statistics import Difference, percent
from playground import page_modules, turn_views
from playground.networks import Measurement
from playground.page_network import RUNTIME, PageGraph
from playground.reading import ReadingSection
from playground.transform_sliders import UNCHANGED, TransformSliders

SWEEP_ANGLES = np.array(SWEEPS["rotation"][0])  # degrees: a drawing's rotation sweep, the measurement's steps
POSE_LIMIT = PAPER_RANGE  # a dimension's move that fills its bar: the paper's slider range
NO_CURVE = 'MNIST\'s test digits: not measured for these weights ("What we measured" above says why).'


@dataclass(eq=False)
class TurnItSection:
    """The Turn-it section over the app's CapsNet and the CNN baseline, beside MNIST's test digits
    turned where ``robustness`` holds a measurement for them.
    """

    reading: ReadingSection  # the app's CapsNet
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

    def labels(self, digit: int) -> list[str]:
        """ "d7: wider →": each dimension of capsule ``digit`` with what it was measured to do."""
        dimensions = range(self.capsnet.config.digit_capsule_dim)
        if self.names is None:
            return [f"d{d + 1}" for d in dimensions]
        return [f"d{d + 1}: {self.names.paper[digit][d].name}" for d in dimensions]

    def layout(self) -> None:
        """The section, laid out where it is called inside the app's Blocks: the page turns the
        digit and sweeps it (playground/page/turn_panel.js)."""
        gr.Markdown(INTRODUCTION.format(claim=PAPER_CLAIM, ours=self.finding), elem_id="turn-it")
        with gr.Row(equal_height=False):
            with gr.Column(scale=4, min_width=300):
                TransformSliders(elem_id="turn-sliders")
            with gr.Column(scale=5, min_width=300):
                TurnView(
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
        SweepView(turn_views.curve_numbers(self.curve), NO_CURVE, elem_id="turn-sweep")


class TurnView(gr.HTML):
    """The turn panel, drawn by the page (playground/page/turn_panel.js, turn_view.js): the digit
    the reading panel shows, turned as the transform sliders say and read by both networks."""

    def __init__(self, **kwargs):
        super().__init__(
            html_template='<div class="turn-view"></div>',
            js_on_load=page_modules.mounted("turn_panel.js"),
            **kwargs,
        )


class SweepView(gr.HTML):
    """The rotation sweep beside MNIST's curve, drawn by the page (playground/page/turn_sweep.js,
    sweep_view.js) from the turn panel's sweep.

    Args:
        curve: `turn_views.curve_numbers`, MNIST's curve, or None where there is none.
        no_curve: what the MNIST chart's place says where ``curve`` is None.
    """

    def __init__(self, curve: dict | None, no_curve: str, **kwargs):
        super().__init__(
            html_template='<div class="sweep-view"></div>',
            js_on_load=page_modules.mounted("turn_sweep.js"),
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
