"""What the Turn-it section shows, drawn from plain arrays: the turn panel (the turned digit, both
networks' readings, how the drawn digit's capsule moved) and the rotation sweep (your digit beside
MNIST's test digits), each one piece of HTML: one output for the page to update.
"""

import html
from dataclasses import dataclass

import numpy as np

from playground.views import lengths_svg, picture_html

CAPSNET, CNN = "capsnet", "cnn"  # each network's CSS class: its colour in every chart


@dataclass(frozen=True)
class Turned:
    """What both networks make of the drawing, turned."""

    image: np.ndarray  # the turned network input, [28, 28] in [0, 1]
    lengths: np.ndarray  # the CapsNet's capsule lengths |v_j|, [10]
    winner: int  # the CapsNet's reading: the longest capsule
    reconstruction: np.ndarray  # the decoder's picture of the winner, [28, 28] in [0, 1]
    moved: np.ndarray  # the drawn digit's capsule, turned minus as drawn, [16]
    probabilities: np.ndarray  # the CNN's softmax, [10]
    cnn_winner: int  # the CNN's reading


@dataclass(frozen=True)
class Sweep:
    """Both networks on the drawing turned through ``angles``."""

    digit: int  # the drawn digit: the CapsNet's reading of the unturned drawing
    angles: np.ndarray  # degrees, counter-clockwise, [A]
    lengths: np.ndarray  # the CapsNet's length of capsule ``digit`` at each angle, [A]
    readings: np.ndarray  # the CapsNet's reading at each angle, [A]
    probabilities: np.ndarray  # the CNN's probability of ``digit`` at each angle, [A]
    cnn_readings: np.ndarray  # the CNN's reading at each angle, [A]


@dataclass(frozen=True)
class Curve:
    """Accuracy over MNIST's test digits turned through ``angles`` (weights/robustness.json)."""

    angles: np.ndarray  # degrees, [A]
    capsnet: np.ndarray  # the CapsNet's accuracy at each angle, in [0, 1], [A]
    cnn: np.ndarray  # the CNN's, [A]
    images: int  # how many test digits each figure is over


def turn_panel(
    turned: Turned, drawn: int, drawn_length: float, names: list[str], pose_limit: float, revision: int
) -> str:
    """The turn panel: the turned input and the CapsNet's reconstruction of its winner; the
    CapsNet's reading and lengths beside the CNN's reading and probabilities; a bar for each of
    the 16 dimensions of the drawn digit's capsule, how far it moved from the unturned one.

    Args:
        turned: what both networks make of the turned drawing.
        drawn: the CapsNet's reading of the unturned drawing, whose capsule the bars follow.
        drawn_length: that capsule's length, unturned.
        names: the 16 dimensions' labels, in dimension order.
        pose_limit: the move that fills a bar's half.
        revision: the transform sliders' revision this panel shows.
    """
    kept = turned.winner == drawn
    capsnet = (
        f'<div class="verdict {CAPSNET}"><span>CapsNet reads</span> <b>{turned.winner}</b>'
        f"<small>capsule length {float(turned.lengths[turned.winner]):.3f}</small></div>"
    )
    cnn = (
        f'<div class="verdict {CNN}"><span>CNN reads</span> <b>{turned.cnn_winner}</b>'
        f"<small>probability {float(turned.probabilities[turned.cnn_winner]):.3f}</small></div>"
    )
    length = float(np.linalg.norm(np.asarray(turned.moved)))
    pose = (
        f'<figure class="pose"><figcaption>Capsule {drawn}, turned minus as drawn: how each of its '
        f"{len(names)} dimensions moved (a half bar is ±{pose_limit:g}; |Δv| = {length:.3f}; its length "
        f"{drawn_length:.3f} → {float(turned.lengths[drawn]):.3f}"
        f"{'' if kept else ', no longer the longest'})</figcaption>"
        f"{pose_bars(turned.moved, names, pose_limit)}</figure>"
    )
    return (
        f'<div class="turn" data-revision="{revision}">'
        f'<figure class="turned"><figcaption>Turned: what both networks read</figcaption>'
        f"{picture_html(turned.image, 'your digit, turned')}</figure>"
        f'<figure class="redrawn"><figcaption>CapsNet redraws capsule {turned.winner}</figcaption>'
        f"{picture_html(turned.reconstruction, f'the reconstruction from capsule {turned.winner}')}</figure>"
        f'<div class="capsnet-reading">{capsnet}'
        f"{lengths_svg(turned.lengths, turned.winner)}</div>"
        f'<div class="cnn-reading">{cnn}'
        f"{lengths_svg(turned.probabilities, turned.cnn_winner, 'the CNN probabilities')}</div>"
        f"{pose}</div>"
    )


