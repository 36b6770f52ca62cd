"""Offline is offline: with the offline setting on, an S3 index and a model server on
another machine configured, every command either works from this machine or says in one
line which setting needs the network and how to fix it; no command opens a socket,
resolves a name or hands LanceDB a remote URI (its Rust code would do both, out of
Python's sight)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from localcrag.cli.main import main
from localcrag.settings import Settings

S3 = "s3://team-bucket/localcrag"
SERVER = "http://gpu-box.example:8080/v1"


@pytest.fixture()
def sealed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way out of the process raises (loopback too), and LanceDB refuses remote URIs."""
    attempts: list[str] = []

    def refuse(what: str):  # noqa: ANN202
        def blocked(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            attempts.append(f"{what}{args[1:2] if what.startswith('socket.') else args[:1]}")
            raise OSError(f"offline test: {what} called")

        return blocked

    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "create_connection"):
        monkeypatch.setattr(socket, name, refuse(name))
    for name in ("connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, name, refuse(f"socket.{name}"))
    import lancedb

    real = lancedb.connect

    def connect(uri, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if "://" in str(uri) and not str(uri).startswith("file://"):
            attempts.append(f"lancedb.connect({uri})")
            raise OSError("offline test: LanceDB asked to open a remote index")
        return real(uri, *args, **kwargs)

    monkeypatch.setattr(lancedb, "connect", connect)
    return attempts


@pytest.fixture()
def configured(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    (isolated_home / "config.toml").write_text(
        f'offline = true\nindex_uri = "{S3}"\nllm_endpoint = "{SERVER}"\n'
        'index_storage_options = {region = "eu-west-1"}\n',
        encoding="utf-8",
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "robots.md").write_text("# Robots\n\nCobots work next to people in factories.\n")
    (tmp_path / "questions.jsonl").write_text(
        json.dumps({"question": "Where do cobots work?", "answer": "next to people"}) + "\n"
    )
    return tmp_path


# (argv, exit status, words the one line must hold); {d}: the folder of the fixture above
COMMANDS = [
    (["ingest", "{d}/docs"], 1, ("index_uri", "offline")),
    (["reindex"], 1, ("index_uri", "offline")),
    (["remove", "{d}/docs/robots.md"], 1, ("index_uri", "offline")),
    (["sources"], 1, ("index_uri", "offline")),
    (["search", "cobots"], 1, ("index_uri", "offline")),
    (["ask", "Where do cobots work?"], 1, ("llm_endpoint", "offline")),
    (["ask", "Where do cobots work?", "--offline", "--json"], 1, ("llm_endpoint", "offline")),
    (
        ["ask", "Where do cobots work?", "--offline", "--json", "--style", "extractive"],
        1,
        ("offline",),
    ),
    (["doctor"], 1, ("index_uri", "offline")),
    (["doctor", "--repair"], 1, ("index_uri", "offline")),
    (["watch", "{d}/docs"], 1, ("index_uri", "offline")),
    (["eval", "{d}", "--only", "answers", "--limit", "1"], 1, ("llm_endpoint", "offline")),
    (["models", "pull", "qwen2.5-0.5b"], 1, ("offline",)),
    (["models"], 0, ()),
    (["config"], 0, ()),
    (["libraries"], 0, ()),
]


def test_the_commands_cover_the_cli() -> None:
    from localcrag.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) == {argv[0] for argv, _, _ in COMMANDS}


@pytest.mark.parametrize("argv, status, words", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_every_command_offline_opens_no_socket(
    argv: list[str],
    status: int,
    words: tuple[str, ...],
    configured: Path,
    sealed: list[str],
    capsys: pytest.CaptureFixture,
) -> None:
    assert main([a.format(d=configured) for a in argv]) == status
    out = capsys.readouterr()
    assert sealed == [], sealed
    assert "Traceback" not in out.err
    if status:
        lines = [line for line in out.err.splitlines() if line.strip()]
        assert len(lines) == 1, out.err
        assert all(w in lines[0] for w in words), lines[0]


def test_the_refusal_names_the_fix(
    configured: Path, sealed: list[str], capsys: pytest.CaptureFixture
) -> None:
    assert main(["sources"]) == 1
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"localcrag: offline: index_uri = {S3} is on object storage")
    assert "unset index_uri" in line and "turn offline off" in line


# --- a model server on this machine, named without a resolver ---------------------------


@pytest.fixture()
def hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A hosts file of the test's own (offline reads it instead of asking a resolver)."""
    from localcrag.llm import endpoint

    path = tmp_path / "hosts"
    path.write_text(
        "# comment\n127.0.0.1\tlocalhost\n::1 localhost ip6-localhost\n"
        "127.0.0.1 gpu.localhost gpu  # the model server\n127.0.1.1 box.localhost\n"
        "10.0.0.5 far.localhost\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(endpoint, "HOSTS_FILE", path, raising=False)
    return path


def test_loopback_addresses_come_from_literals_and_the_hosts_file(hosts: Path) -> None:
    from localcrag.llm.endpoint import loopback_address

    assert loopback_address("127.3.2.1") == "127.3.2.1" and loopback_address("::1") == "::1"
    assert loopback_address("localhost") == "127.0.0.1"
    assert loopback_address("GPU.localhost.") == "127.0.0.1"
    assert loopback_address("box.localhost") == "127.0.1.1"
    assert loopback_address("far.localhost") is None  # mapped, but not to this machine
    assert loopback_address("other.localhost") is None  # unmapped: only a resolver knows it
    assert loopback_address("10.0.0.5") is None and loopback_address("gpu") is None
    hosts.write_text("", encoding="utf-8")
    assert loopback_address("localhost") == "127.0.0.1"  # RFC 6761: always this machine


@pytest.mark.parametrize(
    "url, address, host",
    [
        ("http://gpu.localhost:8080/v1", "127.0.0.1", "gpu.localhost:8080"),
        ("http://[::1]:8080/v1", "::1", "[::1]:8080"),
        ("https://localhost/v1", "127.0.0.1", "localhost"),
    ],
)
def test_the_client_is_given_the_address_and_keeps_the_name(
    hosts: Path, url: str, address: str, host: str
) -> None:
    from localcrag.llm.failover import endpoint_generator

    llm = endpoint_generator(Settings(llm_endpoint=url, offline=True), lambda: None).endpoint
    client = llm._http()
    assert client.base_url.host == address and client.headers["Host"] == host
    assert llm._tls_name == {"sni_hostname": host.rsplit(":", 1)[0].strip("[]")}
    online = endpoint_generator(Settings(llm_endpoint=url), lambda: None).endpoint
    assert online.connect_to is None  # online, the system resolver may be asked


@pytest.fixture()
def offline_server(
    fake,  # noqa: ANN001 (tests/test_endpoint.py's scripted server on 127.0.0.1)
    hosts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple:
    """An index (fake embedder) and a local model that must not be needed."""
    from localcrag.ingest import library
    from localcrag.llm import gguf
    from tests.support.fakes import FakeEmbedder

    monkeypatch.setattr(library, "load_embedder", lambda *a, **k: FakeEmbedder())
    monkeypatch.setattr(gguf, "load_llm", lambda *a, **k: pytest.fail("the local model loaded"))
    (tmp_path / "robots.md").write_text("# Robots\n\nCobots work next to people.\n")
    assert main(["ingest", str(tmp_path / "robots.md")]) == 0
    script, url = fake
    script.plan["/v1/chat/completions"] = [(200, ["Cobots work next to people [1]."])]
    return script, int(url.rsplit(":", 1)[1].split("/")[0])


@pytest.mark.parametrize("host", ["gpu.localhost", "localhost"])
def test_offline_ask_connects_to_the_address_and_resolves_no_name(
    host: str,
    offline_server: tuple,
    no_name_lookups: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    """`gpu.localhost` (mapped in the hosts file) and `localhost` are reached by address: getaddrinfo sees only IP literals, and the server
    still gets its name in the Host header."""
    script, port = offline_server
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", f"http://{host}:{port}/v1")
    argv = ["ask", "Where do cobots work?", "--offline", "--mode", "rag", "--style", "generative"]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert no_name_lookups == [], no_name_lookups
    assert "warning" not in out.err, out.err  # the server answered: no fallback
    assert {seen[1]["Host"] for seen in script.seen} == {f"{host}:{port}"}
    assert [seen[0] for seen in script.seen] == ["/v1/models", "/v1/chat/completions"]


@pytest.mark.parametrize("host", ["other.localhost", "far.localhost"])
def test_offline_refuses_a_name_the_hosts_file_does_not_map_here(
    host: str,
    hosts: Path,
    no_name_lookups: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", f"http://{host}:8080/v1")
    assert main(["ask", "Where do cobots work?", "--offline"]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in lines[0]
    assert f"llm_endpoint = http://{host}:8080/v1" in lines[0] and str(hosts) in lines[0]
    assert "point llm_endpoint at 127.0.0.1" in lines[0]
    assert no_name_lookups == []


def test_offline_web_search_looks_up_no_name(no_name_lookups: list[str]) -> None:
    """The web step offline: skipped before its DNS probe (is_online), which would resolve."""
    from localcrag.crag import web

    web.clear_online_cache()
    out = web.search_web(
        lambda: "cobots", searcher=None, offline=True, policy="always", confirm=lambda q: True
    )
    assert out.skipped == web.SKIP_OFFLINE and no_name_lookups == []
