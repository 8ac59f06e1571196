"""The checks of the server's answers to the page's questions (playground/answers.py, POST
/ask/KIND), as the page needs them: each takes an answer (its pictures and floats revived,
harness/page_protocol.py `revived`) and says what is wrong with it, None where nothing is. A reading
of the 28x28 sent, of the digit drawn where it is known, with the routing view's numbers where the
pen is up (`reading_problem`); Figure 4's pictures (`figure4_problem`); the decoder's picture of a
slider's move (`picture_problem`); Turn it's turned digit read by both networks, of the digit drawn
unturned (`turn_problem`); the Two-digits panel's numbers of the fields sent, the networks' input
holding both pens' ink once both digits are drawn, with the capsule Decode as names redrawn besides
the digits read (`pair_problem`), and that capsule redrawn when Decode as changes
(`decoded_problem`). The people of harness/page_crowd.py check every answer with them.
"""

from collections.abc import Callable

import numpy as np

from playground.reading import MAX_ITERATIONS

PICTURE = 28 * 28
HALF_LEVEL = 0.5 / 255 + 1e-6  # a picture sent back as grey levels 0..255


def same_picture(served, sent: np.ndarray) -> bool:
    """Whether ``served`` is the picture ``sent`` (float [784] in [0, 1]), to half a grey level."""
    served = np.asarray(served, dtype=np.float32)
    return served.shape == sent.shape and bool(np.abs(served - sent).max() <= HALF_LEVEL)


def reading_problem(image: np.ndarray, digit: int | None, routed: bool) -> Callable[[dict], str | None]:
    """The check of a reading of ``image`` (float [784]): the network's input is that image, the
    longest capsule ``digit``'s unless None, the decoder's pictures, and where ``routed`` (the pen
    up), the routing view's numbers for r = 1 .. MAX_ITERATIONS and Figure 4 of the winner."""

    def problem(answer: dict) -> str | None:
        if not same_picture(answer.get("image"), image):
            return "not the reading of the image sent"
        lengths = np.asarray(answer["lengths"])
        if lengths.shape != (10,) or np.shape(answer["reconstructions"]["winner"]) != (PICTURE,):
            return f"not a reading: {str(answer)[:200]}"
        if digit is not None and int(lengths.argmax()) != digit:
            return f"drew {digit}, read {int(lengths.argmax())}"
        routing = answer.get("routing")
        if routed and (routing is None or np.shape(routing["lengths"]) != (MAX_ITERATIONS, 10)):
            return f"no routing with the reading of a finished stroke: {str(routing)[:200]}"
        if not routed and routing is not None:
            return "routing with a reading while the pen is down"
        if routed:  # Figure 4's sweep of the winner, which the page would ask next, with it
            follow_ups = answer.get("followUps") or {}
            if follow_ups.get("digit") != int(lengths.argmax()) or "sweep" not in follow_ups:
                return f"no Figure 4 of the winner with the reading of a finished stroke: {str(follow_ups)[:200]}"
            return figure4_problem(follow_ups["steps"])(follow_ups["sweep"])
        return None

    return problem


def figure4_problem(steps: int) -> Callable[[dict], str | None]:
    """The check of Figure 4's pictures: 16 dimensions of ``steps`` pictures each, some inked."""

    def problem(answer) -> str | None:
        pictures = np.asarray(answer)
        if pictures.shape != (16 * steps * PICTURE,) or not (pictures > 0).any():
            return f"not Figure 4's {16 * steps} pictures: shape {pictures.shape}"
        return None

    return problem


def picture_problem(answer) -> str | None:
    """The check of the decoder's picture of a slider's move: one inked 28x28."""
    picture = np.asarray(answer)
    return None if picture.shape == (PICTURE,) and (picture > 0).any() else f"not a picture: {str(answer)[:200]}"


def turn_problem(image: np.ndarray, digit: int | None = None) -> Callable[[dict], str | None]:
    """The check of a turn of ``image``: the turned digit read by the capsules and the CNN; where
    ``digit`` is given (the digit unturned), the turned one is the image sent and read as ``digit``."""

    def problem(answer: dict) -> str | None:
        turned, lengths = np.asarray(answer["turned"]), np.asarray(answer["lengths"])
        if turned.shape != (PICTURE,) or lengths.shape != (10,) or np.shape(answer["probabilities"]) != (10,):
            return f"not a turn read by both networks: {str(answer)[:200]}"
        if digit is not None and not same_picture(turned, image):
            return "unturned, yet not the image sent"
        if digit is not None and int(lengths.argmax()) != digit:
            return f"drew {digit}, the turn panel reads {int(lengths.argmax())}"
        return None

    return problem


def pair_problem(fields: np.ndarray, decode_as: int | None, two: bool = False) -> Callable[[dict], str | None]:
    """The check of a Two-digits answer: the pair panel's numbers of ``fields`` (float [3, 784]:
    the networks' input, then each pen's ink), the networks' input holding both pens' ink where
    ``two`` (both digits drawn: whether the networks then read one digit or two is theirs to say),
    with capsule ``decode_as`` redrawn besides where it is not one of those read, and none
    otherwise."""

    def problem(answer: dict) -> str | None:
        if not same_picture(answer.get("image"), fields[0]):
            return "not the pair panel of the fields sent"
        read = [int(digit) for digit in answer["read"]]
        if two and {pen for pen, layer in enumerate(answer["layers"]) if (np.asarray(layer) > 0).any()} != {0, 1}:
            return f"both digits drawn, the networks' input lacks a pen's ink: {str(answer)[:200]}"
        return decoded_problem(decode_as, read)(answer)

    return problem


def decoded_problem(decode_as: int | None, read: list[int]) -> Callable[[dict], str | None]:
    """The check of capsule ``decode_as`` (None: the two read) redrawn besides the digits ``read``:
    redrawn where it is not one of them, else nothing redrawn."""

    def problem(answer: dict) -> str | None:
        besides = decode_as if decode_as is not None and decode_as not in read else None
        if answer["decoded"] != besides or (answer["decodedRedrawn"] is None) != (besides is None):
            return (
                f"decoded as {decode_as} and read {read}, yet {'no' if besides is not None else 'a'} capsule is redrawn"
            )
        return None

    return problem
