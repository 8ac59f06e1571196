"""The Two-digits section: an MNIST test pair read as its two digits, each redrawn from its own
capsule alone in its pen's colour, the CNN beside, Decode as, one digit read as one, the examples
read as the measurement reads them; the server's answers to the page's questions (answers.py; the
page draws them: tests/js/two_digits_view.test.js); /predict_pair; the app without the pairs
networks, and the measurement read for them only."""

import base64
import copy
import dataclasses
import json
import re
from pathlib import Path

import gradio as gr
import numpy as np
import pytest
import torch
from PIL import Image
from starlette.applications import Starlette
from starlette.testclient import TestClient

from capsnet.digit_count import CountRule
from capsnet.shipping.saving import sha256
from capsnet.studies.statistics import points
from harness.paths import REPO
from playground import (
    answers,
    networks,
    two_digits,
    two_digits_pad,
    two_digits_reading,
    two_digits_text,
)
from playground.two_digits_views import tinted
from tests.support.batched_calls import called_at_once

PAIRS, PAIRS_CNN = REPO / "weights" / "pairs", REPO / "weights" / "pairs-cnn"
EXAMPLES = sorted(two_digits_pad.EXAMPLES_FOLDER.glob("mnist_test_pair_*.png"))
READ_RIGHT = [EXAMPLES[k] for k in (0, 3, 2, 5)]  # 7 and 1, 0 and 9, 1 and 5, 1 and 3: read right by both
# shipped pairs networks, tapped on the page (the CapsNet
# reads 6 of the 8, the CNN 5)


@pytest.fixture(scope="module")
def section():
    if not (PAIRS / "model.safetensors").exists() or not (PAIRS_CNN / "model.safetensors").exists():
        pytest.skip("no pairs networks in weights/pairs and weights/pairs-cnn (train.py --task pairs)")
    return two_digits.TwoDigitsSection(networks.pair_networks(str(PAIRS), str(PAIRS_CNN)))


def classes_of(example: Path) -> set[int]:
    """mnist_test_pair_0003_0_9.png -> {0, 9}."""
    return {int(digit) for digit in example.stem.rsplit("_", 2)[1:]}


def fields_of(layers: np.ndarray) -> np.ndarray:
    """An example's two layers of ink (uint8 [2, 28, 28]) as the page sends them to be read: the
    overlay and each pen's ink, [3, 28, 28] in [0, 1] (two_digits_reading.js `exampleFields`)."""
    ink = layers.astype(np.float32) / 255
    return np.concatenate([ink.max(axis=0, keepdims=True), ink])


def answered(section, fields: np.ndarray, decode_as: int | None = None) -> dict:
    """The server's answer to the page's question "pair" (answers.py), its pictures as ink again."""
    asked = answers.Answers(section.reader.capsnet, None, section.reader)
    return revived(asked.pair({"fields": [each.flatten().tolist() for each in fields], "decodeAs": decode_as}))


def revived(value):
    """An answer's {"ink": base64} as ink [28, 28] in [0, 1], as the page takes it (views.js inkOf)."""
    if isinstance(value, dict) and value.keys() == {"ink"}:
        return np.frombuffer(base64.b64decode(value["ink"]), dtype=np.uint8).reshape(28, 28) / 255
    if isinstance(value, dict):
        return {key: revived(each) for key, each in value.items()}
    if isinstance(value, list):
        return [revived(each) for each in value]
    return value


# A pair read as its two digits, each redrawn from its own capsule alone.


@pytest.mark.parametrize("example", READ_RIGHT, ids=lambda path: path.stem)
def test_an_mnist_test_pair_is_read_as_its_two_digits(section, example):
    fields = fields_of(two_digits_pad.example_layers(example))
    reading, answer = section.reader.read_fields(fields), answered(section, fields)
    assert set(reading.read) == classes_of(example) == set(answer["read"])
    assert len(reading.read) == 2 and answer["read"] == list(reading.read)
    assert set(reading.cnn_read) == classes_of(example) and answer["cnnRead"] == list(reading.cnn_read)


