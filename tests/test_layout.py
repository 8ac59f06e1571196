"""The library's rooms (capsnet/__init__.py): the network at the top imports nothing from the rooms
below it (evaluate and model_card read MNIST through capsnet.data, and model_card a run's
metrics.json through capsnet.training.metrics), data/ nothing from training/ or
studies/, training/ nothing from studies/, no study from another study (statistics and
shape_measures are what they share), and no module imports itself round a cycle."""
import ast

from bench.support.paths import REPO

ROOMS = ("data", "training", "studies")
READERS = {"capsnet.evaluate": {"data"}, "capsnet.model_card": {"data", "training"}}   # the top level's readers
SHARED = {"capsnet.studies.statistics", "capsnet.studies.shape_measures"}


def module_name(path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Each capsnet module and the capsnet modules it imports."""
    graph = {}
    for path in (REPO / "capsnet").rglob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else \
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            found |= {name for name in names if name.split(".")[0] == "capsnet"}
        graph[module_name(path)] = found - {"capsnet"}
    return graph


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in ROOMS else "top"


def test_no_module_imports_from_a_room_above_it_and_no_study_from_another():
    wrong = []
    for module, imported in imports().items():
        for other in imported:
            allowed = {"top": {"top"} | READERS.get(module, set()),
                       "data": {"top", "data"}, "training": {"top", "data", "training"},
                       "studies": {"top", "data", "studies"}}[room(module)]
            if room(other) not in allowed or (room(module) == room(other) == "studies" and other not in SHARED):
                wrong.append(f"{module} imports {other}")
    assert not wrong, wrong


def test_no_import_cycle():
    graph = imports()
    done, path = set(), []

    def visit(module: str) -> None:
        assert module not in path, f"a cycle: {' -> '.join(path[path.index(module):] + [module])}"
        if module in done:
            return
        path.append(module)
        for other in graph.get(module, ()):
            visit(other)
        path.pop()
        done.add(module)

    for module in graph:
        visit(module)


def test_bench_imports_nothing_from_tests():
    """One direction between the two: tests/ may import bench/ (its commands, and bench/support/,
    what both use); a bench command that imported tests/ would tie them both ways."""
    wrong = []
    for path in (REPO / "bench").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else \
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            wrong += [f"{path.relative_to(REPO)} imports {name}" for name in names if name.split(".")[0] == "tests"]
    assert not wrong, wrong
