"""The CUDA path: the networks compute on a GPU what they compute on the CPU, a run killed there
resumes there, and weights trained there load on a CPU and read as they did on the GPU. Every test
here needs a CUDA GPU and is skipped, saying so, where there is none (tests/test_datasets.py and
tests/test_pairs.py hold the CUDA tests of the data)."""

import copy
import json
import os
import shutil
import sys

import numpy as np
import pytest
import torch

import train
from capsnet import capsule_loss, load_model
from capsnet.baseline import cross_entropy_loss
from capsnet.data.datasets import batches, mnist
from capsnet.shipping.compiled import compile_for_one_image
from capsnet.shipping.evaluate import accuracy, semeion_predictions
from capsnet.shipping.model_card import write_model_card
from capsnet.shipping.pretrained import CONFIGS, NETWORKS
from capsnet.shipping.saving import load_checkpoint
from harness.paths import WEIGHTS
from tests.support.interrupted_runs import kill_9_during_epoch_2

pytestmark = pytest.mark.gpu

# ||cuda - cpu|| / ||cpu|| in fp32 with TF32 off: the GPU's kernels sum in other orders than the
# CPU's, which moves an fp32 sum by around 1e-7 of its size; 1e-4 leaves room for long sums that
# cancel (a bias's gradient) and none for a real difference (TF32 alone is ~1e-3, bf16 ~1e-2).
FP32_TOLERANCE = 1e-4
# The CNN's first convolution's weight gradient is a long sum that cancels: at this seed and a batch
# of 32, fp32 on the CPU is 2.4e-3 off fp64, and on an H200 (cuDNN 9.19, torch 2.11) 5.6e-3 with
# cuDNN's choice for its 5x5 convolutions (Winograd, non-fused) and 3.6e-4 with cuDNN off
# (python -m bench.cuda_gradients); CUDA and the CPU differed by 3.6e-3 (1.2e-7 for the logits).
# Still 100 times under what a wrong gradient gives.
CNN_GRADIENT_TOLERANCE = 1e-2


def relative_error(actual: torch.Tensor, expected: torch.Tensor) -> float:
    actual, expected = actual.detach().cpu().double(), expected.detach().cpu().double()
    return ((actual - expected).norm() / expected.norm()).item()


@pytest.fixture
def fp32_on_cuda():
    """Convolutions and matrix products in true fp32 on the GPU (PyTorch lets cuDNN use TF32)."""
    saved = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved


def outputs_and_gradients(model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor) -> dict:
    """The network's outputs, its training loss and the gradient of every parameter."""
    if isinstance(model, NETWORKS["capsnet"]):
        out = model(images, labels)
        loss = capsule_loss(out, images, labels)
        results = {"capsules": out.capsules, "couplings": out.couplings, "reconstruction": out.reconstruction}
    else:
        out = model(images)
        loss = cross_entropy_loss(out, labels)
        results = {"logits": out.logits}
    loss.backward()
    return {**results, "loss": loss, **{f"grad/{name}": p.grad for name, p in model.named_parameters()}}


@pytest.mark.parametrize("network", ["capsnet", "cnn"])
@pytest.mark.parametrize("batch", [4, 32], ids=["routing-u_hat", "routing-from-W"])  # the CapsNet's two routings
def test_forward_and_backward_on_cuda_equal_the_cpus_in_fp32(network, batch, fp32_on_cuda):
    torch.manual_seed(0)
    model = NETWORKS[network](CONFIGS[NETWORKS[network]]()).eval()  # eval: the CNN's dropout off on both
    images, labels = torch.rand(batch, 1, 28, 28), torch.randint(0, 10, (batch,))
    on_cpu = outputs_and_gradients(copy.deepcopy(model), images, labels)
    on_cuda = outputs_and_gradients(copy.deepcopy(model).cuda(), images.cuda(), labels.cuda())
    assert on_cpu.keys() == on_cuda.keys()
    assert all(value.device.type == "cuda" for value in on_cuda.values())
    errors = {name: relative_error(on_cuda[name], expected) for name, expected in on_cpu.items()}
    for name, error in errors.items():
        cnn_gradient = network == "cnn" and name.startswith("grad/")
        assert error < (CNN_GRADIENT_TOLERANCE if cnn_gradient else FP32_TOLERANCE), (name, errors)