def test_each_digit_is_redrawn_from_its_own_capsule_alone(section):
    reading = section.reader.read(two_digits_pad.example_layers(READ_RIGHT[0]) / 255)
    for k, digit in enumerate(reading.read):
        alone = torch.zeros_like(reading.capsules)  # [10, 16]: every other capsule masked
        alone[digit] = reading.capsules[digit]
        with torch.inference_mode():
            expected = section.reader.capsnet.decoder(alone.flatten()[None]).view(28, 28).numpy()
        np.testing.assert_allclose(reading.redrawn[k], expected, atol=1e-6)
    assert np.abs(reading.redrawn[0] - reading.redrawn[1]).max() > 0.5  # two different digits drawn


def test_a_redrawn_digit_does_not_change_when_the_other_capsules_do(section, monkeypatch):
    """The other read capsule's vector, and the eight not read, replaced by noise (their lengths
    kept, so the same two are read): each digit's redrawing stays what it was."""
    image = two_digits_pad.example_layers(READ_RIGHT[0]) / 255
    reading = section.reader.read(image)
    capsules_of = section.reader.capsnet.capsules
    for k, digit in enumerate(reading.read):
        others = torch.arange(10) != digit
        noise = torch.randn(10, 16, generator=torch.Generator().manual_seed(k))

        def others_changed(images, capsules_of=capsules_of, others=others, noise=noise):
            capsules, lengths = capsules_of(images)
            capsules = capsules.clone()  # [1, 10, 16]
            capsules[0, others] = noise[others]
            return capsules, lengths

        monkeypatch.setattr(section.reader.capsnet, "capsules", others_changed)
        changed = section.reader.read(image)
        monkeypatch.undo()
        assert changed.read == reading.read and not torch.equal(changed.capsules, reading.capsules)
        np.testing.assert_allclose(changed.redrawn[k], reading.redrawn[k], atol=1e-6)
        np.testing.assert_allclose(section.reader.redraw(changed, digit), reading.redrawn[k], atol=1e-6)
        with torch.inference_mode():
            alone = section.reader.capsnet.decode(reading.capsules[None], torch.tensor([digit]))[0, 0].numpy()
        np.testing.assert_allclose(reading.redrawn[k], alone, atol=1e-6)  # capsnet.decode of that digit


def test_each_redrawn_digit_takes_the_colour_of_the_pen_whose_ink_it_covers(section):
    layers = two_digits_pad.example_layers(READ_RIGHT[0])  # 7 with pen 1, 1 with pen 2
    reading = section.reader.read(layers / 255)
    assert two_digits_pad.pens_of(reading.redrawn, reading.layers) == (0, 1) and reading.read == (7, 1)
    swapped = section.reader.read(layers[::-1] / 255)  # the 1 with pen 1, the 7 with pen 2
    assert swapped.read == (7, 1) and two_digits_pad.pens_of(swapped.redrawn, swapped.layers) == (1, 0)
    answer = answered(section, fields_of(layers[::-1]))
    blue, orange = two_digits_pad.PENS
    assert answer["read"] == [7, 1] and answer["colours"] == [orange, blue] and answer["penColours"] == [blue, orange]
    # each redrawn alone in its colour, as the page tints it (tests/js/two_digits_tinted.test.js)
    redrawn = zip(answer["redrawn"], answer["colours"], strict=True)
    seven, one = (ink_colour(tinted(ink[None], [colour])) for ink, colour in redrawn)
    assert seven[0] > seven[2] and one[2] > one[0]  # the 7 orange, the 1 blue
    straight = answered(section, fields_of(layers))
    assert straight["read"] == [7, 1] and straight["colours"] == [blue, orange]


