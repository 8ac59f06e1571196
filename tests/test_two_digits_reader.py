"""The Two-digits pad read in the page (playground/page/two_digits_reading.js in a worker of the
pairs networks' own, page_networks.js `startPairReader` and `readPair`), in a real browser (Debian's
Chromium driven by Playwright): for the MNIST test pairs under the pad and pairs drawn with both
pens, the page's graphs read the 28x28 the page makes of the drawing as the networks read it (the
same digits and count for each network, every capsule, length and probability within 0.01), each
digit read and the capsule Decode as chose redrawn from the page's capsules as the network's
decoder redraws them, with no request to the server but the graphs; and the panel itself
(two_digits_panel.js), once the section nears the screen, reads a drawing with both pens, Decode as
and Clear in the page."""

import numpy as np
import pytest
import torch

from harness.chromium_browser import CHROMIUM
from harness.digit_strokes import strokes
from harness.pad_drivers import PAIR_PANEL, PairDriver
from playground import two_digits_pad
from tests.support.playground_pages import (
    networks_state,
    no_alarm,
    page_networks,
    playground_page,
    wait_for_networks,
)

pytestmark = [pytest.mark.browser, pytest.mark.server]
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="pip install playwright")

NUMBER = 0.01  # a length, a probability or a picture's ink, the page's against the server's
DRAWN = (((3, 60, 40, 120, 180), (5, 90, 60, 120, 180)), ((0, 50, 40, 140, 200), (7, 80, 50, 140, 200)))

# In the page: a drawing read by its pairs networks, its pictures as arrays (Playwright's own
# copies of typed arrays are slow).
READ_PAIR = """
async ([drawing, decodeAs]) => {
  const pair = await (await PAGE_NETWORKS).readPair(drawing, decodeAs);
  if (pair === null) return null;
  const listed = (pictures) => pictures.map((ink) => Array.from(ink));
  return {
    ...pair,
    image: Array.from(pair.image),
    layers: listed(pair.layers),
    redrawn: listed(pair.redrawn),
    decodedRedrawn: pair.decodedRedrawn && Array.from(pair.decodedRedrawn),
    capsules: Array.from(pair.capsules),
  };
}
"""


def drawings() -> list[tuple[str, dict]]:
    """The pad's drawings read here, as its drawings offer gives them (reading_store.js `drawings`)."""
    cases = []
    for path in sorted(two_digits_pad.EXAMPLES_FOLDER.glob("*.png")):
        background = two_digits_pad.example_layers(path).ravel().tolist()
        cases.append((path.stem, {"strokes": [], "pens": [], "background": background}))
    for first, second in DRAWN:
        a, b = strokes(*first), strokes(*second)
        read = [np.array([f"{x:g}" for x in stroke], dtype=np.float32).tolist() for stroke in a + b]
        cases.append((f"{first[0]} and {second[0]}", {"strokes": read, "pens": [0] * len(a) + [1] * len(b)}))
    return cases


def test_the_page_reads_the_two_digit_pad_as_the_networks_read_its_28x28_with_no_request(app, url, browser):
    section = app.TWO_DIGITS
    if section.graphs is None:
        pytest.skip(f"no pairs networks: {section.problem}")
    page = playground_page(browser)
    try:
        page.goto(url)
        settings = section.page_settings()
        started = {
            "facts": settings["facts"],
            "runtime": settings["runtime_url"],
            "capsules": settings["capsules_url"],
            "decoder": settings["decoder_url"],
            "sigmoids": settings["sigmoids_url"],
        }
        page.evaluate(f"async (settings) => {{ (await {page_networks(page)}).startPairReader(settings); }}", started)
        wait_for_networks(page, "pairReader")
        sent = len(page.sent)
        for k, (name, drawing) in enumerate(drawings()):
            decode_as = (3 * k) % 10
            pair = page.evaluate(READ_PAIR.replace("PAGE_NETWORKS", page_networks(page)), [drawing, decode_as])
            fields = np.array([pair["image"], *pair["layers"]], dtype=np.float32).reshape(3, 28, 28)
            expected = section.reader.read_fields(fields)  # the networks on the page's 28x28
            assert pair["read"] == list(expected.read) and pair["cnnRead"] == list(expected.cnn_read), name
            assert np.abs(np.array(pair["lengths"]) - expected.lengths).max() < NUMBER, name
            assert np.abs(np.array(pair["probabilities"]) - expected.probabilities).max() < NUMBER, name
            capsules = torch.tensor(pair["capsules"]).reshape(expected.capsules.shape)  # [10, 16]
            assert (capsules - expected.capsules).abs().max() < NUMBER, name
            shown = decode_as not in expected.read
            assert pair["decoded"] == (decode_as if shown else None), name
            digits = list(expected.read) + [decode_as] * shown
            with torch.inference_mode():  # the page's capsules, each redrawn alone by the network's decoder
                redrawn = section.reader.capsnet.decode(capsules[None], torch.tensor([digits]))[0, :, 0].numpy()
            page_redrawn = pair["redrawn"] + [pair["decodedRedrawn"]] * shown
            assert np.abs(np.array(page_redrawn).reshape(redrawn.shape) - redrawn).max() < NUMBER, name
        assert len(page.sent) == sent  # no event to the server
        assert {graph.rsplit("/", 1)[-1] for graph in page.graphs} >= {
            settings[key].rsplit("/", 1)[-1] for key in ("capsules_url", "decoder_url", "sigmoids_url")
        }
        no_alarm(page)
    finally:
        page.context.close()


def test_the_panel_reads_a_two_pen_drawing_and_decode_as_in_the_page(url, browser):
    """Scrolled to the Two-digits section, the panel loads the pairs networks itself; then a digit
    drawn with each pen, Decode as another digit and Clear are read, redrawn and drawn in the page
    (two_digits_panel.js), each digit in its pen's colour, with no event sent to the server."""
    page = playground_page(browser)
    try:
        page.goto(url)
        person = PairDriver(page)
        assert networks_state(page, "pairReader") == "waiting"  # not before the section nears the screen
        page.locator("#pair-panel").scroll_into_view_if_needed()
        wait_for_networks(page, "pairReader")
        sent = len(page.sent)
        person.draw(strokes(3, 60, 30, 140, 200))
        person.choose_pen(1)
        person.draw(strokes(5, 95, 50, 140, 200))
        assert sorted(person.reading()) == ["3", "5"]
        assert person.digit_colours() == {"3": two_digits_pad.PENS[0], "5": two_digits_pad.PENS[1]}
        page.locator('#pair-decode-as input[type=radio][value="8"]').click()
        page.wait_for_selector(f"{PAIR_PANEL} .decoded img")
        assert "Capsule 8 redrawn" in page.locator(f"{PAIR_PANEL} .decoded").inner_text()
        person.clear()
        assert person.reading() == ""
        assert page.sent[sent:] == [], "the page sent the server an event"
        no_alarm(page)
    finally:
        page.context.close()
