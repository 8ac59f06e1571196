"""The app's attack surface: only /predict and /perturb in the API, no file from the disk beyond
what it made itself, caps on uploads and requests, error answers that name none of the server's
files or objects, and no share link. Against `python app.py` on 127.0.0.1."""

import io
import json
import re
import urllib.error
import urllib.request

import httpx
import numpy as np
import pytest
from PIL import Image

from harness.paths import REPO
from playground import serving
from playground.compressed_assets import CompressedAssets
from tests.support.examples import EXAMPLES

MAX_UPLOAD = 10 * 1024 * 1024  # max_file_size: 10 MB
pytestmark = pytest.mark.server


def status_of(address: str) -> int:
    try:
        with urllib.request.urlopen(address, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_api_is_predict_perturb_and_predict_pair_and_nothing_else(client_without_downloads, app):
    api = client_without_downloads.view_api(print_info=False, return_format="dict")
    assert set(api["named_endpoints"]) == {"/predict", "/perturb", "/predict_pair"}
    assert api["unnamed_endpoints"] == {}
    public = {fn.api_name for fn in app.demo.fns.values() if fn.api_visibility != "private"}
    assert public == {"predict", "perturb", "predict_pair"}


def test_no_mcp_server_and_no_dev_or_vibe_mode(url):
    with urllib.request.urlopen(f"{url}config", timeout=60) as response:
        config = json.load(response)
    assert config["mcp_server"] is False and config["vibe_mode"] is False and config["dev_mode"] is False
    assert status_of(f"{url}gradio_api/mcp/schema") == 404


@pytest.mark.parametrize(
    "path",
    [
        "gradio_api/file=/etc/passwd",
        "gradio_api/file=/proc/self/environ",
        "gradio_api/file=%2Fetc%2Fpasswd",
        "gradio_api/file=../../../../etc/passwd",
        "gradio_api/file=/tmp/gradio/../../etc/passwd",
        "file=app.py",
        "gradio_api/file=app.py",
        f"gradio_api/file={REPO}/app.py",
        "gradio_api/file=weights/model.safetensors",
        f"gradio_api/file={REPO}/weights/model.safetensors",
        "gradio_api/file=weights/config.json",
        "gradio_api/file=assets/examples/mnist_test_0000_digit_7.png",
        "gradio_api/file=harness/app_server.py",
        "static/../app.py",
        "gradio_api/file=http://127.0.0.1:1/",  # no fetching of internal addresses
    ],
)
def test_no_file_from_the_disk_is_served(url, path):
    assert status_of(url + path) in (403, 404)


def test_the_files_the_app_made_are_served(client_without_downloads, url):
    """The control for the test above: the same route does serve the app's own results."""
    from gradio_client import handle_file

    _, reconstruction = client_without_downloads.predict(handle_file(str(EXAMPLES[0])), api_name="/predict")
    assert reconstruction["url"].startswith(f"{url}gradio_api/file=")
    assert status_of(reconstruction["url"]) == 200


def call_predict_raw(url: str, image: dict) -> tuple[str, dict]:
    """/predict called over plain HTTP with ``image`` as its image: the event ("complete" or
    "error") and its data."""
    body = json.dumps({"data": [image]})
    response = httpx.post(
        f"{url}gradio_api/call/predict", content=body, headers={"Content-Type": "application/json"}, timeout=120
    )
    stream = httpx.get(f"{url}gradio_api/call/predict/{response.json()['event_id']}", timeout=120).text
    event, data = (line.split(": ", 1)[1] for line in stream.splitlines()[:2])
    return event, json.loads(data)


def says_nothing_of_the_server(message: str) -> bool:
    """Whether an error answer names none of the server's files and no Python object."""
    return not re.search(r" object at 0x|Traceback|/tmp/|/etc/|" + re.escape(str(REPO)), message)


@pytest.mark.parametrize("path", ["/etc/passwd", "app.py", str(REPO / "app.py"), str(EXAMPLES[0])])
def test_an_input_cannot_name_a_file_on_the_server(url, path):
    event, data = call_predict_raw(url, {"path": path, "meta": {"_type": "gradio.FileData"}})
    assert event == "error" and data["error"] == serving.NOT_UPLOADED


def uploaded(url: str, name: str, content: bytes) -> dict:
    """``content`` uploaded as the file ``name``, as /predict's image input refers to it."""
    response = httpx.post(f"{url}gradio_api/upload", files={"files": (name, content, "image/png")}, timeout=300)
    return {"path": response.json()[0], "meta": {"_type": "gradio.FileData"}}


def png_of(pixels: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.parametrize(
    "content, message",
    [
        (b"this is not a PNG", serving.NOT_AN_IMAGE),
        (png_of(np.full((6000, 6000), 255, np.uint8)), serving.TOO_MANY_PIXELS),  # 36 Mpx of white in 40 kB
    ],
    ids=["not-an-image", "decompression-bomb"],
)
def test_a_bad_upload_is_answered_in_our_words(url, content, message):
    event, data = call_predict_raw(url, uploaded(url, "digit.png", content))
    assert event == "error" and data["error"] == message


def test_a_request_with_too_few_inputs_gets_one_generic_sentence(url, app):
    response = httpx.post(f"{url}gradio_api/call/predict", json={"data": []}, timeout=120)
    stream = httpx.get(f"{url}gradio_api/call/predict/{response.json()['event_id']}", timeout=120).text
    event, data = (line.split(": ", 1)[1] for line in stream.splitlines()[:2])
    assert event == "error" and json.loads(data)["error"] == serving.UNEXPECTED_ERROR


@pytest.mark.parametrize(
    "arguments, message",
    [
        (['"winner"'] + ["1e9"] * 16, "Value 1000000000.0 is greater than maximum value 0.25."),  # Gradio's gr.Error
        (['"sideways"'] + ["0"] * 16, "Value: 'sideways' (type: <class 'str'>) is not in the list of choices"),
        (['"winner"'] + ["NaN"] * 16, "/perturb takes decode_as, one of"),  # our gr.Error
        (['"winner"'] + ['"abc"'] * 16, serving.BAD_INPUT.format(component="slider")),
    ],
    ids=["out-of-range", "not-a-choice", "nan", "not-a-number"],
)
def test_validation_messages_stay_and_say_nothing_of_the_server(url, arguments, message):
    from harness.app_server import call_perturb

    event, data = call_perturb(url, "validation", ", ".join(arguments))
    assert event == "error" and data["error"].startswith(message) and says_nothing_of_the_server(data["error"])


def test_uploads_are_capped(url):
    with urllib.request.urlopen(f"{url}config", timeout=60) as response:
        assert json.load(response)["max_file_size"] == MAX_UPLOAD
    too_big = httpx.post(
        f"{url}gradio_api/upload", timeout=300, files={"files": ("digit.png", b"\0" * (MAX_UPLOAD + 1), "image/png")}
    )
    assert too_big.status_code == 413 and "maximum allowed size" in too_big.text
    small = httpx.post(
        f"{url}gradio_api/upload", timeout=300, files={"files": ("digit.png", EXAMPLES[0].read_bytes(), "image/png")}
    )
    assert small.status_code == 200


def test_an_upload_request_is_capped_as_a_whole(url):
    """Gradio's cap is per file: several files each under it, in one request, are refused too."""
    just_under = b"\0" * (MAX_UPLOAD - 1024)
    response = httpx.post(
        f"{url}gradio_api/upload",
        timeout=300,
        files=[("files", (f"digit{k}.png", just_under, "image/png")) for k in range(3)],
    )
    assert response.status_code == 413 and "Request body too large" in response.text
    one = httpx.post(f"{url}gradio_api/upload", timeout=300, files={"files": ("digit.png", just_under, "image/png")})
    assert one.status_code == 200


def test_launch_creates_no_share_link_and_caps_uploads_requests_and_sessions():
    options = serving.launch_options()
    assert not options.get("share") and options["max_file_size"] == MAX_UPLOAD
    assert options["state_session_capacity"] == serving.SESSIONS_KEPT < 10_000  # Gradio's default
    middleware = [each.cls for each in options["app_kwargs"]["middleware"]]
    assert middleware == [serving.RequestsInFlight, serving.RequestSizeLimit, CompressedAssets]
    assert "demo.launch(" in (REPO / "app.py").read_text() and "share=" not in (REPO / "app.py").read_text()


def test_the_served_app_has_no_share_link(url):
    with urllib.request.urlopen(f"{url}config", timeout=60) as response:
        config = json.load(response)
    assert config["root"].startswith("http://127.0.0.1:")
    assert "gradio.live" not in json.dumps(config)
