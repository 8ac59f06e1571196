"""A real browser (Debian's Chromium driven by Playwright) uses the playground as a person does:
draws digit after digit with Clear between them, with a mouse and with a finger on a phone-sized
page, drags a slider, decodes as another digit, routes, undoes, starts from an example, turns
the digit in the Turn-it section (sees the digit while drawing on a phone, turns it with a finger),
and draws two digits over each other with the Two-digits section's two pens (on a phone, seeing
both redrawn in the strip while drawing)."""

import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from harness.chromium_browser import CHROMIUM, DESKTOP, PHONE, PHONE_UNDER_BARS, chromium
from harness.digit_strokes import inked, random_box, strokes
from harness.pad_drivers import PAIR_PANEL, POINT_STRIDE, PadDriver, PairDriver
from harness.page_pictures import pen_pixels, picture
from harness.slider_drivers import TURN_PANEL, TurnDriver
from playground.drawing_pad import SIDE

pytestmark = pytest.mark.browser
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")

TIMEOUT_MS = 120_000  # a headless software-rendered page on a busy 2-core machine can be slow
# A reconstruction on the page against one computed here from the network's input as the page shows
# it (a PNG, to 1/255): the largest pixel difference was 0.0023 for the dimension moved, 0.99 or more
# for any other moved alike.
PICTURE_TOLERANCE = 0.03
# How many CSS pixels the routing view's table is wider than the box that holds it.
ROUTING_TABLE_OVERFLOW = (
    "() => { const table = document.querySelector('#routing table.routing');"
    " return table.scrollWidth - table.closest('.routing-numbers').clientWidth; }"
)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright, chromium(playwright) as launched:
        yield launched


@contextmanager
def phone_page(browser, url: str, viewport: dict):
    """The playground loaded on a phone's page of ``viewport``: touch, a phone's pixel ratio."""
    context = browser.new_context(viewport=viewport, has_touch=True, is_mobile=True, device_scale_factor=3)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    try:
        yield page
    finally:
        context.close()


def as_drawn(drawn: list[list[float]]) -> list[list[float]]:
    """The strokes as the pad receives them from PadDriver: every POINT_STRIDE-th point and the last."""
    return [
        np.vstack([np.reshape(s, (-1, 2))[::POINT_STRIDE], np.reshape(s, (-1, 2))[-1:]]).ravel().tolist() for s in drawn
    ]


def network_input_of(drawn: list[list[float]]) -> np.ndarray:
    """The 28x28 image the network should see for these strokes, made here another way: drawn by
    Pillow (`harness.digit_strokes.inked`), then MNIST's recipe (`capsnet.data.preprocess`)."""
    from capsnet.data.preprocess import ink_to_mnist

    return ink_to_mnist(inked(as_drawn(drawn))[0])


def apart(seen: np.ndarray, expected: np.ndarray) -> float:
    """The mean difference of two 28x28 inputs, the nearer of them moved by a pixel or none: two
    rasterisers can put a centre of mass on either side of a half pixel, and MNIST's recipe moves
    the digit by whole pixels."""
    moved = (np.roll(expected, (dy, dx), axis=(0, 1)) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    return min(float(np.abs(seen - each).mean()) for each in moved)


def draw_digits_with_clear_between(page, person: PadDriver, digits: list[int], seed: int) -> None:
    """Draw each digit at a random size and place, Clear between them, and check every reading."""
    rng = np.random.default_rng(seed)
    previous = None
    for digit in digits:
        person.clear()
        assert person.canvas_is_blank() and person.reading() == "?"
        drawn = strokes(digit, *random_box(rng, SIDE))
        person.draw(drawn, timeout=TIMEOUT_MS / 1000)
        pad_revision, shown_revision = person.revisions()
        assert shown_revision == pad_revision, "the reading shown is not of what is on the pad"
        assert person.reading() == str(digit)
        seen, expected = person.network_input(), network_input_of(drawn)
        assert apart(seen, expected) < 0.02, "what the network sees is not the drawing"
        if previous is not None:
            assert np.abs(seen - previous).mean() > 0.05, "what the network sees is the previous drawing"
        previous = expected
        page.wait_for_function(  # what follows a reading
            "(digit) => document.querySelector('#routing')?.textContent.includes(`winner ${digit}:`)"
            " && document.querySelectorAll('#figure4 th[scope=row]').length === 16",
            arg=digit,
        )


def test_each_digit_in_a_row_with_the_mouse(url, browser):
    page = browser.new_page(viewport=DESKTOP)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    draw_digits_with_clear_between(page, PadDriver(page), list(range(10)), seed=0)
    page.close()


def test_five_digits_with_a_finger_on_a_phone(url, browser):
    with phone_page(browser, url, PHONE) as page:
        person = PadDriver(page, touch=True)
        assert person.canvas_box()["width"] >= 0.9 * PHONE["width"]  # the pad takes the screen's width
        draw_digits_with_clear_between(page, person, [3, 7, 0, 4, 9], seed=1)


def drag(page, slider, fraction: float) -> None:
    """Press on the slider's thumb (at 0, the middle) and drag it to ``fraction`` of its width."""
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * fraction, y, steps=4)
    page.mouse.up()


