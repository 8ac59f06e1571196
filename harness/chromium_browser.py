"""Debian's Chromium as the browser tests and benchmarks open the playground in: where it is and its
flags (headless, no GPU), Playwright's launch of it (`chromium`), the screens a page is shown on
(DESKTOP, PHONE, and what a phone shows under its browser's bars), and a network as slow as
DevTools makes it (`round_trip`).
"""

from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1300, "height": 1100}
PHONE = {"width": 390, "height": 844}
PHONE_UNDER_BARS = {"width": 390, "height": 664}  # what a 390x844 phone shows of a page under its browser's bars


@contextmanager
def chromium(playwright):
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()


def round_trip(page, milliseconds: float, download_mbps: float | None = None) -> None:
    """Every request of ``page`` from now on answered ``milliseconds`` later, as DevTools' network
    emulation does it (its latency: a round trip added to each request); downloads at
    ``download_mbps`` megabits a second, or as fast as they come (None)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    throughput = -1 if download_mbps is None else download_mbps * 1e6 / 8  # bytes a second
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": milliseconds, "downloadThroughput": throughput, "uploadThroughput": -1},
    )
