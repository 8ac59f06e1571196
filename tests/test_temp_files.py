"""The suite writes only under its own temporary folders: Gradio's cache in this process is a
folder of the session's own, and a served app.py and gradio_client's Client of it (harness/)
write nothing into the system's temp folder."""

import os
import tempfile
from pathlib import Path

import pytest

from harness.app_server import serving_app
from harness.gradio_clients import api_client
from playground.reading import WINNER
from tests.support.examples import EXAMPLES


def test_gradio_s_cache_in_this_process_is_a_folder_of_the_session_s_own():
    from gradio.utils import get_upload_folder

    cache = Path(get_upload_folder())
    assert cache == Path(os.environ["GRADIO_TEMP_DIR"]) and cache.name.startswith("capsnet-tests-gradio-")


@pytest.mark.server
def test_a_served_app_and_its_client_write_only_under_the_folders_they_are_given(app, tmp_path, monkeypatch):
    """The system's temp folder is an empty folder here, for this process and for the server, and
    no GRADIO_TEMP_DIR is set: a reading and a slider move, each answered with an image, leave it
    empty, the upload and the images under the server's folder, their copies in the downloads."""
    from gradio_client import handle_file

    system_temp, files, downloads = tmp_path / "system-temp", tmp_path / "server", tmp_path / "downloads"
    system_temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_temp))
    monkeypatch.setenv("TMPDIR", str(system_temp))
    monkeypatch.delenv("GRADIO_TEMP_DIR")
    with serving_app(start_timeout=600, files=files) as url, api_client(url, downloads) as client:
        client.predict(handle_file(str(EXAMPLES[0])), api_name="/predict")
        client.predict(WINNER, *[0.1] * app.NETWORKS.capsnet.config.digit_capsule_dim, api_name="/perturb")
    assert sorted(path.name for path in system_temp.iterdir()) == []
    assert EXAMPLES[0].name in {path.name for path in files.rglob("*")}  # the upload
    assert len([path for path in downloads.rglob("*") if path.is_file()]) == 2  # the two images
