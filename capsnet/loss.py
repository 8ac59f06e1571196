"""The CapsNet training objective: margin loss plus scaled-down reconstruction loss."""

import torch
import torch.nn.functional as F

M_PLUS = 0.9  # m+: a present digit's capsule should be at least this long
M_MINUS = 0.1  # m-: an absent digit's capsule should be at most this long
ABSENT_WEIGHT = 0.5  # lambda: down-weights the absent classes
RECONSTRUCTION_WEIGHT = 0.0005  # keeps the reconstruction from dominating the margin loss


def margin_loss(lengths: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Eq. 4, summed over the classes and averaged over the batch.

    L_k = T_k max(0, m+ - |v_k|)^2 + lambda (1 - T_k) max(0, |v_k| - m-)^2

    Args:
        lengths: capsule lengths |v_k|, [B, K].
        labels: true classes, [B]; or [B, n] where n digits are present at once (MultiMNIST's
            two: T_k = 1 for each of them).
    """
    present = F.one_hot(labels, lengths.shape[1]).to(lengths.dtype)  # T_k, [B, K] (or [B, n, K])
    if labels.ndim == 2:
        present = present.amax(dim=1)  # [B, K]
    loss = present * F.relu(M_PLUS - lengths) ** 2 + ABSENT_WEIGHT * (1 - present) * F.relu(lengths - M_MINUS) ** 2
    return loss.sum(dim=1).mean()


def reconstruction_loss(
    reconstruction: torch.Tensor, images: torch.Tensor, counted: torch.Tensor | None = None
) -> torch.Tensor:
    """0.0005 x the sum of squared pixel errors of each image (section 4.1), batch-averaged. With
    several digits to an image ([B, n, 1, 28, 28], each redrawn from its own capsule against that
    digit alone, section 6), their errors are summed, over the digits ``counted`` (bool [B, n])
    where given: a single digit d given as (d, d) is redrawn once, not twice."""
    squared_error = ((reconstruction - images) ** 2).flatten(2 if counted is not None else 1).sum(dim=-1)
    if counted is not None:
        squared_error = (squared_error * counted).sum(dim=1)  # [B, n] -> [B]
    return RECONSTRUCTION_WEIGHT * squared_error.mean()


def capsule_loss(output, images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """The total loss of a CapsNetOutput whose decoder was masked by ``labels``.

    Args:
        images: what the decoder should redraw: the input, [B, 1, 28, 28]; for two overlapping
            digits (labels [B, 2]), each digit alone, [B, 2, 1, 28, 28].
        labels: the classes, [B], or [B, 2] for two overlapping digits, (d, d) for a single digit
            d among them (`capsnet.data.written`): its capsule is present and redrawn once.
    """
    if labels.ndim == 1:
        return margin_loss(output.lengths, labels) + reconstruction_loss(output.reconstruction, images)
    counted = torch.ones_like(labels, dtype=torch.bool)
    counted[:, 1:] = labels[:, 1:] != labels[:, :1]  # a repeated class is one digit
    return margin_loss(output.lengths, labels) + reconstruction_loss(output.reconstruction, images, counted)
