"""The server's answers to the page's questions (playground/answers.py, POST /ask/KIND) against the
PyTorch networks with the trained weights: the same numbers the page's worker makes of its graphs,
pictures within half a grey level (they travel as grey levels), and a clear 400 for a question the
page cannot have asked."""

import json

import numpy as np
import pytest
import torch
from starlette.applications import Starlette
from starlette.testclient import TestClient

from capsnet.data.affine import AffineChange, transform
from capsnet.dimensions import PAPER_RANGE, SWEEP, perturb, sweep_reconstructions
from capsnet.shipping.onnx_file import CHANGE
from harness.page_protocol import revived
from playground.reading import EXAMPLES, example_ink

HALF_LEVEL = 0.5 / 255 + 1e-6  # a picture's ink, sent as grey levels 0..255
CLOSE = 1e-5  # numbers computed by the same network, in float32


@pytest.fixture(scope="module")
def ask(app):
    """POST /ask/KIND with ``question`` as JSON: (status, the answer with its pictures and floats
    made numpy arrays again)."""
    client = TestClient(Starlette(routes=app.ANSWERS.routes()))

    def asked(kind: str, question) -> tuple[int, object]:
        response = client.post(f"/ask/{kind}", content=json.dumps(question))
        is_json = response.headers["content-type"] == "application/json"
        return response.status_code, revived(response.json()) if is_json else response.text

    return asked


@pytest.fixture(scope="module")
def images():
    """Three MNIST test digits (the pad's examples), [28, 28] in [0, 1], with their labels."""
    return [(digit, ink.astype(np.float32) / 255) for digit, ink in map(example_ink, EXAMPLES[:3])]


def test_a_28x28_is_read_as_the_network_reads_it(app, ask, images):
    network = app.NETWORKS.capsnet
    for label, image in images:
        status, answer = ask("read", {"image": image.flatten().tolist(), "routed": True})
        assert status == 200, answer
        with torch.inference_mode():
            out = network(torch.from_numpy(image)[None, None])
            trace = network.routing_traces(torch.from_numpy(image)[None, None], 5)[0]
        np.testing.assert_allclose(answer["lengths"], out.lengths[0], atol=CLOSE)
        assert int(np.argmax(answer["lengths"])) == label
        np.testing.assert_allclose(answer["capsules"], out.capsules[0].flatten(), atol=CLOSE)
        np.testing.assert_allclose(answer["image"], image.flatten(), atol=HALF_LEVEL)
        winner, runner_up = torch.topk(out.lengths[0], 2).indices.tolist()
        with torch.inference_mode():
            pictures = network.decode(out.capsules.expand(2, -1, -1), torch.tensor([winner, runner_up]))
        np.testing.assert_allclose(answer["reconstructions"]["winner"], pictures[0].flatten(), atol=HALF_LEVEL)
        np.testing.assert_allclose(answer["reconstructions"]["runnerUp"], pictures[1].flatten(), atol=HALF_LEVEL)
        routing = answer["routing"]
        np.testing.assert_allclose(routing["lengths"], trace.lengths, atol=CLOSE)
        assert np.asarray(routing["agreements"]).shape == (5, 10)
        shares = (trace.couplings * trace.u_hat.norm(dim=-1))[torch.arange(5), :, trace.predictions]  # [5, 1152]
        np.testing.assert_allclose(routing["winnerShares"], shares.flatten(), atol=CLOSE)
    _, unrouted = ask("read", {"image": images[0][1].flatten().tolist(), "routed": False})
    assert "routing" not in unrouted


