"""A person's hand on the playground's page in the browser: a finger (touch events, through a CDP
session) or the mouse pressed, moved and lifted at page coordinates (`pointer`), at most one move
every MOVE_SECONDS as a screen reports them, and a slider dragged across with the mouse
(`drag_across`). What the drivers of the page's sections (harness/pad_drivers.py,
slider_drivers.py) and the benchmarks move with.
"""

import time

import numpy as np

MOVE_SECONDS = 0.016  # between pointer moves: at most 60 a second, as a screen reports them


def pointer(page, cdp, kind: str, x: float, y: float) -> None:
    """Press ("down"), move or lift ("up") a finger (through ``cdp``, a CDP session of ``page``)
    or, without one, the mouse, at page coordinates (x, y)."""
    if cdp is not None:
        event = {"down": "touchStart", "move": "touchMove", "up": "touchEnd"}[kind]
        points = [] if kind == "up" else [{"x": x, "y": y, "radiusX": 4, "radiusY": 4, "force": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": event, "touchPoints": points})
    elif kind == "down":
        page.mouse.move(x, y)
        page.mouse.down()
    elif kind == "move":
        page.mouse.move(x, y)
    else:
        page.mouse.up()


def drag_across(page, slider, moves: int, inset: float = 8.0) -> None:
    """Press with the mouse on the middle of ``slider`` (a Playwright locator of a range input whose
    thumb is there), drag it to the left end and across to the right end in ``moves`` mouse moves,
    evenly along the way and MOVE_SECONDS apart, and let go; the track's ends are taken ``inset``
    CSS pixels in from the slider's box, where the thumb's centre stops."""
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y, middle = box["y"] + box["height"] / 2, box["x"] + box["width"] / 2
    left, right = box["x"] + inset, box["x"] + box["width"] - inset
    way = np.linspace(0, (middle - left) + (right - left), moves + 1)[1:]  # along the path
    xs = np.where(way <= middle - left, middle - way, left + way - (middle - left))
    page.mouse.move(middle, y)
    page.mouse.down()
    for x in xs:
        moved = time.perf_counter()
        page.mouse.move(float(x), y)
        time.sleep(max(0.0, MOVE_SECONDS - (time.perf_counter() - moved)))
    page.mouse.up()
