"""How far the page's decoder draws from the network's, over MNIST's test digits.

The page redraws a moved capsule with the decoder file (capsnet/shipping/decoder_file.py): the decoder's
weights in float16, summed in float64 (playground/page/decode.js). Here the same: the network's
decoder given the file's weights and run in float64. Every test digit's capsules are decoded as
the winner and as another digit (the next), every dimension moved at once to the right ends, the
left ends, alternately to either end of each slider range (the paper's ±0.25 and ±3 sd of the
class), and not moved: the network's picture against the page's, in grey levels of 255, before
rounding to the picture's 256 levels and after.

    python -m bench.decoder_precision --data-dir DATA
"""

import argparse
import copy

import numpy as np
import torch

from capsnet import load_model
from capsnet.data.datasets import mnist
from capsnet.dimensions import PAPER_RANGE
from capsnet.shipping.decoder_file import decoder_file, read_decoder_file
from capsnet.studies.dimension_names_file import load_dimension_names
from playground.views import paper

BATCH = 500


def moved(capsules: torch.Tensor, digits: torch.Tensor, limits: torch.Tensor) -> torch.Tensor:
    """[5, B, 10, 16]: capsule ``digits`` of each example moved by 0, +limits, -limits and the two
    alternations of ±limits ([B, 16] each)."""
    alternate = (-1.0) ** torch.arange(capsules.shape[-1])
    offsets = torch.stack([0 * limits, limits, -limits, alternate * limits, -alternate * limits])  # [5, B, 16]
    out = capsules.expand(len(offsets), *capsules.shape).clone()
    out[:, torch.arange(len(digits)), digits] += offsets
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default="weights", help="the CapsNet's folder or Hub repo id (default weights)")
    parser.add_argument("--data-dir", default="./data", help="where MNIST is (default ./data)")
    args = parser.parse_args()

    network = load_model(args.weights)
    names = load_dimension_names(args.weights)
    data = decoder_file(network)
    page = copy.deepcopy(network).double()
    page.decoder.load_state_dict(read_decoder_file(data)[1])  # float16 values, in float64
    test = mnist(args.data_dir, train=False)
    raw, rounded, off_by_one, pixels = 0.0, 0, 0, 0
    for start in range(0, len(test), BATCH):
        images = torch.stack([test[k][0] for k in range(start, min(start + BATCH, len(test)))])
        with torch.inference_mode():
            capsules = network(images).capsules  # [B, 10, 16]
            winners = capsules.norm(dim=-1).argmax(-1)
            for digits in (winners, (winners + 1) % capsules.shape[1]):
                spread = names.spread_range * torch.tensor(names.sd)[digits]  # [B, 16]
                for limits in (torch.full_like(spread, PAPER_RANGE), spread):
                    cases = moved(capsules, digits, limits).flatten(0, 1)  # [5B, 10, 16]
                    labels = digits.repeat(len(cases) // len(digits))
                    ours = network.decode(cases, labels).flatten(1).double()
                    theirs = page.decode(cases.double(), labels).flatten(1)
                    raw = max(raw, float((ours - theirs).abs().max()) * 255)
                    apart = np.abs(paper(ours).astype(int) - paper(theirs).astype(int))
                    rounded, pixels = max(rounded, int(apart.max())), pixels + apart.size
                    off_by_one += int((apart > 0).sum())
    print(f"decoder file: {len(data):,} bytes (float16)")
    print(
        f"{len(test):,} MNIST test digits, each decoded as the winner and the next digit, moved 5 ways in each of "
        f"2 ranges: {pixels:,} pixels"
    )
    print(
        f"largest difference before rounding: {raw:.3f} grey levels of 255; after: {rounded}; "
        f"pixels one level apart: {off_by_one:,} ({100 * off_by_one / pixels:.2f}%)"
    )


if __name__ == "__main__":
    main()
