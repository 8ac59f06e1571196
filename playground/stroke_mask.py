"""The pen's ink: the pixels a stroke covers, exactly as the page's pen draws it (a pixel is ink
where its centre lies within half the pen's width of a stroke), at a cost bounded by the rows the
strokes cover. The drawing pad inks with it (`drawing_pad.inks`); playground/page/stroke_mask.js
ports it, number for number."""

import numpy as np

SPAN_STEP = 8  # `stroke_mask` rounds a segment's rows up to a multiple of this, to span those of a height together
PAIRS_AT_ONCE = 2**15  # (segment, row) pairs `stroke_mask` spans at once: float64 arrays of 256 KiB
ROUNDING = 1 / 16  # `stroke_mask` weighs a pixel exactly where its centre lies this near a span's end: pad units
TANGENT_SLACK = 1e-9  # squared pad units a row may pass beyond a pen's round end and still be spanned: rounding's size


def stroke_mask(mask: np.ndarray, *strokes: np.ndarray, brush: float) -> None:
    """Mark in ``mask`` [side, side] the pixels whose centre (column + 0.5, row + 0.5) lies within
    ``brush`` / 2 of one of ``strokes`` (each [n, 2], a dot for one point), each as `_pixel_inked`
    weighs it, at a cost of the rows the segments cover rather than the pixels.

    A segment's ink, every point within ``brush`` / 2 of it, is convex: a round-ended capsule. So each
    row it covers holds one span of inked columns, whose ends `_capsule_span` finds analytically.
    Rounding parts those ends from the exact formula's by far less than ROUNDING (at most a few
    thousandths of a pixel, where a nearly level side crosses a row at a glancing angle); so the
    pixels between the ends are ink and those beyond them are not, but for a pixel whose centre
    lies within ROUNDING of an end, which `_span_end` weighs exactly. The spans are counted into a
    difference array a row (+1 at a span's first column, -1 past its last), whose running sums
    are the ink.

    The segments are spanned SPAN_STEP rows at a time (a segment's rows rounded up to a multiple
    of it), those of a height together, PAIRS_AT_ONCE (segment, row) pairs at once."""
    if not strokes:
        return
    side, radius = mask.shape[0], brush / 2
    starts, ends = (np.concatenate(parts) for parts in zip(*map(_segments, strokes), strict=True))  # [k, 2] (x, y)
    first = np.clip(np.floor(np.minimum(starts[:, 1], ends[:, 1]) - radius), 0, side).astype(int)  # [k] first row
    past = np.clip(np.ceil(np.maximum(starts[:, 1], ends[:, 1]) + radius), 0, side).astype(int)  # [k] the row past
    height = np.minimum(-(-(past - first) // SPAN_STEP) * SPAN_STEP, side)  # [k] rounded-up rows
    top = np.minimum(first, side - height)  # [k] the rounded-up rows' first, on the pad
    on_pad = past > first  # [k]
    changes = np.zeros(side * (side + 1), dtype=int)  # a row of side + 1 a pad row: +1 a span starts, -1 past it
    for h in np.unique(height[on_pad]).tolist():
        group = np.flatnonzero(on_pad & (height == h))
        at_once = max(PAIRS_AT_ONCE // h, 1)
        for chunk in np.split(group, range(at_once, len(group), at_once)):
            (ax, ay), (bx, by) = starts[chunk].T[..., None], ends[chunk].T[..., None]  # each [n, 1]
            row = top[chunk, None] + np.arange(h)  # [n, h]
            y = row + 0.5  # [n, h] pixel centres
            lo, hi = _capsule_span(ax, ay, bx, by, y, radius)  # [n, h] each
            start = np.clip(_span_end(lo, 1, y, (ax, ay, bx, by), radius), 0, side)  # [n, h] first inked column
            stop = np.clip(
                _span_end(hi, -1, y, (ax, ay, bx, by), radius) + 1, start, side
            )  # [n, h] the column past the last
            at = row * (side + 1)  # [n, h] each row's place in `changes`
            np.add.at(changes, at + start.astype(int), 1)
            np.add.at(changes, at + stop.astype(int), -1)
    mask |= np.cumsum(changes.reshape(side, side + 1), axis=1)[:, :side] > 0


def _segments(stroke: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The segments of ``stroke`` [n, 2]: their starts and ends, float64 [k, 2] (x, y) each; one
    point is a segment of no length, a dot."""
    points = stroke.astype(np.float64)
    return (points[:-1], points[1:]) if len(points) > 1 else (points, points)


def _pixel_inked(x: np.ndarray, y: np.ndarray, ax, ay, bx, by, radius: float) -> np.ndarray:
    """Whether the point (x, y) lies within ``radius`` of the segment from (ax, ay) to (bx, by),
    all broadcast together: the pen's definition, in the float64 operations page/stroke_mask.js
    repeats one by one."""
    dx, dy = bx - ax, by - ay
    squared_length = dx * dx + dy * dy
    along = ((x - ax) * dx + (y - ay) * dy) / np.where(squared_length == 0, 1, squared_length)  # 0 for a dot
    t = np.minimum(np.maximum(along, 0), 1)  # the nearest point's place on the segment
    ex, ey = x - (ax + t * dx), y - (ay + t * dy)  # from it
    return ex * ex + ey * ey <= radius * radius


def _capsule_span(ax, ay, bx, by, y: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Where the row of height ``y`` [n, h] enters and leaves the capsule of each segment (ax, ay)
    to (bx, by) (each [n, 1]): x from lo to hi (each [n, h]), inf and -inf where it misses.

    The capsule's edge is two half circles about the ends and two sides, the segment moved
    ``radius`` along its normal; a row's span is the hull of where it crosses them: the circles'
    chords and the sides' crossings that lie between their ends."""
    with np.errstate(divide="ignore", invalid="ignore"):  # NaN: a chord that misses; inf: a level side
        # (x - px)² + (y - py)² = r²  =>  x = px ± √(r² - (y - py)²); TANGENT_SLACK keeps a row that
        # rounding alone puts beyond an end's circle
        half_a = np.sqrt(radius * radius + TANGENT_SLACK - (y - ay) ** 2)  # [n, h]
        half_b = np.sqrt(radius * radius + TANGENT_SLACK - (y - by) ** 2)  # [n, h]
        lo, hi = np.fmin(ax - half_a, bx - half_b), np.fmax(ax + half_a, bx + half_b)  # [n, h] NaN if both miss
        dx, dy = bx - ax, by - ay  # [n, 1]
        length = np.sqrt(dx * dx + dy * dy)
        # the left side: the segment moved by r·n, n = (-|dy|, sign(dy)·dx) / length the unit
        # normal pointing to smaller x; the right side moved by -r·n
        shift_x, shift_y = -radius * np.abs(dy) / length, radius * np.sign(dy) * dx / length  # [n, 1]
        t_left = (y - (ay + shift_y)) / dy  # [n, h] where the row crosses the left side, 0..1 between its ends
        t_right = (y - (ay - shift_y)) / dy  # [n, h] the right side
        lo = np.fmin(lo, np.where((t_left >= 0) & (t_left <= 1), ax + shift_x + t_left * dx, np.inf))
        hi = np.fmax(hi, np.where((t_right >= 0) & (t_right <= 1), ax - shift_x + t_right * dx, -np.inf))
    return lo, hi


def _span_end(end: np.ndarray, step: int, y: np.ndarray, segments: tuple, radius: float) -> np.ndarray:
    """The first (``step`` 1) or last (-1) inked column of the rows ``y`` [n, h] whose span starts
    or ends at x = ``end`` [n, h], of the ``segments`` (ax, ay, bx, by), each [n, 1]: the first
    centre at or after it, or the last at or before it, but for a centre within ROUNDING of it,
    which `_pixel_inked` weighs (its neighbour inward is then the end if it is not ink). float
    [n, h], ±inf where the row misses."""
    place = end - 0.5  # [n, h] the end, in columns: column c's centre is at c + 0.5
    column = np.ceil(place) if step == 1 else np.floor(place)
    nearest = np.rint(place)
    with np.errstate(invalid="ignore"):  # inf - inf: a row the capsule misses
        doubtful = np.flatnonzero(np.abs(place - nearest) < ROUNDING)  # a centre about on the end
    segment = doubtful // end.shape[1]
    near = nearest.flat[doubtful]
    inked = _pixel_inked(near + 0.5, y.flat[doubtful], *(p.flat[segment] for p in segments), radius)
    column.flat[doubtful] = np.where(inked, near, near + step)
    return column
