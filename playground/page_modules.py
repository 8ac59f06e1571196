"""The page's own JavaScript: the ES modules of playground/page/, one concern each, served as files
at an address named by their hash (GET /page/HASH/NAME.js, kept by the browser for good), and
the one line of glue with which a gr.HTML's js_on_load, or an event's js, imports its module.

Gradio runs js_on_load as a function's body, where only the dynamic import() works; the glue
imports the module by its address on the page and calls its ``mount`` with what Gradio gives
(``element``, ``props``, ``watch``, and a function for each event it fires). Each address changes
with the folder's bytes, so a page never mixes modules of two versions. Where each module runs and
why: docs/playground.md.

The page's head (`head`) asks for every module of the page's thread at once, as soon as Gradio
puts the head in (modulepreload), rather than one import after another, and runs kept_input.js,
which keeps what a person taps or draws on a pad before the pad's module has mounted. A panel far
down the page (`NEAR_THE_SCREEN`) imports its module only once the page is idle and the panel
near the screen, and the head asks for none of what only it imports: the browser fetches the
preloads last, after Gradio's own files, a few at a time, and a first visit's first tap waits for
the reading panel's.
"""

import hashlib
import html
import json
import re
from pathlib import Path

from starlette.routing import Route

from playground.page_network import cached_route, compressed

FOLDER = Path(__file__).parent / "page"
MODULES = sorted(FOLDER.glob("*.js"))


def _folder_hash() -> str:
    """The first 16 hex digits of the SHA-256 of every module's name and bytes."""
    digest = hashlib.sha256()
    for path in MODULES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


URL = f"page/{_folder_hash()}"  # the modules' folder, relative to the page
KEPT_INPUT = "kept_input.js"  # a plain script, run from the page's head: never imported
FETCHED_EARLY = "fetched_early.js"  # the same
PLAIN_SCRIPTS = {KEPT_INPUT, FETCHED_EARLY}
COPIES = "hub-copies"  # the id of the head's element holding the Hub's copies of the page's files
# The pad, which takes a person's first tap, and the panel that asks for its reading: the modules
# a first tap waits for, asked for before the other panels'.
FIRST_TAP = ("drawing_pad.js", "reading_panel.js")
NEAR_THE_SCREEN = {"two_digits_panel.js"}  # mounted once the page is idle and it is NEAR: never preloaded
NEAR = "100% 0px"  # within a screen's height above or below the screen (page_loaded.js nearTheScreen)
_IMPORT = re.compile(r'from "\./([\w.]+\.js)";')  # import { ... } from "./name.js";
_WORKER = re.compile(r'new URL\("\./([\w.]+\.js)", import\.meta\.url\)')  # a worker's module


def _imports(name: str) -> list[str]:
    """The modules ``name`` imports, in its order."""
    return _IMPORT.findall((FOLDER / name).read_text(encoding="utf-8"))


def page_thread_modules() -> list[str]:
    """The modules the page's thread runs from its start: those no module imports or starts as a
    worker (the glue imports them) but the ones `NEAR_THE_SCREEN`, `FIRST_TAP`'s first (what a
    first tap waits for), each followed by what it imports that is not listed yet, each once: the
    browser asks for them in this order."""
    texts = [(FOLDER / path.name).read_text(encoding="utf-8") for path in MODULES]
    imported = {name for text in texts for name in _IMPORT.findall(text) + _WORKER.findall(text)}
    roots = [path.name for path in MODULES if path.name not in imported | NEAR_THE_SCREEN | PLAIN_SCRIPTS]
    found, waiting = [], [*FIRST_TAP, *(name for name in roots if name not in FIRST_TAP)]
    while waiting:
        name = waiting.pop(0)
        if name not in found:
            found.append(name)
            waiting[:0] = _imports(name)
    return found


def _imported(module: str) -> str:
    """JavaScript that imports ``module`` (a file of playground/page/) by its address on the page."""
    if module not in {path.name for path in MODULES}:
        raise FileNotFoundError(f"no module {module} in {FOLDER}")
    return f"import(new URL({json.dumps(f'{URL}/{module}')}, document.baseURI))"


def mounted(module: str, events: tuple[str, ...] = ()) -> str:
    """A gr.HTML's js_on_load: ``module`` imported, and its ``mount`` given the component:
    ``element``, ``props``, ``watch`` and ``fire``, a function for each of ``events``, the component's
    events it fires (named here, where Gradio looks for a component's own events). A module
    `NEAR_THE_SCREEN` is imported once the page is idle and the component `NEAR` the screen
    (page_loaded.js, itself preloaded, says when); it draws the value the component has by then."""
    fire = ", ".join(f"{json.dumps(event)}: (data) => trigger({json.dumps(event)}, data)" for event in events)
    mount = f"{_imported(module)}.then((module) => module.mount({{ element, props, watch, fire: {{{fire}}} }}))"
    if module not in NEAR_THE_SCREEN:
        return f"{mount};"
    near = f"{_imported('page_loaded.js')}.then((page) => page.nearTheScreen(element, {json.dumps(NEAR)}))"
    return f"{near}.then(() => {mount});"


def called(module: str, function: str, *arguments) -> str:
    """An event's js (gr.on(js=...)): ``module``'s ``function`` called with the event's inputs, then
    ``arguments`` (as JSON)."""
    extra = "".join(f", {json.dumps(argument)}" for argument in arguments)
    return f"(...inputs) => {{ {_imported(module)}.then((module) => module.{function}(...inputs{extra})); }}"


def head(reader_files: tuple[str, ...] = (), copies: dict[str, dict] | None = None) -> str:
    """HTML for the page's head: a modulepreload link for each of `page_thread_modules`,
    kept_input.js inline, so that it runs before any component is laid out, and fetched_early.js,
    which asks for ``reader_files`` as soon as it runs: what the page's reader fetches before it
    reads (addresses relative to the page), for its worker to find them kept or on their way. With
    ``copies`` (`hub_copies.page_copies`: a file's address relative to the page -> its copy on the
    Hub), the element #COPIES holds them as JSON, for the page to fetch those files from the Hub."""
    links = "".join(
        f'<link rel="modulepreload" fetchpriority="low" href="{html.escape(f"{URL}/{name}")}">'
        for name in page_thread_modules()
    )
    scripts = f"<script>{(FOLDER / KEPT_INPUT).read_text(encoding='utf-8')}</script>"
    if copies:  # as JSON in a script element: "<" escaped, so that no "</script>" ends it early
        table = json.dumps(copies).replace("<", "\\u003c")
        scripts += f'<script type="application/json" id="{COPIES}">{table}</script>'
    if reader_files:
        files = html.escape(json.dumps(list(reader_files)))
        scripts += f'<script data-files="{files}">{(FOLDER / FETCHED_EARLY).read_text(encoding="utf-8")}</script>'
    return links + scripts


def routes() -> list[Route]:
    """GET /page/HASH/NAME.js for every module of the folder, gzipped for a browser that takes it."""
    routes = []
    for path in MODULES:
        body = path.read_bytes()
        routes.append(cached_route(f"{URL}/{path.name}", body, "text/javascript", compressed(body)))
    return routes
