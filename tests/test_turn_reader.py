"""Turn it in the page (playground/page/turn_panel.js, capsnet/shipping/onnx_file.py's turn and CNN
graphs), in a real browser (Debian's Chromium driven by Playwright). The turn panel and the sweep
each have one renderer (turn_view.js, sweep_view.js), whoever answered: the page's numbers are held
to the networks' (the app's, reading with the page's weights: tests/support/page_weights.py) on the
page's own 28x28 of the drawing, by drawing both. For MNIST examples turned, scaled, sheared,
stretched and moved to every slider's ends, the page's turn panel shows what the networks' numbers
show (both networks' readings, every length and probability within 0.01, every dimension's move
within 0.01, every picture within 2 grey levels of 255); a drag sends nothing; the CNN's graph is
fetched only once the section is near the screen; the section's refresh for a new reading is done
in the page with no request, its rotation sweep the networks' (the same caption, marks, lines and
sentence, every value within 0.01) for examples and drawn digits misread when turned; where the
page cannot turn (its graphs not to be had, or no WebAssembly at all), the server answers the same
questions (playground/answers.py), its numbers drawn by the same renderers, and the page says
nothing alarming."""

import numpy as np
import pytest
import torch

from capsnet.data.affine import AffineChange, transform
from harness.chromium_browser import CHROMIUM
from harness.digit_strokes import strokes
from harness.pad_drivers import PadDriver
from harness.page_pictures import grey_picture
from harness.slider_drivers import TurnDriver
from playground.transform_sliders import SLIDERS, UNCHANGED
from playground.turn_it import SWEEP_ANGLES
from tests.support.playground_pages import (
    grey_levels_apart,
    networks_state,
    no_alarm,
    page_module,
    playground_page,
    wait_for_networks,
)

pytestmark = [pytest.mark.browser, pytest.mark.server]
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="pip install playwright")

GREY_LEVELS = 2  # a picture of the page's against the networks', in levels of 255
NUMBER = 0.01  # a length, a probability or a dimension's move, the page's against the networks'
EXAMPLES_TURNED = (1, 3, 7)  # the pad's examples turned: MNIST test digits 1, 3 and 7
DRAWN = ((4, 70, 40, 130, 200), (7, 60, 30, 150, 220), (2, 50, 50, 170, 170))  # digits drawn, in their boxes
CHART = {"zero": 134, "one": 14}  # sweep_view.js's charts: the y of a value 0 and of a value 1

# In the page: the turn panel turn_view.js draws of the networks' `turn` (turn_panel.js's shape, its
# pictures as lists), as HTML.
NETWORKS_PANEL = f"""
async ([turn, facts]) => {{
  const {{ turnHtml }} = await {page_module("turn_view.js")};
  const pictures = {{ image: Float32Array.from(turn.image), reconstruction: Float32Array.from(turn.reconstruction) }};
  return turnHtml({{ ...turn, ...pictures }}, facts);
}}
"""

# In the page: the reading the reading panel shows: [its revision, the network's input, lengths, capsules].
SHOWN_READING = f"""
async () => {{
  const shown = (await {page_module("reading_store.js")}).shown.current();
  return [shown.revision, Array.from(shown.image), Array.from(shown.lengths), Array.from(shown.capsules)];
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

# In the page: the rotation sweep described, the page's (`networks` null), or the one sweep_view.js
# draws of `networks`: [the networks' sweep (turn_panel.js's shape), MNIST's curve, why there is
# none], laid out in a detached element.
DESCRIBE_SWEEP = f"""
async (networks) => {{
  if (networks === null) return ({DESCRIBED})(document.querySelector('#turn-sweep .sweep'));
  const [value, mnist, missing] = networks;
  const {{ sweepHtml }} = await {page_module("sweep_view.js")};
  const holder = document.createElement('div');
  holder.innerHTML = sweepHtml(value, mnist, missing);
  return ({DESCRIBED})(holder.firstElementChild);
}}
"""


@pytest.fixture
def page(browser):
    """A playground page (tests/support/playground_pages.py)."""
    page = playground_page(browser)
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


def shown_reading(page) -> dict:
    """The reading the reading panel shows, the page's (SHOWN_READING)."""
    revision, image, lengths, capsules = page.evaluate(SHOWN_READING)
    return {"revision": revision, "image": np.float32(image), "lengths": np.float32(lengths), "capsules": capsules}


