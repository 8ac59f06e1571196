"""The network in the page (playground/page/, capsnet/shipping/onnx_file.py), in a real browser
(Debian's Chromium driven by Playwright): its graphs read the 28x28 the page makes of a drawing as
the app's network reads that 28x28 with the page's weights (tests/support/page_weights.py; the same
digit, every capsule's length within 0.01, every picture within 2 grey levels of 255) for digits in
two stroke sources, Semeion's writers' included, the MNIST examples, examples drawn over, a dot and
a small digit; while a stroke is drawn the panel follows, and once the pen lifts it settles on the
same, with no request; a person's use of the MNIST sections (examples, strokes, Clear, Decode as, a
slider, the routing controls, Turn it) sends nothing, and each panel follows the drawing; where the
page cannot read (no WebAssembly or no workers, the graph not to be had), the server answers the
page's questions (playground/answers.py), and the page says nothing alarming."""

import base64
import re
from urllib.parse import urlsplit

import numpy as np
import pytest
import torch

from capsnet.dimensions import SWEEP, sweep_reconstructions
from capsnet.routing import agreement
from harness.chromium_browser import CHROMIUM, round_trip
from harness.delaying_proxy import LOOPBACK, delaying_proxy
from harness.digit_strokes import pad_value, random_box, strokes
from harness.pad_drivers import PadDriver
from harness.page_pictures import grey_picture
from harness.slider_drivers import TurnDriver
from harness.traced_strokes import stroke_source
from playground import drawing_pad, views
from playground.dimensions_section import GAP_INK
from playground.reading import EXAMPLES, WINNER, example_ink, read
from playground.routing_section import facts
from tests.support.playground_pages import (
    grey_levels_apart,
    networks_state,
    no_alarm,
    page_module,
    page_networks,
    playground_page,
    settled,
    touched,
    wait_for_networks,
)

pytestmark = [pytest.mark.browser, pytest.mark.server]
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="pip install playwright")

GREY_LEVELS = 2  # a picture of the page's against the server's, in levels of 255
LENGTH = 0.01  # a capsule's length, the page's against the server's
SLOW_ROUND_TRIP_MS = 1500  # a server answer this late shows only after what the page drew at once
PICTURES = re.compile(r'<figure class="(input|reconstruction|runner-up)">.*?src="(data:image/png;base64,[^"]+)"', re.S)

# In the page: its networks' reading of each drawing (the pad's own form: strokes as flat arrays,
# the background as 784 ink values), and the decoder's reconstruction of its winner.
# In the page: the network's input of the reading the reading panel shows.
SHOWN_IMAGE = "async () => Array.from((await STORE).shown.current().image)"

READ_IN_PAGE = """
async (drawings) => {
  const networks = await NETWORKS;
  const readings = [];
  for (const drawing of drawings) {
    const found = await networks.readDrawing(drawing);
    readings.push(found && {image: Array.from(found.image), lengths: found.lengths,
                            reconstruction: Array.from(found.reconstructions.winner),
                            routing: {lengths: found.routing.lengths, agreements: found.routing.agreements,
                                      winnerShares: Array.from(found.routing.winnerShares)}});
  }
  return readings;
}
"""


# In the page: the largest difference, in levels of 255, between the routing view's heatmaps drawn
# from each pair of numbers [the page's, the network's] at every r, all types and type 7, where both
# map the same winner's votes and outline the same strongest position ([worst, maps compared, maps
# not compared]): where two capsules or two positions are near a tie, float16 weights can pick the
# other, and the picture differs as a whole.
HEATMAPS_APART = """
async ({facts, pairs}) => {
  const view = await ROUTING_VIEW;
  const argmax = (values) => values.indexOf(Math.max(...values));
  let [worst, compared, tied] = [0, 0, 0];
  for (const [page, network] of pairs) {
    const typed = (n) => ({...n, image: Float32Array.from(n.image), winnerShares: Float32Array.from(n.winnerShares)});
    const numbers = [typed(page), typed(network)];
    for (let k = 0; k < numbers[0].lengths.length; k++) {
      for (const type of [-1, 7]) {
        const heats = numbers.map((n) => view.voteHeat(facts, n.winnerShares, k, type));
        const winners = numbers.map((n) => argmax(n.lengths[k]));
        if (winners[0] !== winners[1] || argmax(heats[0]) !== argmax(heats[1])) {
          tied += 1;
          continue;
        }
        compared += 1;
        const [a, b] = numbers.map((n, which) => view.heatmapPixels(facts, n.image, heats[which]));
        for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
      }
    }
  }
  return [worst, compared, tied];
}
"""


