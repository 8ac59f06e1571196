"""Capsule Network Playground: draw a digit, watch the capsules, drag the 16 dimensions.

A Gradio app over the capsnet library. `python app.py` serves it on 127.0.0.1:7860
(GRADIO_SERVER_NAME / GRADIO_SERVER_PORT change that); CAPSNET_WEIGHTS names the weights: a
folder or a Hugging Face Hub repo id, `weights` by default; CAPSNET_CNN_WEIGHTS names the CNN
baseline that reads beside it in the Turn-it section, `weights/cnn` by default;
CAPSNET_PAIRS_WEIGHTS and CAPSNET_PAIRS_CNN_WEIGHTS the networks trained on two overlapping digits
that read in the Two-digits section, `weights/pairs` and `weights/pairs-cnn` by default.

API (gradio_client), in one client session:
    /predict  an image (a file) -> the reading {"digit", "lengths"} and the reconstruction
    /perturb  decode_as ("winner" or "0".."9"), 16 dimension offsets -> the reconstruction of the
              last image read by /predict in this session
    /predict_pair  an image of two overlapping digits (a file) -> the two digits, the ten lengths,
              the CNN's reading, and both digits redrawn from their own capsules

What the page shows, how it is served and why: docs/playground.md; the API: docs/api.md.
"""
import logging
import math
import numbers
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import gradio as gr
import numpy as np
import torch
from PIL import Image

from capsnet import load_model
from capsnet.data.preprocess import ink_to_mnist, sketch_to_mnist
from capsnet.data.preprocess import SketchError
from capsnet.dimensions import PAPER_RANGE, SWEEP, perturb as perturb_capsule, sweep_reconstructions
from capsnet.studies.agreement import MAX_ITERATIONS, RoutingTrace, agreement, routing_by_iterations, vote_heatmap
from capsnet.studies.dimension_names import DimensionNames, DimensionNamesError, load_dimension_names
from playground import dimension_sliders, drawing_pad, serving, turn_it, two_digits, views

log = logging.getLogger("playground")

serving.configure_process()
WEIGHTS = os.environ.get("CAPSNET_WEIGHTS", "weights")
MODEL = load_model(WEIGHTS)
CONFIG = MODEL.config
DIGITS = CONFIG.num_classes                       # 10 digit capsules ...
DIMENSIONS = CONFIG.digit_capsule_dim             # ... of 16 dimensions each
CAPSULE_TYPES = CONFIG.primary_capsule_types      # 32 types of primary capsule
API_PIXEL = 10                                    # /predict and /perturb give 280x280 pictures
WINNER = "winner"
DECODE_CHOICES = [WINNER] + [str(digit) for digit in range(DIGITS)]
ALL_TYPES = -1                                    # the capsule-type slider's value for all types
PAPER, SPREAD = "paper", "spread"                 # the sliders' two ranges
EXAMPLES = sorted(Path(__file__).parent.glob("assets/examples/*.png"),
                  key=lambda path: path.stem.rsplit("_", 1)[-1])  # mnist_test_0003_digit_0.png


def measured_names(weights: str) -> DimensionNames | None:
    """The measured names of the dimensions shipped beside the weights, or None (plain numbered
    sliders) where there are none for these weights."""
    try:
        return load_dimension_names(weights)
    except DimensionNamesError as error:
        log.warning("The sliders are numbered, not named: %s", error)
        return None


NAMES = measured_names(WEIGHTS)
RANGES = {PAPER: f"the paper's: ±{PAPER_RANGE:g} for every dimension"}
if NAMES is not None:
    RANGES[SPREAD] = f"±{NAMES.spread_range:g} sd of each dimension over MNIST's digits of the class"
CNN_WEIGHTS = os.environ.get("CAPSNET_CNN_WEIGHTS", "weights/cnn")
CNN = turn_it.load_cnn(CNN_WEIGHTS)
TURN_IT = turn_it.section(MODEL, CNN, NAMES, WEIGHTS, CNN_WEIGHTS)
TWO_DIGITS = two_digits.section(os.environ.get("CAPSNET_PAIRS_WEIGHTS", "weights/pairs"),
                                os.environ.get("CAPSNET_PAIRS_CNN_WEIGHTS", "weights/pairs-cnn"))


class ControlError(ValueError):
    """A control's value that the page cannot have sent; the message says what is wrong."""


