"""What the benchmarks and the tests both use: the repository's paths, a served app.py and clients
of it (API, page, browser), drawn digits, the playground's screenshot, and the naive CapsNet the
fast one is checked and timed against. tests/ may import bench/; bench/ never imports tests/."""