def test_a_capsule_is_decoded_moved_swept_and_its_changes_drawn(app, ask, images):
    network = app.NETWORKS.capsnet
    with torch.inference_mode():
        capsules = network(torch.from_numpy(images[0][1])[None, None]).capsules[0]  # [10, 16]
    offsets = torch.linspace(-0.25, 0.25, 16)
    limits = torch.linspace(0.1, 0.6, 16)
    question = {"capsules": capsules.flatten().tolist(), "digit": 3}

    _, picture = ask("decode", {**question, "offsets": offsets.tolist()})
    with torch.inference_mode():
        expected = network.decode(perturb(capsules, 3, offsets)[None], torch.tensor([3]))[0, 0]
    np.testing.assert_allclose(picture, expected.flatten(), atol=HALF_LEVEL)

    _, changes = ask("changes", {**question, "limits": limits.tolist()})
    for d in range(16):  # the picture at the right end of the range minus the left, one at a time
        at = [torch.zeros(16).index_fill(0, torch.tensor([d]), side * limits[d]) for side in (-1, 1)]
        with torch.inference_mode():
            left, right = (network.decode(perturb(capsules, 3, moved)[None], torch.tensor([3]))[0, 0] for moved in at)
        np.testing.assert_allclose(changes[d], (right - left).flatten(), atol=CLOSE)

    _, sweep = ask("sweep", {**question, "limits": limits.tolist(), "steps": 11})
    with torch.inference_mode():
        expected = sweep_reconstructions(network, capsules, 3, limits[:, None] * torch.linspace(-1, 1, 11))
    np.testing.assert_allclose(sweep, expected.flatten(), atol=HALF_LEVEL)


def test_a_finished_reading_brings_the_winner_s_sweep_and_changes_as_asked_next(ask, images):
    """Figure 4's sweep and the sliders' pictures of the winner over the paper's range, which the
    page asks next of a finished drawing, come with its reading: the answers those questions get."""
    image = images[1][1].flatten().tolist()
    _, answer = ask("read", {"image": image, "routed": True})
    follow_ups = answer["followUps"]
    winner = int(np.argmax(answer["lengths"]))
    assert (follow_ups["digit"], follow_ups["limit"], follow_ups["steps"]) == (winner, PAPER_RANGE, len(SWEEP))
    question = {"capsules": answer["capsules"].tolist(), "digit": winner, "limits": [PAPER_RANGE] * 16}
    _, sweep = ask("sweep", {**question, "steps": len(SWEEP)})
    _, changes = ask("changes", question)
    np.testing.assert_allclose(follow_ups["sweep"], sweep, atol=HALF_LEVEL)
    np.testing.assert_allclose(follow_ups["changes"], changes, atol=CLOSE)
    _, unrouted = ask("read", {"image": image, "routed": False})
    assert "followUps" not in unrouted  # a stroke still drawn: nothing to follow yet


def test_a_turned_digit_is_read_by_both_networks(app, ask, images):
    change = AffineChange(rotation=30.0, scale=0.9, shift_x=2.0)
    image = images[1][1]
    status, answer = ask(
        "turn",
        {
            "image": image.flatten().tolist(),
            "change": [getattr(change, name) for name in CHANGE],
            "networks": ["capsules", "probabilities"],
        },
    )
    assert status == 200, answer
    turned = transform(torch.from_numpy(image), change)
    with torch.inference_mode():
        out, cnn = app.NETWORKS.capsnet(turned[None, None]), app.NETWORKS.cnn(turned[None, None])
    np.testing.assert_allclose(answer["turned"], turned.flatten(), atol=HALF_LEVEL)
    np.testing.assert_allclose(answer["lengths"], out.lengths[0], atol=CLOSE)
    np.testing.assert_allclose(answer["reconstruction"], out.reconstruction[0, 0].flatten(), atol=HALF_LEVEL)
    np.testing.assert_allclose(answer["probabilities"], cnn.probabilities[0], atol=CLOSE)


def test_a_pair_is_read_and_redrawn_as_the_pairs_networks_read_it(app, ask, images):
    reader = app.TWO_DIGITS.reader
    if reader is None:
        pytest.skip("no pairs networks")
    layers = np.stack([images[0][1], images[1][1]])  # two digits over each other
    fields = np.concatenate([layers.max(axis=0, keepdims=True), layers])  # [3, 28, 28]
    asked = [1, 5, 9]
    digit = next(d for d in asked if d not in reader.read_fields(fields).read)
    status, answer = ask("pair", {"fields": [f.flatten().tolist() for f in fields], "decodeAs": digit})
    assert status == 200, answer
    expected = reader.read_fields(fields)
    assert answer["read"] == list(expected.read) and answer["cnnRead"] == list(expected.cnn_read)
    np.testing.assert_allclose(answer["lengths"], expected.lengths, atol=CLOSE)
    np.testing.assert_allclose(answer["probabilities"], expected.probabilities, atol=CLOSE)
    np.testing.assert_allclose(
        np.stack(answer["redrawn"]), expected.redrawn.reshape(len(expected.read), -1), atol=HALF_LEVEL
    )
    assert answer["decoded"] == digit
    np.testing.assert_allclose(answer["decodedRedrawn"], reader.redraw(expected, digit).flatten(), atol=HALF_LEVEL)

    pair = {"capsules": expected.capsules.flatten().tolist(), "read": list(expected.read)}
    _, again = ask("pairDecoded", {"pair": pair, "digit": digit})
    np.testing.assert_allclose(again["decodedRedrawn"], answer["decodedRedrawn"], atol=1e-6)
    _, read = ask("pairDecoded", {"pair": pair, "digit": expected.read[0]})
    assert read == {"decoded": None, "decodedRedrawn": None}


