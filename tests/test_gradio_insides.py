"""The parts of Gradio that playground/serving.py replaces (written for Gradio 6.31.0) still have
the shape its replacements assume: the same arguments and answers, and no caller the replacement
does not reach. Gradio 6.31.0 offers no setting or hook for either (`show_error` only chooses
between str(exception) and nothing; output images are written by `save_pil_to_cache` whatever the
component's parameters), so the day one of these fails, read the new Gradio: drop the replacement
if it now does the job itself, else write it again for the new shape."""

import ast
import inspect
from pathlib import Path

import gradio as gr
import numpy as np
from gradio import processing_utils, utils
from PIL import Image

from playground import serving

# Gradio's own functions, taken when this module is collected: no test calls
# serving.configure_process() in this process (the app's tests start `python app.py`).
GRADIO_ERROR_PAYLOAD = utils.error_payload
GRADIO_SAVE_PIL_TO_CACHE = processing_utils.save_pil_to_cache
assert GRADIO_SAVE_PIL_TO_CACHE is not serving.save_pil_to_cache_atomically, "serving.configure_process() ran first"
assert GRADIO_ERROR_PAYLOAD is not serving.error_payload_in_our_words, "serving.configure_process() ran first"


def modules_importing(name: str) -> set[str]:
    """Gradio's modules that bind ``name`` with `from ... import`: they call their own copy, which
    a replacement reaches only if serving.configure_process() assigns it there too."""
    package = Path(gr.__file__).parent
    found = set()
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if name not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and any(alias.name in (name, "*") for alias in node.names):
                found.add(".".join(("gradio", *path.relative_to(package).with_suffix("").parts)))
    return found


def parameters(function) -> list[tuple[str, object]]:
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]


def test_error_payload_takes_and_answers_what_the_replacement_assumes():
    assert parameters(GRADIO_ERROR_PAYLOAD) == parameters(serving.error_payload_in_our_words)
    ours = gr.Error("Cannot read this drawing", duration=3)
    assert GRADIO_ERROR_PAYLOAD(ours, True) == {
        "error": "Cannot read this drawing",
        "duration": 3,
        "visible": True,
        "title": "Error",
    }
    # What the replacement is for: with show_error, any exception's own text; without, nothing at all.
    assert GRADIO_ERROR_PAYLOAD(ValueError("/tmp/gradio/abc/digit.png"), True) == {
        "error": "/tmp/gradio/abc/digit.png",
        "visible": True,
    }
    assert GRADIO_ERROR_PAYLOAD(ValueError("/tmp/gradio/abc/digit.png"), False) == {"error": None}


def test_error_payload_is_called_only_where_the_replacement_is_assigned():
    """routes.py calls `utils.error_payload(...)`, reached through utils; queueing.py imports its
    own copy, so configure_process() assigns queueing.error_payload too. A third importer would
    answer its errors in Gradio's words."""
    assert modules_importing("error_payload") == {"gradio.queueing"}


def test_save_pil_to_cache_takes_and_writes_what_the_replacement_assumes(tmp_path):
    assert parameters(GRADIO_SAVE_PIL_TO_CACHE) == parameters(serving.save_pil_to_cache_atomically)
    image = Image.fromarray((np.random.default_rng(0).random((28, 28)) * 255).astype(np.uint8))
    for name, format in (("image", "webp"), ("digit", "png")):
        theirs = Path(GRADIO_SAVE_PIL_TO_CACHE(image, str(tmp_path / "gradio"), name=name, format=format))
        ours = Path(serving.save_pil_to_cache_atomically(image, str(tmp_path / "ours"), name=name, format=format))
        assert theirs.relative_to(tmp_path / "gradio") == ours.relative_to(tmp_path / "ours")  # HASH/NAME.FORMAT
        assert theirs.read_bytes() == ours.read_bytes()


def test_save_pil_to_cache_is_reached_by_every_image_gradio_writes(monkeypatch, tmp_path):
    """gr.Image's output goes through `processing_utils.save_pil_to_cache`, looked up when it is
    called; no module of Gradio imports its own copy, which the replacement would not reach."""
    assert modules_importing("save_pil_to_cache") == set()
    written = []

    def save(*args, **kwargs) -> str:
        written.append(serving.save_pil_to_cache_atomically(*args, **kwargs))
        return written[-1]

    monkeypatch.setattr(processing_utils, "save_pil_to_cache", save)
    picture = gr.Image(format="png")
    picture.GRADIO_CACHE = str(tmp_path)
    value = picture.postprocess(Image.new("L", (28, 28)))
    assert written and value.path == written[0]
