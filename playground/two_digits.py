"""Two digits: draw one digit over another with two pens (or one digit alone) and watch a CapsNet
trained on overlapping pairs and single digits read them and redraw each from its own capsule (the
paper's section 6, Figure 5), beside a CNN trained on the same examples. The reading of a drawing is
`two_digits_reading`'s (one digit or two, as each network's count rule says), the introduction and
what the measurement found above the pad `two_digits_text`'s.

`TwoDigitsSection.layout` lays the section out inside the app's Blocks: a drawing pad of two pens
(`DrawingPad` with two colours: each stroke's pen travels with it, and the networks read the
overlay of both pens' ink, the colours only for the person), the section's panel (`PairView`, drawn
by the page), *Decode as*, and the API's `/predict_pair`.

The page reads a drawing as the MNIST pad's is read (playground/page_network.py): both pairs
networks' graphs (`PairGraphs`) are served under their hashes and named to the page in the panel's
settings (`TwoDigitsSection.page_settings`), with the numbers with which the page makes a drawing
into the networks' input and counts (playground/page/two_digits_reading.js). The panel's module
fetches them once the section nears the screen and reads the pad's drawings and redraws Decode as
with them (playground/page/two_digits_panel.js); until they are in, or where they cannot run, the
server answers the same questions (playground/answers.py, with `PairReader`).

The pad's pens and its examples (MNIST test pairs): `two_digits_pad`.
"""

import dataclasses
from dataclasses import InitVar, dataclass, field

import gradio as gr
import numpy as np
from starlette.routing import Route

from capsnet.data.preprocess import NoDigitError, SketchError, sketch_to_mnist
from capsnet.shipping.published_graphs import graphs
from playground import drawing_pad, page_graphs, page_modules, views, zero_gpu
from playground.networks import PairNetworks
from playground.page_network import RUNTIME, PageGraph
from playground.reading import PREPROCESSING
from playground.two_digits_pad import PENS, examples
from playground.two_digits_reading import PairReader
from playground.two_digits_text import INTRODUCTION, PAPER_CLAIM, measured
from playground.two_digits_views import figure5

TWO_READ = "the two read"
DECODE_CHOICES = [TWO_READ] + [str(digit) for digit in range(10)]
API_PIXEL = 10  # /predict_pair's picture is 280x280
PAIR_STRIP_HEIGHT = 120  # the panel's two digits and their redrawings on a narrow screen, CSS pixels
DECODE_PAIR_AS = page_modules.called("two_digits_panel.js", "decodeAs")  # Decode as's js: redrawn in the page
PROMPT = (
    "Draw a digit with pen 1, then another over it with pen 2, or one digit alone (or tap an MNIST test "
    "pair): each capsule redraws its own."
)


@dataclass(frozen=True)
class PairGraphs:
    """The pairs networks as graphs for the page (`capsnet.shipping.onnx_file`), each served at an
    address named by its hash (`PageGraph`)."""

    capsules: PageGraph  # the pairs CapsNet up to its digit capsules, its weights in float16: the
    # 8 bits of the MNIST CapsNet's graph were chosen on MNIST's digits, not measured on pairs
    decoder: PageGraph  # its decoder: each digit read redrawn from its own capsule
    sigmoids: PageGraph  # the pairs CNN's ten sigmoids

    @classmethod
    def of(cls, pairs: PairNetworks) -> "PairGraphs":
        capsnet_folder, cnn_folder = pairs.folders
        capsnet = graphs(capsnet_folder, page_graphs.pairs_capsnet_graphs(pairs.capsnet))  # published, else exported
        cnn = graphs(cnn_folder, page_graphs.pairs_cnn_graphs(pairs.cnn))
        return cls(PageGraph.of(capsnet["capsules"]), PageGraph.of(capsnet["decoder"]), PageGraph.of(cnn["sigmoids"]))

    def routes(self) -> list[Route]:
        return [self.capsules.route(), self.decoder.route(), self.sigmoids.route()]