def pose_bars(moved: np.ndarray, names: list[str], limit: float) -> str:
    """A bar per dimension from the middle of its track, right for up, left for down; a move
    beyond ``limit`` fills its half and is marked."""
    rows = []
    for name, value in zip(names, np.asarray(moved, dtype=float), strict=True):
        fraction = min(abs(value) / limit, 1.0)
        side = "left: 50%" if value >= 0 else f"left: {50 - 50 * fraction:.1f}%"
        beyond = " beyond" if abs(value) > limit else ""
        label = html.escape(name)
        rows.append(
            f'<div class="dimension-move"><span class="name" title="{label}">{label}</span>'
            f'<span class="track"><span class="bar{beyond}" style="{side}; width: {50 * fraction:.1f}%">'
            f'</span></span><span class="value">{value:+.3f}</span></div>'
        )
    return f'<div class="pose-bars">{"".join(rows)}</div>'


def empty_turn_panel(text: str) -> str:
    """The turn panel with no digit to turn, saying what to do."""
    return f'<div class="turn empty">{html.escape(text)}</div>'


def turn_message(text: str) -> str:
    """The turn panel saying why it cannot turn the digit."""
    return f'<div class="turn message" role="alert">{html.escape(text)}</div>'


def first_misreads(angles: np.ndarray, readings: np.ndarray, digit: int) -> list[int]:
    """The indices of the first angles, going out from the one nearest 0 either way, at which
    ``readings`` is not ``digit``: none, one or two (the unturned one, if it is misread itself)."""
    angles, readings = np.asarray(angles), np.asarray(readings)
    middle = int(np.argmin(np.abs(angles)))
    if readings[middle] != digit:
        return [middle]
    found = []
    for way in (range(middle - 1, -1, -1), range(middle + 1, len(angles))):
        found += [next((i for i in way if readings[i] != digit), None)]
    return [i for i in found if i is not None]


# The charts' frame, in SVG units: the plot spans x in [LEFT, RIGHT], y in [TOP, BOTTOM].
WIDTH, LEFT, RIGHT, TOP, BOTTOM = 360, 56, 350, 14, 134
READING_ROWS = 30  # under a chart of your digit: a row of each network's readings


def degrees(angle: float) -> str:
    """ "+40°", "0°", "−40°" (a minus sign, not a hyphen)."""
    return f"{angle:+.0f}°".replace("+0°", "0°").replace("-", "−")


def _x(angle: float, angles: np.ndarray) -> float:
    low, high = float(angles[0]), float(angles[-1])
    return LEFT + (RIGHT - LEFT) * (angle - low) / (high - low)


def _y(value: float) -> float:
    return BOTTOM - (BOTTOM - TOP) * float(np.clip(value, 0, 1))


