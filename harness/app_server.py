"""Run `python app.py` in a subprocess on a free loopback port, for the tests and the benchmarks,
its files in a folder of its own (the app of this checkout, or of another revision: `checkout`),
and call its /perturb through Gradio's HTTP API."""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from harness.paths import REPO


def free_port() -> int:
    """A TCP port nobody listens on right now, on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def checkout(revision: str) -> Iterator[Path]:
    """A folder holding the repository's files at git ``revision`` (its weights included), removed on exit."""
    with tempfile.TemporaryDirectory(prefix="app-checkout-") as folder:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        yield Path(folder)


@contextmanager
def serving_app(
    start_timeout: float = 300.0, files: Path | None = None, code: Path = REPO, environment: dict | None = None
) -> Iterator[str]:
    """The URL of app.py served on 127.0.0.1 through GRADIO_SERVER_NAME / GRADIO_SERVER_PORT; the
    server is stopped on exit.

    Args:
        start_timeout: seconds to wait for the page to answer (loading torch and the model).
        files: the folder of Gradio's cache (GRADIO_TEMP_DIR): the uploads and the images answered;
            None: a temporary folder, removed on exit.
        code: the folder whose app.py is served: this checkout, or another revision's (`checkout`).
        environment: variables set for it, beside this process's (None: removed).
    """
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with ExitStack() as cleanup:
        files = files or Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="app-server-")))
        env = {
            **os.environ,
            "GRADIO_SERVER_NAME": "127.0.0.1",
            "GRADIO_SERVER_PORT": str(port),
            "GRADIO_ANALYTICS_ENABLED": "False",
            "PYTHONUNBUFFERED": "1",
            "GRADIO_TEMP_DIR": str(files),
        }
        for name, value in (environment or {}).items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        log = cleanup.enter_context(tempfile.TemporaryFile(mode="w+"))
        server = subprocess.Popen([sys.executable, "app.py"], cwd=code, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + start_timeout
            while True:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(
                        f"app.py did not answer on {url} (exit code {server.poll()}):\n{log.read()[-3000:]}"
                    )
                try:
                    with urllib.request.urlopen(url, timeout=2):
                        break
                except OSError:
                    time.sleep(0.5)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@contextmanager
def serving_apps(against: str | None = None) -> Iterator[dict[str, str]]:
    """{"this checkout": its URL} and, with ``against`` (a git revision), {"revision REV": the URL
    of that revision's app} beside it, for a benchmark that measures both; stopped on exit."""
    with ExitStack() as stack:
        apps = {"this checkout": stack.enter_context(serving_app())}
        if against:
            code = stack.enter_context(checkout(against))
            apps[f"revision {against}"] = stack.enter_context(serving_app(code=code))
        yield apps


def call_perturb(url: str, session_hash: str, arguments: str) -> tuple[str, dict | list]:
    """POST /gradio_api/call/perturb with ``arguments`` spliced into the JSON data list as they
    are (so that NaN and strings can be sent), in ``session_hash``, then read its event stream.

    Returns:
        The last event ("complete" or "error") and its data.
    """
    body = f'{{"data": [{arguments}], "session_hash": "{session_hash}"}}'
    request = urllib.request.Request(
        f"{url}gradio_api/call/perturb", data=body.encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        event_id = json.load(response)["event_id"]
    with urllib.request.urlopen(f"{url}gradio_api/call/perturb/{event_id}", timeout=120) as response:
        stream = response.read().decode()
    event = re.search(r"^event: (\w+)$", stream, re.MULTILINE).group(1)
    data = re.search(r"^data: (.*)$", stream, re.MULTILINE).group(1)
    return event, json.loads(data)
