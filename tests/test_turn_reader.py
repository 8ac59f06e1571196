"""Turn it in the page (playground/page/turn_panel.js, capsnet/shipping/onnx_file.py's turn and CNN graphs), in a
real browser (Debian's Chromium driven by Playwright). The turn panel and the sweep each have one
renderer (turn_view.js, sweep_view.js), which draws the page's numbers and the server's
(turn_views.py): the page's are held to the server's by drawing both, the app's network reading
with the page's weights (tests/support/page_weights.py). For MNIST examples turned,
scaled, sheared, stretched and moved to every slider's ends, the page's turn panel shows what the
server's numbers show (both networks' readings, every length and probability within 0.01, every
dimension's move within 0.01, every picture within 2 grey levels of 255); a drag sends nothing;
the CNN's graph is fetched only once the section is near the screen; the section's refresh for a
new reading is done in the page with no request, its rotation sweep the server's (the same
caption, marks, lines and sentence, every value within 0.01) for examples and drawn digits misread
when turned; where the page cannot turn (its graphs not to be had, or no WebAssembly at all), the
sliders and the refresh ask the server, which reads the drawing the page read (the pad's value
comes with them), its numbers drawn by the same renderers, and the page says nothing alarming."""

import base64
import json

import numpy as np
import pytest

from capsnet.data.preprocess import ink_to_mnist
from harness.chromium_browser import CHROMIUM
from harness.digit_strokes import pad_value, strokes
from harness.pad_drivers import PadDriver
from harness.page_pictures import grey_picture
from harness.page_protocol import event_index
from harness.slider_drivers import TurnDriver
from playground import drawing_pad
from playground.reading import EXAMPLES, example_ink, read
from playground.transform_sliders import SLIDERS, UNCHANGED
from tests.support.playground_pages import (
    grey_levels_apart,
    keeping_pad_values,
    networks_state,
    no_alarm,
    offered_value,
    page_module,
    playground_page,
    wait_for_networks,
)

pytestmark = [pytest.mark.browser, pytest.mark.server]
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="pip install playwright")

GREY_LEVELS = 2  # a picture of the page's against the server's, in levels of 255
NUMBER = 0.01  # a length, a probability or a dimension's move, the page's against the server's
EXAMPLES_TURNED = (1, 3, 7)  # the pad's examples turned: MNIST test digits 1, 3 and 7
DRAWN = ((4, 70, 40, 130, 200), (7, 60, 30, 150, 220), (2, 50, 50, 170, 170))  # digits drawn, in their boxes
CHART = {"zero": 134, "one": 14}  # sweep_view.js's charts: the y of a value 0 and of a value 1

# In the page: the turn panel turn_view.js draws of the server's `value` (turn_views.py), as HTML.
SERVERS_PANEL = f"""
async ([value, facts]) => {{
  const {{ fromServer, turnHtml }} = await {page_module("turn_view.js")};
  return turnHtml(fromServer(value), facts);
}}
"""

# In the page: what a turn panel shows, as numbers (the page's own, or HTML laid out in a detached
# element). The bars' heights are their values (a full bar is 100 high).
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


# In the page: an element described, every element under it in document order, itself first, as
# [tag, attributes, its own text].
DESCRIBED = """
(root) => [root, ...root.querySelectorAll('*')].map((node) => [
  node.tagName.toLowerCase(),
  Object.fromEntries([...node.attributes].map((attribute) => [attribute.name, attribute.value])),
  [...node.childNodes].filter((child) => child.nodeType === 3).map((child) => child.textContent).join(''),
])
"""

# In the page: the rotation sweep described, the page's (`server` null), or the one sweep_view.js
# draws of `server`: [the server's value (turn_views.sweep_numbers), MNIST's curve, why there is
# none], laid out in a detached element.
DESCRIBE_SWEEP = f"""
async (server) => {{
  if (server === null) return ({DESCRIBED})(document.querySelector('#turn-sweep .sweep'));
  const [value, mnist, missing] = server;
  const {{ fromServer, sweepHtml }} = await {page_module("sweep_view.js")};
  const holder = document.createElement('div');
  holder.innerHTML = sweepHtml(fromServer(value), mnist, missing);
  return ({DESCRIBED})(holder.firstElementChild);
}}
"""


