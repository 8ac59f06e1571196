"""The decoder alone, as one file another program can read: its three layers' weights and biases
in float16, in safetensors' format, the config they were built from in its metadata.

The playground's page redraws a moved capsule with it (playground/page/decode.js), so a slider follows
the hand without a request to the server. float16 halves the file (2.8 MB for the paper's decoder)
and keeps every picture within one grey level of 255 of the network's own, summed in float64 as the
page sums (`python -m bench.decoder_precision`; the figures: docs/playground.md). This module is the
one place the file is made; the page knows it by its hash (`file_name`), so it never draws with the
decoder of other weights than those that read the capsules.
"""

import dataclasses
import hashlib
import json

import torch
from safetensors.torch import load as load_tensors, save as save_tensors

from capsnet.model import CapsNet, CapsNetConfig

DTYPE = torch.float16
CONFIG_KEY = "config"  # the metadata entry holding the network's config, as JSON


def decoder_file(model: CapsNet) -> bytes:
    """The bytes of ``model``'s decoder file: the decoder's state dict ("0.weight", "0.bias",
    "2.weight", ...: each Linear by its place in the decoder) in float16, and the config."""
    state = {name: tensor.detach().to("cpu", DTYPE).contiguous() for name, tensor in model.decoder.state_dict().items()}
    return save_tensors(state, metadata={CONFIG_KEY: json.dumps(dataclasses.asdict(model.config))})


def read_decoder_file(data: bytes) -> tuple[CapsNetConfig, dict[str, torch.Tensor]]:
    """The config and the decoder's tensors (float16, as stored) in a decoder file's bytes."""
    metadata_length = int.from_bytes(data[:8], "little")
    metadata = json.loads(data[8 : 8 + metadata_length])["__metadata__"]
    return CapsNetConfig(**json.loads(metadata[CONFIG_KEY])), load_tensors(data)


def file_name(data: bytes) -> str:
    """The name a decoder file goes by: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(data).hexdigest()[:16]
