"""A shared index on object storage, against moto's S3 server on 127.0.0.1.

The server is started once per session with fake credentials; AWS_ENDPOINT_URL and the
storage options both point at it, and the suite's closed proxy covers anything else, so no
request can reach AWS. Each test uses its own prefix of one bucket.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from localcrag.crag.pipeline import Pipeline
from localcrag.events import AnswerDone
from localcrag.ingest.library import Library
from localcrag.ingest.maintain import duplicates
from localcrag.settings import Settings
from tests.support import REPO
from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader

BUCKET = "localcrag-team"
ROBOTS = "Cobots are collaborative robots. They work next to people in factories.\n"
REQUESTS: list[tuple[str, str, str | None]] = []  # (method, path, If-None-Match) the server saw
PETS = "The office cat is called Miso. She sleeps on the printer all afternoon.\n"


@pytest.fixture(scope="session")
def s3_server():
    """moto in server mode on a free loopback port (bench/shared.py); yields its endpoint URL."""
    pytest.importorskip("moto.server", reason="moto[server] is in the dev extra")
    from bench.shared import moto_s3

    with moto_s3(BUCKET, REQUESTS) as endpoint:
        yield endpoint


@pytest.fixture()
def shared(s3_server: str) -> dict[str, str]:
    """LOCALCRAG_* variables naming a fresh prefix: what a team member exports."""
    return {
        "LOCALCRAG_INDEX_URI": f"s3://{BUCKET}/{uuid.uuid4().hex[:10]}",
        "LOCALCRAG_INDEX_STORAGE_OPTIONS": f'{{endpoint = "{s3_server}", allow_http = true, region = "us-east-1"}}',
        "LOCALCRAG_INDEX_REFRESH_SECONDS": "0",
    }


def _lib(shared: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Library:
    for k, v in shared.items():
        monkeypatch.setenv(k, v)
    return Library(Settings.load(), embedder=FakeEmbedder())


def _keys(endpoint: str, prefix: str) -> list[str]:
    import boto3

    c = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    return [o["Key"] for o in c.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])]


def test_ingest_search_and_ask_from_the_bucket(
    shared, monkeypatch, tmp_path, s3_server, isolated_home
) -> None:
    (tmp_path / "robots.md").write_text(ROBOTS, encoding="utf-8")
    (tmp_path / "pets.md").write_text(PETS, encoding="utf-8")
    lib = _lib(shared, monkeypatch)
    report = lib.ingest([tmp_path])
    assert len(report.indexed) == 2 and report.chunks == lib.count() > 0
    prefix = shared["LOCALCRAG_INDEX_URI"].split(f"{BUCKET}/")[1]
    keys = _keys(s3_server, prefix)
    assert any(f"{lib.store.name}.lance/_versions/" in k for k in keys)
    assert not (isolated_home / "index").exists()  # nothing of the index on this machine
    key = lib.store.table.schema.field("chunk_id")
    assert key.nullable is False and b"lance-schema:unenforced-primary-key:position" in key.metadata
    assert lib.change_stamp().startswith("v")  # the table version: no stamp file on S3
    hits = lib.store.search("Where does the cat sleep?", lib.embedder.embed(["cat sleeps"])[0], 1)
    assert hits and hits[0].chunk.source.endswith("pets.md")
    fixed = {"upper_threshold": 0.6, "lower_threshold": 0.35, "strip_threshold": 0.35}
    pipe = Pipeline(
        Settings(offline=True, **fixed),
        library=lib,
        grader=FakeGrader(),
        generator=FakeGenerator("Miso sleeps on the printer [1]."),
    )
    done = [
        e for e in pipe.run("Where does the office cat Miso sleep?") if isinstance(e, AnswerDone)
    ][-1]
    assert "printer" in done.answer.text and done.evidence[0].chunk_id  # cited from the bucket
    assert lib.get_chunk(done.evidence[0].chunk_id).source.endswith("pets.md")
    assert lib.remove(tmp_path / "robots.md") > 0 and [s.source for s in lib.sources()] == [
        str(tmp_path / "pets.md")
    ]


def test_credentials_never_come_from_the_settings_file(isolated_home: Path) -> None:
    from localcrag.errors import LocalcragError

    (isolated_home / "config.toml").write_text(
        'index_uri = "s3://b/p"\n[index_storage_options]\naws_secret_access_key = "x"\n',
        encoding="utf-8",
    )
    with pytest.raises(LocalcragError, match="credential: set it in the environment"):
        Settings.load()
    with pytest.raises(ValueError, match="unsupported scheme"):
        Settings(index_uri="http://example/x")


_READER = """
import sys, time
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder
lib = Library(Settings.load(), embedder=FakeEmbedder())
q = lib.embedder.embed(["office cat Miso"])[0]
for i in range(600):
    hits = lib.store.search("Miso", q, 3, mode="text")
    print("READY" if i == 0 else "", flush=True)
    if any(h.chunk.source.endswith("pets.md") for h in hits):
        print(f"SEEN after {i} searches", flush=True)
        sys.exit(0)
    time.sleep(0.05)
