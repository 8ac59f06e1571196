"""Capsule Network Playground: draw a digit, watch the capsules, drag the 16 dimensions.

A Gradio app over the capsnet library. `python app.py` serves it on 127.0.0.1:7860
(GRADIO_SERVER_NAME / GRADIO_SERVER_PORT change that); CAPSNET_WEIGHTS names the weights: a
folder or a Hugging Face Hub repo id, `weights` by default.

API (gradio_client), in one client session:
    /predict  sketch -> the reading {"digit", "lengths"} and the reconstruction
    /perturb  decode_as ("winner" or "0".."9"), 16 dimension offsets -> the reconstruction of the
              last sketch read by /predict in this session
"""
import ctypes
import numbers
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import gradio as gr
from gradio import processing_utils
import numpy as np
import torch
from PIL import Image

from capsnet import load_model, sketch_to_mnist
from capsnet.agreement import RoutingTrace, agreement, heatmap_overlay, routing_by_iterations, vote_heatmap
from capsnet.compiled import compile_for_one_image
from capsnet.dimensions import SWEEP, perturb as perturb_capsule, sweep_reconstructions
from capsnet.preprocess import SketchError


def limit_malloc_arenas(arenas: int = 2) -> None:
    """Cap glibc's malloc arenas, as MALLOC_ARENA_MAX does. By default every thread that allocates
    may get an arena of its own (up to 8 per core), each keeping the memory freed in it: across
    Gradio's worker threads the server's RSS grew by 192 MB over 1,024 requests, and by 3 MB with
    two arenas (bench/app_load.py). Does nothing where the C library is not glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    m_arena_max = -8                                  # M_ARENA_MAX in glibc's malloc.h
    libc.mallopt(m_arena_max, arenas)


limit_malloc_arenas()
# PIL refuses to decode uploads of more than twice this many pixels (a 10 MB PNG can hold 90 Mpx
# of a single colour, 360 MB once decoded to RGBA); the network needs 28x28 of them.
Image.MAX_IMAGE_PIXELS = 4096 * 4096
MODEL = load_model(os.environ.get("CAPSNET_WEIGHTS", "weights"))
READ_ONE_IMAGE = compile_for_one_image(MODEL)     # MODEL's forward pass for one drawing, compiled
DIGITS = MODEL.config.num_classes                 # 10 digit capsules ...
DIMENSIONS = MODEL.config.digit_capsule_dim       # ... of 16 dimensions each
OFFSET_LIMIT = 0.25                               # sliders span the paper's [-0.25, 0.25] ...
OFFSET_STEP = 0.01                                # ... finer than its steps of 0.05
PIXEL = 10                                        # a 28x28 image is shown as 280x280, crisp blocks
FIGURE4_PIXEL = 2                                 # Figure-4 tiles are 56x56
WINNER = "winner"
DECODE_CHOICES = [WINNER] + [str(digit) for digit in range(DIGITS)]
EXAMPLES = sorted(Path(__file__).parent.glob("assets/examples/*.png"),
                  key=lambda path: path.stem.rsplit("_", 1)[-1])  # mnist_test_0003_digit_0.png


def save_pil_to_cache_atomically(img, cache_dir: str, name: str = "image", format: str = "webp") -> str:
    """Gradio's processing_utils.save_pil_to_cache, but written to a temporary file renamed into
    place. Gradio names an output image after the hash of its bytes and rewrites that file each
    time the same image is returned again (two users reading the same example), so a client
    still downloading it from the earlier request could get it empty."""
    data = processing_utils.encode_pil_to_bytes(img, format)
    folder = Path(cache_dir) / processing_utils.hash_bytes(data)
    folder.mkdir(exist_ok=True, parents=True)
    with tempfile.NamedTemporaryFile(dir=folder, suffix=".part", delete=False) as part:
        part.write(data)
    path = (folder / f"{name}.{format}").resolve()
    os.replace(part.name, path)
    return str(path)


processing_utils.save_pil_to_cache = save_pil_to_cache_atomically


@dataclass(frozen=True)
class Reading:
    """What the network made of one drawing, kept per user (gr.State) so that the sliders run
    only the decoder."""
    image: np.ndarray        # the network's input, [28, 28] in [0, 1]
    capsules: torch.Tensor   # v_j, [10, 16]
    lengths: np.ndarray      # |v_j|, [10]
    winner: int              # the longest capsule


def picture(pixels: np.ndarray | torch.Tensor, scale: int = PIXEL) -> np.ndarray:
    """uint8 [28*scale, 28*scale]: ink (1) black on white paper, each pixel a crisp block."""
    paper = 255 - np.rint(np.asarray(pixels, dtype=np.float32) * 255).astype(np.uint8)
    return paper.repeat(scale, axis=0).repeat(scale, axis=1)


def figure4_picture(images: torch.Tensor) -> np.ndarray:
    """One uint8 image of the [16, 11, 28, 28] sweep: a row per dimension, grey lines between."""
    rows, columns, side, _ = images.shape
    tiles = np.full((rows, side + 1, columns, side + 1), 48 / 255, dtype=np.float32)  # faint ink
    tiles[:, :side, :, :side] = images.numpy().transpose(0, 2, 1, 3)   # [16, 28, 11, 28]
    return picture(tiles.reshape(rows * (side + 1), columns * (side + 1)), FIGURE4_PIXEL)


def reading_html(reading: Reading | None) -> str:
    """The predicted digit, large, with its capsule length."""
    if reading is None:
        return ('<div class="reading"><div class="digit empty">?</div>'
                '<div class="caption">Draw a digit</div></div>')
    return (f'<div class="reading"><div class="digit">{reading.winner}</div>'
            f'<div class="caption">capsule length {reading.lengths[reading.winner]:.3f}</div></div>')


def lengths_svg(reading: Reading | None) -> str:
    """A bar chart of the ten capsule lengths in digit order, the winner highlighted."""
    lengths = np.zeros(DIGITS) if reading is None else reading.lengths
    bars = []
    for digit, length in enumerate(lengths):
        x, height = 8 + 30 * digit, 100 * float(length)
        colour = "bar winner" if reading is not None and digit == reading.winner else "bar"
        bars.append(f'<rect class="{colour}" x="{x}" y="{112 - height:.1f}" width="22" '
                    f'height="{height:.1f}" rx="2"/>'
                    f'<text x="{x + 11}" y="128" class="axis">{digit}</text>'
                    f'<text x="{x + 11}" y="{108 - height:.1f}" class="value">{length:.2f}</text>')
    return ('<svg class="lengths" viewBox="0 0 310 134" role="img" '
            'aria-label="lengths of the ten digit capsules">'
            '<line x1="4" x2="306" y1="112.5" y2="112.5" class="baseline"/>'
            f'{"".join(bars)}</svg>')


def decoded_digit(reading: Reading, decode_as: str) -> int:
    """The capsule to decode: the winner, or the digit the user chose."""
    return reading.winner if decode_as == WINNER else int(decode_as)


def reconstruction(reading: Reading, decode_as: str, offsets) -> np.ndarray:
    """The decoder's picture of the chosen capsule moved by ``offsets`` (16 numbers)."""
    digit = decoded_digit(reading, decode_as)
    capsules = perturb_capsule(reading.capsules, digit, torch.tensor(offsets, dtype=torch.float32))
    with torch.inference_mode():
        image = MODEL.decode(capsules[None], torch.tensor([digit]))  # [1, 1, 28, 28]
    return picture(image[0, 0])


