"""The 16 dimensions of the capsule: a slider for each (`dimension_sliders.DimensionSliders`, one
gr.HTML), named and ordered by what it was measured to do (dimensions.json beside the weights,
`capsnet.studies.dimension_names`; numbered where there is none), over the paper's range or over
each dimension's spread; the reconstruction in the reading panel follows a move, and the paper's
Figure 4 sweeps all 16 at once.

Beside each slider, a picture of where its dimension changes the digit (`dimension_changes`): made
in the page for a reading of the page's, and by the server with the sliders' value.

`DimensionsSection.layout` lays the section out inside the app's Blocks and wires its events: a
slider's move redraws the reading panel's reconstruction, in the page (the decoder's graph) or, where
the page cannot, on the server; *Decode as*, or the sliders' range, changed redraws that capsule's
reconstruction, the sliders' names and pictures and Figure 4 in the page, or where it cannot, brings
from the server its sliders back at zero, with their names and pictures, and its Figure 4
(`Figure4View` draws the server's only where the page decodes nothing of its own).
"""

from dataclasses import dataclass

import gradio as gr
import torch

from capsnet.dimensions import PAPER_RANGE, SWEEP, sweep_reconstructions
from capsnet.studies.dimension_names_file import DimensionNames
from playground import dimension_changes, dimension_sliders, figure4_views, page_modules, reading_views, serving, views
from playground.drawing_pad import DrawingError, DrawingPad
from playground.reading import WINNER, Reading, ReadingSection

PAPER, SPREAD = "paper", "spread"  # the sliders' two ranges
# Decode as, or the range, changed: the page's decoder redraws the chosen capsule at zero offsets,
# and the sliders follow; where it cannot, the sliders ask the server (their "submit" event).
REDRAW_AS = page_modules.called("reading_panel.js", "redrawAs", WINNER)


class DecodingError(ValueError):
    """*Decode as* or *Slider range* is not one of its choices; the message says which."""


