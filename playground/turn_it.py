"""Turn it: rotate, stretch and shear your own digit and watch the capsule's pose follow while a
CNN reads beside it.

`TurnIt.layout` lays the section out inside the app's Blocks and wires its events: the transform
sliders (`TransformSliders`, one gr.HTML), the turn panel (one gr.HTML, the only output of a
slider's move) and the rotation sweep. What is turned is the network's 28x28 input of the current
drawing, changed by `capsnet.data.affine.transform`, the change the robustness measurement makes to
MNIST's test digits (`weights/robustness.json`).

The sliders' value, which a page can forge like any other (`change_of` checks it):

    {"rotation": degrees counter-clockwise, "scale": ..., "shear": ..., "stretch_x": ...,
     "stretch_y": ..., "shift_x": pixels right, "shift_y": pixels down,   # AffineChange's fields
     "revision": n}                                                        # counts the page's moves
"""
import logging
import numbers
from dataclasses import dataclass, fields
from pathlib import Path

import gradio as gr
import numpy as np
import torch

from capsnet import WeightsError, load_model
from capsnet.baseline import BaselineCNN
from capsnet.data.affine import AffineChange, transform
from capsnet.dimensions import PAPER_RANGE
from capsnet.model import CapsNet
from capsnet.studies.dimension_names import DimensionNames
from capsnet.studies.robustness import RESULTS_FILE, SWEEPS, RobustnessResultsError, load_results
from capsnet.studies.statistics import percent, signed_points
from playground import serving, turn_views
from playground.drawing_pad import MAX_REVISION

log = logging.getLogger("playground")
_HERE = Path(__file__).parent


@dataclass(frozen=True)
class Slider:
    field: str     # the AffineChange field it sets
    label: str
    low: float
    high: float
    step: float
    unit: str      # how the page shows its value: "°", "×" (a factor), "px", or "" (a number)


LABELS = {   # AffineChange field: (label, step, unit)
    "rotation": ("turn (counter-clockwise)", 1, "°"),
    "scale": ("size", 0.01, "×"),
    "shear": ("shear (+: the top leans left)", 0.01, ""),
    "stretch_x": ("stretch across", 0.01, "×"),
    "stretch_y": ("stretch up and down", 0.01, "×"),
    "shift_x": ("move right", 0.5, "px"),
    "shift_y": ("move down", 0.5, "px"),
}
FULL_TURN = (-180, 180)


def slider_range(field: str) -> tuple[float, float]:
    """A slider's ends: as far as the measurement changed MNIST's test digits
    (capsnet.studies.robustness.SWEEPS), and the turn all the way round (a 6 to a 9)."""
    if field == "rotation":
        return FULL_TURN
    values, _ = SWEEPS[field]
    return values[0], values[-1]


SLIDERS = tuple(Slider(field, label, *slider_range(field), step, unit) for field, (label, step, unit) in LABELS.items())
FIELDS = tuple(field.name for field in fields(AffineChange))
KEYS = {*FIELDS, "revision"}
UNCHANGED = {field: getattr(AffineChange(), field) for field in FIELDS}
SWEEP_ANGLES = np.array(SWEEPS["rotation"][0])   # degrees: a drawing's rotation sweep, the measurement's steps
POSE_LIMIT = PAPER_RANGE               # a dimension's move that fills its bar: the paper's slider range
PROMPT = "Draw a digit above, then turn it here."
NO_CURVE = "MNIST's test digits: not measured for these weights (\"What we measured\" above says why)."
NO_READING = ("No digit to turn: draw one above (or draw it again: the server keeps the readings of "
              "the pages used most recently).")

