"""`python -m playground.publish`: its dry run's model repos hold each network's files and, in
onnx/, the page's graphs of it, vouched for by graphs.json, each repo loading back strict and its
graphs reading MNIST as the network does; its Space holds the files git tracks but the weights,
preloading each repo at its revision; a published folder's graphs are read, not exported, but for
a changed byte, other weights or another exporting call; the upload makes the model repos first
and pins the Space to the commits they made (against a stand-in HfApi: the Hub cannot be reached
from where the tests run)."""

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
import yaml
from huggingface_hub.utils import filter_repo_objects

from capsnet.baseline import BaselineCNN
from capsnet.model import CapsNet
from capsnet.shipping import published_graphs
from capsnet.shipping.kept_graphs import FOLDER_VARIABLE
from capsnet.shipping.pretrained import HUB_FILES, SERVED_BY
from harness.paths import REPO, WEIGHTS
from harness.stand_in_hub import preloaded_cache
from playground import hub_copies, page_graphs, publish
from playground.page_network import RUNTIME_FOLDER, runtime_file

ort = pytest.importorskip("onnxruntime", reason="pip install -r requirements-dev.txt")

LENGTHS = 0.01  # the capsules' lengths, as tests/test_page_network.py: PrimaryCaps and W_ij in 8 bits
NETWORK_CLASSES = {"capsnet": CapsNet, "cnn": BaselineCNN}


def model_folders(out: Path) -> dict[tuple[str, str], Path]:
    return {network: out / name for network, name in publish.REPOS.items()}


def front_matter(readme: Path) -> dict:
    return yaml.safe_load(readme.read_text(encoding="utf-8").split("---\n")[1])


def test_each_model_folder_holds_its_files_and_the_page_s_graphs_vouched_for(dry_run):
    out, printed = dry_run
    for (model, task), folder in model_folders(out).items():
        source = Path(SERVED_BY[model, task].folder)
        names = {name for name in publish.MODEL_FILES if (REPO / source / name).is_file()}
        manifest = json.loads((folder / "onnx" / "graphs.json").read_text())
        entries = manifest["graphs"].values()
        expected_graphs = {f"onnx/{file}" for entry in entries for file in (entry["file"], entry["gzipped"]["file"])}
        assert set(publish.files(folder)) == names | expected_graphs | {"onnx/graphs.json"}, folder.name
        assert {"model.safetensors", "config.json", "README.md", "metrics.json"} <= names
        assert (folder / "model.safetensors").read_bytes() == (REPO / source / "model.safetensors").read_bytes()
        assert manifest["weights_sha256"] == hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
        for name, entry in manifest["graphs"].items():
            data = (folder / "onnx" / entry["file"]).read_bytes()
            assert entry["file"] == f"{name}.onnx" and entry["sha256"] == hashlib.sha256(data).hexdigest()
            assert entry["what"] and entry["exporter"].endswith("_graph")
            assert f"{entry['sha256']}  {len(data):>11,}  onnx/{name}.onnx" in printed  # the listing
            gzipped = (folder / "onnx" / f"{name}.onnx.gz").read_bytes()  # the page's copy: the same graph
            assert entry["gzipped"] == {"file": f"{name}.onnx.gz", "sha256": hashlib.sha256(gzipped).hexdigest()}
            assert gzip.decompress(gzipped) == data and len(gzipped) < len(data)
    expected = {
        "capsnet-mnist": {"capsules", "decoder", "routing", "turn"},
        "cnn-mnist": {"probabilities"},
        "capsnet-mnist-pairs": {"capsules", "decoder"},
        "cnn-mnist-pairs": {"sigmoids"},
    }
    for name, graphs in expected.items():
        assert set(json.loads((out / name / "onnx" / "graphs.json").read_text())["graphs"]) == graphs, name
    assert {"dimensions.json", "robustness.json"} <= set(publish.files(out / "capsnet-mnist"))
    assert "pairs.json" in publish.files(out / "capsnet-mnist-pairs")
    # PrimaryCaps and W_ij in 8 bits in the MNIST CapsNet's capsules, none in the pairs CapsNet's
    assert eight_bit_tensors(out / "capsnet-mnist" / "onnx" / "capsules.onnx") == 2
    assert eight_bit_tensors(out / "capsnet-mnist-pairs" / "onnx" / "capsules.onnx") == 0