@pytest.fixture
def page(browser):
    """A playground page (tests/support/playground_pages.py) that also keeps the body of each event it
    sends to the server (``page.asked``, {data, fn_index, ...})."""
    page = keeping_pad_values(playground_page(browser))
    page.asked = []
    page.on(
        "request",
        lambda request: page.asked.append(json.loads(request.post_data)) if "/gradio_api/run/" in request.url else None,
    )
    yield page
    page.context.close()


def tapped(page, url: str, example: int) -> TurnDriver:
    """The page loaded, its reader ready, ``example`` tapped and read, Turn it on the screen."""
    page.goto(url)
    wait_for_networks(page)
    page.locator("#pad button.example").nth(example).click()
    page.wait_for_selector("#reading-panel .panel[data-settled]", state="attached")
    person = TurnDriver(page)
    person.shown()
    return person


def settings() -> list[dict]:
    """Every slider at either end alone, then several at once."""
    values = [{**UNCHANGED, slider.field: end} for slider in SLIDERS for end in (slider.low, slider.high)]
    return [*values, {**UNCHANGED, "rotation": 35, "scale": 1.2, "shear": -0.3, "shift_x": 2.5}]


def props_of(app, elem_id: str) -> dict:
    """The props the page's module of the component ``elem_id`` gets."""
    (component,) = [block for block in app.demo.blocks.values() if getattr(block, "elem_id", None) == elem_id]
    return component.props


def servers_panel(app, page, value: dict) -> dict:
    """What the turn panel turn_view.js draws of the server's ``value`` shows (READ_PANEL), with each
    digit's dimensions' labels and the pose's limit as the turn panel gets them."""
    props = props_of(app, "turn-panel")
    facts = {"labels": props["labels"], "poseLimit": props["pose_limit"]}
    return page.evaluate(READ_PANEL, page.evaluate(SERVERS_PANEL, [value, facts]))


def servers_sweep(app, page, value: dict | None) -> list:
    """The sweep sweep_view.js draws of the server's ``value`` beside MNIST's curve as the sweep
    gets it, described (DESCRIBE_SWEEP)."""
    props = props_of(app, "turn-sweep")
    return page.evaluate(DESCRIBE_SWEEP, [value, props["curve"], props["no_curve"]])


def pages_sweep(page) -> list:
    """The sweep the page shows, described (DESCRIBE_SWEEP)."""
    return page.evaluate(DESCRIBE_SWEEP, None)


def servers_reading(example: int):
    """The server's reading of the pad with ``example`` on it."""
    background = base64.b64encode(example_ink(EXAMPLES[example])[1].astype(np.uint8).tobytes()).decode()
    return ink_to_mnist(drawing_pad.ink(drawing_pad.parse(pad_value([], background=background))))


def test_the_page_turns_as_the_server_does(app, url, page, page_weights):
    worst = {"number": 0.0, "grey levels": 0}
    for example in EXAMPLES_TURNED:
        tapped(page, url, example)
        wait_for_networks(page, "turner")
        reading = read(app.READING.network, servers_reading(example))
        sent = len(page.sent)
        for value in settings():
            revision = page.evaluate(SET_SLIDERS, value)
            page.wait_for_function("(r) => document.querySelector('#turn-panel .turn')?.dataset.revision == r",
                                   arg=revision)  # fmt: skip
            in_page = page.evaluate(READ_PANEL, None)
            server = servers_panel(app, page, app.TURN_IT.panel(reading, {**value, "revision": revision}))
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
    wait_for_networks(page)
    page.wait_for_timeout(1000)
    cnn_url = app.TURN_IT.cnn_graph.url
    assert not any(graph.endswith(cnn_url) for graph in page.graphs)  # the section is far below
    page.locator("#pad button.example").nth(4).click()
    page.wait_for_selector("#reading-panel .panel[data-settled]", state="attached")
    person = TurnDriver(page)
    person.shown()
    wait_for_networks(page, "turner")
    assert sum(graph.endswith(cnn_url) for graph in page.graphs) == 1
    sent = len(page.sent)
    latencies = person.drag("rotation", [0.55, 0.6, 0.65, 0.7, 0.75, 0.8])
    assert len(latencies) >= 5 and page.sent[sent:] == []


