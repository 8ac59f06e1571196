"""What the networks read: MNIST and Semeion (datasets), a drawing made an MNIST digit
(preprocess), two overlapping digits (pairs), examples as people write them (written, strokes),
other writers' ink (ink) and affine changes (affine)."""