def test_a_pair_s_numbers_are_what_the_panel_draws(section):
    """The server's answer to the page's question "pair", which the panel draws
    (two_digits_view.js): the digits read, the second capsule and its ink, both rules, the lengths
    and probabilities, each picture within half a grey level of the reading's arrays, each digit in
    the colour of the pen whose ink it redraws."""
    layers = two_digits_pad.example_layers(READ_RIGHT[0])[::-1]  # the 1 with pen 1, the 7 with pen 2
    reading = section.reader.read_fields(fields_of(layers))
    value = answered(section, fields_of(layers), 4)
    assert (value["read"], value["second"], value["cnnRead"]) == ([7, 1], 1, [7, 1])
    rule, cnn_rule = section.reader.rule, section.reader.cnn_rule
    assert value["secondInk"] == reading.second_ink and value["rule"] == {
        "second": rule.second,
        "secondInk": rule.second_ink,
    }
    assert value["cnnRule"] == {"second": cnn_rule.second, "secondInk": cnn_rule.second_ink}
    np.testing.assert_allclose(value["lengths"], reading.lengths, atol=1e-6)
    np.testing.assert_allclose(value["probabilities"], reading.probabilities, atol=1e-6)
    assert len(value["layers"]) == 2 and len(value["redrawn"]) == 2
    pictures = [
        (value["image"], reading.image),
        *zip(value["layers"], reading.layers, strict=True),
        *zip(value["redrawn"], reading.redrawn, strict=True),
        (value["decodedRedrawn"], section.reader.redraw(reading, 4)),
    ]
    for shown, ink in pictures:
        np.testing.assert_allclose(shown, np.clip(ink, 0, 1), atol=0.5 / 255 + 1e-6)
    blue, orange = two_digits_pad.PENS
    assert value["colours"] == [orange, blue] and value["penColours"] == [blue, orange]
    assert value["decoded"] == 4


def ink_colour(pixels: np.ndarray) -> np.ndarray:
    """The mean colour of a picture's pixels that are not white paper, RGB."""
    return pixels[(pixels < 250).any(axis=2)].astype(float).mean(axis=0)


def test_decode_as_adds_that_capsule_redrawn_and_only_one_not_read(section):
    reading = section.reader.read(two_digits_pad.example_layers(READ_RIGHT[0]) / 255)
    asked = answers.Answers(section.reader.capsnet, None, section.reader)
    pair = {"capsules": reading.capsules.flatten().tolist(), "read": list(reading.read)}
    four = revived(asked.pairDecoded({"pair": pair, "digit": 4}))
    assert four["decoded"] == 4
    with torch.inference_mode():
        expected = section.reader.capsnet.decode(reading.capsules[None], torch.tensor([4]))[0, 0].numpy()
    np.testing.assert_allclose(four["decodedRedrawn"], expected, atol=0.5 / 255 + 1e-6)
    np.testing.assert_allclose(section.reader.redraw(reading, 4), expected)
    seven = asked.pairDecoded({"pair": pair, "digit": 7})  # one of the two: shown already
    assert seven == {"decoded": None, "decodedRedrawn": None}


def test_a_digit_drawn_alone_is_read_as_one_digit_and_redrawn_alone(section):
    layers = two_digits_pad.example_layers(READ_RIGHT[0]).copy()
    layers[1] = 0  # the 7 alone
    reading, answer = section.reader.read_fields(fields_of(layers)), answered(section, fields_of(layers))
    assert reading.read == (7,) and reading.cnn_read == (7,) and answer["read"] == [7] and answer["cnnRead"] == [7]
    assert reading.redrawn.shape == (1, 28, 28) and len(answer["redrawn"]) == len(answer["colours"]) == 1
    second_length = torch.tensor([float(reading.lengths[reading.second])])
    assert not section.reader.rule.two(second_length, torch.tensor([reading.second_ink]))


