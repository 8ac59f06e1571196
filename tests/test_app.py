"""The app's event functions called directly, then its API through gradio_client."""

import base64

import gradio as gr
import numpy as np
import pytest
import torch
from PIL import Image

from capsnet.shipping.onnx_file import file_name
from harness.digit_strokes import pad_value, strokes
from playground.dimensions_section import PAPER, SPREAD
from playground.reading import EXAMPLES as PAGE_EXAMPLES, example_ink
from playground.transform_sliders import UNCHANGED
from tests.support.examples import EXAMPLES, example_pixels, label_of

ZEROS = [0.0] * 16


def panel_digit(panel: dict) -> int | None:
    """The digit a reading panel's value shows, None where it shows no reading."""
    return panel.get("winner")


def alert(panel: dict) -> str:
    """What a panel's value says is wrong, "" where nothing is."""
    return panel.get("message", "")


def drawn(digit: int, revision: int = 1, drawing: bool = False) -> dict:
    return pad_value(strokes(digit, 70, 30, 140, 220), revision, drawing=drawing)


@pytest.fixture(scope="module")
def reading(app):
    return app.READING.read_drawing(drawn(7))[0]


def test_there_are_examples_of_every_digit(app):
    assert sorted(label_of(example) for example in PAGE_EXAMPLES) == list(range(10))
    for example in PAGE_EXAMPLES:
        digit, ink = example_ink(example)
        assert digit == label_of(example) and ink.shape == (28, 28) and ink.dtype == np.uint8


@pytest.mark.parametrize("digit", range(10))
def test_a_finished_drawing_is_read_kept_and_settled(app, digit):
    reading, panel = app.READING.read_drawing(drawn(digit, revision=5))
    assert reading.winner == digit and reading.revision == 5
    assert panel_digit(panel) == digit == panel["decoded"]
    assert panel["revision"] == 5 and panel["settled"]
    np.testing.assert_allclose(panel["lengths"], reading.lengths)
    assert panel["runner_up"] == reading.runner_up != digit


def test_a_stroke_being_drawn_is_shown_but_not_kept(app):
    kept, panel = app.READING.read_drawing(drawn(3, revision=2, drawing=True))
    assert isinstance(kept, type(gr.skip())) and panel_digit(panel) == 3
    assert panel["revision"] == 2 and not panel["settled"]


def test_the_reading_is_the_network_s_on_the_drawn_image(app, reading):
    with torch.inference_mode():
        out = app.NETWORKS.capsnet(torch.from_numpy(reading.image)[None, None])
    torch.testing.assert_close(reading.capsules, out.capsules[0])
    np.testing.assert_allclose(reading.lengths, out.lengths[0].numpy(), rtol=1e-6)
    assert reading.winner == int(out.prediction[0])


def test_an_example_on_the_pad_reads_as_its_digit(app):
    import base64

    for example in EXAMPLES:
        digit, ink = example_ink(example)
        value = pad_value([], background=base64.b64encode(ink.tobytes()).decode())
        assert app.READING.read_drawing(value)[0].winner == digit


def test_an_empty_pad_resets_the_panel_and_settles(app):
    reading, panel = app.READING.read_drawing(pad_value([]))
    assert reading is None and panel == {"revision": None, "settled": True}


def test_a_forged_drawing_gets_its_reason_in_the_panel(app):
    state, panel = app.READING.read_drawing({"strokes": ["1 2 3"]})
    assert isinstance(state, type(gr.skip()))
    assert "Cannot read this drawing" in alert(panel) and "pairs of coordinates" in alert(panel)


def test_details_reset_the_controls_and_draw_figure4_and_the_routing(app, reading):
    shown = app.CAPSULE_DIMENSIONS.sliders_at_zero(None, PAPER)
    decode_as, sliders, figure4, routing = app.show_details(reading, "3", PAPER, shown)
    assert decode_as == app.WINNER
    assert sliders["enabled"] and sliders["offsets"] == ZEROS
    assert [row["dimension"] for row in sliders["rows"]] == app.CAPSULE_DIMENSIONS.ordered_dimensions(
        reading.winner, PAPER
    )
    assert len(figure4["strips"]) == 16 and figure4["digit"] == reading.winner  # Figure 4 of the winner
    assert routing["revision"] == reading.revision and len(routing["lengths"]) == 5
    again = app.show_details(reading, app.WINNER, PAPER, sliders)
    assert all(isinstance(output, type(gr.skip())) for output in again[:2])  # nothing to reset


def test_details_after_clear_empty_everything(app):
    decode_as, sliders, figure4, routing = app.show_details(None, app.WINNER, PAPER, {})
    assert not sliders["enabled"] and figure4 is None and routing is None


