"""The CapsNet of Sabour, Frosst & Hinton 2017 (section 4): Conv1, PrimaryCaps, DigitCaps, decoder."""

from dataclasses import dataclass
from typing import ClassVar

import torch
import torch.nn as nn
import torch.nn.functional as F
from huggingface_hub import PyTorchModelHubMixin

from capsnet.routing import RoutingTrace, dynamic_routing, dynamic_routing_from_weights, routing_by_iterations
from capsnet.squash import squash


@dataclass(frozen=True)
class CapsNetConfig:
    image_size: int = 28  # MNIST images are 28x28, one channel
    conv1_channels: int = 256  # Conv1: 256 9x9 kernels, stride 1, ReLU
    kernel_size: int = 9  # Conv1 and PrimaryCaps both use 9x9 kernels
    primary_capsule_types: int = 32  # PrimaryCaps: 32 channels of capsules ...
    primary_capsule_dim: int = 8  # ... each 8-D, from a 9x9 convolution with stride 2
    num_classes: int = 10  # DigitCaps: one capsule per digit class ...
    digit_capsule_dim: int = 16  # ... each 16-D
    routing_iterations: int = 3  # r in Procedure 1
    decoder_hidden: tuple[int, int] = (512, 1024)  # fully connected, ReLU, ReLU, then sigmoid
    primary_stride: ClassVar[int] = 2  # PrimaryCaps' stride (Conv1's is 1): the paper's, not a setting

    def __post_init__(self):
        object.__setattr__(self, "decoder_hidden", tuple(self.decoder_hidden))  # config.json stores a list

    @property
    def primary_grid(self) -> int:
        """Side of the PrimaryCaps grid: 28 -> 20 (Conv1) -> 6 (PrimaryCaps, stride 2)."""
        conv1_side = self.image_size - self.kernel_size + 1
        return (conv1_side - self.kernel_size) // self.primary_stride + 1

    @property
    def num_primary_capsules(self) -> int:
        """32 types x 6 x 6 positions = 1152."""
        return self.primary_capsule_types * self.primary_grid**2

    @property
    def receptive_field(self) -> int:
        """Side of the input square a primary capsule sees: 9 + (9 - 1) x 1 = 17 (a PrimaryCaps
        unit reads 9x9 Conv1 units, neighbours 1 input pixel apart, each of which reads 9x9 pixels)."""
        return 2 * self.kernel_size - 1

    def receptive_field_of(self, row: int, col: int) -> tuple[slice, slice]:
        """The input rows and columns that the primary capsules at grid position (row, col) see:
        a 17x17 square, neighbouring positions ``primary_stride`` (2) input pixels apart."""
        top, left = self.primary_stride * row, self.primary_stride * col
        return slice(top, top + self.receptive_field), slice(left, left + self.receptive_field)


@dataclass
class CapsNetOutput:
    capsules: torch.Tensor  # v_j, [B, 10, 16]
    lengths: torch.Tensor  # |v_j|, the probability that digit j is present, [B, 10]
    prediction: torch.Tensor  # the longest capsule, [B]
    reconstruction: torch.Tensor  # the decoder's image, [B, 1, 28, 28]
    couplings: torch.Tensor  # the final routing coefficients c_ij, [B, 1152, 10]


class PrimaryCapsules(nn.Module):
    """A convolution whose 256 output channels are 32 types of 8-D capsules, squashed."""

    def __init__(self, config: CapsNetConfig):
        super().__init__()
        self.types = config.primary_capsule_types
        self.dim = config.primary_capsule_dim
        self.conv = nn.Conv2d(
            config.conv1_channels, self.types * self.dim, kernel_size=config.kernel_size, stride=config.primary_stride
        )

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        x = self.conv(features)  # [B, 32*8, 6, 6]
        batch, _, height, width = x.shape
        x = x.view(batch, self.types, self.dim, height, width)  # channel = type * 8 + component
        # Capsule i = type * 36 + row * 6 + column, the order the routing views rely on.
        u = x.permute(0, 1, 3, 4, 2).reshape(batch, -1, self.dim)  # [B, 1152, 8]
        return squash(u)