@dataclass(frozen=True, eq=False)
class DimensionsSection:
    """The sliders and Figure 4 over the app's CapsNet, which redraw the reading section's panel."""

    reading: ReadingSection  # whose panel shows the reconstruction the sliders move
    names: DimensionNames | None  # the measured names of each digit's dimensions, or None

    @property
    def dimensions(self) -> int:
        return self.reading.network.config.digit_capsule_dim

    @property
    def ranges(self) -> dict[str, str]:
        """The sliders' ranges, each with what *Slider range* says of it: the paper's, and each
        dimension's spread where the names measured it."""
        ranges = {PAPER: f"the paper's: ±{PAPER_RANGE:g} for every dimension"}
        if self.names is not None:
            ranges[SPREAD] = f"±{self.names.spread_range:g} sd of each dimension over MNIST's digits of the class"
        return ranges

    def check_decoding(self, decode_as, scale) -> None:
        """Check *Decode as* and *Slider range* as the page sent them: one of their choices each.

        Raises:
            DecodingError: either is not one of its choices.
        """
        choices = self.reading.decode_choices
        if decode_as not in choices:
            raise DecodingError(f"Decode as must be one of {', '.join(choices)}, got {decode_as!r:.40}")
        if scale not in list(self.ranges):
            raise DecodingError(f"the slider range must be one of {', '.join(self.ranges)}, got {scale!r:.40}")

    def ordered_dimensions(self, digit: int, scale: str) -> list[int]:
        """The dimensions of capsule ``digit``, the largest effect over ``scale``'s range first."""
        return list(range(self.dimensions)) if self.names is None else list(self.names.by_effect(digit, scale))

    def dimension_label(self, digit: int, dimension: int, scale: str) -> str:
        """ "d7: wider →": the dimension's number and what its slider does, as measured."""
        if self.names is None:
            return f"dimension {dimension + 1}"
        return f"d{dimension + 1}: {getattr(self.names, scale)[digit][dimension].name}"

    def dimension_limit(self, digit: int, dimension: int, scale: str) -> float:
        """How far the slider of ``dimension`` goes either way: the paper's 0.25, or 3 sd."""
        return PAPER_RANGE if scale == PAPER else round(self.names.spread_range * self.names.sd[digit][dimension], 4)

    def rows(self, digit: int | None, scale: str) -> list[dict]:
        """The sliders' rows for decoding capsule ``digit`` over ``scale``'s range, the telling
        dimensions first; numbered, over the paper's range, for None (nothing read)."""
        if digit is None:
            return [
                {"dimension": d, "label": f"dimension {d + 1}", "limit": PAPER_RANGE} for d in range(self.dimensions)
            ]
        return [
            {
                "dimension": d,
                "label": self.dimension_label(digit, d, scale),
                "limit": self.dimension_limit(digit, d, scale),
            }
            for d in self.ordered_dimensions(digit, scale)
        ]

    def digit_rows(self) -> dict[str, list[list[dict]]]:
        """Every digit's rows over each range, {range: [rows of digit 0, ...]}: the page's, once."""
        digits = range(self.reading.network.config.num_classes)
        return {scale: [self.rows(digit, scale) for digit in digits] for scale in self.ranges}

    def change_pictures(self, reading: Reading, digit: int, scale: str) -> list[str]:
        """Beside each slider (dimension order), where its dimension changes capsule ``digit`` of
        ``reading`` between the ends of its range (`dimension_changes`)."""
        limits = torch.tensor([self.dimension_limit(digit, d, scale) for d in range(self.dimensions)])
        with serving.network_slot():
            changes = dimension_changes.dimension_changes(reading.network, reading.capsules, digit, limits)
        return dimension_changes.change_pictures(changes)

    def sliders_at_zero(
        self, digit: int | None, scale: str, shown: dict | None = None, reading: Reading | None = None
    ) -> dict:
        """The sliders for decoding capsule ``digit``, the telling dimensions first, all at zero,
        with the pictures of where each changes ``reading``'s capsule where it is given; gr.skip()
        when that is what ``shown`` (the sliders on the page) already is."""
        pictures = None if digit is None or reading is None else self.change_pictures(reading, digit, scale)
        value = dimension_sliders.slider_value(
            self.rows(digit, scale), [0.0] * self.dimensions, scale, enabled=digit is not None, pictures=pictures
        )
        return gr.skip() if value == shown else value

    def figure4(self, reading: Reading | None, decode_as: str, scale: str) -> dict | None:
        """The paper's Figure 4 for this drawing (`figure4_views.figure4_value`): each row one
        dimension swept over its slider's range, in the sliders' order and with their names; None
        before any drawing."""
        if reading is None:
            return None
        digit = reading.decoded_digit(decode_as)
        order = self.ordered_dimensions(digit, scale)
        limits = torch.tensor([self.dimension_limit(digit, d, scale) for d in range(self.dimensions)])
        values = limits[:, None] * torch.linspace(-1, 1, len(SWEEP))  # [16, 11]
        with serving.network_slot(), torch.inference_mode():
            images = sweep_reconstructions(reading.network, reading.capsules, digit, values)  # [16, 11, 28, 28]
        return figure4_views.figure4_value(reading.revision, digit, scale, self.rows(digit, scale), images[order])

    def sweep_ends(self) -> dict[str, str]:
        """Each range's sweep, for Figure 4's heading: {range: "-0.25 … +0.25"}."""
        ends = {PAPER: f"{SWEEP[0]:+.2f} … {SWEEP[-1]:+.2f}"}
        if SPREAD in self.ranges:
            ends[SPREAD] = f"−{self.names.spread_range:g} sd … +{self.names.spread_range:g} sd"
        return ends

    def move_dimensions(
        self, reading: Reading | None, decode_as: str, scale: str, sliders: dict, drawing: dict | None = None
    ) -> dict:
        """A slider moved: the reading panel with the offsets added to the decoded capsule."""
        try:
            self.check_decoding(decode_as, scale)
            reading = self.reading.reading_of(reading, drawing)
        except DecodingError as error:
            return reading_views.message(f"Cannot move the sliders: {error}")
        except DrawingError as error:
            return reading_views.message(f"Cannot read this drawing: {error}")
        if reading is None:  # the page enables the sliders with a reading: the server dropped it since
            return reading_views.message(
                "This page's reading is no longer kept on the server (it keeps the "
                "sessions used most recently): draw the digit again."
            )
        digit = reading.decoded_digit(decode_as)
        limits = [self.dimension_limit(digit, d, scale) for d in range(self.dimensions)]
        try:
            offsets = dimension_sliders.offsets(sliders, limits)
        except dimension_sliders.SlidersError as error:
            return reading_views.message(f"Cannot move the sliders: {error}")
        return self.reading.panel(reading, decode_as, offsets)

    def decode_again(
        self, reading: Reading | None, decode_as: str, scale: str, shown_sliders: dict, drawing: dict | None = None
    ) -> tuple:
        """Decode as, or the sliders' range, changed where the page cannot redraw: the
        reconstruction, the sliders back at zero with that capsule's names, its Figure 4; the reading
        panel says why not where either is a value the page cannot have sent, and the rest stays as
        it is."""
        try:
            self.check_decoding(decode_as, scale)
            reading = self.reading.reading_of(reading, drawing)
        except DecodingError as error:
            return reading_views.message(f"Cannot decode: {error}"), gr.skip(), gr.skip()
        except DrawingError as error:
            return reading_views.message(f"Cannot read this drawing: {error}"), gr.skip(), gr.skip()
        digit = None if reading is None else reading.decoded_digit(decode_as)
        return (
            self.reading.panel(reading, decode_as),
            self.sliders_at_zero(digit, scale, shown_sliders, reading),
            self.figure4(reading, decode_as, scale),
        )

    def layout(
        self, reading: gr.State, pad: DrawingPad, reading_view: gr.HTML, decode_as: gr.Radio, page_event: dict
    ) -> tuple[gr.Radio, dimension_sliders.DimensionSliders, "Figure4View"]:
        """The section, laid out where it is called inside the app's Blocks, its events wired: a
        slider's move redraws ``reading_view``; ``decode_as`` or the range changed, the
        reconstruction, the sliders and Figure 4. In the page, or where it cannot, on the server,
        whose events take ``pad``'s drawing. The range, the sliders and Figure 4, for the app's
        `show_details`."""
        gr.Markdown(
            f"### The {self.dimensions} dimensions of the capsule\nEach slider adds an offset to one "
            "dimension of the decoded capsule; the reconstruction above follows."
        )
        with gr.Row(equal_height=False):
            with gr.Column(scale=5, min_width=300):
                scale = gr.Radio(
                    [(text, key) for key, text in self.ranges.items()],
                    value=PAPER,
                    label="Slider range",
                    visible=len(self.ranges) > 1,
                    elem_id="slider-range",
                )
                sliders = dimension_sliders.DimensionSliders(
                    self.sliders_at_zero(None, PAPER), digit_rows=self.digit_rows(), elem_id="sliders"
                )
                gr.Markdown(EXPLANATION)
            with gr.Column(scale=4, min_width=300):
                figure4 = Figure4View(None, self.sweep_ends(), elem_id="figure4")
        sliders.input(
            self.move_dimensions,
            inputs=[reading, decode_as, scale, sliders, pad],
            outputs=reading_view,
            trigger_mode="always_last",
            **page_event,
        )
        gr.on([decode_as.input, scale.input], None, inputs=[decode_as, scale], js=REDRAW_AS, **page_event)
        sliders.submit(  # fired by the page where it cannot redraw (dimension_sliders.js)
            self.decode_again,
            inputs=[reading, decode_as, scale, sliders, pad],
            outputs=[reading_view, sliders, figure4],
            trigger_mode="always_last",
            **page_event,
        )
        return scale, sliders, figure4


