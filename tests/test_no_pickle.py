"""No pickle anywhere in the repo: weights come from safetensors, and a torch.load (for training
checkpoints) always passes weights_only=True, which refuses anything but tensors and plain data."""

import ast
from pathlib import Path

import pytest

from harness.paths import REPO

PICKLE_MODULES = {"pickle", "_pickle", "cPickle", "cloudpickle", "dill", "joblib", "shelve"}
SKIPPED_FOLDERS = {"venv", "data", "checkpoints", "node_modules", "__pycache__"}


def python_files() -> list[Path]:
    """The repo's own .py files (no virtualenvs, data or hidden folders)."""
    return sorted(
        path
        for path in REPO.rglob("*.py")
        if not any(part.startswith(".") or part in SKIPPED_FOLDERS for part in path.relative_to(REPO).parts[:-1])
    )


def is_true(call: ast.Call, keyword: str) -> bool:
    return any(k.arg == keyword and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)


def pickle_uses(source: str) -> list[str]:
    """Each pickle import, torch.load without weights_only=True, or numpy load with allow_pickle=True."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]]
            if names == ["torch"] and any(alias.name == "load" for alias in node.names):
                found.append(f"line {node.lineno}: from torch import load (use torch.load(..., weights_only=True))")
        else:
            names = []
        found += [f"line {node.lineno}: import {name}" for name in names if name in PICKLE_MODULES]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else None
            if owner == "torch" and node.func.attr == "load" and not is_true(node, "weights_only"):
                found.append(f"line {node.lineno}: torch.load without weights_only=True")
            if node.func.attr in {"load", "loads"} and is_true(node, "allow_pickle"):
                found.append(f"line {node.lineno}: {owner}.{node.func.attr}(allow_pickle=True)")
            if node.func.attr == "read_pickle":
                found.append(f"line {node.lineno}: {owner}.read_pickle")
    return found


def test_the_scan_finds_every_kind_of_pickle_use():
    source = (
        "import pickle\nfrom dill import loads\nimport joblib.numpy_pickle\nfrom torch import load\n"
        "torch.load('a.pt')\ntorch.load('b.pt', weights_only=False)\nnp.load('c.npy', allow_pickle=True)\n"
        "pd.read_pickle('d.pkl')\ntorch.load('e.pt', map_location='cpu', weights_only=True)\n"
    )
    assert pickle_uses(source) == [
        "line 1: import pickle",
        "line 2: import dill",
        "line 3: import joblib",
        "line 4: from torch import load (use torch.load(..., weights_only=True))",
        "line 5: torch.load without weights_only=True",
        "line 6: torch.load without weights_only=True",
        "line 7: np.load(allow_pickle=True)",
        "line 8: pd.read_pickle",
    ]


def test_the_scan_covers_the_library_the_scripts_and_the_tests():
    names = {path.relative_to(REPO).as_posix() for path in python_files()}
    assert {
        "train.py",
        "capsnet/shipping/saving.py",
        "capsnet/shipping/pretrained.py",
        "tests/test_no_pickle.py",
    } <= names


@pytest.mark.parametrize("path", python_files(), ids=lambda path: path.relative_to(REPO).as_posix())
def test_no_pickle_in(path):
    assert pickle_uses(path.read_text(encoding="utf-8")) == []