def test_one_digit_or_two_is_the_second_capsule_and_its_ink_against_the_measured_rule(section):
    people = json.loads((PAIRS / "pairs.json").read_text())["people"]
    measured = tuple(CountRule.from_record(people[network]["count"]) for network in ("capsnet", "cnn"))
    assert (section.reader.rule, section.reader.cnn_rule) == measured
    layers = two_digits_pad.example_layers(READ_RIGHT[0]) / 255
    reading = section.reader.read(layers)
    second, ink = float(reading.lengths[reading.second]), reading.second_ink
    assert ink > 0.05  # a pair: the second redrawing covers ink

    def with_lines(**lines):
        counting = copy.copy(section)
        counting.reader = dataclasses.replace(
            section.reader, rule=CountRule(**{"second": second, "second_ink": ink, **lines})
        )
        return counting

    at, short, little_ink = with_lines(), with_lines(second=second + 1e-3), with_lines(second_ink=ink + 1e-3)
    read = [each.reader.read(layers).read for each in (at, short, little_ink)]
    assert [len(digits) for digits in read] == [2, 1, 1] and read[0][0] == read[1][0] == read[2][0]
    answer = answered(little_ink, fields_of(two_digits_pad.example_layers(READ_RIGHT[0])))  # the page says why
    assert len(answer["read"]) == 1 and answer["second"] == reading.second
    assert abs(answer["secondInk"] - ink) < 1e-6 and answer["rule"] == {"second": second, "secondInk": ink + 1e-3}


def test_the_examples_are_read_as_the_measurement_reads_the_same_pairs(section, mnist_test):
    """An example tapped reaches the networks as the test pair it is: the same digits read, the
    same count, the lengths within 0.05 (the example keeps each digit as the pair's shrink placed
    it, in bytes; their overlay is not quite the pair shrunk as one: up to 0.18 a pixel)."""
    from capsnet.data.pairs import TEST_SEED, draw_pairs, render, scores
    from capsnet.digit_count import counted, second_ink, top_two

    pairs = draw_pairs(
        mnist_test.targets,
        torch.arange(len(mnist_test.targets)),  # fixed_pairs' test pairs
        torch.Generator().manual_seed(TEST_SEED),
    )[torch.arange(len(EXAMPLES))]
    inputs, _ = render(mnist_test.data, pairs)
    labels = pairs.labels(mnist_test.targets)
    with torch.inference_mode():
        out, probabilities = section.reader.capsnet(inputs), scores(section.reader.cnn(inputs))
        ink = second_ink(inputs, section.reader.capsnet.decode(out.capsules, top_two(out.lengths)))
    lengths = out.lengths
    read, two = counted(lengths, section.reader.rule, ink)
    cnn_read, cnn_two = counted(probabilities, section.reader.cnn_rule)
    for k, example in enumerate(EXAMPLES):
        assert set(labels[k].tolist()) == classes_of(example)
        reading = section.reader.read_fields(fields_of(two_digits_pad.example_layers(example)))
        assert reading.read == tuple(read[k, : 1 + int(two[k])].tolist())
        assert reading.cnn_read == tuple(cnn_read[k, : 1 + int(cnn_two[k])].tolist())
        np.testing.assert_allclose(reading.lengths, lengths[k].numpy(), atol=0.05)


def test_pairs_read_at_the_same_moment_are_read_in_one_batch_each_as_alone(section):
    fields = [fields_of(example.ink) for example in two_digits_pad.examples()]
    alone = [section.reader.read_fields(each) for each in fields]
    together, batches = called_at_once(
        section.reader._run_together, lambda k: section.reader.read_fields(fields[k]), len(fields)
    )
    assert max(batches) > 1 and sum(batches) == len(fields)
    assert len({each.read for each in alone}) > 4  # pairs read as different digits: a mix-up shows
    for one, other in zip(alone, together, strict=True):
        assert (other.read, other.cnn_read, other.second) == (one.read, one.cnn_read, one.second)
        np.testing.assert_allclose(other.lengths, one.lengths, atol=1e-5)
        np.testing.assert_allclose(other.redrawn, one.redrawn, atol=1e-5)
        np.testing.assert_allclose(other.probabilities, one.probabilities, atol=1e-5)


# The app: /predict_pair over HTTP.