def networks_turn(app, shown: dict, value: dict) -> dict:
    """The turn panel's numbers (turn_panel.js's shape) of the page's reading ``shown`` turned as
    the sliders' ``value`` says, by the app's networks."""
    change = AffineChange(**{key: value[key] for key in UNCHANGED})
    turned = transform(torch.from_numpy(shown["image"]).view(28, 28), change)  # [28, 28]
    with torch.inference_mode():
        out, cnn = app.NETWORKS.capsnet(turned[None, None]), app.NETWORKS.cnn(turned[None, None])
    drawn = int(np.argmax(shown["lengths"]))
    capsules = np.float32(shown["capsules"]).reshape(10, -1)
    return {
        "revision": value["revision"],
        "image": turned.flatten().tolist(),
        "reconstruction": out.reconstruction[0, 0].flatten().tolist(),
        "lengths": out.lengths[0].tolist(),
        "winner": int(out.prediction[0]),
        "probabilities": cnn.probabilities[0].tolist(),
        "cnnWinner": int(cnn.prediction[0]),
        "moved": (out.capsules[0, drawn].numpy() - capsules[drawn]).tolist(),
        "drawn": drawn,
        "drawnLength": float(shown["lengths"][drawn]),
    }


def networks_panel(app, page, turn: dict) -> dict:
    """What the turn panel turn_view.js draws of the networks' ``turn`` shows (READ_PANEL), with each
    digit's dimensions' labels and the pose's limit as the turn panel gets them."""
    props = props_of(app, "turn-panel")
    facts = {"labels": props["labels"], "poseLimit": props["pose_limit"]}
    return page.evaluate(READ_PANEL, page.evaluate(NETWORKS_PANEL, [turn, facts]))


def networks_sweep_of(app, shown: dict) -> dict:
    """The rotation sweep (turn_panel.js's shape) of the page's reading ``shown``, by the app's networks."""
    image = torch.from_numpy(shown["image"]).view(1, 1, 28, 28)
    matrices = torch.stack([AffineChange(rotation=float(angle)).matrix() for angle in SWEEP_ANGLES])  # [A, 2, 3]
    images = transform(image.expand(len(SWEEP_ANGLES), -1, -1, -1), matrices)  # [A, 1, 28, 28]
    with torch.inference_mode():
        out, cnn = app.NETWORKS.capsnet(images), app.NETWORKS.cnn(images)
    digit = int(np.argmax(shown["lengths"]))
    return {
        "reading": str(shown["revision"]),
        "digit": digit,
        "angles": SWEEP_ANGLES.tolist(),
        "lengths": out.lengths[:, digit].tolist(),
        "readings": out.prediction.tolist(),
        "probabilities": cnn.probabilities[:, digit].tolist(),
        "cnnReadings": cnn.prediction.tolist(),
    }


def networks_sweep(app, page, value: dict | None) -> list:
    """The sweep sweep_view.js draws of the networks' ``value`` beside MNIST's curve as the sweep
    gets it, described (DESCRIBE_SWEEP)."""
    props = props_of(app, "turn-sweep")
    return page.evaluate(DESCRIBE_SWEEP, [value, props["curve"], props["no_curve"]])


def pages_sweep(page) -> list:
    """The sweep the page shows, described (DESCRIBE_SWEEP)."""
    return page.evaluate(DESCRIBE_SWEEP, None)


def test_the_page_turns_as_the_networks_do(app, url, page, page_weights):
    worst = {"number": 0.0, "grey levels": 0}
    for example in EXAMPLES_TURNED:
        tapped(page, url, example)
        wait_for_networks(page, "turner")
        shown = shown_reading(page)
        sent = len(page.sent)
        for value in settings():
            revision = page.evaluate(SET_SLIDERS, value)
            page.wait_for_function("(r) => document.querySelector('#turn-panel .turn')?.dataset.revision == r",
                                   arg=revision)  # fmt: skip
            in_page = page.evaluate(READ_PANEL, None)
            server = networks_panel(app, page, networks_turn(app, shown, {**value, "revision": revision}))
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
    print(f"{len(EXAMPLES_TURNED) * len(settings())} turns, the page against the networks at worst: {worst}")
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


# In the page: the transform sliders' value as they show it, with the turn panel's revision.
SLIDERS_SHOWN = """
() => ({
  ...Object.fromEntries([...document.querySelectorAll('#turn-sliders input[type=range]')]
    .map((input) => [input.name, Number(input.value)])),
  revision: Number(document.querySelector('#turn-sliders [data-revision]')?.dataset.revision ?? 0),
})
"""