def check_decoding(decode_as, scale) -> None:
    """Check *Decode as* and *Slider range* as the page sent them: one of their choices each.

    Raises:
        ControlError: either is not one of its choices.
    """
    if decode_as not in DECODE_CHOICES:
        raise ControlError(f"Decode as must be one of {', '.join(DECODE_CHOICES)}, got {decode_as!r:.40}")
    if scale not in list(RANGES):
        raise ControlError(f"the slider range must be one of {', '.join(RANGES)}, got {scale!r:.40}")


def checked_routing(iterations, capsule_type) -> tuple[int, int]:
    """The routing view's iterations r and capsule type as the page sent them: whole numbers
    within their sliders' ranges.

    Raises:
        ControlError: either is not a whole number within its slider's range.
    """
    return (_whole_number(iterations, 1, MAX_ITERATIONS, "the routing iterations"),
            _whole_number(capsule_type, ALL_TYPES, CAPSULE_TYPES - 1, "the primary capsule type"))


def _whole_number(value, low: int, high: int, name: str) -> int:
    if (isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
            and value == int(value) and low <= value <= high):
        return int(value)
    raise ControlError(f"{name} must be a whole number from {low} to {high}, got {value!r:.40}")


def example_ink(path: Path) -> tuple[int, np.ndarray]:
    """(digit, uint8 [28, 28] ink) of an example: an MNIST test digit saved 10x as black on white."""
    paper = Image.open(path).convert("L")
    return int(path.stem.rsplit("_", 1)[-1]), 255 - np.asarray(paper.reduce(paper.width // CONFIG.image_size))


@dataclass(frozen=True, eq=False)
class Reading:
    """What the network made of one drawing, kept per user (gr.State): the sliders run only the
    decoder, the routing view only renders."""
    image: np.ndarray        # the network's input, [28, 28] in [0, 1]
    trace: RoutingTrace      # the routing for r = 1 .. MAX_ITERATIONS; the reading is r = 3's
    revision: int            # the drawing pad's revision read (0 for an uploaded image)

    @property
    def capsules(self) -> torch.Tensor:
        """v_j, [10, 16], after the network's own number of routing iterations."""
        return self.trace.capsules[CONFIG.routing_iterations - 1]

    @property
    def lengths(self) -> np.ndarray:
        return self.trace.lengths[CONFIG.routing_iterations - 1].numpy()

    @property
    def winner(self) -> int:
        return int(self.trace.predictions[CONFIG.routing_iterations - 1])

    @property
    def runner_up(self) -> int:
        """The second-longest capsule: what else the drawing could be."""
        return int(self.trace.lengths[CONFIG.routing_iterations - 1].topk(2).indices[1])

    @cached_property
    def runner_up_reconstruction(self) -> torch.Tensor:
        """The decoder's [28, 28] picture of the runner-up, once per reading: every slider move
        redraws the panel that shows it."""
        return reconstruction(self, self.runner_up, (0.0,) * DIMENSIONS)


def read(image: np.ndarray, revision: int = 0) -> Reading:
    """Run the network on a 28x28 image: the convolutions once, routing for every r shown."""
    with serving.model_turn():
        trace = routing_by_iterations(MODEL, torch.from_numpy(image)[None, None])
    return Reading(image, trace, revision)


def decoded_digit(reading: Reading, decode_as: str) -> int:
    """The capsule to decode: the winner, or the digit the user chose."""
    return reading.winner if decode_as == WINNER else int(decode_as)


def reconstruction(reading: Reading, digit: int, offsets) -> torch.Tensor:
    """The decoder's [28, 28] picture of capsule ``digit`` moved by ``offsets`` (16 numbers)."""
    capsules = perturb_capsule(reading.capsules, digit, torch.tensor(offsets, dtype=torch.float32))
    with serving.model_turn(), torch.inference_mode():
        return MODEL.decode(capsules[None], torch.tensor([digit]))[0, 0]


def panel(reading: Reading | None, decode_as: str = WINNER, offsets=(0.0,) * DIMENSIONS,
          settled: bool = False) -> str:
    """The reading panel: the digit, the network's input, the bars, the reconstruction of the
    chosen capsule moved by ``offsets``, the runner-up's; its empty state for None. ``settled``: a
    stroke has ended, and the panel asks for Figure 4 and the routing view."""
    if reading is None:
        return views.reading_panel(None, np.zeros(DIGITS), None, None, None, None, settled)
    digit = decoded_digit(reading, decode_as)
    return views.reading_panel(reading.image, reading.lengths, reading.winner,
                               reconstruction(reading, digit, offsets), digit, reading.revision, settled,
                               reading.runner_up, reading.runner_up_reconstruction)


def read_drawing(value) -> tuple:
    """The drawing pad changed: read what is on it now and show it in the reading panel, the one
    component the page updates while a stroke is drawn. Once the stroke has ended the reading is
    kept (gr.State) and the panel, settled, brings `show_details`. A value the page cannot have
    sent gets its reason in the panel."""
    try:
        drawing = drawing_pad.parse(value)
    except drawing_pad.DrawingError as error:
        return gr.skip(), views.message_panel(f"Cannot read this drawing: {error}")
    image = ink_to_mnist(drawing_pad.ink(drawing))
    reading = None if image is None else read(image, drawing.revision)
    if drawing.drawing:
        return gr.skip(), panel(reading)
    return reading, panel(reading, settled=True)


def ordered_dimensions(digit: int, scale: str) -> list[int]:
    """The dimensions of capsule ``digit``, the largest effect over ``scale``'s range first."""
    return list(range(DIMENSIONS)) if NAMES is None else list(NAMES.by_effect(digit, scale))


def dimension_label(digit: int, dimension: int, scale: str) -> str:
    """"d7: wider →": the dimension's number and what its slider does, as measured."""
    if NAMES is None:
        return f"dimension {dimension + 1}"
    return f"d{dimension + 1}: {getattr(NAMES, scale)[digit][dimension].name}"


def dimension_limit(digit: int, dimension: int, scale: str) -> float:
    """How far the slider of ``dimension`` goes either way: the paper's 0.25, or 3 sd."""
    return PAPER_RANGE if scale == PAPER else round(NAMES.spread_range * NAMES.sd[digit][dimension], 4)


def sliders_at_zero(digit: int | None, scale: str, shown: dict | None = None) -> dict:
    """The sliders for decoding capsule ``digit``, the telling dimensions first, all at zero;
    gr.skip() when that is what ``shown`` (the sliders on the page) already is."""
    if digit is None:
        rows = [{"dimension": d, "label": f"dimension {d + 1}", "limit": PAPER_RANGE} for d in range(DIMENSIONS)]
    else:
        rows = [{"dimension": d, "label": dimension_label(digit, d, scale),
                 "limit": dimension_limit(digit, d, scale)} for d in ordered_dimensions(digit, scale)]
    value = dimension_sliders.slider_value(rows, [0.0] * DIMENSIONS, enabled=digit is not None)
    return gr.skip() if value == shown else value


def figure4_html(reading: Reading | None, decode_as: str, scale: str) -> str:
    """The paper's Figure 4 for this drawing: each row one dimension swept over its slider's
    range, in the sliders' order and with their names."""
    if reading is None:
        return views.figure4_html(None, [], "")
    digit = decoded_digit(reading, decode_as)
    order = ordered_dimensions(digit, scale)
    limits = torch.tensor([dimension_limit(digit, d, scale) for d in range(DIMENSIONS)])
    values = limits[:, None] * torch.linspace(-1, 1, len(SWEEP))                 # [16, 11]
    with serving.model_turn(), torch.inference_mode():
        images = sweep_reconstructions(MODEL, reading.capsules, digit, values)  # [16, 11, 28, 28]
    ends = (f"{SWEEP[0]:+.2f} … {SWEEP[-1]:+.2f}" if scale == PAPER
            else f"−{NAMES.spread_range:g} sd … +{NAMES.spread_range:g} sd")
    return views.figure4_html(images[order], [dimension_label(digit, d, scale) for d in order], ends)


def agreement_text(trace: RoutingTrace, iterations: int, capsule_type: int) -> str:
    """HTML: the winner's and runner-up's agreement at r iterations, and what the map shows."""
    k = iterations - 1
    a = agreement(trace.u_hat, trace.capsules[k], trace.couplings[k])     # [10]
    winner, runner_up = trace.lengths[k].topk(2).indices.tolist()
    types = (f"all {CAPSULE_TYPES} capsule types" if capsule_type == ALL_TYPES
             else f"capsule type {capsule_type} only")
    return (f"<p class='agreement'><b>Agreement</b> at r = {iterations} (the mean cosine between each "
            "vote û<sub>j|i</sub> and the output v<sub>j</sub>, each vote weighted by its share "
            "c<sub>ij</sub>|û<sub>j|i</sub>|; 1 = all voters agree): "
            f"winner <b>{winner}</b>: <b>{a[winner]:.2f}</b> · runner-up {runner_up}: {a[runner_up]:.2f}</p>"
            f"<p>The map shows where the votes for <b>{winner}</b> come from ({types}): each square is one "
            "of the 6x6 primary-capsule positions, drawn at the centre of the 17x17 patch of your digit "
            "that it sees (the strongest one's patch is outlined in blue), coloured by its share "
            "c<sub>ij</sub>|û<sub>j|i</sub>| of the votes: orange = an average share, dark red = twice "
            "that or more, white = none.</p>")


def show_routing(reading: Reading | None, iterations: int, capsule_type: int) -> str:
    """The routing view at r iterations: the vote heatmap, the lengths table, the agreement; why
    not, for values the page cannot have sent."""
    try:
        iterations, capsule_type = checked_routing(iterations, capsule_type)
    except ControlError as error:
        return views.message_panel(f"Cannot show the routing: {error}")
    if reading is None:
        return views.routing_panel(None)
    trace, k = reading.trace, iterations - 1
    heat = vote_heatmap(trace.couplings[k], trace.u_hat, int(trace.predictions[k]),
                        None if capsule_type == ALL_TYPES else capsule_type)   # [6, 6]
    return views.routing_panel(reading.image, heat,
                               views.lengths_table(trace.lengths, trace.predictions, iterations),
                               agreement_text(trace, iterations, capsule_type))


def show_details(reading: Reading | None, decode_as: str, scale: str, shown_sliders: dict,
                 iterations: int, capsule_type: int) -> tuple:
    """A stroke's reading is on the page: the decoding controls back to the winner at zero
    offsets, Figure 4 and the routing view. Figure 4 says why not where *Decode as* or *Slider
    range* is a value the page cannot have sent, and the rest stays as it is."""
    try:
        check_decoding(decode_as, scale)
    except ControlError as error:
        return gr.skip(), gr.skip(), views.message_panel(f"Cannot show Figure 4: {error}"), gr.skip()
    winner = None if reading is None else reading.winner
    return (gr.skip() if decode_as == WINNER else WINNER, sliders_at_zero(winner, scale, shown_sliders),
            figure4_html(reading, WINNER, scale), show_routing(reading, iterations, capsule_type))


def move_dimensions(reading: Reading | None, decode_as: str, scale: str, sliders: dict) -> str:
    """A slider moved: the reading panel with the offsets added to the decoded capsule."""
    try:
        check_decoding(decode_as, scale)
    except ControlError as error:
        return views.message_panel(f"Cannot move the sliders: {error}")
    if reading is None:   # the page enables the sliders with a reading: the server dropped it since
        return views.message_panel("This page's reading is no longer kept on the server (it keeps the "
                                   "sessions used most recently): draw the digit again.")
    digit = decoded_digit(reading, decode_as)
    limits = [dimension_limit(digit, d, scale) for d in range(DIMENSIONS)]
    try:
        offsets = dimension_sliders.offsets(sliders, limits)
    except dimension_sliders.SlidersError as error:
        return views.message_panel(f"Cannot move the sliders: {error}")
    return panel(reading, decode_as, offsets)


def decode_again(reading: Reading | None, decode_as: str, scale: str, shown_sliders: dict) -> tuple:
    """Decode as, or the sliders' range, changed: the reconstruction, the sliders back at zero
    with that capsule's names, its Figure 4; the reading panel says why not where either is a
    value the page cannot have sent, and the rest stays as it is."""
    try:
        check_decoding(decode_as, scale)
    except ControlError as error:
        return views.message_panel(f"Cannot decode: {error}"), gr.skip(), gr.skip()
    digit = None if reading is None else decoded_digit(reading, decode_as)
    return (panel(reading, decode_as), sliders_at_zero(digit, scale, shown_sliders),
            figure4_html(reading, decode_as, scale))


def predict(image: Image.Image | np.ndarray | None) -> tuple[dict | None, np.ndarray | None, Reading | None]:
    """/predict: read an image (any size, dark ink on light paper or the reverse, or strokes on a
    transparent background): the digit and the ten capsule lengths, the winner's reconstruction
    (280x280), and the reading /perturb works on. None for an empty or unreadable image.

    Args:
        image: the uploaded file as Gradio opens it, a PIL image in the file's own mode (or an
            array). Not Gradio's array of it: for a palette image (a GIF, an 8-bit PNG) that holds
            the palette's indices, not its colours, and for CMYK or YCbCr channels an array cannot
            name; `sketch_to_mnist` converts every mode by what its pixels mean.
    """
    try:
        pixels = sketch_to_mnist(image)
    except (SketchError, OSError) as error:           # OSError: PIL cannot decode the file's pixels
        gr.Warning(f"Cannot read this image: {error}")
        return None, None, None
    if pixels is None:
        return None, None, None
    reading = read(pixels)
    answer = {"digit": reading.winner, "lengths": [round(float(x), 4) for x in reading.lengths]}
    picture = views.paper(reconstruction(reading, reading.winner, [0.0] * DIMENSIONS))
    return answer, views.upscaled(picture, API_PIXEL), reading


def perturb(reading: Reading | None, decode_as: str, *offsets: float) -> np.ndarray | None:
    """/perturb: the reconstruction (280x280) with the 16 dimension offsets added to the chosen
    capsule of the last image read by /predict in this session.

    Args:
        reading: the last image read in this session (None before any).
        decode_as: "winner" or a digit "0".."9": which capsule to decode.
        offsets: one number per dimension, each in [-0.25, 0.25].
    """
    if decode_as not in DECODE_CHOICES or len(offsets) != DIMENSIONS or not all(
            isinstance(x, numbers.Real) and -PAPER_RANGE <= x <= PAPER_RANGE for x in offsets):
        raise gr.Error(f"/perturb takes decode_as, one of {DECODE_CHOICES}, and {DIMENSIONS} "
                       f"dimension offsets, each a number in [-{PAPER_RANGE}, {PAPER_RANGE}]; "
                       f"got {decode_as!r} and {list(offsets)}")
    if reading is None:
        gr.Warning("Read a digit first (/predict): /perturb changes the capsules of that reading.")
        return None
    picture = views.paper(reconstruction(reading, decoded_digit(reading, decode_as), offsets))
    return views.upscaled(picture, API_PIXEL)


INTRODUCTION = """
# Capsule Network Playground
Draw a digit and watch a **capsule network** (Sabour, Frosst & Hinton 2017,
[*Dynamic Routing Between Capsules*](https://arxiv.org/abs/1710.09829)) read it as you draw.
"""

EXPLANATION = """
### What am I looking at?
- **Capsules.** An ordinary network gives one number per digit. A capsule network gives each digit a
  *capsule*: a small vector, here of 16 numbers.
- **Length = presence.** A capsule's length (0 to 1) is how sure the network is that its digit is
  there. The longest capsule is the reading; the bars show all ten.
- **Direction = pose.** The 16 numbers (dimensions) describe *how* the digit is drawn. A decoder
  redraws the digit from the winning capsule alone. Drag a slider to nudge one dimension and watch
  what it encodes; the grid does it for all 16 at once (the paper's Figure 4). *Decode as* feeds
  your drawing's pose to another digit's capsule.
- **The names are measured, not guessed.** For each digit, each dimension was swept over the
  slider's range for the capsules of 100 MNIST test digits of that digit, and the decoded images
  measured: ink, width, height, slant, position, and where they change. A slider is named after
  what explains the change ("wider →": dragging right makes the digit wider); "changes shape" or
  "local change" where no single measure does. The sliders and the grid's rows are ordered by how
  much the digit changes, most first (`python -m capsnet.studies.dimension_names`; `weights/dimensions.json`).
"""

ROUTING_EXPLANATION = (
    "**Routing by agreement:** every primary capsule *i* predicts each digit capsule's output "
    "(û<sub>j|i</sub> = W<sub>ij</sub> u<sub>i</sub>), and at each iteration it sends more of its vote "
    "(the coupling c<sub>ij</sub>) to the digit capsules whose output agrees with its prediction, so the "
    "digit whose voters agree grows long and the others shrink.")

CSS = (Path(__file__).parent / "playground" / "playground.css").read_text(encoding="utf-8")

with gr.Blocks(title="Capsule Network Playground") as demo:
    reading_state = gr.State(None)
    gr.Markdown(INTRODUCTION, elem_id="intro")
    with gr.Row(equal_height=False):
        with gr.Column(scale=5, min_width=300):
            pad = drawing_pad.DrawingPad([drawing_pad.digit_example(*example_ink(path)) for path in EXAMPLES],
                                         elem_id="pad")
        with gr.Column(scale=4, min_width=300):
            reading_view = gr.HTML(panel(None), elem_id="reading-panel", js_on_load=views.SETTLED_JS + views.STRIP_JS,
                                   strip_pad="#pad canvas", strip_height=110)
            decode_as = gr.Radio(DECODE_CHOICES, value=WINNER, label="Decode as",
                                 info="which digit capsule the decoder redraws from")
    gr.Markdown(f"### The {DIMENSIONS} dimensions of the capsule\nEach slider adds an offset to one "
                "dimension of the decoded capsule; the reconstruction above follows.")
    with gr.Row(equal_height=False):
        with gr.Column(scale=5, min_width=300):
            scale = gr.Radio([(text, key) for key, text in RANGES.items()], value=PAPER,
                             label="Slider range", visible=len(RANGES) > 1, elem_id="slider-range")
            sliders = dimension_sliders.DimensionSliders(sliders_at_zero(None, PAPER), elem_id="sliders")
            gr.Markdown(EXPLANATION)
        with gr.Column(scale=4, min_width=300):
            figure4 = gr.HTML(figure4_html(None, WINNER, PAPER), elem_id="figure4")

    with gr.Accordion("Routing: where the votes come from", open=True):
        gr.Markdown(ROUTING_EXPLANATION)
        with gr.Row():
            iterations = gr.Slider(1, MAX_ITERATIONS, value=CONFIG.routing_iterations, step=1,
                                   label="Routing iterations r", elem_id="routing-iterations",
                                   info=f"the paper uses {CONFIG.routing_iterations}; "
                                        "1 means no routing (uniform couplings)")
            capsule_type = gr.Slider(ALL_TYPES, CAPSULE_TYPES - 1, value=ALL_TYPES, step=1,
                                     label="Primary capsule type", elem_id="routing-type",
                                     info=f"{ALL_TYPES}: all {CAPSULE_TYPES} types together; "
                                          f"0-{CAPSULE_TYPES - 1}: one type at a time")
        routing_view = gr.HTML(show_routing(None, CONFIG.routing_iterations, ALL_TYPES), elem_id="routing")

    # The API's own inputs and outputs (an image file in, a picture out), never shown on the page.
    api_image = gr.Image(type="pil", image_mode=None, visible=False)
    api_reading = gr.JSON(visible=False)
    api_picture = gr.Image(format="png", visible=False)
    api_offsets = [gr.Slider(-PAPER_RANGE, PAPER_RANGE, value=0.0, label=f"dimension {d + 1}", visible=False)
                   for d in range(DIMENSIONS)]

    # The page's events skip Gradio's queue: one POST each, no event stream, which halves the
    # page's own work per reading (serving.py limits how many run the network at once). They take
    # their inputs as sent (no preprocessing): Gradio's own checks of a slider's or a radio's
    # value answer a forged one with HTTP 500, which a page shows nowhere; the event functions
    # check every value themselves and say in the page what is wrong.
    page_event = {"api_visibility": "private", "show_progress": "hidden", "queue": False, "preprocess": False}
    pad.change(read_drawing, inputs=pad, outputs=[reading_state, reading_view],
               trigger_mode="always_last", **page_event)
    reading_view.settled(show_details, inputs=[reading_state, decode_as, scale, sliders, iterations, capsule_type],
                         outputs=[decode_as, sliders, figure4, routing_view], trigger_mode="always_last",
                         **page_event)
    sliders.input(move_dimensions, inputs=[reading_state, decode_as, scale, sliders], outputs=reading_view,
                  trigger_mode="always_last", **page_event)
    gr.on([decode_as.input, scale.input], decode_again, inputs=[reading_state, decode_as, scale, sliders],
          outputs=[reading_view, sliders, figure4], trigger_mode="always_last", **page_event)
    gr.on([iterations.change, capsule_type.change], show_routing,
          inputs=[reading_state, iterations, capsule_type], outputs=routing_view,
          trigger_mode="always_last", **page_event)
    TURN_IT.layout(reading_state, reading_view, page_event)   # a section of the page, its events wired
    TWO_DIGITS.layout(page_event)                              # the last section, and /predict_pair

    gr.on([], predict, inputs=api_image, outputs=[api_reading, api_picture, reading_state],
          api_name="predict", show_progress="hidden")
    gr.on([], perturb, inputs=[reading_state, decode_as, *api_offsets], outputs=api_picture,
          api_name="perturb", show_progress="hidden")

demo.queue(default_concurrency_limit=serving.API_WORKERS)

if __name__ == "__main__":
    demo.launch(css=CSS, theme=gr.themes.Soft(), **serving.launch_options())
