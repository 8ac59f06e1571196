"""People using the playground's page at once, as light HTTP clients: the load of
bench/app_load.py and tests/test_load.py.

Each person sends what the page sends, one POST per event outside Gradio's queue, at a person's
pace: draws a digit stroke by stroke (while a stroke is drawn, the pad's value every LIVE_SECONDS,
the next only once the last is answered, as the page sends them; the whole stroke at pen-up), and
each finished stroke's reading brings `show_details`; then drags a slider in a few steps; after
one digit in TURN_SHARE scrolls down to Turn it (its refresh: the turn panel and the rotation sweep)
and drags the rotation slider in a few steps; looks at the result for PAUSE_SECONDS, presses Clear
(a reading of the empty pad, and its details) and draws another digit. Every answer is checked: a
reading panel for every reading, the drawn digit once the digit is finished and while its sliders
move, Figure 4 and the routing view in the details, the turn panel of the move sent and the sweep
of the drawn digit in Turn it.
All the people run as asyncio tasks in one process, sharing one httpx client.
"""
import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import numpy as np

from playground import turn_it
from tests.digit_strokes import pad_value

STROKE_SECONDS = 0.6          # a stroke takes this long to draw ...
LIVE_SECONDS = 0.1            # ... and the pad sends it at most this often (drawing_pad.LIVE_MS)
BETWEEN_STROKES_SECONDS = 0.3  # pen lifted between the strokes of a 4
SLIDER_STEPS = 4              # a drag of one slider sends this many moves ...
STEP_SECONDS = 0.1            # ... at most this often, the next once the last is answered
TURN_SHARE = 0.5             # of the digits drawn, those also turned in the Turn-it section
PAUSE_SECONDS = 2.0           # looking at the result before Clear and the next digit
HTTP_TIMEOUT = 60.0           # seconds for one request; longer is recorded as an error
DIGIT = re.compile(r'<div class="digit">(\d)</div>')
EVENTS = {                    # what each event of a person is, as the reports name it
    "final": "reading at a stroke's end, pen up -> shown",
    "live": "reading while a stroke is drawn",
    "details": "details after a reading (Figure 4, routing)",
    "slider": "slider move (decoder, reading panel)",
    "turn-refresh": "Turn it: refresh for a reading (panel, sweep)",
    "turn": "Turn it: a transform slider's move",
    "clear": "Clear, and the empty pad's details",
}


def event_index(app, fn) -> int:
    """The index by which the page names the event of app.py that runs ``fn`` (its fn_index)."""
    # ==, not is: a bound method (TURN_IT.turn) is a new object at each access
    return next(index for index, block_fn in app.demo.fns.items() if block_fn.fn == fn)


def page_event(app, url: str, fn, data: list, session: str = "robustness") -> httpx.Response:
    """One request as the page sends it, for the event for the event that runs ``fn``: POST /gradio_api/run/predict with the
    event's index (the page's events skip the queue). NaN and infinity in ``data`` go as JSON's
    NaN and Infinity, which Gradio's parser takes."""
    body = json.dumps({"data": data, "fn_index": event_index(app, fn), "session_hash": session})
    return httpx.post(f"{url}gradio_api/run/predict", content=body, timeout=120,
                      headers={"Content-Type": "application/json"})


def outputs_of(response: httpx.Response) -> list:
    """An event's outputs, from an answer that must be 200."""
    assert response.status_code == 200, response.text
    return response.json()["data"]


@dataclass(frozen=True)
class Page:
    """What a person's requests need of app.py: the events' indices and the controls' values."""
    read_drawing: int        # fn_index of each event the page sends
    show_details: int
    move_dimensions: int
    turn: int
    turn_refresh: int
    sliders: dict            # the sliders' value before any reading
    decode_as: str           # "winner"
    scale: str               # the sliders' range: the paper's
    iterations: int          # the routing view's r
    capsule_type: int        # the routing view's capsule type: all
    transforms: dict         # the transform sliders' value before any move: the digit unchanged

    @classmethod
    def of(cls, app) -> "Page":
        """The page of the imported app.py (the same indices as a `python app.py` serving it)."""
        return cls(event_index(app, app.read_drawing), event_index(app, app.show_details),
                   event_index(app, app.move_dimensions), event_index(app, app.TURN_IT.turn),
                   event_index(app, app.TURN_IT.show), app.sliders_at_zero(None, app.PAPER), app.WINNER,
                   app.PAPER, app.CONFIG.routing_iterations, app.ALL_TYPES,
                   {**turn_it.UNCHANGED, "revision": 0})


@dataclass(frozen=True)
class Exchange:
    """One request of one person, and how it went."""
    person: int
    event: str               # a key of EVENTS
    seconds: float           # from sending the request to having its answer
    waited: float            # what the person waited: from pen-up for a final reading, else seconds
    error: str | None = None


