"""People using the playground's page at once, as light HTTP clients that speak to it as the page
does (harness/page_protocol.py): the load of bench/app_load.py and tests/test_app_load.py.

Each person asks what the page asks of the server where it cannot compute (POST /ask/KIND,
playground/answers.py; page_networks.js decides), at a person's pace: opens the page once, fetching
what a browser's first visit fetches before any scroll (`Page.first_visit`, recorded with Chromium
by harness/page_visit.py: the page, Gradio's frontend, the page's modules, its graphs and ONNX
Runtime Web), as a browser asks for them (the page, then the rest six at a time, taking gzip, brotli
and zstd), each file's bytes counted as sent; draws a digit stroke by stroke (a page that reads
drawings itself asks nothing, `Page.network`; one without asks a reading of the 28x28 it makes
of the pad every LIVE_SECONDS while a stroke is drawn, the next only once the last is answered, and
at pen-up the routed one, then Figure 4 where it has no decoder); then drags a slider in a few
steps, which the page's decoder redraws with no request (a page without one asks each step's
picture); after one digit in TURN_SHARE scrolls down to Turn it (the first time fetching what a
browser then fetches, `Page.scrolled`: Turn it's graphs) and drags the rotation slider in a few
steps (a page with those graphs turns and sweeps the digit itself; one without asks the server for
the panel, each angle of the rotation sweep and each move); looks at the result for PAUSE_SECONDS,
presses Clear (which asks nothing). PAIR_SHARE of the people then scroll down to Two digits (past
Turn it, fetching its files the first time) and draw a pair on its pad of two pens: a digit with pen
1, then another digit with pen 2 moved over it, stroke by stroke as on the first pad, a page without
the pairs networks asking a reading of the fields it makes of them at every step; in DECODE_SHARE of
the pairs they change Decode as; they look, press that pad's Clear, and draw another digit. The
28x28s are made as the page makes them: the strokes inked, then made MNIST digits (`image_of`,
`fields_of`). Every answer is checked (harness/page_answer_checks.py): the reading of the very image
the person's page sent (so no person gets another's), of the drawn digit once the digit is finished,
with its routing at pen-up; Figure 4's pictures; each slider move's picture; Turn it's turns of the
drawn digit; the pair panel of the very fields sent, both pens' ink in the networks' input once both
digits are drawn, with the capsule Decode as names redrawn where it is not one of the two; a reading
asked while a stroke is drawn may instead be let go by a crowded server (204), recorded as such.
Each person's `Browser` keeps the page open and the files fetched once for the next use of the page;
a fresh one opens it afresh. All the people run as asyncio tasks in one process, each with an httpx
client of their own.
"""

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass

import httpx
import numpy as np

from capsnet.data.preprocess import ink_to_mnist, overlaid_inks_to_mnist
from capsnet.shipping.onnx_file import CHANGE
from harness.digit_strokes import inked
from harness.page_answer_checks import (
    decoded_problem,
    figure4_problem,
    pair_problem,
    picture_problem,
    reading_problem,
    turn_problem,
)
from harness.page_protocol import Exchange, Page, PageClient
from playground import two_digits
from playground.drawing_pad import SIDE
from playground.turn_it import SWEEP_ANGLES
from playground.two_digits_pad import PENS

STROKE_SECONDS = 0.6  # a stroke takes this long to draw ...
LIVE_SECONDS = 0.1  # ... and the pad sends it at most this often (drawing_pad.LIVE_MS)
BETWEEN_STROKES_SECONDS = 0.3  # pen lifted between the strokes of a 4
SLIDER_STEPS = 4  # a drag of one slider sends this many moves ...
STEP_SECONDS = 0.1  # ... at most this often, the next once the last is answered
TURN_SHARE = 0.5  # of the digits drawn, those also turned in the Turn-it section
PAUSE_SECONDS = 2.0  # looking at the result before Clear and the next digit
PAIR_SHARE = 0.5  # of the people, those who also draw a pair in Two digits after each digit
PAIR_OFFSET = 40.0  # pad units: the second digit's centre within this of the first's, each axis
# (4 of the pad's 28 pixels: MultiMNIST shifts each digit by up to 4)
DECODE_SHARE = 0.5  # of the pairs drawn, those after which Decode as is changed
FIGURE4_STEPS = 11  # Figure 4's offsets a dimension, as the page asks them
BOTH_NETWORKS = ["capsules", "probabilities"]  # what Turn it reads each turn with
HTTP_TIMEOUT = 60.0  # seconds for one request; longer is recorded as an error
# An idle connection is used again for at most this long. The server (uvicorn) closes one after 5 s
# idle, as httpx's own default does: a request sent on it as it closes fails with a ReadError,
# where a browser would send it again on a new connection (Chromium resends a request that fails
# on a connection it reused). So the clients let connections go first, as a browser's retry would.
KEEPALIVE_SECONDS = 2.0