def eight_bit_tensors(graph: Path) -> int:
    initializers = onnx.load(graph).graph.initializer
    return sum(tensor.data_type == onnx.TensorProto.INT8 for tensor in initializers)


def test_a_hub_repo_is_downloaded_with_all_the_page_reads_of_it(dry_run):
    """`pretrained.download` fetches HUB_FILES of a repo, as snapshot_download filters them: all
    but the model card and the graphs' gzipped copies (the page's)."""
    for folder in model_folders(dry_run[0]).values():
        fetched = list(filter_repo_objects(publish.files(folder), allow_patterns=HUB_FILES))
        page_only = {"README.md", *(name for name in publish.files(folder) if name.endswith(".onnx.gz"))}
        assert fetched == [name for name in publish.files(folder) if name not in page_only], folder.name


def test_the_space_holds_the_tracked_files_but_the_weights_and_preloads_each_repo(dry_run):
    out, printed = dry_run
    space = out / "capsnet-playground"
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    assert set(publish.files(space)) == {path for path in tracked if not path.startswith("weights/")} | {
        "playground/published.json"
    }
    runs = ["app.py", "requirements.txt", "capsnet", "playground", "assets"]  # what the Space runs
    others = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", *runs], cwd=REPO, capture_output=True)
    untracked = others.stdout.decode().split()  # files git neither tracks nor ignores: the Space would lack them
    assert not untracked, f"the Space would leave out {untracked}: git add them, or ignore them"
    matter = front_matter(space / "README.md")
    preloads = [line.split(" ") for line in matter.pop("preload_from_hub")]
    assert matter == front_matter(REPO / "README.md")
    pinned = {}
    for (model, task), folder in model_folders(out).items():
        repo = f"someone/{publish.REPOS[model, task]}"
        (files,) = [preload[1].split(",") for preload in preloads if preload[0] == repo]
        preloaded = [name for name in publish.files(folder) if not name.endswith(".onnx.gz")]  # not the page's copies
        assert files == preloaded and [p[2] for p in preloads if p[0] == repo] == [publish.UNPINNED]
        pinned[SERVED_BY[model, task].variable] = f"{repo}@{publish.UNPINNED}"
    assert len(preloads) == 4  # the runtime's repo is not preloaded: the Space has its own copy
    pinned[hub_copies.RUNTIME_VARIABLE] = f"someone/{publish.RUNTIME_REPO}@{publish.UNPINNED}"
    assert json.loads((space / "playground" / "published.json").read_text()) == pinned
    assert f"{space}/" in printed and "nothing uploaded" in printed


def test_the_runtime_repo_holds_the_spaces_own_gzipped_webassembly(dry_run):
    out, printed = dry_run
    folder = out / publish.RUNTIME_REPO
    assert publish.files(folder) == sorted(["README.md", hub_copies.RUNTIME_COPY])
    stored = (RUNTIME_FOLDER / f"{hub_copies.WASM}.gz").read_bytes()
    assert (folder / hub_copies.RUNTIME_COPY).read_bytes() == stored
    assert gzip.decompress(stored) == runtime_file(hub_copies.WASM)[0]  # the file the Space serves
    assert f"{folder}/" in printed


def test_a_dry_run_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    (tmp_path / "left.txt").write_text("")
    with pytest.raises(SystemExit):
        publish.main(["--owner", "someone", "--dry-run", str(tmp_path)])
    assert "not empty" in capsys.readouterr().err


def test_a_network_that_cannot_be_loaded_stops_it_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CAPSNET_PAIRS_CNN_WEIGHTS", str(tmp_path / "nowhere"))
    assert publish.main(["--owner", "someone", "--dry-run", str(tmp_path / "out")]) == 1
    error = capsys.readouterr().err
    assert error.startswith("publish: error: weights folder ") and "nowhere" in error and error.count("\n") == 1


def sessions(folder: Path) -> dict:
    return {path.stem: ort.InferenceSession(path.read_bytes()) for path in (folder / "onnx").glob("*.onnx")}


