"""The transform sliders of the Turn-it section, all in one component: turn, size, shear, stretch
and move the digit, and a Straighten button.

One gr.HTML component, as the dimension sliders are (`dimension_sliders`). Each slider sets a field
of `capsnet.data.affine.AffineChange`, as far as the robustness measurement changed MNIST's test
digits; the page turns the digit so (playground/page/turn_panel.js). The value:

    {"rotation": degrees counter-clockwise, "scale": ..., "shear": ..., "stretch_x": ...,
     "stretch_y": ..., "shift_x": pixels right, "shift_y": pixels down,   # AffineChange's fields
     "revision": n}                                                        # counts the page's moves
"""

from dataclasses import dataclass, fields
from pathlib import Path

import gradio as gr

from capsnet.data.affine import SWEEPS, AffineChange
from playground import page_modules

_HERE = Path(__file__).parent


@dataclass(frozen=True)
class Slider:
    field: str  # the AffineChange field it sets
    label: str
    low: float
    high: float
    step: float
    unit: str  # how the page shows its value: "°", "×" (a factor), "px", or "" (a number)


LABELS = {  # AffineChange field: (label, step, unit)
    "rotation": ("turn (counter-clockwise)", 1, "°"),
    "scale": ("size", 0.01, "×"),
    "shear": ("shear (+: the top leans left)", 0.01, ""),
    "stretch_x": ("stretch across", 0.01, "×"),
    "stretch_y": ("stretch up and down", 0.01, "×"),
    "shift_x": ("move right", 0.5, "px"),
    "shift_y": ("move down", 0.5, "px"),
}
FULL_TURN = (-180, 180)


def slider_range(field: str) -> tuple[float, float]:
    """A slider's ends: as far as the measurement changed MNIST's test digits
    (capsnet.data.affine.SWEEPS), and the turn all the way round (a 6 to a 9)."""
    if field == "rotation":
        return FULL_TURN
    values, _ = SWEEPS[field]
    return values[0], values[-1]


SLIDERS = tuple(Slider(field, label, *slider_range(field), step, unit) for field, (label, step, unit) in LABELS.items())
FIELDS = tuple(field.name for field in fields(AffineChange))
UNCHANGED = {field: getattr(AffineChange(), field) for field in FIELDS}
ROW = (
    '<label class="transform"><span>{label}</span><output></output><input type="range" name="{field}" '
    'min="{low:g}" max="{high:g}" step="{step:g}" value="{identity:g}" data-identity="{identity:g}" '
    'data-unit="{unit}"></label>'
)


class TransformSliders(gr.HTML):
    """Sliders that turn, scale, shear, stretch and move the digit (SLIDERS), with a Straighten
    button; moving one publishes the whole change for the turn panel in the page (the module's
    docstring has the value)."""

    def __init__(self, **kwargs):
        # The sliders are written into the template rather than built by the page from props:
        # Gradio's page copies every prop on every change of the value, once a move here.
        rows = "".join(ROW.format(identity=UNCHANGED[slider.field], **vars(slider)) for slider in SLIDERS)
        super().__init__(
            value={**UNCHANGED, "revision": 0},
            html_template=f'<div class="transforms">{rows}</div>'
            '<button type="button" class="straighten">Straighten</button>',
            css_template=(_HERE / "transform_sliders.css").read_text(encoding="utf-8"),
            js_on_load=page_modules.mounted("transform_sliders.js"),
            apply_default_css=False,
            **kwargs,
        )
