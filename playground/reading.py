"""Draw a digit and watch the network read it: the drawing pad with MNIST test digits under it, the
reading panel (the digit, the ten capsule lengths, the 28x28 image the network sees, the
reconstruction and the runner-up's), *Decode as*; and the API's /predict and /perturb, which read an
image and move the capsules of that reading.

`ReadingSection.layout` lays the section out inside the app's Blocks. The page reads the drawings
and draws the panel (playground/page/reading_panel.js), asking its own networks or, where it
cannot, the server (playground/answers.py, which reads with `read`); the pad and the panel send
nothing to the server themselves. /predict's reading (`Reading`) is kept per user (gr.State) for
/perturb to move its capsules.
"""

import functools
import json
import numbers
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import gradio as gr
import numpy as np
import torch
from PIL import Image

from capsnet.data.preprocess import (
    BOX,
    CENTRE,
    FIELD,
    INK_THRESHOLD,
    MIN_CONTRAST,
    NoDigitError,
    SketchError,
    sketch_to_mnist,
)
from capsnet.digit_count import top_two
from capsnet.dimensions import PAPER_RANGE, perturb as perturb_capsule
from capsnet.model import CapsNet
from capsnet.routing import RoutingTrace
from playground import batches, drawing_pad, page_modules, photo, serving, views, zero_gpu
from playground.page_network import RUNTIME, RUNTIME_URLS, PageGraph

WINNER = "winner"  # Decode as: the longest capsule
API_PIXEL = 10  # /predict and /perturb give 280x280 pictures
MAX_ITERATIONS = 5  # each reading is routed for r = 1 .. 5, for the routing view
# What the page's modules make a drawing into the network's input with (playground/page/inks.js,
# ink_to_mnist.js), Python's numbers, so that page and server read alike.
PREPROCESSING = {
    "side": drawing_pad.SIDE,
    "brush": drawing_pad.BRUSH,
    "background_side": drawing_pad.BACKGROUND_SIDE,
    "field": FIELD,
    "box": BOX,
    "centre": CENTRE,
    "min_contrast": MIN_CONTRAST,
    "ink_threshold": INK_THRESHOLD,
}
EXAMPLES = sorted(
    Path(__file__).parent.parent.glob("assets/examples/*.png"), key=lambda path: path.stem.rsplit("_", 1)[-1]
)  # mnist_test_0003_digit_0.png


