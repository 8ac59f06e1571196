"""The app under load: people using the page at once, as the page talks to the server, each get
their own digit every time, and those who draw pairs in Two digits their pair read; each fetches
the page's files as a browser's first visit does (recorded in Chromium), every one answered and
compressed, and keeps them; 32 concurrent gradio_client sessions of 10 requests each get no error
and every answer right; and a slow request holds up no other."""

import asyncio
import dataclasses
import shutil
import tempfile
import threading
from collections import Counter, defaultdict
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from capsnet import load_model
from capsnet.shipping.onnx_file import capsules_graph, decoder_graph
from harness.app_server import free_port, serving_app
from harness.digit_strokes import random_box, strokes
from harness.page_crowd import PAIR_SHARE, SLIDER_STEPS, Browser, Person, draws_pairs, use_the_page
from harness.page_protocol import BROWSER_HEADERS, THE_PAGE, Page
from harness.page_visit import visited
from harness.paths import REPO
from playground import page_modules, serving
from playground.drawing_pad import SIDE
from playground.page_network import PageGraph
from playground.reading import ReadingSection
from playground.turn_it import SWEEP_ANGLES
from tests.support.concurrent_clients import WINNER, offset_sets, run_sessions, sketch
from tests.support.examples import EXAMPLES, example_pixels, label_of

pytestmark = pytest.mark.server

PEOPLE = 8  # at the page at once, each drawing DIGITS_EACH digits
DIGITS_EACH = 2
PAIR_PEOPLE = 4  # at the page at once, PAIR_SHARE of them drawing a pair after each of their
PAIR_DIGITS = 2  # digits (with seed 0, person 2 turns both: the second time with no refresh)
SESSIONS = 32
REQUESTS = 10  # per session: 2 /predict and 8 /perturb
# Files a browser takes compressed (a font, woff2, is compressed already), and the size on the wire,
# headers included, above which one must come so (compressed_assets.SMALLEST, 1 KB, and its headers)
COMPRESSED_TYPES = (
    "text/",
    "application/javascript",
    "application/json",
    "application/wasm",
    "application/octet-stream",
)
COMPRESSED_ABOVE = 2048
LOAD_TIMEOUT = 1800.0  # seconds for all 320 requests, on a 2-core machine busy training
CALL_TIMEOUT = 600.0  # seconds for one request in the slow-request test


@pytest.fixture(scope="module")
def weights(tmp_path_factory) -> Path:
    """A copy of weights/ taken once, so that the server and this process run the same network
    while a training run may be rewriting weights/."""
    snapshot = tmp_path_factory.mktemp("weights")
    for name in ("config.json", "model.safetensors"):
        shutil.copy2(REPO / "weights" / name, snapshot / name)
    return snapshot


@pytest.fixture(scope="module")
def drawings(app) -> list[tuple[int, list[list[float]]]]:
    """Each digit once, at a random size and place on the pad."""
    rng = np.random.default_rng(0)
    return [(digit, strokes(digit, *random_box(rng, SIDE))) for digit in range(app.NETWORKS.capsnet.config.num_classes)]


