"""Examples as people write them (capsnet.data.written) and the strokes they are drawn with
(capsnet.data.strokes): skeletons, segments, the pen, stroke width, and what train.py makes of them."""

import dataclasses
import json
import math

import numpy as np
import pytest
import torch

from capsnet import capsule_loss
from capsnet.data.pairs import digits_right
from capsnet.data.preprocess import INK_THRESHOLD
from capsnet.data.strokes import pen_ink, segments, skeletons, stroke_width
from capsnet.data.written import (
    BILEVEL_LEVELS,
    BILEVEL_SHARE,
    COARSE_SHARE,
    COARSE_SIDES,
    PEN_WIDTHS,
    SINGLE_SHARE,
    SQUARING_SHARE,
    DigitSet,
    draw_examples,
    fixed_examples,
    inverse,
    render,
)
from capsnet.loss import margin_loss, reconstruction_loss
from capsnet.training.losses import capsnet_pairs_loss
from capsnet.training.processes import Processes
from capsnet.training.random_state import epoch_seed
from capsnet.training.sharded_data import WrittenTrainingData, run_data
from tests.support.train_flags import train_flags


def neighbours(skeleton: torch.Tensor) -> torch.Tensor:
    """The number of 8-neighbours of each pixel of a bool [H, W] that are on."""
    padded = torch.nn.functional.pad(skeleton.float()[None, None], (1, 1, 1, 1))
    return torch.nn.functional.conv2d(padded, torch.ones(1, 1, 3, 3))[0, 0] - skeleton.float()


def test_thinning_a_thick_bar_leaves_one_pixel_wide_line_along_it():
    bar = torch.zeros(1, 28, 28)
    bar[0, 11:16, 4:24] = 1  # 5 pixels thick, 20 long
    skeleton = skeletons(bar)[0]
    assert skeleton[:, 8:20].sum(dim=0).eq(1).all()  # one pixel in each inner column
    assert skeleton.any(dim=0).sum() >= 14 and not skeleton[~bar[0].bool()].any()


def test_thinning_a_ring_keeps_it_closed():
    y, x = torch.meshgrid(torch.arange(28.0), torch.arange(28.0), indexing="ij")
    radius = ((y - 13.5) ** 2 + (x - 13.5) ** 2).sqrt()
    ring = ((radius > 6) & (radius < 10)).float()[None]
    skeleton = skeletons(ring)[0]
    assert skeleton.sum() > 30
    assert (neighbours(skeleton)[skeleton] >= 2).all()  # no loose end: still a loop


def test_segments_join_neighbours_once_skip_an_ls_diagonal_and_keep_a_dot():
    skeleton = torch.zeros(1, 10, 10, dtype=torch.bool)
    skeleton[0, 2, 2] = skeleton[0, 3, 2] = skeleton[0, 3, 3] = True  # an L: down, then right
    skeleton[0, 7, 7] = True  # a dot
    ends, valid = segments(skeleton)
    found = {tuple(e.tolist()) for e in ends[0][valid[0]]}
    assert found == {(2.5, 2.5, 2.5, 3.5), (2.5, 3.5, 3.5, 3.5), (7.5, 7.5, 7.5, 7.5)}


def test_segments_pad_every_skeleton_to_the_longest():
    skeleton = torch.zeros(2, 10, 10, dtype=torch.bool)
    skeleton[0, 5, 1:9] = True  # 7 segments
    skeleton[1, 5, 5] = True  # 1
    ends, valid = segments(skeleton)
    assert ends.shape == (2, 7, 4) and valid.sum(dim=1).tolist() == [7, 1]


