"""The Hugging Face Hub as a test or a benchmark meets it on loopback: the folders a dry run of
`python -m playground.publish` writes, laid out as the Hub's cache is after a Space's
preload_from_hub (`preloaded_cache`), and served as the Hub's CDN serves a repo's files
(`stand_in_cdn`): ``/{repo}/resolve/{revision}/{path}`` answered with a redirect to the file on
another path, as the Hub redirects to its CDN, both with CORS for any page, the file as it is stored
(no Content-Encoding), kept for good. The Hub itself cannot be reached from where the tests run.

    with stand_in_cdn(out, OWNER, COMMIT) as endpoint:   # HF_ENDPOINT for the app
        ...
"""

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

from harness.delaying_proxy import LOOPBACK

OWNER = "someone"  # the --owner the dry runs publish under
COMMIT = "0123456789abcdef0123456789abcdef01234567"  # the commit every repo's upload is taken to have made
CDN = "/cdn"  # where the resolve address redirects to


def preloaded_cache(out: Path, cache: Path, repos: list[str], owner: str = OWNER, commit: str = COMMIT) -> Path:
    """``cache`` (an HF_HUB_CACHE) holding each of ``repos`` (folders of ``out``) as the Hub's cache
    does after downloading ``owner``/REPO at ``commit``, its main branch pointing there."""
    for name in repos:
        repo = cache / f"models--{owner}--{name}"
        (repo / "refs").mkdir(parents=True)
        (repo / "refs" / "main").write_text(commit)
        shutil.copytree(out / name, repo / "snapshots" / commit)
    return cache


def _answerer(out: Path, owner: str, revisions: set[str], changed: set[str]) -> type[BaseHTTPRequestHandler]:
    class Answer(BaseHTTPRequestHandler):
        def log_message(self, *arguments) -> None:  # quiet: a test's output is its own
            pass

        def headers_for_any_page(self, status: int, headers: dict[str, str]) -> None:
            self.send_response(status)
            for name, value in {"Access-Control-Allow-Origin": "*", **headers}.items():
                self.send_header(name, value)
            self.end_headers()

        def do_GET(self) -> None:
            parts = unquote(self.path.split("?")[0]).lstrip("/").split("/")
            if parts[:1] == [CDN.strip("/")]:  # the file itself, as the CDN sends it
                return self.send_file("/".join(parts[1:]))
            if len(parts) < 5 or parts[0] != owner or parts[2] != "resolve" or parts[3] not in revisions:
                return self.headers_for_any_page(404, {"Content-Length": "0"})
            where = f"{CDN}/{parts[1]}/{'/'.join(parts[4:])}"
            self.headers_for_any_page(302, {"Location": where, "Content-Length": "0"})

        def send_file(self, path: str) -> None:  # "REPO/PATH"
            file = (out / path).resolve()
            if not file.is_relative_to(out.resolve()) or not file.is_file():
                return self.headers_for_any_page(404, {"Content-Length": "0"})
            data = bytearray(file.read_bytes())
            if path in changed:
                data[len(data) // 2] ^= 0x01  # one byte changed
            self.headers_for_any_page(
                200,
                {
                    "Content-Type": "application/octet-stream",
                    "Content-Length": str(len(data)),
                    "Cache-Control": "public, max-age=31536000, immutable",
                },
            )
            self.wfile.write(data)

    return Answer


@contextmanager
def stand_in_cdn(
    out: Path, owner: str = OWNER, revisions: tuple[str, ...] = (COMMIT, "main"), changed: set[str] | None = None
) -> Iterator[str]:
    """The Hub's CDN for the repos in ``out`` (as `owner`/NAME, at ``revisions``) on a free port of
    loopback; yields its address, an HF_ENDPOINT. Each file of ``changed`` ("REPO/PATH"), a set the
    caller may change while it serves, is sent with one byte changed."""
    server = ThreadingHTTPServer(
        (LOOPBACK, 0), _answerer(out, owner, set(revisions), set() if changed is None else changed)
    )
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="stand-in-cdn", daemon=True)
    thread.start()
    try:
        yield f"http://{LOOPBACK}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