@pytest.fixture(scope="module")
def served(weights):
    """The URL of `python app.py` reading with the snapshot, one server for this module's tests."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("CAPSNET_WEIGHTS", str(weights))
        env.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        with serving_app(start_timeout=600) as url:
            yield url


@pytest.fixture(scope="module")
def page(app, served) -> Page:
    """The served page, with the files a first visit of it in Chromium fetches."""
    return visited(Page.of(app), served)


def answers_of(section: ReadingSection) -> dict[int, tuple]:
    """Per example index: ``section``'s /predict answer, its reconstruction, and the /perturb image
    for each offset set, computed in this process."""
    answers = {}
    for index, example in enumerate(EXAMPLES):
        answer, reconstruction, reading = section.predict(example_pixels(example))
        assert answer["digit"] == label_of(example)
        offsets = offset_sets(section.network.config.digit_capsule_dim)
        answers[index] = (answer, reconstruction, [section.perturb(reading, WINNER, *moved) for moved in offsets])
    return answers


@pytest.fixture(scope="module")
def expected(weights) -> dict[int, tuple]:
    """answers_of the Reading section over the snapshot, the network the served app reads with."""
    snapshot = load_model(weights)
    graph = PageGraph.of(capsules_graph(snapshot))  # the page's graphs play no part in the API's answers
    return answers_of(ReadingSection(snapshot, PageGraph.of(decoder_graph(snapshot)), graph, routing_graph=None))


def assert_same_picture(served: np.ndarray, computed: np.ndarray) -> None:
    """The served PNG is the in-process picture, up to one grey level of float rounding."""
    assert served.shape == computed.shape
    assert np.abs(served.astype(int) - computed.astype(int)).max() <= 1


def test_people_at_the_page_at_once_each_get_their_own_digit(app, served, drawings):
    """Every question of 8 people drawing, dragging a slider, turning the digit and clearing together
    is answered with what that person's page needs (harness/page_answer_checks.py checks each): the
    reading of the 28x28 their page made, of the drawn digit at the last stroke's end, with the
    routing view's numbers and Figure 4 at each pen-up (Figure 4 asked for again only where the
    sliders' range is not the one it came for); the decoder's picture of each slider
    move; Turn it's panel of their drawn digit, the rotation sweep angle by angle and each transform
    move. Their pages cannot run the decoder or the networks in the page, so they ask the server
    (POST /ask/KIND) all of it (the next test's pages can); Clear asks nothing. None of them draws
    pairs: the next test has people who do."""
    exchanges = use_the_page(
        served,
        dataclasses.replace(Page.of(app), decoder=None, network=None, turn_graphs=()),
        PEOPLE,
        drawings,
        lambda digits, _: digits >= DIGITS_EACH,
        pair_share=0.0,
    )

    assert [(exchange.event, exchange.error) for exchange in exchanges if exchange.error] == []
    events = Counter((exchange.person, exchange.event) for exchange in exchanges)
    for person in range(PEOPLE):
        read_live = events[person, "live"] + events[person, "let-go"]  # asked while drawn; a crowded server lets go
        assert events[person, "final"] >= DIGITS_EACH and read_live >= events[person, "final"]
        assert events[person, "figure4"] == 0  # each came with its reading
        assert events[person, "slider"] > 0
        refreshes = events[person, "turn-refresh"]  # an unturned panel, the sweep, then a drag
        assert events[person, "turn-sweep"] == len(SWEEP_ANGLES) * refreshes
        assert events[person, "turn"] == SLIDER_STEPS * refreshes
    assert sum(events[person, "turn-refresh"] for person in range(PEOPLE)) > 0


def test_people_drawing_pairs_too_get_each_pair_read(app, page, served, drawings):
    """4 people at a page that reads the pairs on the server (the page's fallback where it cannot
    read them itself) at once, two digits each, every other one drawing, after each digit, a
    pair in Two digits (a digit with pen 1, another moved over it with pen 2, stroke by stroke),
    sometimes changing Decode as, then pressing that pad's Clear: every answer is what their page
    needs, the pair panel of the fields their page made and sent, both pens' ink in the networks'
    input once both digits are drawn, the capsule Decode as names redrawn besides the two where it
    is not one of them; Clear asks nothing. Their
    pages fetch their files once (the decoder and the networks among them), and Turn it's graphs
    once scrolled down to it or past it to Two digits; they redraw the sliders' moves, read the
    digit pad's strokes, Clear it and turn the digit in Turn it, sending none of them nor any
    refresh: the page waits for Turn it's graphs."""
    if app.TWO_DIGITS.problem is not None:
        pytest.skip(f"the Two-digits section has no networks: {app.TWO_DIGITS.problem}")
    on_the_server = dataclasses.replace(page, reads_pairs_in_page=False)
    exchanges = use_the_page(served, on_the_server, PAIR_PEOPLE, drawings, lambda digits, _: digits >= PAIR_DIGITS)

    assert [(exchange.event, exchange.error) for exchange in exchanges if exchange.error] == []
    events = Counter((exchange.person, exchange.event) for exchange in exchanges)
    pair_people = [person for person in range(PAIR_PEOPLE) if draws_pairs(person, PAIR_SHARE)]
    assert len(pair_people) == PAIR_PEOPLE * PAIR_SHARE
    for person in range(PAIR_PEOPLE):
        pairs = int(person in pair_people)
        assert events[person, "visit"] == 1
        for event in ("final", "live", "figure4", "slider", "turn", "turn-refresh", "turn-sweep"):  # the page does them
            assert events[person, event] == 0, event
        assert events[person, "scrolled"] <= 1 and (events[person, "scrolled"] == 1 or not pairs)  # it turned, or
        # went down to Two digits
        assert events[person, "pair-final"] >= 2 * pairs * PAIR_DIGITS  # two digits, a stroke each at least
        assert events[person, "pair-live"] >= events[person, "pair-final"]
    assert sum(events[person, "pair-decode"] for person in pair_people) > 0  # with seed 0, someone does


def test_people_drawing_pairs_in_the_page_send_nothing_of_them(app, page, served, drawings):
    """The page as it ships reads the Two-digits pad itself: scrolled down to it, a person's browser
    fetches the pairs networks' graphs once, and their pairs, Decode as and Clear send nothing."""
    if app.TWO_DIGITS.problem is not None:
        pytest.skip(f"the Two-digits section has no networks: {app.TWO_DIGITS.problem}")
    graphs = app.TWO_DIGITS.graphs
    assert page.reads_pairs_in_page
    assert {graph.url for graph in (graphs.capsules, graphs.decoder, graphs.sigmoids)} <= set(page.scrolled)
    exchanges = use_the_page(served, page, PAIR_PEOPLE, drawings, lambda digits, _: digits >= PAIR_DIGITS)

    assert [(exchange.event, exchange.error) for exchange in exchanges if exchange.error] == []
    assert [exchange.event for exchange in exchanges if exchange.event.startswith("pair")] == []
    events = Counter((exchange.person, exchange.event) for exchange in exchanges)
    for person in range(PAIR_PEOPLE):
        assert events[person, "scrolled"] == 1 or not draws_pairs(person, PAIR_SHARE)  # down to Two digits


def test_a_person_fetches_the_page_s_files_as_a_browser_does(page, served):
    """A first visit in Chromium GETs the page, Gradio's frontend, the page's modules, the graphs
    and ONNX Runtime Web before any scroll, and Turn it's graphs once scrolled down. A person
    opening the page and scrolling down GETs each of them once, in that order, each answered 200
    and, where it is worth it, compressed (the WebAssembly in brotli, which the person takes), its
    bytes counted as sent; opening and scrolling again fetches nothing: the browser keeps them."""
    assert page.first_visit[0] == THE_PAGE and any(address.startswith("assets/") for address in page.first_visit)
    assert f"{page_modules.URL}/drawing_pad.js" in page.first_visit
    assert {page.decoder, page.network, *page.routing, *page.runtime} <= set(page.first_visit)
    assert set(page.turn_graphs) <= set(page.scrolled) and not set(page.scrolled) & set(page.first_visit)

    async def open_and_scroll_twice() -> list:
        async with httpx.AsyncClient(base_url=f"{served}gradio_api/", timeout=120) as client:
            person = Person(client, page, 0, 0, False, Browser())
            for _ in range(2):
                await person.open_the_page()
                await person.scroll_down()
        return person.exchanges

    visit, scrolled = asyncio.run(open_and_scroll_twice())
    assert (visit.event, visit.error, scrolled.event, scrolled.error) == ("visit", None, "scrolled", None)
    assert [file.address for file in visit.fetched] == list(page.first_visit)
    assert [file.address for file in scrolled.fetched] == list(page.scrolled)
    files = visit.fetched + scrolled.fetched
    assert {file.status for file in files} == {200}
    worth_it = [file for file in files if file.media_type.startswith(COMPRESSED_TYPES) and file.size > COMPRESSED_ABOVE]
    assert [file for file in worth_it if file.encoding not in {"gzip", "br"}] == []
    assert [file.encoding for file in files if file.address.endswith(".wasm")] == ["br"]
    with httpx.stream("GET", f"{served}{page.network}", headers=BROWSER_HEADERS, timeout=120) as answer:
        sent = sum(len(chunk) for chunk in answer.iter_raw())  # the graph as sent, gzipped
    (counted,) = [file.size for file in files if file.address == page.network]
    assert 0 < counted - sent < 1000  # and its status line and headers


def test_people_coming_back_fetch_none_of_the_pages_files_again(page, served, drawings):
    """Each person's browser keeps what the page fetched once (its files are served immutable): the
    same people (the same seed: the same choices) using the page again with the same browsers fetch
    nothing, and ask the server for nothing but their files: the page reads, redraws and turns."""
    browsers = [Browser() for _ in range(2)]
    uses = [
        use_the_page(served, page, 2, drawings, lambda digits, _: digits >= 2, pair_share=0.0, browsers=browsers)
        for _ in range(2)
    ]
    first, again = (Counter(exchange.event for exchange in exchanges) for exchanges in uses)
    assert first["visit"] == 2 and all(browser.opened for browser in browsers)
    assert first["scrolled"] > 0  # someone turned, fetching the graphs
    assert sum(first.values()) == first["visit"] + first["scrolled"]
    assert sum(again.values()) == 0


def test_32_concurrent_sessions_get_every_answer_right(served, expected, tmp_path):
    calls = run_sessions(served, SESSIONS, REQUESTS, tmp_path, timeout=LOAD_TIMEOUT)

    assert [call.error for call in calls if call.error] == []
    assert len(calls) == SESSIONS * REQUESTS
    assert Counter(call.session for call in calls) == {session: REQUESTS for session in range(SESSIONS)}
    endpoints = Counter(call.endpoint for call in calls)
    assert endpoints["/predict"] >= SESSIONS and endpoints["/perturb"] > endpoints["/predict"]

    served = defaultdict(list)  # the same request always gets the same answer, in every session
    for call in calls:
        answer, reconstruction, perturbed = expected[call.example]
        if call.endpoint == "/predict":
            reading, image = call.answer
            assert reading["digit"] == answer["digit"] == label_of(EXAMPLES[call.example])
            np.testing.assert_allclose(reading["lengths"], answer["lengths"], atol=2e-4)
            assert_same_picture(image, reconstruction)
            served[call.example].append((reading, image))
        else:
            assert_same_picture(call.answer, perturbed[call.offsets])
            served[call.example, call.offsets].append(call.answer)
    for key, answers in served.items():
        for answer in answers[1:]:
            if isinstance(key, int):
                assert answer[0] == answers[0][0], EXAMPLES[key].name
                np.testing.assert_array_equal(answer[1], answers[0][1])
            else:
                np.testing.assert_array_equal(answer, answers[0])


SLOW = 2  # predictions held back in the slow-request test


def test_a_slow_prediction_holds_up_no_other_request(app, monkeypatch, tmp_path):
    """Two predictions are held inside the network; meanwhile a slider move and another
    prediction, from other sessions, are answered. (The queue gives each event function its own
    concurrency group, several requests at a time.)"""
    from gradio_client import Client

    predict_event = next(fn for fn in app.demo.fns.values() if fn.api_name == "predict")
    read = predict_event.fn
    holding, release = threading.Event(), threading.Event()
    held, entered, lock = [0], threading.Semaphore(0), threading.Lock()

    def slow_predict(sketch_value):
        with lock:
            hold = holding.is_set() and held[0] < SLOW
            held[0] += hold
        if hold:
            entered.release()
            release.wait(timeout=CALL_TIMEOUT)
        return read(sketch_value)

    monkeypatch.setattr(predict_event, "fn", slow_predict)
    offsets = offset_sets(app.NETWORKS.capsnet.config.digit_capsule_dim)[1]
    expected_move = app.READING.perturb(app.READING.predict(example_pixels(EXAMPLES[0]))[2], WINNER, *offsets)
    monkeypatch.setattr(app.demo, "analytics_enabled", False)
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    # where gradio_client leaves a folder for each file it downloads (harness/gradio_clients.py)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    port = free_port()
    app.demo.launch(
        server_name="127.0.0.1",
        server_port=port,
        prevent_thread_lock=True,
        quiet=True,
        max_file_size="10mb",
        max_threads=serving.MAX_THREADS,
    )
    clients = [
        Client(f"http://127.0.0.1:{port}/", verbose=False, analytics_enabled=False, download_files=tmp_path)
        for _ in range(SLOW + 2)
    ]
    try:
        slider_user, other_reader, *slow_readers = clients
        assert slider_user.predict(sketch(EXAMPLES[0]), api_name="/predict")[0]["digit"] == label_of(EXAMPLES[0])
        holding.set()
        slow = [client.submit(sketch(EXAMPLES[1]), api_name="/predict") for client in slow_readers]
        for _ in range(SLOW):
            assert entered.acquire(timeout=CALL_TIMEOUT), "the slow predictions never started"

        moved = slider_user.submit(WINNER, *offsets, api_name="/perturb")
        assert_same_picture(np.asarray(Image.open(moved.result(timeout=CALL_TIMEOUT))), expected_move)
        read_meanwhile = other_reader.submit(sketch(EXAMPLES[2]), api_name="/predict")
        assert read_meanwhile.result(timeout=CALL_TIMEOUT)[0]["digit"] == label_of(EXAMPLES[2])
        assert not any(job.done() for job in slow)

        release.set()
        for job in slow:
            assert job.result(timeout=CALL_TIMEOUT)[0]["digit"] == label_of(EXAMPLES[1])
    finally:
        release.set()
        for client in clients:
            client.close()
        app.demo.close()