@pytest.mark.parametrize("width", [1.5, 2.0, 3.0])
def test_the_pen_draws_a_line_as_wide_as_asked_and_stroke_width_measures_it(width):
    ends = torch.tensor([[[5.5, 14.5, 23.5, 14.5]]])  # 18 pixels long, on pixel centres
    ink = pen_ink(ends, torch.ones(1, 1, dtype=torch.bool), torch.tensor([width / 2]))
    area = width * 18 + math.pi * (width / 2) ** 2  # a stadium
    assert ink.sum().item() == pytest.approx(area, rel=0.05)
    assert ink.max() == 1 and ink.min() == 0
    assert stroke_width(ink).item() == pytest.approx(width, rel=0.15)


def dense_pen_ink(ends: torch.Tensor, valid: torch.Tensor, radius: torch.Tensor, side: int) -> torch.Tensor:
    """The pen's ink measured the plain way: every pixel's distance to every segment [B, K, side^2]."""
    centre = torch.arange(side, dtype=ends.dtype) + 0.5
    py, px = (c.flatten().view(1, 1, -1) for c in torch.meshgrid(centre, centre, indexing="ij"))
    ax, ay, bx, by = (c.unsqueeze(-1) for c in ends.unbind(-1))  # [B, K, 1] each
    dx, dy = bx - ax, by - ay
    t = (((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy).clamp_min(1e-12)).clamp_(0, 1)
    squared = (ax + t * dx - px).square_() + (ay + t * dy - py).square_()
    distance = squared.masked_fill(~valid.unsqueeze(-1), float("inf")).amin(dim=1).sqrt_()
    return ((radius + 0.5).unsqueeze(1) - distance).clamp(0, 1).view(-1, side, side)


def test_the_pen_inks_exactly_the_pixels_every_pixel_against_every_segment_inks():
    """Long and short segments, dots, some past the image's edge, some invalid; pens thin and wide."""
    generator = torch.Generator().manual_seed(0)
    start = torch.rand(64, 12, 2, generator=generator) * 36 - 4  # [B, K, 2], some outside the 28x28
    step = torch.randn(64, 12, 2, generator=generator) * torch.tensor([0.0, 1.5, 12.0])[torch.arange(12) % 3, None]
    ends = torch.cat([start, start + step], dim=-1)  # a dot, a short segment, a long one, in turn
    valid = torch.rand(64, 12, generator=generator) < 0.8
    radius = torch.rand(64, generator=generator) * 2.5
    ink = pen_ink(ends, valid, radius)
    assert torch.equal(ink, dense_pen_ink(ends, valid, radius, 28))
    assert 0 < ink.sum() and not ink[~valid.any(dim=1)].any()


@pytest.fixture(scope="module")
def digit_set(mnist_test) -> DigitSet:
    return DigitSet.of(mnist_test.data[:600], mnist_test.targets[:600])


@pytest.fixture(scope="module")
def made(digit_set):
    """600 examples, one for each digit of the set, and what they are made of."""
    examples = draw_examples(digit_set.labels, torch.arange(600), torch.Generator().manual_seed(3))
    return examples, render(digit_set, examples)


def test_a_quarter_hold_one_digit_labelled_twice_and_the_rest_two_of_different_classes(made, digit_set):
    examples, (inputs, labels, digits) = made
    single = ~examples.two
    assert inputs.shape == (600, 1, 28, 28) and labels.shape == (600, 2) and digits.shape == (600, 2, 1, 28, 28)
    assert abs(single.float().mean().item() - SINGLE_SHARE) < 0.05
    assert (labels[single, 0] == labels[single, 1]).all() and (labels[~single, 0] != labels[~single, 1]).all()
    assert (labels[:, 0] == digit_set.labels[:600]).all()  # each digit of the set comes first once
    assert torch.equal(digits[single, 0], digits[single, 1])


def test_the_input_is_the_brighter_ink_of_its_digits_strongest_one(made):
    _, (inputs, _, digits) = made
    torch.testing.assert_close(inputs, digits.amax(dim=1))
    assert (inputs.flatten(1).amax(dim=1) == 1).all()


def plain(examples):
    """The examples drawn without other writers' ink: neither squared, coarse nor hard-edged."""
    return (examples.squared == 0) & (examples.coarse == 0) & (examples.level == 0)


def test_the_ink_is_fitted_into_20x20_and_centred_as_the_page_centres_a_drawing(made):
    examples, (inputs, _, _) = made
    strong = inputs[:, 0] >= INK_THRESHOLD
    rows, columns = strong.any(dim=2), strong.any(dim=1)

    def extent(mask):
        places = torch.arange(28).expand_as(mask)
        return torch.where(mask, places, -1).amax(dim=1) - torch.where(mask, places, 99).amin(dim=1) + 1

    side = torch.maximum(extent(rows), extent(columns))
    fitted = side[plain(examples)]
    assert fitted.float().mean() == pytest.approx(20, abs=0.3) and fitted.min() >= 18 and fitted.max() <= 22
    # Coarse or hard-edged ink is changed after the fit: its pale edge blurred out or cut off.
    assert side.float().mean() == pytest.approx(20, abs=0.5) and side.min() >= 15 and side.max() <= 24
    ink = inputs[:, 0]
    mass = ink.sum(dim=(1, 2))
    row = (ink.sum(dim=2) @ torch.arange(28.0)) / mass
    column = (ink.sum(dim=1) @ torch.arange(28.0)) / mass
    assert ((row - 14).abs() <= 0.5001).all() and ((column - 14).abs() <= 0.5001).all()  # whole-pixel moves


def test_a_pen_digits_strokes_are_as_wide_as_its_pen_in_the_networks_field(made, digit_set):
    examples, _ = made
    count = len(examples)
    zero = torch.zeros(count)
    in_a_pen = dataclasses.replace(
        examples,
        two=torch.zeros(count, dtype=torch.bool),
        pen=torch.ones(count, dtype=torch.bool),
        squared=zero,
        coarse=zero.long(),
        level=zero,
    )  # one digit, nothing overlapping
    measured = stroke_width(render(digit_set, in_a_pen)[0][:, 0])
    asked = examples.widths
    assert (measured / asked).median() == pytest.approx(1.1, abs=0.15)
    assert np.corrcoef(asked, measured)[0, 1] > 0.8
    assert asked.min() >= PEN_WIDTHS[0] and asked.max() <= PEN_WIDTHS[1]


def test_mnist_ink_is_kept_and_a_pen_draws_clean_lines(made):
    examples, (inputs, _, _) = made
    grey = ((inputs[:, 0] > 0.05) & (inputs[:, 0] < 0.95)).flatten(1).float().sum(dim=1)
    ink = (inputs[:, 0] > 0.05).flatten(1).float().sum(dim=1)
    share = grey / ink  # how much of the ink is half-tone
    kept = plain(examples)
    assert share[examples.pen & kept].median() < share[~examples.pen & kept].median()


def test_other_writers_ink_is_each_a_share_of_the_examples_drawn_on_its_own(made):
    examples, _ = made
    squared, coarse, hard = examples.squared > 0, examples.coarse > 0, examples.level > 0
    for kind, share in ((squared, SQUARING_SHARE), (coarse, COARSE_SHARE), (hard, BILEVEL_SHARE)):
        assert abs(kind.float().mean().item() - share) < 0.06
    assert (squared & coarse & hard).any() and (~squared & ~coarse & ~hard).float().mean() > 0.25
    assert examples.coarse[coarse].min() >= COARSE_SIDES[0] and examples.coarse[coarse].max() <= COARSE_SIDES[1]
    assert examples.level[hard].min() >= BILEVEL_LEVELS[0] and examples.level[hard].max() <= BILEVEL_LEVELS[1]


def single_plain(examples, **changes):
    """``examples`` as single digits, upright, unstretched, in no other writer's ink, then ``changes``."""
    count = len(examples)
    zero = torch.zeros(count)
    return dataclasses.replace(
        examples,
        **{
            "two": torch.zeros(count, dtype=torch.bool),
            "turns": torch.zeros(count, 2),
            "shears": torch.zeros(count, 2),
            "aspects": torch.ones(count, 2),
            "squared": zero,
            "coarse": zero.long(),
            "level": zero,
            **changes,
        },
    )


def box_aspect(inputs: torch.Tensor) -> torch.Tensor:
    """|log(width / height)| of each input's ink box: 0 for a square."""
    strong = inputs[:, 0] >= INK_THRESHOLD
    return (strong.any(dim=1).sum(dim=1).float() / strong.any(dim=2).sum(dim=1).float()).log().abs()


@pytest.fixture(scope="module")
def as_written(made, digit_set) -> torch.Tensor:
    """The 600 digits drawn alone, upright, in no other writer's ink [600, 1, 28, 28]: what each
    other writer's change is measured against."""
    examples, _ = made
    return render(digit_set, single_plain(examples))[0]


def test_a_squared_digit_fills_a_square_box(made, digit_set, as_written):
    examples, _ = made
    squared = render(digit_set, single_plain(examples, squared=torch.ones(len(examples))))[0]
    narrow = box_aspect(as_written) > 0.4  # a 1, a 7: far from square
    assert narrow.sum() > 50
    assert box_aspect(squared)[narrow].median() < 0.15 < 0.4 < box_aspect(as_written)[narrow].median()


def test_hard_edged_ink_is_ink_or_paper_and_coarse_ink_loses_its_fine_detail(made, digit_set, as_written):
    examples, _ = made
    count = len(examples)
    hard = render(digit_set, single_plain(examples, level=torch.full((count,), 0.5)))[0]
    assert set(hard.unique().tolist()) == {0.0, 1.0}
    assert set(as_written.unique().tolist()) != {0.0, 1.0}
    coarse = render(digit_set, single_plain(examples, coarse=torch.full((count,), 14)))[0]

    def roughness(images):  # the mean difference of neighbouring pixels over the ink
        return (images.diff(dim=-1).abs().sum() + images.diff(dim=-2).abs().sum()) / images.sum()

    assert roughness(coarse) < 0.8 * roughness(as_written)


def test_the_same_seed_gives_the_same_examples_and_another_seed_others(digit_set):
    def drawn(seed):
        return render(digit_set, draw_examples(digit_set.labels, torch.arange(40), torch.Generator().manual_seed(seed)))

    assert all(torch.equal(a, b) for a, b in zip(drawn(5), drawn(5), strict=True))
    assert not torch.equal(drawn(5)[0], drawn(6)[0])


@pytest.mark.slow
def test_fixed_examples_give_one_example_a_digit_in_chunks_as_one_render(digit_set):
    inputs, labels, digits = fixed_examples(digit_set, seed=9)
    examples = draw_examples(digit_set.labels, torch.arange(600), torch.Generator().manual_seed(9))
    expected = render(digit_set, examples)
    assert all(torch.equal(a, b) for a, b in zip((inputs, labels, digits), expected, strict=True))


def test_inverse_undoes_a_turn_a_shear_and_a_stretch():
    a = torch.tensor([[[0.9, -0.3], [0.4, 1.2]], [[1.1, 0.2], [0.0, 0.8]]])
    torch.testing.assert_close(inverse(a) @ a, torch.eye(2).expand(2, 2, 2))


@pytest.mark.slow
def test_the_mnist_capsnet_still_reads_the_varied_digits_as_themselves(trained_model, digit_set):
    """The variation keeps a digit what it is: the MNIST CapsNet, which never saw these examples,
    reads the single digits right far above chance (docs/pairs.md: 94.7% of 1,000)."""
    examples = draw_examples(digit_set.labels, torch.arange(600), torch.Generator().manual_seed(4))
    single = dataclasses.replace(examples, two=torch.zeros(600, dtype=torch.bool))  # one digit each
    inputs, labels, _ = render(digit_set, single)
    with torch.inference_mode():
        read = torch.cat([trained_model(batch).prediction for batch in inputs.split(200)])
    right = read == labels[:, 0]
    assert right.float().mean() > 0.93
    assert right[single.pen].float().mean() > 0.9 and right[~single.pen].float().mean() > 0.95


def test_a_single_digit_is_read_right_by_its_strongest_capsule_a_pair_by_its_two():
    lengths = torch.tensor([[0.9, 0.6, 0.1, 0, 0, 0, 0, 0, 0, 0]] * 3)
    out = type("Out", (), {"lengths": lengths})()
    labels = torch.tensor([[0, 0], [0, 1], [1, 1]])
    assert digits_right(out, labels).tolist() == [True, True, False]


def test_a_single_digit_given_twice_is_one_digit_present_and_redrawn_once():
    torch.manual_seed(0)
    reconstruction, images = torch.rand(4, 2, 1, 28, 28), torch.rand(4, 2, 1, 28, 28)
    labels = torch.tensor([[3, 3], [3, 5], [7, 7], [1, 2]])
    counted = torch.tensor([[True, False], [True, True], [True, False], [True, True]])
    expected = 0.0005 * ((reconstruction - images) ** 2 * counted[..., None, None, None]).sum() / 4
    torch.testing.assert_close(reconstruction_loss(reconstruction, images, counted), expected)
    out = type("Out", (), {"lengths": torch.rand(4, 10), "reconstruction": reconstruction})()
    torch.testing.assert_close(capsule_loss(out, images, labels), margin_loss(out.lengths, labels) + expected)
    torch.testing.assert_close(
        margin_loss(out.lengths, labels[:1]), margin_loss(out.lengths, labels[:1, :1].squeeze(1))
    )


@pytest.mark.slow
def test_the_pairs_loss_masks_the_decoder_by_the_labels_not_by_what_the_network_read(mnist_test):
    """Training redraws each digit from the capsule of its true class (section 6): the loss of a
    batch the pairs CapsNet misreads differs from one masked by its own two longest capsules."""
    from capsnet import load_model
    from capsnet.data.pairs import TEST_SEED, fixed_pairs
    from capsnet.digit_count import top_two

    model = load_model("weights/pairs").eval()
    inputs, digits, labels, _ = fixed_pairs(mnist_test.data[:100], mnist_test.targets[:100], TEST_SEED)
    with torch.no_grad():
        read = top_two(model(inputs).lengths)
        wrong = (read.sort(dim=1).values != labels.sort(dim=1).values).any(dim=1)
        assert wrong.sum() >= 5  # a batch that tells the two apart
        loss, right = capsnet_pairs_loss(model, inputs, (labels, digits))
        by_labels = capsule_loss(model(inputs, labels), digits, labels)
        by_reading = capsule_loss(model(inputs, read), digits, labels)
    torch.testing.assert_close(loss, by_labels)
    assert (by_reading - by_labels).abs() > 1e-3
    assert right == (~wrong).sum()


def test_train_py_written_batches_are_the_written_examples_of_the_seed_and_epoch(tiny_mnist):
    data = WrittenTrainingData(
        str(tiny_mnist),
        torch.arange(64),
        16,
        seed=1,
        processes=Processes(),
        device=torch.device("cpu"),
        pairs_per_epoch=40,
    )
    batches = list(data.epoch(2))
    assert len(data) == 3 and [len(inputs) for inputs, _ in batches] == [16, 16, 8]
    examples = draw_examples(data.digits.labels, torch.arange(64), torch.Generator().manual_seed(epoch_seed(1, 2)))
    data.sampler.set_epoch(2)
    order = torch.tensor(list(data.sampler)[:40]).split(16)
    for chosen, (inputs, (labels, digits)) in zip(order, batches, strict=True):
        expected = render(data.digits, examples[chosen])
        assert all(torch.equal(a, b) for a, b in zip((inputs, labels, digits), expected, strict=True))
    assert not torch.equal(batches[0][0], next(iter(data.epoch(3)))[0])


def test_single_share_sets_how_many_training_examples_hold_one_digit_and_leaves_the_rest_as_drawn(digit_set):
    def draw(share):
        return draw_examples(digit_set.labels, torch.arange(600), torch.Generator().manual_seed(3), share)

    usual, more, none = draw(SINGLE_SHARE), draw(0.6), draw(0.0)
    assert abs((~more.two).float().mean().item() - 0.6) < 0.05 and none.two.all()
    assert (~usual.two <= ~more.two).all()  # the same draw, read against a higher line
    assert torch.equal(usual.turns, more.turns) and torch.equal(usual.level, more.level)


def test_train_py_single_share_changes_the_training_examples_not_the_validation_ones(tiny_mnist):
    import train

    def data(share):
        return run_data(
            str(tiny_mnist),
            torch.arange(48),
            torch.arange(48, 64),
            "pairs",
            "written",
            48,
            1,
            Processes(),
            torch.device("cpu"),
            False,
            48,
            share,
        )

    usual, all_alone = data(SINGLE_SHARE), data(1.0)
    ((_, (labels, _)),) = all_alone.training.epoch(1)
    ((_, (usual_labels, _)),) = usual.training.epoch(1)
    assert (labels[:, 0] == labels[:, 1]).all() and (usual_labels[:, 0] != usual_labels[:, 1]).any()
    for a, b in zip(usual.validation, all_alone.validation, strict=True):
        assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    options = train.parse_args(["--task", "pairs", "--single-share", "0.5"])
    assert options.single_share == 0.5 and options.recipe()["single_share"] == 0.5
    for flags in (
        ["--single-share", "0.5"],
        ["--task", "pairs", "--examples", "mnist-pairs", "--single-share", "0.5"],
        ["--task", "pairs", "--single-share", "1.5"],
        ["--task", "pairs", "--single-share", "nan"],
    ):
        with pytest.raises(train.UsageError, match="--single-share"):
            train.check_flags(train.parse_args(flags), 1)


@pytest.mark.slow
@pytest.mark.parametrize("network", ["capsnet", "cnn"])
def test_train_py_trains_on_written_examples_chooses_on_them_and_reads_mnist_pairs_too(tiny_mnist, tmp_path, network):
    import train

    out = tmp_path / "weights"
    flags = train_flags(
        tiny_mnist, out, tmp_path / "last.pt", task="pairs", model=network, val_size=16, batch_size=16, amp="off"
    )
    assert train.main([*flags, "--epochs", "1"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["examples"] == "written" and "as people write them" in metrics["selection"]
    assert metrics["single_share"] == SINGLE_SHARE
    assert 0 <= metrics["written_test_right"] <= 1 and 0 <= metrics["pairs_test_both_right"] <= 1
    assert 0 <= metrics["history"][0]["val_mnist_pairs"] <= 1
    assert train.main([*flags, "--epochs", "2", "--resume", "--examples", "mnist-pairs"]) == 2  # another recipe


@pytest.mark.gpu
def test_written_examples_drawn_on_cuda_are_those_drawn_on_the_cpu(mnist_test):
    """The same seed gives the same examples on any device: drawn on a GPU they are the CPU's,
    to float rounding (the skeletons, the labels and which pixels hold ink the same)."""
    on = {device: DigitSet.of(mnist_test.data[:300], mnist_test.targets[:300], device) for device in ("cpu", "cuda")}
    assert torch.equal(on["cpu"].valid, on["cuda"].valid.cpu()) and torch.equal(on["cpu"].ends, on["cuda"].ends.cpu())
    examples = draw_examples(on["cpu"].labels, torch.arange(300), torch.Generator().manual_seed(7))
    cpu, cuda = render(on["cpu"], examples), [t.cpu() for t in render(on["cuda"], examples)]
    assert torch.equal(cpu[1], cuda[1])
    torch.testing.assert_close(cuda[0], cpu[0], atol=2e-3, rtol=0)
    torch.testing.assert_close(cuda[2], cpu[2], atol=2e-3, rtol=0)
