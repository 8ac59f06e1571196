import torch

from capsnet import squash


def test_length_below_one_and_direction_kept():
    s = torch.randn(1000, 16) * torch.logspace(-2, 2, 1000).unsqueeze(1)
    v = squash(s)
    lengths = v.norm(dim=-1)
    assert (lengths < 1).all()
    expected = s.norm(dim=-1) ** 2 / (1 + s.norm(dim=-1) ** 2)  # eq. 1: |v| = |s|^2 / (1 + |s|^2)
    torch.testing.assert_close(lengths, expected, rtol=1e-4, atol=1e-7)
    cosine = torch.nn.functional.cosine_similarity(v, s, dim=-1)
    torch.testing.assert_close(cosine, torch.ones(1000), rtol=0, atol=1e-5)


def test_zero_in_zero_out_without_nan_in_values_or_gradients():
    s = torch.zeros(3, 10, 16, requires_grad=True)
    v = squash(s)
    assert torch.equal(v, torch.zeros_like(v))
    v.sum().backward()
    assert torch.isfinite(s.grad).all()


def test_squashes_along_the_given_axis():
    s = torch.randn(4, 8, 6)
    torch.testing.assert_close(squash(s, dim=1), squash(s.transpose(1, 2)).transpose(1, 2))
