"""A visitor far from the server taps an example, or draws, before the page's modules have come:
the tap or the stroke is kept (playground/page/kept_input.js, run from the page's head) and read
once the pad's module mounts, and Figure 4 and the routing view follow that reading. The page's
modules are held back here until the person has tapped or drawn, as a slow network would hold them
(bench/first_tap.py measures it through a delaying proxy), and the head asks for every module of
the page's thread at once."""

import re
import time

import numpy as np
import pytest

from harness.chromium_browser import CHROMIUM, DESKTOP, PHONE
from harness.digit_strokes import strokes
from harness.pointer_moves import MOVE_SECONDS, pointer
from playground import page_modules
from playground.drawing_pad import SIDE

pytestmark = [pytest.mark.browser, pytest.mark.slow]
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)

TIMEOUT_MS = 120_000
MODULES = re.compile(r"/page/[0-9a-f]{16}/[\w.]+\.js$")


class HeldModules:
    """The page's modules held back: each request for one waits in ``held`` until `release`."""

    def __init__(self, page):
        self.page, self.held, self.released = page, [], False
        page.route(MODULES, self._arrived)

    def _arrived(self, route) -> None:
        if self.released:
            route.continue_()
        else:
            self.held.append(route)

    def release(self, only: str | None = None) -> None:
        """Let the held modules come, or ``only`` the one of that name (the others stay held), once
        it has been asked for."""
        self.released = only is None
        while only is not None and not any(route.request.url.endswith(f"/{only}") for route in self.held):
            self.page.wait_for_timeout(50)
        for route in [route for route in self.held if only is None or route.request.url.endswith(f"/{only}")]:
            self.held.remove(route)
            route.continue_()


def fresh_page(browser, phone: bool = False):
    context = browser.new_context(viewport=PHONE if phone else DESKTOP, has_touch=phone, is_mobile=phone)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return page


def pad_ready(page) -> bool:
    return page.locator("#pad [data-revision]").count() > 0


def wait_for_reading_and_details(page, digit: str) -> None:
    """The reading panel shows ``digit``, Figure 4 has its 16 rows, the routing view names it the winner."""
    page.wait_for_function(
        "(digit) => document.querySelector('#reading-panel .panel .reading .digit')?.textContent.trim() === digit"
        " && document.querySelectorAll('#figure4 th[scope=row]').length === 16"
        " && document.querySelector('#routing')?.textContent.includes(`winner ${digit}:`)",
        arg=digit,
    )


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_an_example_tapped_before_the_pad_is_ready_is_read_with_its_details(url, browser, phone):
    page = fresh_page(browser, phone)
    modules = HeldModules(page)
    page.goto(url)
    example = page.locator("#pad button.example").nth(3)
    example.wait_for(state="visible")
    assert not pad_ready(page) and modules.held, "the pad's module came before the tap"
    digit = example.get_attribute("title").split()[-1]
    example.tap() if phone else example.click()
    page.wait_for_timeout(500)  # nothing reads it yet: the pad's module is held back
    assert page.locator("#reading-panel .panel .reading .digit:not(.empty)").count() == 0
    modules.release()
    wait_for_reading_and_details(page, digit)
    page.context.close()


def test_an_example_tapped_before_the_pad_is_read_when_the_panel_mounts_after_it(url, browser):
    """The pad's module mounts first and replays the kept tap; the reading panel, mounting later,
    reads what the pad published before it listened."""
    page = fresh_page(browser)
    modules = HeldModules(page)
    page.goto(url)
    example = page.locator("#pad button.example").nth(2)
    example.wait_for(state="visible")
    digit = example.get_attribute("title").split()[-1]
    example.click()
    for name in ("drawing_pad.js", "reading_store.js"):  # the pad's module and what it imports
        modules.release(only=name)
    page.wait_for_selector("#pad [data-revision]", state="attached")
    page.wait_for_timeout(300)  # the pad has replayed the tap, its panel still held back
    assert page.locator("#reading-panel .panel .reading .digit:not(.empty)").count() == 0
    modules.release()
    wait_for_reading_and_details(page, digit)
    page.context.close()


def test_the_server_answers_a_tap_with_the_reading_and_its_details_at_once(url, browser):
    """A page that cannot read (no WebAssembly): the page asks the server (POST ask/KIND) one
    question, whose answer brings the reading, the routing view's numbers and Figure 4's sweep
    (answers.py `read`), which the page's renderers draw; nothing goes through Gradio's events."""
    page = fresh_page(browser)
    page.add_init_script("delete globalThis.WebAssembly")
    sent = []
    page.on("request", lambda request: sent.append(request.url.split("/")[-1]) if request.method == "POST" else None)
    page.goto(url)
    example = page.locator("#pad button.example").nth(5)
    digit = example.get_attribute("title").split()[-1]
    page.wait_for_selector("#pad [data-revision]", state="attached")
    example.click()
    wait_for_reading_and_details(page, digit)
    assert sent == ["read"], sent
    page.context.close()


def test_a_digit_drawn_before_the_pad_is_ready_is_read(url, browser):
    page = fresh_page(browser)
    modules = HeldModules(page)
    page.goto(url)
    canvas = page.locator("#pad canvas")
    canvas.wait_for(state="visible")
    assert not pad_ready(page)
    box = canvas.bounding_box()
    for stroke in strokes(7, 70, 40, 130, 200):
        points = np.array(stroke).reshape(-1, 2)[::3] * box["width"] / SIDE + [box["x"], box["y"]]
        pointer(page, None, "down", *points[0])
        for x, y in points[1:]:
            pointer(page, None, "move", x, y)
            time.sleep(MOVE_SECONDS)
        pointer(page, None, "up", *points[-1])
    assert not pad_ready(page)
    modules.release()
    wait_for_reading_and_details(page, "7")
    page.context.close()


def test_the_head_asks_for_every_module_of_the_page_s_thread_at_once(url, browser):
    """Each module the page's thread imports is asked for by a modulepreload link in the head,
    before the pad's module has mounted: they come in one round trip, not one import after another,
    the pad's and what it imports first."""
    page = fresh_page(browser)
    page.goto(url)
    page.wait_for_selector("#pad [data-revision]", state="attached")
    preloaded = page.evaluate(
        "[...document.querySelectorAll('head link[rel=modulepreload]')].map((link) => link.getAttribute('href'))"
        ".filter((href) => href.startsWith('page/'))"
    )
    assert preloaded == [f"{page_modules.URL}/{name}" for name in page_modules.page_thread_modules()]
    names = [href.rsplit("/", 1)[1] for href in preloaded]
    assert {"drawing_pad.js", "reading_panel.js", "page_networks.js", "reading_view.js", "views.js"} <= set(names)
    # what a first tap waits for, first: the pad's, then the reading panel's
    assert names[:3] == ["drawing_pad.js", "reading_store.js", "reading_panel.js"]
    page.context.close()
