"""`localcrag models pull`: fetch one GGUF from the Hugging Face hub into models/.

Only on an explicit command, never at start-up. What leaves the machine: a HEAD and a GET
for ``{endpoint}/{repo}/resolve/main/{file}`` (the repository and file name), plus
huggingface_hub's user agent and the HF token when one is configured. ``HF_ENDPOINT``
points it at a mirror (the tests use a fake hub on 127.0.0.1).

huggingface_hub's public API does the HTTP: ``hf_hub_url`` and ``get_hf_file_metadata``
(size, commit, sha256 from the ``x-linked-etag`` of LFS files), then ``http_stream_backoff``
(its client and retries) with ``hf_raise_for_status`` (its typed errors) for the GET. Only
the loop that appends to the partial file and resumes it with a Range request is ours:
``hf_hub_download`` (2.4) downloads to a per-process temporary file and deletes it on any
failure, so a pull cut by Ctrl-C or a lost connection would start again from zero; here
the partial file (``models/.FILE.part``) survives and the next pull resumes it. The sha256
is checked before the file gets its real name; a mismatch removes it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

from localcrag.errors import LocalcragError
from localcrag.llm.catalogue import CatalogueEntry, parse_spec

DEFAULT_ENDPOINT = "https://huggingface.co"
DISK_MARGIN = 50_000_000  # keep this much free after the download
CHUNK = 1 << 20  # bytes written (and reported) at a time; a drop resumes from the last whole one
RESUMES = 5  # a dropped connection is resumed this many times in a row without progress
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class PullError(LocalcragError):
    """A pull that cannot start or did not end with a verified file."""


class PullCancelled(PullError):
    """Stopped on request; the partial file is kept for the next pull."""


@dataclass(frozen=True)
class PullProgress:
    done: int
    total: int | None
    stage: str  # "download" or "verify"


@dataclass(frozen=True)
class PullPlan:
    """What the hub said about the file, before a byte of it is fetched."""

    repo: str
    filename: str
    url: str
    commit: str
    size: int | None
    sha256: str | None  # None for a non-LFS file (the hub gives a git blob id then)
    dest: Path
    entry: CatalogueEntry | None

    @property
    def part(self) -> Path:
        return self.dest.with_name(f".{self.dest.name}.part")


def hub_endpoint() -> str:
    """The hub base URL: ``HF_ENDPOINT`` read now (not at import), else huggingface.co."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


@contextmanager
def hub_allowed() -> Iterator[None]:
    """Let huggingface_hub reach the network for this one call.

    localcrag (and the Makefile) set ``HF_HUB_OFFLINE=1`` so no library ever fetches
    anything implicitly; huggingface_hub reads that once at import into
    ``constants.HF_HUB_OFFLINE`` and checks it on every request. A pull is the one
    explicit exception, so the flag is lifted here and put back afterwards. Telemetry is
    forced off for the call: with it on, huggingface_hub 2.x adds the torch version to the
    user agent and first GETs ``/api/agent-harnesses`` from the hub (seen on the fake hub).
    """
    from huggingface_hub import constants

    before = constants.HF_HUB_OFFLINE, constants.HF_HUB_DISABLE_TELEMETRY
    constants.HF_HUB_OFFLINE, constants.HF_HUB_DISABLE_TELEMETRY = False, True
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE, constants.HF_HUB_DISABLE_TELEMETRY = before


def free_bytes(folder: Path) -> int:
    """Free space on the disk holding ``folder`` (its nearest existing parent)."""
    path = Path(folder)
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free


def total_ram_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _gb(n: float) -> str:
    return f"{n / 1e9:.2f} GB"


def check_online(offline: bool, probe: Callable[[str], bool], endpoint: str) -> None:
    """One line when the pull cannot even start: offline setting, or the hub's host does
    not resolve (the same DNS probe the web search uses)."""
    host = urlsplit(endpoint).hostname or endpoint
    if offline:
        raise PullError(
            "offline: not pulling (the offline setting or --offline is on)",
            "turn offline off to download a model",
        )
    if not probe(host):
        raise PullError(
            f"offline: cannot resolve {host}, so nothing can be downloaded",
            "connect to the network and pull again",
        )


