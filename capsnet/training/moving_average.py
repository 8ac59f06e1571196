"""The exponential moving average of the weights that a run evaluates and saves."""

import torch
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel


def warm_decay(decay: float, updates: int) -> float:
    """The moving average's decay after ``updates`` updates: min(decay, (1 + n) / (10 + n)), warming
    up as TensorFlow's ExponentialMovingAverage does with num_updates, so that the first epochs'
    average is not dragged towards the random start."""
    return min(decay, (1 + updates) / (10 + updates))


def update_moving_average(ema: AveragedModel, model: nn.Module, decay: float, updates: int) -> None:
    """What ``ema.update_parameters(model)`` does with an avg_fn of warm_decay's decay, the
    parameters averaged and the buffers copied, with ``updates`` (ema.n_averaged) counted by the
    caller: AveragedModel reads it back from the device twice a step and its avg_fn once a
    parameter, and each read waits for the GPU. One foreach operation for all the parameters."""
    averaged = [p.detach() for p in ema.module.parameters()]
    current = [p.detach() for p in model.parameters()]
    if updates == 0:
        torch._foreach_copy_(averaged, current)
    else:  # averaged + (1 - decay) * (current - averaged)
        differences = torch._foreach_sub(current, averaged)
        torch._foreach_mul_(differences, 1 - warm_decay(decay, updates))
        torch._foreach_add_(averaged, differences)
    for averaged_buffer, buffer in zip(ema.module.buffers(), model.buffers(), strict=True):
        averaged_buffer.detach().copy_(buffer.detach())
    ema.n_averaged += 1
