"""Latency of the playground's events, in-process and over HTTP on 127.0.0.1.

In-process, on app.py's event functions, for digits drawn as the drawing pad sends them:
- a reading: read_drawing on the pad's value (the strokes checked and inked, the network, the
  reading panel), for a stroke being drawn and for a finished one;
- what follows a finished stroke: show_details (the sliders' names, Figure 4, the routing view);
- a slider move: move_dimensions (the decoder alone, the panel redrawn); Decode as: decode_again;
- Turn it: a transform slider's move (TURN_IT.turn: both networks on the turned input, the turn
  panel), and the section's refresh for a new reading (TURN_IT.show: the panel and the sweep).
Over HTTP, against `python app.py` started here, as the page sends them (one POST each, outside
Gradio's queue): a finished stroke's reading with its details, a slider move and a transform
slider's move; and the API's /perturb through Gradio's queue (POST, then its event stream, then
its PNG). The browser's own share is in bench.browser_latency.

    python -m bench.app_latency --repeats 200 --http-repeats 100

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import json
import statistics
import time
import urllib.request
from collections.abc import Callable

import httpx
import numpy as np
import torch

import app
from bench.train_throughput import cpu_model
from harness.app_server import call_perturb, serving_app
from harness.digit_strokes import pad_value, strokes
from harness.gradio_clients import api_client
from harness.page_protocol import Page, event_index
from playground import transform_sliders
from playground.dimensions_section import PAPER
from playground.reading import EXAMPLES


def percentiles(run: Callable[[int], object], repeats: int, warmup: int = 5) -> tuple[float, float]:
    """p50 and p95 in milliseconds of ``run(i)`` over ``repeats`` calls after ``warmup`` calls."""
    for i in range(warmup):
        run(i)
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        run(i)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), statistics.quantiles(times, n=100)[94]


def report(name: str, figures: tuple[float, float]) -> None:
    print(f"{name:<52} p50 {figures[0]:7.2f} ms   p95 {figures[1]:7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="in-process calls per figure (default 200)")
    parser.add_argument("--http-repeats", type=int, default=100, help="HTTP calls per figure (default 100)")
    args = parser.parse_args()

    drawings = [pad_value(strokes(digit, 60, 30, 160, 220), revision=digit + 1) for digit in range(10)]
    being_drawn = [value | {"drawing": True} for value in drawings]
    readings = [app.READING.read_drawing(value)[0] for value in drawings]
    sliders = [app.CAPSULE_DIMENSIONS.sliders_at_zero(reading.winner, PAPER) for reading in readings]
    rng = np.random.default_rng(0)
    dimensions = app.NETWORKS.capsnet.config.digit_capsule_dim
    moves = [value | {"offsets": rng.uniform(-0.25, 0.25, dimensions).round(2).tolist()} for value in sliders * 7][:64]
    turns = [
        {**transform_sliders.UNCHANGED, "rotation": float(round(rng.uniform(-180, 180))), "revision": i + 1}
        for i in range(64)
    ]

    print(
        f"CPU: {cpu_model()}; torch {torch.__version__}, {torch.get_num_threads()} threads; "
        f"the ten digits drawn on the pad"
    )
    report(
        "reading, finished stroke (read_drawing)",
        percentiles(lambda i: app.READING.read_drawing(drawings[i % 10]), args.repeats),
    )
    report(
        "reading, stroke being drawn (read_drawing)",
        percentiles(lambda i: app.READING.read_drawing(being_drawn[i % 10]), args.repeats),
    )
    report(
        "after a finished stroke (show_details)",
        percentiles(
            lambda i: app.show_details(readings[i % 10], app.WINNER, PAPER, sliders[i % 10]),
            max(args.repeats // 4, 20),
        ),
    )
    report(
        "slider move (move_dimensions)",
        percentiles(
            lambda i: app.CAPSULE_DIMENSIONS.move_dimensions(readings[i % 10], app.WINNER, PAPER, moves[i % 64]),
            args.repeats,
        ),
    )
    report(
        "Decode as (decode_again)",
        percentiles(
            lambda i: app.CAPSULE_DIMENSIONS.decode_again(readings[i % 10], str((i + 1) % 10), PAPER, sliders[i % 10]),
            max(args.repeats // 4, 20),
        ),
    )
    report(
        "Turn it: a transform slider's move (turn)",
        percentiles(lambda i: app.TURN_IT.turn(readings[i % 10], turns[i % 64]), args.repeats),
    )
    report(
        "Turn it: refresh for a new reading (show)",
        percentiles(lambda i: app.TURN_IT.show(readings[i % 10], turns[i % 64]), max(args.repeats // 4, 20)),
    )

    with serving_app() as url, httpx.Client(base_url=f"{url}gradio_api/", timeout=60) as client:

        def page_event(fn, data: list) -> None:
            response = client.post(
                "run/predict", json={"data": data, "fn_index": event_index(app, fn), "session_hash": "latency"}
            )
            response.raise_for_status()

        page = Page.of(app)
        report(
            "reading and its details over HTTP, as the page sends it",
            percentiles(lambda i: page_event(app.read_drawing, page.drawing(drawings[i % 10])), args.http_repeats),
        )
        report(
            "slider move over HTTP, as the page sends it",
            percentiles(
                lambda i: page_event(app.CAPSULE_DIMENSIONS.move_dimensions, [None, app.WINNER, PAPER, moves[i % 64]]),
                args.http_repeats,
            ),
        )
        report(
            "Turn it: a transform slider's move over HTTP",
            percentiles(lambda i: page_event(app.TURN_IT.turn, [None, turns[i % 64]]), args.http_repeats),
        )

        from gradio_client import handle_file

        with api_client(url, False) as api:
            api.predict(handle_file(str(EXAMPLES[0])), api_name="/predict")  # a reading in this session

            def perturb_over_http(i: int) -> None:
                event, data = call_perturb(
                    url, api.session_hash, json.dumps([app.WINNER, *moves[i % 64]["offsets"]])[1:-1]
                )
                if event != "complete":
                    raise RuntimeError(f"/perturb failed: {data}")
                with urllib.request.urlopen(data[0]["url"]) as response:
                    response.read()

            report(
                "API /perturb over HTTP (queue, event stream, PNG)", percentiles(perturb_over_http, args.http_repeats)
            )


if __name__ == "__main__":
    main()
