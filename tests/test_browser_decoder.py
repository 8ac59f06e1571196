"""The decoder in the page (its graph, run in the page's worker), in a real browser (Debian's Chromium
driven by Playwright): it draws what the network's decoder draws of the page's capsule, within
NETWORK_GREY_LEVELS of 255, for the ten MNIST examples, every slider at either end of both ranges
and elsewhere, decoded as the winner and as another digit; a drag redraws at every move with no
request; *Decode as* redraws at once with no request; without its weights the server answers the
decoder's questions (playground/answers.py), the same pictures, and the page says nothing
alarming; a reading never waits for the weights; a slider moved before the page's networks came
keeps the server's picture once they come without their decoder."""

import base64
import time

import numpy as np
import pytest

from harness.chromium_browser import CHROMIUM, round_trip
from harness.page_pictures import grey_picture
from harness.slider_drivers import PANEL_DRAWN, SliderDriver
from playground.reading import EXAMPLES
from tests.support.playground_pages import (
    grey_levels_apart,
    networks_state,
    no_alarm,
    page_module,
    playground_page,
)

pytestmark = pytest.mark.browser
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")

GREY_LEVELS = 1  # one picture of the page's against another of its own: at most one grey level of 255 apart
# The page's picture against the network's decoder's of the same capsule, in levels of 255: the
# page's decoder is its graph's, in float16
NETWORK_GREY_LEVELS = 9
SLOW_ROUND_TRIP_MS = 1500  # a server answer this late shows only after what the page drew at once


@pytest.fixture
def page(browser):
    page = playground_page(browser)
    yield page
    page.context.close()


def loaded(page, url: str) -> SliderDriver:
    page.goto(url)
    return SliderDriver(page)


def with_decoder(page, url: str) -> SliderDriver:
    """The page loaded and its decoder's weights with it."""
    person = loaded(page, url)
    person.tap_example(0)
    person.wait_for_decoder()
    page.evaluate(f"() => {PANEL_DRAWN}")  # the redraw that asked drawn
    return person


# In the page: every picture the page's decoder draws into the reading panel's reconstruction
# (it sets the picture's src; the server's answers replace the panel instead), kept in window.drawnHere.
WATCH_DRAWN_HERE = """
() => {
  window.drawnHere = [];
  new MutationObserver((changes) => changes.forEach(
    (change) => window.drawnHere.push(change.target.getAttribute('src'))))
    .observe(document.querySelector('#reading-panel'), {subtree: true, attributes: true, attributeFilter: ['src']});
}
"""


def drawn_here(page, clear: bool = False) -> list[str]:
    """The pictures the page's decoder drew since WATCH_DRAWN_HERE or the last clear; ``clear``: forget them."""
    return page.evaluate(
        "(clear) => { const drawn = [...window.drawnHere]; if (clear) window.drawnHere.length = 0; return drawn; }",
        clear,
    )


def shows(person: SliderDriver, expected: np.ndarray, timeout: float = 60.0) -> None:
    """Wait until the reconstruction on the page is ``expected`` (the server's answers to a few
    moves arrive in turn), and fail if it never is."""
    deadline = time.monotonic() + timeout
    while grey_levels_apart(person.reconstruction(), expected) > 0:
        assert time.monotonic() < deadline, "the page never showed the server's picture"
        person.page.wait_for_timeout(50)


# In the page: the capsules and winner of the reading the reading panel shows.
SHOWN_CAPSULES = "async () => { const r = (await STORE).shown.current(); return [Array.from(r.capsules), r.winner]; }"


def networks_picture(app, page, decode_as: str, offsets: list[float]) -> np.ndarray:
    """The network's decoder's picture of the capsule the reading panel shows (decoded as
    ``decode_as``, moved by ``offsets``), as the panel draws it: uint8 grey, black ink on white."""
    capsules, winner = page.evaluate(SHOWN_CAPSULES.replace("STORE", page_module("reading_store.js")))
    digit = winner if decode_as == "winner" else int(decode_as)
    ink = app.ANSWERS.decode({"capsules": capsules, "digit": digit, "offsets": offsets})["ink"]
    return 255 - np.frombuffer(base64.b64decode(ink), dtype=np.uint8).reshape(28, 28)


def offset_sets(limits: list[float], rng: np.random.Generator) -> dict[str, list[float]]:
    """Every slider at its right end, its left end, alternately at either end, and anywhere."""
    limits = np.array(limits)
    alternate = np.where(np.arange(len(limits)) % 2 == 0, 1.0, -1.0)
    return {
        "right ends": limits.tolist(),
        "left ends": (-limits).tolist(),
        "alternate ends": (alternate * limits).tolist(),
        "the other ends": (-alternate * limits).tolist(),
        "anywhere": (rng.uniform(-1, 1, len(limits)) * limits).tolist(),
    }


