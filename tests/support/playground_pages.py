"""What the tests of the page in Chromium share: a page of the playground of its own, with what it
wrote to its console and the requests it sent, the check that it wrote nothing alarming, and how
far apart two of its pictures are, and how far the page's networks have loaded."""

import time

import numpy as np

from harness.chromium_browser import DESKTOP
from harness.slider_drivers import asks_the_server
from playground import page_modules

TIMEOUT_MS = 120_000  # a headless software-rendered page on a busy 2-core machine can be slow


def playground_page(browser, viewport: dict = DESKTOP, touch: bool = False):
    """A new page in a context of its own (nothing cached) that keeps every message it writes to
    its console and each error it leaves uncaught (``page.messages``, (type or "uncaught", text)),
    the questions and events it sends to the server (``page.sent``, their URLs: `asks_the_server`)
    and the graphs it fetches (``page.graphs``); with ``touch``, a phone's: touch, a phone's pixel
    ratio. Close its context."""
    phone = {"has_touch": True, "is_mobile": True, "device_scale_factor": 3} if touch else {}
    page = browser.new_context(viewport=viewport, **phone).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.messages, page.sent, page.graphs = [], [], []
    page.on("console", lambda message: page.messages.append((message.type, message.text)))
    page.on("pageerror", lambda error: page.messages.append(("uncaught", str(error))))
    page.on("request", lambda request: page.sent.append(request.url) if asks_the_server(request.url) else None)
    page.on("request", lambda request: page.graphs.append(request.url) if "/network/" in request.url else None)
    return page


def no_alarm(page, allowed: tuple[str, ...] = ()) -> None:
    """The page wrote no error or warning to its console but the browser's own line for a file not
    found (which a page cannot keep from it) and the ``allowed`` lines, and left no error uncaught."""
    alarming = [
        text
        for kind, text in page.messages
        if kind in ("error", "warning", "uncaught")
        and not text.startswith("Failed to load resource")
        and text not in allowed
    ]
    assert alarming == [], alarming


def grey_levels_apart(a: np.ndarray, b: np.ndarray) -> int:
    """The largest difference of two uint8 pictures, in grey levels of 255."""
    return int(np.abs(a.astype(int) - b.astype(int)).max())


def page_module(name: str) -> str:
    """JavaScript that imports the page's module ``name`` (of playground/page/), as the page itself
    imports it: the one instance the page runs."""
    return f"import(new URL('{page_modules.URL}/{name}', document.baseURI))"


def page_networks(page) -> str:
    """JavaScript that imports the page's networks module (playground/page/page_networks.js)."""
    return page_module("page_networks.js")


def networks_state(page, which: str = "reader") -> str:
    """Where the page's ``which`` ("reader", "decoder" or "turner") stands: "waiting", "ready" or
    "unavailable"."""
    return page.evaluate(f"async () => (await {page_networks(page)}).{which}State()")


def touched(page) -> None:
    """A person's first touch of the page, a press on its top left corner, on no control: the page
    fetches its decoder then (page_networks.js `withDecoder`)."""
    page.mouse.click(1, 1)


def wait_for_networks(page, which: str = "reader", timeout_s: float = TIMEOUT_MS / 1000) -> None:
    """Wait until the page's ``which`` ("reader", "decoder" or "turner") is ready; fail where it is
    unavailable or still waiting after ``timeout_s``."""
    waited = time.monotonic() + timeout_s
    while (state := networks_state(page, which)) == "waiting" and time.monotonic() < waited:
        page.wait_for_timeout(100)
    assert state == "ready", f"the page's {which} is {state}"


# In the page, from its start: each drawing the pads offer (reading_store.js `drawings`) kept as the
# pad's value for it, in window.padValues, whether the page reads it or the server does.
KEEP_PAD_VALUES = f"""
window.padValues = [];
import(new URL("{page_modules.URL}/reading_store.js", document.baseURI)).then(({{ drawings }}) =>
  drawings.take(({{ strokes, background, revision, drawing }}) => {{
    window.padValues.push({{
      strokes: strokes.map((stroke) => stroke.join(" ")),
      background: background && btoa(String.fromCharCode(...background)),
      revision,
      drawing,
    }});
    return false;
  }}),
);
"""


def keeping_pad_values(page):
    """``page``, which keeps the value of each drawing its pads offer (`pad_value`) from its next load."""
    page.add_init_script(KEEP_PAD_VALUES)
    return page


def offered_value(page, revision: int | str) -> dict:
    """The value of the drawing of ``revision`` a pad of ``page`` (`keeping_pad_values`) offered: the
    value the server would have been sent, for the server to read it too."""
    return page.evaluate("(r) => window.padValues.findLast((value) => String(value.revision) === r)", str(revision))


def shown_value(page) -> dict:
    """The value of the drawing the digit pad of ``page`` (`keeping_pad_values`) shows now."""
    return offered_value(page, page.evaluate("() => document.querySelector('#pad [data-revision]').dataset.revision"))


def settled(page, quiet_ms: int = 1500) -> None:
    """Wait until the page has sent the server no event for ``quiet_ms`` (``page.sent``)."""
    count = -1
    while count != len(page.sent):
        count = len(page.sent)
        page.wait_for_timeout(quiet_ms)
