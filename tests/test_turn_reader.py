"""Turn it in the page (playground/turn_reader.js, capsnet/onnx_file.py's turn and CNN graphs), in a
real browser (Debian's Chromium driven by Playwright): for MNIST examples turned, scaled, sheared,
stretched and moved to every slider's ends, the page's turn panel shows what the server's shows
(both networks' readings, every length and probability within 0.01, every dimension's move within
0.01, every picture within 2 grey levels of 255); a drag sends nothing; the CNN's graph is fetched
only once the section is near the screen; where the page cannot turn (its graphs not to be had),
the sliders ask the server as before and the page says nothing alarming."""

import base64

import numpy as np
import pytest

from bench.support.browser_drawing import CHROMIUM, TurnDriver, grey_picture
from bench.support.digit_strokes import pad_value
from capsnet.data.preprocess import ink_to_mnist
from playground import drawing_pad
from playground.reading import EXAMPLES, example_ink, read
from playground.transform_sliders import SLIDERS, UNCHANGED
from tests.support.playground_pages import grey_levels_apart, no_alarm, playground_page

pytestmark = [pytest.mark.browser, pytest.mark.server]
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="pip install playwright")

GREY_LEVELS = 2  # a picture of the page's against the server's, in levels of 255
NUMBER = 0.01  # a length, a probability or a dimension's move, the page's against the server's
EXAMPLES_TURNED = (1, 3, 7)  # the pad's examples turned: MNIST test digits 1, 3 and 7

# In the page: what a turn panel shows, as numbers (the page's own, or the server's HTML laid out
# in a detached element). The bars' heights are their values (a full bar is 100 high).
READ_PANEL = """
(html) => {
  let panel = document.querySelector('#turn-panel .turn');
  if (html !== null) {
    const holder = document.createElement('div');
    holder.innerHTML = html;
    panel = holder.firstElementChild;
  }
  const number = (selector) => Number(panel.querySelector(selector).textContent.match(/[\\d.]+$/)[0]);
  const bars = (selector) => [...panel.querySelectorAll(`${selector} svg.lengths rect`)]
    .map((bar) => Number(bar.getAttribute('height')) / 100);
  return {
    revision: panel.dataset.revision,
    capsnet: panel.querySelector('.verdict.capsnet b').textContent,
    cnn: panel.querySelector('.verdict.cnn b').textContent,
    capsnet_length: number('.verdict.capsnet small'),
    probability: number('.verdict.cnn small'),
    lengths: bars('.capsnet-reading'),
    probabilities: bars('.cnn-reading'),
    moves: [...panel.querySelectorAll('.dimension-move .value')].map((value) => Number(value.textContent)),
    names: [...panel.querySelectorAll('.dimension-move .name')].map((name) => name.textContent),
    caption: panel.querySelector('.pose figcaption').textContent,
    turned: panel.querySelector('.turned img.picture').getAttribute('src'),
    redrawn: panel.querySelector('.redrawn img.picture').getAttribute('src'),
  };
}
"""

# In the page: the sliders set to `value`'s fields, one input event, as a person's last move makes.
SET_SLIDERS = """
(value) => {
  const inputs = [...document.querySelectorAll('#turn-sliders input[type=range]')];
  for (const input of inputs) input.value = value[input.name];
  inputs[0].dispatchEvent(new Event('input', {bubbles: true}));
  return Number(document.querySelector('#turn-sliders [data-revision]').dataset.revision);
}
"""


@pytest.fixture
def page(browser):
    page = playground_page(browser)
    yield page
    page.context.close()


def tapped(page, url: str, example: int) -> TurnDriver:
    """The page loaded, its reader ready, ``example`` tapped and read, Turn it on the screen."""
    page.goto(url)
    page.wait_for_selector("[data-page-reader=ready]", state="attached")
    page.locator("#pad button.example").nth(example).click()
    page.wait_for_selector("#reading-panel .panel[data-settled]", state="attached")
    person = TurnDriver(page)
    person.shown()
    return person