def predict(sketch) -> tuple[dict | None, np.ndarray | None, Reading | None]:
    """Read a drawing: the digit and the ten capsule lengths, the winner's reconstruction, and
    the Reading kept for the sliders (all None for an empty canvas or an unreadable image).

    Args:
        sketch: the Sketchpad value (background / layers / composite) or an image array.
    """
    try:
        image = sketch_to_mnist(sketch)
    except SketchError as error:
        gr.Warning(f"Cannot read this image: {error}")
        return None, None, None
    if image is None:
        return None, None, None
    with torch.inference_mode():
        out = READ_ONE_IMAGE(torch.from_numpy(image)[None, None])     # a batch of one
    lengths = out.lengths[0].numpy()
    reading = Reading(image, out.capsules[0], lengths, int(out.prediction[0]))
    answer = {"digit": reading.winner, "lengths": [round(float(x), 4) for x in lengths]}
    return answer, picture(out.reconstruction[0, 0]), reading


def show_reading(reading: Reading | None) -> tuple:
    """Everything else a new reading changes: the network's input, the big digit, the bars, and
    the decoding controls back to the winner at zero offsets."""
    network_view = None if reading is None else picture(reading.image)
    return (network_view, reading_html(reading), lengths_svg(reading), WINNER,
            *[0.0] * DIMENSIONS)


def draw_figure4(reading: Reading | None, decode_as: str) -> np.ndarray | None:
    """The paper's Figure 4 for this drawing: each row one dimension swept over [-0.25, 0.25]."""
    if reading is None:
        return None
    with torch.inference_mode():
        images = sweep_reconstructions(MODEL, reading.capsules, decoded_digit(reading, decode_as))
    return figure4_picture(images)


