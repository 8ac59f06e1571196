"""A TCP proxy on loopback that delays every byte between a browser and a server, as a distant
network does: each chunk read from either side is written to the other half a round trip after it
arrived, in the order it arrived, headers and bodies alike (DevTools' network emulation delays
only the headers of each answer, which hides part of the wait). It runs its own asyncio loop in a
thread, beside Playwright's sync API.

    with delaying_proxy(upstream_port=7860, round_trip_ms=150) as port:
        page.goto(f"http://127.0.0.1:{port}/")

A `Link` given to it counts the bytes that cross it each way and, with a speed, holds the bytes
towards the browser to that speed, all connections sharing it, as a phone's link does; one link
may be given to several proxies (a phone's link to the Space and to the Hub's CDN).
"""

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

LOOPBACK = "127.0.0.1"
CHUNK = 64 * 1024  # bytes read at once; each chunk keeps its own arrival time


@dataclass
class Link:
    """The link between the browser and the proxy: the bytes it carried each way so far and, with
    ``download_mbps``, the speed it carries bytes towards the browser at (None: as fast as they come)."""

    download_mbps: float | None = None
    to_browser: int = 0  # bytes
    to_server: int = 0
    _free_at: float = 0.0  # the time (time.monotonic, the event loops' clock) the link is free again
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # proxies run in threads of their own

    def carried(self) -> int:
        """The bytes carried both ways so far."""
        return self.to_browser + self.to_server

    async def send_to_browser(self, size: int) -> None:
        """Count ``size`` bytes towards the browser and, with a speed, wait until they have crossed."""
        loop = asyncio.get_running_loop()
        with self._lock:
            self.to_browser += size
            if self.download_mbps is None:
                return
            self._free_at = max(self._free_at, loop.time()) + size * 8 / (self.download_mbps * 1e6)
            free_at = self._free_at
        await asyncio.sleep(free_at - loop.time())


async def _forward(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    delay: float,
    link: Link,
    to_browser: bool,
) -> None:
    """Copy ``reader`` to ``writer``, each chunk ``delay`` seconds after it was read (towards the
    browser, then as fast as ``link`` carries it), then the end of the stream likewise."""
    loop = asyncio.get_running_loop()
    arrived: asyncio.Queue = asyncio.Queue()

    async def read() -> None:
        try:
            while chunk := await reader.read(CHUNK):
                arrived.put_nowait((loop.time() + delay, chunk))
        except OSError:  # the other side reset the connection
            pass
        arrived.put_nowait((loop.time() + delay, b""))  # the end of the stream

    async def write() -> None:
        while True:
            due, chunk = await arrived.get()
            await asyncio.sleep(max(0.0, due - loop.time()))
            if not chunk:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            if to_browser:
                await link.send_to_browser(len(chunk))
            else:
                with link._lock:
                    link.to_server += len(chunk)
            writer.write(chunk)
            await writer.drain()

    await asyncio.gather(read(), write())


async def _connection(
    upstream_port: int,
    delay: float,
    link: Link,
    client_reader: asyncio.StreamReader,
    client_writer: asyncio.StreamWriter,
) -> None:
    """One browser connection: a connection of its own to the server, both ways delayed."""
    try:
        server_reader, server_writer = await asyncio.open_connection(LOOPBACK, upstream_port)
    except OSError:
        client_writer.close()
        return
    try:
        await asyncio.gather(
            _forward(client_reader, server_writer, delay, link, to_browser=False),
            _forward(server_reader, client_writer, delay, link, to_browser=True),
        )
    except (OSError, asyncio.CancelledError):  # the proxy stopped: the connection ends here
        pass
    finally:
        for writer in (client_writer, server_writer):
            writer.close()


@contextmanager
def delaying_proxy(upstream_port: int, round_trip_ms: float, link: Link | None = None) -> Iterator[int]:
    """A proxy on a free port of 127.0.0.1 to 127.0.0.1:``upstream_port``, each byte delayed by
    half of ``round_trip_ms`` each way and carried by ``link`` (counted, and held to its speed);
    yields its port. Its connections are dropped on exit."""
    link = link or Link()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="delaying-proxy", daemon=True)
    thread.start()

    async def serve() -> asyncio.Server:
        return await asyncio.start_server(
            lambda reader, writer: _connection(upstream_port, round_trip_ms / 2000, link, reader, writer),
            LOOPBACK,
            0,
        )

    async def stop(server: asyncio.Server) -> None:
        server.close()
        tasks = asyncio.all_tasks() - {asyncio.current_task()}
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    server = asyncio.run_coroutine_threadsafe(serve(), loop).result()
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        asyncio.run_coroutine_threadsafe(stop(server), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