@pytest.mark.server
def test_predict_pair_reads_an_image_file_of_two_digits(app, client, tmp_path):
    from gradio_client import handle_file

    example = READ_RIGHT[3]  # 1 and 3
    overlay = two_digits_pad.example_layers(example).max(axis=0)
    path = tmp_path / "pair.png"
    Image.fromarray(255 - overlay).resize((280, 280)).save(path)  # dark ink on white paper
    answer, figure5 = client.predict(handle_file(str(path)), api_name="/predict_pair")
    assert set(answer["digits"]) == classes_of(example) and len(answer["lengths"]) == 10 and answer["count"] == 2
    assert answer["cnn_count"] == len(answer["cnn_digits"]) == 2 and len(answer["cnn_probabilities"]) == 10
    assert answer["lengths"][answer["digits"][0]] >= answer["lengths"][answer["digits"][1]]
    here, picture_here = app.TWO_DIGITS.predict_pair(Image.open(path))  # the same image, read in process
    assert answer["digits"] == here["digits"] and answer["cnn_digits"] == here["cnn_digits"]
    np.testing.assert_allclose(answer["lengths"], here["lengths"], atol=2e-4)
    pixels = np.asarray(Image.open(figure5))
    assert pixels.shape == (280, 280, 3) and len({tuple(p) for p in pixels.reshape(-1, 3)}) > 10  # coloured
    assert np.abs(pixels.astype(int) - picture_here.astype(int)).max() <= 2  # Figure 5 of the same reading
    blank = tmp_path / "blank.png"
    Image.new("L", (100, 100), 255).save(blank)
    assert client.predict(handle_file(str(blank)), api_name="/predict_pair") == (None, None)


def strongest(scores: list[float], rule: dict, ink: float | None = None) -> list[int]:
    """The strongest digit, and the second where it scores the rule's second line or more and (where
    the rule asks) its redrawing covers ``ink`` of the ink or more (the answer's figures rounded)."""
    first, second = sorted(range(len(scores)), key=lambda digit: -scores[digit])[:2]
    two = scores[second] >= rule["second"] - 1e-4 and (rule["second_ink"] is None or ink >= rule["second_ink"] - 1e-4)
    return [first, second] if two else [first]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.stem)
def test_predict_pair_answers_each_network_s_count_and_digits(section, example):
    """Whatever the networks make of an example (some are misread), /predict_pair's answer names
    each network's own strongest digit and its second where it reaches that network's rule,
    the stronger first, as the page shows them, and how many."""
    picture = Image.fromarray(255 - two_digits_pad.example_layers(example).max(axis=0)).resize((280, 280))
    answer, figure = section.predict_pair(picture)
    assert answer["count_rule"] == dataclasses.asdict(section.reader.rule)
    assert answer["cnn_count_rule"] == dataclasses.asdict(section.reader.cnn_rule)
    assert answer["digits"] == strongest(answer["lengths"], answer["count_rule"], answer["second_ink"])
    assert answer["cnn_digits"] == strongest(answer["cnn_probabilities"], answer["cnn_count_rule"])
    assert answer["count"] == len(answer["digits"]) and answer["cnn_count"] == len(answer["cnn_digits"])
    assert figure.shape == (280, 280, 3) and figure.dtype == np.uint8


def test_the_page_is_named_the_pairs_graphs_and_each_is_served_for_good(section):
    """The panel's settings name the three graphs by their hashes, the count rules the reader counts
    with and the pens; each address is one of the section's routes, gzipped, kept for good."""
    settings = section.page_settings()
    assert settings["facts"]["rule"] == dataclasses.asdict(section.reader.rule)
    assert settings["facts"]["cnn_rule"] == dataclasses.asdict(section.reader.cnn_rule)
    assert settings["facts"]["pen_colours"] == list(two_digits_pad.PENS)
    urls = [settings[name] for name in ("capsules_url", "decoder_url", "sigmoids_url")]
    assert len(set(urls)) == 3 and all(re.fullmatch(r"network/[0-9a-f]{16}\.onnx", url) for url in urls)
    client = TestClient(Starlette(routes=section.routes()))
    graphs = (section.graphs.capsules, section.graphs.decoder, section.graphs.sigmoids)
    for url, graph in zip(urls, graphs, strict=True):
        answer = client.get(f"/{url}", headers={"Accept-Encoding": "gzip"})
        assert answer.status_code == 200 and answer.content == graph.data  # the client unzips
        assert answer.headers["content-encoding"] == "gzip" and "immutable" in answer.headers["cache-control"]


# Without the pairs networks, and the measurement only for the weights it was made with.


