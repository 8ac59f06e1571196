import torch

from capsnet import CapsNet, CapsNetConfig
from capsnet.dimensions import SWEEP, perturb, sweep, sweep_reconstructions


def random_capsules(seed: int = 0) -> torch.Tensor:
    return torch.randn(10, 16, generator=torch.Generator().manual_seed(seed)) * 0.2


def test_sweep_is_the_papers_range_in_steps_of_five_hundredths():
    assert len(SWEEP) == 11
    assert SWEEP[0].item() == -0.25 and SWEEP[-1].item() == 0.25
    torch.testing.assert_close(SWEEP.diff(), torch.full((10,), 0.05))


def test_perturb_moves_only_the_chosen_capsule_and_leaves_the_input_alone():
    capsules = random_capsules()
    original = capsules.clone()
    offsets = torch.linspace(-0.25, 0.25, 16)
    perturbed = perturb(capsules, 3, offsets)
    torch.testing.assert_close(perturbed[3], original[3] + offsets)
    others = [j for j in range(10) if j != 3]
    torch.testing.assert_close(perturbed[others], original[others])
    torch.testing.assert_close(capsules, original)


def test_sweep_moves_one_dimension_per_row_by_each_value():
    capsules = random_capsules(1)
    values = torch.tensor([-0.2, 0.0, 0.1])
    grid = sweep(capsules, 7, values)
    assert grid.shape == (16, 3, 10, 16)
    for d in range(16):
        for s, value in enumerate(values):
            expected = capsules.clone()
            expected[7, d] += value
            torch.testing.assert_close(grid[d, s], expected)


def test_sweep_reconstructions_decode_each_perturbation_as_the_chosen_digit():
    torch.manual_seed(0)
    model = CapsNet(CapsNetConfig()).eval()
    capsules = random_capsules(2)
    with torch.inference_mode():
        images = sweep_reconstructions(model, capsules, 4)
        assert images.shape == (16, 11, 28, 28)
        assert images.min() >= 0 and images.max() <= 1
        d, s = 5, 9
        one = model.decode(perturb(capsules, 4, SWEEP[s] * torch.eye(16)[d])[None], torch.tensor([4]))
    torch.testing.assert_close(images[d, s], one[0, 0])
    # The middle column (offset 0) is the unperturbed reconstruction in every row.
    torch.testing.assert_close(images[:, 5], images[:1, 5].expand(16, 28, 28))
    # Perturbations change the picture.
    assert (images[:, 0] - images[:, 10]).abs().amax() > 0


def test_sweep_takes_a_range_of_its_own_for_each_dimension():
    capsules = random_capsules(3)
    values = torch.linspace(-1, 1, 5) * torch.arange(1, 17.0)[:, None]  # [16, 5]: dimension d by +-(d + 1)
    grid = sweep(capsules, 2, values)
    assert grid.shape == (16, 5, 10, 16)
    for d in (0, 7, 15):
        torch.testing.assert_close(grid[d, :, 2, d], capsules[2, d] + values[d])
        torch.testing.assert_close(grid[d, :, 2, d + 1 :], capsules[2, d + 1 :].expand(5, -1))
