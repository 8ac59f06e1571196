"""A visit of the playground's served page in headless Chromium: waiting for the page's reader
(`wait_for_reader`) and for its fetching to settle (`wait_for_quiet`), scrolling it to the end as a
reader does (`scroll_to_end`), and the GETs a first visit makes, recorded once for the light
clients of harness/page_crowd.py to fetch the same (`recorded_visit`; a `Page` with them, `visited`).

The recording: a fresh browser (nothing cached) opens the page through a proxy on loopback that
counts the bytes (harness/delaying_proxy.py, no delay), and every GET it makes of the page's
origin is listed in the order it was asked: the page, Gradio's frontend files and its start-up
calls, the page's own modules, the graphs and ONNX Runtime Web, until the page's reader is ready
and nothing has crossed for QUIET_S; then a tap on the pad, as a person starts to draw, which
brings the decoder's graph (the page fetches it on a person's first touch), until quiet; then
scrolled to the end a screen at a time, which brings Turn it's and Two digits' graphs, until quiet
again. A file asked again (the page's modules, imported by its workers too) is listed once: the
browser's cache answers it. Left out: the POSTs of the page's events and the streams that stay
open (Gradio's heartbeat, Server-Sent Events, websockets), which the crowd does not model as
files, and anything of another origin.
"""

import dataclasses
import tempfile
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from harness.chromium_browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP
from harness.delaying_proxy import LOOPBACK, Link, delaying_proxy
from harness.page_protocol import Page

# In the page: where its reader stands (bench/first_tap.py's READER_STATE), "none" once the pad is
# up on a page that preloads no networks module (code from before the networks moved into the page)
READER_STATE_OR_NONE = """
async () => {
  const link = document.querySelector('link[rel=modulepreload][href$="/page_networks.js"]');
  if (link) return (await import(link.href)).readerState();
  return document.querySelector('#pad canvas') ? 'none' : 'waiting';
}
"""
QUIET_S = 5.0  # nothing crossed for this long: the page has fetched what it fetches now
STREAMS = {"eventsource", "websocket"}  # Playwright's resource types of requests that stay open
STREAMED = "text/event-stream"  # an answer that stays open (Gradio's heartbeat, fetched as a stream)


def wait_for_reader(page, timeout: float = 300.0) -> str:
    """Wait until the page's reader is ready or failed; its state ("none" for a page of code
    older than the page's reader: it is never waited for)."""
    deadline = time.monotonic() + timeout
    while (state := page.evaluate(READER_STATE_OR_NONE)) == "waiting" and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    return state


def wait_for_quiet(link: Link, timeout: float = 300.0) -> None:
    """Wait until no byte has crossed ``link`` for QUIET_S."""
    deadline = time.monotonic() + timeout
    carried, since = link.carried(), time.monotonic()
    while time.monotonic() - since < QUIET_S:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page was still fetching after {timeout:.0f} s")
        time.sleep(0.2)
        if link.carried() != carried:
            carried, since = link.carried(), time.monotonic()


def scroll_to_end(page) -> None:
    """Scroll down a screen at a time, as a reader does, until the end of the page."""
    while page.evaluate("() => window.scrollY + window.innerHeight < document.documentElement.scrollHeight - 2"):
        page.mouse.wheel(0, DESKTOP["height"] * 0.8)
        page.wait_for_timeout(400)


@dataclass(frozen=True)
class Visit:
    """A first visit's GETs, each the address of a file relative to the page ("" the page itself,
    "assets/index-….js", "network/….onnx", ...), in the order the browser asked for them."""

    at_once: tuple[str, ...]  # before any scroll: the page, its files, what it fetches once idle or touched
    scrolled: tuple[str, ...]  # more once scrolled down to the end: Turn it's and Two digits' graphs


def recorded_visit(app_url: str) -> Visit:
    """A fresh headless Chromium's first visit of the app served at ``app_url``."""
    from playwright.sync_api import sync_playwright

    link = Link()
    asked: list[str] = []  # the addresses, in order
    streamed: set[str] = set()
    with (
        delaying_proxy(urlsplit(app_url).port, 0, link) as port,
        tempfile.TemporaryDirectory(prefix="page-visit-profile-") as profile,
        sync_playwright() as playwright,
    ):
        origin = f"http://{LOOPBACK}:{port}/"

        def ask(request) -> None:
            if request.method == "GET" and request.resource_type not in STREAMS and request.url.startswith(origin):
                asked.append(request.url.removeprefix(origin))

        def answered(response) -> None:
            if response.headers.get("content-type", "").startswith(STREAMED):
                streamed.add(response.url.removeprefix(origin))

        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, viewport=DESKTOP
        )
        context.on("request", ask)
        context.on("response", answered)
        try:
            page = context.new_page()
            page.goto(origin)
            if wait_for_reader(page) not in {"ready", "none"}:
                raise RuntimeError("the page's reader did not load")
            wait_for_quiet(link)
            page.locator("#pad canvas").first.click()  # the person's first touch, which brings the decoder
            wait_for_quiet(link)
            before_scroll = len(asked)
            scroll_to_end(page)
            wait_for_quiet(link)
        finally:
            context.close()
    files = [address for address in dict.fromkeys(asked) if address not in streamed]  # once each, in order
    at_once = set(asked[:before_scroll])
    return Visit(
        tuple(address for address in files if address in at_once),
        tuple(address for address in files if address not in at_once),
    )


def visited(page: Page, app_url: str) -> Page:
    """``page`` with the files a browser's first visit of the app served at ``app_url`` fetches."""
    visit = recorded_visit(app_url)
    return dataclasses.replace(page, first_visit=visit.at_once, scrolled=visit.scrolled)
