"""Latency of the server's answers to the page's questions (playground/answers.py), in-process and
over HTTP on 127.0.0.1.

In-process, on app.ANSWERS for the ten MNIST examples' 28x28 as the page sends them:
- a reading (`read`): the network, for a stroke being drawn and, with the routing for r = 1 .. 5
  and the two pictures, for a finished one;
- what follows a finished stroke: the pictures beside the sliders (`changes`, 32 decoder runs) and
  Figure 4's (`sweep`, 176);
- a slider move (`decode`); Turn it: a transform slider's move (`turn`: both networks on the turned
  input).
Over HTTP, against `python app.py` started here, as the page's seam sends them (POST ask/KIND with
the question's JSON): a finished stroke's reading, a slider move and a transform slider's move;
and the API's /perturb through Gradio's queue (POST, then its event stream, then its PNG). The
browser's own share is in bench.browser_latency.

    python -m bench.app_latency --repeats 200 --http-repeats 100

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import base64
import json
import statistics
import time
import urllib.request
from collections.abc import Callable

import httpx
import numpy as np

import app
from bench.train_throughput import cpu_model
from capsnet.shipping.onnx_file import CHANGE
from harness.app_server import call_perturb, serving_app
from harness.gradio_clients import api_client
from playground.reading import EXAMPLES, WINNER, example_ink
from playground.transform_sliders import UNCHANGED


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

    images = [(example_ink(path)[1] / 255).flatten().tolist() for path in EXAMPLES]  # the page's 28x28s
    readings = [app.ANSWERS.read({"image": image, "routed": False}) for image in images]
    capsules = [np.frombuffer(base64.b64decode(r["capsules"]["float32"]), "<f4").tolist() for r in readings]
    winners = [int(np.argmax(r["lengths"])) for r in readings]
    rng = np.random.default_rng(0)
    dimensions = app.NETWORKS.capsnet.config.digit_capsule_dim
    moves = [rng.uniform(-0.25, 0.25, dimensions).round(2).tolist() for _ in range(64)]
    limits = [0.25] * dimensions
    turns = [[float(round(rng.uniform(-180, 180))) if name == "rotation" else UNCHANGED[name] for name in CHANGE]
             for _ in range(64)]  # fmt: skip

    def question(kind: str, i: int) -> dict:
        k = i % len(images)
        return {
            "drawn": {"image": images[k], "routed": False},
            "read": {"image": images[k], "routed": True},
            "changes": {"capsules": capsules[k], "digit": winners[k], "limits": limits},
            "sweep": {"capsules": capsules[k], "digit": winners[k], "limits": limits, "steps": 11},
            "decode": {"capsules": capsules[k], "digit": winners[k], "offsets": moves[i % 64]},
            "turn": {"image": images[k], "change": turns[i % 64], "networks": ["capsules", "probabilities"]},
        }[kind]

    kinds = {"drawn": app.ANSWERS.read, **app.ANSWERS.kinds()}
    print(f"CPU: {cpu_model()}; {len(images)} MNIST examples; in process, then over HTTP")
    for kind, what, repeats in [
        ("drawn", "reading, stroke being drawn (read)", args.repeats),
        ("read", "reading, finished stroke with its routing (read)", args.repeats),
        ("changes", "the pictures beside the sliders (changes)", max(args.repeats // 4, 20)),
        ("sweep", "Figure 4 (sweep)", max(args.repeats // 4, 20)),
        ("decode", "slider move (decode)", args.repeats),
        ("turn", "Turn it: a transform slider's move (turn)", args.repeats),
    ]:
        report(what, percentiles(lambda i, kind=kind: kinds[kind](question(kind, i)), repeats))

    with serving_app() as url, httpx.Client(base_url=f"{url}ask/", timeout=60) as client:

        def asked(kind: str, i: int) -> None:
            client.post("read" if kind == "drawn" else kind, content=json.dumps(question(kind, i))).raise_for_status()

        for kind, what in [
            ("read", "finished stroke's reading over HTTP (POST ask/read)"),
            ("decode", "slider move over HTTP (POST ask/decode)"),
            ("turn", "Turn it: a transform slider's move over HTTP"),
        ]:
            report(what, percentiles(lambda i, kind=kind: asked(kind, i), args.http_repeats))

        from gradio_client import handle_file

        with api_client(url, False) as api:
            api.predict(handle_file(str(EXAMPLES[0])), api_name="/predict")  # a reading in this session

            def perturb_over_http(i: int) -> None:
                event, data = call_perturb(url, api.session_hash, json.dumps([WINNER, *moves[i % 64]])[1:-1])
                if event != "complete":
                    raise RuntimeError(f"/perturb failed: {data}")
                with urllib.request.urlopen(data[0]["url"]) as response:
                    response.read()

            report(
                "API /perturb over HTTP (queue, event stream, PNG)", percentiles(perturb_over_http, args.http_repeats)
            )


if __name__ == "__main__":
    main()
