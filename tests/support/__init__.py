"""What only the tests share beside their fixtures (those are in tests/conftest.py): the app's
examples, tiny MNIST folders, runs of train.py to interrupt, people at the app at once, shapes
drawn in tensors. What the benchmarks use too is in bench/support/ (tests import bench/, never
the other way)."""
