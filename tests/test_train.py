"""Training works: the loss falls on a few hundred MNIST images, and train.py documents its flags."""
import subprocess
import sys

import torch

from capsnet import CapsNet, CapsNetConfig, capsule_loss
from conftest import REPO


def test_training_lowers_the_loss_on_a_few_hundred_images(mnist_test):
    torch.manual_seed(0)
    images = torch.stack([mnist_test[i][0] for i in range(256)])   # [256, 1, 28, 28]
    labels = torch.tensor([mnist_test[i][1] for i in range(256)])
    model = CapsNet(CapsNetConfig()).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    epoch_losses = []
    for _ in range(3):
        losses = []
        for x, y in zip(images.split(32), labels.split(32)):
            loss = capsule_loss(model(x, y), x, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        epoch_losses.append(sum(losses) / len(losses))
    assert epoch_losses[2] < 0.7 * epoch_losses[0], epoch_losses
    with torch.inference_mode():
        accuracy = (model.eval()(images).prediction == labels).float().mean().item()
    assert accuracy > 0.5   # from 10% by chance, after 24 steps


def test_cli_help_lists_the_flags():
    result = subprocess.run([sys.executable, "train.py", "--help"], cwd=REPO, capture_output=True,
                            text=True, check=True)
    for flag in ("--data-dir", "--device", "--batch-size", "--seed", "--resume", "--max-minutes",
                 "--limit", "--out", "--push-to-hub", "--lr", "--lr-decay", "--epochs"):
        assert flag in result.stdout, flag


def test_dry_run_runs_one_batch_and_overwrites_nothing(tiny_mnist, tmp_path):
    import train
    out, checkpoint = tmp_path / "weights", tmp_path / "last.pt"
    assert train.main(["--dry-run", "--data-dir", str(tiny_mnist), "--out", str(out),
                       "--checkpoint", str(checkpoint)]) == 0
    assert not out.exists() and not checkpoint.exists()


def test_moving_average_warms_up_then_decays_at_the_given_rate():
    import train
    average = train.moving_average(0.999)
    averaged, current = torch.zeros(3), torch.ones(3)
    # first update (n = 1 averaged so far): decay (1 + 1) / (10 + 1), so the average moves 9/11 of the way
    torch.testing.assert_close(average(averaged, current, torch.tensor(1)), torch.full((3,), 9 / 11))
    # long after: decay 0.999
    torch.testing.assert_close(average(averaged, current, torch.tensor(10**6)), torch.full((3,), 0.001))
