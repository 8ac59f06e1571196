"""Routing made visible: couplings, the routing trace, vote heatmaps, their place in the input,
agreement (capsnet.routing, CapsNet.routing_trace, CapsNetConfig.receptive_field_of)."""

import numpy as np
import pytest
import torch

from capsnet import CapsNet, CapsNetConfig, dynamic_routing
from capsnet.routing import agreement, routing_by_iterations, vote_heatmap
from tests.support.examples import example_digits

CONFIG = CapsNetConfig()
TYPES, GRID = CONFIG.primary_capsule_types, CONFIG.primary_grid  # 32, 6


@pytest.fixture(scope="module")
def model(trained_model):
    """The trained weights: an untrained network's routing changes its couplings by ~1e-8 from one
    iteration to the next, too little for a test to see whether the iterations asked for ran."""
    return trained_model


@pytest.fixture(scope="module")
def images() -> torch.Tensor:
    return example_digits()[0][:2]  # a 7 and a 2, [2, 1, 28, 28]


@pytest.fixture(scope="module")
def trace(model, images):
    return model.routing_trace(images[:1], max_iterations=5)


@pytest.mark.parametrize("iterations", [1, 2, 3, 5])
def test_couplings_sum_to_one_over_the_digit_capsules(model, images, iterations):
    with torch.inference_mode():
        c = model(images, routing_iterations=iterations).couplings  # [2, 1152, 10]
    torch.testing.assert_close(c.sum(dim=2), torch.ones(2, 1152))


def test_one_iteration_couples_every_capsule_uniformly(model, images):
    with torch.inference_mode():
        c = model(images, routing_iterations=1).couplings
    torch.testing.assert_close(c, torch.full_like(c, 0.1))


def test_more_iterations_never_change_the_shapes(model, images):
    with torch.inference_mode():
        outputs = [model(images, routing_iterations=r) for r in range(1, 6)]
    for name in ("capsules", "lengths", "prediction", "reconstruction", "couplings"):
        assert {tuple(getattr(out, name).shape) for out in outputs} == {tuple(getattr(outputs[0], name).shape)}


def test_trace_equals_the_forward_pass_at_every_iteration_count(model, images, trace):
    assert trace.u_hat.shape == (1152, 10, 16)
    assert trace.capsules.shape == (5, 10, 16)
    assert trace.couplings.shape == (5, 1152, 10)
    assert trace.lengths.shape == (5, 10)
    assert (trace.couplings[1:] - trace.couplings[:-1]).abs().amax(dim=(1, 2)).min() > 0.01  # each r its own
    for r in range(1, 6):
        with torch.inference_mode():
            out = model(images[:1], routing_iterations=r)
        torch.testing.assert_close(trace.lengths[r - 1], out.lengths[0])
        torch.testing.assert_close(trace.couplings[r - 1], out.couplings[0])
        assert trace.predictions[r - 1] == out.prediction[0]


def test_trace_of_predictions_routes_each_r_from_the_start(trace):
    routed = routing_by_iterations(trace.u_hat, 2)
    v, c = dynamic_routing(trace.u_hat[None], 2)
    torch.testing.assert_close(routed.capsules[1], v[0], rtol=0, atol=0)
    torch.testing.assert_close(routed.couplings[1], c[0], rtol=0, atol=0)
    torch.testing.assert_close(routed.couplings, trace.couplings[:2], rtol=0, atol=0)


def test_trace_rejects_bad_input_clearly(model):
    with pytest.raises(ValueError, match="one image"):
        model.routing_trace(torch.zeros(28, 28), 5)
    with pytest.raises(ValueError, match="at least one iteration"):
        model.routing_trace(torch.zeros(1, 1, 28, 28), max_iterations=0)
    with pytest.raises(ValueError, match="at least one iteration"):
        routing_by_iterations(torch.zeros(1152, 10, 16), 0)


def vote_heatmap_by_loop(c: torch.Tensor, u_hat: torch.Tensor, digit: int, capsule_type: int | None) -> torch.Tensor:
    """The obviously correct heatmap: visit every primary capsule i = type * 36 + row * 6 + col."""
    heat = torch.zeros(GRID, GRID)
    for i in range(TYPES * GRID * GRID):
        kind, position = divmod(i, GRID * GRID)
        row, col = divmod(position, GRID)
        if capsule_type is None or kind == capsule_type:
            heat[row, col] += c[i, digit] * u_hat[i, digit].norm()
    return heat


@pytest.mark.parametrize("capsule_type", [None, 0, 17, 31])
def test_vote_heatmap_matches_a_loop_over_the_capsules(trace, capsule_type):
    c, digit = trace.couplings[2], int(trace.predictions[2])
    heat = vote_heatmap(c, trace.u_hat, digit, TYPES, GRID, capsule_type)
    assert heat.shape == (GRID, GRID)
    torch.testing.assert_close(heat, vote_heatmap_by_loop(c, trace.u_hat, digit, capsule_type))


@pytest.mark.parametrize("r", [1, 3, 5])
def test_vote_heatmap_sums_to_the_mass_of_s_j(trace, r):
    c = trace.couplings[r - 1]  # [1152, 10]
    for digit in range(10):
        heat = vote_heatmap(c, trace.u_hat, digit, TYPES, GRID)
        mass = (c[:, digit] * trace.u_hat[:, digit].norm(dim=-1)).sum()  # sum_i c_ij |u_hat_j|i|
        torch.testing.assert_close(heat.sum(), mass)
        per_type = torch.stack([vote_heatmap(c, trace.u_hat, digit, TYPES, GRID, t) for t in range(TYPES)])
        torch.testing.assert_close(per_type.sum(dim=0), heat)
        s = (c[:, digit, None] * trace.u_hat[:, digit]).sum(dim=0)  # s_j (eq. 2)
        assert s.norm() <= heat.sum() + 1e-5


