"""Capsule Network Playground: draw a digit, watch the capsules, drag the 16 dimensions.

A Gradio app over the capsnet library. `python app.py` serves it on 127.0.0.1:7860
(GRADIO_SERVER_NAME / GRADIO_SERVER_PORT change that); CAPSNET_WEIGHTS names the weights: a
folder or a Hugging Face Hub repo id, `weights` by default; CAPSNET_CNN_WEIGHTS names the CNN
baseline that reads beside it in the Turn-it section, `weights/cnn` by default;
CAPSNET_PAIRS_WEIGHTS and CAPSNET_PAIRS_CNN_WEIGHTS the networks trained on two overlapping digits
that read in the Two-digits section, `weights/pairs` and `weights/pairs-cnn` by default
(playground/networks.py loads them all).

API (gradio_client), in one client session:
    /predict  an image (a file) -> the reading {"digit", "lengths"} and the reconstruction
    /perturb  decode_as ("winner" or "0".."9"), 16 dimension offsets -> the reconstruction of the
              last image read by /predict in this session
    /predict_pair  an image of two overlapping digits (a file) -> the two digits, the ten lengths,
              the CNN's reading, and both digits redrawn from their own capsules
and, for the page, GET /decoder/NAME.safetensors: the CapsNet's decoder, which redraws the
reconstruction in the visitor's browser when a slider moves (playground/page_decoder.py).

The page, top to bottom, each section a module of playground/ that lays it out and wires its events:
    reading.py     draw a digit: the pad, the reading panel, Decode as (and /predict, /perturb)
    dimensions.py  the 16 dimensions of the capsule: their sliders and the paper's Figure 4
    routing.py     routing: where the votes come from
    turn_it.py     turn it: the digit rotated, stretched, sheared, the CapsNet against a CNN
    two_digits.py  two digits: a pair drawn over each other, each redrawn from its own capsule
                   (and /predict_pair)

What the page shows, how it is served and why: docs/playground.md; the API: docs/api.md.
"""
from pathlib import Path

import gradio as gr

from playground import dimensions, networks, page_decoder, reading, routing, serving, turn_it, two_digits, views
from playground.reading import WINNER, Reading

serving.configure_process()
NETWORKS = networks.load()
READING = reading.ReadingSection(NETWORKS.capsnet, page_decoder.PageDecoder.of(NETWORKS.capsnet))
CAPSULE_DIMENSIONS = dimensions.DimensionsSection(READING, NETWORKS.names)
ROUTING = routing.RoutingSection(NETWORKS.capsnet.config)
TURN_IT = turn_it.section(NETWORKS.capsnet, NETWORKS.cnn, NETWORKS.names, NETWORKS.robustness)
TWO_DIGITS = two_digits.section(NETWORKS.pairs)

# What tests/ and bench/ call in-process, by the names they had when app.py held them.
MODEL, CNN, NAMES, WEIGHTS, CNN_WEIGHTS = (NETWORKS.capsnet, NETWORKS.cnn, NETWORKS.names, NETWORKS.weights,
                                           NETWORKS.cnn_weights)
CONFIG = MODEL.config
DIGITS, DIMENSIONS, CAPSULE_TYPES = CONFIG.num_classes, CONFIG.digit_capsule_dim, CONFIG.primary_capsule_types
PAPER, SPREAD, ALL_TYPES, MAX_ITERATIONS = dimensions.PAPER, dimensions.SPREAD, routing.ALL_TYPES, routing.MAX_ITERATIONS
EXAMPLES, example_ink, reconstruction = reading.EXAMPLES, reading.example_ink, Reading.reconstruction
read_drawing, panel, predict, perturb = READING.read_drawing, READING.panel, READING.predict, READING.perturb
sliders_at_zero, figure4_html = CAPSULE_DIMENSIONS.sliders_at_zero, CAPSULE_DIMENSIONS.figure4_html
ordered_dimensions, dimension_label = CAPSULE_DIMENSIONS.ordered_dimensions, CAPSULE_DIMENSIONS.dimension_label
move_dimensions, decode_again = CAPSULE_DIMENSIONS.move_dimensions, CAPSULE_DIMENSIONS.decode_again
show_routing = ROUTING.show_routing


def show_details(reading: Reading | None, decode_as: str, scale: str, shown_sliders: dict,
                 iterations: int, capsule_type: int) -> tuple:
    """A stroke's reading is on the page (the reading panel settled): the decoding controls back
    to the winner at zero offsets, Figure 4 and the routing view. Figure 4 says why not where
    *Decode as* or *Slider range* is a value the page cannot have sent, and the rest stays as it is."""
    try:
        CAPSULE_DIMENSIONS.check_decoding(decode_as, scale)
    except dimensions.DecodingError as error:
        return gr.skip(), gr.skip(), views.message_panel(f"Cannot show Figure 4: {error}"), gr.skip()
    winner = None if reading is None else reading.winner
    return (gr.skip() if decode_as == WINNER else WINNER, sliders_at_zero(winner, scale, shown_sliders),
            figure4_html(reading, WINNER, scale), show_routing(reading, iterations, capsule_type))


INTRODUCTION = """
# Capsule Network Playground
Draw a digit and watch a **capsule network** (Sabour, Frosst & Hinton 2017,
[*Dynamic Routing Between Capsules*](https://arxiv.org/abs/1710.09829)) read it as you draw.
"""
CSS = (Path(__file__).parent / "playground" / "playground.css").read_text(encoding="utf-8")

with gr.Blocks(title="Capsule Network Playground") as demo:
    reading_state = gr.State(None)     # the current drawing's Reading, per user
    gr.Markdown(INTRODUCTION, elem_id="intro")
    reading_view, decode_as = READING.layout(reading_state, serving.PAGE_EVENT)
    scale, sliders, figure4 = CAPSULE_DIMENSIONS.layout(reading_state, reading_view, decode_as, serving.PAGE_EVENT)
    iterations, capsule_type, routing_view = ROUTING.layout(reading_state, serving.PAGE_EVENT)
    READING.api(reading_state, decode_as)                         # /predict and /perturb, never shown
    # A stroke has ended: the sections above follow its reading.
    reading_view.settled(show_details, inputs=[reading_state, decode_as, scale, sliders, iterations, capsule_type],
                         outputs=[decode_as, sliders, figure4, routing_view], trigger_mode="always_last",
                         **serving.PAGE_EVENT)
    TURN_IT.layout(reading_state, reading_view, serving.PAGE_EVENT)   # follows the reading once on the screen
    TWO_DIGITS.layout(serving.PAGE_EVENT)                              # a pad of its own, and /predict_pair

demo.queue(default_concurrency_limit=serving.API_WORKERS)

if __name__ == "__main__":
    demo.launch(css=CSS, theme=gr.themes.Soft(), **serving.launch_options(routes=[READING.decoder.route()]))