sys.exit(3)
"""


def _env(shared: dict[str, str]) -> dict[str, str]:
    return {**os.environ, **shared, "PYTHONPATH": str(REPO)}


def test_a_running_reader_sees_another_writers_document(shared, monkeypatch, tmp_path) -> None:
    (tmp_path / "robots.md").write_text(ROBOTS, encoding="utf-8")
    (tmp_path / "pets.md").write_text(PETS, encoding="utf-8")
    writer = _lib(shared, monkeypatch)
    writer.ingest([tmp_path / "robots.md"])
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER],
        stdout=subprocess.PIPE,
        text=True,
        env=_env(shared),
        cwd=REPO,
    )
    try:
        assert reader.stdout.readline().strip() == "READY"  # searched once: no cat yet
        writer.ingest([tmp_path / "pets.md"])
        out, _ = reader.communicate(timeout=60)
    finally:
        reader.kill()
    assert reader.returncode == 0 and "SEEN after" in out, out


_KILLED_WRITER = """
import os, signal, sys, threading
from localcrag.ingest import store
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder
original, calls = store.LanceStore.replace_files, [0]
def replace_files(self, *args, **kwargs):
    calls[0] += 1
    if calls[0] == 2:  # the kill lands before, inside or just after the 2nd commit
        threading.Timer(0.001, os.kill, (os.getpid(), signal.SIGKILL)).start()
    return original(self, *args, **kwargs)
store.LanceStore.replace_files = replace_files
Library(Settings.load(), embedder=FakeEmbedder()).ingest([sys.argv[1]])
"""


def test_a_killed_writer_leaves_a_table_the_next_ingest_completes(
    shared, monkeypatch, tmp_path
) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(300):
        (folder / f"doc{i:03d}.txt").write_text(
            f"Note {i}. The quick brown fox jumps.", encoding="utf-8"
        )
    proc = subprocess.run(
        [sys.executable, "-c", _KILLED_WRITER, str(folder)],
        capture_output=True,
        text=True,
        env=_env(shared),
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    lib = _lib(shared, monkeypatch)
    n = lib.count()
    assert n in (128, 256), n  # whole commits only: the first, maybe the second
    assert all(s.chunks == 1 for s in lib.sources())
    report = lib.ingest([folder])
    assert report.chunks == 300 and len(report.unchanged) == n and len(report.indexed) == 300 - n
    assert duplicates(lib.store) == (0, [])


def test_two_writers_of_the_same_documents_leave_one_copy(shared, monkeypatch, tmp_path) -> None:
    """No lock across machines: Lance's conditional-put commit and the chunk_id primary key
    make the second writer's insert of the same chunks a conflict, retried on the new version."""
    for i in range(40):
        (tmp_path / f"d{i:02d}.txt").write_text(
            f"Shared note {i} about robots and cats.", encoding="utf-8"
        )
    libs = [_lib(shared, monkeypatch) for _ in range(3)]
    _ = libs[0].store.table  # the table exists before the race (its creation is not what is tested)
    start, errors = threading.Barrier(len(libs)), []

    def ingest(lib: Library) -> None:
        start.wait()
        try:
            lib.ingest([tmp_path])
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ingest, args=(lib,)) for lib in libs]
    [t.start() for t in threads]
    [t.join(120) for t in threads]
    assert not errors, errors
    check = _lib(shared, monkeypatch)
    assert check.count() == 40 and duplicates(check.store) == (0, [])


def test_every_table_version_is_committed_with_put_if_not_exists(
    shared, monkeypatch, tmp_path
) -> None:
    """What running without a lock across machines rests on: Lance writes each version's
    manifest with ``If-None-Match: *``, so of two writers of version N only one succeeds (the
    other gets 412, rebases or retries). Fails loudly if a LanceDB upgrade changes that."""
    (tmp_path / "robots.md").write_text(ROBOTS, encoding="utf-8")
    REQUESTS.clear()
    _lib(shared, monkeypatch).ingest([tmp_path])
    manifests = [
        (p, h)
        for m, p, h in REQUESTS
        if m == "PUT" and "/_versions/" in p and p.endswith(".manifest")
    ]
    assert len(manifests) >= 2 and all(h == "*" for _, h in manifests), manifests