def changes(page, selector: str, attribute: str, before: str | None) -> None:
    page.wait_for_function(
        "([selector, attribute, before]) => { const e = document.querySelector(selector);"
        " return e && e.getAttribute(attribute) !== before; }",
        arg=[selector, attribute, before],
    )


def one_dimension_moved(model, image: np.ndarray, offset: float) -> np.ndarray:
    """The decoder's pictures of ``image``'s winning capsule with ``offset`` added to each of its
    dimensions alone in turn, [16, 28, 28] ink in [0, 1]: computed here, from the weights."""
    import torch

    with torch.inference_mode():
        out = model(torch.from_numpy(image).float()[None, None])
        winner = out.prediction.expand(out.capsules.shape[-1])  # [16]
        capsules = out.capsules.repeat(len(winner), 1, 1)  # [16, 10, 16]
        capsules[torch.arange(len(winner)), winner, torch.arange(len(winner))] += offset
        return model.decode(capsules, winner)[:, 0].numpy()


def shows_that_dimension_moved(page, selector: str, model, image: np.ndarray, dimension: int, offset: float) -> None:
    """Wait until the picture at ``selector`` is the decoder's with ``offset`` added to ``dimension``
    (a drag sends several values; the last one's picture comes last), and fail if it is not."""
    moved = one_dimension_moved(model, image, offset)
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        errors = np.abs(moved - picture(page.get_attribute(selector, "src"))).max(axis=(1, 2))  # [16]
        if errors.argmin() == dimension and errors[dimension] <= PICTURE_TOLERANCE or time.monotonic() > deadline:
            break
        page.wait_for_timeout(200)
    assert errors.argmin() == dimension and errors[dimension] <= PICTURE_TOLERANCE, (
        f"not dimension {dimension} moved by {offset:+.3f}; the largest error per dimension: {errors.round(3)}"
    )


def routing_heatmap(page) -> str:
    """The routing view's heatmap, as a PNG data URL."""
    return page.locator("#routing canvas.heatmap").evaluate("(canvas) => canvas.toDataURL()")


