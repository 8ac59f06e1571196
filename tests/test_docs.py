"""README.md and docs/ stay true: the Space's front matter is whole, every relative link and
picture resolves (a #fragment to a heading of its page), every page of docs/ is reachable from
the README, every `python -m MODULE` / `python FILE` / `torchrun ... FILE` quoted names a module
or file that exists and takes every --flag quoted with it, the README's library example runs,
every figure of the README's table is the one the docs section it links to gives, and the docs name
no revision outside a command. (What the Space's publish command uploads: tests/test_publish.py.)"""

import importlib.util
import json
import re
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

from harness.paths import REPO, WEIGHTS

README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
SPACE_KEYS = {
    "title",
    "emoji",
    "colorFrom",
    "colorTo",
    "sdk",
    "sdk_version",
    "python_version",
    "app_file",
    "pinned",
    "short_description",
}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
COMMAND = re.compile(
    r"(?:python|torchrun(?: --?[\w-]+(?:=\S+)?)*) +(?:-m +(?P<module>[\w.]+)|(?P<file>[\w./-]+\.py))"
    r"(?P<arguments>(?: +[^\s`|;#]+)*)"
)


NUMBER = r"[-+]?\d+(?:,\d{3})*(?:\.\d+)?(?:%|M\b| ms\b| s\b)?"  # 1,593; 99.65%; -2.2; 3.2M; 2.0 s
FIGURE = re.compile(rf"(?<![\w.,+-]){NUMBER}(?: (?:/|of) {NUMBER})*")  # and 39 / 64 ms, 3 of 4; not p95 or d15
MACHINE = re.compile(r"\b(?:AMD EPYC|Intel Xeon|NVIDIA)\b")
REVISION = re.compile(r"(?<![\w.,/-])[0-9a-f]{7,40}(?![\w/-])")  # a figure of 7 digits or more has commas
NAMES_A_REVISION = re.compile(r"--(?:against|before|after)\s+\S+")


def prose(text: str) -> str:
    """``text`` without its fenced code blocks."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings, a repeated one numbered as GitHub numbers it."""
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6} +(.+)$", prose(text), re.MULTILINE):
        base = slug(heading)
        found.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return found


def sections(text: str) -> dict[str, str]:
    """Each heading's anchor: the page's prose from that heading to the next of its level or above;
    "" the whole page's prose."""
    text = prose(text)
    headings = [
        (match.start(), len(match[1]), match[2]) for match in re.finditer(r"^(#{1,6}) +(.+)$", text, re.MULTILINE)
    ]
    found, seen = {"": text}, {}
    for index, (start, level, heading) in enumerate(headings):
        base = slug(heading)
        anchor = base if base not in seen else f"{base}-{seen[base]}"
        seen[base] = seen.get(base, 0) + 1
        end = next((later for later, deeper, _ in headings[index + 1 :] if deeper <= level), len(text))
        found[anchor] = text[start:end]
    return found


def figures(text: str) -> set[str]:
    """Every number written in ``text`` with its unit, and every run of them joined by "/" or "of"
    ("39 / 64 ms", "3 of 4"), bold or not, −2.2 (a minus sign) as -2.2."""
    text = " ".join(text.replace("**", "").replace("\u2212", "-").split())
    runs = FIGURE.findall(text)
    return {*runs, *(number for run in runs for number in re.split(r" (?:/|of) ", run))}


def readme_figures() -> list[tuple[str, str, str]]:
    """The rows of the README's figures table: (what, figure, the link to the docs that give it)."""
    table = README.read_text(encoding="utf-8").split("\n## Figures\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("| ").split(" | ") for line in table.splitlines() if line.startswith("| ")]
    return [(what, figure, LINK.search(where)[1]) for what, figure, where in rows[2:]]  # past the header


def relative_links(page: Path) -> list[str]:
    return [
        target for target in LINK.findall(prose(page.read_text(encoding="utf-8"))) if not re.match(r"[a-z]+:", target)
    ]


def commands(page: Path) -> list[tuple[str, set[str]]]:
    """Every command quoted on ``page``, in its code blocks and inline code: ("-m MODULE" or
    "FILE", the --flags quoted with it)."""
    text = page.read_text(encoding="utf-8")
    quoted = [
        line.split(" # ")[0]
        for language, block in FENCE.findall(text)
        if language in ("", "bash")
        for line in block.replace("\\\n", " ").splitlines()
    ]
    quoted += [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose(text))]
    found = []
    for line in quoted:
        for match in COMMAND.finditer(" ".join(line.split())):
            target = f"-m {match['module']}" if match["module"] else match["file"]
            flags = {token.split("=")[0] for token in match["arguments"].split() if token.startswith("--")}
            found.append((target, flags))
    return found