def test_a_digit_shown_before_the_networks_came_is_turned_in_the_page_once_they_have(app, url, page):
    """An example tapped while the CapsNet's graph is still on its way is read by the server; once
    the page's networks are ready, a drag of Turn it turns that same digit in the page, with no
    request."""
    held, graph = [], f"**/{app.READING.page_network.url}"
    page.route(graph, lambda route: held.append(route))  # kept back until let go
    page.goto(url)
    page.wait_for_selector("#pad [data-revision]", state="attached")  # the pad's module has started
    page.locator("#pad button.example").nth(3).click()
    settled(page, None)  # read by the server
    assert networks_state(page) == "waiting"
    while not held:
        page.wait_for_timeout(100)
    held[0].continue_()
    page.unroute(graph)  # Turn it's second worker fetches it too
    wait_for_networks(page)
    person = TurnDriver(page)
    person.shown()
    wait_for_networks(page, "turner")
    sent = len(page.sent)
    latencies = person.drag("rotation", [0.55, 0.6, 0.65, 0.7])
    assert len(latencies) >= 3 and page.sent[sent:] == []


def servers_drawn(app, page, revision: str) -> None:
    """The turn panel and the sweep the page shows are the server's numbers for the reading of
    ``revision`` (its refresh, then its last move), drawn by the page's renderers."""
    reading = servers_reading_of(app, page, revision)
    events = {event_index(app, app.TURN_IT.show), event_index(app, app.TURN_IT.turn)}
    sliders = [body for body in page.asked if body["fn_index"] in events][-1]["data"][1]  # the last asked
    page.wait_for_function("(r) => document.querySelector('#turn-panel .turn')?.dataset.revision == r",
                           arg=sliders["revision"])  # fmt: skip
    assert page.evaluate(READ_PANEL, None) == servers_panel(app, page, app.TURN_IT.panel(reading, sliders))
    assert pages_sweep(page) == servers_sweep(app, page, app.TURN_IT.sweep_view(reading))


def test_without_its_graphs_the_sliders_and_the_refresh_ask_the_server(app, url, page):
    page.route(f"**/{app.TURN_IT.cnn_graph.url}", lambda route: route.fulfill(status=404))
    person = tapped(page, url, 2)
    revision = settled(page, None)
    page.wait_for_selector(f'#turn-sweep .sweep[data-reading="{revision}"]', state="attached")
    asked = [body for body in page.asked if body["fn_index"] == event_index(app, app.TURN_IT.show)]
    assert len(asked) == 1 and asked[0]["data"][-1]["revision"] == int(revision)  # the drawing the page read
    assert page.locator("#turn-panel .verdict.capsnet b").inner_text() == "2"  # the server read it too
    servers_drawn(app, page, revision)
    page.wait_for_timeout(2000)
    assert networks_state(page, "turner") == "unavailable"
    sent = len(page.sent)
    person.drag("rotation", [0.6, 0.7])
    assert len(page.sent) - sent >= 2
    servers_drawn(app, page, revision)
    no_alarm(page)
    assert sum("The server turns the digit" in text for kind, text in page.messages if kind == "info") == 1


