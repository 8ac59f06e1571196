import torch

from capsnet import CapsNetOutput, capsule_loss, margin_loss, reconstruction_loss
from capsnet.training.losses import capsnet_loss
from tests.support.examples import example_digits


def test_margin_loss_by_hand():
    lengths = torch.tensor(
        [
            [0.95, 0.20, 0.05],  # label 0: present 0.95 >= 0.9 -> 0; absent 0.2 -> 0.5 * 0.1^2
            [0.50, 0.70, 0.30],
        ]
    )  # label 1: present (0.9-0.7)^2; absent 0.5*(0.4^2 + 0.2^2)
    labels = torch.tensor([0, 1])
    first = 0.5 * 0.1**2
    second = 0.2**2 + 0.5 * (0.4**2 + 0.2**2)
    torch.testing.assert_close(margin_loss(lengths, labels), torch.tensor((first + second) / 2))


def test_margin_loss_is_squared_not_linear():
    lengths = torch.tensor([[0.5, 0.1]])
    torch.testing.assert_close(margin_loss(lengths, torch.tensor([0])), torch.tensor(0.4**2))


def test_reconstruction_loss_sums_pixels_and_averages_batch():
    images = torch.zeros(2, 1, 28, 28)
    reconstruction = torch.zeros(2, 1, 28, 28)
    reconstruction[0] = 0.5  # 784 pixels off by 0.5 -> sum 196
    reconstruction[1, 0, 0, :10] = 1.0  # 10 pixels off by 1 -> sum 10
    expected = 0.0005 * (784 * 0.25 + 10) / 2
    torch.testing.assert_close(reconstruction_loss(reconstruction, images), torch.tensor(expected))


def test_capsule_loss_adds_both_terms():
    lengths = torch.tensor([[0.3, 0.8]])
    images = torch.zeros(1, 1, 28, 28)
    reconstruction = torch.full((1, 1, 28, 28), 0.1)
    out = CapsNetOutput(
        capsules=torch.zeros(1, 2, 16),
        lengths=lengths,
        prediction=torch.tensor([1]),
        reconstruction=reconstruction,
        couplings=torch.zeros(1, 1152, 2),
    )
    expected = (0.1**2 + 0.5 * 0.2**2) + 0.0005 * 784 * 0.01
    torch.testing.assert_close(capsule_loss(out, images, torch.tensor([1])), torch.tensor(expected))


def test_training_masks_the_decoder_by_the_labels_not_by_what_the_network_reads(trained_model):
    """train.py's CapsNet loss redraws each image from its label's capsule (section 4.1). Each of
    the app's MNIST test digits is labelled here as the next digit, which the trained network does
    not read it as: masked by its own reading, the decoder would redraw the digit it sees, a
    reconstruction error far smaller than the label's."""
    images, digits = example_digits()  # [10, 1, 28, 28], [10]
    labels = (digits + 1) % 10
    with torch.no_grad():
        loss, right = capsnet_loss(trained_model, images, labels)
        by_labels = capsule_loss(trained_model(images, labels), images, labels)
        by_reading = capsule_loss(trained_model(images), images, labels)
    assert right == 0
    torch.testing.assert_close(loss, by_labels)
    assert by_labels - by_reading > 0.01  # the test can tell the two maskings apart