@pytest.mark.slow
def test_the_cli_ingests_and_answers_from_the_bucket(shared, tmp_path) -> None:
    """The team set-up as a user runs it: only LOCALCRAG_INDEX_* and AWS_* variables, the real
    models, two machines (two data dirs) sharing one index."""
    if not (REPO / "models" / "all-MiniLM-L6-v2").exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    import json

    doc = tmp_path / "robots.md"
    doc.write_text("# Cobots\n\n" + ROBOTS * 3, encoding="utf-8")

    def cli(home: str, *args: str) -> dict:
        out = subprocess.run(
            [sys.executable, "-m", "localcrag", *args, "--json"],
            capture_output=True,
            text=True,
            env={**_env(shared), "LOCALCRAG_HOME": str(tmp_path / home)},
            cwd=REPO,
            timeout=300,
        )
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
        return json.loads(out.stdout)

    assert cli("laptop-a", "ingest", str(doc))["indexed"] == [str(doc)]
    answer = cli("laptop-b", "ask", "What are cobots?")  # no terminal: no web search either
    assert answer["evidence"] and answer["evidence"][0]["source"] == str(doc)
    assert not (tmp_path / "laptop-b" / "index").exists()
    offline = subprocess.run(
        [sys.executable, "-m", "localcrag", "ask", "What are cobots?", "--offline"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        env={**_env(shared), "LOCALCRAG_HOME": str(tmp_path / "laptop-b")},
    )
    assert (
        offline.returncode == 1 and "offline: index_uri = s3://" in offline.stderr
    )  # the bucket is the network


def test_derived_files_of_a_shared_index_stay_on_this_machine(isolated_home: Path) -> None:
    from localcrag.ingest.location import index_location

    local = index_location(Settings())
    assert not local.remote and local.folder == local.cache_dir == isolated_home / "index"
    shared = index_location(
        Settings(index_uri="s3://team/x", index_storage_options={"allow_http": True})
    )
    assert (
        shared.remote and shared.folder is None and shared.storage_options == {"allow_http": "true"}
    )
    assert shared.cache_dir.parent == isolated_home / "cache" and shared.cache_dir.name.startswith(
        "index-"
    )


def test_an_unreachable_store_is_one_line_naming_the_uri(s3_server, shared, tmp_path) -> None:
    from localcrag.ingest.faults import IndexUnreachable

    s = Settings(
        index_uri="s3://no-such-bucket/x",
        index_storage_options={"endpoint": s3_server, "allow_http": True},
    )
    lib = Library(s, embedder=FakeEmbedder())
    assert lib.change_stamp() == ""  # polled by a running app: never raises
    with pytest.raises(
        IndexUnreachable,
        match=r"^cannot open the shared index s3://no-such-bucket/x: the bucket "
        r"does not exist \(check index_uri",
    ):
        lib.sources()
    with pytest.raises(IndexUnreachable):
        lib.ingest([tmp_path])
    # a store that does not answer (closed port), in a process without AWS_ENDPOINT_URL (LanceDB
    # 0.40 prefers that variable to the endpoint option, docs/shared-index.md)
    closed = {
        **shared,
        "LOCALCRAG_INDEX_STORAGE_OPTIONS": '{endpoint = "http://127.0.0.1:9", allow_http = true, '
        'connect_timeout = "1s", client_max_retries = 0}',
    }
    env = {k: v for k, v in _env(closed).items() if k != "AWS_ENDPOINT_URL"}
    out = subprocess.run(
        [sys.executable, "-m", "localcrag", "sources"],
        capture_output=True,
        text=True,
        env={**env, "LOCALCRAG_HOME": str(tmp_path / "home")},
        cwd=REPO,
        timeout=120,
    )
    uri = shared["LOCALCRAG_INDEX_URI"]
    assert out.returncode == 1 and out.stderr.startswith(
        f"localcrag: cannot open the shared index {uri}: the object store did not answer"
    ), out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_commit_conflicts_are_retried_on_the_new_version_and_nothing_else_is(monkeypatch) -> None:
    from localcrag.ingest import location

    monkeypatch.setattr(location.time, "sleep", lambda s: None)
    calls, reopened = [], []

    def write() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise RuntimeError(
                "lance error: Retryable commit conflict for version 7: another writer committed"
            )
        return "v8"

    assert location.retry_conflicts(write, lambda: reopened.append(1)) == "v8"
    assert len(calls) == 3 and len(reopened) == 2
    calls.clear()
    with pytest.raises(RuntimeError, match="disk"):
        location.retry_conflicts(
            lambda: calls.append(1) or (_ for _ in ()).throw(RuntimeError("disk on fire"))
        )
    assert len(calls) == 1