def networks_drawn(app, page, revision: str) -> None:
    """The turn panel and the sweep the page shows are the networks' numbers for the reading of
    ``revision`` (its refresh, then the sliders' last move), drawn by the page's renderers."""
    sliders = page.evaluate(SLIDERS_SHOWN)
    page.wait_for_function("(r) => document.querySelector('#turn-panel .turn')?.dataset.revision == r",
                           arg=sliders["revision"])  # fmt: skip
    shown = shown_reading(page)
    assert str(shown["revision"]) == revision
    in_page, networks = page.evaluate(READ_PANEL, None), networks_panel(app, page, networks_turn(app, shown, sliders))
    for key in ("revision", "capsnet", "cnn", "names"):
        assert in_page[key] == networks[key], key
    keys = ("capsnet_length", "probability", "lengths", "probabilities", "moves")
    assert max(float(np.abs(np.subtract(in_page[key], networks[key])).max()) for key in keys) <= 1e-3
    page.wait_for_selector(f'#turn-sweep .sweep[data-reading="{revision}"]:not([aria-busy])', state="attached")
    assert values_apart(pages_sweep(page), networks_sweep(app, page, networks_sweep_of(app, shown))) <= 1e-3


def test_without_its_graphs_the_server_answers_the_turns_and_the_sweep(app, url, page):
    page.route(f"**/{app.TURN_IT.cnn_graph.url}", lambda route: route.fulfill(status=404))
    person = tapped(page, url, 2)
    revision = settled(page, None)
    page.wait_for_selector(f'#turn-sweep .sweep[data-reading="{revision}"]:not([aria-busy])', state="attached")
    assert page.locator("#turn-panel .verdict.capsnet b").inner_text() == "2"
    page.wait_for_timeout(2000)
    assert networks_state(page, "turner") == "unavailable"
    assert sum(sent.endswith("/ask/turn") for sent in page.sent) >= len(SWEEP_ANGLES)  # the sweep's angles
    networks_drawn(app, page, revision)
    sent = len(page.sent)
    person.drag("rotation", [0.6, 0.7])
    assert len(page.sent) - sent >= 2
    networks_drawn(app, page, revision)
    no_alarm(page)
    told = [text for kind, text in page.messages if kind == "info" and "The server answers" in text]
    assert len(told) == 1, told


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
    networks_drawn(app, page, revision)
    person.drag("rotation", [0.65])
    networks_drawn(app, page, revision)
    assert (
        page.locator("#turn-panel .pose-bars .dimension-move").count() == app.NETWORKS.capsnet.config.digit_capsule_dim
    )
    no_alarm(page)


# The rotation sweep: the page's own sweeps against the networks'.


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


def compared_sweep(app, page, revision: str) -> tuple[float, int]:
    """The page's sweep once it is that of the settled ``revision``, read at every angle, against
    the server's of the same drawing: how far apart their values are, and how many misread marks
    it shows."""
    page.wait_for_selector(f'#turn-sweep .sweep[data-reading="{revision}"]:not([aria-busy])', state="attached")
    in_page = pages_sweep(page)
    shown = shown_reading(page)
    assert str(shown["revision"]) == revision
    server = networks_sweep(app, page, networks_sweep_of(app, shown))
    return values_apart(in_page, server), sum(node[0] == "rect" for node in in_page)


def compared_panel(app, page, revision: str, sliders: dict) -> float:
    """The turn panel the page's refresh drew for the reading of ``revision`` at the sliders'
    value against the server's: how far apart their numbers are; the rest the same."""
    in_page = page.evaluate(READ_PANEL, None)
    server = networks_panel(app, page, networks_turn(app, shown_reading(page), sliders))
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


def test_the_page_sweeps_as_the_networks_do_with_no_request(app, url, page, page_weights):
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
    print(
        f"{len(marks)} sweeps in the page, its values against the networks' at worst {worst:.5f}, misread marks "
        f"{marks}; the turn panels' numbers at worst {panel:.4f}"
    )
    assert worst <= NUMBER and panel <= NUMBER and sum(shown > 0 for shown in marks) >= 4, (worst, panel, marks)
    assert not any("/ask/" in sent for sent in page.sent)
    no_alarm(page)
