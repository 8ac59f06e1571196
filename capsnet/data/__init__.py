"""What the networks read: MNIST and Semeion, a drawing made an MNIST digit (preprocess), two
overlapping digits (pairs), examples as people write them (written, strokes) and affine changes."""