def test_without_webassembly_the_server_s_numbers_are_drawn_by_the_same_renderers(app, url, page):
    page.add_init_script("delete WebAssembly")
    page.goto(url)
    page.wait_for_selector("#pad [data-revision]", state="attached")  # the pad's module has started
    page.locator("#pad button.example").nth(5).click()
    revision = settled(page, None)  # read by the server
    assert networks_state(page) == "unavailable"
    person = TurnDriver(page)
    person.shown()
    page.wait_for_selector(f'#turn-sweep .sweep[data-reading="{revision}"]', state="attached")
    servers_drawn(app, page, revision)
    person.drag("rotation", [0.65])
    servers_drawn(app, page, revision)
    assert (
        page.locator("#turn-panel .pose-bars .dimension-move").count() == app.NETWORKS.capsnet.config.digit_capsule_dim
    )
    no_alarm(page)


# The rotation sweep: the page's own sweeps against the server's.


def value_of(y: float) -> float:
    """A point's height in the sweep's chart as the value it shows, in [0, 1]."""
    return (CHART["zero"] - y) / (CHART["zero"] - CHART["one"])


def values_apart(in_page: list, server: list) -> float:
    """Two described sweeps (DESCRIBE_SWEEP) the same in every element, attribute and text but the
    curves' points' heights: how far apart those are at worst, as values."""
    assert [node[0] for node in in_page] == [node[0] for node in server]  # the same elements in turn
    worst = 0.0
    for (tag, attributes, text), (_, server_attributes, server_text) in zip(in_page, server, strict=True):
        assert (text, attributes.keys()) == (server_text, server_attributes.keys()), tag
        for name, value in attributes.items():
            if tag != "polyline" or name != "points":
                assert value == server_attributes[name], (tag, name)
                continue
            points, server_points = (
                np.array([p.split(",") for p in v.split()], float) for v in (value, server_attributes[name])
            )
            assert (
                points.shape == server_points.shape and (points[:, 0] == server_points[:, 0]).all()
            )  # the same angles
            worst = max(worst, float(np.abs(value_of(points[:, 1]) - value_of(server_points[:, 1])).max()))
    return worst


def settled(page, before: str | None) -> str:
    """The revision of the reading panel's settled reading once it is another than ``before``."""
    return page.wait_for_function(
        "(before) => { const panel = document.querySelector('#reading-panel .panel[data-settled]');"
        " return panel && panel.dataset.revision !== before && panel.dataset.revision; }",
        arg=before,
    ).json_value()


def servers_reading_of(app, page, revision: str):
    """The server's reading of the pad's value of ``revision`` as the page offered it."""
    value = offered_value(page, revision)
    return read(app.READING.network, ink_to_mnist(drawing_pad.ink(drawing_pad.parse(value))), int(revision))


def compared_sweep(app, page, revision: str) -> tuple[float, int]:
    """The page's sweep once it is that of the settled ``revision``, read at every angle, against
    the server's of the same drawing: how far apart their values are, and how many misread marks
    it shows."""
    page.wait_for_selector(f'#turn-sweep .sweep[data-reading="{revision}"]:not([aria-busy])', state="attached")
    in_page = pages_sweep(page)
    server = servers_sweep(app, page, app.TURN_IT.sweep_view(servers_reading_of(app, page, revision)))
    return values_apart(in_page, server), sum(node[0] == "rect" for node in in_page)


def compared_panel(app, page, revision: str, sliders: dict) -> float:
    """The turn panel the page's refresh drew for the reading of ``revision`` at the sliders'
    value against the server's: how far apart their numbers are; the rest the same."""
    in_page = page.evaluate(READ_PANEL, None)
    server = servers_panel(app, page, app.TURN_IT.panel(servers_reading_of(app, page, revision), sliders))
    for key in ("revision", "capsnet", "cnn", "names"):
        assert in_page[key] == server[key], key
    keys = ("capsnet_length", "probability", "lengths", "probabilities", "moves")
    return max(float(np.abs(np.subtract(in_page[key], server[key])).max()) for key in keys)