def test_without_the_pairs_networks_the_section_says_why_and_how_to_train_them():
    missing = two_digits.TwoDigitsSection(networks.pair_networks("/nonexistent/pairs", "/nonexistent/pairs-cnn"))
    assert missing.reader is None and "/nonexistent/pairs" in missing.problem
    assert missing.graphs is None and missing.routes() == []  # no graphs for the page either
    assert "--task pairs" in missing.problem and "CAPSNET_PAIRS_WEIGHTS" in missing.problem
    with gr.Blocks() as page:
        missing.layout({"api_visibility": "private", "show_progress": "hidden", "queue": False, "preprocess": False})
    shown = " ".join(str(getattr(block, "value", "")) for block in page.blocks.values())
    assert "cannot load them" in shown and "--task pairs" in shown
    with pytest.raises(gr.Error, match="not loaded"):
        missing.predict_pair(Image.new("L", (28, 28)))


def test_a_pairs_folder_without_its_weights_file_is_named(tmp_path):
    if not (PAIRS_CNN / "model.safetensors").exists():
        pytest.skip("no pairs CNN in weights/pairs-cnn (train.py --task pairs --model cnn)")
    # the CNN there, the CapsNet not
    missing = two_digits.TwoDigitsSection(networks.pair_networks(str(tmp_path), str(PAIRS_CNN)))
    assert missing.reader is None and f"{tmp_path / 'model.safetensors'} is missing" in missing.problem
    assert missing.finding.startswith("Nothing to measure")
    if (PAIRS / "model.safetensors").exists():
        # the CapsNet there, the CNN not
        no_cnn = two_digits.TwoDigitsSection(networks.pair_networks(str(PAIRS), str(tmp_path / "pairs-cnn")))
        assert no_cnn.reader is None and str(tmp_path / "pairs-cnn") in no_cnn.problem


def measurement(
    capsnet: Path, cnn: Path, low: float, high: float, unrouted_low: float = -0.6, unrouted_high: float = 0.2
) -> dict:
    """A pairs.json for the weights in these folders, with the CapsNet's lead in [low, high] points
    and its gain without routing in [unrouted_low, unrouted_high] (the file holds them as fractions)."""

    def difference(low: float, high: float) -> dict:
        return {"difference": (low + high) / 200, "low": low / 100, "high": high / 100}

    routed = [
        {
            "iterations": r,
            "both_right": 0.9123 - 0.01 * abs(r - 3),
            "gain": difference(-abs(r - 3) - 0.4, -abs(r - 3) + 0.4),
        }
        for r in range(1, 6)
    ]
    routed[0]["both_right"] = 0.9081
    routed[0]["gain"] = difference(unrouted_low, unrouted_high)

    def reading(share):
        return {"strongest_right": {"share": share}, "count_right": {"share": share}}

    people = {
        "capsnet": {
            "count": {"second": 0.34, "second_ink": 0.05},
            "semeion_pairs": reading(0.6112),
            "semeion_singles": reading(0.8876),
            "mnist_singles": reading(0.9745),
            "mnist_pairs": reading(0.9901),
        },
        "cnn": {"count": {"second": 0.22, "second_ink": None}},
    }
    return {
        "test_pairs": 10_000,
        "capsnet": {
            "both_right": 0.9123,
            "redrawn_error": 0.25,
            "overlay_error": 0.75,
            "routing_iterations": 3,
            "by_routing_iterations": routed,
        },
        "cnn": {"both_right": 0.8771},
        "lead": difference(low, high),
        "people": people,
        "weights_sha256": {"capsnet": sha256(capsnet / "model.safetensors"), "cnn": sha256(cnn / "model.safetensors")},
    }


