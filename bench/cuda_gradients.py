"""How far a network's fp32 gradients are from fp64's, on the CPU and on CUDA under cuDNN's
settings: the measurement behind tests/test_cuda.py's tolerance for the CNN (cuDNN's Winograd
algorithm for its 5x5 convolutions).

    python -m bench.cuda_gradients                       # the CNN baseline, batches 4, 32, 128
    python -m bench.cuda_gradients --model capsnet --batch-size 32

For each batch: the same random network (seed 0, eval mode: no dropout) and random images, the
gradients of its training loss in fp64 on the CPU as the reference, and ||fp32 - fp64|| / ||fp64||
of the worst parameter and of the first convolution's weight: on the CPU, then on CUDA (TF32 off)
with cuDNN as PyTorch sets it, deterministic, with benchmark, and off. Where no GPU is visible,
the CPU's row alone.
"""

import argparse
import copy
from contextlib import contextmanager

import torch

from bench.train_throughput import cpu_model
from capsnet import capsule_loss
from capsnet.baseline import cross_entropy_loss
from capsnet.shipping.pretrained import CONFIGS, NETWORKS

CUDNN_SETTINGS = {
    "cudnn as set": {},
    "cudnn deterministic": {"deterministic": True},
    "cudnn benchmark": {"benchmark": True},
    "cudnn off": {"enabled": False},
}


def gradients(model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
    """The gradient of every parameter of the network's training loss, as fp64 on the CPU."""
    if isinstance(model, NETWORKS["capsnet"]):
        loss = capsule_loss(model(images, labels), images, labels)
    else:
        loss = cross_entropy_loss(model(images), labels)
    loss.backward()
    return {name: p.grad.detach().cpu().double() for name, p in model.named_parameters()}


@contextmanager
def cudnn(**settings):
    """torch.backends.cudnn's flags set for the block, then put back."""
    saved = {name: getattr(torch.backends.cudnn, name) for name in settings}
    for name, value in settings.items():
        setattr(torch.backends.cudnn, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(torch.backends.cudnn, name, value)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=["capsnet", "cnn"], default="cnn", help="the network (default: cnn)")
    p.add_argument("--batch-size", type=int, nargs="+", default=[4, 32, 128], help="batches (default: 4 32 128)")
    args = p.parse_args(argv)
    on_cuda = torch.cuda.is_available()
    gpu = (
        f", GPU: {torch.cuda.get_device_name()}, cuDNN {torch.backends.cudnn.version()}"
        if on_cuda
        else "; no GPU is visible: the CPU alone"
    )
    print(
        f"torch {torch.__version__}, CPU: {cpu_model()}{gpu}; {args.model}, ||fp32 - fp64|| / ||fp64|| of the gradients"
    )
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False  # true fp32 on the GPU
    network = NETWORKS[args.model]
    for batch in args.batch_size:
        torch.manual_seed(0)
        model = network(CONFIGS[network]()).eval()
        images, labels = torch.rand(batch, 1, 28, 28), torch.randint(0, 10, (batch,))
        reference = gradients(copy.deepcopy(model).double(), images.double(), labels)
        rows = [("cpu fp32", "cpu", {})] + [
            (f"cuda, {name}", "cuda", settings) for name, settings in CUDNN_SETTINGS.items() if on_cuda
        ]
        first_weight = next(name for name, p in model.named_parameters() if p.dim() == 4)  # the first convolution
        for row, device, settings in rows:
            with cudnn(**settings):
                grads = gradients(copy.deepcopy(model).to(device), images.to(device), labels.to(device))
            errors = {n: ((grads[n] - reference[n]).norm() / reference[n].norm()).item() for n in reference}
            worst = max(errors, key=errors.get)
            print(
                f"batch {batch:>4}  {row:<26} worst {worst} {errors[worst]:.2e}; "
                f"{first_weight} {errors[first_weight]:.2e}"
            )


if __name__ == "__main__":
    main()
