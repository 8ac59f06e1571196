"""What the tests share beside their fixtures (those are in tests/conftest.py): the repository's
paths, the app's examples, tiny MNIST folders, runs of train.py to interrupt, a served app.py and
clients of it, drawn digits, a browser at the page, and the naive CapsNet the fast one is checked
against. bench/ uses these too; nothing here imports from bench/."""
