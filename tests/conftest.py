import os
import re
import signal
import struct
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from capsnet import CapsNet

REPO = Path(__file__).resolve().parent.parent
WEIGHTS = REPO / "weights"
EXAMPLES = sorted((REPO / "assets" / "examples").glob("*.png"))  # the app's MNIST test digits
TINY_MNIST_IMAGES = 64  # training and test images in the tiny_mnist data set


def label_of(example: Path) -> int:
    """The digit in an example's name: mnist_test_0003_digit_0.png -> 0."""
    return int(re.fullmatch(r"mnist_test_\d+_digit_(\d)", example.stem).group(1))


def example_pixels(example: Path) -> np.ndarray:
    """An example as /predict receives it: the 280x280 picture, dark ink on white, uint8 RGB."""
    return np.asarray(Image.open(example).convert("RGB"))


def example_digits() -> tuple[torch.Tensor, torch.Tensor]:
    """The examples as the network takes them, [10, 1, 28, 28] floats in [0, 1] (each saved 10x
    as black on white), and their labels [10]: real MNIST test digits, with no data set needed."""
    pages = [Image.open(example).convert("L") for example in EXAMPLES]
    ink = np.stack([255 - np.asarray(page.reduce(page.width // 28)) for page in pages])  # [10, 28, 28]
    return torch.from_numpy(ink).unsqueeze(1).float() / 255, torch.tensor([label_of(e) for e in EXAMPLES])


def pytest_configure(config):
    torch.set_num_threads(min(2, torch.get_num_threads()))


def pytest_collection_modifyitems(items):
    """Every test that starts a server or a browser belongs to the slow tier; a test that needs a
    CUDA GPU is skipped, saying so, where there is none."""
    no_gpu = pytest.mark.skip(reason="needs a CUDA GPU: none is visible to PyTorch on this machine")
    for item in items:
        if item.get_closest_marker("server") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("gpu") and not torch.cuda.is_available():
            item.add_marker(no_gpu)


@pytest.fixture(scope="session")
def app():
    """app.py, imported (the network loaded) only by the tests that use it; a skip saying why
    where there are no trained weights."""
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}: the app needs them (run train.py)")
    cnn = Path(os.environ.get("CAPSNET_CNN_WEIGHTS", WEIGHTS / "cnn"))
    if not (cnn / "model.safetensors").exists():
        pytest.skip(f"no trained CNN baseline in {cnn}: the app reads with it beside the CapsNet "
                    "(train.py --model cnn --out weights/cnn)")
    import app
    return app


@pytest.fixture(scope="module")
def url(app):
    """The URL of `python app.py` served on a free loopback port, one server per test module."""
    from app_server import serving_app

    with pytest.MonkeyPatch.context() as env:
        env.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        with serving_app(start_timeout=600) as served:
            yield served


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """MNIST's folder: $CAPSNET_DATA_DIR (CI: ../shared/data), else ./data, downloaded when missing."""
    return Path(os.environ.get("CAPSNET_DATA_DIR", REPO / "data"))


def missing_data(reason: str) -> None:
    """A test's data set is not there: a skip that says why, or, where $CAPSNET_REQUIRE_DATA is 1
    (CI, .ci/run), a failure: there a skip would let the suite pass without the tests that need it."""
    if os.environ.get("CAPSNET_REQUIRE_DATA") == "1":
        pytest.fail(f"{reason} (CAPSNET_REQUIRE_DATA=1: the data must be there)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def mnist_test(data_dir):
    """MNIST's 10,000 test images, or a skip (in CI a failure) that says why they cannot be had."""
    from capsnet.data.datasets import mnist
    try:
        return mnist(data_dir, train=False)
    except RuntimeError as error:
        missing_data(f"MNIST is neither in {data_dir} nor downloadable: {error}")


@pytest.fixture(scope="session")
def semeion_path(data_dir) -> Path:
    """Semeion's digits (other people's handwriting), or a skip (in CI a failure) that says where
    they were looked for."""
    path = data_dir / "semeion" / "semeion.data"
    if not path.exists():
        missing_data(f"no Semeion digits at {path}")
    return path


def first_mnist_images(folder: Path, mnist_test, data_dir: Path, train_count: int, test_count: int) -> Path:
    """The first MNIST images written as torchvision's raw idx files under ``folder``, a data dir
    of their own: training runs on it take seconds, test evaluation included."""
    from capsnet.data.datasets import mnist
    raw = folder / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for prefix, dataset, count in (("train", mnist(data_dir, train=True), train_count),
                                   ("t10k", mnist_test, test_count)):
        images = dataset.data[:count].numpy().astype(np.uint8)    # [N, 28, 28]
        labels = dataset.targets[:count].numpy().astype(np.uint8)  # [N]
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, count, 28, 28) + images.tobytes())
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2049, count) + labels.tobytes())
    return folder