def all_commands() -> dict[str, set[str]]:
    """Each command target quoted anywhere, with every flag quoted with it."""
    merged = {}
    for page in PAGES:
        for target, flags in commands(page):
            merged.setdefault(target, set()).update(flags)
    return merged


def source_of(target: str, repo: Path = REPO) -> Path | None:
    """The repository's file behind a command target, or None for a module installed in Python's
    environment (pytest), also where that environment sits inside the checkout (CI's .venv)."""
    if not target.startswith("-m "):
        return repo / target
    spec = importlib.util.find_spec(target[3:])
    assert spec is not None and spec.origin, f"no module {target[3:]}"
    origin = Path(spec.origin).resolve()
    installed = {Path(sysconfig.get_path(name)).resolve() for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    return origin if repo.resolve() in origin.parents and not installed & set(origin.parents) else None


def front_matter() -> dict[str, str]:
    """The Space's YAML front matter at the top of README.md, each value as written."""
    text = README.read_text(encoding="utf-8")
    assert text.startswith("---\n"), "README.md must open with the Space's YAML front matter"
    return dict(line.split(": ", 1) for line in text.split("\n---\n", 1)[0].splitlines()[1:] if line.strip())


def test_the_space_front_matter_is_whole_and_pins_gradio_as_requirements_do():
    front = front_matter()
    assert set(front) == SPACE_KEYS
    pin = re.search(r"^gradio==(\S+)", (REPO / "requirements.txt").read_text(), re.MULTILINE).group(1)
    assert front["sdk_version"] == pin and front["sdk"] == "gradio" and (REPO / front["app_file"]).is_file()


ZERO_GPU_PYTHONS = {"3.10", "3.12"}  # the Pythons a ZeroGPU Space runs (the Hub's spaces-zerogpu page)


def test_the_readme_and_pyproject_name_one_python_and_the_space_runs_one_zerogpu_offers_above_it():
    """The README's "(Python X+;" is pyproject's requires-python; the Space's python_version is at
    or above it, and one that ZeroGPU offers as CPU Basic does (CI and the tests run on X)."""
    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    lowest = requires.removeprefix(">=")
    assert f"(Python {lowest}+;" in README.read_text(encoding="utf-8")
    space = front_matter()["python_version"].strip('"')
    assert space in ZERO_GPU_PYTHONS
    assert tuple(map(int, space.split("."))) >= tuple(map(int, lowest.split(".")))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_and_picture_resolves(page):
    assert relative_links(page), f"{page.name} links nowhere"
    for target in relative_links(page):
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: {target} does not exist"
        if fragment:
            assert fragment in anchors(linked.read_text(encoding="utf-8")), f"{page.name}: no heading #{fragment}"


def test_every_figure_in_the_readmes_table_is_given_by_the_docs_section_it_links_to():
    """One source for each figure: every number in a row of the README's figures table (what was
    measured, the figure, its machine), with its sign and unit, and every run of them ("39 / 64
    ms", "3 of 4"), is written so in the section of docs/ the row links to. A figure measured
    again is changed in the docs, beside its command and machine, and this test names the
    README's row that still says the old one."""
    rows = readme_figures()
    assert len(rows) >= 10
    for what, figure, link in rows:
        page, _, fragment = link.partition("#")
        given = figures(sections((README.parent / page).read_text(encoding="utf-8"))[fragment])
        for written in sorted(figures(f"{what} | {figure}")):
            assert written in given, f"README's figures, {what!r}: {written} is not in {link}"


def test_every_benchmark_figure_in_the_readme_names_its_machine():
    for what, figure, link in readme_figures():
        if link.startswith("docs/benchmarks.md"):
            assert MACHINE.search(figure), f"README's figures, {what!r}: {figure} names no machine"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_docs_name_no_revision_outside_a_command(page):
    """What changed and when is git log's: a page names a revision only as a command's --against
    (--before, --after) REV, the revision that command compares with."""
    text = NAMES_A_REVISION.sub("", prose(page.read_text(encoding="utf-8")))
    assert not REVISION.findall(text), f"{page.name} names a revision outside a command"


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(README.parent / target.partition("#")[0]).resolve() for target in relative_links(README)}
    assert set(PAGES[1:]) <= linked, "a page of docs/ the README does not link to"


def test_the_readme_stays_short_enough_to_read_on_the_hub():
    """The README is the Space's and the repository's front page: at most 7,000 bytes, and no table
    row over 160 characters (a longer one wraps on the Hub into a column of a few words a line)."""
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) <= 7000, f"README.md has {len(text.encode()):,} bytes: say it in docs/"
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert rows and max(map(len, rows)) <= 160, max(rows, key=len)


