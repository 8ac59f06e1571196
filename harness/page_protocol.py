"""How a client speaks to the playground's served page, as the page itself does: each event one POST to
/gradio_api/run/predict outside Gradio's queue, named by its index among app.py's events
(`event_index`; one such request, `page_event`, and its answer's outputs, `outputs_of`); `Page`,
what the page of an app needs of it (its events' indices, its controls' first values, the files it
fetches and what it then computes itself); an output left as it is (gr.skip(), as a crowded server
answers a reading asked while a stroke is drawn: `skipped`); and `PageClient`, a session of its own
that sends the page's events and fetches its files as a browser asks for them (each file's answer a
`Fetched`, its bytes counted as sent), over an httpx client, recording each exchange, how long
it took and what was wrong with its answer (`Exchange`, its event one of EVENTS). The people of
harness/page_crowd.py are such clients; tests send single events with `page_event`.
"""

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from playground import page_network, transform_sliders
from playground.dimensions_section import PAPER

EVENTS = {  # what each exchange's event is (Exchange.event), as the reports name it
    "visit": "a first visit: the page and its files, once a page (GETs)",
    "final": "reading at a stroke's end, with Figure 4 and routing, pen up -> shown",
    "live": "reading while a stroke is drawn",
    "let-go": "... let go by a crowded server",
    "slider": "slider move (decoder, reading panel)",
    "turn-refresh": "Turn it: refresh for a reading (panel, sweep)",
    "turn": "Turn it: a transform slider's move",
    "scrolled": "scrolled down: the files then fetched, once a page (GETs)",
    "clear": "Clear, and the empty pad's details",
    "pair-final": "Two digits: reading at a stroke's end -> shown",
    "pair-live": "Two digits: reading while a stroke is drawn",
    "pair-let-go": "Two digits: ... let go by a crowded server",
    "pair-decode": "Two digits: Decode as changed",
    "pair-clear": "Two digits: Clear",
}
BROWSER_HEADERS = {"Accept-Encoding": "gzip, deflate, br, zstd"}  # Chromium's, on a file it fetches
BROWSER_CONNECTIONS = 6  # a browser's connections to one server at once (HTTP/1.1)
THE_PAGE = ""  # the page's own address, relative to itself
# A reading asked while a stroke is drawn may be let go by a crowded server (playground/serving.py
# `crowded`): its answer is gr.skip() for every output, and the page leaves its panel as it is.
LET_GO = {"live": "let-go", "pair-live": "pair-let-go"}


def event_index(app, fn) -> int:
    """The index by which the page names the event of app.py that runs ``fn`` (its fn_index)."""
    # ==, not is: a bound method (TURN_IT.turn) is a new object at each access
    return next(index for index, block_fn in app.demo.fns.items() if block_fn.fn == fn)


def page_event(app, url: str, fn, data: list, session: str = "page") -> httpx.Response:
    """One request as the page sends it, for the event that runs ``fn``: POST
    /gradio_api/run/predict with the event's index (the page's events skip the queue). NaN and
    infinity in ``data`` go as JSON's NaN and Infinity, which Gradio's parser takes."""
    body = json.dumps({"data": data, "fn_index": event_index(app, fn), "session_hash": session})
    return httpx.post(
        f"{url}gradio_api/run/predict", content=body, timeout=120, headers={"Content-Type": "application/json"}
    )


def outputs_of(response: httpx.Response) -> list:
    """An event's outputs, from an answer that must be 200."""
    assert response.status_code == 200, response.text
    return response.json()["data"]


