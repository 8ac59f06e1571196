"""The library's rooms (capsnet/__init__.py): the network at the top imports nothing from the rooms
below it (the package names load_model, from shipping/), data/ nothing from training/, studies/ or
shipping/, shipping/ nothing from studies/ or training/ (a run's metrics.json is shipping's
metrics_file, which training/ writes through), training/ nothing from studies/ nor from a module
that imports training/, no study from another study (statistics, shape_measures, ink_places,
results_file and study_flags are what they share; a study's own modules are named after it:
dimension_names_file, dimension_names_claims), and no module imports itself round a cycle. The
page's modules that read and draw every stroke (playground's reading, its views and routing) reach no
study, however far their imports are followed; and the library and the page import at the top of a module, never
inside a function."""

import ast
import subprocess
from pathlib import Path

from harness.paths import REPO

ROOMS = ("data", "training", "studies", "shipping")
READERS = {  # the modules that read a room their own room may not
    "capsnet": {"shipping"},  # the package's load_model
}
SHARED = {  # the studies' common parts
    "capsnet.studies.statistics",
    "capsnet.studies.shape_measures",
    "capsnet.studies.ink_places",
    "capsnet.studies.results_file",
    "capsnet.studies.study_flags",
}
LIVE = (  # every stroke's reading, where the server answers for the page
    "playground.answers",
    "playground.reading",
    "playground.routing_section",
    "playground.views",
)


def module_name(path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(packages: tuple[str, ...] = ("capsnet",)) -> dict[str, set[str]]:
    """Each module of ``packages`` and the modules of ``packages`` it imports (``from package
    import module`` counted as that module)."""
    paths = [path for package in packages for path in (REPO / package).rglob("*.py")]
    modules = {module_name(path) for path in paths}
    graph = {}
    for path in paths:
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [
                    node.module,
                    *(
                        f"{node.module}.{alias.name}"
                        for alias in node.names
                        if f"{node.module}.{alias.name}" in modules
                    ),
                ]
            else:
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            found |= {name for name in names if name.split(".")[0] in packages}
        graph[module_name(path)] = found - set(packages)
    return graph


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in ROOMS else "top"


def study(module: str, modules) -> str:
    """The study a module of studies/ belongs to: the shortest of ``modules`` that is its name or
    begins it before an underscore (capsnet.studies.dimension_names for dimension_names_file)."""
    return min((other for other in modules if module == other or module.startswith(f"{other}_")), key=len)


def test_no_module_imports_from_a_room_above_it_and_no_study_from_another():
    wrong = []
    graph = imports()
    for module, imported in graph.items():
        for other in imported:
            allowed = {
                "top": {"top"},
                "data": {"top", "data"},
                "training": {"top", "data", "training", "shipping"},
                "studies": {"top", "data", "studies", "shipping"},
                "shipping": {"top", "data", "shipping"},
            }[room(module)] | READERS.get(module, set())
            if room(other) not in allowed or (
                room(module) == room(other) == "studies"
                and other not in SHARED
                and study(other, graph) != study(module, graph)
            ):
                wrong.append(f"{module} imports {other}")
    assert not wrong, wrong


def test_no_module_of_training_imports_a_module_that_imports_training():
    """training/ is the machinery of a run, the room that stands on the others: a module of training/
    that imported a module which imports training/ would climb back up through it."""
    graph = imports()
    climbing = [
        f"{module} imports {other}, which imports {', '.join(sorted(reaching))}"
        for module, imported in graph.items()
        if room(module) == "training"
        for other in imported
        if room(other) != "training"
        if (reaching := {name for name in graph.get(other, ()) if room(name) == "training"})
    ]
    assert not climbing, climbing


def test_no_import_cycle():
    graph = imports()
    done, path = set(), []

    def visit(module: str) -> None:
        assert module not in path, f"a cycle: {' -> '.join(path[path.index(module) :] + [module])}"
        if module in done:
            return
        path.append(module)
        for other in graph.get(module, ()):
            visit(other)
        path.pop()
        done.add(module)

    for module in graph:
        visit(module)


def test_the_page_s_live_reading_reaches_no_study():
    """What the page computes and draws for every stroke is the library's network; a study
    measures, and the page may read what one wrote, but never on this path."""
    graph = imports(("capsnet", "playground"))
    reached, waiting = set(), list(LIVE)
    while waiting:
        module = waiting.pop()
        if module not in reached:
            reached.add(module)
            waiting += graph.get(module, ())
    assert set(LIVE) <= graph.keys()
    studies = sorted(module for module in reached if module.startswith("capsnet.studies"))
    assert not studies, f"{', '.join(LIVE)} reach {studies}"


def test_the_library_and_the_page_import_at_the_top_of_each_module():
    """An import inside a function hides what a module needs (once, it dodged the app's start)."""
    inside = []
    for path in [*(REPO / "capsnet").rglob("*.py"), *(REPO / "playground").glob("*.py"), REPO / "app.py"]:
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside += [
                    f"{path.relative_to(REPO)}:{node.lineno}"
                    for node in ast.walk(function)
                    if isinstance(node, (ast.Import, ast.ImportFrom))
                ]
    assert not inside, inside


def test_in_the_library_only_a_command_line_imports_argparse():
    """train.py's flags are defined beside the one typed RunOptions they make (capsnet/training/
    options.py), which the rest of capsnet/training/ takes: argparse belongs there and to the
    modules that are command lines themselves (`python -m ...`)."""
    flag_definitions = {"capsnet/training/options.py"}
    wrong = []
    for path in (REPO / "capsnet").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parses = any(
            alias.name == "argparse" for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
        )
        runs = any(
            isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'" for node in tree.body
        )
        if parses and not runs and path.relative_to(REPO).as_posix() not in flag_definitions:
            wrong.append(str(path.relative_to(REPO)))
    assert not wrong, f"{wrong} import argparse but are no command line"


def imported_modules(path: Path) -> list[str]:
    """The modules a Python file imports, by their full names."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return names


def test_tests_and_bench_share_only_the_harness():
    """What the tests and the benchmarks both use is in harness/: no test imports bench/, no
    benchmark imports tests/, and the harness imports neither, so that neither ties the other."""
    forbidden = {"tests": {"bench"}, "bench": {"tests"}, "harness": {"tests", "bench"}}
    wrong = [
        f"{path.relative_to(REPO)} imports {name}"
        for folder, others in forbidden.items()
        for path in (REPO / folder).rglob("*.py")
        for name in imported_modules(path)
        if name.split(".")[0] in others
    ]
    assert not wrong, wrong


LONGEST = 400  # lines: a module one reader takes in at a sitting


def test_no_source_file_outside_tests_is_longer_than_one_reader_takes_in():
    """Every Python, JavaScript, CSS and shell file of ours outside tests/, as ruff and Biome format
    them, is at most LONGEST lines: one past it is split by concern (ONNX Runtime Web, vendored, aside)."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    sources = [
        path
        for path in tracked
        if Path(path).suffix in {".py", ".js", ".css", ".sh"}
        and not path.startswith(("tests/", "playground/onnxruntime-web/"))
    ]
    assert len(sources) > 100, "git lists the repository's files"
    lines = {path: len((REPO / path).read_text(encoding="utf-8").splitlines()) for path in sources}
    assert not {path: n for path, n in lines.items() if n > LONGEST}
