"""The page's JavaScript as ES modules (playground/page_modules.py, playground/page/): every
component's js_on_load and every event's js is one line of glue that imports its module, each
module is served under the folder's hash and kept for good, the modules' imports resolve inside the
folder, none is left unused, and no Python file holds JavaScript or reads a .js file into a string."""

import inspect
import json
import re

import gradio as gr
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from harness.paths import REPO
from playground import page_modules
from playground.reading import WINNER

IMPORTS = re.compile(r'^import \{[^}]*\} from "\./([\w.]+)";$|new URL\("\./([\w.]+)", import\.meta\.url\)', re.M)
GLUE = re.compile(r"import\(new URL\(\"page/[0-9a-f]{16}/([\w.]+)\", document\.baseURI\)\)")
NAMED_IMPORTS = re.compile(r'^import \{([^}]*)\} from "\./([\w.]+)";$', re.M)
EXPORTS = re.compile(r"^export (?:async )?(?:function|const|let|class) (\w+)", re.M)


def imports_of(module) -> set[str]:
    """The modules of the folder ``module`` (a path) imports, or starts as a worker."""
    return {a or b for a, b in IMPORTS.findall(module.read_text(encoding="utf-8"))}


def glue_lines(demo) -> list[str]:
    """Every component's js_on_load and every event's js in the app's page (but gr.HTML's own
    default, a click event, on the HTML components that have no script)."""
    default = inspect.signature(gr.HTML).parameters["js_on_load"].default
    lines = [block.js_on_load for block in demo.blocks.values() if getattr(block, "js_on_load", default) != default]
    return lines + [fn.js for fn in demo.fns.values() if fn.js]


def test_every_script_on_the_page_is_a_line_that_imports_a_module(app):
    """But an event's js that gives a radio a value of the page's: Decode as back to the winner."""
    lines = [line for line in glue_lines(app.demo) if line != f"() => {json.dumps(WINNER)}"]
    assert len(lines) >= 8
    for line in lines:
        assert "\n" not in line and len(line) < 400, line
        *waited_for, module = GLUE.findall(line)  # a panel far down waits for page_loaded.js's word
        assert waited_for in ([], ["page_loaded.js"]) and (page_modules.FOLDER / module).is_file(), module
    mounted = {GLUE.findall(line)[-1] for line in lines}
    assert {"reading_panel.js", "drawing_pad.js", "turn_panel.js", "turn_sweep.js", "two_digits_panel.js"} <= mounted


def test_the_events_a_module_fires_are_named_in_its_glue():
    """Gradio finds a component's own events by their names in its js_on_load."""
    glue = page_modules.mounted("transform_sliders.js", events=("input",))
    assert re.search(r"""["']input["']""", glue) and "trigger(" in glue


def test_a_panel_far_down_the_page_imports_its_module_once_near_the_screen():
    """Its glue imports the module only once page_loaded.js says the page is idle and the component
    near the screen; any other panel's imports it at once."""
    glue = page_modules.mounted("two_digits_panel.js")
    assert "two_digits_panel.js" in page_modules.NEAR_THE_SCREEN
    assert GLUE.findall(glue) == ["page_loaded.js", "two_digits_panel.js"]
    assert glue.index("nearTheScreen(element") < glue.index("two_digits_panel.js") < glue.index("module.mount(")
    assert GLUE.findall(page_modules.mounted("reading_panel.js")) == ["reading_panel.js"]


def test_every_module_s_imports_are_in_the_folder_and_every_module_is_used(app):
    modules = {path.name: imports_of(path) for path in page_modules.MODULES}
    for name, imported in modules.items():
        assert imported <= modules.keys(), (name, imported - modules.keys())
    used = set().union(*modules.values()) | {name for line in glue_lines(app.demo) for name in GLUE.findall(line)}
    assert used | page_modules.PLAIN_SCRIPTS == modules.keys(), modules.keys() - used