def test_a_seven_its_sliders_decode_as_routing_undo_and_an_example(url, browser, tmp_path, trained_model):
    page = browser.new_page(viewport=DESKTOP)
    page.set_default_timeout(TIMEOUT_MS)
    page.sent = []  # the requests that run an event
    page.on("request", lambda request: page.sent.append(request.url) if "/gradio_api/run/" in request.url else None)
    page.goto(url)
    person = PadDriver(page)
    assert person.reading() == "?"
    sliders = page.locator("#sliders input[type=range]")
    assert sliders.count() == 16 and sliders.first.is_disabled()  # nothing to move yet

    person.draw(strokes(7, 60, 30, 160, 220))
    assert person.reading() == "7"
    page.wait_for_selector("#figure4 table.figure4 img")  # what follows a reading
    page.wait_for_selector("#routing canvas.heatmap")
    for width in (1280, DESKTOP["width"]):  # the routing view's table fits its panel: no column cut off
        page.set_viewport_size({**DESKTOP, "width": width})
        assert page.evaluate(ROUTING_TABLE_OVERFLOW) <= 0, width
    page.wait_for_function("() => !document.querySelector('#sliders input[type=range]').disabled")
    first_label = page.locator("#sliders label").first.inner_text()
    assert first_label.startswith("d") and first_label == page.locator("#figure4 th[scope=row]").first.inner_text()

    reconstruction = "#reading-panel .reconstruction img"
    before = page.get_attribute(reconstruction, "src")
    drag(page, sliders.first, 0.95)
    changes(page, reconstruction, "src", before)
    dimension = int(sliders.first.get_attribute("data-dimension"))  # the telling one: not the first
    shows_that_dimension_moved(
        page, reconstruction, trained_model, person.network_input(), dimension, float(sliders.first.input_value())
    )
    assert page.locator("#sliders output").first.inner_text().startswith("+")
    assert person.reading() == "7"  # the reading stays

    page.locator('input[type=radio][value="3"]:not(#pair-decode-as input)').click()  # Decode as 3 (not the pair's)
    page.wait_for_function(
        "() => document.querySelector('#reading-panel .reconstruction figcaption').textContent.endsWith('capsule 3')"
    )
    page.wait_for_function("() => document.querySelector('#sliders output').textContent.trim() === '0.00'")

    heatmap = routing_heatmap(page)
    sent = len(page.sent)
    page.locator("#routing input.capsule-type").fill("7")  # drawn in the page from the reading's numbers
    page.wait_for_function("() => document.querySelector('#routing').textContent.includes('capsule type 7 only')")
    assert routing_heatmap(page) != heatmap
    page.locator("#routing input.iterations").fill("1")
    page.wait_for_selector("#routing tr.chosen:has-text('r = 1')")
    assert len(page.sent) == sent  # the controls ask the server nothing

    page.locator("#pad button.undo").click()  # the 7's only stroke
    page.wait_for_selector("#reading-panel .digit.empty")
    assert person.canvas_is_blank()

    page.locator("#pad button.example").nth(2).click()  # an MNIST test 2
    page.wait_for_function("() => document.querySelector('#reading-panel .digit')?.textContent === '2'")
    assert not person.canvas_is_blank()

    screenshot = tmp_path / "playground.png"
    page.screenshot(path=screenshot, full_page=True)
    if os.environ.get("CAPSNET_SCREENSHOT_DIR"):
        target = Path(os.environ["CAPSNET_SCREENSHOT_DIR"])
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(screenshot, target / screenshot.name)
    page.close()


def turned_as_transform_turns(person: PadDriver, turner: TurnDriver, rotation: float) -> None:
    """The turn panel shows the network's input on the page turned by ``rotation``, as
    capsnet.data.affine.transform turns it (up to the PNGs' grey levels)."""
    import torch

    from capsnet.data.affine import AffineChange, transform

    expected = transform(torch.from_numpy(person.network_input()), AffineChange(rotation=rotation)).numpy()
    assert np.abs(turner.turned_input() - expected).max() <= 2 / 255 + 1e-6


def turn_panel_parts(page) -> dict:
    return page.evaluate(
        "(panel) => { const p = document.querySelector(panel); return {"
        " revision: p.dataset.revision, turned: p.querySelector('.turned img').src,"
        " redrawn: p.querySelector('.redrawn img').src, cnn: p.querySelector('.cnn-reading').innerHTML,"
        " pose: p.querySelector('.pose-bars').innerHTML}; }",
        TURN_PANEL,
    )


