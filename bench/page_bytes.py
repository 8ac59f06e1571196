"""What a visitor's browser fetches, counted on the wire, and how soon a phone far away reads its
first stroke in the page.

Starts `python app.py` on 127.0.0.1 and, with --against REV, the app of git revision REV beside it.
Every byte between Chromium and each app goes through a proxy on loopback (harness/delaying_proxy.py)
that counts them.

- **The bytes**: a first visit, in a browser with a profile on disk (nothing kept yet), on a desktop
  page: the bytes fetched before any scroll (until the page's reader is ready and nothing has
  crossed for harness/page_visit.py's QUIET_S), then once scrolled to the end, a screen at a time
  (until quiet again); then a returning visit, the same browser opening the page again. Each
  answer's bytes are listed by file (Chromium's count of the body as sent, gzipped where it was
  sent so), the largest first.
- **A phone far away** (--phone-link MBPS): a fresh phone page (390x844, a finger, a profile on
  disk, nothing kept yet, its CPU slowed
  --cpu-slowdown times by DevTools) at --round-trip, the link towards the phone held to MBPS
  megabits a second: the moment the page's reader is ready, then a stroke drawn at once (a digit
  traced from MNIST's test digits), and the moment its reading shows, read in the page; all from
  the moment the page was asked for.
- **The published Space** (--hub): beside the app served from weights/, a dry run of
  `python -m playground.publish` served as a Space is, its model repos preloaded in a Hub cache
  (offline), its big files fetched from a stand-in of the Hub's CDN (harness/stand_in_hub.py)
  through a proxy of its own, --cdn-round-trip away; the phone's link is one for both. The bytes
  are counted from the Space and from the CDN apart. With --against REV, REV's published Space too.

    python -m bench.page_bytes [--against REV] [--hub] [--phone-link 10 --round-trip 300 --data-dir DATA]
"""

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from bench.train_throughput import cpu_model
from harness.app_server import checkout, serving_app, serving_apps
from harness.chromium_browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PHONE
from harness.delaying_proxy import LOOPBACK, Link, delaying_proxy
from harness.digit_strokes import random_box
from harness.pad_drivers import PadDriver
from harness.page_visit import scroll_to_end, wait_for_quiet, wait_for_reader
from harness.stand_in_hub import OWNER, preloaded_cache, stand_in_cdn
from harness.traced_strokes import stroke_source
from playground.drawing_pad import SIDE

MB = 1e6
# In the page: the revision of the reading shown, and whether the page's reader reads by now (the
# seam then asks the server nothing of the digit pad: page_networks.js)
SHOWN_SCRIPT = """
() => {
  const module = (name) => import(document.querySelector(`link[rel=modulepreload][href$="/${name}"]`).href);
  return Promise.all([module("reading_store.js"), module("page_networks.js")]).then(([store, networks]) => {
    const shown = store.shown.current();
    return [shown?.revision ?? null, networks.readerState() === "ready"];
  });
}
"""


def by_file(sizes: dict[str, int]) -> str:
    """The files fetched, the largest first: '1.23 MB name, ...'."""
    ranked = sorted(sizes.items(), key=lambda item: -item[1])
    return ", ".join(f"{size / MB:.2f} MB {urlsplit(url).path.rsplit('/', 1)[-1] or '/'}" for url, size in ranked)