def settings() -> list[dict]:
    """Every slider at either end alone, then several at once."""
    values = [{**UNCHANGED, slider.field: end} for slider in SLIDERS for end in (slider.low, slider.high)]
    return [*values, {**UNCHANGED, "rotation": 35, "scale": 1.2, "shear": -0.3, "shift_x": 2.5}]


def servers_reading(example: int):
    """The server's reading of the pad with ``example`` on it."""
    background = base64.b64encode(example_ink(EXAMPLES[example])[1].astype(np.uint8).tobytes()).decode()
    return ink_to_mnist(drawing_pad.ink(drawing_pad.parse(pad_value([], background=background))))


def test_the_page_turns_as_the_server_does(app, url, page):
    worst = {"number": 0.0, "grey levels": 0}
    for example in EXAMPLES_TURNED:
        tapped(page, url, example)
        page.wait_for_selector("#turn-panel [data-turn-reader=ready]", state="attached")
        reading = read(app.READING.network, servers_reading(example))
        sent = len(page.sent)
        for value in settings():
            revision = page.evaluate(SET_SLIDERS, value)
            page.wait_for_function("(r) => document.querySelector('#turn-panel .turn')?.dataset.revision == r",
                                   arg=revision)  # fmt: skip
            in_page = page.evaluate(READ_PANEL, None)
            server = page.evaluate(READ_PANEL, app.TURN_IT.panel(reading, {**value, "revision": revision}))
            for key in ("revision", "capsnet", "cnn", "names", "caption"):
                if key == "caption":  # its numbers are compared below, as the moves
                    in_page[key], server[key] = in_page[key][:40], server[key][:40]
                assert in_page[key] == server[key], (example, value, key)
            for key in ("capsnet_length", "probability", "lengths", "probabilities", "moves"):
                worst["number"] = max(worst["number"], float(np.abs(np.subtract(in_page[key], server[key])).max()))
            for key in ("turned", "redrawn"):
                worst["grey levels"] = max(
                    worst["grey levels"], grey_levels_apart(grey_picture(in_page[key]), grey_picture(server[key]))
                )
        assert page.sent[sent:] == []  # every move turned in the page
    print(f"{len(EXAMPLES_TURNED) * len(settings())} turns, the page against the server at worst: {worst}")
    assert worst["number"] <= NUMBER and worst["grey levels"] <= GREY_LEVELS, worst


def test_a_drag_is_turned_in_the_page_with_no_request_and_the_cnn_loads_near_the_section(app, url, page):
    page.goto(url)
    page.wait_for_selector("[data-page-reader=ready]", state="attached")
    page.wait_for_timeout(1000)
    cnn_url = app.TURN_IT.cnn_graph.url
    assert not any(graph.endswith(cnn_url) for graph in page.graphs)  # the section is far below
    page.locator("#pad button.example").nth(4).click()
    page.wait_for_selector("#reading-panel .panel[data-settled]", state="attached")
    person = TurnDriver(page)
    person.shown()
    page.wait_for_selector("#turn-panel [data-turn-reader=ready]", state="attached")
    assert sum(graph.endswith(cnn_url) for graph in page.graphs) == 1
    sent = len(page.sent)
    latencies = person.drag("rotation", [0.55, 0.6, 0.65, 0.7, 0.75, 0.8])
    assert len(latencies) >= 5 and page.sent[sent:] == []


def test_without_its_graphs_the_sliders_ask_the_server(app, url, page):
    page.route(f"**/{app.TURN_IT.cnn_graph.url}", lambda route: route.fulfill(status=404))
    person = tapped(page, url, 2)
    page.wait_for_timeout(2000)
    assert page.locator("#turn-panel [data-turn-reader=ready]").count() == 0
    sent = len(page.sent)
    person.drag("rotation", [0.6, 0.7])
    assert len(page.sent) - sent >= 2
    no_alarm(page)
    assert sum("The server turns the digit" in text for kind, text in page.messages if kind == "info") == 1