def test_draw_turn_clear_and_draw_again_in_the_turn_it_section(url, browser):
    page = browser.new_page(viewport=DESKTOP)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    person, turner = PadDriver(page), TurnDriver(page)
    assert "Draw a digit above" in page.locator("#turn-panel").inner_text()

    person.draw(strokes(7, 60, 30, 160, 220))
    page.wait_for_timeout(500)
    assert "Draw a digit above" in page.locator("#turn-panel").inner_text()  # off the screen: not followed
    turner.shown("7")  # on it: the panel follows the reading
    before = turn_panel_parts(page)
    turned_as_transform_turns(person, turner, 0)

    latencies = turner.drag("rotation", [0.6, 0.7])  # +36° then +72°, roughly
    assert len(latencies) == 2
    rotation = turner.value("rotation")
    assert 45 <= rotation <= 90
    after = turn_panel_parts(page)
    assert after["revision"] == str(len(latencies))
    assert after["turned"] != before["turned"] and after["redrawn"] != before["redrawn"]
    assert after["cnn"] != before["cnn"] and after["pose"] != before["pose"]
    turned_as_transform_turns(person, turner, rotation)
    assert person.reading() == "7"  # the reading panel stays

    person.clear()
    person.draw(strokes(3, 70, 30, 140, 220))
    turner.shown("3")
    turned_as_transform_turns(person, turner, rotation)  # the sliders stayed where they were

    page.locator("#turn-sliders button.straighten").click()
    page.wait_for_function("(n) => document.querySelector(`${n}`)?.dataset.revision === '3'", arg=TURN_PANEL)
    turned_as_transform_turns(person, turner, 0)
    page.close()


def in_view(page, selector: str) -> bool:
    """Whether the element is wholly on the screen and nothing covers its middle."""
    return page.evaluate(
        "(selector) => { const e = document.querySelector(selector); const r = e.getBoundingClientRect();"
        " const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
        " return r.top >= 0 && r.bottom <= innerHeight && r.height > 0 && (e === hit || e.contains(hit)); }",
        selector,
    )


def test_a_phone_shows_the_digit_while_drawing_and_turns_it_with_a_finger(url, browser):
    with phone_page(browser, url, PHONE_UNDER_BARS) as page:
        person = PadDriver(page, touch=True)
        first, second = strokes(4, 60, 30, 160, 220)
        person.draw([first])
        assert person.reading().strip() and in_view(page, "#reading-panel .digit")
        assert in_view(page, "#reading-panel .caption")
        assert "capsule length" in page.locator("#reading-panel .caption").inner_text()
        person.draw([second])
        assert person.reading() == "4" and in_view(page, "#reading-panel .digit")

        turner = TurnDriver(page, touch=True)
        turner.shown()
        page.evaluate("() => document.querySelector('#turn-sliders').scrollIntoView({block: 'start'})")
        for seen in (
            "#turn-sliders input[name=rotation]",
            f"{TURN_PANEL} .turned img",
            f"{TURN_PANEL} .redrawn img",
            f"{TURN_PANEL} .verdict.capsnet",
            f"{TURN_PANEL} .verdict.cnn",
        ):
            assert in_view(page, seen), f"{seen} is off the screen while a finger is on the turn slider"
        before = turn_panel_parts(page)
        assert turner.drag("rotation", [0.58, 0.62])
        after = turn_panel_parts(page)
        assert after["turned"] != before["turned"] and after["cnn"] != before["cnn"]
        turned_as_transform_turns(person, turner, turner.value("rotation"))
        no_side_scroll = page.evaluate("() => document.documentElement.scrollWidth") <= PHONE_UNDER_BARS["width"]
        assert no_side_scroll


def test_figure4_on_a_phone_names_each_row_above_its_strip_drawn_at_its_natural_size(url, browser, tmp_path):
    """On a 390-pixel page each of Figure 4's 16 rows has its name above its strip, and the strip is
    drawn no smaller than its picture (each digit 28 CSS pixels or more), the page itself never
    scrolling sideways."""
    with phone_page(browser, url, PHONE) as page:
        page.wait_for_selector("#pad [data-revision]", state="attached")  # the pad's module has started
        page.locator("#pad button.example").nth(2).click()
        page.wait_for_selector("#figure4 table.figure4 img")
        page.locator("#figure4").scroll_into_view_if_needed()
        page.screenshot(path=tmp_path / "figure4-phone.png")
        rows = page.evaluate(
            "() => [...document.querySelectorAll('#figure4 tr')].filter((row) => row.querySelector('th[scope=row]'))"
            ".map((row) => { const strip = row.querySelector('img'), box = strip.getBoundingClientRect();"
            " return {nameBottom: row.querySelector('th').getBoundingClientRect().bottom, stripTop: box.top,"
            " width: box.width, natural: strip.naturalWidth, height: box.height}; })"
        )
        assert len(rows) == 16
        for row in rows:
            assert row["nameBottom"] <= row["stripTop"] + 0.5, row  # the name above, not beside
            assert row["width"] >= row["natural"] and row["height"] >= 28, row
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_readme_screenshot_is_made_from_the_page(url, browser, tmp_path):
    from harness.screenshot import photograph

    page = browser.new_page(viewport=DESKTOP)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    out = tmp_path / "playground.png"
    photograph(page, 4, out)
    panel = page.locator("#reading-panel").bounding_box()
    pad = page.locator("#pad canvas").bounding_box()
    page.close()
    shot = np.asarray(Image.open(out).convert("L"))
    assert shot.shape[1] == DESKTOP["width"] and shot.shape[0] >= panel["y"] + panel["height"]
    drawn = shot[int(pad["y"]) : int(pad["y"] + pad["height"]), int(pad["x"]) : int(pad["x"] + pad["width"])]
    assert (drawn < 64).mean() > 0.02, "the screenshot shows no digit on the pad"


