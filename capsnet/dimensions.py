"""Perturb a digit capsule and decode it: the paper's Figure 4 for one image.

Sabour et al. 2017, section 5.1: "we can see what the individual dimensions represent by making
use of the decoder network and feeding it a perturbed version of the activity vector". The paper
tweaks one dimension at a time by intervals of 0.05 in the range [-0.25, 0.25] (its Figure 4).
What each dimension was measured to encode, and the names the page shows: capsnet.studies.dimension_names.
"""

import torch

from capsnet.model import CapsNet

PAPER_RANGE = 0.25  # the paper's sweep: -0.25 .. 0.25 for every dimension ...
SWEEP = torch.linspace(-PAPER_RANGE, PAPER_RANGE, 11)  # ... in 11 perturbations, steps of 0.05


def perturb(capsules: torch.Tensor, digit: int, offsets: torch.Tensor) -> torch.Tensor:
    """A copy of ``capsules`` with ``offsets`` added to the dimensions of capsule ``digit``.

    Args:
        capsules: digit capsules v, [10, 16].
        digit: which capsule to perturb, 0..9.
        offsets: what to add to each of its dimensions, [16].

    Returns:
        The perturbed capsules, [10, 16].
    """
    perturbed = capsules.clone()
    perturbed[digit] += offsets
    return perturbed


def sweep(capsules: torch.Tensor, digit: int, values: torch.Tensor = SWEEP) -> torch.Tensor:
    """Every one-dimension perturbation of capsule ``digit``: dimension d moved by each value.

    Args:
        capsules: digit capsules v, [10, 16].
        digit: which capsule to perturb, 0..9.
        values: the perturbations applied to each dimension in turn, [S], or [16, S] for
            perturbations of their own per dimension (row d for dimension d).

    Returns:
        [16, S, 10, 16]: entry [d, s] is ``capsules`` with values[s] added to dimension d of ``digit``.
    """
    dims = capsules.shape[-1]
    grid = capsules.expand(dims, values.shape[-1], *capsules.shape).clone()  # [16, S, 10, 16]
    rows = torch.arange(dims)
    grid[rows, :, digit, rows] += values.to(capsules.dtype)  # [16, S] diagonal entries
    return grid


def sweep_reconstructions(
    model: CapsNet, capsules: torch.Tensor, digit: int, values: torch.Tensor = SWEEP
) -> torch.Tensor:
    """The paper's Figure 4 for one image: the decoder's view of every perturbation in ``sweep``.

    Args:
        model: supplies the decoder.
        capsules: digit capsules v, [10, 16].
        digit: the capsule to perturb and decode, 0..9.
        values: the perturbations, [S] or [16, S] (see ``sweep``).

    Returns:
        [16, S, 28, 28]: row d shows dimension d swept over ``values``, pixels in [0, 1].
    """
    grid = sweep(capsules, digit, values)  # [16, S, 10, 16]
    rows, columns = grid.shape[:2]
    labels = torch.full((rows * columns,), digit, dtype=torch.long)
    images = model.decode(grid.flatten(0, 1), labels)  # [16*S, 1, 28, 28]
    return images.view(rows, columns, *images.shape[-2:])