@dataclass(frozen=True)
class Page:
    """What a client's requests need of app.py: the events' indices and the controls' values."""

    read_drawing: int  # fn_index of each event the page sends
    move_dimensions: int
    turn: int
    turn_refresh: int
    sliders: dict  # the sliders' value before any reading
    decode_as: str  # "winner"
    scale: str  # the sliders' range: the paper's
    transforms: dict  # the transform sliders' value before any move: the digit unchanged
    read_pair: int | None  # the Two-digits pad's change and Decode as: None where the section has
    decode_pair: int | None  # no pairs networks, and so no pad
    decoder: str | None = None  # the address of the decoder the page redraws with, where it has one:
    # None, a page that sends every slider move to the server
    network: str | None = None  # the address of the graph the page reads drawings with, where it has
    # one: None, a page that sends each stroke while it is drawn
    routing: tuple[str, ...] = ()  # the address of the routing graph, which the page loads with the network
    runtime: tuple[str, ...] = ()  # the addresses of ONNX Runtime Web's files, which run the graph
    turn_graphs: tuple[str, ...] = ()  # the CNN's and the turn's graphs, with which the page turns the
    # digit itself once Turn it is near the screen: empty, a page that sends each transform move
    sweeps_in_page: bool = False  # whether a page with those graphs also refreshes Turn it itself (the
    # turn panel and the rotation sweep): False, a page that asks the server for every refresh
    reads_in_page: bool = False  # whether a page with the network sends nothing of its digit pad (no
    # reading at pen-up, none for Clear) and waits for Turn it's graphs rather than ask for a refresh:
    # False, a page that sends each finished stroke and Clear, and asks for Turn it's first refresh
    reads_pairs_in_page: bool = False  # whether a page with the pairs networks reads the Two-digits
    # pad in the page once the section's graphs are in, Decode as and Clear too, and sends nothing
    first_visit: tuple[str, ...] = ()  # what a browser GETs on a first visit before any scroll, in
    # order, and ...
    scrolled: tuple[str, ...] = ()  # ... more once scrolled down (Turn it's graphs): recorded from the
    # served page (harness/page_visit.py, `visited`); empty, nothing fetched

    def drawing(self, value: dict, sliders: dict | None = None) -> list:
        """The data of the pad's event for its ``value``: the value, then what the page sends beside
        it for the details of a finished stroke (Decode as, the range, ``sliders`` or the sliders'
        first value)."""
        sliders = self.sliders if sliders is None else sliders
        return [value, self.decode_as, self.scale, sliders]

    @classmethod
    def of(cls, app) -> "Page":
        """The page of the imported app.py (the same indices as a `python app.py` serving it)."""
        pairs = app.TWO_DIGITS.problem is None
        return cls(
            event_index(app, app.read_drawing),
            event_index(app, app.CAPSULE_DIMENSIONS.move_dimensions),
            event_index(app, app.TURN_IT.turn),
            event_index(app, app.TURN_IT.show),
            app.CAPSULE_DIMENSIONS.sliders_at_zero(None, PAPER),
            app.WINNER,
            PAPER,
            {**transform_sliders.UNCHANGED, "revision": 0},
            event_index(app, app.TWO_DIGITS.read_drawing) if pairs else None,
            event_index(app, app.TWO_DIGITS.decode_again) if pairs else None,
            app.READING.decoder.url,
            app.READING.page_network.url,
            (app.READING.routing_graph.url,),
            tuple(f"{page_network.RUNTIME}/{name}" for name in page_network.RUNTIME_FILES),
            (app.TURN_IT.cnn_graph.url, app.TURN_IT.turn_graph.url),
            sweeps_in_page=True,
            reads_in_page=True,
            reads_pairs_in_page=pairs,
        )


@dataclass(frozen=True)
class Fetched:
    """One file's answer to a GET as a browser sends it."""

    address: str  # relative to the page
    status: int
    media_type: str  # its Content-Type, "text/javascript; charset=utf-8"
    encoding: str | None  # its Content-Encoding: "gzip", "br", or None (sent as it is)
    size: int  # bytes on the wire: the status line, the headers, the body as sent


