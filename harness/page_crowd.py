"""People using the playground's page at once, as light HTTP clients that speak to it as the page
does (harness/page_protocol.py): the load of bench/app_load.py and tests/test_app_load.py.

Each person sends what the page sends, one POST per event outside Gradio's queue, at a person's
pace: opens the page once, fetching what a browser's first visit fetches before any scroll
(`Page.first_visit`, recorded with Chromium by harness/page_visit.py: the page, Gradio's frontend,
the page's modules, its graphs and ONNX Runtime Web), as a browser asks for them (the page, then the
rest six at a time, taking gzip, brotli and zstd), each file's bytes counted as sent; draws a digit
stroke by stroke (a page that reads drawings itself sends nothing while a stroke is drawn, and
today's page nothing at all, `Page.reads_in_page`; one without, the pad's value every LIVE_SECONDS,
the next only once the last is answered; the whole stroke at pen-up, answered with its details:
Figure 4 and the routing view); then drags a slider in a few steps, which the page's decoder redraws
with no request (a page without one, as before the decoder was in the page, sends each step); after
one digit in TURN_SHARE scrolls down to Turn it (the first time fetching what a browser then
fetches, `Page.scrolled`: Turn it's graphs; its refresh: the turn panel and the rotation sweep) and
drags the rotation slider in a few steps (a page that turns the digit itself sends no move, nor,
once it has them, a refresh: it sweeps the digit itself; today's page waits for them rather than
ask); looks at the result for PAUSE_SECONDS, presses Clear (a reading of the empty pad, and its
details, where the server reads). PAIR_SHARE of the people then scroll down to Two digits (past Turn
it, fetching its files the first time) and draw a pair on its pad of two pens: a digit with pen 1,
then another digit with pen 2 moved over it, stroke by stroke as on the first pad; in DECODE_SHARE
of the pairs they change Decode as; they look, press that pad's Clear, and draw another digit. Every
answer is checked (harness/page_answer_checks.py): a reading panel for every reading, the drawn
digit once the digit is finished and while its sliders move, Figure 4 and the routing view in the
details, the turn panel of the move sent and the sweep of the drawn digit in Turn it, the pair panel
of the value sent for every pair reading (two digits once both are drawn) with the capsule Decode as
names redrawn where it is not one of the two; a reading asked while a stroke is drawn may instead be
let go by a crowded server (every output gr.skip(): the page leaves its panel), recorded as such.
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

from harness.digit_strokes import pad_value
from harness.page_answer_checks import (
    all_of,
    details_problem,
    empty_pair_problem,
    empty_problem,
    pair_problem,
    reading_problem,
    turn_problem,
)
from harness.page_protocol import Exchange, Page, PageClient, skipped
from playground import two_digits
from playground.drawing_pad import SIDE

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


class Person(PageClient):
    """One person at the page: a session of their own (person ``index``'s, the same in every run,
    so that people warmed up come back to their own session), the page's values as the page holds
    them."""

    def __init__(
        self, client: httpx.AsyncClient, page: Page, index: int, seed: int, draws_pairs: bool, browser: Browser
    ):
        super().__init__(client, index, f"person-{index}")
        self.page, self.draws_pairs, self.browser = page, draws_pairs, browser
        self.rng = np.random.default_rng((seed, index))
        self.revision = 0  # the pad counts the values it sends
        self.pair_revision = 0  # and so does the Two-digits pad
        self.pair_decode_as = two_digits.TWO_READ
        self.sliders = page.sliders  # the sliders' value on the page
        self.value = pad_value([], 0)  # the pad's value, which the server's fallbacks take too
        self.finished = 0  # strokes finished on the digit pad and read, by the server or the page

    async def send_drawing(
        self,
        event: str,
        strokes: list[list[float]],
        drawing: bool,
        problem: Callable[[list], str | None],
        since: float | None = None,
    ) -> list | None:
        self.revision += 1
        value = pad_value(strokes, self.revision, drawing=drawing)
        self.value = value
        if not drawing:  # a finished stroke: its details come with it
            problem = all_of(problem, details_problem(bool(strokes)))
        outputs = await self.send(event, self.page.read_drawing, self.page.drawing(value, self.sliders), problem, since)
        if outputs is not None and not drawing and not skipped(outputs[2]):  # gr.skip(): as they are
            self.sliders = outputs[2]
        return outputs

    async def draw(self, digit: int, strokes: list[list[float]]) -> None:
        """Draw ``strokes`` one by one: live readings while each is drawn, the final one at pen-up."""
        async for shown, pen_up in drawn(strokes):
            if pen_up is None:
                if self.page.network is None:  # else the page reads it: nothing is sent
                    await self.send_drawing("live", shown, True, reading_problem(None))
            elif self.reads_here:
                self.revision += 1
                self.value = pad_value(shown, self.revision)
                self.finished += 1
            else:
                finished = digit if len(shown) == len(strokes) else None
                await self.send_drawing("final", shown, False, reading_problem(finished), since=pen_up)
                self.finished += 1

    @property
    def reads_here(self) -> bool:
        """Whether the page reads the digit pad's drawings itself and sends nothing of them."""
        return self.page.reads_in_page and self.page.network is not None

    async def send_pair(
        self,
        event: str,
        strokes: list[list[float]],
        pens: str,
        drawing: bool,
        since: float | None = None,
        two: bool = False,
    ) -> None:
        """The Two-digits pad's value, each stroke's pen in ``pens``; the answer must be the pair
        panel of this value (naming two digits where ``two``), or the empty one for no strokes."""
        self.pair_revision += 1
        value = {**pad_value(strokes, self.pair_revision, drawing=drawing), "pens": pens[: len(strokes)]}
        problem = pair_problem(self.pair_revision, self.pair_decode_as, two) if strokes else empty_pair_problem
        await self.send(event, self.page.read_pair, [value, self.pair_decode_as], problem, since)

    async def draw_a_pair(self, drawings: list[tuple[int, list[list[float]]]]) -> None:
        """In Two digits: draw a digit with pen 1 and another one over it with pen 2, stroke by
        stroke; sometimes change Decode as; look; Clear: each sent, or nothing where the page reads
        the pairs itself (its graphs fetched when the person scrolled down)."""
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
            await self.send_pair(
                "pair-live" if pen_up is None else "pair-final",
                shown,
                pens,
                pen_up is None,
                since=pen_up,
                two=pen_up is not None and len(shown) == len(strokes),
            )
        if self.rng.random() < DECODE_SHARE:
            choices = [choice for choice in two_digits.DECODE_CHOICES if choice != self.pair_decode_as]
            self.pair_decode_as = choices[self.rng.integers(len(choices))]
            await self.send(
                "pair-decode",
                self.page.decode_pair,
                [None, self.pair_decode_as],
                pair_problem(self.pair_revision, self.pair_decode_as, two=True),
            )
        await asyncio.sleep(PAUSE_SECONDS)
        await self.send_pair("pair-clear", [], "", False)

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

    async def move_a_slider(self, digit: int) -> None:
        """Drag one slider to a random offset within its range, in SLIDER_STEPS moves: redrawn by
        the page's decoder, or where the page has none, each move sent."""
        if not (self.sliders.get("enabled") or self.reads_here):
            return  # no details came: the page's sliders stay disabled
        row = self.sliders["rows"][self.rng.integers(len(self.sliders["rows"]))]
        target = self.rng.uniform(-row["limit"], row["limit"])
        for step in range(1, SLIDER_STEPS + 1):
            offsets = list(self.sliders["offsets"])
            offsets[row["dimension"]] = round(target * step / SLIDER_STEPS, 3)
            self.sliders = {**self.sliders, "offsets": offsets}
            sent = time.perf_counter()
            if self.page.decoder is None:
                await self.send(
                    "slider",
                    self.page.move_dimensions,
                    [None, self.page.decode_as, self.page.scale, self.sliders, *self.drawing_sent],
                    reading_problem(digit),
                )
            await asyncio.sleep(max(0.0, sent + STEP_SECONDS - time.perf_counter()))

    async def turn(self, digit: int) -> None:
        """Scroll down to Turn it, which brings its panel and sweep for this reading (and, the first
        time, the page's graphs for it, where it has them), and drag the rotation slider to a random
        angle in SLIDER_STEPS moves: turned in the page with no request, or each move sent. A page
        that sweeps the digit itself asks for the refresh only the first time, its graphs still
        loading."""
        transforms = self.page.transforms
        has_graphs = bool(self.page.turn_graphs) and self.browser.scrolled
        if not (self.page.sweeps_in_page and has_graphs) and not self.reads_here:
            await self.send(
                "turn-refresh",
                self.page.turn_refresh,
                [None, transforms, *self.drawing_sent],
                turn_problem(transforms["revision"], digit),
            )
        target = self.rng.uniform(-90, 90)  # drawn either way: the people choose alike
        await self.scroll_down()
        if self.page.turn_graphs:
            await asyncio.sleep(SLIDER_STEPS * STEP_SECONDS)
            return
        for step in range(1, SLIDER_STEPS + 1):
            transforms = {
                **transforms,
                "rotation": round(target * step / SLIDER_STEPS),
                "revision": transforms["revision"] + 1,
            }
            sent = time.perf_counter()
            await self.send(
                "turn", self.page.turn, [None, transforms, *self.drawing_sent], turn_problem(transforms["revision"])
            )
            await asyncio.sleep(max(0.0, sent + STEP_SECONDS - time.perf_counter()))

    @property
    def drawing_sent(self) -> list:
        """What the server's fallbacks take beside their inputs: the pad's value, where the page
        reads drawings itself (the server then has not heard of it)."""
        return [self.value] if self.page.reads_in_page else []

    async def clear(self) -> None:
        if self.reads_here:
            self.revision += 1
            self.value = pad_value([], self.revision)
        else:
            await self.send_drawing("clear", [], False, empty_problem)

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
            await self.move_a_slider(digit)
            if self.rng.random() < TURN_SHARE:
                await self.turn(digit)
            await asyncio.sleep(PAUSE_SECONDS)
            await self.clear()
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
            pairs = page.read_pair is not None and draws_pairs(index, pair_share)
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
