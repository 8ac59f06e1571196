"""Capsule Network Playground: draw a digit, watch the capsules, drag the 16 dimensions.

The page's table of contents: the networks loaded once (playground/networks.py, from the settings
in docs/playground.md), then each section in the page's order, laid out and wired by its module of
playground/ (their map: playground/__init__.py). `python app.py` serves it on 127.0.0.1:7860; its
API (/predict, /perturb, /predict_pair): docs/api.md. Beside Gradio's routes it serves the
graphs (the CapsNet's, its decoder's, its routing's, the CNN's, the turn's, the pairs networks':
read from the weights' onnx/ where they are published there, else exported: page_graphs.py)
and ONNX Runtime Web for the page to read, redraw and turn drawings with (GET /network/NAME.onnx
and /onnxruntime-web/VERSION/FILE: page_network.py), the page's own JavaScript modules
(GET /page/HASH/NAME.js: page_modules.py), and the answers to the page's questions where it cannot
compute them itself (POST /ask/KIND: answers.py). Where the weights come from Hub repos, the page
fetches the graphs and the runtime's WebAssembly from the Hub's CDN instead, checked against the
Space's (hub_copies.py).
"""

from pathlib import Path

import spaces  # noqa: F401  before gradio and torch: on ZeroGPU it patches torch (playground/zero_gpu.py)

# isort: split
import gradio as gr

from capsnet.shipping.published_graphs import graphs
from playground import (
    answers,
    dimensions_section,
    hub_copies,
    networks,
    page_graphs,
    page_modules,
    page_network,
    reading,
    routing_section,
    serving,
    turn_it,
    two_digits,
)
from playground.page_network import PageGraph

serving.configure_process()
NETWORKS = networks.load()
CAPSNET_GRAPHS = graphs(NETWORKS.weights, page_graphs.capsnet_graphs(NETWORKS.capsnet))  # published, else exported
CNN_GRAPHS = graphs(NETWORKS.cnn_weights, page_graphs.cnn_graphs(NETWORKS.cnn))
READING = reading.ReadingSection(
    NETWORKS.capsnet,
    PageGraph.of(CAPSNET_GRAPHS["decoder"]),
    PageGraph.of(CAPSNET_GRAPHS["capsules"]),
    PageGraph.of(CAPSNET_GRAPHS["routing"]),
)
CAPSULE_DIMENSIONS = dimensions_section.DimensionsSection(READING, NETWORKS.names)
ROUTING = routing_section.RoutingSection(NETWORKS.capsnet.config)
TURN_IT = turn_it.TurnItSection(
    READING,
    NETWORKS.names,
    NETWORKS.robustness,
    PageGraph.of(CNN_GRAPHS["probabilities"]),
    PageGraph.of(CAPSNET_GRAPHS["turn"]),
)
TWO_DIGITS = two_digits.TwoDigitsSection(NETWORKS.pairs)
# the page's questions where it cannot answer them itself, POST /ask/KIND
ANSWERS = answers.Answers(NETWORKS.capsnet, NETWORKS.cnn, TWO_DIGITS.reader)


INTRODUCTION = """
# Capsule Network Playground
Draw a digit and watch a **capsule network** (Sabour, Frosst & Hinton 2017,
[*Dynamic Routing Between Capsules*](https://arxiv.org/abs/1710.09829)) read it as you draw.
"""
CSS = (Path(__file__).parent / "playground" / "playground.css").read_text(encoding="utf-8")

with gr.Blocks(title="Capsule Network Playground") as demo:
    reading_state = gr.State(None)  # the last image /predict read, for /perturb, per user
    gr.Markdown(INTRODUCTION, elem_id="intro")
    decode_as = READING.layout()
    # /predict and /perturb, never shown; the app's first events: Gradio 6.31.0's page checks the
    # data of event 0 against /predict's one parameter whatever the event, and warns in the console
    # where it has more ("Too many arguments provided for the endpoint").
    READING.api(reading_state, decode_as)
    CAPSULE_DIMENSIONS.layout(decode_as, serving.PAGE_EVENT)
    ROUTING.layout()
    TURN_IT.layout()
    TWO_DIGITS.layout(serving.PAGE_EVENT)  # a pad of its own, and /predict_pair

demo.queue(default_concurrency_limit=serving.API_WORKERS)

if __name__ == "__main__":
    demo.launch(
        css=CSS,
        theme=gr.themes.Soft(),
        prevent_thread_lock=True,  # to settle the memory of a started server first
        **serving.launch_options(
            routes=[
                *ANSWERS.routes(),
                READING.decoder.route(),
                READING.page_network.route(),
                READING.routing_graph.route(),
                TURN_IT.cnn_graph.route(),
                TURN_IT.turn_graph.route(),
                *TWO_DIGITS.routes(),
                *page_network.runtime_routes(),
                *page_modules.routes(),
            ],
            head=page_modules.head(READING.reader_files(), hub_copies.page_copies(NETWORKS)),
        ),
    )
    serving.freeze_what_is_loaded()
    demo.block_thread()
