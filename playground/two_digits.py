"""Two digits: draw one digit over another with two pens (or one digit alone) and watch a CapsNet
trained on overlapping pairs and single digits read them and redraw each from its own capsule (the
paper's section 6, Figure 5), beside a CNN trained on the same examples. The reading of a drawing is
`two_digits_reading`'s (one digit or two, as each network's count rule says), the introduction and
what the measurement found above the pad `two_digits_text`'s.

`TwoDigitsSection.layout` lays the section out inside the app's Blocks and wires its events: a drawing
pad of two pens (`DrawingPad` with two colours: each stroke's pen travels with it, and the networks
read the overlay of both pens' ink, the colours only for the person), the section's panel
(`PairView`, drawn by the page from the numbers two_digits_views.py makes: the only output the page
updates while a stroke is drawn), *Decode as*, and the API's `/predict_pair`.

The page reads a drawing itself where it can, as the MNIST pad's is read (playground/page_network.py):
both pairs networks' graphs (`PairGraphs`) are served under their hashes and named to the page in the
panel's settings (`TwoDigitsSection.page_settings`), with the numbers the page's port of the reading
(playground/page/two_digits_reading.js) makes a drawing into the networks' input and counts with.
The panel's module fetches them once the section nears the screen and, once they are loaded, reads
the pad's drawings and redraws Decode as in the page (playground/page/two_digits_panel.js); where
the page cannot, the pad and Decode as ask the server (`read_drawing`, `decode_again`).

The pad's pens and its examples (MNIST test pairs): `two_digits_pad`.
"""

import dataclasses
from dataclasses import InitVar, dataclass, field

import gradio as gr
import numpy as np
from starlette.routing import Route

from capsnet.data.preprocess import NoDigitError, SketchError, sketch_to_mnist
from capsnet.shipping.published_graphs import graphs
from playground import drawing_pad, page_graphs, page_modules, serving, views, zero_gpu
from playground.networks import PairNetworks
from playground.page_network import RUNTIME, PageGraph
from playground.reading import PREPROCESSING
from playground.two_digits_pad import PENS, examples, pens_of
from playground.two_digits_reading import PairReader, PairReading, example_fields
from playground.two_digits_text import INTRODUCTION, PAPER_CLAIM, measured
from playground.two_digits_views import ShownPair, figure5, no_pair, pair_message, pair_numbers

TWO_READ = "the two read"
DECODE_CHOICES = [TWO_READ] + [str(digit) for digit in range(10)]
API_PIXEL = 10  # /predict_pair's picture is 280x280
PAIR_STRIP_HEIGHT = 120  # the panel's two digits and their redrawings on a narrow screen, CSS pixels
DECODE_PAIR_AS = page_modules.called("two_digits_panel.js", "decodeAs")  # Decode as's js: in the page, or fire.submit
PROMPT = (
    "Draw a digit with pen 1, then another over it with pen 2, or one digit alone (or tap an MNIST test "
    "pair): each capsule redraws its own."
)


class PairInputError(ValueError):
    """A value the page cannot have sent to the section; the message says what is wrong."""