# The sweep's js_on_load (props.reading_panel: the reading panel's selector). The section follows
# the reading only while it is on the screen, or about to be: when the last settled reading the
# panel showed is not the one the section shows, it fires "refresh", which brings the turn panel
# and the sweep for it (the sweep runs both networks on every angle). A person drawing while the
# section is off the screen costs the server nothing more. Nothing here reads the layout: an
# IntersectionObserver says when the section is on the screen, the panels' data attributes which
# reading each shows.
FOLLOW_JS = """
let settled = "";        // the revision of the last settled reading shown ("": none)
let asked = null;        // the revision last asked for
const onScreen = new Set();
const readingPanel = document.querySelector(props.reading_panel) ?? document.body;

function follow() {
  const panel = readingPanel.querySelector(".panel[data-settled]");
  if (panel) settled = panel.dataset.revision ?? "";
  const shown = element.querySelector(".sweep")?.dataset.reading ?? "";
  if (onScreen.size === 0 || settled === shown || settled === asked) return;
  asked = settled;
  trigger("refresh");
}

const watcher = new IntersectionObserver((entries) => {
  for (const entry of entries) entry.isIntersecting ? onScreen.add(entry.target) : onScreen.delete(entry.target);
  follow();
}, {rootMargin: "300px 0px"});   // a section about to scroll into view is refreshed already
for (const part of [document.querySelector("#turn-sliders"), document.querySelector("#turn-panel"), element]) {
  if (part) watcher.observe(part);
}
new MutationObserver(follow).observe(readingPanel, {childList: true, subtree: true});
watch("value", follow);
follow();
"""
ROW = ('<label class="transform"><span>{label}</span><output></output><input type="range" name="{field}" '
       'min="{low:g}" max="{high:g}" step="{step:g}" value="{identity:g}" data-identity="{identity:g}" '
       'data-unit="{unit}"></label>')


class TurnError(ValueError):
    """The sliders' value is not one the page sends; the message says what is wrong."""


class CNNWeightsError(WeightsError):
    """The CNN baseline's weights cannot be loaded; the message names the file and its own fix."""

    def __init__(self, problem: str):  # its own fix, not the CapsNet's (WeightsError's)
        super().__init__(problem, "Fix: train the CNN baseline with `python train.py --model cnn --data-dir DATA "
                                  "--out weights/cnn`, or set CAPSNET_CNN_WEIGHTS to a folder or Hugging Face Hub "
                                  "repo id that holds its model.safetensors and config.json.")


def load_cnn(source: str) -> BaselineCNN:
    """The CNN baseline that reads beside the CapsNet, in eval mode.

    Raises:
        CNNWeightsError: as load_model's WeightsError, with the CNN's fix.
    """
    try:
        return load_model(source, BaselineCNN)
    except WeightsError as error:
        raise CNNWeightsError(error.problem) from None


class TransformSliders(gr.HTML):
    """Sliders that turn, scale, shear, stretch and move the digit (SLIDERS), with a Straighten
    button; moving one fires the component's input event with the whole change (the module's
    docstring has the value)."""

    def __init__(self, **kwargs):
        # The sliders are written into the template rather than built by the page from props:
        # Gradio's page copies every prop on every change of the value, once a move here.
        rows = "".join(ROW.format(identity=UNCHANGED[slider.field], **vars(slider)) for slider in SLIDERS)
        super().__init__(
            value={**UNCHANGED, "revision": 0},
            html_template=f'<div class="transforms">{rows}</div>'
                          '<button type="button" class="straighten">Straighten</button>',
            css_template=(_HERE / "turn_it.css").read_text(encoding="utf-8"),
            js_on_load=(_HERE / "turn_it.js").read_text(encoding="utf-8"),
            apply_default_css=False, **kwargs)

    def api_info(self) -> dict:
        return {"type": "object", "properties": {key: {"type": "number"} for key in sorted(KEYS)}}


def change_of(value) -> tuple[AffineChange, int]:
    """The change and the revision in a value the page sent, every part checked.

    Raises:
        TurnError: not an object of exactly the sliders' keys; a field that is not a finite
            number within AffineChange.RANGES; a revision that is not an integer in 0..2^53.
    """
    if not isinstance(value, dict):
        raise TurnError(f"expected the sliders' value, an object with keys {sorted(KEYS)}, "
                        f"got {type(value).__name__}")
    if value.keys() != KEYS:
        wrong = [f"missing {sorted(KEYS - value.keys())}"] if KEYS - value.keys() else []
        wrong += [f"unknown {sorted(str(key)[:40] for key in value.keys() - KEYS)[:5]}"] if value.keys() - KEYS else []
        raise TurnError(f"the sliders' value has the keys {sorted(KEYS)}: {', '.join(wrong)}")
    revision = value["revision"]
    if not isinstance(revision, numbers.Integral) or isinstance(revision, bool) or not 0 <= revision <= MAX_REVISION:
        raise TurnError(f"the revision must be an integer in 0..2^53, got {revision!r:.40}")
    try:
        change = AffineChange(**{field: value[field] for field in FIELDS})
    except ValueError as error:
        raise TurnError(str(error)[:200]) from None
    return change, int(revision)