@pytest.fixture
def page(browser):
    page = playground_page(browser)
    yield page
    page.context.close()


def with_reader(page, url: str) -> PadDriver:
    """The page loaded, its network with it, and its decoder, which comes on a person's first touch."""
    page.goto(url)
    wait_for_networks(page)
    touched(page)
    wait_for_networks(page, "decoder")
    return PadDriver(page)


def as_drawn(stroke: list[float]) -> list[float]:
    """A stroke's points as the pad keeps them: tenths of a pad unit."""
    return [round(x, 1) for x in stroke]


def drawings(data_dir) -> list[dict]:
    """Pad values: each digit in two boxes in the hand-like strokes and in strokes traced from
    Semeion's writers (where the data is), the MNIST examples alone and with a stroke over them, a
    dot and a digit smaller than MNIST's 20-pixel box."""
    rng = np.random.default_rng(61)
    values = [
        pad_value([as_drawn(s) for s in strokes(digit, *random_box(rng, drawing_pad.SIDE))])
        for digit in range(10)
        for _ in range(2)
    ]
    semeion = stroke_source("semeion", data_dir)
    values += [
        pad_value([as_drawn(s) for s in semeion.strokes(digit, rng, random_box(rng, drawing_pad.SIDE))])
        for digit in range(10)
        for _ in range(2)
    ]
    for number, path in enumerate(EXAMPLES):
        background = base64.b64encode(example_ink(path)[1].astype(np.uint8).tobytes()).decode()
        values.append(pad_value([], background=background))
        if number < 3:
            values.append(pad_value([as_drawn(strokes(1, 100, 40, 60, 200)[0])], background=background))
    values += [pad_value([[140, 140]]), pad_value([as_drawn(s) for s in strokes(7, 120, 120, 12, 14)])]
    return values


def in_page_form(value: dict) -> dict:
    """A pad value as the pad offers it to the reader."""
    background = value["background"]
    return {
        "strokes": [[float(x) for x in stroke.split()] for stroke in value["strokes"]],
        "background": None if background is None else list(base64.b64decode(background)),
        "revision": value["revision"],
        "drawing": value["drawing"],
    }


def apart(a: np.ndarray, b: np.ndarray) -> int:
    """The largest difference of two pictures of ink in [0, 1], in grey levels of 255 as shown."""
    return grey_levels_apart(views.paper(a), views.paper(b))


def routing_of(reading) -> dict:
    """The routing view's numbers of a reading of the network's, as the page's worker makes them."""
    trace = reading.trace
    shares = trace.couplings * trace.u_hat.norm(dim=-1)  # c_ij |u_hat_j|i|, [R, 1152, 10]
    winner_shares = shares[torch.arange(len(shares)), :, trace.predictions]  # [R, 1152]
    return {
        "lengths": trace.lengths.tolist(),
        "agreements": agreement(trace.u_hat, trace.capsules, trace.couplings).tolist(),
        "winnerShares": winner_shares.flatten().tolist(),
    }


def test_the_page_reads_every_drawing_as_the_network_reads_its_28x28(app, url, page, data_dir, page_weights):
    with_reader(page, url)
    values = drawings(data_dir)
    readings = page.evaluate(READ_IN_PAGE.replace("NETWORKS", page_networks(page)), [in_page_form(v) for v in values])
    assert sum(in_page is None for in_page in readings) <= 1  # the dot, at most: too little ink
    worst = {"length": 0.0, "reconstruction": 0, "routed length": 0.0, "agreement": 0.0, "heatmap": 0}
    heatmaps = []  # [the page's routing numbers, the network's], for each drawing read
    for in_page in filter(None, readings):
        image = np.reshape(in_page["image"], (28, 28)).astype(np.float32)  # the page's 28x28 of the drawing
        assert 0 <= image.min() and image.max() <= 1
        network = read(app.READING.network, image)
        assert int(np.argmax(in_page["lengths"])) == network.winner
        worst["length"] = max(worst["length"], float(np.abs(np.array(in_page["lengths"]) - network.lengths).max()))
        worst["reconstruction"] = max(
            worst["reconstruction"],
            apart(np.reshape(in_page["reconstruction"], (28, 28)), network.reconstruction(network.winner).numpy()),
        )
        numbers = routing_of(network)
        for key, name in (("lengths", "routed length"), ("agreements", "agreement")):
            worst[name] = max(worst[name], float(np.abs(np.array(in_page["routing"][key]) - numbers[key]).max()))
        for own, lengths in zip(in_page["routing"]["lengths"], numbers["lengths"], strict=True):
            second, first = sorted(lengths)[-2:]
            assert np.argmax(own) == np.argmax(lengths) or first - second < LENGTH  # the same winner at every r
        heatmaps.append([{**in_page["routing"], "image": in_page["image"]}, {**numbers, "image": in_page["image"]}])
    # the routing view's heatmap at every r, over all the types and over one, drawn by the page's
    # renderer from the page's numbers and from the network's
    routing = {"facts": facts(app.NETWORKS.capsnet.config), "pairs": heatmaps}
    worst["heatmap"], compared, tied = page.evaluate(
        HEATMAPS_APART.replace("ROUTING_VIEW", page_module("routing_view.js")), routing
    )
    print(f"heatmaps compared: {compared}, near a tie and not compared: {tied}")
    assert tied <= compared / 20
    print(f"{len(values)} drawings, the page against the network at worst: {worst}")
    assert worst["reconstruction"] <= GREY_LEVELS and worst["heatmap"] <= GREY_LEVELS, worst
    assert max(worst["length"], worst["routed length"], worst["agreement"]) <= LENGTH, worst


