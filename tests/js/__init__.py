"""The page's JavaScript tests (*.test.js), run by Node's runner (tests/test_javascript.py)."""