def test_each_model_folder_loads_back_strict_and_its_graphs_read_as_the_network_does(dry_run, mnist_test):
    out, _ = dry_run
    images = mnist_test.data[:32, None].float() / 255  # [32, 1, 28, 28]
    for (model, task), folder in model_folders(out).items():
        network = NETWORK_CLASSES[model].from_pretrained(folder, strict=True).eval()
        graphs = sessions(folder)
        with torch.inference_mode():
            expected = network(images)
        for i, image in enumerate(images):
            if model == "capsnet":
                v, lengths, _ = graphs["capsules"].run(None, {"images": image[None].numpy()})
                assert np.abs(lengths[0] - expected.lengths[i].numpy()).max() < LENGTHS, (folder.name, i)
                masked = np.zeros_like(v)  # [1, 10, 16]: the longest capsule alone
                winner = lengths[0].argmax()
                masked[0, winner] = v[0, winner]
                (picture,) = graphs["decoder"].run(None, {"capsules": masked.reshape(1, -1)})
                with torch.inference_mode():
                    redrawn = network.decode(torch.from_numpy(v), torch.tensor([[winner]]))
                assert np.abs(picture - redrawn.reshape(1, -1).numpy()).max() < 0.01, (folder.name, i)
            elif task == "digits":
                (probabilities,) = graphs["probabilities"].run(None, {"images": image[None].numpy()})
                assert np.abs(probabilities[0] - expected.probabilities[i].numpy()).max() < 2e-3, i
            else:
                (sigmoids,) = graphs["sigmoids"].run(None, {"images": image[None].numpy()})
                assert np.abs(sigmoids[0] - torch.sigmoid(expected.logits[i]).numpy()).max() < 0.01, i


@pytest.fixture
def no_export(monkeypatch, tmp_path):
    """An empty folder of kept graphs, and an export that fails: a graph can only be read."""
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path / "kept"))

    def refuse(*arguments, **options):
        raise AssertionError("exported a graph")

    monkeypatch.setattr(torch.onnx, "export", refuse)


def test_a_published_folder_s_graphs_are_read_not_exported(dry_run, no_export):
    out, _ = dry_run
    for (model, task), folder in model_folders(out).items():
        network = NETWORK_CLASSES[model].from_pretrained(folder, strict=True).eval()
        read = published_graphs.graphs(folder, page_graphs.GRAPHS[model, task](network))
        assert read == {name: (folder / "onnx" / f"{name}.onnx").read_bytes() for name in read}, folder.name


@pytest.fixture
def cnn_folder(dry_run, tmp_path) -> Path:
    """The published CNN's folder, to change."""
    return Path(shutil.copytree(dry_run[0] / "cnn-mnist", tmp_path / "cnn-mnist"))


def read_cnn_graph(folder: Path, monkeypatch, network: BaselineCNN | None = None, **options) -> bytes:
    """The CNN's probabilities graph of ``network`` (else the one in ``folder``) as the app reads it
    from ``folder``, an export being b"exported"."""
    monkeypatch.setattr(published_graphs, "kept", lambda export, *arguments, **options: b"exported")
    network = network or BaselineCNN.from_pretrained(folder, strict=True).eval()
    exports = page_graphs.cnn_graphs(network)
    exports["probabilities"] = published_graphs.Export("", exports["probabilities"].export, (network,), options)
    return published_graphs.graphs(folder, exports)["probabilities"]