def test_the_measurement_is_read_only_for_the_weights_it_was_made_with(tmp_path):
    capsnet, cnn = tmp_path / "pairs", tmp_path / "pairs-cnn"
    for folder in (capsnet, cnn):  # measured() hashes the weights only
        folder.mkdir()
        (folder / "model.safetensors").write_bytes(f"the weights of {folder.name}".encode())
    results = capsnet / "pairs.json"
    for low, high, said in (
        (1.2, 3.4, "the CapsNet reads more pairs"),
        (-2.7, -1.4, "the CNN reads more pairs"),
        (-0.5, 0.8, "no clear difference"),
    ):
        results.write_text(json.dumps(measurement(capsnet, cnn, low, high)))
        shown = two_digits_text.measured(networks.pairs_results(str(capsnet), str(cnn)))
        assert "**91.2%**" in shown and "**87.7%**" in shown and "10,000" in shown and said in shown
        assert "Not measured" not in shown
        assert "both right in 61.1%, and 88.8% of them alone" in shown and "0.34 long or longer" in shown
        assert "its redrawing covers 5.0% or more of the ink the longest leaves" in shown
        assert "read as one digit in 97.5%, its test pairs as two in 99.0%" in shown
        assert two_digits_reading.measured_rules(networks.pairs_results(str(capsnet), str(cnn))) == (
            CountRule(0.34, 0.05),
            CountRule(0.22),
        )
    for low, high, said in (
        (0.3, 1.1, "it reads more pairs without routing"),
        (-1.9, -0.2, "routing helps it"),
        (-0.6, 0.2, "routing makes no clear difference"),
    ):
        results.write_text(json.dumps(measurement(capsnet, cnn, 1.2, 3.4, low, high)))
        shown = two_digits_text.measured(networks.pairs_results(str(capsnet), str(cnn)))
        assert "Without routing the CapsNet reads 90.8%" in shown
        assert re.search(
            r"90\.8% \(in points, with its 95% interval: [+-]\d\.\d "
            + re.escape(f"[{low:+.1f}, {high:+.1f}]): {said}"),
            shown,
        ), shown
    other = measurement(capsnet, cnn, 1, 2)
    other["weights_sha256"]["cnn"] = sha256(capsnet / "model.safetensors")  # another CNN's
    results.write_text(json.dumps(other))
    assert two_digits_text.measured(networks.pairs_results(str(capsnet), str(cnn))).startswith(
        "Not measured for these weights"
    )
    assert two_digits_reading.measured_rules(networks.pairs_results(str(capsnet), str(cnn))) is None
    for foreign in (
        "not JSON",
        json.dumps({"weights_sha256": measurement(capsnet, cnn, 1, 2)["weights_sha256"]}),
        json.dumps([1, 2]),
    ):
        results.write_text(foreign)
        assert two_digits_text.measured(networks.pairs_results(str(capsnet), str(cnn))).startswith(
            "Not measured for these weights"
        )
    results.unlink()
    shown = two_digits_text.measured(networks.pairs_results(str(capsnet), str(cnn)))
    assert shown.startswith("Not measured for these weights") and "is missing" in shown


def test_the_shipped_measurement_is_shown_for_the_shipped_weights(section):
    if not (PAIRS / "pairs.json").exists():
        pytest.skip("no weights/pairs/pairs.json yet (python -m capsnet.studies.pairs_measurement)")
    results = json.loads((PAIRS / "pairs.json").read_text())
    shipped = two_digits_text.measured(networks.pairs_results(str(PAIRS), str(PAIRS_CNN)))
    assert f"**{results['capsnet']['both_right']:.1%}**" in shipped and "Not measured" not in shipped
    assert f"the CapsNet reads {results['capsnet']['by_routing_iterations'][0]['both_right']:.1%}" in shipped
    lead = (results["only_capsnet"] - results["only_cnn"]) / results["test_pairs"]  # a fraction, as the code writes it
    assert results["lead"]["difference"] == pytest.approx(lead, abs=1e-4) and f": {points(results['lead'])})" in shipped
    assert section.finding == shipped


def test_the_examples_are_the_first_test_pairs_in_two_layers():
    assert EXAMPLES and [path.name.split("_")[3] for path in EXAMPLES] == [f"{n:04d}" for n in range(len(EXAMPLES))]
    for example in two_digits_pad.examples():
        assert example.ink.shape == (2, 28, 28) and example.picture.shape == (28, 28, 3)
        assert (example.ink.reshape(2, -1).max(axis=1) > 200).all()  # a digit in each layer