@contextmanager
def published_space(cdn_round_trip: float, against: str | None = None):
    """A dry run of `python -m playground.publish` (of this checkout, or of git revision
    ``against``) served as its Space, its repos preloaded in a Hub cache, its big files from a
    stand-in of the Hub's CDN behind a proxy ``cdn_round_trip`` ms away; yields the app's URL and
    the CDN proxy's `Link` (its speed None: set it to hold it)."""
    from playground import publish

    with ExitStack() as stack:
        out = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="page-bytes-published-")))
        if against is None:
            with contextlib.redirect_stdout(io.StringIO()):
                if publish.main(["--owner", OWNER, "--dry-run", str(out / "published")]) != 0:
                    raise RuntimeError("the dry run of playground.publish failed")
        else:  # its own publish, which lists the Space's files with git: the checkout made a repository
            code = stack.enter_context(checkout(against))
            for command in (["git", "init", "-q"], ["git", "add", "-A"]):
                subprocess.run(command, cwd=code, check=True, capture_output=True)
            dry_run = [
                sys.executable,
                "-m",
                "playground.publish",
                "--owner",
                OWNER,
                "--dry-run",
                str(out / "published"),
            ]
            subprocess.run(dry_run, cwd=code, check=True, capture_output=True)
        repos = [*publish.REPOS.values(), publish.RUNTIME_REPO]
        cache = preloaded_cache(out / "published", out / "hub-cache", repos)
        endpoint = stack.enter_context(stand_in_cdn(out / "published"))
        cdn_link = Link()
        cdn_port = stack.enter_context(delaying_proxy(urlsplit(endpoint).port, cdn_round_trip, cdn_link))
        environment = {
            "HF_HUB_OFFLINE": "1",
            "HF_HUB_CACHE": str(cache),
            "HF_ENDPOINT": f"http://{LOOPBACK}:{cdn_port}",
        }
        environment |= {name: None for name in ("CAPSNET_WEIGHTS", "CAPSNET_CNN_WEIGHTS", "CAPSNET_ONNXRUNTIME_WEB")}
        environment |= {name: None for name in ("CAPSNET_PAIRS_WEIGHTS", "CAPSNET_PAIRS_CNN_WEIGHTS")}
        space = out / "published" / "capsnet-playground"
        yield stack.enter_context(serving_app(start_timeout=600, code=space, environment=environment)), cdn_link


def bytes_of_visits(playwright, app_url: str, cdn: Link | None = None) -> list[tuple[str, float, float, dict]]:
    """(what, MB fetched from the app, MB from the CDN whose link is ``cdn``, each file's bytes) for
    a first visit before any scroll, the same scrolled to the end, and a returning visit."""
    from playwright.sync_api import Error as PlaywrightError

    link, counted_cdn = Link(), cdn or Link()
    results = []
    with (
        delaying_proxy(urlsplit(app_url).port, 0, link) as port,
        tempfile.TemporaryDirectory(prefix="page-bytes-profile-") as profile,
    ):
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, viewport=DESKTOP
        )
        files: dict[str, int] = {}

        def counted(request) -> None:
            try:
                sizes = request.sizes()
            except PlaywrightError:  # the page closed before its answer was counted: the proxy counted it
                return
            files[request.url] = files.get(request.url, 0) + sizes["responseBodySize"] + sizes["responseHeadersSize"]

        context.on("requestfinished", counted)
        try:
            for what in ("a first visit, before any scroll", "the same, scrolled to the end", "a returning visit"):
                start, cdn_start = link.to_browser, counted_cdn.to_browser
                if what != "the same, scrolled to the end":
                    files.clear()
                    page = context.new_page()
                    page.goto(f"http://{LOOPBACK}:{port}/")
                    if wait_for_reader(page) not in {"ready", "none"}:
                        raise RuntimeError("the page's reader did not load")
                else:
                    scroll_to_end(page)
                wait_for_quiet(link)
                if cdn is not None:
                    wait_for_quiet(cdn)
                from_cdn = (counted_cdn.to_browser - cdn_start) / MB
                results.append((what, (link.to_browser - start) / MB, from_cdn, dict(files)))
                if what == "the same, scrolled to the end":
                    page.close()
                files.clear()
        finally:
            context.close()
    return results


