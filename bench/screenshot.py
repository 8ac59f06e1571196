"""The picture of the playground in README.md (assets/playground.png), made from the real page.

Starts `python app.py` on 127.0.0.1 (or uses --url), opens the playground in Debian's Chromium
(headless, Playwright) at 1300x1100, draws a digit on the pad with the mouse as
bench.browser_latency does, waits until the page shows its reading and what follows it (the
named sliders, Figure 4, the routing view), then saves the top of the page, down to the end of the
reading panel, as a PNG. Run it again whenever the page changes:

    python -m bench.screenshot                          # writes assets/playground.png
"""

import argparse
from contextlib import nullcontext
from pathlib import Path

from harness.app_server import serving_app
from harness.chromium_browser import DESKTOP, chromium
from harness.paths import REPO
from harness.screenshot import TIMEOUT_MS, photograph

OUT = REPO / "assets" / "playground.png"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the PNG to write (default: assets/playground.png)")
    parser.add_argument("--digit", type=int, default=4, choices=range(10), help="the digit drawn (default 4)")
    parser.add_argument("--url", default=None, help="a running playground (default: start app.py here)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    server = nullcontext(args.url) if args.url else serving_app()
    with server as url, sync_playwright() as playwright, chromium(playwright) as browser:
        page = browser.new_page(viewport=DESKTOP)
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        photograph(page, args.digit, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