def panel_pictures(page) -> dict[str, np.ndarray]:
    """The reading panel's pictures: what the network sees, the reconstruction, the runner-up's."""
    return {
        name: grey_picture(source)
        for name, source in PICTURES.findall(
            page.locator("#reading-panel .panel").evaluate("(panel) => panel.outerHTML")
        )
    }


def test_the_head_asks_for_the_reader_s_files_and_the_decoder_waits_for_a_touch(app, url, page):
    """A first visit: the page's head asks for ONNX Runtime Web's files and the capsules and
    routing graphs (fetched_early.js) before the reader's worker starts, and the worker reads them
    from the browser's cache: each crosses the wire once. The decoder's graph is not fetched while
    the person only looks; their first touch brings it, once."""
    asked, sizes = [], {}  # the addresses in the order asked, workers' included; each one's bodies as sent
    page.context.on("request", lambda request: asked.append(request.url))
    page.context.on(
        "requestfinished",
        lambda request: sizes.setdefault(request.url, []).append(request.sizes()["responseBodySize"]),
    )
    page.goto(url)
    wait_for_networks(page)
    worker = next(i for i, address in enumerate(asked) if address.endswith("/network_worker.js"))
    for file in app.READING.reader_files():
        address = next(address for address in asked if address.endswith(f"/{file}"))
        assert asked.index(address) < worker, file
        assert asked.count(address) == 2 and sum(size > 0 for size in sizes[address]) == 1, (file, sizes[address])
    page.wait_for_timeout(2000)  # a person looking
    decoder = url.rstrip("/") + "/" + app.READING.decoder.url
    assert networks_state(page, "decoder") == "waiting" and decoder not in asked
    touched(page)
    wait_for_networks(page, "decoder")
    assert asked.count(decoder) == 1


def test_far_away_the_reader_s_files_go_out_beside_gradio_s_own(app, url, page):
    """A first visit 200 ms away, every byte delayed (harness/delaying_proxy.py): the browser holds
    six connections to the server, and the page's scripts queue for them a round trip at a time.
    The head's files go out among them, not after the last of them (as they did at a low priority,
    seconds later on a phone), so the link carries the graph while the page lays itself out."""
    asked, went = [], {}  # the addresses in the order asked; when each first went out, ms
    page.on("request", lambda request: asked.append((request.url, request.resource_type)))

    def went_out(request) -> None:
        timing = request.timing
        went.setdefault(request.url, timing["startTime"] + timing["requestStart"])

    page.on("requestfinished", went_out)
    with delaying_proxy(urlsplit(url).port, 200) as port:
        page.goto(f"http://{LOOPBACK}:{port}/")
        wait_for_networks(page)
    worker = next(i for i, (address, _) in enumerate(asked) if address.endswith("/network_worker.js"))
    scripts = [address for address, kind in asked[:worker] if kind == "script"]
    graph = next(address for address, _ in asked if address.endswith(f"/{app.READING.page_network.url}"))
    last_script = max(went[address] for address in scripts)
    assert went[graph] < last_script - 200, (went[graph], last_script)