def overlaid(first: list[list[float]], second: list[list[float]], rng: np.random.Generator) -> list[list[float]]:
    """``second``'s strokes moved over ``first``'s: the centre of its box within PAIR_OFFSET of the
    first's on each axis, the whole of it on the pad."""
    a, b = (np.concatenate([np.reshape(stroke, (-1, 2)) for stroke in strokes]) for strokes in (first, second))
    shift = (a.min(0) + a.max(0) - b.min(0) - b.max(0)) / 2 + rng.uniform(-PAIR_OFFSET, PAIR_OFFSET, 2)
    shift = np.clip(shift, -b.min(0), SIDE - b.max(0))  # (x, y)
    return [np.round(np.reshape(stroke, (-1, 2)) + shift, 1).ravel().tolist() for stroke in second]


async def drawn(strokes: list[list[float]]) -> AsyncIterator[tuple[list[list[float]], float | None]]:
    """What a pad sends while a person draws ``strokes`` one by one, as (strokes so far, pen_up):
    while a stroke is drawn, at most every LIVE_SECONDS and only once the last was answered (the
    caller sends each before taking the next), pen_up None; at each stroke's end, the time the pen
    was lifted."""
    done = []
    for k, stroke in enumerate(strokes):
        pen_down = time.perf_counter()
        pen_up, next_send = pen_down + STROKE_SECONDS, pen_down + LIVE_SECONDS
        while True:
            await asyncio.sleep(max(0.0, min(next_send, pen_up) - time.perf_counter()))
            now = time.perf_counter()
            if now >= pen_up:
                break
            points = max(1, round(len(stroke) // 2 * (now - pen_down) / STROKE_SECONDS))
            yield done + [stroke[: 2 * points]], None
            next_send = now + LIVE_SECONDS
        done.append(stroke)
        yield done, pen_up
        if k < len(strokes) - 1:
            await asyncio.sleep(max(0.0, pen_up + BETWEEN_STROKES_SECONDS - time.perf_counter()))


@dataclass
class Browser:
    """What a person's browser keeps from one use of the page to the next: the page open, and the
    files it fetched once and then has cached (served immutable)."""

    opened: bool = False  # the page and the files of a first visit (`Page.first_visit`)
    scrolled: bool = False  # those fetched once scrolled down (`Page.scrolled`: Turn it's graphs)


def image_of(strokes: list[list[float]]) -> np.ndarray | None:
    """The 28x28 the page makes of the digit pad's ``strokes`` and asks the server to read, float32
    [784] in [0, 1]: the strokes inked, then made an MNIST digit (inks.js and ink_to_mnist.js, whose
    Python the server's tests check them against); None for too little ink (nothing is asked)."""
    image = ink_to_mnist(inked(strokes)[0])
    return None if image is None else image.ravel()


def fields_of(strokes: list[list[float]], pens: str) -> np.ndarray | None:
    """The pairs networks' input and each pen's ink that the page makes of the Two-digits pad's
    ``strokes`` (each stroke's pen in ``pens``) and sends with a pair question, float32 [3, 784]
    (two_digits_reading.js `pairFields`); None for too little ink."""
    inks = inked(strokes, [int(pen) for pen in pens[: len(strokes)]], len(PENS))
    fields = overlaid_inks_to_mnist(inks)
    return None if fields is None else fields.reshape(len(fields), -1)


class Person(PageClient):
    """One person at the page (person ``index``: the same choices in every run), what the page
    holds of their drawings: the 28x28 of the digit pad and its last reading, the last pair read."""

    def __init__(
        self, client: httpx.AsyncClient, page: Page, index: int, seed: int, draws_pairs: bool, browser: Browser
    ):
        super().__init__(client, index)
        self.page, self.draws_pairs, self.browser = page, draws_pairs, browser
        self.rng = np.random.default_rng((seed, index))
        self.pair_decode_as = two_digits.TWO_READ
        self.image: np.ndarray | None = None  # the digit pad's 28x28, as the page made it
        self.reading: dict | None = None  # the server's reading of the finished strokes
        self.pair: dict | None = None  # the server's reading of the Two-digits pad
        self.finished = 0  # strokes finished on the digit pad and read, by the server or the page

    async def draw(self, digit: int, strokes: list[list[float]]) -> None:
        """Draw ``strokes`` one by one: where the page cannot read them itself, a reading of each
        while it is drawn and the routed one at pen-up (then Figure 4, where the page has no
        decoder and the reading did not bring it), each of the 28x28 the page makes of the pad."""
        async for shown, pen_up in drawn(strokes):
            image = None if self.reads_here else image_of(shown)
            if pen_up is not None:
                self.finished += 1
            if image is None:  # the page reads it, or there is too little ink: nothing is asked
                continue
            if pen_up is None:
                question = {"image": image.tolist(), "routed": False}
                await self.ask("live", "read", question, reading_problem(image, None, routed=False))
                continue
            finished = digit if len(shown) == len(strokes) else None
            question = {"image": image.tolist(), "routed": True}
            self.image = image
            self.reading = await self.ask("final", "read", question, reading_problem(image, finished, True), pen_up)
            if self.reading is not None and self.page.decoder is None and not self.figure4_came:
                await self.ask(
                    "figure4",
                    "sweep",
                    {**self.capsule, "limits": self.limits, "steps": FIGURE4_STEPS},
                    figure4_problem(FIGURE4_STEPS),
                )

    @property
    def figure4_came(self) -> bool:
        """Whether the server's last reading brought Figure 4 as the page asks for it (answers.py
        `read`'s followUps): the page then asks nothing more."""
        follow_ups = self.reading.get("followUps")
        return (
            follow_ups is not None
            and follow_ups["steps"] == FIGURE4_STEPS
            and all(limit == follow_ups["limit"] for limit in self.limits)
        )

    @property
    def reads_here(self) -> bool:
        """Whether the page reads the digit pad's drawings itself and asks nothing of them."""
        return self.page.network is not None

    @property
    def capsule(self) -> dict:
        """The capsules of the last reading and its longest: what the decoder is asked of."""
        return {"capsules": self.reading["capsules"].tolist(), "digit": int(np.argmax(self.reading["lengths"]))}

    @property
    def limits(self) -> list[float]:
        """Each dimension's slider range, in dimension order."""
        return [row["limit"] for row in sorted(self.page.sliders["rows"], key=lambda row: row["dimension"])]

    async def read_pair(self, strokes: list[list[float]], pens: str, pen_up: float | None, two: bool) -> None:
        """The Two-digits pad's strokes (each one's pen in ``pens``) read: its fields asked of the
        server; the answer must be the pair panel of them (naming two digits where ``two``)."""
        fields = fields_of(strokes, pens)
        if fields is None:
            return
        decode_as = None if self.pair_decode_as == two_digits.TWO_READ else int(self.pair_decode_as)
        event = "pair-live" if pen_up is None else "pair-final"
        question = {"fields": fields.tolist(), "decodeAs": decode_as}
        self.pair = await self.ask(event, "pair", question, pair_problem(fields, decode_as, two), pen_up)

    async def draw_a_pair(self, drawings: list[tuple[int, list[list[float]]]]) -> None:
        """In Two digits: draw a digit with pen 1 and another one over it with pen 2, stroke by
        stroke; sometimes change Decode as; look; Clear: each read by the server, or nothing asked
        where the page reads the pairs itself (its graphs fetched when the person scrolled down).
        The page clears its pad itself."""
        await self.scroll_down()  # past Turn it
        first = drawings[self.rng.integers(len(drawings))]
        others = [drawing for drawing in drawings if drawing[0] != first[0]]
        second = overlaid(first[1], others[self.rng.integers(len(others))][1], self.rng)
        strokes, pens = first[1] + second, "0" * len(first[1]) + "1" * len(second)
        if self.page.reads_pairs_in_page:  # read, redrawn and cleared in the page: nothing is sent
            async for _ in drawn(strokes):
                pass
            await asyncio.sleep(PAUSE_SECONDS)
            return
        async for shown, pen_up in drawn(strokes):
            await self.read_pair(shown, pens, pen_up, two=pen_up is not None and len(shown) == len(strokes))
        if self.pair is not None and self.rng.random() < DECODE_SHARE:
            choices = [choice for choice in two_digits.DECODE_CHOICES if choice != self.pair_decode_as]
            self.pair_decode_as = choices[self.rng.integers(len(choices))]
            digit = None if self.pair_decode_as == two_digits.TWO_READ else int(self.pair_decode_as)
            read = [int(each) for each in self.pair["read"]]
            pair = {"capsules": self.pair["capsules"].tolist(), "read": read}
            await self.ask("pair-decode", "pairDecoded", {"pair": pair, "digit": digit}, decoded_problem(digit, read))
        await asyncio.sleep(PAUSE_SECONDS)
        self.pair = None  # Clear

    async def open_the_page(self) -> None:
        """Open the page, the first time: GET what a browser's first visit does, before any scroll."""
        if not self.browser.opened and self.page.first_visit:
            await self.load("visit", self.page.first_visit)
        self.browser.opened = True

    async def scroll_down(self) -> None:
        """Scroll down past Turn it, the first time: GET what a browser then fetches (its graphs)."""
        if not self.browser.scrolled and self.page.scrolled:
            await self.load("scrolled", self.page.scrolled)
        self.browser.scrolled = True

    async def move_a_slider(self) -> None:
        """Drag one slider to a random offset within its range, in SLIDER_STEPS moves: redrawn by
        the page's decoder, or where the page has none, each move's picture asked of the server."""
        if self.reading is None and not self.reads_here:
            return  # nothing read: the page's sliders stay disabled
        rows = self.page.sliders["rows"]
        row = rows[self.rng.integers(len(rows))]
        target = self.rng.uniform(-row["limit"], row["limit"])
        offsets = [0.0] * len(rows)
        for step in range(1, SLIDER_STEPS + 1):
            offsets[row["dimension"]] = round(target * step / SLIDER_STEPS, 3)
            sent = time.perf_counter()
            if self.page.decoder is None:
                await self.ask("slider", "decode", {**self.capsule, "offsets": offsets}, picture_problem)
            await asyncio.sleep(max(0.0, sent + STEP_SECONDS - time.perf_counter()))

    async def turn(self, digit: int) -> None:
        """Scroll down to Turn it and drag the rotation slider to a random angle in SLIDER_STEPS
        moves. A page with Turn it's graphs turns the digit and sweeps it itself (waiting for the
        graphs, which come the first time it scrolls down); one without asks the server to turn the
        drawn 28x28: the panel unturned, each angle of the rotation sweep, each move."""
        target = self.rng.uniform(-90, 90)  # drawn either way: the people choose alike
        await self.scroll_down()
        if self.page.turn_graphs or self.image is None:
            await asyncio.sleep(SLIDER_STEPS * STEP_SECONDS)
            return
        image = self.image.tolist()

        async def turned(event: str, rotation: float, problem: Callable[[dict], str | None]) -> None:
            change = [float({**self.page.transforms, "rotation": rotation}[name]) for name in CHANGE]
            await self.ask(event, "turn", {"image": image, "change": change, "networks": BOTH_NETWORKS}, problem)

        await turned("turn-refresh", 0.0, turn_problem(self.image, digit))
        for angle in SWEEP_ANGLES.tolist():
            await turned("turn-sweep", angle, turn_problem(self.image))
        for step in range(1, SLIDER_STEPS + 1):
            sent = time.perf_counter()
            await turned("turn", round(target * step / SLIDER_STEPS), turn_problem(self.image))
            await asyncio.sleep(max(0.0, sent + STEP_SECONDS - time.perf_counter()))

    def clear(self) -> None:
        """Clear: the page empties its pad and panel itself, asking nothing."""
        self.image = self.reading = None

    async def use(
        self, drawings: list[tuple[int, list[list[float]]]], start_delay: float, done: Callable[[int], bool]
    ) -> None:
        """Draw, look, drag a slider, sometimes turn the digit, look, Clear, and draw a pair in Two
        digits if this person does: again and again, drawings of ``drawings`` picked at random each
        time, until ``done(digits drawn so far)``."""
        await asyncio.sleep(start_delay)
        await self.open_the_page()
        digits = 0
        while not done(digits):
            digit, strokes = drawings[self.rng.integers(len(drawings))]
            await self.draw(digit, strokes)
            await self.move_a_slider()
            if self.rng.random() < TURN_SHARE:
                await self.turn(digit)
            await asyncio.sleep(PAUSE_SECONDS)
            self.clear()
            if self.draws_pairs:
                await self.draw_a_pair(drawings)
            digits += 1


def draws_pairs(index: int, pair_share: float) -> bool:
    """Whether person ``index`` draws pairs: people spread evenly, ``pair_share`` of any first k
    people (at a half, persons 1, 3, 5, ...)."""
    return int((index + 1) * pair_share) > int(index * pair_share)


async def _use_the_page(
    url: str,
    page: Page,
    people: int,
    drawings: list,
    seed: int,
    done: Callable[[int, int], bool],
    pair_share: float,
    browsers: list[Browser],
) -> list[Exchange]:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None, keepalive_expiry=KEEPALIVE_SECONDS)
    async with AsyncExitStack() as clients:
        crowd = []
        for index, browser in zip(range(people), browsers, strict=True):
            # a client of their own, as a browser has its own connections (one client shared by
            # hundreds costs its pool a scan of every connection at every request)
            client = httpx.AsyncClient(base_url=f"{url}gradio_api/", timeout=HTTP_TIMEOUT, limits=limits)
            pairs = page.pairs and draws_pairs(index, pair_share)  # the section has its networks
            crowd.append(Person(await clients.enter_async_context(client), page, index, seed, pairs, browser))

        def person_done(digits: int) -> bool:
            return done(digits, sum(person.finished for person in crowd))

        spread = STROKE_SECONDS + PAUSE_SECONDS  # people arrive over about one digit's time
        await asyncio.gather(*(person.use(drawings, person.rng.uniform(0, spread), person_done) for person in crowd))
    return [exchange for person in crowd for exchange in person.exchanges]


def use_the_page(
    url: str,
    page: Page,
    people: int,
    drawings: list[tuple[int, list[list[float]]]],
    done: Callable[[int, int], bool],
    seed: int = 0,
    pair_share: float = PAIR_SHARE,
    browsers: list[Browser] | None = None,
) -> list[Exchange]:
    """Every request of ``people`` people using the page served at ``url`` together.

    Args:
        url: the served app, e.g. "http://127.0.0.1:7860/".
        page: the app's events and controls (`Page.of(app)`).
        people: how many at once, each a session of its own: person k is always session "person-k".
        drawings: (digit, strokes) to draw, each person picking at random.
        done: ``done(digits, final_readings)``, asked by each person before each digit with the
            digits they have drawn and the strokes finished and read so far, by the server or by
            everyone's pages: True stops that person.
        seed: the people's choices (drawings, sliders, arrival) follow from it.
        pair_share: of the people, those who also draw a pair in Two digits after each digit
            (none where the page has no Two-digits pad).
        browsers: each person's browser, kept from an earlier use of the page (the files fetched
            then are not fetched again); None: everyone opens the page afresh.
    """
    browsers = browsers if browsers is not None else [Browser() for _ in range(people)]
    return asyncio.run(_use_the_page(url, page, people, drawings, seed, done, pair_share, browsers))