@dataclass(frozen=True)
class Exchange:
    """One request of one client (``person``: its index), and how it went."""

    person: int
    event: str  # a key of EVENTS
    seconds: float  # from sending the request to having its answer
    waited: float  # what the person waited: from pen-up for a final reading, else seconds
    error: str | None = None
    fetched: tuple[Fetched, ...] = ()  # for the GETs of a visit, each file's answer


def skipped(output) -> bool:
    """Whether an answer's output is gr.skip(): a component's {"__type__": "update", ...}, or a
    State's None."""
    return output is None or (isinstance(output, dict) and output.get("__type__") == "update")


class PageClient:
    """A client in a session of its own at the page served behind ``client`` (its base URL the
    app's gradio_api/): sends the page's events and fetches its files as the page does, each
    exchange recorded in ``exchanges`` as client ``index``'s."""

    def __init__(self, client: httpx.AsyncClient, index: int, session: str):
        self.client, self.index, self.session = client, index, session
        self.exchanges: list[Exchange] = []

    async def send(
        self, event: str, fn_index: int, data: list, problem: Callable[[list], str | None], since: float | None = None
    ) -> list | None:
        """POST one event as the page does, record it, and return its outputs (None on error)."""
        start = time.perf_counter()
        try:
            response = await self.client.post(
                "run/predict", json={"data": data, "fn_index": fn_index, "session_hash": self.session}
            )
            response.raise_for_status()
            outputs = response.json()["data"]
            if event in LET_GO and all(map(skipped, outputs)):  # the panel stays
                event, error = LET_GO[event], None
            else:
                error = problem(outputs)
        except Exception as failure:  # recorded: the benchmark and the test report every error
            outputs, error = None, f"{type(failure).__name__}: {str(failure)[:200]}"
        end = time.perf_counter()
        self.exchanges.append(
            Exchange(self.index, event, end - start, end - (start if since is None else since), error)
        )
        return None if error else outputs

    async def fetch(self, address: str) -> Fetched:
        """GET the file at ``address`` (relative to the page) as a browser asks for it, its body
        read as sent (not decompressed: the bytes are what is counted). Where the server closes a
        kept-alive connection as the request comes, before any answer, it is sent again on another,
        as Chromium does."""
        request = self.client.build_request("GET", self.client.base_url.join(f"../{address}"), headers=BROWSER_HEADERS)
        try:
            response = await self.client.send(request, stream=True)
        except (httpx.ReadError, httpx.RemoteProtocolError):
            response = await self.client.send(request, stream=True)
        try:
            body = 0
            async for chunk in response.aiter_raw():
                body += len(chunk)
        finally:
            await response.aclose()
        headers = response.headers
        head = len(f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n\r\n")
        head += sum(len(name) + len(value) + 4 for name, value in headers.raw)  # "name: value\r\n"
        return Fetched(
            address, response.status_code, headers.get("content-type", ""), headers.get("content-encoding"), head + body
        )

    async def load(self, event: str, addresses: tuple[str, ...]) -> None:
        """GET ``addresses`` as a browser does: the page itself alone first, where it is one of
        them, then the rest in order, BROWSER_CONNECTIONS at once; one exchange for all, with each
        file's answer, an error for any not answered 200."""
        connections = asyncio.Semaphore(BROWSER_CONNECTIONS)

        async def fetched(address: str) -> Fetched:
            async with connections:
                return await self.fetch(address)

        start = time.perf_counter()
        error, files = None, []
        try:
            if addresses[:1] == (THE_PAGE,):
                files.append(await self.fetch(THE_PAGE))
            files += await asyncio.gather(*(fetched(address) for address in addresses[len(files) :]))
            wrong = [file for file in files if file.status != 200]
            if wrong:
                error = f"{len(wrong)} files not answered: {wrong[0]}"
        except Exception as failure:  # recorded: the benchmark and the test report every error
            error = f"{type(failure).__name__}: {str(failure)[:200]}"
        seconds = time.perf_counter() - start
        self.exchanges.append(Exchange(self.index, event, seconds, seconds, error, tuple(files)))