def test_a_graph_with_a_byte_changed_is_exported_again(cnn_folder, monkeypatch):
    graph = cnn_folder / "onnx" / "probabilities.onnx"
    assert read_cnn_graph(cnn_folder, monkeypatch) == graph.read_bytes()
    data = bytearray(graph.read_bytes())
    data[len(data) // 2] ^= 1
    graph.write_bytes(bytes(data))
    assert read_cnn_graph(cnn_folder, monkeypatch) == b"exported"


def test_weights_that_are_not_the_manifest_s_are_exported_again(cnn_folder, monkeypatch):
    """model.safetensors replaced under the same network (the key the same): its SHA-256 is not
    graphs.json's."""
    network = BaselineCNN.from_pretrained(cnn_folder, strict=True).eval()
    shutil.copy(WEIGHTS / "pairs-cnn" / "model.safetensors", cnn_folder / "model.safetensors")  # same shapes
    assert read_cnn_graph(cnn_folder, monkeypatch, network) == b"exported"


def test_another_exporting_call_is_exported_again(cnn_folder, monkeypatch):
    assert read_cnn_graph(cnn_folder, monkeypatch, not_an_option=True) == b"exported"  # another key


class StandInHub:
    """HfApi's create_repo and upload_folder, recording each call and what each Space upload holds
    (its folder is gone once the command ends); each upload a commit of its own."""

    def __init__(self):
        self.calls, self.space = [], {}

    def create_repo(self, repo_id, repo_type="model", exist_ok=False, **options):
        assert exist_ok
        self.calls.append(("create_repo", repo_id, repo_type))
        if repo_type == "space":
            self.space_options = options

    def upload_folder(self, repo_id, repo_type, folder_path, **options):
        oid = f"{len(self.calls):040x}"
        self.calls.append(("upload_folder", repo_id, repo_type, oid))
        if repo_type == "space":
            self.space = {
                "matter": front_matter(Path(folder_path) / "README.md"),
                "published": json.loads((Path(folder_path) / "playground" / "published.json").read_text()),
                "files": publish.files(Path(folder_path)),
            }
        return type("CommitInfo", (), {"oid": oid, "commit_url": f"https://huggingface.co/{repo_id}/commit/{oid}"})()


def test_the_upload_makes_the_model_repos_first_and_pins_the_space_to_their_commits(dry_run, monkeypatch, capsys):
    hub = StandInHub()
    monkeypatch.setattr(publish, "HfApi", lambda: hub)
    assert publish.main(["--owner", "someone"]) == 0
    repos = [f"someone/{name}" for name in publish.REPOS.values()]
    runtime = f"someone/{publish.RUNTIME_REPO}"
    expected = []
    for repo in [*repos, runtime]:
        expected += [("create_repo", repo, "model"), ("upload_folder", repo, "model")]
    expected += [
        ("create_repo", "someone/capsnet-playground", "space"),
        ("upload_folder", "someone/capsnet-playground", "space"),
    ]
    assert [call[:3] for call in hub.calls] == expected
    commits = {call[1]: call[3] for call in hub.calls if call[0] == "upload_folder"}
    preloads = {line.split(" ")[0]: line.split(" ")[2] for line in hub.space["matter"]["preload_from_hub"]}
    assert preloads == {repo: commits[repo] for repo in repos}
    variables = {SERVED_BY[network].variable: f"someone/{name}" for network, name in publish.REPOS.items()}
    variables[hub_copies.RUNTIME_VARIABLE] = runtime
    assert hub.space["published"] == {variable: f"{repo}@{commits[repo]}" for variable, repo in variables.items()}
    assert not any(path.startswith("weights/") for path in hub.space["files"])
    assert capsys.readouterr().out.count("uploaded ") == 6
    assert hub.space_options == {"space_sdk": "gradio", "space_hardware": "zero-a10g"}  # a free account's


def test_a_space_on_cpu_basic_is_asked_for_by_name(dry_run, monkeypatch):
    hub = StandInHub()
    monkeypatch.setattr(publish, "HfApi", lambda: hub)
    assert publish.main(["--owner", "someone", "--hardware", "cpu-basic"]) == 0
    assert hub.space_options["space_hardware"] == "cpu-basic"


@pytest.mark.slow  # a start of the app: torch, Gradio and five networks loaded, a minute on 2 cores
def test_the_published_space_starts_from_the_preloaded_repos_and_exports_no_graph(dry_run, tmp_path):
    """The Space's own folder, its model repos in the Hub's cache as preload_from_hub leaves them
    (offline: the Hub is only what the test puts there), started with no kept graph and an export
    that fails: it serves the published graphs."""
    out, _ = dry_run
    cache = preloaded_cache(out, tmp_path / "hub-cache", list(publish.REPOS.values()))
    space = out / "capsnet-playground"
    start = (
        "import torch.onnx\n"
        "def refuse(*arguments, **options): raise AssertionError('exported a graph')\n"
        "torch.onnx.export = refuse\n"
        "import app\n"
        f"print(app.NETWORKS.weights.startswith({str(cache)!r}))\n"
        "print(app.READING.page_network.data == open(app.NETWORKS.weights + '/onnx/capsules.onnx', 'rb').read())\n"
        "print(app.TWO_DIGITS.problem)\n"
    )
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("CAPSNET_") or key == "CAPSNET_DATA_DIR"
    }
    environment |= {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache), FOLDER_VARIABLE: str(tmp_path / "kept")}
    started = subprocess.run(
        [sys.executable, "-c", start], cwd=space, env=environment, capture_output=True, text=True, timeout=600
    )
    assert started.returncode == 0, started.stderr[-3000:]
    assert started.stdout.split("\n")[-4:-1] == ["True", "True", "None"], started.stdout
    assert not (tmp_path / "kept").exists() or not any((tmp_path / "kept").iterdir())
