"""Latency of the playground: a full prediction and a slider move, in-process and over HTTP.

In-process, on the event functions of app.py:
- full prediction = sketch_to_mnist on a 448x448 RGBA canvas + the network + every output of a new
  reading (the reconstruction, the 28x28 view, the big digit, the bars, the reset controls);
  the Figure-4 grid that follows it (176 decoder passes) is timed on its own;
- slider move = the perturb event: the decoder alone, and the reconstruction rendered.
Over HTTP on 127.0.0.1, against `python app.py` launched here: gradio_client calls to /perturb and
/predict, result files included.

    python -m bench.app_latency --repeats 200 --http-repeats 100
"""
import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
from PIL import Image

import app
from tests.app_server import serving_app

CANVAS = 448  # the Sketchpad's canvas side


def canvas_value(example) -> dict:
    """The Sketchpad value once the example is on the canvas: RGBA arrays of the canvas size."""
    image = np.asarray(Image.open(example).convert("RGBA").resize((CANVAS, CANVAS)))
    return {"background": image, "layers": [], "composite": image}


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

    sketches = [canvas_value(example) for example in app.EXAMPLES]
    readings = [app.predict(sketch)[2] for sketch in sketches]
    rng = np.random.default_rng(0)
    offsets = rng.uniform(-app.OFFSET_LIMIT, app.OFFSET_LIMIT, (64, app.DIMENSIONS)).round(2).tolist()

    def full_prediction(i: int) -> None:
        _, _, reading = app.predict(sketches[i % len(sketches)])
        app.show_reading(reading)

    print(f"torch threads: {torch.get_num_threads()}; {len(sketches)} example digits on a "
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
        client.predict(files[0], api_name="/predict")
        report("slider move over HTTP (/perturb)",
               percentiles(lambda i: client.predict(app.WINNER, *offsets[i % 64], api_name="/perturb"),
                           args.http_repeats), "<= 50 ms p50")
        report("prediction over HTTP (/predict, 280x280 PNG)",
               percentiles(lambda i: client.predict(files[i % len(files)], api_name="/predict"),
                           args.http_repeats), "none")


if __name__ == "__main__":
    main()