# In the page: tap example `first`, and as soon as the sweep of its reading is under way, example
# `then`: the revision of the first's reading (null if its sweep did not start within a minute).
# window.sweepsDone: the revisions of the sweeps shown read at every angle, from then on.
TAP_WHILE_SWEEPING = """
([first, then]) => new Promise((done) => {
  const sweep = document.querySelector('#turn-sweep');
  const before = sweep.querySelector('.sweep').dataset.reading;
  window.sweepsDone = [];
  new MutationObserver(() => {
    const shown = sweep.querySelector('.sweep:not([aria-busy])')?.dataset.reading;
    if (shown !== undefined && shown !== window.sweepsDone.at(-1)) window.sweepsDone.push(shown);
  }).observe(sweep, {subtree: true, childList: true, attributes: true});
  const tap = (k) => document.querySelectorAll('#pad button.example')[k].click();
  const observer = new MutationObserver(() => {
    const busy = sweep.querySelector('.sweep[aria-busy]');
    if (!busy || busy.dataset.reading === before) return;
    observer.disconnect();
    tap(then);
    done(busy.dataset.reading);
  });
  observer.observe(sweep, {subtree: true, childList: true, attributes: true});
  tap(first);
  setTimeout(() => done(null), 60000);
})
"""


def tapped_here(page, example: int, before: str | None) -> str:
    """Tap the pad's ``example`` where it is, the page not scrolled, and once its reading is settled
    scroll back to Turn it should the details drawn above have pushed it off the screen: the
    revision of its reading."""
    page.evaluate("(k) => document.querySelectorAll('#pad button.example')[k].click()", example)
    revision = settled(page, before)
    page.locator("#turn-sweep").scroll_into_view_if_needed()
    return revision


def test_the_page_sweeps_as_the_server_does_with_no_request(app, url, page, page_weights):
    page.goto(url)
    wait_for_networks(page)
    page.locator("#turn-panel").scroll_into_view_if_needed()
    wait_for_networks(page, "turner")
    worst, marks, revision = 0.0, [], None
    for example in EXAMPLES_TURNED[:-1]:  # tapped with Turn it on the screen
        revision = tapped_here(page, example, revision)
        apart, shown = compared_sweep(app, page, revision)
        worst, marks = max(worst, apart), [*marks, shown]
    dropped = page.evaluate(TAP_WHILE_SWEEPING, [0, EXAMPLES_TURNED[-1]])  # the last tapped during another's sweep
    revision = settled(page, dropped)
    page.locator("#turn-sweep").scroll_into_view_if_needed()
    apart, shown = compared_sweep(app, page, revision)
    assert dropped is not None and dropped not in page.evaluate("() => window.sweepsDone")
    worst, marks = max(worst, apart), [*marks, shown]
    sliders = {**UNCHANGED, "rotation": -25, "scale": 0.9}
    sliders["revision"] = page.evaluate(SET_SLIDERS, sliders)  # the panel then turns each new drawing so
    pad, panel = PadDriver(page), 0.0
    for digit, *box in DRAWN:  # drawn with the section off the screen, then scrolled to
        pad.clear()
        pad.draw(strokes(digit, *box))
        revision = pad.revisions()[0]
        page.wait_for_selector(f'#reading-panel .panel[data-settled][data-revision="{revision}"]', state="attached")
        TurnDriver(page).shown()
        apart, shown = compared_sweep(app, page, revision)
        worst, marks = max(worst, apart), [*marks, shown]
        panel = max(panel, compared_panel(app, page, revision, sliders))
    refresh = event_index(app, app.TURN_IT.show)
    print(
        f"{len(marks)} sweeps in the page, its values against the server's at worst {worst:.5f}, misread marks "
        f"{marks}; the turn panels' numbers at worst {panel:.4f}"
    )
    assert worst <= NUMBER and panel <= NUMBER and sum(shown > 0 for shown in marks) >= 4, (worst, panel, marks)
    assert [body for body in page.asked if body["fn_index"] == refresh] == []
    no_alarm(page)