# Where pen 1's digit and pen 2's are drawn (pad units): 3 and 5, and 4 and 7, drawn there with
# these strokes are read right by the pairs network, and still with pen 1's box moved by up to 8
# units each way (checked in-process with two_digits.TwoDigitsSection(...).read: the pair's second capsule
# 0.84 long or more, the third 0.15 or less).
FIRST_BOX, SECOND_BOX = (60, 30, 140, 200), (95, 50, 140, 200)  # the second 35 across and 20 down


def both_pens_read(person: PairDriver, pens: tuple[str, str]) -> None:
    """The panel got each stroke's pen: the networks' input shows both pens' ink, and the panel says
    that two digits were read."""
    seen = person.input_picture()
    assert min(pen_pixels(seen, pens[0], 40), pen_pixels(seen, pens[1], 40)) > 0.01, "a pen's ink is not in the input"
    assert person.count() == 2


def tint(picture: np.ndarray) -> np.ndarray:
    """The direction, in RGB, of the ink on white paper of a picture [h, w, 3]: a unit vector."""
    ink = (255 - picture.astype(np.float64)).reshape(-1, 3).sum(axis=0)
    return ink / np.linalg.norm(ink)


def redrawn_in_their_colours(person: PairDriver) -> None:
    """Both redrawn pictures are there, differ, and each is drawn in its digit's colour."""
    redrawn, colours = person.redrawn(), person.digit_colours()
    assert len(redrawn) == 2 and all(p.shape == (28, 28, 3) for p in redrawn)
    assert np.abs(redrawn[0].astype(int) - redrawn[1].astype(int)).mean() > 5, "both redrawn pictures are the same"
    for redrawn_digit, digit in zip(redrawn, person.reading(), strict=True):
        colour = np.array([int(colours[digit][i : i + 2], 16) for i in (1, 3, 5)])
        assert tint(redrawn_digit) @ tint(colour[None, None]) > 0.98, f"{digit} is not redrawn in its digit's colour"


def fetched(page, module: str) -> bool:
    """Whether the page has fetched the page module ``module`` (one of playground/page/)."""
    return page.evaluate(
        "(name) => performance.getEntriesByType('resource').some((entry) => entry.name.endsWith(`/${name}`))", module
    )