def reading_problem(digit: int | None) -> Callable[[list], str | None]:
    """The check of an answer whose last output is the reading panel: a reading, of ``digit``
    unless None."""
    def problem(outputs: list) -> str | None:
        shown = DIGIT.search(outputs[-1])
        if shown is None:
            return f"no reading in the panel: {outputs[-1][:200]}"
        if digit is not None and shown.group(1) != str(digit):
            return f"drew {digit}, the panel reads {shown.group(1)}"
        return None
    return problem


def empty_problem(outputs: list) -> str | None:
    return None if 'class="digit empty"' in outputs[-1] else f"not the empty panel: {outputs[-1][:200]}"


def turn_problem(revision: int, digit: int | None = None) -> Callable[[list], str | None]:
    """The check of a Turn-it answer: the turn panel of the sliders' ``revision`` first and, where
    ``digit`` is given (a refresh), the rotation sweep of that drawn digit after it."""
    def problem(outputs: list) -> str | None:
        if f'<div class="turn" data-revision="{revision}">' not in outputs[0][:100]:
            return f"not the turn panel of revision {revision}: {outputs[0][:200]}"
        if digit is not None and f"<figcaption>Your {digit}, turned" not in outputs[1]:
            return f"not the sweep of the drawn {digit}: {outputs[1][:200]}"
        return None
    return problem


def details_problem(reading: bool) -> Callable[[list], str | None]:
    """The check of show_details' answer: Figure 4 and the routing view of a reading, or their
    empty states."""
    wanted = ('<table class="figure4"', '<div class="routing-view">') if reading else (
        'class="figure4 empty"', 'class="routing-view empty"')

    def problem(outputs: list) -> str | None:
        figure4, routing = outputs[2], outputs[3]
        if wanted[0] in figure4[:100] and wanted[1] in routing[:100]:
            return None
        return f"not the details of {'a reading' if reading else 'an empty pad'}: {figure4[:100]} {routing[:100]}"
    return problem


