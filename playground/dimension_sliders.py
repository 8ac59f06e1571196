"""The sliders of a capsule's dimensions, all in one component.

One gr.HTML component rather than one gr.Slider per dimension: Gradio's page does work for
every output component of every event, so sixteen sliders reset after every reading would
cost the page sixteen components' work where one does. Its value:

    {"offsets": [16 numbers],                              # dimension order
     "rows": [{"dimension": d, "label": "...", "limit": x}, ...],   # the order shown
     "enabled": true or false}                             # false: nothing to move yet

Dragging a slider redraws the reconstruction in the page (the reading panel's decoder:
page_decoder.py); only where the page cannot does it fire the component's `input` event, which
asks the server (drag moves, not the server's resets).
"""

import math
import numbers
from pathlib import Path

import gradio as gr

from playground import page_modules

_HERE = Path(__file__).parent
TEMPLATE = '<div class="dimensions"></div><button type="button" class="reset">Reset sliders</button>'


class SlidersError(ValueError):
    """The sliders' value is not one the page sends; the message says what is wrong."""


def slider_value(rows: list[dict], offsets: list[float], enabled: bool = True) -> dict:
    """The component's value: ``rows`` ({"dimension", "label", "limit"}) in the order shown,
    one offset per dimension in dimension order, and whether the sliders can be moved."""
    return {"offsets": [float(offset) for offset in offsets], "rows": rows, "enabled": enabled}


class DimensionSliders(gr.HTML):
    """Sliders that add an offset to each dimension of a capsule, labelled and ordered as the
    value's rows say, with a Reset button.

    Args:
        value: see `slider_value`. Optional because Gradio (6.31.0) rebuilds an output component
            from its other constructor arguments whenever an event returns an update for it,
            gr.skip() included (`show_details` when the sliders are already at zero).
    """

    def __init__(self, value: dict | None = None, **kwargs):
        super().__init__(
            value=value,
            html_template=TEMPLATE,
            css_template=(_HERE / "dimension_sliders.css").read_text(encoding="utf-8"),
            js_on_load=page_modules.mounted("dimension_sliders.js", events=("input",)),
            apply_default_css=False,
            **kwargs,
        )

    def api_info(self) -> dict:
        return {
            "type": "object",
            "properties": {
                "offsets": {"type": "array", "items": {"type": "number"}},
                "rows": {"type": "array", "items": {"type": "object"}},
                "enabled": {"type": "boolean"},
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
