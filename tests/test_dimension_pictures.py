"""The pictures beside the dimension sliders of where each dimension changes the digit
(playground/dimension_changes.py's colours; in the page dimension_changes.js in the network worker,
change_colours.js and dimension_sliders.js), in a real browser (Debian's Chromium driven by
Playwright): a tapped example's 16 pictures are drawn in the page with no request, with the rows of
the digit read, and each is within LEVELS of 255 (every channel) of the network's change of the
page's capsule, coloured, over both ranges and Decode as another digit; without the page's decoder
the server answers the question and the pictures are the same; while the pen is down they stay,
and follow the reading made once it lifts; on a 390-pixel phone page each picture stands beside
its slider and the page never scrolls sideways."""

import base64

import numpy as np
import pytest

from harness.chromium_browser import CHROMIUM, PHONE, round_trip
from harness.page_pictures import rgb_picture
from harness.slider_drivers import SLIDERS_DRAWN, SliderDriver
from playground.dimension_changes import PALETTE
from tests.support.playground_pages import (
    grey_levels_apart,
    keeping_pad_values,
    page_module,
    playground_page,
    wait_for_networks,
)

pytestmark = pytest.mark.browser
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")

# The page's pictures against the network's change of the page's capsule, coloured, in levels of 255
# per channel: the page's decoder is its graph's, in float16
LEVELS = 12
SLOW_ROUND_TRIP_MS = 1500  # every server answer this late: what the page draws first is its own
EXAMPLES_TAPPED = (0, 3, 7)  # of the pad's ten MNIST examples


# In the page: the sliders as shown: of which pad revision, the reading panel's revision, and each
# row's dimension, label and picture, in the order shown.
SHOWN = """
() => {
  const list = document.querySelector('#sliders .dimensions');
  return {
    revision: list.dataset.revision,
    panel: document.querySelector('#reading-panel .panel').dataset.revision,
    rows: [...list.querySelectorAll('.dimension')].map((row) => ({
      dimension: Number(row.querySelector('input').dataset.dimension),
      label: row.querySelector('label').textContent,
      picture: row.querySelector('img.change').getAttribute('src'),
    })),
  };
}
"""


@pytest.fixture
def page(browser):
    page = keeping_pad_values(playground_page(browser))
    yield page
    page.context.close()


def shown(page) -> dict:
    """The sliders as the page shows them once it has drawn what was asked of it (SHOWN)."""
    page.evaluate(f"() => {SLIDERS_DRAWN}")
    return page.evaluate(SHOWN)


# In the page: the capsules of the reading the reading panel shows, and its winner.
SHOWN_READING = "async () => { const r = (await STORE).shown.current(); return [Array.from(r.capsules), r.winner]; }"


def coloured(change: np.ndarray) -> np.ndarray:
    """A change of ink [784] in the colours of dimension_changes.py: uint8 RGB [28, 28, 3]."""
    unchanged, added, removed = (np.array(PALETTE[key], dtype=np.float32) for key in ("unchanged", "added", "removed"))
    strength = np.minimum(np.abs(change) / np.float32(PALETTE["full_change"]), 1)[:, None]
    towards = np.where(change[:, None] > 0, added - unchanged, removed - unchanged)
    return np.rint(unchanged + strength * towards).astype(np.uint8).reshape(28, 28, 3)


def networks_sliders(app, page, decode_as: str, scale: str) -> dict:
    """The rows of *Decode as* ``decode_as`` over ``scale``, and the pictures of the network's change
    of the capsule the page's reading panel shows (answers.py `changes`), in dimension order."""
    capsules, winner = page.evaluate(SHOWN_READING.replace("STORE", page_module("reading_store.js")))
    digit = winner if decode_as == "winner" else int(decode_as)
    rows = app.CAPSULE_DIMENSIONS.rows(digit, scale)
    limits = [row["limit"] for row in sorted(rows, key=lambda row: row["dimension"])]
    changes = app.ANSWERS.changes({"capsules": capsules, "digit": digit, "limits": limits})
    floats = [np.frombuffer(base64.b64decode(change["float32"]), "<f4") for change in changes]
    return {"rows": rows, "pictures": [coloured(change) for change in floats]}