def test_the_page_draws_what_the_network_draws(app, url, page):
    """For each of the ten examples, for both slider ranges, decoded as the winner and as another
    digit: the picture *Decode as* draws at once, and the picture of each set of offsets, against
    the network's decoder's of the page's capsule."""
    person = with_decoder(page, url)
    rng = np.random.default_rng(0)
    ranges = ["paper"] + (["spread"] if app.NETWORKS.names is not None else [])
    page.evaluate(WATCH_DRAWN_HERE)
    compared, worst = 0, 0
    for example in range(len(EXAMPLES)):
        winner = int(person.tap_example(example))
        for scale in ranges:
            if scale != "paper":
                person.choose(f"#slider-range input[value={scale}]")
            for decode_as in [str((winner + 1 + example) % 10), "winner"]:
                drawn_here(page, clear=True)
                person.choose(f'input[type=radio][value="{decode_as}"]:not(#pair-decode-as input)')
                at_once = drawn_here(page)
                assert at_once, f"Decode as {decode_as} drew nothing in the page"
                assert grey_levels_apart(grey_picture(at_once[0]), person.reconstruction()) <= GREY_LEVELS, (
                    example,
                    scale,
                    decode_as,
                )
                for name, wanted in offset_sets(person.limits(), rng).items():
                    requests = person.answers
                    offsets = person.set_offsets(wanted)
                    shown = person.reconstruction()
                    assert person.answers == requests, "a slider move went to the server"
                    difference = grey_levels_apart(shown, networks_picture(app, page, decode_as, offsets))
                    assert difference <= NETWORK_GREY_LEVELS, f"example {example}, {scale} range, {decode_as}, {name}"
                    compared, worst = compared + 1, max(worst, difference)
            if scale != "paper":
                person.choose("#slider-range input[value=paper]")
    assert compared == len(EXAMPLES) * len(ranges) * 2 * 5
    print(f"{compared} pictures drawn in the page, at most {worst} grey level(s) from the network's")


def test_a_drag_redraws_at_every_move_with_no_request(app, url, page):
    """At a slow server (each answer SLOW_ROUND_TRIP_MS late), a drag across the first slider draws
    a picture at every move that changes its value, the first long before the server could have
    answered, and sends nothing; the last is the server's for the offset it ends at."""
    person = with_decoder(page, url)
    page.evaluate(WATCH_DRAWN_HERE)
    round_trip(page, SLOW_ROUND_TRIP_MS)
    requests = []
    page.on("request", lambda request: requests.append(request.url) if request.method == "POST" else None)
    timed = person.drag_across(40)
    page.wait_for_timeout(2 * SLOW_ROUND_TRIP_MS)
    assert requests == []
    moves, pictures = timed["moves"], timed["pictures"]
    assert len(moves) >= 30 and len(drawn_here(page)) == len(moves), (len(moves), len(drawn_here(page)))
    assert pictures[0] - moves[0] < SLOW_ROUND_TRIP_MS / 6
    offsets = person.set_offsets(
        person.page.evaluate(
            "() => { const offsets = Array(16).fill(0); for (const input of document.querySelectorAll("
            "'#sliders input[type=range]')) offsets[Number(input.dataset.dimension)] = Number(input.value); "
            "return offsets; }"
        )
    )
    assert (
        grey_levels_apart(person.reconstruction(), networks_picture(app, page, "winner", offsets))
        <= NETWORK_GREY_LEVELS
    )


def test_decode_as_redraws_at_once_with_no_request(app, url, page):
    """Decode as another digit, at a slow server: the page redraws that capsule at once, the
    server's picture of it within a grey level, the sliders back at zero, and nothing is sent."""
    person = with_decoder(page, url)
    winner = int(page.locator("#reading-panel .digit").inner_text())
    other = (winner + 4) % 10
    round_trip(page, SLOW_ROUND_TRIP_MS)
    before = person.reconstruction()
    requests = person.requests
    page.locator(f'input[type=radio][value="{other}"]:not(#pair-decode-as input)').click()
    caption = f"Reconstruction from capsule {other}"  # Gradio runs the event's js a few ticks after the click
    sync_api.expect(page.locator("#reading-panel .reconstruction figcaption")).to_have_text(
        caption, timeout=SLOW_ROUND_TRIP_MS
    )
    drawn_at_once = person.reconstruction()
    assert grey_levels_apart(drawn_at_once, before) > 10
    assert grey_levels_apart(drawn_at_once, networks_picture(app, page, str(other), [0.0] * 16)) <= NETWORK_GREY_LEVELS
    page.wait_for_timeout(2 * SLOW_ROUND_TRIP_MS)  # time for a request, were one sent
    assert person.requests == requests
    assert page.locator("#reading-panel .reconstruction figcaption").inner_text() == caption
    assert page.locator("#sliders output").first.inner_text().strip() == "0.00"