@dataclass(eq=False)
class TwoDigitsSection:
    """The Two-digits section over the pairs CapsNet and the pairs CNN (`PairReader`), counting as
    pairs.json chose for them; without them (``problem`` says why) it explains itself and how to
    train them."""

    pairs: InitVar[PairNetworks]
    reader: PairReader | None = field(init=False)  # None without the networks
    graphs: PairGraphs | None = field(init=False)  # the networks for the page to read with; None without them
    problem: str | None = field(init=False)  # why the networks could not be loaded
    finding: str = field(init=False)  # what pairs.json found, or why there is none (Markdown)

    def __post_init__(self, pairs: PairNetworks):
        self.problem = pairs.problem
        if pairs.problem is not None:
            self.reader, self.graphs, self.finding = None, None, "Nothing to measure without the networks."
            return
        self.reader, self.finding = PairReader.of(pairs), measured(pairs.measurement)
        self.graphs = PairGraphs.of(pairs)

    def routes(self) -> list[Route]:
        """GET /network/NAME.onnx for each of the pairs networks' graphs; none without the networks."""
        return [] if self.graphs is None else self.graphs.routes()

    def page_settings(self) -> dict:
        """What the page reads a drawing with, as the panel's props: ONNX Runtime Web's folder, the
        graphs' addresses, and ``facts``: the preprocessing's numbers (`reading.PREPROCESSING`), the
        networks' classes, the pens and their colours, each network's count rule (its lines as
        pairs.json chose them: "second", and "second_ink" or None)."""
        return {
            "runtime_url": RUNTIME,
            "capsules_url": self.graphs.capsules.url,
            "decoder_url": self.graphs.decoder.url,
            "sigmoids_url": self.graphs.sigmoids.url,
            "facts": {
                **PREPROCESSING,
                "classes": self.reader.capsnet.config.num_classes,
                "pen_colours": list(PENS),
                "rule": dataclasses.asdict(self.reader.rule),
                "cnn_rule": dataclasses.asdict(self.reader.cnn_rule),
            },
        }

    def predict_pair(self, image) -> tuple[dict | None, np.ndarray | None]:
        """/predict_pair: read an image of one digit or two overlapping (any size, dark ink on light
        paper or the reverse): how many digits and which, the ten capsule lengths, the CNN's count,
        digits and ten probabilities, and the digits read redrawn from their own capsules over the
        input (Figure 5, 280x280, the longer capsule's digit in blue). None for an empty or
        unreadable image; an error answer (gr.Error) for a picture in which no digit is found."""
        if self.problem is not None:
            raise gr.Error(f"The pairs networks are not loaded: {self.problem}")
        try:
            pixels = sketch_to_mnist(image)
        except NoDigitError as error:  # a picture, but of no digit: an error answer, so that a caller sees why
            raise gr.Error(f"Cannot read this image: {error}") from None
        except (SketchError, OSError) as error:
            gr.Warning(f"Cannot read this image: {error}")
            return None, None
        if pixels is None:
            return None, None
        reading = self.reader.read(np.stack([pixels, np.zeros_like(pixels)]))
        answer = {
            "count": len(reading.read),
            "digits": list(reading.read),
            "lengths": [round(float(x), 4) for x in reading.lengths],
            "second_ink": round(reading.second_ink, 4),
            "count_rule": dataclasses.asdict(self.reader.rule),
            "cnn_count": len(reading.cnn_read),
            "cnn_digits": list(reading.cnn_read),
            "cnn_probabilities": [round(float(x), 4) for x in reading.probabilities],
            "cnn_count_rule": dataclasses.asdict(self.reader.cnn_rule),
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
            zero_gpu.api_call(self.predict_pair),
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
        with gr.Row(equal_height=False):
            with gr.Column(scale=5, min_width=300):
                drawing_pad.DrawingPad(
                    examples(),
                    colours=PENS,
                    hint="Draw a digit, then another over it with pen 2, or one alone",
                    examples_caption="or start from an MNIST test pair",
                    elem_id="pair-pad",
                )
            with gr.Column(scale=4, min_width=300):
                PairView(
                    prompt=PROMPT,
                    elem_id="pair-panel",
                    strip_pad="pair-pad",
                    strip_height=PAIR_STRIP_HEIGHT,
                    reader_pad="pair-pad",
                    **self.page_settings(),
                )
                decode_as = gr.Radio(
                    DECODE_CHOICES,
                    value=TWO_READ,
                    label="Decode as",
                    elem_id="pair-decode-as",
                    info="redraw another digit's capsule too: one of a digit that is not there should redraw little",
                )
        gr.on(decode_as.input, None, inputs=decode_as, js=DECODE_PAIR_AS, **page_event)


class PairView(gr.HTML):
    """The Two-digits panel, drawn by the page (playground/page/two_digits_panel.js,
    two_digits_view.js) from its readings of the pad of prop reader_pad, with the networks of
    `TwoDigitsSection.page_settings` (its other props) or, where the page cannot run them, the
    server's (playground/answers.py); on a narrow screen its reading shows in a strip while the pad
    is drawn on (strip.js: props strip_pad and strip_height).

    Args:
        prompt: what the panel says before any drawing.
    """

    def __init__(self, prompt: str, **kwargs):
        super().__init__(
            html_template='<div class="pair-view"></div>',
            js_on_load=page_modules.mounted("two_digits_panel.js"),
            prompt=prompt,
            **kwargs,
        )