def test_the_sliders_are_named_and_ordered_by_measured_effect(app, reading):
    if app.NETWORKS.names is None:
        pytest.skip("no weights/dimensions.json for these weights")
    digit = reading.winner
    rows = app.CAPSULE_DIMENSIONS.sliders_at_zero(digit, PAPER)["rows"]
    effects = [app.NETWORKS.names.paper[digit][row["dimension"]].effect for row in rows]
    assert effects == sorted(effects, reverse=True)
    names = app.NETWORKS.names
    assert rows[0]["label"] == f"d{rows[0]['dimension'] + 1}: {names.paper[digit][rows[0]['dimension']].name}"
    spread = app.CAPSULE_DIMENSIONS.sliders_at_zero(digit, SPREAD)["rows"]
    for row in spread:
        assert row["limit"] == pytest.approx(names.spread_range * names.sd[digit][row["dimension"]], abs=1e-4)


def test_decode_as_another_digit_renames_the_sliders_and_redraws(app, reading):
    other = (reading.winner + 1) % 10
    panel, sliders, figure4 = app.CAPSULE_DIMENSIONS.decode_again(reading, str(other), PAPER, {})
    assert panel["decoded"] == other and panel["winner"] == reading.winner
    assert [row["label"] for row in sliders["rows"]] == [
        app.CAPSULE_DIMENSIONS.dimension_label(other, d, PAPER)
        for d in app.CAPSULE_DIMENSIONS.ordered_dimensions(other, PAPER)
    ]
    assert figure4["rows"] == sliders["rows"] and figure4["digit"] == other


def test_the_panel_carries_what_the_decoder_in_the_page_redraws_from(app, reading):
    """The page's decoder redraws the reconstruction from the panel's value: the reading's capsules,
    exactly, the address of the decoder of the network that read them, the capsule shown, the winner."""
    other = (reading.winner + 1) % 10
    panel = app.CAPSULE_DIMENSIONS.decode_again(reading, str(other), PAPER, {})[0]
    capsules = np.frombuffer(base64.b64decode(panel["capsules"]), dtype="<f4").reshape(reading.capsules.shape)
    np.testing.assert_array_equal(capsules, reading.capsules.numpy())
    assert panel["decoder"] == app.READING.decoder.url == f"network/{file_name(app.READING.decoder.data)}.onnx"
    assert (panel["decoded"], panel["winner"]) == (other, reading.winner)
    assert "capsules" not in app.READING.panel(None)


def test_the_sliders_carry_where_each_dimension_changes_the_digit_and_the_page_every_digit_s_rows(app, reading):
    """The server's sliders come with a picture a dimension of where it changes the reading's
    digit; the page gets, once, every digit's rows over each range, the same as the server sends."""
    value = app.CAPSULE_DIMENSIONS.sliders_at_zero(reading.winner, PAPER, reading=reading)
    assert value["range"] == PAPER and len(value["pictures"]) == 16
    assert all(picture.startswith("data:image/png;base64,") for picture in value["pictures"])
    assert app.CAPSULE_DIMENSIONS.sliders_at_zero(reading.winner, PAPER)["pictures"] is None
    digit_rows = app.CAPSULE_DIMENSIONS.digit_rows()
    assert list(digit_rows) == list(app.CAPSULE_DIMENSIONS.ranges)
    for scale, rows in digit_rows.items():
        assert rows == [app.CAPSULE_DIMENSIONS.sliders_at_zero(digit, scale)["rows"] for digit in range(10)]


def offsets_panel(app, reading, offsets, decode_as=None):
    value = app.CAPSULE_DIMENSIONS.sliders_at_zero(reading.winner, PAPER)
    value["offsets"] = offsets
    return app.CAPSULE_DIMENSIONS.move_dimensions(reading, decode_as or app.WINNER, PAPER, value)


def test_moving_a_slider_redraws_only_the_reconstruction(app, reading):
    plain = offsets_panel(app, reading, ZEROS)
    assert plain == app.READING.panel(reading)
    moved = offsets_panel(app, reading, [0.25] + ZEROS[1:])
    assert moved["reconstruction"] != plain["reconstruction"]
    assert {**moved, "reconstruction": None} == {**plain, "reconstruction": None}


def test_sliders_of_a_reading_the_server_dropped_ask_to_draw_again(app):
    """The page enables the sliders only with a reading; Gradio drops the state of the sessions
    used least recently (serving.SESSIONS_KEPT)."""
    shown = app.CAPSULE_DIMENSIONS.move_dimensions(None, app.WINNER, PAPER, {"offsets": ZEROS})
    assert "draw the digit again" in alert(shown)