def test_a_stroke_is_read_in_the_page_and_never_sent(app, url, page):
    """While the pen is down the panel follows with no request; once it lifts, the page's settled
    panel shows the pictures it showed of the same strokes, and still nothing is sent."""
    person = with_reader(page, url)
    box = person.canvas_box()
    scale = box["width"] / drawing_pad.SIDE
    three = np.array(strokes(3, 60, 40, 160, 200)[0]).reshape(-1, 2) * scale + [box["x"], box["y"]]
    person._pointer("down", *three[0])
    for x, y in three[1::3]:
        person._pointer("move", x, y)
        page.wait_for_timeout(16)
    page.wait_for_function(
        "([pad, panel]) => document.querySelector(panel)?.dataset.revision === "
        "document.querySelector(`${pad} canvas`).closest('.pad').parentElement.dataset.revision",
        arg=[person.pad, person.panel],
    )  # the last move's reading is shown
    assert person.drawing()["readings"] >= 2 and person.reading() == "3"
    shown_while_drawing = panel_pictures(page)
    assert page.sent == []  # nothing of the stroke went to the server
    assert page.locator("#reading-panel .panel[data-settled]").count() == 0
    person._pointer("up", *three[-1])
    page.wait_for_selector("#reading-panel .panel[data-settled]", state="attached")
    page.wait_for_timeout(500)  # time for a request, were one sent
    assert page.sent == [] and person.reading() == "3"
    settled = panel_pictures(page)
    assert settled.keys() == shown_while_drawing.keys() == {"input", "reconstruction", "runner-up"}
    for name, picture in settled.items():
        assert np.abs(picture.astype(int) - shown_while_drawing[name].astype(int)).max() <= GREY_LEVELS, name


# In the page: the Turn-it section's words, the turn panel's digit and the sweep's reading.
TURN_IT_SHOWS = """() => [
  document.querySelector('#turn-panel .verdict.capsnet b')?.textContent
    ?? document.querySelector('#turn-panel').innerText,
  document.querySelector('#turn-sweep .sweep')?.dataset.reading,
]"""


def test_using_the_mnist_sections_sends_nothing(app, url, page):
    """Tap an example, draw over it, Clear, draw a digit, tap another example, Decode as another
    digit, drag a slider, change the routing iterations, turn the digit in Turn it, Clear again:
    every panel follows, and not one request is sent. A new drawing puts Decode as back on the
    winner, as the server's reading of it did."""
    person = with_reader(page, url)
    winner = f"#decode-as input[value='{WINNER}']"
    page.locator("#pad button.example").nth(2).click()
    page.wait_for_function("() => document.querySelector('#reading-panel .digit').textContent === '2'")
    person.draw(strokes(7, 60, 40, 160, 200))  # over the example
    person.clear()
    person.draw(strokes(3, 60, 40, 160, 200))
    assert person.reading() == "3" and page.locator("#routing").inner_text().count("winner 3:") == 1
    page.locator("#pad button.example").nth(6).click()
    page.wait_for_function("() => document.querySelector('#reading-panel .digit').textContent === '6'")
    figure4_row = "(label) => document.querySelector('#figure4 th[scope=row]')?.textContent === label"
    page.wait_for_function(figure4_row, arg=app.CAPSULE_DIMENSIONS.rows(6, "paper")[0]["label"])
    page.locator("#decode-as label").filter(has_text="8").click()
    page.wait_for_function(
        "() => document.querySelector('#reading-panel .reconstruction figcaption').textContent.endsWith('8')"
    )
    page.wait_for_function(figure4_row, arg=app.CAPSULE_DIMENSIONS.rows(8, "paper")[0]["label"])
    slider = page.locator("#sliders input[type=range]").first
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.locator("#routing input.iterations").fill("1")
    page.locator("#pad button.example").nth(4).click()  # a new drawing: decoded as its winner again
    page.wait_for_function("(winner) => document.querySelector(winner).checked", arg=winner)
    assert page.locator("#reading-panel .reconstruction figcaption").inner_text().endswith("4")
    TurnDriver(page).shown("4")  # the turn panel and the sweep of the 4, made in the page
    assert page.evaluate(TURN_IT_SHOWS) == ["4", person.revisions()[0]]
    page.locator("#pad").scroll_into_view_if_needed()
    person.clear()
    page.locator("#turn-it").scroll_into_view_if_needed()
    page.wait_for_function(f"() => ({TURN_IT_SHOWS})()[1] === ''")
    assert "Draw a digit above" in page.evaluate(TURN_IT_SHOWS)[0]
    page.wait_for_timeout(500)  # time for a request, were one sent
    assert page.sent == []
    no_alarm(page)