def assert_same_pictures(sliders: dict, network: dict, what: str) -> int:
    """The page's rows are the network's, and each picture within LEVELS of its; returns the
    largest difference."""
    assert [(row["dimension"], row["label"]) for row in sliders["rows"]] == [
        (row["dimension"], row["label"]) for row in network["rows"]
    ], what
    worst = 0
    for row in sliders["rows"]:
        here, there = rgb_picture(row["picture"]), network["pictures"][row["dimension"]]
        assert here.shape == there.shape == (28, 28, 3)
        worst = max(worst, grey_levels_apart(here, there))
    assert worst <= LEVELS, f"{what}: a picture {worst} levels from the network's"
    return worst


def test_the_page_draws_the_pictures_the_network_draws(app, url, page):
    """For three examples, over both ranges, as the winner and as another digit: the page's own 16
    pictures (its worker's), with the section's rows, each within LEVELS of the network's."""
    page.goto(url)
    person = SliderDriver(page)
    ranges = ["paper"] + (["spread"] if app.NETWORKS.names is not None else [])
    worst, compared = 0, 0
    for example in EXAMPLES_TAPPED:
        winner = int(person.tap_example(example))
        wait_for_networks(page, "decoder")
        page.evaluate(f"() => {SLIDERS_DRAWN}")
        for scale in ranges:
            if scale != "paper":
                person.choose(f"#slider-range input[value={scale}]")
            for decode_as in ["winner", str((winner + 1 + example) % 10)]:
                if decode_as != "winner":
                    person.choose(f'input[type=radio][value="{decode_as}"]:not(#pair-decode-as input)')
                sliders = shown(page)
                network = networks_sliders(app, page, decode_as, scale)
                worst = max(worst, assert_same_pictures(sliders, network, f"example {example}, {scale}, {decode_as}"))
                compared += len(sliders["rows"])
            person.choose('input[type=radio][value="winner"]:not(#pair-decode-as input)')
            if scale != "paper":
                person.choose("#slider-range input[value=paper]")
    assert compared == len(EXAMPLES_TAPPED) * len(ranges) * 2 * 16
    print(f"{compared} pictures drawn in the page, at most {worst} level(s) from the network's")


def test_a_new_reading_redraws_the_pictures_with_no_request(app, url, page):
    """At a slow server, a tapped example's rows and pictures are the page's, of the new reading,
    with no request; they are the network's rows and pictures within LEVELS."""
    page.goto(url)
    person = SliderDriver(page)
    person.tap_example(1)
    wait_for_networks(page, "decoder")
    round_trip(page, SLOW_ROUND_TRIP_MS)
    before, requests = shown(page), person.requests
    page.locator("#pad button.example").nth(6).click()
    page.wait_for_function(
        "(before) => { const shown = document.querySelector('#reading-panel .panel').dataset.revision;"
        " return shown !== before && document.querySelector('#sliders .dimensions').dataset.revision === shown; }",
        arg=before["panel"],
    )
    drawn_at_once = shown(page)
    assert drawn_at_once["revision"] != before["revision"]
    assert [row["picture"] for row in drawn_at_once["rows"]] != [row["picture"] for row in before["rows"]]
    assert_same_pictures(drawn_at_once, networks_sliders(app, page, "winner", "paper"), "the page's own reading")
    page.wait_for_timeout(2 * SLOW_ROUND_TRIP_MS)  # time for a request, were one sent
    assert person.requests == requests and shown(page) == drawn_at_once


# In the page: the reading panel's and the sliders' pad revisions.
REVISIONS = """
() => [document.querySelector('#reading-panel .panel').dataset.revision,
       document.querySelector('#sliders .dimensions').dataset.revision]
"""