@pytest.fixture(scope="session")
def tiny_mnist(mnist_test, data_dir, tmp_path_factory) -> Path:
    """64 training and 64 test images of MNIST in a data dir of their own."""
    return first_mnist_images(tmp_path_factory.mktemp("tiny-mnist"), mnist_test, data_dir,
                              TINY_MNIST_IMAGES, TINY_MNIST_IMAGES)


@pytest.fixture(scope="session")
def small_mnist(mnist_test, data_dir, tmp_path_factory) -> Path:
    """512 training and 64 test images of MNIST: enough steps to kill a run in the middle of."""
    return first_mnist_images(tmp_path_factory.mktemp("small-mnist"), mnist_test, data_dir, 512, TINY_MNIST_IMAGES)


@pytest.fixture(scope="session")
def trained_model() -> CapsNet:
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}: run train.py first")
    return CapsNet.from_pretrained(WEIGHTS).eval()


@pytest.fixture
def model() -> CapsNet:
    torch.manual_seed(0)
    return CapsNet()


def kill_9_during_epoch_2(command: list[str], env: dict[str, str], steps_per_epoch: int) -> None:
    """Run ``command`` (a `train.py` in its own process) until its progress bar shows a step of
    epoch 2 done, then kill it with SIGKILL."""
    returncode, _ = send_during_epoch_2(command, env, steps_per_epoch, signal.SIGKILL)
    assert returncode == -signal.SIGKILL


def send_during_epoch_2(command: list[str], env: dict[str, str], steps_per_epoch: int,
                        signum: int) -> tuple[int, str]:
    """Run ``command`` (a `train.py` in its own process) until its progress bar shows a step of
    epoch 2 done, then send it ``signum``; its return code and output once it has ended."""
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = bytearray()
    reader = threading.Thread(target=lambda: [output.extend(chunk) for chunk in
                                              iter(lambda: process.stdout.read1(4096), b"")], daemon=True)
    reader.start()
    in_epoch_2 = re.compile(rb"epoch 2:.*\| [1-9]\d*/%d" % steps_per_epoch)  # tqdm: a step of epoch 2 done
    deadline = time.monotonic() + 600
    while not in_epoch_2.search(bytes(output)):
        assert process.poll() is None, f"train.py ended before epoch 2 got going:\n{output.decode()}"
        assert time.monotonic() < deadline, f"epoch 2 did not start in time:\n{output.decode()}"
        time.sleep(0.05)
    process.send_signal(signum)
    process.wait(timeout=120)
    reader.join(timeout=60)
    return process.returncode, output.decode()


def nan_after(steps: int):
    """train.py's capsule_loss, NaN after its first ``steps`` calls (training steps: validation
    reads call none): monkeypatch it over capsnet.training.losses.capsule_loss."""
    from capsnet.training import losses
    calls = []
    train_loss = losses.capsule_loss

    def loss(*args):
        calls.append(1)
        return train_loss(*args) * (float("nan") if len(calls) > steps else 1)
    return loss
