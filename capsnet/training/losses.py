"""What a training step minimises, for each network and task, and how many of its images the
network read right (the epoch's training accuracy)."""

from capsnet.baseline import cross_entropy_loss, multi_label_loss
from capsnet.data.pairs import digits_right
from capsnet.loss import capsule_loss
from capsnet.shipping.evaluate import read_right


def capsnet_loss(model, images, labels):
    """The CapsNet's loss with the decoder masked by the labels (eq. 4 plus 0.0005 x the
    reconstruction error), and how many images it read right."""
    out = model(images, labels)
    return capsule_loss(out, images, labels), read_right(out, labels).sum()


def cnn_loss(model, images, labels):
    """The baseline's softmax cross entropy, and how many images it read right."""
    out = model(images)
    return cross_entropy_loss(out, labels), read_right(out, labels).sum()


def capsnet_pairs_loss(model, images, targets):
    """Two overlapping digits: the margin loss with both present, each digit redrawn from its own
    capsule against that digit alone (section 6); and how many it read right (`digits_right`: a
    single digit d, given as (d, d), is one digit present)."""
    labels, digits = targets  # [b, 2], [b, 2, 1, 28, 28]
    out = model(images, labels)
    return capsule_loss(out, digits, labels), digits_right(out, labels).sum()


def cnn_pairs_loss(model, images, targets):
    """Two overlapping digits: ten sigmoids' cross entropy; and how many it read right."""
    labels, _ = targets
    out = model(images)
    return multi_label_loss(out, labels), digits_right(out, labels).sum()


LOSSES = {
    ("capsnet", "digits"): capsnet_loss,
    ("cnn", "digits"): cnn_loss,
    ("capsnet", "pairs"): capsnet_pairs_loss,
    ("cnn", "pairs"): cnn_pairs_loss,
}
