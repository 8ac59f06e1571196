"""The harness the tests stand on, which the benchmarks share: the repository's paths, a served
app.py and its clients (API, page, browser and its trace, a proxy that delays every byte), drawn
digits, the playground's screenshot, and the naive CapsNet the fast one is checked and timed
against; beside them, what only the tests use: the app's examples, tiny MNIST folders, runs of
train.py to interrupt, people at the app at once, shapes drawn in tensors. Fixtures are in
tests/conftest.py. bench/ imports this package; nothing here imports bench/."""
