"""The fast library against independent references: the naive CapsNet and a loop over Procedure 1."""

import math

import pytest
import torch

from capsnet import CapsNet, CapsNetConfig, dynamic_routing, squash
from capsnet.routing import dynamic_routing_from_weights
from harness.naive_capsnet import NaiveCapsNet


def loop_routing(u_hat: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Procedure 1 written out one example, one i and one j at a time (slow, obviously right)."""
    batch, inputs, outputs, _ = u_hat.shape
    v = torch.zeros(batch, outputs, u_hat.shape[3], dtype=torch.float64)
    c = torch.zeros(batch, inputs, outputs, dtype=torch.float64)
    for n in range(batch):
        b = [[0.0] * outputs for _ in range(inputs)]  # this example's own logits
        for iteration in range(iterations):
            for i in range(inputs):
                exps = [math.exp(b[i][j]) for j in range(outputs)]  # softmax over j
                for j in range(outputs):
                    c[n, i, j] = exps[j] / sum(exps)
            for j in range(outputs):
                s = sum(c[n, i, j] * u_hat[n, i, j] for i in range(inputs))
                squared_norm = float(s @ s)
                v[n, j] = squared_norm / (1 + squared_norm) * s / math.sqrt(squared_norm)
            if iteration < iterations - 1:
                for i in range(inputs):
                    for j in range(outputs):
                        b[i][j] += float(u_hat[n, i, j] @ v[n, j])
    return v, c


@pytest.fixture
def u_hat() -> torch.Tensor:
    """Predictions for 2 examples, 12 lower and 3 upper capsules, large enough for routing to matter."""
    return torch.randn(2, 12, 3, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)


@pytest.mark.parametrize("iterations", [1, 2, 3, 5])
def test_dynamic_routing_matches_the_loop_over_procedure_1(u_hat, iterations):
    v, c = dynamic_routing(u_hat, iterations)
    expected_v, expected_c = loop_routing(u_hat, iterations)
    torch.testing.assert_close(c, expected_c)
    torch.testing.assert_close(v, expected_v)


def test_routing_logits_belong_to_each_example(u_hat):
    v, c = dynamic_routing(u_hat, 3)
    for n in range(2):
        v_alone, c_alone = dynamic_routing(u_hat[n : n + 1], 3)
        torch.testing.assert_close(c_alone[0], c[n])
        torch.testing.assert_close(v_alone[0], v[n])
    assert not torch.allclose(c[0], c[1])  # two examples, two different routings


def test_couplings_are_a_softmax_over_the_upper_capsules(u_hat):
    _, c = dynamic_routing(u_hat, 3)
    torch.testing.assert_close(c.sum(dim=2), torch.ones(2, 12, dtype=torch.float64))
    assert not torch.allclose(c.sum(dim=1), c.sum(dim=1)[:, :1].expand(2, 3))  # not over i


@pytest.mark.parametrize("iterations", [1, 3])
def test_routing_from_weights_equals_routing_the_built_predictions(iterations):
    generator = torch.Generator().manual_seed(1)
    u = torch.randn(2, 12, 5, generator=generator, dtype=torch.float64)  # [B, I, K]
    W = torch.randn(12, 3, 4, 5, generator=generator, dtype=torch.float64)  # [I, J, D, K]
    v, c = dynamic_routing_from_weights(u, W, iterations)
    expected_v, expected_c = loop_routing(torch.einsum("ijdk,bik->bijd", W, u), iterations)
    torch.testing.assert_close(c, expected_c)
    torch.testing.assert_close(v, expected_v)


@pytest.fixture(scope="module")
def pair() -> tuple[CapsNet, NaiveCapsNet]:
    torch.manual_seed(0)
    ours = CapsNet(CapsNetConfig())
    with torch.no_grad():
        ours.digits.W.mul_(30)  # predictions long enough that routing moves away from uniform
    naive = NaiveCapsNet(CapsNetConfig())
    naive.load_state_dict(ours.state_dict(), strict=True)
    return ours, naive


def test_both_networks_have_the_same_parameters(pair):
    ours, naive = pair
    shapes = {name: p.shape for name, p in ours.named_parameters()}
    assert shapes == {name: p.shape for name, p in naive.named_parameters()}


@pytest.mark.parametrize("with_labels", [False, True])
def test_naive_reference_gives_the_same_outputs(pair, with_labels):
    ours, naive = pair
    generator = torch.Generator().manual_seed(2)
    images = torch.rand(3, 1, 28, 28, generator=generator)
    labels = torch.tensor([4, 0, 9]) if with_labels else None
    with torch.no_grad():
        fast, slow = ours(images, labels), naive(images, labels)
    assert slow.couplings.std() > 1e-3  # the routing did something
    for name in ("capsules", "lengths", "couplings", "reconstruction"):
        torch.testing.assert_close(getattr(fast, name), getattr(slow, name), rtol=0, atol=1e-5, msg=name)
    assert torch.equal(fast.prediction, slow.prediction)


def last_iteration_reference(u: torch.Tensor, W: torch.Tensor, iterations: int) -> torch.Tensor:
    """v with the gradient the library promises: the couplings of the last iteration are
    constants (found by routing without gradients), and only s_j = sum_i c_ij W_ij u_i is
    differentiated, through W and u."""
    u_hat = torch.einsum("ijdk,bik->bijd", W, u)  # [B, I, J, D]
    with torch.no_grad():
        _, c = loop_routing(u_hat.detach(), iterations)  # [B, I, J]
    s = torch.einsum("bij,bijd->bjd", c, u_hat)
    squared_norm = (s * s).sum(dim=-1, keepdim=True)
    return squared_norm / (1 + squared_norm) * s / squared_norm.sqrt()  # squash (eq. 1)


def gradients(route, u: torch.Tensor, W: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
    """d(sum of v . a fixed direction)/d(u, W) through ``route``."""
    u, W = u.clone().requires_grad_(), W.clone().requires_grad_()
    v = route(u, W, iterations)
    direction = torch.randn(v.shape, generator=torch.Generator().manual_seed(3), dtype=v.dtype)
    (v * direction).sum().backward()
    return u.grad, W.grad


ROUTES = {
    "from-weights": lambda u, W, r: dynamic_routing_from_weights(u, W, r)[0],
    "from-predictions": lambda u, W, r: dynamic_routing(torch.einsum("ijdk,bik->bijd", W, u), r)[0],
}


@pytest.mark.parametrize("route", ROUTES.values(), ids=ROUTES.keys())
@pytest.mark.parametrize("iterations", [1, 3])
def test_only_the_last_routing_iteration_is_differentiated(route, iterations):
    """What reaches W and the primary capsules u through routing: the gradient of the last
    iteration's weighted sum with the couplings held fixed, not the gradient through the earlier
    iterations' updates of b (a deliberate choice, documented in capsnet.routing.route)."""
    generator = torch.Generator().manual_seed(4)
    u = torch.randn(2, 12, 5, generator=generator, dtype=torch.float64)  # [B, I, K]
    W = torch.randn(12, 3, 4, 5, generator=generator, dtype=torch.float64)  # [I, J, D, K]
    u_grad, W_grad = gradients(route, u, W, iterations)
    expected_u, expected_W = gradients(last_iteration_reference, u, W, iterations)
    torch.testing.assert_close(u_grad, expected_u)
    torch.testing.assert_close(W_grad, expected_W)
    assert u_grad.abs().sum() > 0 and W_grad.abs().sum() > 0
    if iterations > 1:  # differentiating through every iteration would give other gradients
        unrolled_u, _ = gradients(unrolled_routing, u, W, iterations)
        assert not torch.allclose(u_grad, unrolled_u, atol=1e-6)


def unrolled_routing(u: torch.Tensor, W: torch.Tensor, iterations: int) -> torch.Tensor:
    """Procedure 1 with gradients through every iteration (as harness/naive_capsnet.py routes)."""
    u_hat = torch.einsum("ijdk,bik->bijd", W, u)  # [B, I, J, D]
    b = torch.zeros(u_hat.shape[:3], dtype=u_hat.dtype)
    for iteration in range(iterations):
        v = squash(torch.einsum("bij,bijd->bjd", torch.softmax(b, dim=2), u_hat))
        if iteration < iterations - 1:
            b = b + torch.einsum("bijd,bjd->bij", u_hat, v)
    return v
