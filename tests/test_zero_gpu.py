"""The app on ZeroGPU hardware and off it (playground/zero_gpu.py): the API's readings in ZeroGPU
calls there, none of the page's events; off it, every function as it was."""

import json
import os
import subprocess
import sys

import pytest

from harness.paths import REPO
from playground import zero_gpu

# What `spaces` reads to know it runs on ZeroGPU; the scheduler's address is never reached here
# (nothing is called, and the app is not launched).
ZERO_GPU = {"SPACES_ZERO_GPU": "true", "SPACES_ZERO_DEVICE_API_URL": "http://127.0.0.1:9/"}
API = {"predict", "perturb", "predict_pair"}
DECORATED = """
import json
import app
from spaces.zero import decorator
print(json.dumps({
    "decorated": len(decorator.decorated_cache),
    "events": {fn.api_name: hasattr(fn.fn, "zerogpu") for fn in app.demo.fns.values() if fn.fn is not None},
}))
"""


def test_off_zero_gpu_an_api_call_is_the_function_itself():
    assert "SPACES_ZERO_GPU" not in os.environ, "the tests run off ZeroGPU"

    def reading():
        return 7

    assert zero_gpu.api_call(reading) is reading


@pytest.mark.slow
def test_on_zero_gpu_the_api_runs_in_zero_gpu_calls_and_the_page_events_do_not():
    """`import app` as a ZeroGPU Space starts it (its torch patched by `spaces`): the functions the
    start reports are the API's three, and no event of the page waits for a GPU."""
    environment = {**os.environ, **ZERO_GPU}
    done = subprocess.run(
        [sys.executable, "-c", DECORATED], cwd=REPO, env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    events = seen["events"]
    assert API <= set(events), sorted(events)
    assert {name for name, decorated in events.items() if decorated} == API
    assert seen["decorated"] > 0  # the start is reported (spaces.zero's startup)
