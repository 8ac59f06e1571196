"""The 16 dimensions of the capsule: a slider for each (`dimension_sliders.DimensionSliders`, one
gr.HTML), named and ordered by what it was measured to do (dimensions.json beside the weights,
`capsnet.studies.dimension_names`; numbered where there is none), over the paper's range or over
each dimension's spread; the reconstruction in the reading panel follows a move, and the paper's
Figure 4 sweeps all 16 at once. Beside each slider, a picture of where its dimension changes the
digit (`dimension_changes`).

`DimensionsSection.layout` lays the section out inside the app's Blocks. The page draws all of it
(playground/page/dimension_sliders.js, figure4_view.js) from the decoder's pictures, asked of the
page's worker or, where it cannot, of the server (playground/answers.py); *Decode as*, or the
sliders' range, changed redraws the reading panel's reconstruction of that capsule, and the
sliders and Figure 4 follow it, in the page.
"""

from dataclasses import dataclass

import gradio as gr

from capsnet.dimensions import PAPER_RANGE, SWEEP
from capsnet.studies.dimension_names_file import DimensionNames
from playground import dimension_sliders, page_modules
from playground.reading import WINNER, ReadingSection

PAPER, SPREAD = "paper", "spread"  # the sliders' two ranges
# Decode as, or the range, changed: the page's decoder redraws the chosen capsule at zero offsets,
# and the sliders follow; where it cannot, the sliders ask the server (their "submit" event).
REDRAW_AS = page_modules.called("reading_panel.js", "redrawAs", WINNER)
GAP_INK = 0.19  # the faint gap between two pictures of a Figure 4 strip (figure4_view.js)
FIGURE4_EMPTY = (
    '<div class="figure4 empty"><b>Figure 4</b>: draw a digit to see what each of its dimensions does.</div>'
)


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

    def sweep_ends(self) -> dict[str, str]:
        """Each range's sweep, for Figure 4's heading: {range: "-0.25 … +0.25"}."""
        ends = {PAPER: f"{SWEEP[0]:+.2f} … {SWEEP[-1]:+.2f}"}
        if SPREAD in self.ranges:
            ends[SPREAD] = f"−{self.names.spread_range:g} sd … +{self.names.spread_range:g} sd"
        return ends

    def layout(self, decode_as: gr.Radio, page_event: dict) -> None:
        """The section, laid out where it is called inside the app's Blocks; ``decode_as`` or the
        range changed redraws the reading panel's reconstruction in the page, which the sliders and
        Figure 4 follow."""
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
                dimension_sliders.DimensionSliders(
                    dimension_sliders.slider_value(self.rows(None, PAPER), [0.0] * self.dimensions, PAPER, False),
                    digit_rows=self.digit_rows(),
                    elem_id="sliders",
                )
                gr.Markdown(EXPLANATION)
            with gr.Column(scale=4, min_width=300):
                Figure4View(self.sweep_ends(), elem_id="figure4")
        gr.on([decode_as.input, scale.input], None, inputs=[decode_as, scale], js=REDRAW_AS, **page_event)


class Figure4View(gr.HTML):
    """The paper's Figure 4, drawn by the page (playground/page/figure4_view.js) from the decoder's
    sweep of the capsule the sliders move.

    Args:
        ends: each range's sweep, for the heading (`DimensionsSection.sweep_ends`).
    """

    def __init__(self, ends: dict, **kwargs):
        super().__init__(
            html_template=FIGURE4_EMPTY,
            js_on_load=page_modules.mounted("figure4_view.js"),
            ends=ends,
            gap_ink=GAP_INK,
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
