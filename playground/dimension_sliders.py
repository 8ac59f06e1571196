"""The sliders of a capsule's dimensions, all in one component.

One gr.HTML component rather than one gr.Slider per dimension: Gradio's page does work for
every output component of every event, so sixteen sliders reset after every reading would
cost the page sixteen components' work where one does. Its value:

    {"offsets": [16 numbers],                              # dimension order
     "rows": [{"dimension": d, "label": "...", "limit": x}, ...],   # the order shown
     "enabled": true or false,                             # false: nothing to move yet
     "range": "paper" or "spread"}                         # the range the limits are of

Beside each slider, a picture of where its dimension changes the digit (dimension_changes.py).
Dragging a slider redraws the reconstruction (the reading panel's decoder). Every digit's rows over
each range come to the page once (the `digit_rows` prop), so that the page's module
(playground/page/dimension_sliders.js) follows each reading, rows and pictures, with no request.
"""

from pathlib import Path

import gradio as gr

from playground import page_modules
from playground.dimension_changes import ADDED, PALETTE, REMOVED, UNCHANGED

_HERE = Path(__file__).parent


def _rgb(colour) -> str:
    return f"rgb({' '.join(str(int(c)) for c in colour)})"


def _swatch(colour) -> str:
    return f'<span class="swatch" style="background: {_rgb(colour)}"></span>'


TEMPLATE = (
    f'<p class="changes-key">Beside each slider, where it changes your digit: {_swatch(ADDED)} dark where '
    f"dragging it right adds ink, {_swatch(REMOVED)} light where it takes ink away.</p>"
    f'<div class="dimensions" style="--unchanged: {_rgb(UNCHANGED)}"></div>'
    '<button type="button" class="reset">Reset sliders</button>'
)


def slider_value(rows: list[dict], offsets: list[float], scale: str, enabled: bool = True) -> dict:
    """The component's value: ``rows`` ({"dimension", "label", "limit"}) in the order shown,
    one offset per dimension in dimension order, the range (``scale``) the rows' limits are of,
    and whether the sliders can be moved."""
    return {"offsets": [float(offset) for offset in offsets], "rows": rows, "enabled": enabled, "range": scale}


class DimensionSliders(gr.HTML):
    """Sliders that add an offset to each dimension of a capsule, labelled and ordered as the
    value's rows say, with a Reset button.

    Args:
        value: see `slider_value`: before any reading.
        digit_rows: every digit's rows (`slider_value`) over each range, {range: [rows of digit 0,
            ...]}, with which the page follows each reading.
    """

    def __init__(self, value: dict, digit_rows: dict, **kwargs):
        super().__init__(
            value=value,
            html_template=TEMPLATE,
            css_template=(_HERE / "dimension_sliders.css").read_text(encoding="utf-8"),
            js_on_load=page_modules.mounted("dimension_sliders.js"),
            apply_default_css=False,
            digit_rows=digit_rows,
            palette=PALETTE,
            **kwargs,
        )