def test_two_digits_with_two_pens_clear_and_an_example(url, browser):
    from playground.two_digits_pad import PENS

    page = browser.new_page(viewport=DESKTOP)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    person = PairDriver(page)
    assert person.pen_colours() == list(PENS) and person.chosen_pen() == 0
    page.wait_for_selector("#pair-pad [data-revision]", state="attached")  # its pad mounted, and its panel laid out
    page.wait_for_timeout(1000)
    assert not fetched(page, "two_digits_panel.js"), "the Two-digits panel's module came before it neared the screen"
    page.locator("#pair-panel").scroll_into_view_if_needed()
    page.wait_for_selector(f"{PAIR_PANEL}.empty")  # its module mounted, the panel's prompt drawn
    assert person.reading() == "" and "Draw a digit with pen 1" in page.locator("#pair-panel").inner_text()

    person.draw(strokes(3, *FIRST_BOX), timeout=TIMEOUT_MS / 1000)
    assert person.reading() == "3" and person.digit_colours()["3"] == PENS[0] and person.count() == 1  # one digit read
    person.choose_pen(1)
    person.draw(strokes(5, *SECOND_BOX), timeout=TIMEOUT_MS / 1000)
    pad_revision, shown_revision = person.revisions()
    assert shown_revision == pad_revision, "the pair shown is not of what is on the pad"
    assert sorted(person.reading()) == ["3", "5"]
    assert person.digit_colours() == {"3": PENS[0], "5": PENS[1]}, "a digit is not in the colour of its pen"
    both_pens_read(person, PENS)
    redrawn_in_their_colours(person)
    canvas = person.canvas_pixels()
    assert pen_pixels(canvas, PENS[0]) > 0.03 and pen_pixels(canvas, PENS[1]) > 0.03, "a pen's ink is not on the pad"
    assert page.locator("#pair-panel .figure5 img").count() == 1
    assert "reads" in page.locator("#pair-panel .pair-cnn").inner_text()

    person.clear()
    assert person.canvas_is_blank() and person.reading() == ""
    assert "Draw a digit with pen 1" in page.locator("#pair-panel").inner_text()
    assert person.chosen_pen() == 0  # starting over: pen 1 again

    title = person.tap_example(0)  # an MNIST test pair
    assert title.startswith("MNIST test pair") and not person.canvas_is_blank()
    pad_revision, shown_revision = person.revisions()
    assert shown_revision == pad_revision and len(set(person.reading())) == 2
    redrawn_in_their_colours(person)
    page.close()


def in_the_strip(page, selector: str) -> bool:
    """Whether the element is wholly on the screen, in the pair panel's reading fixed along the
    screen's bottom (the strip: it lets a finger through to the pad, so no hit test finds it)."""
    return page.evaluate(
        "(selector) => { const e = document.querySelector(selector); const r = e.getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight && r.height > 0"
        " && getComputedStyle(e.closest('.pair-reading')).position === 'fixed'; }",
        selector,
    )


def test_two_digits_with_a_finger_on_a_phone_seen_in_the_strip(url, browser):
    from playground.two_digits_pad import PENS

    with phone_page(browser, url, PHONE) as page:
        person = PairDriver(page, touch=True)
        assert person.canvas_box()["width"] >= 0.9 * PHONE["width"]  # the pad takes the screen's width
        page.evaluate("() => document.querySelector('#pair-pad canvas').scrollIntoView({block: 'center'})")
        redrawn = [f"#pair-panel .redrawn-pair img.redrawn:nth-of-type({n})" for n in (1, 2)]

        first, second = strokes(4, *FIRST_BOX)
        person.draw([first])
        for seen in redrawn[: len(person.reading())]:  # one digit read, or two
            assert in_the_strip(page, seen), f"{seen} is not in the strip while a finger draws the first digit"
        person.draw([second])
        person.choose_pen(1)
        person.draw(strokes(7, *SECOND_BOX))
        assert sorted(person.reading()) == ["4", "7"]
        for seen in redrawn:
            assert in_the_strip(page, seen), f"{seen} is not in the strip while a finger draws the second digit"
        both_pens_read(person, PENS)
        redrawn_in_their_colours(person)
        no_side_scroll = page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        assert no_side_scroll

        # The 7 again, from its foot, with the pad's bottom edge under the strip.
        person.undo()
        assert "7" not in person.reading()
        page.evaluate("() => document.querySelector('#pair-pad canvas').scrollIntoView({block: 'end'})")
        strip = page.locator("#pair-panel .pair-reading").bounding_box()
        foot = [np.reshape(stroke, (-1, 2))[::-1].ravel().tolist() for stroke in strokes(7, *SECOND_BOX)]
        box = person.canvas_box()
        start = [box["x"] + foot[0][0] * box["width"] / SIDE, box["y"] + foot[0][1] * box["height"] / SIDE]
        assert start[1] > strip["y"], "the 7's foot is not under the strip"
        touched = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y) === document.querySelector('#pair-pad canvas')", start
        )
        assert touched, "a finger on the pad's edge under the strip does not reach the pad"
        person.draw(foot)
        assert sorted(person.reading()) == ["4", "7"]

        person.clear()
        assert person.canvas_is_blank() and person.reading() == "" and person.chosen_pen() == 0
