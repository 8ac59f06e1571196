"""The server's answers to the page's questions: the questions the page's network worker answers
(playground/page/network_worker.js), asked of the server instead where the page cannot compute (no
Worker or WebAssembly, the runtime's files refused, or not loaded yet: page_networks.js, the one
place that decides who computes), and answered with the same numbers as JSON.

    POST /ask/KIND with a JSON object -> 200 and the answer as JSON (gzipped from GZIP_FROM bytes
    where the page takes it), or 400 and {"error": why};
    204 and nothing for a reading asked while a stroke is drawn on a crowded server (`read`)

The kinds, each a method of `Answers` of the same name (the worker's, but that a drawing comes
already made 28x28 by the page: the page inks it once, ink_to_mnist.js, for its networks and for
these):

    read     {image: 784 ink values in [0, 1], routed} -> {image, capsules, lengths,
             reconstructions: {winner, runnerUp}}, and where `routed`, routing: {lengths [R][10],
             agreements [R][10], winnerShares [R * 1152]} and followUps: {digit: the winner,
             limit: the paper's range, steps, sweep, changes}, the answers to the `sweep` and
             `changes` the page asks next of a finished drawing (Figure 4 and the pictures beside
             the sliders, over the sliders' first range: every dimension +-limit), so that a page
             far from the server has them with its reading, not a round trip later
    decode   {capsules, digit, offsets} -> the picture's ink
    changes  {capsules, digit, limits} -> for each dimension, the ink it adds (+) and takes away (-)
             between -limit and +limit: [16][784]
    sweep    {capsules, digit, limits, steps} -> Figure 4's pictures, [16 * steps * 784]
    turn     {image, change: CHANGE's numbers, networks: "capsules" and/or "probabilities"} ->
             {turned, and for "capsules": capsules, lengths, reconstruction; for "probabilities":
             probabilities}
    pair     {fields: the pairs networks' input and each pen's ink, [3][784], decodeAs} -> the
             Two-digits panel's numbers (two_digits_reading.js `pairReading`'s, but its revision)
    pairDecoded {pair: {capsules, read}, digit} -> {decoded, decodedRedrawn} (two_digits_reading.js
             `decodedAs`'s changes)

Numbers go as JSON numbers, but each picture as {"ink": its grey levels, one byte a pixel in base64}
and each other long array of floats as {"float32": base64} (views.py `ink_base64`,
`float32_base64`; page_networks.js turns both back into Float32Array). Everything asked is checked
(shape, range, finite): a question the page cannot have asked gets 400 and what is wrong with it.
"""

import json
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from capsnet.baseline import BaselineCNN
from capsnet.data.affine import AffineChange, transform
from capsnet.dimensions import PAPER_RANGE, SWEEP, perturb, sweep_reconstructions
from capsnet.model import CapsNet
from capsnet.routing import agreement
from capsnet.shipping.onnx_file import CHANGE
from playground import reading, serving
from playground.page_network import compressed
from playground.two_digits_pad import PENS, pens_of
from playground.views import float32_base64, ink_base64

FOLDER = "ask"  # POST /ask/KIND
LARGEST_OFFSET = 10.0  # a slider's offset or limit: the widest range the page offers is a few sd
MOST_STEPS = 21  # Figure 4's offsets a dimension (the page asks 11)
NETWORKS = ("capsules", "probabilities")  # what a turn may be read by
GZIP_FROM = 1024  # an answer this long or longer goes gzipped where the page takes it: Figure 4's
# 176 pictures as grey levels are 184 KB of base64, mostly blank paper


class QuestionError(ValueError):
    """A question the page cannot have asked; the message says what is wrong with it."""


def ink(values) -> dict:
    return {"ink": ink_base64(values)}


def floats(values) -> dict:
    return {"float32": float32_base64(values)}