def strips_of(images: np.ndarray) -> list[np.ndarray]:
    """Each row of ``images`` ([D, S, 28, 28] ink) as Figure 4 draws it: the S pictures side by side
    a faint pixel (GAP_INK) apart, black ink on white paper."""
    rows, columns, side, _ = images.shape
    strip = np.full((rows, side, columns, side + 1), GAP_INK, dtype=np.float32)
    strip[..., :side] = images.transpose(0, 2, 1, 3)  # [D, 28, S, 28]
    return list(views.paper(strip.reshape(rows, side, columns * (side + 1))[..., :-1]))


def test_figure4_is_swept_in_the_page_as_the_network_sweeps_its_capsule(app, url, page, page_weights):
    """An example tapped: Figure 4 drawn from the page's 176 decoder runs, with no request, has the
    sliders' rows, and every strip within 2 grey levels of the network's sweep of the page's
    reading; Decode as another digit sweeps that capsule."""
    with_reader(page, url)
    round_trip(page, SLOW_ROUND_TRIP_MS)
    digit = example_ink(EXAMPLES[5])[0]
    page.locator("#pad button.example").nth(5).click()
    page.wait_for_function("() => document.querySelector('#reading-panel .panel[data-settled] .digit')")
    image = np.reshape(page.evaluate(SHOWN_IMAGE.replace("STORE", page_module("reading_store.js"))), (28, 28))
    reading = read(app.READING.network, image.astype(np.float32))
    for decode_as in (WINNER, str((digit + 1) % 10)):
        if decode_as != WINNER:
            page.locator(f'input[type=radio][value="{decode_as}"]:not(#pair-decode-as input)').click()
        decoded = reading.decoded_digit(decode_as)
        rows = app.CAPSULE_DIMENSIONS.rows(decoded, "paper")
        page.wait_for_function(
            "(label) => document.querySelector('#figure4 th[scope=row]')?.textContent === label", arg=rows[0]["label"]
        )
        page.evaluate(f"async () => (await {page_module('figure4_view.js')}).drawn()")
        shown = page.locator("#figure4 tr:has(th[scope=row])")
        assert [row.inner_text().strip() for row in shown.locator("th").all()] == [r["label"] for r in rows]
        limits = torch.tensor([r["limit"] for r in sorted(rows, key=lambda r: r["dimension"])])
        with torch.inference_mode():
            swept = sweep_reconstructions(
                reading.network, reading.capsules, decoded, limits[:, None] * SWEEP / SWEEP[-1]
            )
        expected = strips_of(swept.numpy()[[r["dimension"] for r in rows]])
        strips = [
            grey_picture(src) for src in shown.locator("img").evaluate_all("(images) => images.map((i) => i.src)")
        ]
        worst = max(grey_levels_apart(a, b) for a, b in zip(strips, expected, strict=True))
        assert worst <= GREY_LEVELS, (decode_as, worst)
    assert page.sent == []


@pytest.mark.parametrize("missing", ["WebAssembly", "Worker", "the graph"])
def test_where_the_page_cannot_read_the_server_answers_its_questions(app, url, page, missing):
    if missing in ("WebAssembly", "Worker"):
        page.add_init_script(f"delete window.{missing}")
    else:
        page.route("**/network/*.onnx", lambda route: route.fulfill(status=404))
    page.goto(url)
    person = PadDriver(page)
    page.wait_for_function("() => document.readyState === 'complete'")
    page.wait_for_timeout(3000)  # time enough to load what can be
    assert networks_state(page) == "unavailable"
    person.draw(strokes(4, 60, 40, 160, 200))
    assert person.reading() == "4" and person.drawing()["readings"] >= 1
    assert any("/ask/read" in sent for sent in page.sent)
    # the routing view, drawn from the server's numbers by the page's renderer, and redrawn with no request
    page.wait_for_function("() => document.querySelector('#routing').textContent.includes('winner 4:')")
    # Turn it, near the screen once the routing controls are, asks the server for its sweep (the page
    # cannot): let it, so that what follows counts the routing view's requests alone.
    page.locator("#routing input.capsule-type").scroll_into_view_if_needed()
    settled(page)
    sent = len(page.sent)
    heatmap = "() => document.querySelector('#routing canvas.heatmap').toDataURL()"
    all_types = page.evaluate(heatmap)
    page.locator("#routing input.capsule-type").fill("7")
    page.wait_for_function("() => document.querySelector('#routing').textContent.includes('capsule type 7 only')")
    assert page.evaluate(heatmap) != all_types and len(page.sent) == sent
    assert page.locator("#figure4 th[scope=row]").count() == 16  # from the server's sweep
    no_alarm(page)
    assert sum("The server answers in the page's place" in text for kind, text in page.messages if kind == "info") == 1