def plan_pull(
    spec: str, models_dir: Path, *, offline: bool, probe: Callable[[str], bool]
) -> PullPlan:
    """Resolve ``spec`` and ask the hub (one HEAD) for the file's size and checksum."""
    repo, filename, entry = parse_spec(spec)
    endpoint = hub_endpoint()
    check_online(offline, probe, endpoint)
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(repo, filename, endpoint=endpoint)
    with hub_allowed(), _hub_errors(f"{repo}/{filename}", endpoint):
        meta = get_hf_file_metadata(url, timeout=15)
    if not meta.commit_hash or not meta.etag:
        raise PullError(
            f"{endpoint} did not answer like a Hugging Face hub for {repo}/{filename} "
            "(no x-repo-commit or etag header)",
            "check HF_ENDPOINT",
        )
    etag = meta.etag.lower()
    dest = Path(models_dir) / Path(filename).name
    return PullPlan(
        repo,
        filename,
        meta.location or url,
        meta.commit_hash,
        meta.size,
        etag if _SHA256.match(etag) else None,
        dest,
        entry,
    )


@contextmanager
def _hub_errors(what: str, endpoint: str) -> Iterator[None]:
    """huggingface_hub / httpx exceptions as one line naming the file and the URL."""
    import httpx2
    from huggingface_hub.errors import (
        HfHubHTTPError,
        OfflineModeIsEnabled,
        RemoteEntryNotFoundError,
        RepositoryNotFoundError,
    )

    try:
        yield
    except RepositoryNotFoundError:
        raise PullError(
            f"{what}: no such repository on {endpoint} (or it is private or gated)",
            "check the name; gated models need `hf auth login` first",
        ) from None
    except RemoteEntryNotFoundError:
        raise PullError(
            f"{what}: no such file in that repository on {endpoint}",
            "check the file name on the repository's page",
        ) from None
    except HfHubHTTPError as exc:
        status = exc.response.status_code
        if status == 404:
            raise PullError(
                f"{what}: not found on {endpoint} (HTTP 404)",
                "check the repository and file name (`localcrag models` lists the catalogue)",
            ) from None
        if status in (401, 403):
            raise PullError(
                f"{what}: access denied by {endpoint} (HTTP {status}; a gated or private model)",
                "accept its licence on its page and `hf auth login`",
            ) from None
        later = status == 429 or status >= 500
        raise PullError(
            f"{what}: the hub answered {status} ({endpoint})",
            "try again later" if later else "check the name and HF_ENDPOINT",
        ) from None
    except (
        httpx2.ConnectError,
        httpx2.TimeoutException,
        httpx2.RemoteProtocolError,
        OfflineModeIsEnabled,
    ) as exc:
        raise PullError(
            f"{what}: cannot reach {endpoint} ({type(exc).__name__})",
            "check the connection (and HF_ENDPOINT) and pull again; a partial download is resumed",
        ) from None
    except OSError as exc:  # disk full while writing, or a size that did not match
        import errno

        if exc.errno == errno.ENOSPC:
            raise PullError(
                f"{what}: the disk filled up while downloading; the partial file is kept",
                "free some space and pull again to resume",
            ) from None
        raise PullError(
            f"{what}: download failed: {' '.join(str(exc).split())[:200]}", "pull again"
        ) from None


def check_disk(plan: PullPlan) -> None:
    """Refuse before downloading when the rest of the file would not fit."""
    if plan.size is None:
        return
    have = plan.part.stat().st_size if plan.part.is_file() else 0
    need = max(0, plan.size - have) + DISK_MARGIN
    free = free_bytes(plan.dest.parent)
    if free < need:
        raise PullError(
            f"not enough disk space in {plan.dest.parent}: {plan.dest.name} needs "
            f"{_gb(need)} more, {_gb(free)} free",
            "free some space and pull again",
        )


def ram_warning(plan: PullPlan) -> str | None:
    """A warning (never a refusal) when the model will likely not fit in RAM."""
    if plan.entry is not None:
        need = plan.entry.ram_gb * 1e9
    elif plan.size is not None:
        need = plan.size * 1.15 + 2e8  # weights + KV cache at n_ctx 2048 + buffers
    else:
        return None
    total = total_ram_bytes()
    if total is None or total >= need:
        return None
    return (
        f"warning: {plan.dest.name} needs about {_gb(need)} of RAM and this machine has "
        f"{_gb(total)}: it may be very slow or fail to load"
    )