def test_the_server_s_fallbacks_read_the_drawing_the_page_read(app, reading):
    """A drawing the page read never reached the server: a fallback (a slider's move, Decode as,
    Turn it) reads the pad's value it brings, where the kept reading is of another drawing."""
    three = drawn(3, revision=9)
    sliders = app.CAPSULE_DIMENSIONS.sliders_at_zero(3, PAPER)
    for kept in (None, reading):  # nothing kept, or the 7 of revision 1
        moved = app.CAPSULE_DIMENSIONS.move_dimensions(kept, app.WINNER, PAPER, sliders, three)
        assert panel_digit(moved) == 3 and moved["revision"] == 9
        panel, _, figure4 = app.CAPSULE_DIMENSIONS.decode_again(kept, "5", PAPER, {}, three)
        assert panel_digit(panel) == 3 and panel["decoded"] == 5 and figure4["digit"] == 5
        turned, sweep = app.TURN_IT.show(kept, {**UNCHANGED, "revision": 1}, three)
        assert turned["winner"] == 3 and sweep["reading"] == "9"
    assert app.READING.reading_of(reading, drawn(7, revision=reading.revision)) is reading  # not read again
    assert app.READING.reading_of(reading, None) is reading  # a page that sends no drawing: as kept


@pytest.mark.parametrize("forged", [{"strokes": "1 2"}, [], "3"], ids=["strokes", "list", "string"])
def test_a_forged_drawing_in_a_fallback_gets_its_reason(app, reading, forged):
    sliders = app.CAPSULE_DIMENSIONS.sliders_at_zero(7, PAPER)
    moved = app.CAPSULE_DIMENSIONS.move_dimensions(reading, app.WINNER, PAPER, sliders, forged)
    decoded = app.CAPSULE_DIMENSIONS.decode_again(reading, "5", PAPER, {}, forged)[0]
    turned = app.TURN_IT.turn(reading, {**UNCHANGED, "revision": 1}, forged)
    for shown in (moved, decoded, turned):
        assert "Cannot read this drawing: " in alert(shown)


@pytest.mark.parametrize(
    "offsets",
    [[0.3] + ZEROS[1:], ZEROS[:3], ["0.1"] + ZEROS[1:], [float("nan")] + ZEROS[1:]],
    ids=["beyond", "too-few", "string", "nan"],
)
def test_forged_slider_offsets_get_their_reason_in_the_panel(app, reading, offsets):
    assert "Cannot move the sliders" in alert(offsets_panel(app, reading, offsets))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.stem)
def test_predict_reads_the_examples_right(app, example):
    answer, reconstruction, reading = app.READING.predict(example_pixels(example))
    assert answer["digit"] == label_of(example) == reading.winner
    assert len(answer["lengths"]) == 10 and int(np.argmax(answer["lengths"])) == answer["digit"]
    assert reconstruction.shape == (280, 280) and reconstruction.dtype == np.uint8


def test_perturb_moves_the_reconstruction_of_the_last_reading(app):
    _, reconstruction, reading = app.READING.predict(example_pixels(EXAMPLES[0]))
    np.testing.assert_array_equal(app.READING.perturb(reading, app.WINNER, *ZEROS), reconstruction)
    assert np.abs(app.READING.perturb(reading, app.WINNER, 0.25, *ZEROS[1:]).astype(int) - reconstruction).max() > 0
    assert np.abs(app.READING.perturb(reading, "3", *ZEROS).astype(int) - reconstruction).max() > 0


def test_perturb_before_predict_warns(app):
    with pytest.warns(UserWarning, match="Read a digit first"):
        assert app.READING.perturb(None, app.WINNER, *ZEROS) is None


@pytest.mark.server
def test_api_offers_exactly_predict_perturb_and_predict_pair(client):
    api = client.view_api(print_info=False, return_format="dict")
    assert set(api["named_endpoints"]) == {"/predict", "/perturb", "/predict_pair"}
    assert api["unnamed_endpoints"] == {}


@pytest.mark.server
def test_api_predict_an_image_file_then_perturb_in_one_session(client):
    from gradio_client import handle_file

    example = EXAMPLES[7]
    answer, reconstruction_file = client.predict(handle_file(str(example)), api_name="/predict")
    assert answer["digit"] == label_of(example) and len(answer["lengths"]) == 10
    reconstruction = np.asarray(Image.open(reconstruction_file))
    assert reconstruction.shape == (280, 280)
    unmoved = np.asarray(Image.open(client.predict("winner", *ZEROS, api_name="/perturb")))
    np.testing.assert_array_equal(unmoved, reconstruction)
    moved = np.asarray(Image.open(client.predict("winner", *[0.2] * 16, api_name="/perturb")))
    assert np.abs(moved.astype(int) - reconstruction).max() > 0


@pytest.mark.server
def test_api_rejects_offsets_out_of_range_with_a_message(client):
    from gradio_client import handle_file
    from gradio_client.exceptions import AppError

    client.predict(handle_file(str(EXAMPLES[2])), api_name="/predict")
    with pytest.raises(AppError, match="maximum"):
        client.predict("winner", *[0.9] * 16, api_name="/perturb")
