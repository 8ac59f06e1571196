"""The checks of the served page's answers, as the page needs them: each takes an answer's outputs
and says what is wrong with them, None where nothing is. A reading panel, of the digit drawn where
it is known (`reading_problem`), or the empty one; the Figure 4 and routing view that come with
a finished stroke's reading or the empty pad's (`details_problem`), checked with it (`all_of`);
Turn it's panel of the sliders' revision and the sweep of the drawn digit (`turn_problem`); the
Two-digits pair panel of the pad's value, the networks' input holding both pens' ink once both
digits are drawn, with the capsule Decode as names redrawn besides the digits read
(`pair_problem`), or the empty one. The people of
harness/page_crowd.py check every answer with them.
"""

from collections.abc import Callable

from harness.page_pictures import value_picture
from playground import two_digits


def reading_problem(digit: int | None) -> Callable[[list], str | None]:
    """The check of an answer whose last output is the reading panel's value
    (playground/reading_views.py): a reading, of ``digit`` unless None."""

    def problem(outputs: list) -> str | None:
        shown = outputs[-1].get("winner") if isinstance(outputs[-1], dict) else None
        if shown is None:
            return f"no reading in the panel: {str(outputs[-1])[:200]}"
        if digit is not None and shown != digit:
            return f"drew {digit}, the panel reads {shown}"
        return None

    return problem


def empty_problem(outputs: list) -> str | None:
    empty = isinstance(outputs[-1], dict) and outputs[-1].get("revision", "") is None
    return None if empty else f"not the empty panel: {str(outputs[-1])[:200]}"


def turn_problem(revision: int, digit: int | None = None) -> Callable[[list], str | None]:
    """The check of a Turn-it answer: the turn panel's numbers of the sliders' ``revision`` first
    and, where ``digit`` is given (a refresh), the rotation sweep's of that drawn digit after it
    (playground/turn_views.py)."""

    def problem(outputs: list) -> str | None:
        panel = outputs[0] if isinstance(outputs[0], dict) else {}
        if panel.get("revision") != revision:
            return f"not the turn panel of revision {revision}: {str(outputs[0])[:200]}"
        sweep = outputs[1] if digit is not None and isinstance(outputs[1], dict) else {}
        if digit is not None and sweep.get("digit") != digit:
            return f"not the sweep of the drawn {digit}: {str(outputs[1])[:200]}"
        return None

    return problem


def pens_in_the_input(panel: dict) -> set[int]:
    """The pens whose ink the pair panel's value holds in the networks' input (its "layers", each
    pen's ink: playground/two_digits_views.py), at any strength: a small 1 drawn under a large 7 has
    little, all of it in the input."""
    return {pen for pen, layer in enumerate(panel["layers"]) if (value_picture(layer) < 255).any()}


def pair_problem(revision: int, decode_as: str, two: bool = False) -> Callable[[list], str | None]:
    """The check of a Two-digits answer: the pair panel's numbers of the pad's value ``revision``
    (playground/two_digits_views.py), the networks' input holding both pens' ink where ``two`` (both
    digits drawn: whether the networks then read one digit or two is theirs to say), with the capsule
    ``decode_as`` names redrawn besides where it is not one of those read, and none otherwise."""

    def problem(outputs: list) -> str | None:
        panel = outputs[-1] if isinstance(outputs[-1], dict) else {}
        if panel.get("revision") != revision:
            return f"not the pair panel of revision {revision}: {str(outputs[-1])[:200]}"
        read = tuple(str(digit) for digit in panel["read"])
        if two and pens_in_the_input(panel) != {0, 1}:
            return f"both digits drawn, the networks' input lacks a pen's ink: {str(panel)[:200]}"
        besides = decode_as if decode_as != two_digits.TWO_READ and decode_as not in read else None
        if panel["decoded"] != (None if besides is None else int(besides)):
            return (
                f"decoded as {decode_as!r} and read {''.join(read)}, yet {'no' if besides else 'a'} "
                "capsule is redrawn besides those read"
            )
        return None

    return problem


def empty_pair_problem(outputs: list) -> str | None:
    empty = isinstance(outputs[-1], dict) and outputs[-1].get("revision", "") is None
    return None if empty else f"not the empty pair panel: {str(outputs[-1])[:200]}"


def all_of(*problems: Callable[[list], str | None]) -> Callable[[list], str | None]:
    """The check that the answer passes each of ``problems``: the first one's complaint, if any."""

    def problem(outputs: list) -> str | None:
        return next((found for found in (check(outputs) for check in problems) if found), None)

    return problem


def details_problem(reading: bool) -> Callable[[list], str | None]:
    """The check of what comes with a finished stroke's reading (app.py's `read_drawing`: the kept
    reading, Decode as, the sliders, Figure 4, the routing view, the panel): Figure 4's strips and
    the routing's numbers of a reading, or neither for an empty pad."""

    def problem(outputs: list) -> str | None:
        figure4, routing = outputs[3], outputs[4]
        swept = isinstance(figure4, dict) and len(figure4.get("strips", [])) > 0
        routed = isinstance(routing, dict) and len(routing.get("lengths", [])) > 0
        if (swept and routed) if reading else (figure4 is None and routing is None):
            return None
        what = "a reading" if reading else "an empty pad"
        return f"not the details of {what}: {str(figure4)[:100]} {str(routing)[:100]}"

    return problem