def test_while_the_pen_is_down_the_sliders_stay_and_they_follow_once_it_lifts(url, page):
    """Readings made while the pen draws change the reading panel but not the sliders (their rows
    and 16 pictures would take the page's thread from the pen); the reading made as the pen lifts
    redraws them."""
    page.goto(url)
    person = SliderDriver(page)
    person.tap_example(1)
    page.wait_for_function(f"() => ({REVISIONS})().every((revision, _, both) => revision === both[0])")
    panel, sliders = page.evaluate(REVISIONS)
    assert panel == sliders
    pictures = [row["picture"] for row in shown(page)["rows"]]
    box = page.locator("#pad canvas").bounding_box()
    page.mouse.move(box["x"] + 0.2 * box["width"], box["y"] + 0.2 * box["height"])
    page.mouse.down()
    for k in range(1, 41):  # across the pad, over the example's 1
        page.mouse.move(box["x"] + (0.2 + 0.015 * k) * box["width"], box["y"] + (0.2 + 0.015 * k) * box["height"])
        page.wait_for_timeout(20)
    page.wait_for_function("(before) => document.querySelector('#reading-panel .panel').dataset.revision !== before",
                           arg=panel)  # fmt: skip
    page.wait_for_timeout(500)
    assert page.evaluate(REVISIONS)[1] == sliders, "the sliders followed a reading made while the pen was down"
    assert [row["picture"] for row in page.evaluate(SHOWN)["rows"]] == pictures
    page.mouse.up()
    page.wait_for_function(
        "() => { const list = document.querySelector('#sliders .dimensions');"
        " return list.dataset.revision === document.querySelector('#reading-panel .panel').dataset.revision; }"
    )
    after = shown(page)
    assert after["revision"] != sliders and [row["picture"] for row in after["rows"]] != pictures


def test_without_the_page_decoder_the_server_answers_for_the_pictures(app, url, page):
    page.route(f"**/{app.READING.decoder.url}", lambda route: route.fulfill(status=404))
    page.goto(url)
    person = SliderDriver(page)
    person.tap_example(2)
    page.wait_for_function(f"() => ({REVISIONS})().every((revision, _, both) => revision === both[0])")
    page.evaluate(f"() => {SLIDERS_DRAWN}")
    assert_same_pictures(shown(page), networks_sliders(app, page, "winner", "paper"), "the server's answer")
    # asked of the server, or brought by its reading of the tap (answers.py `read`'s followUps)
    assert any(sent.endswith(("/ask/changes", "/ask/read")) for sent in page.sent)


def test_on_a_phone_each_picture_stands_beside_its_slider(url, browser, tmp_path):
    """On a 390-pixel page each of the 16 pictures is 28 to 40 CSS pixels square, left of its
    slider and level with it, and the page never scrolls sideways."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=3)
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(url)
        person = SliderDriver(page)
        person.tap_example(4)
        page.evaluate(f"() => {SLIDERS_DRAWN}")
        page.locator("#sliders").scroll_into_view_if_needed()
        page.locator("#sliders").screenshot(path=tmp_path / "sliders-phone.png")
        rows = page.evaluate(
            "() => [...document.querySelectorAll('#sliders .dimension')].map((row) => {"
            " const picture = row.querySelector('img.change').getBoundingClientRect();"
            " const slider = row.querySelector('input').getBoundingClientRect();"
            " return {left: picture.left, right: picture.right, top: picture.top, bottom: picture.bottom,"
            " width: picture.width, height: picture.height, sliderLeft: slider.left,"
            " sliderMiddle: (slider.top + slider.bottom) / 2}; })"
        )
        assert len(rows) == 16
        for row in rows:
            assert 28 <= row["width"] == row["height"] <= 40, row
            assert row["right"] <= row["sliderLeft"] and row["left"] >= 0, row  # beside it, on the screen
            assert row["top"] <= row["sliderMiddle"] <= row["bottom"], row  # level with it
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()