def perturb(reading: Reading | None, decode_as: str, *offsets: float) -> np.ndarray | None:
    """The reconstruction with the 16 dimension offsets added to the chosen capsule.

    Args:
        reading: the last drawing read in this session (None before any).
        decode_as: "winner" or a digit "0".."9": which capsule to decode.
        offsets: one number per dimension, each in [-0.25, 0.25].
    """
    if decode_as not in DECODE_CHOICES or len(offsets) != DIMENSIONS or not all(
            isinstance(x, numbers.Real) and -OFFSET_LIMIT <= x <= OFFSET_LIMIT for x in offsets):
        raise gr.Error(f"/perturb takes decode_as, one of {DECODE_CHOICES}, and {DIMENSIONS} "
                       f"dimension offsets, each a number in [-{OFFSET_LIMIT}, {OFFSET_LIMIT}]; "
                       f"got {decode_as!r} and {list(offsets)}")
    if reading is None:
        gr.Warning("Draw a digit first: the sliders change the capsules of your drawing.")
        return None
    return reconstruction(reading, decode_as, offsets)


def reset_dimensions(reading: Reading | None, decode_as: str) -> tuple:
    """All sliders back to zero, and the unperturbed reconstruction."""
    image = None if reading is None else reconstruction(reading, decode_as, [0.0] * DIMENSIONS)
    return (*[0.0] * DIMENSIONS, image)


MAX_ITERATIONS = 5
ALL_TYPES = -1  # the capsule-type slider's value for "all 32 types"
ROUTING_EXPLANATION = (
    "**Routing by agreement:** every primary capsule *i* predicts each digit capsule's output "
    "(û<sub>j|i</sub> = W<sub>ij</sub> u<sub>i</sub>), and at each iteration it sends more of its vote "
    "(the coupling c<sub>ij</sub>) to the digit capsules whose output agrees with its prediction, so the "
    "digit whose voters agree grows long and the others shrink.")


def routing_trace(reading: Reading | None) -> RoutingTrace | None:
    """The routing of the current drawing for r = 1 .. 5, or None for an empty canvas."""
    if reading is None:
        return None
    with torch.inference_mode():
        return routing_by_iterations(MODEL, torch.from_numpy(reading.image)[None, None], MAX_ITERATIONS)


def lengths_table(trace: RoutingTrace, iterations: int) -> str:
    """HTML: one row per r, the ten capsule lengths as bars, the winner in bold, row r outlined."""
    header = "".join(f"<th>{digit}</th>" for digit in range(10))
    rows = []
    for r, (lengths, winner) in enumerate(zip(trace.lengths.tolist(), trace.predictions.tolist()), start=1):
        cells = "".join(
            f"<td style='background:linear-gradient(to top,rgba(227,26,28,.45) {100 * length:.0f}%,"
            f"transparent {100 * length:.0f}%);{'font-weight:700' if digit == winner else ''}'>"
            f"{length:.2f}</td>" for digit, length in enumerate(lengths))
        outline = "outline:2px solid #e31a1c;" if r == iterations else ""
        rows.append(f"<tr style='{outline}'><th>r = {r}</th>{cells}<td><b>{winner}</b></td></tr>")
    return ("<table style='width:100%;text-align:center;border-collapse:collapse;font-variant-numeric:tabular-nums'>"
            f"<tr><th>iterations</th>{header}<th>reads</th></tr>{''.join(rows)}</table>"
            "<small>Capsule lengths |v<sub>j</sub>| for each number of routing iterations r.</small>")


def agreement_text(trace: RoutingTrace, iterations: int, capsule_type: int) -> str:
    """Markdown: the winner's and runner-up's agreement at r iterations, and what the map shows."""
    k = iterations - 1
    a = agreement(trace.u_hat, trace.capsules[k], trace.couplings[k])     # [10]
    winner, runner_up = trace.lengths[k].topk(2).indices.tolist()
    types = "all 32 capsule types" if capsule_type == ALL_TYPES else f"capsule type {capsule_type} only"
    return (f"**Agreement** at r = {iterations} (coupling-weighted mean cosine between each vote "
            f"û<sub>j|i</sub> and the output v<sub>j</sub>; 1 = all voters agree): "
            f"winner **{winner}**: **{a[winner]:.2f}** · runner-up {runner_up}: {a[runner_up]:.2f}\n\n"
            f"The map shows where the votes for **{winner}** come from ({types}): each square is one "
            "of the 6x6 primary-capsule positions, drawn at the centre of the 17x17 patch of your digit "
            "that it sees (the strongest one's patch is outlined in blue), coloured by its share "
            "c<sub>ij</sub>|û<sub>j|i</sub>| of the votes: orange = an average share, dark red = twice "
            "that or more, white = none.")


