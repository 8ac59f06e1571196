"""What only the tests use beside their fixtures (tests/conftest.py): the app's examples, tiny MNIST
folders, runs of train.py to interrupt, people at the app at once, calls batched at once, a
playground page of a test's own, shapes drawn in tensors. What the benchmarks share with the tests
is in harness/; nothing here imports bench/."""