def checked_numbers(value, name: str, count: int, low: float = -math.inf, high: float = math.inf) -> np.ndarray:
    """``value`` as float32 [count], each a finite number in [low, high].

    Raises:
        QuestionError: not a list of ``count`` such numbers.
    """
    if not isinstance(value, list) or len(value) != count:
        got = f"{len(value)} values" if isinstance(value, list) else type(value).__name__
        raise QuestionError(f"{name} must be a list of {count} numbers, got {got}")
    for x in value:
        if not isinstance(x, numbers.Real) or isinstance(x, bool) or not math.isfinite(x) or not low <= x <= high:
            raise QuestionError(f"{name} must hold finite numbers in [{low:g}, {high:g}], got {x!r:.40}")
    return np.asarray(value, dtype=np.float32)


def checked_integer(value, name: str, low: int, high: int) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or not low <= value <= high:
        raise QuestionError(f"{name} must be an integer in {low}..{high}, got {value!r:.40}")
    return int(value)


def checked_flag(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise QuestionError(f"{name} must be true or false, got {value!r:.40}")
    return value


def checked_keys(question: dict, keys: set[str]) -> None:
    if not isinstance(question, dict) or question.keys() != keys:
        got = sorted(str(key)[:40] for key in question)[:8] if isinstance(question, dict) else type(question).__name__
        raise QuestionError(f"the question must be an object with the keys {sorted(keys)}, got {got}")


@dataclass(frozen=True, eq=False)
class Answers:
    """The page's questions answered by the server's networks: the CapsNet, the CNN baseline, and
    the pairs networks where they are loaded (None: "pair" and "pairDecoded" say they are not)."""

    capsnet: CapsNet
    cnn: BaselineCNN
    pairs: object | None  # two_digits_reading.PairReader, not imported: it reaches the studies' files

    @property
    def field(self) -> int:
        return self.capsnet.config.image_size

    def image(self, value, name: str = "image") -> np.ndarray:
        """A 28x28 image as the page sends it, [28, 28] float32 in [0, 1]."""
        return checked_numbers(value, name, self.field**2, 0.0, 1.0).reshape(self.field, self.field)

    def capsules(self, value, network: CapsNet | None = None) -> torch.Tensor:
        config = (network or self.capsnet).config
        count = config.num_classes * config.digit_capsule_dim
        return torch.from_numpy(checked_numbers(value, "capsules", count, -1.0, 1.0)).view(config.num_classes, -1)

    def digit(self, value, network: CapsNet | None = None) -> int:
        return checked_integer(value, "digit", 0, (network or self.capsnet).config.num_classes - 1)

    def offsets(self, value, name: str) -> torch.Tensor:
        count = self.capsnet.config.digit_capsule_dim
        return torch.from_numpy(checked_numbers(value, name, count, -LARGEST_OFFSET, LARGEST_OFFSET))

    def decoded(self, capsules: torch.Tensor, digit: int, offsets: torch.Tensor | None = None) -> torch.Tensor:
        """The decoder's [28, 28] picture of capsule ``digit`` moved by ``offsets`` (None: not moved),
        the other capsules masked to zero (CapsNet.decode)."""
        moved = capsules if offsets is None else perturb(capsules, digit, offsets)  # [10, 16]
        with serving.network_slot(), torch.inference_mode():
            return self.capsnet.decode(moved[None], torch.tensor([digit]))[0, 0]

    def read(self, question) -> dict | None:
        """A 28x28 read; None (nothing new) for a reading asked while a stroke is still being drawn
        (not `routed`) on a crowded server (serving.crowded): the readings a person waits for, at
        each stroke's end, come sooner."""
        checked_keys(question, {"image", "routed"})
        image, routed = self.image(question["image"]), checked_flag(question["routed"], "routed")
        if not routed and serving.crowded():
            return None
        found = reading.read(self.capsnet, image)  # routed for r = 1 .. MAX_ITERATIONS, in a batch
        capsules = found.capsules  # [10, 16]
        answer = {
            "image": ink(image),
            "capsules": floats(capsules.flatten()),
            "lengths": found.lengths.tolist(),
            "reconstructions": {
                "winner": ink(self.decoded(capsules, found.winner)),
                "runnerUp": ink(self.decoded(capsules, found.runner_up)),
            },
        }
        if routed:
            trace = found.trace
            shares = trace.couplings * trace.u_hat.norm(dim=-1)  # c_ij |u_hat_j|i|, [R, 1152, 10]
            winner_shares = shares[torch.arange(len(shares)), :, trace.predictions]  # [R, 1152]
            answer["routing"] = {
                "lengths": trace.lengths.tolist(),
                "agreements": agreement(trace.u_hat, trace.capsules, trace.couplings).tolist(),
                "winnerShares": floats(winner_shares.flatten()),
            }
            limits = torch.full((capsules.shape[1],), PAPER_RANGE)  # [16]
            pictures = self.swept_capsule(capsules, found.winner, limits, len(SWEEP))  # [16, S, 28, 28]
            answer["followUps"] = {
                "digit": found.winner,
                "limit": PAPER_RANGE,
                "steps": len(SWEEP),
                "sweep": ink(pictures.flatten()),
                "changes": [floats(change.flatten()) for change in pictures[:, -1] - pictures[:, 0]],
            }
        return answer

    def decode(self, question) -> dict:
        checked_keys(question, {"capsules", "digit", "offsets"})
        capsules, digit = self.capsules(question["capsules"]), self.digit(question["digit"])
        offsets = None if question["offsets"] is None else self.offsets(question["offsets"], "offsets")
        return ink(self.decoded(capsules, digit, offsets))

    def swept(self, question, steps: int | None) -> torch.Tensor:
        """``sweep_reconstructions`` of the question's capsule over ``steps`` offsets from -limit
        to +limit of each dimension (None: its two ends): [16, steps, 28, 28]."""
        capsules, digit = self.capsules(question["capsules"]), self.digit(question["digit"])
        return self.swept_capsule(capsules, digit, self.offsets(question["limits"], "limits").abs(), steps or 2)

    def swept_capsule(self, capsules: torch.Tensor, digit: int, limits: torch.Tensor, steps: int) -> torch.Tensor:
        """Capsule ``digit`` of ``capsules`` [10, 16] decoded at ``steps`` offsets from -limit to
        +limit of each dimension (``limits`` [16]), the others at zero: [16, steps, 28, 28]."""
        ends = torch.linspace(-1.0, 1.0, steps)  # [S]
        with serving.network_slot(), torch.inference_mode():
            return sweep_reconstructions(self.capsnet, capsules, digit, limits[:, None] * ends)

    def changes(self, question) -> list[dict]:
        checked_keys(question, {"capsules", "digit", "limits"})
        pictures = self.swept(question, None)  # [16, 2, 28, 28]
        return [floats(change.flatten()) for change in pictures[:, 1] - pictures[:, 0]]

    def sweep(self, question) -> dict:
        checked_keys(question, {"capsules", "digit", "limits", "steps"})
        steps = checked_integer(question["steps"], "steps", 2, MOST_STEPS)
        return ink(self.swept(question, steps).flatten())

    def turn(self, question) -> dict:
        checked_keys(question, {"image", "change", "networks"})
        image = torch.from_numpy(self.image(question["image"]))
        change = checked_numbers(question["change"], "change", len(CHANGE))
        try:
            affine = AffineChange(**{name: float(x) for name, x in zip(CHANGE, change, strict=True)})
        except ValueError as error:
            raise QuestionError(f"change: {error}") from None
        networks = question["networks"]
        if not isinstance(networks, list) or not networks or not set(networks) <= set(NETWORKS):
            raise QuestionError(f"networks must be a list of some of {list(NETWORKS)}, got {networks!r:.80}")
        turned = transform(image, affine)  # [28, 28]
        answer = {"turned": ink(turned)}
        with serving.network_slot(), torch.inference_mode():
            if "capsules" in networks:
                out = self.capsnet(turned[None, None])
                answer["capsules"] = floats(out.capsules[0].flatten())
                answer["lengths"] = out.lengths[0].tolist()
                answer["reconstruction"] = ink(out.reconstruction[0, 0])
            if "probabilities" in networks:
                answer["probabilities"] = self.cnn(turned[None, None]).probabilities[0].tolist()
        return answer

    def pair_reader(self):
        if self.pairs is None:
            raise QuestionError("the pairs networks are not loaded")
        return self.pairs

    def pair(self, question) -> dict:
        checked_keys(question, {"fields", "decodeAs"})
        reader = self.pair_reader()
        fields = question["fields"]
        if not isinstance(fields, list) or len(fields) != 1 + len(PENS):
            raise QuestionError(f"fields must be the input and each pen's ink, {1 + len(PENS)} images")
        images = np.stack([self.image(each, "fields") for each in fields])  # [3, 28, 28]
        decode_as = question["decodeAs"]
        if decode_as is not None:
            decode_as = self.digit(decode_as, reader.capsnet)
        found = reader.read_fields(images)
        shown = decode_as is not None and decode_as not in found.read
        pens = pens_of(found.redrawn, found.layers)
        rule = {"second": reader.rule.second, "secondInk": reader.rule.second_ink}
        cnn_rule = {"second": reader.cnn_rule.second, "secondInk": reader.cnn_rule.second_ink}
        return {
            "read": list(found.read),
            "second": found.second,
            "secondInk": found.second_ink,
            "rule": rule,
            "lengths": found.lengths.tolist(),
            "probabilities": found.probabilities.tolist(),
            "cnnRead": list(found.cnn_read),
            "cnnRule": cnn_rule,
            "image": ink(found.image),
            "layers": [ink(layer) for layer in found.layers],
            "redrawn": [ink(picture) for picture in found.redrawn],
            "colours": [PENS[pen] for pen in pens],
            "penColours": list(PENS),
            "decoded": decode_as if shown else None,
            "decodedRedrawn": ink(reader.redraw(found, decode_as)) if shown else None,
            "capsules": floats(found.capsules.flatten()),
        }

    def pairDecoded(self, question) -> dict:  # noqa: N802 (the worker's kind, as the page names it)
        checked_keys(question, {"pair", "digit"})
        reader = self.pair_reader()
        pair = question["pair"]
        checked_keys(pair, {"capsules", "read"})
        digit = None if question["digit"] is None else self.digit(question["digit"], reader.capsnet)
        read = pair["read"]
        if not isinstance(read, list) or not all(isinstance(x, int) for x in read):
            raise QuestionError(f"the pair's read digits must be a list of digits, got {read!r:.40}")
        if digit is None or digit in read:
            return {"decoded": None, "decodedRedrawn": None}
        capsules = self.capsules(pair["capsules"], reader.capsnet)
        with serving.network_slot(), torch.inference_mode():
            picture = reader.capsnet.decode(capsules[None], torch.tensor([digit]))[0, 0]
        return {"decoded": digit, "decodedRedrawn": ink(picture)}

    def kinds(self) -> dict[str, Callable[[dict], object]]:
        return {
            "read": self.read,
            "decode": self.decode,
            "changes": self.changes,
            "sweep": self.sweep,
            "turn": self.turn,
            "pair": self.pair,
            "pairDecoded": self.pairDecoded,
        }

    def routes(self) -> list[Route]:
        """POST /ask/KIND for each kind: the question's JSON in, its answer's out (400 and why for a
        question the page cannot have asked); the networks run in a worker thread."""
        kinds = self.kinds().items()
        return [Route(f"/{FOLDER}/{kind}", answering(kind, answer), methods=["POST"]) for kind, answer in kinds]


def answering(kind: str, answer: Callable[[dict], object]):
    async def endpoint(request: Request) -> JSONResponse:
        try:
            question = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"error": f"/{FOLDER}/{kind} takes a JSON object"}, status_code=400)
        try:
            answered = await run_in_threadpool(answer, question)
        except QuestionError as error:
            return JSONResponse({"error": f"Cannot answer {kind}: {error}"}, status_code=400)
        if answered is None:
            return Response(status_code=204)
        body = json.dumps(answered, separators=(",", ":")).encode()
        if len(body) < GZIP_FROM or "gzip" not in request.headers.get("accept-encoding", ""):
            return Response(body, media_type="application/json")
        return Response(compressed(body), media_type="application/json", headers={"Content-Encoding": "gzip"})

    return endpoint