@pytest.mark.parametrize(
    ("kind", "question", "says"),
    [
        ("read", {"image": [0.5] * 783, "routed": True}, "image must be a list of 784 numbers, got 783"),
        ("read", {"image": [0.5] * 783 + [1.5], "routed": True}, "finite numbers in [0, 1], got 1.5"),
        ("read", {"image": [0.5] * 783 + [float("nan")], "routed": True}, "finite numbers in [0, 1], got nan"),
        ("read", {"image": "pixels", "routed": True}, "image must be a list of 784 numbers, got str"),
        ("read", {"image": [0.5] * 784}, "the keys ['image', 'routed']"),
        ("read", {"image": [0.5] * 784, "routed": 1}, "routed must be true or false"),
        ("decode", {"capsules": [0.0] * 160, "digit": 10, "offsets": None}, "digit must be an integer in 0..9"),
        ("decode", {"capsules": [0.0] * 160, "digit": 1, "offsets": [1e9] * 16}, "offsets must hold finite numbers"),
        ("sweep", {"capsules": [0.0] * 160, "digit": 1, "limits": [0.25] * 16, "steps": 500}, "steps must be"),
        ("turn", {"image": [0.0] * 784, "change": [400, 1, 0, 1, 1, 0, 0], "networks": ["capsules"]}, "rotation"),
        ("turn", {"image": [0.0] * 784, "change": [0, 1, 0, 1, 1, 0, 0], "networks": ["weights"]}, "networks must"),
        ("pair", {"fields": [[0.0] * 784] * 2, "decodeAs": None}, "fields must be the input and each pen's ink"),
        ("nothing", {}, None),
    ],
)
def test_a_question_the_page_cannot_have_asked_is_answered_with_why(ask, kind, question, says):
    status, answer = ask(kind, question)
    if says is None:
        assert status in (404, 405)
        return
    assert status == 400
    assert answer["error"].startswith(f"Cannot answer {kind}: ") and says in answer["error"], answer


def test_a_body_that_is_no_json_is_answered_with_why(app):
    client = TestClient(Starlette(routes=app.ANSWERS.routes()))
    response = client.post("/ask/read", content=b"{not json")
    assert response.status_code == 400 and response.json() == {"error": "/ask/read takes a JSON object"}


def test_a_long_answer_goes_gzipped_where_the_page_takes_it(app, images):
    """Figure 4's 176 pictures are mostly blank paper: gzipped, a fraction of their bytes."""
    client = TestClient(Starlette(routes=app.ANSWERS.routes()))
    with torch.inference_mode():
        capsules = app.NETWORKS.capsnet(torch.from_numpy(images[0][1])[None, None]).capsules[0]
    sweep = json.dumps({"capsules": capsules.flatten().tolist(), "digit": 1, "limits": [0.25] * 16, "steps": 11})
    plain = client.post("/ask/sweep", content=sweep, headers={"Accept-Encoding": "identity"})
    gzipped = client.post("/ask/sweep", content=sweep, headers={"Accept-Encoding": "gzip, br"})
    assert "content-encoding" not in plain.headers and gzipped.headers["content-encoding"] == "gzip"
    assert gzipped.json() == plain.json()
    assert gzipped.num_bytes_downloaded < len(plain.content) / 3, (gzipped.num_bytes_downloaded, len(plain.content))