def show_routing(reading: Reading | None, trace: RoutingTrace | None, iterations: int, capsule_type: int):
    """Render the stored trace at r iterations: the vote heatmap, the lengths table, the agreement."""
    if reading is None or trace is None:
        return None, "", ""
    iterations, capsule_type = int(iterations), int(capsule_type)
    k = iterations - 1
    winner = int(trace.predictions[k])
    heat = vote_heatmap(trace.couplings[k], trace.u_hat, winner,
                        None if capsule_type == ALL_TYPES else capsule_type)   # [6, 6]
    return (heatmap_overlay(reading.image, heat), lengths_table(trace, iterations),
            agreement_text(trace, iterations, capsule_type))


def new_routing(reading: Reading | None, iterations: int, capsule_type: int):
    """A new drawing: route it for r = 1 .. 5, keep the trace, render it."""
    trace = routing_trace(reading)
    return (trace, *show_routing(reading, trace, iterations, capsule_type))


INTRODUCTION = """
# Capsule Network Playground
Draw a digit and watch a **capsule network** (Sabour, Frosst & Hinton 2017,
[*Dynamic Routing Between Capsules*](https://arxiv.org/abs/1710.09829)) read it, live.
"""

EXPLANATION = """
### What am I looking at?
- **Capsules.** An ordinary network gives one number per digit. A capsule network gives each digit a
  *capsule*: a small vector, here of 16 numbers.
- **Length = presence.** A capsule's length (0 to 1) is how sure the network is that its digit is
  there. The longest capsule is the reading; the bars show all ten.
- **Direction = pose.** The 16 numbers (dimensions) describe *how* the digit is drawn: thickness,
  slant, width, the size of a loop... A decoder redraws the digit from the winning capsule alone.
  Drag a slider to nudge one dimension and watch what it encodes; the grid does it for all 16 at
  once (the paper's Figure 4). *Decode as* feeds your drawing's pose to another digit's capsule.
"""

CSS = """
.crisp img { image-rendering: pixelated; }
.reading { text-align: center; padding: 4px 0; }
.reading .digit { font-size: 104px; font-weight: 700; line-height: 1; color: var(--color-accent); }
.reading .digit.empty { color: var(--body-text-color-subdued); opacity: 0.4; }
.reading .caption { font-size: 15px; color: var(--body-text-color-subdued); }
svg.lengths { width: 100%; height: auto; }
svg.lengths .bar { fill: var(--neutral-300); }
svg.lengths .bar.winner { fill: var(--color-accent); }
svg.lengths .baseline { stroke: var(--neutral-400); stroke-width: 1; }
svg.lengths text { font-size: 10px; text-anchor: middle; fill: var(--body-text-color); }
svg.lengths text.value { font-size: 8px; fill: var(--body-text-color-subdued); }
"""

# The editor starts with no tool selected; pick its brush so that drawing works at once.
SELECT_BRUSH = """
() => {
  let tries = 0;
  const pick = () => {
    const brush = document.querySelector('#sketch button[aria-label="Brush"]');
    if (brush) brush.click(); else if (++tries < 100) setTimeout(pick, 100);
  };
  pick();
}
"""