def test_the_head_preloads_what_the_glue_imports_and_what_that_imports():
    """Every module the page's thread runs is preloaded from the head, the worker's only modules are
    not, and kept_input.js runs there inline, as a plain script, and so does fetched_early.js, with
    the files it asks for."""
    modules = {path.name: imports_of(path) for path in page_modules.MODULES}
    preloaded = page_modules.page_thread_modules()
    assert len(preloaded) == len(set(preloaded))
    for name in preloaded:
        assert modules[name] - {"network_worker.js"} <= set(preloaded), name
    assert "network_worker.js" not in preloaded and "dimension_changes.js" not in preloaded  # the worker's own
    assert "two_digits_reading.js" not in preloaded  # the seam's, for the server, imported where asked
    assert {"drawing_pad.js", "reading_panel.js", "page_networks.js", "strip.js"} <= set(preloaded)
    two_digits = {"two_digits_panel.js", "two_digits_view.js", "two_digits_tinted.js"}  # mounted near the screen
    assert not two_digits & set(preloaded)
    head = page_modules.head()
    assert head.count('rel="modulepreload"') == len(preloaded)
    kept_input = (page_modules.FOLDER / page_modules.KEPT_INPUT).read_text(encoding="utf-8")
    assert f"<script>{kept_input}</script>" in head
    assert not re.search(r"^(import|export) ", kept_input, re.M)  # a plain script
    fetched_early = (page_modules.FOLDER / page_modules.FETCHED_EARLY).read_text(encoding="utf-8")
    files = "[&quot;network/a.onnx&quot;, &quot;x/y.wasm&quot;]"  # ["network/a.onnx", "x/y.wasm"], escaped
    with_files = page_modules.head(("network/a.onnx", "x/y.wasm"))
    assert with_files == f'{head}<script data-files="{files}">{fetched_early}</script>'
    assert not re.search(r"^(import|export) ", fetched_early, re.M)


def test_every_name_a_module_imports_is_exported_by_the_module_it_names():
    """A browser refuses a whole module whose import names what the other does not export (and
    every module that imports it): Biome, which lints one file at a time, cannot see it."""
    exported = {path.name: set(EXPORTS.findall(path.read_text(encoding="utf-8"))) for path in page_modules.MODULES}
    missing = [
        (path.name, name, module)
        for path in page_modules.MODULES
        for names, module in NAMED_IMPORTS.findall(path.read_text(encoding="utf-8"))
        for name in (part.split(" as ")[0].strip() for part in names.split(","))
        if name and name not in exported[module]
    ]
    assert sum(map(len, exported.values())) > 40 and not missing, missing


def test_a_module_that_ports_a_python_function_is_named_after_it():
    """The port and its original side by side: ink_to_mnist.js is preprocess.ink_to_mnist, and so
    on; a section's own port bears its section's name first: two_digits_views.tinted is
    two_digits_tinted.js. (Each is the page's own step, tested for what it does, not against its
    original: tests/js.)"""
    for module, original in [
        ("ink_to_mnist.js", "capsnet/data/preprocess.py `ink_to_mnist`"),
        ("paper.js", "playground/views.py `paper`"),
        ("two_digits_tinted.js", "playground/two_digits_views.py `tinted`"),
        ("digit_count.js", "capsnet/digit_count.py `counted`"),
    ]:
        head = (page_modules.FOLDER / module).read_text(encoding="utf-8")[:400]
        assert f"Ports {original}" in " ".join(line.removeprefix("// ") for line in head.splitlines()), module


def test_each_module_is_served_as_javascript_for_good_under_the_folder_s_hash_gzipped():
    client = TestClient(Starlette(routes=page_modules.routes()))
    for path in page_modules.MODULES:
        answer = client.get(f"/{page_modules.URL}/{path.name}", headers={"Accept-Encoding": "gzip"})
        assert answer.status_code == 200 and answer.content == path.read_bytes()  # the client unzips
        assert answer.headers["content-encoding"] == "gzip" and answer.headers["content-type"].startswith(
            "text/javascript"
        )
        assert "immutable" in answer.headers["cache-control"]
        plain = client.get(f"/{page_modules.URL}/{path.name}", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == path.read_bytes()
    assert client.get(f"/{page_modules.URL}/nothing.js").status_code == 404


def test_no_python_file_holds_javascript_or_reads_a_js_file():
    sources = [REPO / "app.py", *(REPO / "playground").glob("*.py")]
    for source in sources:
        text = source.read_text(encoding="utf-8")
        assert not re.search(r"\.js\"\)\.read_text|\.js'\)\.read_text", text), source.name
        if source.name != "page_modules.py":  # the glue's one line, and kept_input.js put in the head
            assert not re.search(r"(document\.|addEventListener|=> \{\n)", text), source.name


@pytest.mark.parametrize("module", ["nothing.js", "../app.py"])
def test_glue_for_a_module_that_is_not_there_is_refused(module):
    with pytest.raises(FileNotFoundError):
        page_modules.mounted(module)
