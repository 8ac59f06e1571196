"""Latency of the playground: a full prediction and a slider move, in-process and over HTTP.

In-process, on the event functions of app.py:
- full prediction = sketch_to_mnist on a drawn 448x448 canvas (black strokes on a transparent
  canvas, what the browser's Sketchpad sends) + the network + every output of a new reading (the
  reconstruction, the 28x28 view, the big digit, the bars, the reset controls); the Figure-4 grid
  that follows it (176 decoder passes) is timed on its own;
- slider move = the perturb event: the decoder alone, and the reconstruction rendered.
Over HTTP on 127.0.0.1, against `python app.py` launched here:
- a slider move through Gradio's HTTP API, as any client without gradio_client makes it: POST
  /gradio_api/call/perturb, read the event stream to the result, GET the reconstruction's PNG;
- the same call and a /predict through gradio_client, whose own polling (50 ms sleeps between
  looks at the stream) adds most of what it measures.

    python -m bench.app_latency --repeats 200 --http-repeats 100
"""
import argparse
import json
import statistics
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from PIL import Image

import app
from tests.app_server import call_perturb, serving_app

CANVAS = 448  # the Sketchpad's canvas side


def drawn_canvas(example: Path) -> dict:
    """The Sketchpad value after the example digit is drawn: black strokes, their coverage as
    alpha, on a transparent canvas of the Sketchpad's size."""
    paper = Image.open(example).convert("L").resize((CANVAS, CANVAS), Image.Resampling.BILINEAR)
    strokes = np.zeros((CANVAS, CANVAS, 4), np.uint8)
    strokes[:, :, 3] = 255 - np.asarray(paper)        # ink = 255 - paper (black ink on white)
    return {"background": None, "layers": [strokes], "composite": strokes}


def perturb_over_rest(url: str, session_hash: str, offsets: list[float]) -> None:
    """A /perturb call through Gradio's HTTP API in ``session_hash``, its PNG downloaded."""
    event, data = call_perturb(url, session_hash, json.dumps([app.WINNER, *offsets])[1:-1])
    if event != "complete":
        raise RuntimeError(f"/perturb failed: {data}")
    with urllib.request.urlopen(data[0]["url"]) as response:
        response.read()


def percentiles(run: Callable[[int], object], repeats: int, warmup: int = 5) -> tuple[float, float]:
    """p50 and p95 in milliseconds of ``run(i)`` over ``repeats`` calls after ``warmup`` calls."""
    for i in range(warmup):
        run(i)
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        run(i)
        times.append((time.perf_counter() - start) * 1e3)
    cuts = statistics.quantiles(times, n=100)
    return statistics.median(times), cuts[94]


def report(name: str, figures: tuple[float, float], target: str) -> None:
    print(f"{name:<44} p50 {figures[0]:7.2f} ms   p95 {figures[1]:7.2f} ms   (target: {target})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="in-process calls per figure (default 200)")
    parser.add_argument("--http-repeats", type=int, default=100, help="HTTP calls per figure (default 100)")
    args = parser.parse_args()

    sketches = [drawn_canvas(example) for example in app.EXAMPLES]
    readings = [app.predict(sketch)[2] for sketch in sketches]
    rng = np.random.default_rng(0)
    offsets = rng.uniform(-app.OFFSET_LIMIT, app.OFFSET_LIMIT, (64, app.DIMENSIONS)).round(2).tolist()

    def full_prediction(i: int) -> None:
        _, _, reading = app.predict(sketches[i % len(sketches)])
        app.show_reading(reading)

    print(f"torch threads: {torch.get_num_threads()}; {len(sketches)} example digits drawn on a "
          f"{CANVAS}x{CANVAS} canvas")
    report("full prediction, in-process", percentiles(full_prediction, args.repeats), "<= 15 ms p50")
    report("slider move (perturb), in-process",
           percentiles(lambda i: app.perturb(readings[i % len(readings)], app.WINNER, *offsets[i % 64]),
                       args.repeats), "<= 3 ms p50")
    report("Figure-4 grid (after each reading), in-process",
           percentiles(lambda i: app.draw_figure4(readings[i % len(readings)], app.WINNER),
                       max(args.repeats // 4, 20)), "none")

    from gradio_client import Client, handle_file

    with serving_app() as url:
        client = Client(url, verbose=False)
        files = [{"background": handle_file(str(path)), "layers": [], "composite": handle_file(str(path))}
                 for path in app.EXAMPLES]
        client.predict(files[0], api_name="/predict")           # a reading in this session
        report("slider move over HTTP (/perturb + its PNG)",
               percentiles(lambda i: perturb_over_rest(url, client.session_hash, offsets[i % 64]),
                           args.http_repeats), "<= 50 ms p50")
        report("slider move through gradio_client",
               percentiles(lambda i: client.predict(app.WINNER, *offsets[i % 64], api_name="/perturb"),
                           args.http_repeats), "none")
        report("prediction through gradio_client (280x280 PNG)",
               percentiles(lambda i: client.predict(files[i % len(files)], api_name="/predict"),
                           args.http_repeats), "none")

if __name__ == "__main__":
    main()
