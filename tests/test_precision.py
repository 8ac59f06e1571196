"""The networks in other precisions than fp32: `CapsNet().to(dtype)` and the CNN baseline run in
bf16, fp16 and float64, and the shipped weights read MNIST's test digits there as in fp32, within
the tolerances docs/api.md states; on a CUDA GPU too, where there is one."""

import copy

import pytest
import torch

from capsnet import CapsNet

# bf16, the autocast train.py trains in, in the fast tier; fp16 and float64 in the slow one
DTYPES = [
    torch.bfloat16,
    pytest.param(torch.float16, marks=pytest.mark.slow),
    pytest.param(torch.float64, marks=pytest.mark.slow),
]
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
IMAGES = 32  # the first MNIST test digits: fp32 reads each with a margin of 0.4 or more
# The largest difference from fp32 allowed, for a capsule's length or a CNN probability, and for a
# pixel of the reconstruction. Measured on the first 256 test digits (torch 2.11, x86 CPU): lengths
# differ by at most 0.0067 in bf16, 0.00065 in fp16 and 2.4e-7 in float64; pixels by 0.037, 0.0044
# and 4e-6; the CNN's probabilities by 0.0034, 0.0011 and 3e-7.
READING_TOLERANCE = {torch.bfloat16: 0.02, torch.float16: 0.005, torch.float64: 1e-5}
PIXEL_TOLERANCE = {torch.bfloat16: 0.1, torch.float16: 0.02, torch.float64: 1e-4}


@pytest.fixture(scope="module")
def digits(mnist_test) -> torch.Tensor:
    return mnist_test.data[:IMAGES].unsqueeze(1).float() / 255  # [32, 1, 28, 28]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("batch", [3, 9], ids=["routing-u_hat", "routing-from-W"])  # the two routings
def test_a_capsnet_in_another_dtype_runs_and_answers_in_it(dtype, batch):
    torch.manual_seed(0)
    model = CapsNet().to(dtype)
    images, labels = torch.rand(batch, 1, 28, 28, dtype=dtype), torch.arange(batch) % 10
    for out in (model(images), model(images, labels)):
        for name, tensor in vars(out).items():
            if name != "prediction":
                assert tensor.dtype == dtype, name
                assert torch.isfinite(tensor).all(), name


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("count, batch", [(8, 4), (IMAGES, IMAGES)], ids=["routing-u_hat", "routing-from-W"])
def test_the_trained_capsnet_reads_as_the_cpu_does_in_fp32(trained_model, digits, device, dtype, count, batch):
    images = digits[:count]
    with torch.inference_mode():
        expected = trained_model(images)
        model = copy.deepcopy(trained_model).to(device, dtype)
        outs = [model(chunk.to(device, dtype)) for chunk in images.split(batch)]
    lengths = torch.cat([out.lengths for out in outs]).float().cpu()
    reconstruction = torch.cat([out.reconstruction for out in outs]).float().cpu()
    assert torch.equal(torch.cat([out.prediction for out in outs]).cpu(), expected.prediction)
    assert (lengths - expected.lengths).abs().max() <= READING_TOLERANCE[dtype]
    assert (reconstruction - expected.reconstruction).abs().max() <= PIXEL_TOLERANCE[dtype]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_the_trained_cnn_reads_as_the_cpu_does_in_fp32(trained_cnn, digits, device, dtype):
    with torch.inference_mode():
        expected = trained_cnn(digits)
        out = copy.deepcopy(trained_cnn).to(device, dtype)(digits.to(device, dtype))
    assert torch.equal(out.prediction.cpu(), expected.prediction)
    assert (out.probabilities.cpu() - expected.probabilities).abs().max() <= READING_TOLERANCE[dtype]
