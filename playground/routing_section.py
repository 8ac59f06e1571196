"""Routing: where the votes come from. The drawing's routing after r = 1 .. MAX_ITERATIONS
iterations: a heatmap of where the winner's votes come from, over all the primary capsule types or
one, the lengths at every r, and how well the winner's and the runner-up's voters agree.

The view is drawn in the page (playground/page/routing_view.js), from the numbers that come with a
finished drawing's reading: the page's worker's (its routing graph,
`capsnet.shipping.onnx_file.routing_graph`) or, where it cannot, the server's (answers.py). Every r
and every capsule's share come with a reading, so its two controls, the routing iterations r and
one primary capsule type or all, redraw in the page and send nothing.
"""

import gradio as gr

from capsnet.model import CapsNetConfig
from playground import page_modules
from playground.reading import MAX_ITERATIONS

ALL_TYPES = -1  # the capsule-type control's value for all types


def facts(config: CapsNetConfig) -> dict:
    """What the page's renderer needs of ``config``'s network: its image size, the primary capsules'
    types and grid, and where on the image each grid cell looks."""
    return {
        "types": config.primary_capsule_types,
        "grid": config.primary_grid,
        "image_size": config.image_size,
        "receptive_field": config.receptive_field,
        "stride": config.primary_stride,
    }


def template(config: CapsNetConfig) -> str:
    """The view's layout: its two controls, then the place the page draws the routing."""
    routed, types = config.routing_iterations, config.primary_capsule_types
    return (
        '<div class="routing-controls">'
        '<label class="control">Routing iterations r <output></output>'
        f'<input type="range" class="iterations" min="1" max="{MAX_ITERATIONS}" step="1" value="{routed}">'
        f"<small>the paper uses {routed}; 1 means no routing (uniform couplings)</small></label>"
        '<label class="control">Primary capsule type <output></output>'
        f'<input type="range" class="capsule-type" min="{ALL_TYPES}" max="{types - 1}" step="1" value="{ALL_TYPES}">'
        f"<small>{ALL_TYPES}: all {types} types together; 0-{types - 1}: one type at a time</small></label>"
        "</div>"
        '<div class="routing-view empty">Draw a digit to see how its votes are routed.</div>'
    )


class RoutingView(gr.HTML):
    """The routing view and its controls, drawn by the page from the reading panel's readings.

    Args:
        config: the network's, whose routing is shown.
    """

    def __init__(self, config: CapsNetConfig, **kwargs):
        super().__init__(
            html_template=template(config),
            js_on_load=page_modules.mounted("routing_view.js"),
            facts=facts(config),
            **kwargs,
        )


class RoutingSection:
    """The routing view of the app's CapsNet."""

    def __init__(self, config: CapsNetConfig):
        self.config = config

    def layout(self) -> None:
        """The section, laid out where it is called inside the app's Blocks."""
        with gr.Accordion("Routing: where the votes come from", open=True):
            gr.Markdown(EXPLANATION)
            RoutingView(self.config, elem_id="routing")


EXPLANATION = (
    "**Routing by agreement:** every primary capsule *i* predicts each digit capsule's output "
    "(û<sub>j|i</sub> = W<sub>ij</sub> u<sub>i</sub>), and at each iteration it sends more of its vote "
    "(the coupling c<sub>ij</sub>) to the digit capsules whose output agrees with its prediction, so the "
    "digit whose voters agree grows long and the others shrink."
)