def one_moved(person: SliderDriver, offset: float) -> list[float]:
    """The first slider moved to ``offset``, the others at zero: one move, one request where the
    server draws it (answers to several may come back in any order); returns the offsets."""
    dimension = int(person.page.locator("#sliders input[type=range]").first.get_attribute("data-dimension"))
    return person.set_offsets([offset if d == dimension else 0.0 for d in range(len(person.limits()))])


def test_without_its_weights_the_server_answers_for_the_decoder(app, url, page):
    """The weights cannot be had: the server answers the decoder's questions, the network's
    pictures, and the page writes nothing alarming."""
    page.route(f"**/{app.READING.decoder.url}", lambda route: route.fulfill(status=404))
    person = loaded(page, url)
    person.tap_example(3)
    assert not person.decoder_draws()
    offsets = one_moved(person, 0.2)
    shows(person, networks_picture(app, page, "winner", offsets))
    assert any(sent.endswith("/ask/decode") for sent in page.sent)
    deadline = time.monotonic() + 120  # the decoder loads after the capsules' graph: its refusal comes then
    while networks_state(page, "decoder") == "waiting" and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert networks_state(page, "decoder") == "unavailable"
    no_alarm(page)
    assert any("The server answers in the page's place" in text for kind, text in page.messages if kind == "info")


def test_a_reading_does_not_wait_for_the_decoder_and_is_redrawn_once_it_comes(app, url, page):
    """The decoder's graph held back: an example tapped is read and shown all the same (the page's
    reader is ready without it, or the server reads), the page's decoder drawing nothing; once the
    graph comes, the panel shows the reconstruction the server draws, and the sliders redraw in the
    page with no request."""
    held = []
    page.route(f"**/{app.READING.decoder.url}", lambda route: held.append(route))
    person = loaded(page, url)
    assert person.tap_example(5) == "5"  # read and shown, the decoder not had yet
    deadline = time.monotonic() + 120  # it is asked for after the capsules' graph
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert len(held) == 1 and not person.decoder_draws()
    held[0].continue_()
    person.wait_for_decoder()
    page.locator("#reading-panel .reconstruction img.picture").wait_for()  # drawn once the decoder came
    assert grey_levels_apart(person.reconstruction(), networks_picture(app, page, "winner", [0.0] * 16)) <= (
        NETWORK_GREY_LEVELS
    )
    answers = person.answers
    person.set_offsets([0.1] * 16)
    assert person.answers == answers
    no_alarm(page)


def test_a_slider_moved_before_the_networks_came_keeps_the_server_s_picture(app, url, page):
    """An example tapped and a slider moved while the page's networks are still on their way: the
    server reads and redraws. The reader then comes and reads the drawing too, but its decoder is
    refused: the panel keeps the server's picture of the moved capsule, not a reading without one."""
    held = {"graph": [], "decoder": []}  # the requests for each, held
    page.route(f"**/{app.READING.page_network.url}", lambda route: held["graph"].append(route))
    page.route(f"**/{app.READING.decoder.url}", lambda route: held["decoder"].append(route))
    person = loaded(page, url)
    person.tap_example(3)
    offsets = one_moved(person, 0.2)
    moved = networks_picture(app, page, "winner", offsets)
    shows(person, moved)
    while networks_state(page) == "waiting":  # the graph let through: the reader comes
        for route in held["graph"]:
            route.continue_()
        held["graph"].clear()
        page.wait_for_timeout(100)
    assert networks_state(page) == "ready"
    deadline = time.monotonic() + 60
    while not held["decoder"] and time.monotonic() < deadline:  # asked for once the reader is in
        page.wait_for_timeout(100)
    held["decoder"][0].fulfill(status=404)
    while networks_state(page, "decoder") == "waiting":
        page.wait_for_timeout(100)
    page.evaluate(f"() => {PANEL_DRAWN}")
    assert page.locator("#reading-panel .digit").inner_text() == "3"
    assert grey_levels_apart(person.reconstruction(), moved) == 0
    no_alarm(page)
