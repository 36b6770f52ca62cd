"""A fake Hugging Face hub on 127.0.0.1: the two requests huggingface_hub makes to fetch a file.

HEAD and GET ``/{owner}/{repo}/resolve/{revision}/{file}`` with the headers
``get_hf_file_metadata`` reads (huggingface_hub 2.x file_download.py): ``x-repo-commit``
(required, else "does not seem to be served by a Hugging Face Hub endpoint"), ``etag`` and
``x-linked-etag`` (the LFS sha256), ``x-linked-size`` and ``content-length``; GET honours
``Range: bytes=N-`` with 206 + ``content-range``. Misses answer 404 with ``x-error-code``
(RepoNotFound / EntryNotFound), which hf_raise_for_status turns into its typed errors.
Knobs for the failure tests: ``cut_after`` drops the connection after that many body bytes
on the first GET; ``advertise_sha`` lies about the checksum.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support import MODELS

SMOL = MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf"
SPEC = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct.Q4_1.gguf"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class FakeHub:
    files: dict[str, Path]  # "owner/repo/file" -> local file served
    cut_after: int | None = None  # drop the first GET after this many body bytes
    advertise_sha: str | None = None  # serve this checksum instead of the real one
    throttle: float = 0.0  # seconds of sleep per MiB sent (a slow line, for cancelling)
    plain_misses: bool = False  # a miss is a bare 404, no x-error-code (a mirror or a proxy)
    requests: list[tuple[str, str, str | None]] = field(
        default_factory=list
    )  # (method, path, Range)
    url: str = ""
    _sha: dict[str, str] = field(default_factory=dict)

    def sha256(self, key: str) -> str:
        if key not in self._sha:
            h = hashlib.sha256()
            with open(self.files[key], "rb") as fh:
                while block := fh.read(1 << 22):
                    h.update(block)
            self._sha[key] = h.hexdigest()
        return self._sha[key]

    def gets(self) -> list[tuple[str, str, str | None]]:
        return [r for r in self.requests if r[0] == "GET"]


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # quiet test output
            pass

        def _resolve(self) -> tuple[str, Path] | None:
            parts = self.path.split("?")[0].strip("/").split("/")
            if len(parts) < 5 or parts[2] != "resolve":
                self._miss("RepoNotFound")
                return None
            repo, filename = "/".join(parts[:2]), "/".join(parts[4:])
            key = f"{repo}/{filename}"
            if key not in hub.files:
                known = any(k.startswith(repo + "/") for k in hub.files)
                self._miss("EntryNotFound" if known else "RepoNotFound")
                return None
            return key, hub.files[key]

        def _miss(self, code: str) -> None:
            self.send_response(404)
            if not hub.plain_misses:
                self.send_header("x-error-code", code)
            self.send_header("x-repo-commit", COMMIT)
            self.send_header("content-length", "0")
            self.end_headers()

        def _meta_headers(self, key: str, size: int) -> None:
            sha = hub.advertise_sha or hub.sha256(key)
            self.send_header("x-repo-commit", COMMIT)
            self.send_header("etag", f'"{sha}"')
            self.send_header("x-linked-etag", f'"{sha}"')
            self.send_header("x-linked-size", str(size))
            self.send_header("accept-ranges", "bytes")

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
            hub.requests.append(("HEAD", self.path, self.headers.get("Range")))
            found = self._resolve()
            if found is None:
                return
            key, path = found
            size = path.stat().st_size
            self.send_response(200)
            self._meta_headers(key, size)
            self.send_header("content-length", str(size))
            self.end_headers()

        def do_GET(self) -> None:  # noqa: N802
            rng = self.headers.get("Range")
            hub.requests.append(("GET", self.path, rng))
            found = self._resolve()
            if found is None:
                return
            key, path = found
            size = path.stat().st_size
            start = int(rng.split("=", 1)[1].split("-", 1)[0]) if rng else 0
            self.send_response(206 if start else 200)
            self._meta_headers(key, size)
            self.send_header("content-length", str(size - start))
            if start:
                self.send_header("content-range", f"bytes {start}-{size - 1}/{size}")
            self.end_headers()
            cut = hub.cut_after if len(hub.gets()) == 1 else None
            sent = 0
            with open(path, "rb") as fh:
                fh.seek(start)
                while block := fh.read(1 << 20):
                    if cut is not None and sent + len(block) > cut:
                        self.wfile.write(block[: cut - sent])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)  # the connection drops mid-body
                        return
                    self.wfile.write(block)
                    sent += len(block)
                    if hub.throttle:
                        time.sleep(hub.throttle)

    return Handler


def start(hub: FakeHub) -> tuple[ThreadingHTTPServer, threading.Thread]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    server.daemon_threads = True
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """The fake hub serving the bundled SmolLM2 as SPEC; HF_ENDPOINT points at it, models/ is
    ``tmp_path / "models"``, and the DNS probe answers yes for 127.0.0.1 only."""
    if not SMOL.exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    fake = FakeHub({SPEC: SMOL.resolve()})
    server, thread = start(fake)
    monkeypatch.setenv("HF_ENDPOINT", fake.url)
    monkeypatch.setenv("LOCALCRAG_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setattr(
        "localcrag.crag.web.is_online", lambda host, timeout=1.5: host == "127.0.0.1"
    )
    yield fake
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