def checked_decode_as(decode_as) -> int | None:
    """The digit *Decode as* names, None for the two read.

    Raises:
        PairInputError: not one of its choices.
    """
    if decode_as not in DECODE_CHOICES:
        raise PairInputError(f"Decode as must be one of {', '.join(DECODE_CHOICES)}, got {decode_as!r:.40}")
    return None if decode_as == TWO_READ else int(decode_as)


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

    def view(self, reading: PairReading, decode_as: int | None) -> ShownPair:
        pens = pens_of(reading.redrawn, reading.layers)
        shown = decode_as is not None and decode_as not in reading.read
        return ShownPair(
            reading.image,
            reading.layers,
            reading.lengths,
            reading.read,
            reading.second,
            reading.second_ink,
            self.reader.rule,
            reading.redrawn,
            tuple(PENS[pen] for pen in pens),
            PENS,
            reading.probabilities,
            reading.cnn_read,
            self.reader.cnn_rule,
            reading.revision,
            decode_as if shown else None,
            self.reader.redraw(reading, decode_as) if shown else None,
        )

    def panel(self, reading: PairReading | None, decode_as: int | None) -> dict:
        """The panel's value (two_digits_views.py): the reading with capsule ``decode_as`` redrawn
        too where it is not one read; no pair for None."""
        return no_pair() if reading is None else pair_numbers(self.view(reading, decode_as))

    def read_drawing(self, value, decode_as) -> tuple:
        """The two-pen pad changed (while a stroke is drawn, and at its end): read what is on it
        now and show it; a value the page cannot have sent gets its reason in the panel."""
        try:
            drawing = drawing_pad.parse(value, pens=len(PENS))
            digit = checked_decode_as(decode_as)
        except (drawing_pad.DrawingError, PairInputError) as error:
            return gr.skip(), pair_message(f"Cannot read these two digits: {error}")
        if drawing.drawing and serving.crowded():  # a stroke still being drawn: let go first (serving.crowded)
            return gr.skip(), gr.skip()
        if drawing.background is not None and not drawing.strokes:  # an example tapped, not drawn over
            fields = example_fields(drawing.background)
            reading = None if fields is None else self.reader.read_fields(fields, drawing.revision)
        else:
            reading = self.reader.read(drawing_pad.inks(drawing, pens=len(PENS)), drawing.revision)
        return reading, self.panel(reading, digit)

    def decode_again(self, reading: PairReading | None, decode_as) -> dict:
        """*Decode as* changed: the panel with that capsule redrawn too."""
        try:
            digit = checked_decode_as(decode_as)
        except PairInputError as error:
            return pair_message(f"Cannot decode: {error}")
        return self.panel(reading, digit)

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
                panel = PairView(
                    no_pair(),
                    prompt=PROMPT,
                    elem_id="pair-panel",
                    strip_pad="#pair-pad canvas",
                    strip_height=PAIR_STRIP_HEIGHT,
                    reader_pad="#pair-pad",
                    **self.page_settings(),
                )
                decode_as = gr.Radio(
                    DECODE_CHOICES,
                    value=TWO_READ,
                    label="Decode as",
                    elem_id="pair-decode-as",
                    info="redraw another digit's capsule too: one of a digit that is not there should redraw little",
                )
        pad.input(
            self.read_drawing,
            inputs=[pad, decode_as],
            outputs=[reading, panel],
            trigger_mode="always_last",
            **page_event,
        )
        gr.on(decode_as.input, None, inputs=decode_as, js=DECODE_PAIR_AS, **page_event)
        panel.submit(  # fired by the page for a pair the server read (two_digits_panel.js)
            self.decode_again, inputs=[reading, decode_as], outputs=panel, trigger_mode="always_last", **page_event
        )


class PairView(views.NumbersView):
    """The Two-digits panel, drawn by the page (playground/page/two_digits_panel.js,
    two_digits_view.js) from the page's own reading of the pad of props reader_pad, with the networks
    of `TwoDigitsSection.page_settings` (its other props), or where the page cannot, from ``value``;
    on a narrow screen its reading shows in a strip while the pad is drawn on (strip.js: props
    strip_pad and strip_height). Its submit event is the page asking the server to redraw with
    Decode as a pair the server read.

    Args:
        value: `two_digits_views.pair_numbers`, `no_pair` or `pair_message`, or None before any.
        prompt: what the panel says before any drawing. Both optional because Gradio (6.31.0)
            rebuilds an output component from its other constructor arguments whenever an event
            returns an update for it.
    """

    def __init__(self, value: dict | None = None, prompt: str = "", **kwargs):
        super().__init__(
            value=value,
            html_template='<div class="pair-view"></div>',
            js_on_load=page_modules.mounted("two_digits_panel.js", events=("submit",)),
            prompt=prompt,
            **kwargs,
        )