class DigitCapsules(nn.Module):
    """Ten 16-D capsules fed by every primary capsule through its own W_ij, then routed."""

    def __init__(self, config: CapsNetConfig):
        super().__init__()
        # W_ij maps u_i (8-D) to a prediction for capsule j (16-D). A small initial scale lets
        # training start: with unit-variance weights the capsules begin saturated at length ~1.
        # (Scaled in place: on the meta device, where loading checks a file's shapes, an
        # out-of-place product imports TorchDynamo, 2 s of the app's start.)
        self.W = nn.Parameter(
            torch.randn(
                config.num_primary_capsules, config.num_classes, config.digit_capsule_dim, config.primary_capsule_dim
            ).mul_(0.01)
        )

    def predictions(self, u: torch.Tensor) -> torch.Tensor:
        """u_hat_j|i = W_ij u_i (eq. 2), in u's dtype: [B, 1152, 8] -> [B, 1152, 10, 16]."""
        return torch.einsum("ijdk,bik->bijd", self.W.to(u.dtype), u)

    def forward(self, u: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Route u [B, 1152, 8] to v [B, 10, 16]; also returns c [B, 1152, 10].

        Routing runs in fp32 (fp64 for a float64 network), under autocast and in a bf16 or fp16
        network alike; v and c come back in the network's dtype, for its decoder.

        Each routing step reads either u_hat [B, 1152, 10, 16] or W [1152, 10, 16, 8]: below 8
        examples u_hat is the smaller, so it is built once and routed (a single drawing in the
        app); from 8 on, the routing works from W and u_hat is never built (training batches).
        """
        dtype = torch.promote_types(self.W.dtype, torch.float32)
        with torch.autocast(u.device.type, enabled=False):
            u, W = u.to(dtype), self.W.to(dtype)
            if u.shape[0] < W.shape[-1]:
                v, c = dynamic_routing(self.predictions(u), iterations)
            else:
                v, c = dynamic_routing_from_weights(u, W, iterations)
        return v.to(self.W.dtype), c.to(self.W.dtype)


class CapsNet(
    nn.Module,
    PyTorchModelHubMixin,
    library_name="capsnet",
    paper_url="https://arxiv.org/abs/1710.09829",
    pipeline_tag="image-classification",
    tags=["capsule-network", "mnist", "image-classification"],
):
    """The paper's three-layer CapsNet with its reconstruction decoder.

    Args:
        config: the architecture; the defaults are the paper's.
    """

    def __init__(self, config: CapsNetConfig = CapsNetConfig()):  # a default the mixin saves too
        super().__init__()
        self.config = config
        self.conv1 = nn.Conv2d(1, config.conv1_channels, kernel_size=config.kernel_size)
        self.primary = PrimaryCapsules(config)
        self.digits = DigitCapsules(config)
        hidden1, hidden2 = config.decoder_hidden
        self.decoder = nn.Sequential(
            nn.Linear(config.num_classes * config.digit_capsule_dim, hidden1),
            nn.ReLU(inplace=True),
            nn.Linear(hidden1, hidden2),
            nn.ReLU(inplace=True),
            nn.Linear(hidden2, config.image_size**2),
            nn.Sigmoid(),
        )

    def primary_capsules(self, images: torch.Tensor) -> torch.Tensor:
        """u_i, the squashed PrimaryCaps outputs: [B, 1, 28, 28] -> [B, 1152, 8]."""
        return self.primary(F.relu(self.conv1(images)))

    @torch.inference_mode()
    def routing_trace(self, image: torch.Tensor, max_iterations: int) -> RoutingTrace:
        """The routing of one image redone for r = 1 .. max_iterations, the convolutions run once:
        row r - 1 of the trace holds what ``self(image, routing_iterations=r)`` reads.

        Args:
            image: one image, [1, 1, 28, 28] floats in [0, 1].
            max_iterations: the largest r, at least 1.
        """
        expected = (1, 1, self.config.image_size, self.config.image_size)
        if tuple(image.shape) != expected:
            raise ValueError(f"expected one image of shape {list(expected)}, got {list(image.shape)}")
        return self.routing_traces(image, max_iterations)[0]

    @torch.inference_mode()
    def routing_traces(self, images: torch.Tensor, max_iterations: int) -> list[RoutingTrace]:
        """`routing_trace` of each of ``images`` [B, 1, 28, 28], the convolutions run once on all:
        several images cost less together than one by one."""
        u_hat = self.digits.predictions(self.primary_capsules(images)).float()  # [B, 1152, 10, 16]
        return [routing_by_iterations(each, max_iterations) for each in u_hat]

    def decode(self, capsules: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """Reconstruct images from the capsule of each label alone (the others masked to zero).

        Args:
            capsules: digit capsules v, [B, 10, 16].
            labels: which capsule to keep for each example, [B] integer class ids; or [B, n] to
                redraw n digits of each example, each from its own capsule alone (section 6).

        Returns:
            The reconstruction in [0, 1], [B, 1, 28, 28]; [B, n, 1, 28, 28] for labels [B, n].
        """
        mask = F.one_hot(labels, self.config.num_classes).to(capsules.dtype).unsqueeze(-1)  # [B, (n,) 10, 1]
        capsules = capsules.view(capsules.shape[0], *[1] * (labels.ndim - 1), *capsules.shape[1:])
        pixels = self.decoder((capsules * mask).flatten(-2))  # [B, (n,) 784]
        side = self.config.image_size
        return pixels.view(*labels.shape, 1, side, side)

    def capsules(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The digit capsules v_j [B, 10, 16] of images [B, 1, 28, 28] and their lengths [B, 10],
        routed as the config says: the forward pass without the decoder."""
        v, _ = self.digits(self.primary_capsules(images), self.config.routing_iterations)
        return v, v.norm(dim=-1)

    def forward(
        self, images: torch.Tensor, labels: torch.Tensor | None = None, routing_iterations: int | None = None
    ) -> CapsNetOutput:
        """Classify and reconstruct.

        Args:
            images: [B, 1, 28, 28] floats in [0, 1].
            labels: the true classes [B]; when given they mask the decoder (training), otherwise
                the longest capsule does (inference). [B, 2] for two overlapping digits: each is
                redrawn from its own capsule, and the reconstruction is [B, 2, 1, 28, 28].
            routing_iterations: r, default the config's (3).
        """
        u = self.primary_capsules(images)  # [B, 1152, 8]
        v, c = self.digits(u, routing_iterations or self.config.routing_iterations)
        lengths = v.norm(dim=-1)  # [B, 10]
        prediction = lengths.argmax(dim=1)  # [B]
        reconstruction = self.decode(v, prediction if labels is None else labels)
        return CapsNetOutput(v, lengths, prediction, reconstruction, c)