def sha256_of(path: Path, on_progress: Callable[[PullProgress], None] | None = None) -> str:
    h, done, total = hashlib.sha256(), 0, path.stat().st_size
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            h.update(block)
            done += len(block)
            if on_progress:
                on_progress(PullProgress(done, total, "verify"))
    return h.hexdigest()


@contextmanager
def _quiet_hub_log() -> Iterator[None]:
    """huggingface_hub logs a multi-line warning on each retry; the pull reports in one line."""
    import logging

    log = logging.getLogger("huggingface_hub")
    before = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(before)


def _fetch(
    plan: PullPlan,
    fh: BinaryIO,
    headers: dict[str, str],
    on_progress: Callable[[PullProgress], None],
    cancel: threading.Event | None,
) -> None:
    """Append the rest of the file to ``fh`` (opened for append on ``plan.part``): a GET with
    ``Range: bytes=N-`` from what the part file holds, again from where it stopped when the
    connection drops (up to ``RESUMES`` times in a row without a byte), by huggingface_hub's
    ``http_stream_backoff`` (its client, its retries on 408/429) and ``hf_raise_for_status``
    (its typed errors, turned into one line by ``_hub_errors``)."""
    import httpx2
    from huggingface_hub import constants
    from huggingface_hub.utils import hf_raise_for_status, http_stream_backoff

    have, stalls = fh.tell(), 0
    while plan.size is None or have < plan.size:
        ranged = {**headers, "Range": f"bytes={have}-"} if have else headers
        before = have
        try:
            with http_stream_backoff(
                "GET",
                plan.url,
                headers=ranged,
                timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT,
                retry_on_exceptions=(),
                retry_on_status_codes=(408, 429),
            ) as resp:
                hf_raise_for_status(resp)
                if have and resp.status_code == 200:  # the server ignored the Range: anew
                    fh.seek(0)
                    fh.truncate()
                    have = before = 0
                on_progress(PullProgress(have, plan.size, "download"))
                for chunk in resp.iter_bytes(CHUNK):
                    if cancel is not None and cancel.is_set():
                        raise PullCancelled(
                            "pull cancelled; the partial file is kept", "pull again to resume"
                        )
                    fh.write(chunk)
                    have += len(chunk)
                    on_progress(PullProgress(have, plan.size, "download"))
            break
        except (httpx2.ConnectError, httpx2.TimeoutException, httpx2.RemoteProtocolError):
            fh.flush()
            stalls = 0 if have > before else stalls + 1
            if stalls > RESUMES:
                raise
    if plan.size is not None and have != plan.size:
        raise OSError(f"got {have} bytes where the hub announced {plan.size}")


def download(
    plan: PullPlan,
    on_progress: Callable[[PullProgress], None] = lambda p: None,
    cancel: threading.Event | None = None,
) -> str:
    """Fetch (or resume) the file, verify it, give it its name. Returns how it was checked."""
    from huggingface_hub.utils import build_hf_headers

    endpoint = hub_endpoint()
    plan.dest.parent.mkdir(parents=True, exist_ok=True)
    part = plan.part
    if plan.size is not None and part.is_file() and part.stat().st_size > plan.size:
        part.unlink()  # not a prefix of this file
    same_host = urlsplit(plan.url).hostname == urlsplit(endpoint).hostname
    headers = build_hf_headers() if same_host else {}  # no token to a CDN
    with (
        hub_allowed(),
        _hub_errors(f"{plan.repo}/{plan.filename}", endpoint),
        _quiet_hub_log(),
        open(part, "ab") as fh,
    ):
        _fetch(plan, fh, headers, on_progress, cancel)
    if plan.sha256 is None:
        how = "size checked (the hub gives no sha256 for files outside LFS)"
    else:
        got = sha256_of(part, on_progress)
        if got != plan.sha256:
            part.unlink(missing_ok=True)
            raise PullError(
                f"checksum mismatch for {plan.dest.name}: sha256 {got[:12]}..., the hub "
                f"says {plan.sha256[:12]}...; the partial file was removed",
                "run the same pull again",
            )
        how = f"sha256 {plan.sha256[:12]}... verified"
    os.replace(part, plan.dest)
    return how
