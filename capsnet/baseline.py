"""The paper's CNN baseline (section 5), to compare the CapsNet against.

The paper: "three convolutional layers of 256, 256, 128 channels. Each has 5x5 kernels and stride
of 1. The last convolutional layers are followed by two fully connected layers of size 328, 192.
The last fully connected layer is connected with dropout to a 10 class softmax layer with cross
entropy loss." With "same" padding and no pooling that is 35.4M parameters
(`BaselineConfig.paper()`), far costlier to train than the CapsNet (docs/benchmarks.md). The default
keeps its layers and adds 2x2 max pooling after the first two convolutions, unpadded: 3.2M
parameters and less compute per image than the CapsNet (docs/training.md, "The CNN baseline").
"""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from huggingface_hub import PyTorchModelHubMixin


@dataclass(frozen=True)
class BaselineConfig:
    image_size: int = 28  # MNIST images are 28x28, one channel
    conv_channels: tuple[int, int, int] = (256, 256, 128)  # three 5x5 convolutions, stride 1, ReLU
    kernel_size: int = 5
    padding: tuple[int, int, int] = (0, 0, 2)  # each convolution's zero padding
    pooling: tuple[int, int, int] = (2, 2, 1)  # max pooling after each convolution (1: none)
    hidden: tuple[int, int] = (328, 192)  # fully connected, ReLU
    dropout: float = 0.5  # before each fully connected layer after the first
    num_classes: int = 10  # a 10-way softmax

    def __post_init__(self):
        for name in ("conv_channels", "padding", "pooling", "hidden"):  # config.json stores lists
            object.__setattr__(self, name, tuple(getattr(self, name)))

    @classmethod
    def paper(cls) -> "BaselineConfig":
        """The paper's exact baseline: "same" padding, no pooling (35.4M parameters)."""
        half = cls.kernel_size // 2
        return cls(padding=(half, half, half), pooling=(1, 1, 1))

    @property
    def feature_side(self) -> int:
        """Side of the last convolution's feature map: 28 -> 24 -> 12 -> 8 -> 4 -> 4 by default."""
        side = self.image_size
        for padding, pooling in zip(self.padding, self.pooling, strict=True):
            side = (side + 2 * padding - self.kernel_size + 1) // pooling
        return side


@dataclass
class BaselineOutput:
    logits: torch.Tensor  # [B, 10], before the softmax
    probabilities: torch.Tensor  # [B, 10], the softmax: they sum to one
    prediction: torch.Tensor  # [B], the most probable digit


class BaselineCNN(
    nn.Module,
    PyTorchModelHubMixin,
    library_name="capsnet",
    paper_url="https://arxiv.org/abs/1710.09829",
    pipeline_tag="image-classification",
    tags=["cnn", "mnist", "image-classification", "baseline"],
):
    """The paper's CNN baseline: three convolutions, two hidden fully connected layers, softmax.

    Args:
        config: the architecture; the default is the pooled variant, `BaselineConfig.paper()`
            the paper's exact one.
    """

    def __init__(self, config: BaselineConfig = BaselineConfig()):  # a default the mixin saves too
        super().__init__()
        self.config = config
        layers, in_channels = [], 1
        for channels, padding, pooling in zip(config.conv_channels, config.padding, config.pooling, strict=True):
            layers += [nn.Conv2d(in_channels, channels, config.kernel_size, padding=padding), nn.ReLU(inplace=True)]
            if pooling > 1:
                layers.append(nn.MaxPool2d(pooling))
            in_channels = channels
        self.features = nn.Sequential(*layers)
        hidden1, hidden2 = config.hidden
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_channels * config.feature_side**2, hidden1),
            nn.ReLU(inplace=True),
            nn.Dropout(config.dropout),
            nn.Linear(hidden1, hidden2),
            nn.ReLU(inplace=True),
            nn.Dropout(config.dropout),  # "connected with dropout to a 10 class softmax"
            nn.Linear(hidden2, config.num_classes),
        )

    def forward(self, images: torch.Tensor) -> BaselineOutput:
        """Classify [B, 1, 28, 28] images (floats in [0, 1])."""
        logits = self.classifier(self.features(images)).float()  # [B, 10], fp32 under autocast too
        return BaselineOutput(logits, F.softmax(logits, dim=1), logits.argmax(dim=1))


def cross_entropy_loss(output: BaselineOutput, labels: torch.Tensor) -> torch.Tensor:
    """The softmax's cross entropy, averaged over the batch."""
    return F.cross_entropy(output.logits, labels)


def multi_label_loss(output: BaselineOutput, labels: torch.Tensor) -> torch.Tensor:
    """For images that hold several digits at once (labels [B, n]): ten independent sigmoids, each
    digit's binary cross entropy against whether it is there, summed over the ten and averaged
    over the batch. Read them with `torch.sigmoid(output.logits)`, not the softmax."""
    present = F.one_hot(labels, output.logits.shape[1]).amax(dim=1).to(output.logits.dtype)  # [B, 10]
    return F.binary_cross_entropy_with_logits(output.logits, present, reduction="sum") / len(labels)
