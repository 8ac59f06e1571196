"""A visitor far from the server taps an example as soon as the examples show.

Starts `python app.py` on 127.0.0.1 and, with --against REV, the app of git revision REV beside it;
the two are visited in turn. For each round trip of --round-trips, a proxy on loopback
(harness/delaying_proxy.py) delays every byte between Chromium and the app by half the round
trip each way. Each visit is a new visitor (a fresh browser context, nothing cached) on a desktop
page with a mouse, or with --phone on a phone's page with a finger: it opens the page, waits until
the pad's examples are on the screen, and taps one at once (Playwright's tap or click, which waits
only until the button can be hit), visit i the example i mod 10. Then it waits --wait seconds at
most for what follows a reading of that digit: the reading panel shows it, Figure 4 has its 16
rows, and the routing view names it the winner.

The page itself notes when each of these first held (a MutationObserver from before the page's
own scripts run: WATCH_SCRIPT), with the moment the examples showed and the moment the pad was
ready (its module mounted: the pad's element has data-revision). Prints, per app and round trip,
the visits whose three panels all came, the median and the worst of: the examples' time, the pad
ready after the examples, and each panel after the later of the tap and the pad being ready; with
the CPU.

With --loaded, each visitor waits until the page's networks are ready (its reader loaded) before
tapping: what a visitor gets for every tap after the first, at that distance from the server.

    python -m bench.first_tap --round-trips 150 300 --visits 10 [--phone] [--loaded] [--against REV]
"""

import argparse
import time
from contextlib import ExitStack

import numpy as np

from bench.train_throughput import cpu_model
from harness.app_server import serving_apps
from harness.chromium_browser import DESKTOP, PHONE, chromium
from harness.delaying_proxy import LOOPBACK, delaying_proxy

# In the page, before its own scripts: the first moment (performance.now()) each of these held,
# in window.firstTap: the examples on the screen, the pad's module mounted, the tap, and once
# window.firstTap.digit is set, the reading panel, Figure 4 and the routing view showing that digit.
WATCH_SCRIPT = """
(() => {
  const seen = (window.firstTap = {});
  const visible = (element) => element !== null && element.getBoundingClientRect().width > 0;
  const holds = {
    examples: () => visible(document.querySelector('#pad button.example img')),
    padReady: () => document.querySelector('#pad [data-revision]') !== null,
    reading: () =>
      seen.digit !== undefined &&
      document.querySelector('#reading-panel .panel .reading .digit')?.textContent.trim() === seen.digit,
    figure4: () => seen.digit !== undefined && document.querySelectorAll('#figure4 th[scope=row]').length === 16,
    routing: () =>
      seen.digit !== undefined &&
      (document.querySelector('#routing')?.textContent ?? '').includes(`winner ${seen.digit}:`),
  };
  const look = () => {
    for (const [name, test] of Object.entries(holds)) {
      if (seen[name] === undefined && test()) seen[name] = performance.now();
    }
  };
  window.firstTapLook = look;
  new MutationObserver(look).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
  document.addEventListener('pointerdown', (event) => {
    if (seen.tap === undefined && event.target.closest?.('#pad button.example')) seen.tap = performance.now();
  }, true);
})();
"""
PANELS = ("reading", "figure4", "routing")
# In the page: where its reader stands, from the networks module it preloads (page_networks.js)
READER_STATE = """
async () => {
  const link = document.querySelector('link[rel=modulepreload][href$="/page_networks.js"]');
  return link ? (await import(link.href)).readerState() : 'waiting';
}
"""


def visit(browser, url: str, example: int, phone: bool, wait_s: float, loaded: bool = False) -> dict:
    """One fresh visit: the example tapped as soon as it shows, or once the page's reader is ready
    (``loaded``); what the page noted (ms from its start)."""
    context = browser.new_context(viewport=PHONE if phone else DESKTOP, has_touch=phone, is_mobile=phone)
    try:
        page = context.new_page()
        page.add_init_script(WATCH_SCRIPT)
        page.goto(url, wait_until="commit")
        button = page.locator("#pad button.example").nth(example)
        button.wait_for(state="visible", timeout=120_000)
        digit = button.get_attribute("title").split()[-1]
        deadline = time.monotonic() + 120
        while loaded and page.evaluate(READER_STATE) == "waiting" and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        if loaded and page.evaluate(READER_STATE) != "ready":
            raise RuntimeError("the page's reader did not load")
        page.evaluate("(digit) => { window.firstTap.digit = digit; window.firstTapLook(); }", digit)
        button.tap() if phone else button.click()
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            seen = page.evaluate("window.firstTap")
            if all(name in seen for name in PANELS):
                break
            page.wait_for_timeout(100)
        return page.evaluate("window.firstTap")
    finally:
        context.close()


def after(seen: dict, name: str) -> float | None:
    """Milliseconds from the later of the tap and the pad being ready to ``name``, None if it never came."""
    if name not in seen or "tap" not in seen:
        return None
    return seen[name] - max(seen["tap"], seen.get("padReady", seen["tap"]))


def spread(values: list[float | None]) -> str:
    """'median / worst ms', a missing value counting as the worst."""
    if not values:
        return "-"
    known = [v for v in values if v is not None]
    worst = "never" if len(known) < len(values) else f"{max(known):,.0f}"
    return f"{np.median(known):,.0f} / {worst}" if known else "never"


def report(name: str, round_trip: int, phone: bool, visits: list[dict]) -> None:
    whole = sum(all(name in seen for name in PANELS) for seen in visits)
    within = sum(all((after(seen, p) or np.inf) <= 1000 for p in PANELS) for seen in visits)
    examples = [seen.get("examples") for seen in visits]
    ready = [seen["padReady"] - seen["examples"] if "padReady" in seen else None for seen in visits]
    cells = [
        name,
        f"{round_trip} ms",
        "phone, touch" if phone else "desktop, mouse",
        f"{whole} of {len(visits)}",
        f"{within} of {len(visits)}",
        spread(examples),
        spread(ready),
        *(spread([after(seen, p) for seen in visits]) for p in PANELS),
    ]
    print("| " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--round-trips", type=int, nargs="+", default=[150, 300], help="ms (default: 150 300)")
    parser.add_argument("--visits", type=int, default=10, help="fresh visits per app and round trip (default: 10)")
    parser.add_argument("--phone", action="store_true", help="a phone's page (390x844) and a finger")
    parser.add_argument("--against", metavar="REV", help="also the app of git revision REV, visited in turn")
    parser.add_argument("--wait", type=float, default=15.0, help="seconds to wait for the panels (default: 15)")
    parser.add_argument("--loaded", action="store_true", help="tap once the page's networks are ready")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    print(f"CPU: {cpu_model()}")
    print(
        "| app | round trip | page | all three came | each within 1 s of the pad ready | examples shown, "
        "median / worst ms | pad ready after them | reading after tap and pad | Figure 4 | routing view |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with ExitStack() as stack:
        apps = stack.enter_context(serving_apps(args.against))
        browser = stack.enter_context(chromium(stack.enter_context(sync_playwright())))
        for round_trip in args.round_trips:
            visits = {name: [] for name in apps}
            ports = {
                name: stack.enter_context(delaying_proxy(int(url.rstrip("/").rsplit(":", 1)[1]), round_trip))
                for name, url in apps.items()
            }
            for i in range(args.visits):
                for name in apps:
                    url = f"http://{LOOPBACK}:{ports[name]}/"
                    visits[name].append(visit(browser, url, i % 10, args.phone, args.wait, args.loaded))
            for name in apps:
                report(name, round_trip, args.phone, visits[name])


if __name__ == "__main__":
    main()
