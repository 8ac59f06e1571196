import logging
import os
import shutil

import pytest
import torch

from capsnet.shipping.compiled import compile_for_one_image

HAS_CXX_COMPILER = any(shutil.which(name) for name in (os.environ.get("CXX", "g++"), "g++", "clang++"))


@pytest.mark.slow
@pytest.mark.skipif(not HAS_CXX_COMPILER, reason="no C++ compiler here: TorchInductor cannot build kernels")
def test_the_compiled_network_reads_digits_like_the_model(trained_model, mnist_test):
    read_one_image = compile_for_one_image(trained_model)
    assert read_one_image is not trained_model
    compiled_frames = torch._dynamo.utils.counters["frames"]["ok"]
    for index in range(6):
        image = mnist_test.data[index][None, None].float() / 255  # [1, 1, 28, 28]
        with torch.inference_mode():
            if index % 2:
                image = image.clone()  # an inference tensor, as images made in this mode are
            compiled, eager = read_one_image(image), trained_model(image)
            for name in vars(eager):
                torch.testing.assert_close(
                    getattr(compiled, name), getattr(eager, name), rtol=1e-4, atol=1e-5, msg=name
                )
            assert compiled.prediction.item() == mnist_test.targets[index].item()
    assert torch._dynamo.utils.counters["frames"]["ok"] == compiled_frames  # compiled up front only


def test_without_torch_compile_the_model_runs_eagerly(model, monkeypatch, caplog):
    def no_compiler(*args, **kwargs):
        def fails(*args, **kwargs):
            raise RuntimeError("InvalidCxxCompiler: No working C++ compiler found")

        return fails

    monkeypatch.setattr(torch, "compile", no_compiler)
    with caplog.at_level(logging.WARNING, logger="capsnet.shipping.compiled"):
        assert compile_for_one_image(model.eval()) is model
    assert "running the model eagerly" in caplog.text and "InvalidCxxCompiler" in caplog.text


def test_the_warm_up_images_go_where_the_weights_are_as_theirs(model, monkeypatch, caplog):
    """A network on another device or in another dtype than the CPU's fp32 (here float64, which
    the CPU can show) is compiled for its own images, not left eager after a failed warm-up."""
    seen = []

    def eager_compile(network, **kwargs):
        def forward(image):
            seen.append((image.device, image.dtype))
            return network(image)

        return forward

    monkeypatch.setattr(torch, "compile", eager_compile)
    network = model.eval().to(torch.float64)
    with caplog.at_level(logging.WARNING, logger="capsnet.shipping.compiled"):
        assert compile_for_one_image(network) is not network
    assert "eagerly" not in caplog.text
    assert seen == [(torch.device("cpu"), torch.float64)] * 2
