"""From the end of a stroke to its reading on the page, in a real browser.

Starts `python app.py` on 127.0.0.1 (or uses --url), opens the playground in Debian's Chromium
(headless, Playwright) and draws digits as a person does: one to two strokes each at a hand's
pace, of every digit in turn, at random sizes and places on the pad, with Clear between digits.
The page times every stroke itself: from the stroke's pointerup to the animation frame after the
digit, the bars, the network's input and the reconstruction all show that stroke's drawing.
Prints p50 / p95 / max over all strokes, and how the readings kept up while strokes were drawn.
After each digit, once the Turn-it section shows it, the rotation slider is dragged to --moves
random places one move at a time, and the page times each move likewise: from the slider's input
event to the animation frame after the turn panel (the turned digit, both networks' readings, the
pose's moves) shows it.
With --pairs, the Two-digits section follows, scrolled to: pairs of digits drawn over each other,
pen 1's digit then pen 2's moved by up to 8/28 of its box each way (one or two strokes each), with
Clear between pairs, every stroke timed likewise until the pair panel (the two digits, their
redrawings, the input, Figure 5, the lengths and the CNN) shows it; its figures are printed apart.

    python -m bench.browser_latency --drawings 40
    python -m bench.browser_latency --drawings 20 --phone        # 390x844, drawn with a finger
    python -m bench.browser_latency --drawings 40 --pairs 20     # then 20 pairs of two digits

The figures it measured, with the machine: docs/benchmarks.md.
"""
import argparse
import statistics
import time
from contextlib import nullcontext

import numpy as np

from bench.inference_latency import percentile
from bench.train_throughput import cpu_model
from tests.app_server import serving_app
from tests.browser_drawing import DESKTOP, PHONE, PadDriver, PairDriver, TurnDriver, chromium
from tests.digit_strokes import overlapping_boxes, random_box, strokes


def summary(latencies: list[float]) -> str:
    return (f"p50 {statistics.median(latencies):.0f} ms, p95 {percentile(latencies, 95):.0f} ms, "
            f"max {max(latencies):.0f} ms")


def kept_up(drawing: dict) -> str:
    """How the readings kept up while strokes were drawn (a pad's PadDriver.drawing())."""
    return (f"while drawing: {drawing['readings']} readings reached the page in {drawing['ms'] / 1000:.1f} s "
            f"of strokes, one every {drawing['ms'] / max(drawing['readings'], 1):.0f} ms")


def draw_pairs(page, count: int, rng: np.random.Generator, touch: bool) -> tuple[list, list, dict, float]:
    """Scroll to the Two-digits section and draw ``count`` pairs, Clear between them; returns every
    stroke's latency (ms), the misread pairs, how the readings kept up, and the seconds it took."""
    from playground.drawing_pad import SIDE

    person = PairDriver(page, touch=touch)
    page.locator("#two-digits").scroll_into_view_if_needed()
    latencies, wrong = [], []
    started = time.perf_counter()
    for drawn in range(count):
        first = drawn % 10
        second = (first + rng.integers(1, 10)) % 10                      # another digit
        boxes = overlapping_boxes(rng, SIDE)
        person.clear()
        for pen, (digit, box) in enumerate(zip((first, second), boxes)):
            person.choose_pen(pen)
            latencies += person.draw(strokes(digit, *box))
        if sorted(person.reading()) != sorted(f"{first}{second}"):
            wrong.append((f"{first}{second}", person.reading()))
    return latencies, wrong, person.drawing(), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drawings", type=int, default=40, help="digits drawn (default 40)")
    parser.add_argument("--phone", action="store_true",
                        help="a 390x844 page drawn on with a finger (touch events) instead of a "
                             "1300x1100 page and a mouse")
    parser.add_argument("--url", default=None, help="a running playground (default: start app.py here)")
    parser.add_argument("--moves", type=int, default=5,
                        help="moves of the rotation slider after each digit, each timed (default 5; 0: none)")
    parser.add_argument("--pairs", type=int, default=0,
                        help="pairs of overlapping digits drawn in the Two-digits section after the "
                             "digits, each stroke timed (default 0: none)")
    parser.add_argument("--seed", type=int, default=0, help="sizes and places of the digits, of the slider's "
                                                            "moves and of the pairs (default 0)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from playground.drawing_pad import SIDE

    rng = np.random.default_rng(args.seed)
    latencies, wrong, moves = [], [], []
    server = nullcontext(args.url) if args.url else serving_app()
    with server as url, sync_playwright() as playwright, chromium(playwright) as browser:
        page = browser.new_page(viewport=PHONE if args.phone else DESKTOP, has_touch=args.phone,
                                is_mobile=args.phone, device_scale_factor=3 if args.phone else 1)
        page.goto(url)
        person = PadDriver(page, touch=args.phone)
        turner = TurnDriver(page, touch=args.phone) if args.moves else None
        started = time.perf_counter()
        for drawing in range(args.drawings):
            digit = drawing % 10
            person.clear()
            latencies += person.draw(strokes(digit, *random_box(rng, SIDE)))
            if person.reading() != str(digit):
                wrong.append((digit, person.reading()))
            if args.moves:   # once the Turn-it section, scrolled to, shows this digit
                turner.shown(person.reading())
                moves += turner.drag("rotation", rng.uniform(0.05, 0.95, args.moves).tolist())
        seconds = time.perf_counter() - started
        drawing = person.drawing()
        if args.pairs:
            pairs, pairs_wrong, pairs_drawing, pairs_seconds = draw_pairs(
                page, args.pairs, np.random.default_rng(args.seed), args.phone)

    page_kind = "390x844, touch" if args.phone else "1300x1100, mouse"
    print(f"CPU: {cpu_model()}; page {page_kind}; {args.drawings} digits, {len(latencies)} strokes "
          f"in {seconds:.0f} s")
    print(f"stroke end -> digit, bars, network input and reconstruction on the page: {summary(latencies)}")
    print(kept_up(drawing))
    print(f"misread: {len(wrong)} of {args.drawings} {wrong if wrong else ''}")
    if moves:
        print(f"rotation slider move -> turned digit, both readings and the pose's moves on the page: "
              f"{summary(moves)} over {len(moves)} moves")
    if args.pairs:
        print(f"\nTwo digits. CPU: {cpu_model()}; page {page_kind}; {args.pairs} pairs, {len(pairs)} strokes "
              f"in {pairs_seconds:.0f} s")
        print(f"stroke end -> the two digits, their redrawings, the input, Figure 5, the lengths and the CNN "
              f"on the page: {summary(pairs)}")
        print(kept_up(pairs_drawing))
        print(f"misread pairs: {len(pairs_wrong)} of {args.pairs} {pairs_wrong if pairs_wrong else ''}")


if __name__ == "__main__":
    main()
