"""The page's JavaScript ports (playground/page/) tested against the Python they port: fixtures.py
writes what the Python makes, the *.test.js files check the ports against it under Node's runner."""