def phone_far_away(
    chromium,
    app_url: str,
    round_trip: float,
    mbps: float,
    stroke: list[list[float]],
    slowdown: float = 1,
    cdn: Link | None = None,
) -> dict:
    """A fresh phone page at ``round_trip`` ms, its CPU slowed ``slowdown`` times, its link held to
    ``mbps`` (the link to the CDN, ``cdn``, too: one link): seconds from asking for the page to the
    reader ready, and to the first stroke's reading shown, read in the page."""
    link = cdn or Link()
    link.download_mbps, carried = mbps, link.to_browser
    with (
        delaying_proxy(urlsplit(app_url).port, round_trip, link) as port,
        tempfile.TemporaryDirectory(prefix="page-bytes-phone-") as profile,
    ):
        # a profile on disk, as a phone's browser has: an incognito context's cache, in memory,
        # keeps no 6.9 MB graph, and a worker fetched the graph the page's head had asked for again
        context = chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, viewport=PHONE, has_touch=True, is_mobile=True
        )
        try:
            page = context.new_page()
            if slowdown != 1:
                page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": slowdown})
            start = time.monotonic()
            page.goto(f"http://{LOOPBACK}:{port}/", wait_until="commit")
            pad = PadDriver(page, touch=True)
            if wait_for_reader(page) != "ready":
                raise RuntimeError("the page's reader did not load")
            ready = time.monotonic() - start
            pad.draw(stroke[:1])  # the digit's first stroke
            revision, in_page = page.evaluate(SHOWN_SCRIPT)
            return {
                "reader ready": ready,
                "stroke read": time.monotonic() - start,
                "in page": in_page and revision is not None,
                "MB": (link.to_browser - carried) / MB,
            }
        finally:
            context.close()
            link.download_mbps = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", metavar="REV", help="also the app of git revision REV")
    parser.add_argument("--phone-link", type=float, metavar="MBPS", help="also a phone far away, its link this fast")
    parser.add_argument("--round-trip", type=float, default=300, help="the phone's round trip, ms (default: 300)")
    parser.add_argument("--visits", type=int, default=3, help="phone visits per app (default: 3)")
    parser.add_argument("--data-dir", default="data", help="MNIST, for the phone's strokes")
    parser.add_argument("--cpu-slowdown", type=float, default=1, help="the phone's CPU slowed so (default: 1)")
    parser.add_argument("--hub", action="store_true", help="also the published Space, its files from a stand-in CDN")
    parser.add_argument("--cdn-round-trip", type=float, default=30, help="ms to the stand-in CDN (default: 30)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    print(
        f"CPU: {cpu_model()}; load {os.getloadavg()}; Chromium headless; bytes counted on the wire towards the browser"
    )
    with ExitStack() as stack:
        apps = {name: (url, None) for name, url in stack.enter_context(serving_apps(args.against)).items()}
        if args.hub:
            apps["the published Space, stand-in CDN"] = stack.enter_context(published_space(args.cdn_round_trip))
            if args.against:
                space = stack.enter_context(published_space(args.cdn_round_trip, args.against))
                apps[f"revision {args.against}'s published Space"] = space
        playwright = stack.enter_context(sync_playwright())
        print("| app | visit | MB from the app | MB from the CDN | the files, largest first |")
        print("| --- | --- | --- | --- | --- |")
        for name, (url, cdn) in apps.items():
            for what, fetched, from_cdn, files in bytes_of_visits(playwright, url, cdn):
                print(f"| {name} | {what} | **{fetched:.2f}** | {from_cdn:.2f} | {by_file(files)} |", flush=True)
        if args.phone_link is None:
            return
        source, rng = stroke_source("mnist", args.data_dir), np.random.default_rng(0)
        strokes = [source.strokes(int(rng.integers(10)), rng, random_box(rng, SIDE)) for _ in range(args.visits)]
        print(
            f"\nA phone page, {args.round_trip:.0f} ms round trip ({args.cdn_round_trip:.0f} ms to the CDN), "
            f"its link held to {args.phone_link:g} Mbit/s, its CPU slowed {args.cpu_slowdown:g}x:"
        )
        print("| app | reader ready, s | first stroke read in the page, s | read in the page | MB by then |")
        print("| --- | --- | --- | --- | --- |")
        for digit in strokes:  # the apps in turn, a visit each
            for name, (url, cdn) in apps.items():
                seen = phone_far_away(
                    playwright.chromium, url, args.round_trip, args.phone_link, digit, args.cpu_slowdown, cdn
                )
                print(
                    f"| {name} | {seen['reader ready']:.1f} | **{seen['stroke read']:.1f}** | "
                    f"{'yes' if seen['in page'] else 'no: the server read it'} | {seen['MB']:.2f} |",
                    flush=True,
                )
        print(f"load at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