@dataclass(frozen=True, eq=False)
class TurnIt:
    """The Turn-it section over the app's CapsNet and the CNN baseline.

    The event functions take the app's Reading of the current drawing (gr.State): its ``image``
    (the network's input, [28, 28] in [0, 1]), ``capsules`` ([10, 16]), ``lengths`` and ``winner``.
    """
    capsnet: CapsNet
    cnn: BaselineCNN
    names: DimensionNames | None      # the measured names of each digit's dimensions, or None
    curve: turn_views.Curve | None    # MNIST's test digits turned, measured; None where not
    finding: str                      # what the measurement found, or why there is none (Markdown)

    def turned(self, reading, change: AffineChange) -> turn_views.Turned:
        """Both networks on the drawing changed by ``change``, and how the drawn digit's capsule moved."""
        image = transform(torch.from_numpy(reading.image), change)                 # [28, 28]
        with serving.model_turn(), torch.inference_mode():
            out, cnn = self.capsnet(image[None, None]), self.cnn(image[None, None])
        moved = out.capsules[0, reading.winner] - reading.capsules[reading.winner]   # [16]
        return turn_views.Turned(image.numpy(), out.lengths[0].numpy(), int(out.prediction[0]),
                                 out.reconstruction[0, 0].numpy(), moved.numpy(),
                                 cnn.probabilities[0].numpy(), int(cnn.prediction[0]))

    def sweep(self, reading) -> turn_views.Sweep:
        """Both networks on the drawing turned through SWEEP_ANGLES, in one batch."""
        matrices = torch.stack([AffineChange(rotation=float(angle)).matrix() for angle in SWEEP_ANGLES])  # [A, 2, 3]
        image = torch.from_numpy(reading.image)[None, None]                            # [1, 1, 28, 28]
        images = transform(image.expand(len(SWEEP_ANGLES), -1, -1, -1), matrices)      # [A, 1, 28, 28]
        with serving.model_turn(), torch.inference_mode():
            out, cnn = self.capsnet(images), self.cnn(images)
        digit = reading.winner
        return turn_views.Sweep(digit, SWEEP_ANGLES, out.lengths[:, digit].numpy(), out.prediction.numpy(),
                                cnn.probabilities[:, digit].numpy(), cnn.prediction.numpy())

    def labels(self, digit: int) -> list[str]:
        """"d7: wider →": each dimension of capsule ``digit`` with what it was measured to do."""
        dimensions = range(self.capsnet.config.digit_capsule_dim)
        if self.names is None:
            return [f"d{d + 1}" for d in dimensions]
        return [f"d{d + 1}: {self.names.paper[digit][d].name}" for d in dimensions]

    def panel(self, reading, sliders) -> str:
        """The turn panel for the drawing changed as ``sliders`` say, or why it cannot be."""
        try:
            change, revision = change_of(sliders)
        except TurnError as error:
            return turn_views.turn_message(f"Cannot turn the digit: {error}")
        return turn_views.turn_panel(self.turned(reading, change), reading.winner,
                                     float(reading.lengths[reading.winner]), self.labels(reading.winner),
                                     POSE_LIMIT, revision)

    def turn(self, reading, sliders) -> str:
        """A transform slider moved: the turn panel, the one output of the event."""
        return turn_views.turn_message(NO_READING) if reading is None else self.panel(reading, sliders)

    def follow(self, reading, sliders) -> str:
        """The turn panel for the current reading at the sliders' values; empty for none."""
        return turn_views.empty_turn_panel(PROMPT) if reading is None else self.panel(reading, sliders)

    def sweep_view(self, reading) -> str:
        """The current reading's rotation sweep beside MNIST's."""
        if reading is None:
            return turn_views.sweep_html(None, self.curve, NO_CURVE, "")
        return turn_views.sweep_html(self.sweep(reading), self.curve, NO_CURVE, str(reading.revision))

    def show(self, reading, sliders) -> tuple[str, str]:
        """The section is on the screen and shows another reading than the current one (FOLLOW_JS
        asks): the turn panel and the sweep for the current one."""
        return self.follow(reading, sliders), self.sweep_view(reading)

    def layout(self, reading: gr.State, reading_view: gr.HTML, page_event: dict) -> None:
        """The section, laid out where it is called inside the app's Blocks, its events wired:
        a slider's move updates the turn panel alone; a new reading of ``reading_view``'s brings
        the panel and the sweep for it once the section is on the screen."""
        gr.Markdown(INTRODUCTION.format(claim=PAPER_CLAIM, ours=self.finding), elem_id="turn-it")
        with gr.Row(equal_height=False):
            with gr.Column(scale=4, min_width=300):
                sliders = TransformSliders(elem_id="turn-sliders")
            with gr.Column(scale=5, min_width=300):
                panel = gr.HTML(turn_views.empty_turn_panel(PROMPT), elem_id="turn-panel")
        sweep = gr.HTML(self.sweep_view(None), elem_id="turn-sweep", js_on_load=FOLLOW_JS,
                        reading_panel=f"#{reading_view.elem_id}")

        sliders.input(self.turn, inputs=[reading, sliders], outputs=panel, trigger_mode="always_last", **page_event)
        sweep.refresh(self.show, inputs=[reading, sliders], outputs=[panel, sweep], trigger_mode="always_last",
                      **page_event)


