"""gradio_client's Client of a served app.py, writing only under the folder it is given.

gradio_client 2.7.2 downloads each file an answer holds through a folder named by 40 hex digits
that it makes in the system's temp folder, moves the file into ``download_files`` and leaves that
folder behind, empty (Client._download_file): one for every file downloaded. While a client here
downloads, Python's temp folder is its downloads folder, so those end there too.
"""

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from gradio_client import Client


@contextmanager
def temp_folder(folder: Path) -> Iterator[Path]:
    """Python's temp folder (tempfile.gettempdir(), in this process, every thread) is ``folder``
    while in the with block."""
    before, tempfile.tempdir = tempfile.tempdir, str(folder)
    try:
        yield folder
    finally:
        tempfile.tempdir = before


@contextmanager
def api_client(url: str, downloads: Path | Literal[False], **options) -> Iterator["Client"]:
    """gradio_client's Client of the app served at ``url``, closed on exit.

    Args:
        url: the served app, e.g. "http://127.0.0.1:7860/".
        downloads: where the client puts the files it is answered with, and the temp folder
            meanwhile; False: it downloads nothing and gives the server's URL of each file.
        options: more of Client's arguments (httpx_kwargs, say).
    """
    from gradio_client import Client

    with temp_folder(downloads) if downloads else nullcontext():
        client = Client(url, verbose=False, analytics_enabled=False, download_files=downloads, **options)
        try:
            yield client
        finally:
            client.close()