def test_vote_heatmap_of_a_batch_is_the_heatmap_of_each_example(model, images):
    with torch.inference_mode():
        u_hat = model.digits.predictions(model.primary_capsules(images))  # [2, 1152, 10, 16]
        _, c = dynamic_routing(u_hat, 3)
    batched = vote_heatmap(c, u_hat, 4, TYPES, GRID, capsule_type=5)
    assert batched.shape == (2, GRID, GRID)
    for b in range(2):
        torch.testing.assert_close(batched[b], vote_heatmap(c[b], u_hat[b], 4, TYPES, GRID, capsule_type=5))


def test_vote_heatmap_rejects_bad_choices(trace):
    with pytest.raises(ValueError, match="digit"):
        vote_heatmap(trace.couplings[0], trace.u_hat, 10, TYPES, GRID)
    with pytest.raises(ValueError, match="capsule type"):
        vote_heatmap(trace.couplings[0], trace.u_hat, 3, TYPES, GRID, capsule_type=32)


@pytest.mark.parametrize("row, col", [(0, 0), (2, 5), (5, 5)])
def test_the_documented_receptive_field_is_the_network_s(model, row, col):
    image = torch.rand(1, 1, 28, 28, generator=torch.Generator().manual_seed(2), requires_grad=True)
    capsule = 7 * GRID * GRID + row * GRID + col
    u = model.primary_capsules(image)  # [1, 1152, 8]
    u[0, capsule].pow(2).sum().backward()
    reached = image.grad[0, 0].abs().numpy() > 0  # [28, 28]
    field = np.zeros((28, 28), dtype=bool)
    field[model.config.receptive_field_of(row, col)] = True
    assert field.sum() == 17 * 17
    np.testing.assert_array_equal(reached, field)


def test_agreement_is_the_votes_mean_cosine_weighted_by_their_shares(trace):
    v, c = trace.capsules[2], trace.couplings[2]
    a = agreement(trace.u_hat, v, c)
    assert a.shape == (10,)
    assert ((a >= -1) & (a <= 1)).all()
    for digit in range(10):
        votes = trace.u_hat[:, digit]  # [1152, 16]
        cosine = votes @ v[digit] / (votes.norm(dim=1) * v[digit].norm())
        shares = c[:, digit] * votes.norm(dim=1)  # c_ij |u_hat_j|i|
        expected = (shares * cosine).sum() / shares.sum()
        torch.testing.assert_close(a[digit], expected)
        # v_j points along s_j, so this is how much of the votes' length survives their sum
        s = (c[:, digit, None] * votes).sum(dim=0)
        torch.testing.assert_close(a[digit], s.norm() / shares.sum())


def test_agreement_is_one_when_every_vote_points_along_its_capsule():
    generator = torch.Generator().manual_seed(3)
    directions = torch.randn(10, 16, generator=generator)  # one direction per digit
    sizes = torch.rand(1, 1152, 10, 1, generator=generator) + 0.1  # positive lengths
    u_hat = sizes * directions  # [1, 1152, 10, 16]
    v, c = dynamic_routing(u_hat, 3)
    torch.testing.assert_close(agreement(u_hat, v, c), torch.ones(1, 10))
    torch.testing.assert_close(agreement(u_hat, -v, c), -torch.ones(1, 10))


def test_the_winner_s_voters_agree_more_than_the_runner_up_s(trained_model, mnist_test):
    images = torch.stack([mnist_test[k][0] for k in range(100)])  # [100, 1, 28, 28]
    with torch.inference_mode():
        u_hat = trained_model.digits.predictions(trained_model.primary_capsules(images))
        v, c = dynamic_routing(u_hat, 3)
    a = agreement(u_hat, v, c)  # [100, 10]
    winner, runner_up = v.norm(dim=-1).topk(2, dim=1).indices.unbind(dim=1)
    rows = torch.arange(len(images))
    assert (a[rows, winner] > a[rows, runner_up]).float().mean() >= 0.9


@pytest.mark.parametrize("row, col", [(0, 0), (1, 3), (4, 4)])
def test_the_receptive_field_is_read_from_the_network_s_config(row, col):
    config = CapsNetConfig(image_size=24, conv1_channels=32, kernel_size=5, primary_capsule_types=2)
    torch.manual_seed(0)
    model = CapsNet(config)  # grid 8 (24 -> 20 -> 8), field 9x9
    image = torch.rand(1, 1, 24, 24, generator=torch.Generator().manual_seed(5), requires_grad=True)
    u = model.primary_capsules(image)  # [1, 2 * grid^2, 8]
    u[0, config.primary_grid**2 + row * config.primary_grid + col].pow(2).sum().backward()
    field = np.zeros((24, 24), dtype=bool)
    field[config.receptive_field_of(row, col)] = True
    assert field.sum() == 9 * 9
    np.testing.assert_array_equal(image.grad[0, 0].abs().numpy() > 0, field)


def test_routing_traces_of_a_batch_are_each_image_s_own_trace(model):
    images = example_digits()[0][:6]  # six different digits, [6, 1, 28, 28]
    together = model.routing_traces(images, max_iterations=5)
    assert len(together) == len(images) and len({int(trace.predictions[2]) for trace in together}) == len(images)
    for image, trace in zip(images, together, strict=True):
        alone = model.routing_trace(image[None], max_iterations=5)
        assert torch.equal(trace.predictions, alone.predictions)
        for part in ("u_hat", "capsules", "couplings", "lengths"):
            torch.testing.assert_close(getattr(trace, part), getattr(alone, part), atol=1e-5, rtol=1e-4)
