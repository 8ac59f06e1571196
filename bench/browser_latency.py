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
Clear between pairs, every stroke timed likewise until the pair panel (the digits read, their
redrawings, the input, Figure 5, the lengths and the CNN) shows it; its figures are printed apart,
with the pairs read wrong and those read with a 1 that was not drawn. --singles draws that many
single digits there too (pen 1 alone), each to be read as that one digit. --pair-strokes semeion
or mnist draws them in strokes traced from Semeion's digits or MNIST's test digits (other writers,
never trained on; harness/traced_strokes.py) instead of harness/digit_strokes.py's.

    python -m bench.browser_latency --drawings 40
    python -m bench.browser_latency --drawings 20 --phone        # 390x844, drawn with a finger
    python -m bench.browser_latency --drawings 40 --pairs 20     # then 20 pairs of two digits
    python -m bench.browser_latency --drawings 0 --pairs 20 --singles 20 --pair-strokes semeion --data-dir DATA

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import statistics
import time
from contextlib import nullcontext

import numpy as np

from bench.inference_latency import percentile
from bench.train_throughput import cpu_model
from harness.app_server import serving_app
from harness.chromium_browser import DESKTOP, PHONE, chromium
from harness.digit_strokes import overlapping_boxes, random_box, strokes
from harness.pad_drivers import PadDriver, PairDriver
from harness.slider_drivers import TurnDriver
from harness.traced_strokes import stroke_source


def summary(latencies: list[float]) -> str:
    return (
        f"p50 {statistics.median(latencies):.0f} ms, p95 {percentile(latencies, 95):.0f} ms, "
        f"max {max(latencies):.0f} ms"
    )


def kept_up(drawing: dict) -> str:
    """How the readings kept up while strokes were drawn (a pad's PadDriver.drawing())."""
    return (
        f"while drawing: {drawing['readings']} readings reached the page in {drawing['ms'] / 1000:.1f} s "
        f"of strokes, one every {drawing['ms'] / max(drawing['readings'], 1):.0f} ms"
    )


def draw_pairs(
    page, count: int, singles: int, rng: np.random.Generator, touch: bool, source=None
) -> tuple[list, list, list, dict, float]:
    """Scroll to the Two-digits section and draw ``count`` pairs, then ``singles`` single digits
    (pen 1), Clear between them, in harness/digit_strokes.py's strokes or ``source``'s; returns every
    stroke's latency (ms), what was misread (drawn, read), what was read with a 1 not drawn, how the
    readings kept up, and the seconds it took."""
    from playground.drawing_pad import SIDE

    person = PairDriver(page, touch=touch)
    page.locator("#two-digits").scroll_into_view_if_needed()
    latencies, wrong, invented_one = [], [], []
    started = time.perf_counter()
    for drawn in range(count + singles):
        first = drawn % 10
        digits = [first, (first + rng.integers(1, 10)) % 10] if drawn < count else [first]  # another digit
        boxes = overlapping_boxes(rng, SIDE) if drawn < count else [random_box(rng, SIDE)]
        person.clear()
        for pen, (digit, box) in enumerate(zip(digits, boxes, strict=True)):
            person.choose_pen(pen)
            latencies += person.draw(strokes(digit, *box) if source is None else source.strokes(digit, rng, box))
        expected, read = "".join(map(str, digits)), person.reading()
        if sorted(read) != sorted(expected):
            wrong.append((expected, read))
        if "1" in read and "1" not in expected:
            invented_one.append((expected, read))
    return latencies, wrong, invented_one, person.drawing(), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drawings", type=int, default=40, help="digits drawn (default 40)")
    parser.add_argument(
        "--phone",
        action="store_true",
        help="a 390x844 page drawn on with a finger (touch events) instead of a 1300x1100 page and a mouse",
    )
    parser.add_argument("--url", default=None, help="a running playground (default: start app.py here)")
    parser.add_argument(
        "--moves",
        type=int,
        default=5,
        help="moves of the rotation slider after each digit, each timed (default 5; 0: none)",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=0,
        help="pairs of overlapping digits drawn in the Two-digits section after the "
        "digits, each stroke timed (default 0: none)",
    )
    parser.add_argument(
        "--singles",
        type=int,
        default=0,
        help="single digits drawn with pen 1 in the Two-digits section after the pairs (default 0)",
    )
    parser.add_argument(
        "--pair-strokes",
        choices=["hand", "semeion", "mnist"],
        default="hand",
        help="the Two-digits section's strokes: harness/digit_strokes.py's, or traced from "
        "Semeion's digits or MNIST's test digits (default: hand)",
    )
    parser.add_argument(
        "--data-dir", default="./data", help="where semeion/semeion.data and MNIST are (default ./data)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="sizes and places of the digits, of the slider's moves and of the pairs (default 0)",
    )
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from playground.drawing_pad import SIDE

    rng = np.random.default_rng(args.seed)
    latencies, wrong, moves = [], [], []
    server = nullcontext(args.url) if args.url else serving_app()
    with server as url, sync_playwright() as playwright, chromium(playwright) as browser:
        page = browser.new_page(
            viewport=PHONE if args.phone else DESKTOP,
            has_touch=args.phone,
            is_mobile=args.phone,
            device_scale_factor=3 if args.phone else 1,
        )
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
            if args.moves:  # once the Turn-it section, scrolled to, shows this digit
                turner.shown(person.reading())
                moves += turner.drag("rotation", rng.uniform(0.05, 0.95, args.moves).tolist())
        seconds = time.perf_counter() - started
        drawing = person.drawing()
        if args.pairs or args.singles:
            source = stroke_source(args.pair_strokes, args.data_dir)
            pairs, pairs_wrong, invented_one, pairs_drawing, pairs_seconds = draw_pairs(
                page, args.pairs, args.singles, np.random.default_rng(args.seed), args.phone, source
            )

    page_kind = "390x844, touch" if args.phone else "1300x1100, mouse"
    print(f"CPU: {cpu_model()}; page {page_kind}; {args.drawings} digits, {len(latencies)} strokes in {seconds:.0f} s")
    if latencies:
        print(f"stroke end -> digit, bars, network input and reconstruction on the page: {summary(latencies)}")
        print(kept_up(drawing))
        print(f"misread: {len(wrong)} of {args.drawings} {wrong if wrong else ''}")
    if moves:
        print(
            f"rotation slider move -> turned digit, both readings and the pose's moves on the page: "
            f"{summary(moves)} over {len(moves)} moves"
        )
    if args.pairs or args.singles:
        print(
            f"\nTwo digits. CPU: {cpu_model()}; page {page_kind}; {args.pairs} pairs and {args.singles} single "
            f"digits in {args.pair_strokes} strokes, {len(pairs)} strokes in {pairs_seconds:.0f} s"
        )
        print(
            f"stroke end -> the digits read, their redrawings, the input, Figure 5, the lengths and the CNN "
            f"on the page: {summary(pairs)}"
        )
        print(kept_up(pairs_drawing))
        print(f"misread (drawn, read): {len(pairs_wrong)} of {args.pairs + args.singles} {pairs_wrong or ''}")
        print(f"read with a 1 not drawn: {len(invented_one)} {invented_one or ''}")


if __name__ == "__main__":
    main()
