"""Many gradio_client sessions at once against a served app.py's API: a load of tests/test_app_load.py
(people at the page are harness/page_crowd.py).

Each session reads a digit (/predict), then mostly drags the sliders (/perturb, cheap: the
decoder alone), reading another digit every few requests. Sessions run in threads, one client
each, all starting together; every call is bounded in time and recorded with its answer.
"""

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from harness.gradio_clients import api_client, temp_folder
from tests.support.examples import EXAMPLES

OFFSET_SETS = 4  # the sessions cycle through this many slider settings
WINNER = "winner"  # decode the winning capsule
HTTP_TIMEOUT = 300.0  # seconds for one HTTP exchange: a server on a busy machine answers slowly


@dataclass(frozen=True)
class Call:
    """One request of one session, and what came back."""

    session: int
    endpoint: str  # "/predict" or "/perturb"
    example: int  # index into EXAMPLES of the digit read last in this session
    offsets: int  # index into the offset sets (a /perturb), else -1
    seconds: float  # from submitting to having the answer (files downloaded)
    answer: Any  # /predict: (reading dict, uint8 reconstruction); /perturb: uint8 image
    error: str | None = None


def offset_sets(dimensions: int) -> list[list[float]]:
    """Slider settings within [-0.25, 0.25] in steps of 0.01: zero, one dimension at its end, and
    random ones; the same on every run."""
    rng = np.random.default_rng(0)
    corner = [0.25] + [0.0] * (dimensions - 1)
    random = rng.uniform(-0.25, 0.25, (OFFSET_SETS - 2, dimensions)).round(2).tolist()
    return [[0.0] * dimensions, corner, *random]


def plan(session: int, requests: int, predict_every: int) -> list[tuple[str, int, int]]:
    """The (endpoint, example, offsets) of a session's requests: a /predict first and every
    ``predict_every`` requests, /perturb otherwise."""
    steps, example = [], session % len(EXAMPLES)
    for k in range(requests):
        if k % predict_every == 0:
            example = (session + k) % len(EXAMPLES)
            steps.append(("/predict", example, -1))
        else:
            steps.append(("/perturb", example, (session + k) % OFFSET_SETS))
    return steps


def sketch(example: Path) -> dict:
    """What gradio_client sends to /predict for an example PNG."""
    from gradio_client import handle_file

    return handle_file(str(example))


def pixels(path: str) -> np.ndarray:
    return np.asarray(Image.open(path))


def run_sessions(
    url: str, sessions: int, requests: int, download_dir: Path, timeout: float, predict_every: int = 5
) -> list[Call]:
    """Every call of ``sessions`` concurrent sessions of ``requests`` requests each.

    Args:
        url: the served app, e.g. "http://127.0.0.1:7860/".
        sessions: concurrent clients, one thread each.
        requests: requests per session.
        download_dir: where the clients put the images they receive.
        timeout: seconds for the whole run; a call still waiting then is recorded as an error.
        predict_every: a /predict every this many requests, /perturb otherwise.
    """
    deadline = time.monotonic() + timeout
    everyone_connected = threading.Barrier(sessions)

    def session(index: int) -> list[Call]:
        with ExitStack() as connection:
            try:
                client = connection.enter_context(api_client(url, download_dir, httpx_kwargs={"timeout": HTTP_TIMEOUT}))
                api = client.view_api(print_info=False, return_format="dict")
            except Exception:
                everyone_connected.abort()  # the other sessions stop waiting for this one
                raise
            settings = offset_sets(len(api["named_endpoints"]["/perturb"]["parameters"]) - 1)
            everyone_connected.wait(timeout=max(deadline - time.monotonic(), 0))
            calls = []
            for endpoint, example, offsets in plan(index, requests, predict_every):
                start = time.perf_counter()
                try:
                    if endpoint == "/predict":
                        job = client.submit(sketch(EXAMPLES[example]), api_name="/predict")
                        reading, reconstruction = job.result(timeout=max(deadline - time.monotonic(), 0))
                        answer = (reading, pixels(reconstruction))
                    else:
                        job = client.submit(WINNER, *settings[offsets], api_name="/perturb")
                        answer = pixels(job.result(timeout=max(deadline - time.monotonic(), 0)))
                    calls.append(Call(index, endpoint, example, offsets, time.perf_counter() - start, answer))
                except Exception as error:  # recorded, and the test or the benchmark reports it
                    calls.append(
                        Call(
                            index,
                            endpoint,
                            example,
                            offsets,
                            time.perf_counter() - start,
                            None,
                            f"{type(error).__name__}: {error}",
                        )
                    )
            return calls

    # every session's client sets the temp folder to download_dir: kept so until the last one ends
    with temp_folder(download_dir), ThreadPoolExecutor(max_workers=sessions) as pool:
        runs = [pool.submit(session, index) for index in range(sessions)]
        return [call for run in runs for call in run.result()]
