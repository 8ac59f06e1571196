"""Routing: where the votes come from. The drawing's routing after r = 1 .. MAX_ITERATIONS
iterations (`CapsNet.routing_trace`, kept in the reading): a heatmap of where the winner's votes
come from, over all the primary capsule types or one, the lengths at every r, and how well the
winner's and the runner-up's voters agree.

`RoutingSection.layout` lays the section out inside the app's Blocks (an accordion) and wires its
events: either slider moved redraws the routing view, which only renders: the routing was computed
with the reading.
"""

import math
import numbers
from dataclasses import dataclass

import gradio as gr

from capsnet.model import CapsNetConfig
from capsnet.routing import RoutingTrace, agreement, vote_heatmap
from playground import routing_views, views
from playground.reading import MAX_ITERATIONS, Reading

ALL_TYPES = -1  # the capsule-type slider's value for all types


class RoutingError(ValueError):
    """The routing sliders' values are not ones the page sends; the message says what is wrong."""


def whole_number(value, low: int, high: int, name: str) -> int:
    """``value`` as an int where it is a whole number in [low, high].

    Raises:
        RoutingError: it is not.
    """
    if (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value == int(value)
        and low <= value <= high
    ):
        return int(value)
    raise RoutingError(f"{name} must be a whole number from {low} to {high}, got {value!r:.40}")


@dataclass(frozen=True, eq=False)
class RoutingSection:
    """The routing view of the app's CapsNet."""

    config: CapsNetConfig

    def checked_routing(self, iterations, capsule_type) -> tuple[int, int]:
        """The routing view's iterations r and capsule type as the page sent them: whole numbers
        within their sliders' ranges.

        Raises:
            RoutingError: either is not a whole number within its slider's range.
        """
        return (
            whole_number(iterations, 1, MAX_ITERATIONS, "the routing iterations"),
            whole_number(capsule_type, ALL_TYPES, self.config.primary_capsule_types - 1, "the primary capsule type"),
        )

    def agreement_text(self, trace: RoutingTrace, iterations: int, capsule_type: int) -> str:
        """HTML: the winner's and runner-up's agreement at r iterations, and what the map shows."""
        k = iterations - 1
        a = agreement(trace.u_hat, trace.capsules[k], trace.couplings[k])  # [10]
        winner, runner_up = trace.lengths[k].topk(2).indices.tolist()
        types = (
            f"all {self.config.primary_capsule_types} capsule types"
            if capsule_type == ALL_TYPES
            else f"capsule type {capsule_type} only"
        )
        return (
            f"<p class='agreement'><b>Agreement</b> at r = {iterations} (the mean cosine between each "
            "vote û<sub>j|i</sub> and the output v<sub>j</sub>, each vote weighted by its share "
            "c<sub>ij</sub>|û<sub>j|i</sub>|; 1 = all voters agree): "
            f"winner <b>{winner}</b>: <b>{a[winner]:.2f}</b> · runner-up {runner_up}: {a[runner_up]:.2f}</p>"
            f"<p>The map shows where the votes for <b>{winner}</b> come from ({types}): each square is one "
            "of the 6x6 primary-capsule positions, drawn at the centre of the 17x17 patch of your digit "
            "that it sees (the strongest one's patch is outlined in blue), coloured by its share "
            "c<sub>ij</sub>|û<sub>j|i</sub>| of the votes: orange = an average share, dark red = twice "
            "that or more, white = none.</p>"
        )

    def show_routing(self, reading: Reading | None, iterations: int, capsule_type: int) -> str:
        """The routing view at r iterations: the vote heatmap, the lengths table, the agreement; why
        not, for values the page cannot have sent."""
        try:
            iterations, capsule_type = self.checked_routing(iterations, capsule_type)
        except RoutingError as error:
            return views.message_panel(f"Cannot show the routing: {error}")
        if reading is None:
            return routing_views.routing_panel(self.config, None)
        trace, k = reading.trace, iterations - 1
        heat = vote_heatmap(
            trace.couplings[k],
            trace.u_hat,
            int(trace.predictions[k]),
            self.config.primary_capsule_types,
            self.config.primary_grid,
            None if capsule_type == ALL_TYPES else capsule_type,
        )  # [6, 6]
        return routing_views.routing_panel(
            self.config,
            reading.image,
            heat,
            routing_views.lengths_table(trace.lengths, trace.predictions, iterations),
            self.agreement_text(trace, iterations, capsule_type),
        )

    def layout(self, reading: gr.State, page_event: dict) -> tuple[gr.Slider, gr.Slider, gr.HTML]:
        """The section, laid out where it is called inside the app's Blocks, its sliders' events
        wired; the sliders and the view, for the app's `show_details`."""
        routed, types = self.config.routing_iterations, self.config.primary_capsule_types
        with gr.Accordion("Routing: where the votes come from", open=True):
            gr.Markdown(EXPLANATION)
            with gr.Row():
                iterations = gr.Slider(
                    1,
                    MAX_ITERATIONS,
                    value=routed,
                    step=1,
                    label="Routing iterations r",
                    elem_id="routing-iterations",
                    info=f"the paper uses {routed}; 1 means no routing (uniform couplings)",
                )
                capsule_type = gr.Slider(
                    ALL_TYPES,
                    types - 1,
                    value=ALL_TYPES,
                    step=1,
                    label="Primary capsule type",
                    elem_id="routing-type",
                    info=f"{ALL_TYPES}: all {types} types together; 0-{types - 1}: one type at a time",
                )
            routing_view = gr.HTML(self.show_routing(None, routed, ALL_TYPES), elem_id="routing")
        gr.on(
            [iterations.change, capsule_type.change],
            self.show_routing,
            inputs=[reading, iterations, capsule_type],
            outputs=routing_view,
            trigger_mode="always_last",
            **page_event,
        )
        return iterations, capsule_type, routing_view


EXPLANATION = (
    "**Routing by agreement:** every primary capsule *i* predicts each digit capsule's output "
    "(û<sub>j|i</sub> = W<sub>ij</sub> u<sub>i</sub>), and at each iteration it sends more of its vote "
    "(the coupling c<sub>ij</sub>) to the digit capsules whose output agrees with its prediction, so the "
    "digit whose voters agree grows long and the others shrink."
)
