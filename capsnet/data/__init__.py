"""What the networks read: MNIST and Semeion (datasets), a drawing made an MNIST digit
(preprocess), a photo's ink against the paper around it (paper), its marks told apart (marks),
with the filters both use (filters), two overlapping digits (pairs), examples as people write them
(written, strokes), other writers' ink (ink) and affine changes (affine)."""