PAPER_CLAIM = (
    "**What the paper claims.** Sabour et al. trained on MNIST with shifts only and tested on affNIST, "
    "MNIST's digits each under a small random affine change: their CapsNet read **79%** of them, a CNN "
    "with about as many parameters and as accurate on MNIST **66%** (section 5.2).")
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


def lead(paired: dict) -> str:
    """"CapsNet − CNN: +0.9 points, 95% interval +0.1 … +1.9", from robustness.json's paired measures."""
    value, low, high = (signed_points(paired[key]) for key in ("difference", "low", "high"))
    return f"CapsNet − CNN: {value} points, 95% interval {low} … {high}"


def measured(capsnet_weights: str, cnn_weights: str) -> tuple[turn_views.Curve | None, str]:
    """The rotation curve over MNIST's test digits that `capsnet.studies.robustness` measured for these
    weights, and a sentence of what it found; None and why not where it did not.

    Args:
        capsnet_weights, cnn_weights: the folders of the networks the app reads with; the
            measurement is robustness.json beside the CapsNet's, checked against both.
    """
    try:
        results = load_results(Path(capsnet_weights) / RESULTS_FILE, capsnet_weights, cnn_weights)
        steps = results["sweeps"]["rotation"]["steps"]
        curve = turn_views.Curve(np.array([step["value"] for step in steps], dtype=float),
                                 np.array([step["capsnet"]["accuracy"] for step in steps], dtype=float),
                                 np.array([step["cnn"]["accuracy"] for step in steps], dtype=float),
                                 int(results["digit_count"]))
        clean, affnist = results["untransformed"], results["affnist"]
        ranges = ", ".join(f"{name} {low:g} … {high:g}" for name, (low, high) in affnist["ranges"].items())
        finding = (
            f"Both networks read the same changed images of {curve.images:,} MNIST test digits. Under random "
            f"changes in affNIST's ranges ({affnist['images']:,} images: {ranges}) the CapsNet reads "
            f"**{percent(affnist['capsnet']['accuracy'])}**, the CNN **{percent(affnist['cnn']['accuracy'])}** "
            f"({lead(affnist['paired'])}; unchanged: {percent(clean['capsnet']['accuracy'])} and {percent(clean['cnn']['accuracy'])}); "
            f"turned {turn_views.degrees(curve.angles[0])} … {turn_views.degrees(curve.angles[-1])}, on average "
            f"over the steps {percent(curve.capsnet.mean())} and {percent(curve.cnn.mean())} "
            f"({lead(results['sweeps']['rotation']['mean_paired'])}). The curves below come from "
            f"`{RESULTS_FILE}` (`python -m capsnet.studies.robustness`).")
    except RobustnessResultsError as error:
        log.warning("The Turn-it section shows no measurement over MNIST: %s", error)
        return None, f"Not measured for these weights: {error}"
    except (KeyError, TypeError, ValueError, IndexError) as error:
        log.warning("The Turn-it section shows no measurement over MNIST: %s is not a measurement (%s: %s)",
                    RESULTS_FILE, error.__class__.__name__, error)
        return None, (f"Not measured for these weights: {RESULTS_FILE} is not a measurement "
                      f"({error.__class__.__name__}).")
    return curve, finding


def section(capsnet: CapsNet, cnn: BaselineCNN, names: DimensionNames | None, capsnet_weights: str,
            cnn_weights: str) -> TurnIt:
    """The Turn-it section over these networks (loaded from the two folders), with the measurement
    over MNIST's test digits where there is one for them."""
    curve, finding = measured(capsnet_weights, cnn_weights)
    return TurnIt(capsnet, cnn, names, curve, finding)