def _frame(angles: np.ndarray, height: int, label: str) -> str:
    """Axes of a chart over ``angles`` (degrees) and [0, 1], ticks every 45 degrees."""
    ticks = []
    for angle in range(int(angles[0]) // 45 * 45, int(angles[-1]) + 1, 45):
        if angles[0] <= angle <= angles[-1]:
            x = _x(angle, angles)
            ticks.append(
                f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{BOTTOM}"/>'
                f'<text class="tick" x="{x:.1f}" y="{BOTTOM + 12}">{degrees(angle)}</text>'
            )
    for value in (0, 0.5, 1):
        y = _y(value)
        ticks.append(
            f'<line class="grid" x1="{LEFT}" x2="{RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick value" x="{LEFT - 4}" y="{y + 3:.1f}">{value:g}</text>'
        )
    return (
        f'<svg class="sweep-chart" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{html.escape(label)}">'
        f"{''.join(ticks)}"
    )


def _line(angles: np.ndarray, values: np.ndarray, network: str, title: str) -> str:
    points = " ".join(f"{_x(a, angles):.1f},{_y(v):.1f}" for a, v in zip(angles, values, strict=True))
    return f'<polyline class="curve {network}" points="{points}"><title>{html.escape(title)}</title></polyline>'


def sweep_svg(sweep: Sweep) -> str:
    """Your digit turned: the CapsNet's length of the drawn digit's capsule and the CNN's
    probability of that digit at each angle, a dashed line where each first reads another digit,
    and under the chart a row of each network's readings, the other digits marked.

    The page fills this layout with a sweep of its own (playground/page/sweep_fill.js): a curve's
    points, one per angle, and each network's marks, a rect then its digit, in the angles' order."""
    angles = sweep.angles
    parts = [
        _frame(angles, BOTTOM + 20 + READING_ROWS, f"your {sweep.digit}, turned"),
        _line(angles, sweep.lengths, CAPSNET, f"CapsNet: length of capsule {sweep.digit}"),
        _line(angles, sweep.probabilities, CNN, f"CNN: probability of {sweep.digit}"),
    ]
    cell = (RIGHT - LEFT) / max(len(angles) - 1, 1)
    for row, (network, readings) in enumerate(((CAPSNET, sweep.readings), (CNN, sweep.cnn_readings))):
        y = BOTTOM + 20 + 14 * row
        parts.append(
            f'<text class="row-name {network}" x="{LEFT - 4}" y="{y + 9}">'
            f"{'caps' if network == CAPSNET else 'cnn'}</text>"
        )
        for angle, reading in zip(angles, readings, strict=True):
            if reading != sweep.digit:
                x = _x(angle, angles)
                parts.append(
                    f'<rect class="misread {network}" x="{x - cell / 2:.1f}" y="{y}" '
                    f'width="{cell:.1f}" height="12"/>'
                    f'<text class="misread-digit" x="{x:.1f}" y="{y + 9}">{int(reading)}</text>'
                )
        for index in first_misreads(angles, readings, sweep.digit):
            x = _x(angles[index], angles)
            parts.append(
                f'<line class="first-misread {network}" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" '
                f'y2="{y + 12}"><title>{"CapsNet" if network == CAPSNET else "CNN"} first reads '
                f"{int(readings[index])} at {degrees(angles[index])}</title></line>"
            )
    return "".join(parts) + "</svg>"


def curve_svg(curve: Curve) -> str:
    """MNIST's test digits turned: each network's accuracy at each angle."""
    angles = curve.angles
    return (
        _frame(angles, BOTTOM + 20, "accuracy on MNIST's test digits, turned")
        + _line(angles, curve.capsnet, CAPSNET, "CapsNet: accuracy")
        + _line(angles, curve.cnn, CNN, "CNN: accuracy")
        + "</svg>"
    )


def misread_text(sweep: Sweep, readings: np.ndarray, network: str) -> str:
    """ "first reads 1 at +40° and 4 at −35°", or that it reads the digit at every angle."""
    found = first_misreads(sweep.angles, readings, sweep.digit)
    if not found:
        return f"reads {sweep.digit} at every angle"
    return "first reads " + " and ".join(f"{int(readings[i])} at {degrees(sweep.angles[i])}" for i in found)


def sweep_html(sweep: Sweep | None, curve: Curve | None, missing_curve: str, reading: str) -> str:
    """The rotation sweep: your digit's chart beside MNIST's test digits' (or why there is none).

    Args:
        sweep: both networks on this drawing turned, or None before any drawing.
        curve: the measured accuracy over MNIST's test digits, or None.
        missing_curve: what to say in the MNIST chart's place where ``curve`` is None.
        reading: the drawing pad's revision of the reading swept ("" for none), for the page to
            tell which reading the section shows.
    """
    legend = (
        f'<span class="key {CAPSNET}">CapsNet: length of the drawn digit\'s capsule</span>'
        f'<span class="key {CNN}">CNN: probability of the drawn digit</span>'
    )
    if sweep is None:
        mine = '<div class="sweep-empty">Draw a digit to see how far either network reads it turned.</div>'
    else:
        mine = (
            f"<figcaption>Your {sweep.digit}, turned {degrees(sweep.angles[0])} … {degrees(sweep.angles[-1])}"
            f"</figcaption>{sweep_svg(sweep)}"
            f'<p class="misreads"><span class="{CAPSNET}">CapsNet {misread_text(sweep, sweep.readings, CAPSNET)}'
            f'</span>; <span class="{CNN}">CNN {misread_text(sweep, sweep.cnn_readings, CNN)}</span></p>'
        )
    if curve is None:
        theirs = f'<div class="sweep-empty">{html.escape(missing_curve)}</div>'
    else:
        theirs = f"<figcaption>MNIST test digits ({curve.images:,}), turned: accuracy</figcaption>{curve_svg(curve)}"
    return (
        f'<div class="sweep" data-reading="{html.escape(reading)}"><div class="legend">{legend}</div>'
        f'<figure class="mine">{mine}</figure><figure class="theirs">{theirs}</figure></div>'
    )