class Figure4View(views.NumbersView):
    """The paper's Figure 4, drawn by the page (playground/page/figure4_view.js) from its own
    decoder's sweep of the capsule the sliders move, or from ``value`` (`DimensionsSection.figure4`)
    where the page cannot decode.

    Args:
        value: `figure4_views.figure4_value`, None before any drawing, or {"message": why not}.
        ends: each range's sweep, for the heading (`DimensionsSection.sweep_ends`). Optional
            because Gradio (6.31.0) rebuilds an output component from its other constructor
            arguments whenever an event returns an update for it.
    """

    def __init__(self, value: dict | None = None, ends: dict | None = None, **kwargs):
        super().__init__(
            value=value,
            html_template=figure4_views.EMPTY,
            js_on_load=page_modules.mounted("figure4_view.js"),
            ends=ends or {},
            gap_ink=figure4_views.GAP_INK,
            **kwargs,
        )


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
  measured: ink, width, height, slant, position, and where ink comes and goes. A slider is named
  after what explains the change ("wider →": dragging right makes the digit wider), or where it
  happens ("the bottom grows →", "ink from top to bottom →"); each name held on at least 80 of 100
  other digits of its class, or it says "varies from digit to digit". The sliders and the grid's
  rows are ordered by how much the digit changes, most first
  (`python -m capsnet.studies.dimension_names`; `weights/dimensions.json`).
"""
