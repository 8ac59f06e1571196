"""The sliders of a capsule's dimensions, all in one component.

One gr.HTML component rather than one gr.Slider per dimension: Gradio's page does work for
every output component of every event, so sixteen sliders reset after every reading would
cost the page sixteen components' work where one does. Its value:

    {"offsets": [16 numbers],                              # dimension order
     "rows": [{"dimension": d, "label": "...", "limit": x}, ...],   # the order shown
     "enabled": true or false,                             # false: nothing to move yet
     "range": "paper" or "spread",                         # the range the limits are of
     "pictures": [16 PNG data URLs] or null}               # dimension order (dimension_changes.py)

Beside each slider, a picture of where its dimension changes the digit. Dragging a slider redraws
the reconstruction in the page (the reading panel's decoder, a graph in the page's worker); only where the page
cannot does it fire the component's `input` event, which asks the server (drag moves, not the
server's resets). Every digit's rows over each range come to the page once (the `digit_rows`
prop), so that the page's module (playground/page/dimension_sliders.js) follows a reading made in
the page, rows and pictures, without the server; the server's value brings the same.
"""

import math
import numbers
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


class SlidersError(ValueError):
    """The sliders' value is not one the page sends; the message says what is wrong."""


def slider_value(
    rows: list[dict], offsets: list[float], scale: str, enabled: bool = True, pictures: list[str] | None = None
) -> dict:
    """The component's value: ``rows`` ({"dimension", "label", "limit"}) in the order shown,
    one offset per dimension in dimension order, the range (``scale``) the rows' limits are of,
    whether the sliders can be moved, and the pictures beside the sliders (dimension order), if any."""
    return {
        "offsets": [float(offset) for offset in offsets],
        "rows": rows,
        "enabled": enabled,
        "range": scale,
        "pictures": pictures,
    }


class DimensionSliders(gr.HTML):
    """Sliders that add an offset to each dimension of a capsule, labelled and ordered as the
    value's rows say, with a Reset button.

    Args:
        value: see `slider_value`. Optional because Gradio (6.31.0) rebuilds an output component
            from its other constructor arguments whenever an event returns an update for it,
            gr.skip() included (`show_details` when the sliders are already at zero).
        digit_rows: every digit's rows (`slider_value`) over each range, {range: [rows of digit 0,
            ...]}, with which the page follows a reading of its own.
    """

    def __init__(self, value: dict | None = None, digit_rows: dict | None = None, **kwargs):
        super().__init__(
            value=value,
            html_template=TEMPLATE,
            css_template=(_HERE / "dimension_sliders.css").read_text(encoding="utf-8"),
            js_on_load=page_modules.mounted("dimension_sliders.js", events=("input", "submit")),
            apply_default_css=False,
            digit_rows=digit_rows or {},
            palette=PALETTE,
            **kwargs,
        )

    def api_info(self) -> dict:
        return {
            "type": "object",
            "properties": {
                "offsets": {"type": "array", "items": {"type": "number"}},
                "rows": {"type": "array", "items": {"type": "object"}},
                "enabled": {"type": "boolean"},
                "range": {"type": "string"},
                "pictures": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
            },
        }


def offsets(value, limits: list[float]) -> list[float]:
    """The offsets in a value the page sent, each checked against its dimension's limit.

    Raises:
        SlidersError: no list of len(limits) finite numbers, each within [-limit, limit].
    """
    got = value.get("offsets") if isinstance(value, dict) else None
    if (
        not isinstance(got, list)
        or len(got) != len(limits)
        or not all(
            isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x) and abs(x) <= limit
            for x, limit in zip(got, limits, strict=True)
        )
    ):
        raise SlidersError(
            f"expected {len(limits)} dimension offsets, each a number within "
            f"its slider's range (±{max(limits):g} at most), got {str(got)[:200]}"
        )
    return [float(x) for x in got]