def test_a_cuda_run_killed_in_epoch_2_resumes_there_on_the_gpu(small_mnist, tmp_path):
    # 224 steps an epoch: on a GPU each takes milliseconds, and the kill must land inside epoch 2
    train_images, batch_size = 448, 2
    flags = [
        "--data-dir",
        str(small_mnist),
        "--out",
        str(tmp_path / "weights"),
        "--checkpoint",
        str(tmp_path / "last.pt"),
        "--limit",
        str(train_images),
        "--val-size",
        "64",
        "--batch-size",
        str(batch_size),
        "--epochs",
        "2",
        "--device",
        "cuda",
    ]
    kill_9_during_epoch_2(
        [sys.executable, "train.py", *flags], {**os.environ, "PYTHONUNBUFFERED": "1"}, train_images // batch_size
    )
    before = load_checkpoint(tmp_path / "last.pt")
    assert before["epoch"] == 1, "the kill came after epoch 2 ended"

    assert train.main([*flags, "--resume"]) == 0
    after = load_checkpoint(tmp_path / "last.pt")
    steps = 2 * train_images // batch_size
    assert [epoch["epoch"] for epoch in after["history"]] == [1, 2]
    assert after["history"][0] == before["history"][0]  # epoch 1 as the killed run left it
    # Adam's moments and the moving average went on from the checkpoint's, not from scratch
    assert all(int(moments["step"]) == steps for moments in after["optimizer"]["state"].values())
    assert int(after["ema"]["n_averaged"]) == steps
    metrics = json.loads((tmp_path / "weights" / "metrics.json").read_text())
    assert metrics["device"] == "cuda"
    assert metrics["bf16_autocast"] is torch.cuda.is_bf16_supported(including_emulation=False)


def test_weights_trained_on_cuda_load_on_the_cpu_and_read_as_on_the_gpu(
    small_mnist, tmp_path, mnist_test, fp32_on_cuda
):
    assert (
        train.main(
            [
                "--data-dir",
                str(small_mnist),
                "--out",
                str(tmp_path),
                "--checkpoint",
                str(tmp_path / "last.pt"),
                "--val-size",
                "64",
                "--epochs",
                "1",
                "--device",
                "cuda",
            ]
        )
        == 0
    )
    images = mnist_test.data[:256].unsqueeze(1).float() / 255
    with torch.inference_mode():
        on_cpu = load_model(tmp_path, NETWORKS["capsnet"])(images)
        on_cuda = load_model(tmp_path, NETWORKS["capsnet"]).cuda()(images.cuda())
    assert on_cpu.lengths.device.type == "cpu"
    assert relative_error(on_cuda.lengths, on_cpu.lengths) < FP32_TOLERANCE
    assert torch.equal(on_cuda.prediction.cpu(), on_cpu.prediction)


def test_evaluation_and_the_card_measure_a_network_on_the_gpu_as_on_the_cpu(
    trained_model, tiny_mnist, semeion_path, tmp_path, fp32_on_cuda
):
    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    on_gpu = copy.deepcopy(trained_model).to(cuda)
    test_set = mnist(tiny_mnist, train=False)
    on_the_gpu = accuracy(on_gpu, batches(test_set, 32, device=cuda), cuda)
    assert on_the_gpu == accuracy(trained_model, batches(test_set, 32), cpu)
    few = tmp_path / "semeion.data"
    few.write_text("".join(semeion_path.read_text().splitlines(keepends=True)[:200]))
    np.testing.assert_array_equal(semeion_predictions(on_gpu, few), semeion_predictions(trained_model, few))
    cards = {}
    for name, device in (("gpu", cuda), ("cpu", cpu)):
        folder = tmp_path / name
        shutil.copytree(WEIGHTS, folder, ignore=shutil.ignore_patterns("cnn", "pairs*"))
        cards[name] = write_model_card(folder, "capsnet", str(tiny_mnist), str(few), "user/capsnet", device).text
    assert cards["gpu"] == cards["cpu"]


@pytest.mark.slow
def test_the_network_compiled_on_the_gpu_reads_as_it_does_eagerly(trained_model, mnist_test, fp32_on_cuda, caplog):
    on_gpu = copy.deepcopy(trained_model).cuda()
    read_one_image = compile_for_one_image(on_gpu)
    assert read_one_image is not on_gpu, caplog.text  # compiled, not left eager
    image = (mnist_test.data[0][None, None].float() / 255).cuda()  # [1, 1, 28, 28]
    with torch.inference_mode():
        compiled, eager = read_one_image(image), on_gpu(image)
    assert compiled.lengths.device.type == "cuda"
    assert relative_error(compiled.lengths, eager.lengths) < FP32_TOLERANCE
    assert compiled.prediction.item() == mnist_test.targets[0].item()