def test_the_readme_keeps_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert "pip install -r requirements.txt\npython app.py\n" in text
    assert "pip install -r requirements-dev.txt" in text and re.search(r"^python -m pytest(?: +#.*)?$", text, re.M)
    for page in PAGES:
        for requirements in re.findall(r"pip install -r (\S+)", page.read_text(encoding="utf-8")):
            assert (REPO / requirements).is_file(), f"{page.name}: no {requirements}"


def test_every_command_quoted_names_a_module_or_file_that_exists():
    quoted = all_commands()
    assert {"app.py", "train.py", "-m pytest", "-m capsnet.studies.robustness", "-m bench.screenshot"} <= set(quoted)
    for target in quoted:
        source = source_of(target)
        assert source is None or source.is_file(), f"{target}: no {source}"


def test_an_installed_module_is_not_taken_for_a_file_of_the_repository_even_in_a_venv_inside_it():
    site_packages = Path(sysconfig.get_path("purelib"))
    checkout = site_packages.parents[3]  # VENV/lib/python3.X/site-packages: VENV's folder, as CI's holds .venv
    assert source_of("-m pytest", repo=checkout) is None
    assert source_of("-m capsnet.shipping.evaluate") == REPO / "capsnet" / "shipping" / "evaluate.py"


def parses_arguments(target: str) -> bool:
    """Whether the command takes flags: it uses argparse, or parse_args of a module that does
    (train.py, whose flags are capsnet.training.options')."""
    source = source_of(target)
    return source is None or bool(re.search(r"\bargparse\b|\bparse_args\(", source.read_text(encoding="utf-8")))


# Runs each command given as its arguments with --help, in one interpreter (torch, Gradio and the
# app's networks are loaded once, not once a command), and writes {command: [exit code, stdout,
# stderr]} as JSON to the file named first.
HELP_EACH = """
import contextlib, io, json, runpy, sys, traceback
answers, written, targets = {}, sys.argv[1], sys.argv[2:]
for target in targets:
    out, err, code = io.StringIO(), io.StringIO(), 0
    sys.argv = [target.split()[-1], "--help"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if target.startswith("-m "):
                runpy.run_module(target[3:], run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(target, run_name="__main__")
        except SystemExit as exit:
            code = exit.code or 0
        except BaseException:
            traceback.print_exc()
            code = 1
    answers[target] = [code, out.getvalue(), err.getvalue()]
with open(written, "w") as file:
    json.dump(answers, file)
"""


@pytest.fixture(scope="module")
def helps(tmp_path_factory) -> dict[str, list]:
    """Each command quoted that parses arguments: [exit code, stdout, stderr] of it with --help."""
    answers = tmp_path_factory.mktemp("helps") / "helps.json"
    targets = [target for target in sorted(all_commands()) if parses_arguments(target)]
    run = subprocess.run(
        [sys.executable, "-c", HELP_EACH, str(answers), *targets], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(answers.read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(all_commands()))
def test_every_command_quoted_takes_its_flags(target, helps):
    if not parses_arguments(target):
        pytest.skip(f"{target} parses no arguments: only that it exists is checked")
    code, out, err = helps[target]
    assert code == 0, f"{target} --help failed:\n{err[-2000:]}"
    for flag in all_commands()[target]:
        assert re.search(rf"{re.escape(flag)}\b", out), f"{target} has no {flag}"


def test_the_readmes_library_example_runs():
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}: the example loads them")
    example = next(
        block
        for language, block in FENCE.findall(README.read_text(encoding="utf-8"))
        if language == "python" and "from capsnet import" in block
    )
    namespace = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(REPO)
        exec(compile(example, "README.md", "exec"), namespace)
    out = namespace["out"]
    assert (tuple(out.lengths.shape), tuple(out.prediction.shape), tuple(out.reconstruction.shape)) == (
        (8, 10),
        (8,),
        (8, 1, 28, 28),
    )


def test_every_docs_page_the_code_points_to_exists():
    sources = [
        REPO / "app.py",
        REPO / "train.py",
        *(REPO / "capsnet").rglob("*.py"),
        *(REPO / "playground").glob("*.py"),
        *(REPO / "bench").glob("*.py"),
        *(REPO / "charts").glob("*.py"),
        *(REPO / "harness").glob("*.py"),
    ]
    pointed = {
        (source.name, page)
        for source in sources
        for page in re.findall(r"docs/[\w-]+\.md", source.read_text(encoding="utf-8"))
    }
    assert {("train.py", "docs/training.md"), ("robustness.py", "docs/robustness.md")} <= pointed
    for source, page in pointed:
        assert (REPO / page).is_file(), f"{source} points to {page}, which does not exist"