with gr.Blocks(title="Capsule Network Playground") as demo:
    reading_state = gr.State(None)
    gr.Markdown(INTRODUCTION)
    with gr.Row(equal_height=False):
        with gr.Column(scale=5, min_width=320):
            sketch = gr.Sketchpad(
                label="Draw a digit", elem_id="sketch", type="numpy", image_mode="RGBA",
                canvas_size=(448, 448), fixed_canvas=True, layers=False, transforms=(),
                brush=gr.Brush(colors=["#000000"], color_mode="fixed", default_size=14),
                buttons=[], height=560)
            examples = gr.Examples(examples=[str(path) for path in EXAMPLES], inputs=sketch,
                                   label="Or start from an MNIST test digit",
                                   examples_per_page=len(EXAMPLES), api_visibility="private")
        with gr.Column(scale=4, min_width=320):
            with gr.Row():
                network_view = gr.Image(label="What the network sees (28x28)", format="png",
                                        interactive=False, buttons=[], elem_classes="crisp")
                digit_view = gr.HTML(reading_html(None), label="Reading")
            bars = gr.HTML(lengths_svg(None), label="Capsule lengths")
            with gr.Row():
                reconstruction_view = gr.Image(label="Reconstruction from the capsule", format="png",
                                               elem_id="reconstruction",
                                               interactive=False, buttons=[], elem_classes="crisp")
                with gr.Column():
                    decode_as = gr.Radio(DECODE_CHOICES, value=WINNER, label="Decode as")
                    reading_json = gr.JSON(label="reading", visible=False)
    gr.Markdown("### The 16 dimensions of the capsule\nEach slider adds an offset to one "
                "dimension; the reconstruction above follows.")
    with gr.Row(equal_height=False):
        with gr.Column(scale=5, min_width=320):
            sliders = []
            for first in range(0, DIMENSIONS, 4):
                with gr.Row():
                    sliders += [gr.Slider(-OFFSET_LIMIT, OFFSET_LIMIT, value=0.0, step=OFFSET_STEP,
                                          label=f"dimension {d + 1}", min_width=120,
                                          elem_id=f"dimension-{d + 1}")
                                for d in range(first, first + 4)]
            reset_button = gr.Button("Reset sliders", variant="secondary")
            gr.Markdown(EXPLANATION)
        with gr.Column(scale=4, min_width=320):
            figure4 = gr.Image(label=f"Figure 4: each row one dimension, from {SWEEP[0]:+.2f} "
                                     f"(left) to {SWEEP[-1]:+.2f} (right)", format="png", interactive=False, buttons=[],
                               elem_id="figure4", elem_classes="crisp")

    with gr.Accordion("Routing: where the votes come from", open=True):
        gr.Markdown(ROUTING_EXPLANATION)
        routing_state = gr.State(None)
        with gr.Row():
            with gr.Column(scale=1):
                heatmap = gr.Image(label="Votes for the winner, over your digit", type="numpy",
                                   interactive=False, height=280, width=280, format="png", buttons=[],
                                   elem_id="routing-heatmap", elem_classes="crisp")
            with gr.Column(scale=2):
                iterations = gr.Slider(1, MAX_ITERATIONS, value=3, step=1, label="Routing iterations r",
                                       info="the paper uses 3; 1 means no routing (uniform couplings)",
                                       elem_id="routing-iterations")
                capsule_type = gr.Slider(ALL_TYPES, 31, value=ALL_TYPES, step=1, label="Primary capsule type",
                                         info="-1: all 32 types together; 0-31: one type at a time",
                                         elem_id="routing-type")
                routing_table = gr.HTML(elem_id="routing-table")
                agreement_view = gr.Markdown(elem_id="routing-agreement")

    def read_sketch_on(trigger, **options) -> None:
        """Wire ``trigger`` to read the sketch, then refresh everything that depends on it."""
        trigger(
            predict, inputs=sketch, outputs=[reading_json, reconstruction_view, reading_state],
            show_progress="hidden", **options,
        ).then(
            show_reading, inputs=reading_state,
            outputs=[network_view, digit_view, bars, decode_as, *sliders],
            api_visibility="private", show_progress="hidden",
        ).then(
            draw_figure4, inputs=[reading_state, decode_as], outputs=figure4,
            api_visibility="private", show_progress="hidden",
        ).then(
            new_routing, inputs=[reading_state, iterations, capsule_type],
            outputs=[routing_state, heatmap, routing_table, agreement_view],
            api_visibility="private", show_progress="hidden",
        )

    read_sketch_on(sketch.change, api_name="predict", trigger_mode="always_last")
    # Loading an example into the editor does not fire its change event.
    read_sketch_on(examples.load_input_event.then, api_visibility="private")
    gr.on(
        [slider.input for slider in sliders] + [decode_as.input], perturb,
        inputs=[reading_state, decode_as, *sliders], outputs=reconstruction_view,
        api_name="perturb", trigger_mode="always_last", show_progress="hidden",
    )
    decode_as.input(draw_figure4, inputs=[reading_state, decode_as], outputs=figure4,
                    api_visibility="private", trigger_mode="always_last", show_progress="hidden")
    reset_button.click(reset_dimensions, inputs=[reading_state, decode_as],
                       outputs=[*sliders, reconstruction_view], api_visibility="private",
                       show_progress="hidden")

    gr.on([iterations.change, capsule_type.change], show_routing,
          inputs=[reading_state, routing_state, iterations, capsule_type],
          outputs=[heatmap, routing_table, agreement_view], api_visibility="private",
          trigger_mode="always_last", show_progress="hidden")

demo.queue(default_concurrency_limit=8)

if __name__ == "__main__":
    demo.launch(css=CSS, js=SELECT_BRUSH, theme=gr.themes.Soft(), max_file_size="10mb",
                footer_links=["api"], show_error=True)