class Person:
    """One person at the page: a session of their own (person ``index``'s, the same in every run,
    so that people warmed up come back to their own session), the page's values as the page holds
    them."""

    def __init__(self, client: httpx.AsyncClient, page: Page, index: int, seed: int):
        self.client, self.page, self.index = client, page, index
        self.session = f"person-{index}"
        self.rng = np.random.default_rng((seed, index))
        self.revision = 0                      # the pad counts the values it sends
        self.sliders = page.sliders            # the sliders' value on the page
        self.details: asyncio.Task | None = None
        self.exchanges: list[Exchange] = []

    async def send(self, event: str, fn_index: int, data: list, problem: Callable[[list], str | None],
                   since: float | None = None) -> list | None:
        """POST one event as the page does, record it, and return its outputs (None on error)."""
        start = time.perf_counter()
        try:
            response = await self.client.post("run/predict", json={
                "data": data, "fn_index": fn_index, "session_hash": self.session})
            response.raise_for_status()
            outputs = response.json()["data"]
            error = problem(outputs)
        except Exception as failure:  # recorded: the benchmark and the test report every error
            outputs, error = None, f"{type(failure).__name__}: {str(failure)[:200]}"
        end = time.perf_counter()
        self.exchanges.append(Exchange(self.index, event, end - start, end - (start if since is None else since),
                                       error))
        return None if error else outputs

    async def send_drawing(self, event: str, strokes: list[list[float]], drawing: bool,
                           problem: Callable[[list], str | None], since: float | None = None) -> list | None:
        self.revision += 1
        return await self.send(event, self.page.read_drawing, [pad_value(strokes, self.revision, drawing=drawing)],
                               problem, since)

    def follow_with_details(self, reading: bool, event: str) -> None:
        """The panel settled: show_details follows (after the one in flight, as the page sends it)."""
        self.details = asyncio.create_task(self._show_details(self.details, reading, event))

    async def _show_details(self, previous: asyncio.Task | None, reading: bool, event: str) -> None:
        if previous is not None:
            await previous
        page = self.page
        outputs = await self.send(event, page.show_details, [None, page.decode_as, page.scale, self.sliders,
                                                             page.iterations, page.capsule_type],
                                  details_problem(reading))
        if outputs is not None and outputs[1].get("__type__") != "update":   # gr.skip(): as they are
            self.sliders = outputs[1]

    async def draw(self, digit: int, strokes: list[list[float]]) -> None:
        """Draw ``strokes`` one by one: live readings while each is drawn, the final one at pen-up."""
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
                await self.send_drawing("live", done + [stroke[:2 * points]], True, reading_problem(None))
                next_send = now + LIVE_SECONDS
            done.append(stroke)
            last = k == len(strokes) - 1
            if await self.send_drawing("final", done, False, reading_problem(digit if last else None),
                                       since=pen_up) is not None:
                self.follow_with_details(True, "details")
            if not last:
                await asyncio.sleep(max(0.0, pen_up + BETWEEN_STROKES_SECONDS - time.perf_counter()))

    async def move_a_slider(self, digit: int) -> None:
        """Drag one slider to a random offset within its range, in SLIDER_STEPS moves."""
        if self.details is not None:
            await self.details
        if not self.sliders.get("enabled"):
            return                          # no details came: the page's sliders stay disabled
        row = self.sliders["rows"][self.rng.integers(len(self.sliders["rows"]))]
        target = self.rng.uniform(-row["limit"], row["limit"])
        for step in range(1, SLIDER_STEPS + 1):
            offsets = list(self.sliders["offsets"])
            offsets[row["dimension"]] = round(target * step / SLIDER_STEPS, 3)
            self.sliders = {**self.sliders, "offsets": offsets}
            sent = time.perf_counter()
            await self.send("slider", self.page.move_dimensions,
                            [None, self.page.decode_as, self.page.scale, self.sliders], reading_problem(digit))
            await asyncio.sleep(max(0.0, sent + STEP_SECONDS - time.perf_counter()))

    async def turn(self, digit: int) -> None:
        """Scroll down to Turn it, which brings its panel and sweep for this reading, and drag the
        rotation slider to a random angle in SLIDER_STEPS moves."""
        if self.details is not None:
            await self.details
        transforms = self.page.transforms
        await self.send("turn-refresh", self.page.turn_refresh, [None, transforms],
                        turn_problem(transforms["revision"], digit))
        target = self.rng.uniform(-90, 90)
        for step in range(1, SLIDER_STEPS + 1):
            transforms = {**transforms, "rotation": round(target * step / SLIDER_STEPS),
                          "revision": transforms["revision"] + 1}
            sent = time.perf_counter()
            await self.send("turn", self.page.turn, [None, transforms], turn_problem(transforms["revision"]))
            await asyncio.sleep(max(0.0, sent + STEP_SECONDS - time.perf_counter()))

    async def clear(self) -> None:
        if await self.send_drawing("clear", [], False, empty_problem) is not None:
            self.follow_with_details(False, "clear")
        if self.details is not None:
            await self.details

    async def use(self, drawings: list[tuple[int, list[list[float]]]], start_delay: float,
                  done: Callable[[int], bool]) -> None:
        """Draw, look, drag a slider, sometimes turn the digit, look, Clear: again and again, a
        drawing of ``drawings`` picked at random each time, until ``done(digits drawn so far)``."""
        await asyncio.sleep(start_delay)
        digits = 0
        while not done(digits):
            digit, strokes = drawings[self.rng.integers(len(drawings))]
            await self.draw(digit, strokes)
            await self.move_a_slider(digit)
            if self.rng.random() < TURN_SHARE:
                await self.turn(digit)
            await asyncio.sleep(PAUSE_SECONDS)
            await self.clear()
            digits += 1


async def _use_the_page(url: str, page: Page, people: int, drawings: list, seed: int,
                        done: Callable[[int, int], bool]) -> list[Exchange]:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=f"{url}gradio_api/", timeout=HTTP_TIMEOUT, limits=limits) as client:
        crowd = [Person(client, page, index, seed) for index in range(people)]

        def person_done(digits: int) -> bool:
            finals = sum(exchange.event == "final" for person in crowd for exchange in person.exchanges)
            return done(digits, finals)

        spread = STROKE_SECONDS + PAUSE_SECONDS          # people arrive over about one digit's time
        await asyncio.gather(*(person.use(drawings, person.rng.uniform(0, spread), person_done)
                               for person in crowd))
    return [exchange for person in crowd for exchange in person.exchanges]


def use_the_page(url: str, page: Page, people: int, drawings: list[tuple[int, list[list[float]]]],
                 done: Callable[[int, int], bool], seed: int = 0) -> list[Exchange]:
    """Every request of ``people`` people using the page served at ``url`` together.

    Args:
        url: the served app, e.g. "http://127.0.0.1:7860/".
        page: the app's events and controls (`Page.of(app)`).
        people: how many at once, each a session of its own: person k is always session "person-k".
        drawings: (digit, strokes) to draw, each person picking at random.
        done: ``done(digits, final_readings)``, asked by each person before each digit with the
            digits they have drawn and the final readings answered to everyone so far: True stops
            that person.
        seed: the people's choices (drawings, sliders, arrival) follow from it.
    """
    return asyncio.run(_use_the_page(url, page, people, drawings, seed, done))
