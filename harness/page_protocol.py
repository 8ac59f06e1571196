"""How a client speaks to the playground's served page, as the page itself does where it cannot
compute: each question its network worker would answer one POST to /ask/KIND with a JSON object
(playground/answers.py, asked by page_networks.js `askServer`), its answer's pictures and long
arrays made numpy arrays again (`revived`); `Page`, what the page of an app computes itself and the
files it fetches; and `PageClient`, a client of its own that asks the page's questions and fetches
its files as a browser asks for them (each file's answer a `Fetched`, its bytes counted as sent),
over an httpx client, recording each exchange, how long it took and what was wrong with its answer
(`Exchange`, its event one of EVENTS). The people of harness/page_crowd.py are such clients.
"""

import asyncio
import base64
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import numpy as np

from playground import dimension_sliders, page_network, transform_sliders
from playground.dimensions_section import PAPER

EVENTS = {  # what each exchange's event is (Exchange.event), as the reports name it
    "visit": "a first visit: the page and its files, once a page (GETs)",
    "final": "reading at a stroke's end, with routing, pen up -> shown",
    "figure4": "Figure 4's pictures of a finished reading",
    "live": "reading while a stroke is drawn",
    "let-go": "... let go by a crowded server",
    "slider": "slider move: the decoder's picture",
    "turn-refresh": "Turn it: the panel for a reading",
    "turn-sweep": "Turn it: one angle of the rotation sweep",
    "turn": "Turn it: a transform slider's move",
    "scrolled": "scrolled down: the files then fetched, once a page (GETs)",
    "pair-final": "Two digits: reading at a stroke's end -> shown",
    "pair-live": "Two digits: reading while a stroke is drawn",
    "pair-decode": "Two digits: Decode as changed",
}
BROWSER_HEADERS = {"Accept-Encoding": "gzip, deflate, br, zstd"}  # Chromium's, on a file it fetches
BROWSER_CONNECTIONS = 6  # a browser's connections to one server at once (HTTP/1.1)
THE_PAGE = ""  # the page's own address, relative to itself
# A reading asked while a stroke is drawn may be let go by a crowded server (playground/serving.py
# `crowded`): 204 and nothing, and the page leaves its panel as it is.
LET_GO = {"live": "let-go"}


def revived(value):
    """An answer of /ask/KIND with each {"ink": base64} and {"float32": base64} a float32 array, as
    page_networks.js makes them."""
    if isinstance(value, dict) and value.keys() == {"ink"}:
        return np.frombuffer(base64.b64decode(value["ink"]), np.uint8).astype(np.float32) / 255
    if isinstance(value, dict) and value.keys() == {"float32"}:
        return np.frombuffer(base64.b64decode(value["float32"]), "<f4")
    if isinstance(value, dict):
        return {key: revived(each) for key, each in value.items()}
    if isinstance(value, list):
        return [revived(each) for each in value]
    return value


@dataclass(frozen=True)
class Page:
    """What a client's questions need of app.py: the controls' first values, what the page computes
    itself (each network's address, where it has it: else it asks the server) and the files it
    fetches."""

    sliders: dict  # the sliders' value before any reading
    transforms: dict  # the transform sliders' value before any move: the digit unchanged
    pairs: bool  # whether the Two-digits section has its networks, and so a pad
    decoder: str | None = None  # the address of the decoder the page redraws with, where it has one:
    # None, a page that asks the server each slider move's picture and Figure 4
    network: str | None = None  # the address of the graph the page reads drawings with, where it has
    # one: None, a page that asks the server to read each stroke, while it is drawn and at pen-up
    routing: tuple[str, ...] = ()  # the address of the routing graph, which the page loads with the network
    runtime: tuple[str, ...] = ()  # the addresses of ONNX Runtime Web's files, which run the graph
    turn_graphs: tuple[str, ...] = ()  # the CNN's and the turn's graphs, with which the page turns and
    # sweeps the digit itself once Turn it is near the screen (waiting for them rather than ask): empty,
    # a page that asks the server for Turn it's panel, its rotation sweep and each transform move
    reads_pairs_in_page: bool = False  # whether a page with the pairs networks reads the Two-digits
    # pad in the page once the section's graphs are in, Decode as too, and asks nothing
    first_visit: tuple[str, ...] = ()  # what a browser GETs on a first visit before any scroll, in
    # order, and ...
    scrolled: tuple[str, ...] = ()  # ... more once scrolled down (Turn it's graphs): recorded from the
    # served page (harness/page_visit.py, `visited`); empty, nothing fetched

    @classmethod
    def of(cls, app) -> "Page":
        """The page of the imported app.py: its networks in the page, it asks the server nothing."""
        pairs = app.TWO_DIGITS.problem is None
        rows = app.CAPSULE_DIMENSIONS.rows(None, PAPER)
        return cls(
            dimension_sliders.slider_value(rows, [0.0] * len(rows), PAPER, enabled=False),
            dict(transform_sliders.UNCHANGED),
            pairs,
            app.READING.decoder.url,
            app.READING.page_network.url,
            (app.READING.routing_graph.url,),
            tuple(f"{page_network.RUNTIME}/{name}" for name in page_network.RUNTIME_FILES),
            (app.TURN_IT.cnn_graph.url, app.TURN_IT.turn_graph.url),
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


class PageClient:
    """A client of its own at the page served behind ``client`` (its base URL the app's
    gradio_api/): asks the page's questions and fetches its files as the page does, each exchange
    recorded in ``exchanges`` as client ``index``'s."""

    def __init__(self, client: httpx.AsyncClient, index: int):
        self.client, self.index = client, index
        self.exchanges: list[Exchange] = []

    async def ask(
        self, event: str, kind: str, question: dict, problem: Callable[[dict], str | None], since: float | None = None
    ) -> dict | None:
        """POST question ``kind`` as the page does (its JSON, typed arrays as lists of numbers),
        record it, and return its answer revived (None on error, or where a crowded server let a
        reading asked while a stroke is drawn go: 204)."""
        start = time.perf_counter()
        answer = None
        try:
            response = await self.client.post(self.client.base_url.join(f"../ask/{kind}"), json=question)
            response.raise_for_status()
            if response.status_code == 204 and event in LET_GO:  # the panel stays
                event, error = LET_GO[event], None
            else:
                answer = revived(response.json())
                error = problem(answer)
        except Exception as failure:  # recorded: the benchmark and the test report every error
            error = f"{type(failure).__name__}: {str(failure)[:200]}"
        end = time.perf_counter()
        self.exchanges.append(
            Exchange(self.index, event, end - start, end - (start if since is None else since), error)
        )
        return None if error else answer

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