def example_ink(path: Path) -> tuple[int, np.ndarray]:
    """(digit, uint8 [28, 28] ink) of an example: an MNIST test digit saved 10x as black on white."""
    paper = Image.open(path).convert("L")
    return int(path.stem.rsplit("_", 1)[-1]), 255 - np.asarray(paper.reduce(paper.width // FIELD))


@dataclass(frozen=True, eq=False)
class Reading:
    """What the network made of one drawing, kept per user (gr.State): the sliders run only the
    decoder, the routing view only renders."""

    image: np.ndarray  # the network's input, [28, 28] in [0, 1]
    trace: RoutingTrace  # the routing for r = 1 .. MAX_ITERATIONS; the reading is r = 3's
    network: CapsNet = field(repr=False)  # the network that read it, whose decoder redraws it

    @property
    def capsules(self) -> torch.Tensor:
        """v_j, [10, 16], after the network's own number of routing iterations."""
        return self.trace.capsules[self.network.config.routing_iterations - 1]

    @property
    def lengths(self) -> np.ndarray:
        return self.trace.lengths[self.network.config.routing_iterations - 1].numpy()

    @property
    def winner(self) -> int:
        return int(self.trace.predictions[self.network.config.routing_iterations - 1])

    @property
    def runner_up(self) -> int:
        """The second-longest capsule: what else the drawing could be."""
        return int(top_two(self.trace.lengths[self.network.config.routing_iterations - 1])[1])

    def decoded_digit(self, decode_as: str) -> int:
        """The capsule to decode: the winner, or the digit the user chose."""
        return self.winner if decode_as == WINNER else int(decode_as)

    def reconstruction(self, digit: int, offsets=None) -> torch.Tensor:
        """The decoder's [28, 28] picture of capsule ``digit`` moved by ``offsets`` (16 numbers;
        None: not moved)."""
        moved = torch.zeros(self.capsules.shape[-1]) if offsets is None else torch.tensor(offsets, dtype=torch.float32)
        capsules = perturb_capsule(self.capsules, digit, moved)  # [10, 16]
        with serving.network_slot(), torch.inference_mode():
            return self.network.decode(capsules[None], torch.tensor([digit]))[0, 0]

    @cached_property
    def runner_up_reconstruction(self) -> torch.Tensor:
        """The decoder's [28, 28] picture of the runner-up, once per reading: every slider move
        redraws the panel that shows it."""
        return self.reconstruction(self.runner_up)


def read(network: CapsNet, image: np.ndarray) -> Reading:
    """Run the network on a 28x28 image: the convolutions once, routing for every r shown; the
    convolutions in one batch with the other drawings read at the same moment (`batches`)."""
    trace = traced_together(network)(torch.from_numpy(image)[None])  # [1, 28, 28]
    return Reading(image, trace, network)


@functools.cache
def traced_together(network: CapsNet) -> batches.Batched:
    """``network``'s routing traces (r = 1 .. MAX_ITERATIONS) of images [1, 28, 28] asked for at the
    same moment, computed as one batch."""
    return batches.Batched(lambda images: network.routing_traces(torch.stack(images), MAX_ITERATIONS))


@dataclass(frozen=True, eq=False)
class ReadingSection:
    """The drawing pad and the reading panel over the app's CapsNet, and /predict and /perturb."""

    network: CapsNet
    decoder: PageGraph  # the network's decoder, for the page to redraw with
    page_network: PageGraph  # the network up to its capsules, for the page to read drawings with
    routing_graph: PageGraph  # its votes routed for r = 1 .. MAX_ITERATIONS, for the page's routing view

    @property
    def decode_choices(self) -> list[str]:
        return [WINNER] + [str(digit) for digit in range(self.network.config.num_classes)]

    def predict(self, image: Image.Image | np.ndarray | None) -> tuple[dict | None, np.ndarray | None, Reading | None]:
        """/predict: read an image (any size, dark ink on light paper or the reverse, or strokes on a
        transparent background): the digit and the ten capsule lengths, the winner's reconstruction
        (280x280), and the reading /perturb works on. None for an empty or unreadable image; an
        error answer (gr.Error) for a picture in which no digit is found, saying why.

        Args:
            image: the uploaded file as Gradio opens it, a PIL image in the file's own mode (or an
                array). Not Gradio's array of it: for a palette image (a GIF, an 8-bit PNG) that holds
                the palette's indices, not its colours, and for CMYK or YCbCr channels an array cannot
                name; `sketch_to_mnist` converts every mode by what its pixels mean.
        """
        try:
            pixels = sketch_to_mnist(image)
        except NoDigitError as error:  # a picture, but of no digit: an error answer, so that a caller sees why
            raise gr.Error(f"Cannot read this image: {error}") from None
        except (SketchError, OSError) as error:  # OSError: PIL cannot decode the file's pixels
            gr.Warning(f"Cannot read this image: {error}")
            return None, None, None
        if pixels is None:
            return None, None, None
        reading = read(self.network, pixels)
        answer = {"digit": reading.winner, "lengths": [round(float(x), 4) for x in reading.lengths]}
        picture = views.paper(reading.reconstruction(reading.winner))
        return answer, views.upscaled(picture, API_PIXEL), reading

    def perturb(self, reading: Reading | None, decode_as: str, *offsets: float) -> np.ndarray | None:
        """/perturb: the reconstruction (280x280) with the 16 dimension offsets added to the chosen
        capsule of the last image read by /predict in this session.

        Args:
            reading: the last image read in this session (None before any).
            decode_as: "winner" or a digit "0".."9": which capsule to decode.
            offsets: one number per dimension, each in [-0.25, 0.25].
        """
        dimensions = self.network.config.digit_capsule_dim
        if (
            decode_as not in self.decode_choices
            or len(offsets) != dimensions
            or not all(isinstance(x, numbers.Real) and -PAPER_RANGE <= x <= PAPER_RANGE for x in offsets)
        ):
            raise gr.Error(
                f"/perturb takes decode_as, one of {self.decode_choices}, and {dimensions} "
                f"dimension offsets, each a number in [-{PAPER_RANGE}, {PAPER_RANGE}]; "
                f"got {decode_as!r} and {list(offsets)}"
            )
        if reading is None:
            gr.Warning("Read a digit first (/predict): /perturb changes the capsules of that reading.")
            return None
        picture = views.paper(reading.reconstruction(reading.decoded_digit(decode_as), offsets))
        return views.upscaled(picture, API_PIXEL)

    def reader_files(self) -> tuple[str, ...]:
        """The files the page's reader fetches before its first reading, addresses relative to the
        page: ONNX Runtime Web's and the routing and capsules graphs; the page's head asks for them
        (page_modules.head). Its decoder comes later, on the person's first touch."""
        return (*RUNTIME_URLS, self.routing_graph.url, self.page_network.url)

    def layout(self) -> gr.Radio:
        """The pad beside the reading panel and *Decode as*, laid out where it is called inside the
        app's Blocks; *Decode as*, for the sliders to follow. The panel's "submit" event (a new
        finished drawing, decoded as its winner) sets *Decode as* back to the winner in the page."""
        with gr.Row(equal_height=False):
            with gr.Column(scale=5, min_width=300):
                pad = drawing_pad.DrawingPad(
                    [drawing_pad.digit_example(*example_ink(path)) for path in EXAMPLES], elem_id="pad"
                )
                photo.layout(pad)
            with gr.Column(scale=4, min_width=300):
                reading_view = ReadingView(
                    elem_id="reading-panel",
                    strip_pad="pad",
                    strip_height=110,
                    decoder_url=self.decoder.url,
                    network_url=self.page_network.url,
                    routing_url=self.routing_graph.url,
                    runtime_url=RUNTIME,
                    reader_pad="pad",
                    facts={**PREPROCESSING, "classes": self.network.config.num_classes},
                )
                decode_as = gr.Radio(
                    self.decode_choices,
                    value=WINNER,
                    label="Decode as",
                    info="which digit capsule the decoder redraws from",
                    elem_id="decode-as",
                )
        reading_view.submit(None, js=f"() => {json.dumps(WINNER)}", outputs=decode_as, **serving.PAGE_EVENT)
        return decode_as

    def api(self, reading: gr.State, decode_as: gr.Radio) -> None:
        """/predict and /perturb, with input and output components of their own (an image file in,
        a picture out), never shown on the page; /perturb decodes as ``decode_as`` says."""
        image = gr.Image(type="pil", image_mode=None, visible=False)
        answer = gr.JSON(visible=False)
        picture = gr.Image(format="png", visible=False)
        offsets = [
            gr.Slider(-PAPER_RANGE, PAPER_RANGE, value=0.0, label=f"dimension {d + 1}", visible=False)
            for d in range(self.network.config.digit_capsule_dim)
        ]
        gr.on(
            [],
            zero_gpu.api_call(self.predict),
            inputs=image,
            outputs=[answer, picture, reading],
            api_name="predict",
            show_progress="hidden",
        )
        gr.on(
            [],
            zero_gpu.api_call(self.perturb),
            inputs=[reading, decode_as, *offsets],
            outputs=picture,
            api_name="perturb",
            show_progress="hidden",
        )


class ReadingView(gr.HTML):
    """The reading panel, drawn by the page (playground/page/reading_panel.js, reading_view.js)
    from the readings of the pad of prop ``reader_pad``; it fires "submit" for each new finished
    drawing read."""

    def __init__(self, **kwargs):
        super().__init__(
            html_template='<div class="reading-view"></div>',
            js_on_load=page_modules.mounted("reading_panel.js", events=("submit",)),
            **kwargs,
        )
