"""Shared fixtures: an isolated LOCALCRAG_HOME for every test, the shared data, real models."""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path

import pytest

from tests.support import CLOSED_PROXY, MODELS, SHARED

# fixtures used in more than one folder, defined beside what they fake
pytest_plugins = ["tests.support.fixtures", "tests.support.fakehub", "tests.support.modelserver"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Tests never touch a user's real config, index or history."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("LOCALCRAG_HOME", str(home))
    # the default library; a test that picks another in-process (--library) is undone after
    monkeypatch.setenv("LOCALCRAG_LIBRARY", "")
    return home


class NetworkBlocked(OSError):
    """A test tried to reach a non-loopback address (raised, and the test then fails)."""


def _loopback(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if host is None or host in ("localhost", "ip6-localhost", ""):
        return True  # None/"" : the local host, as getaddrinfo treats them
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch):
    """No test reaches the internet, even by accident on a networked machine: DNS lookups
    and connections to anything but loopback raise NetworkBlocked *and* fail the test at
    teardown (code under test may catch the error: the failure stays loud). ddgs talks
    through Rust, not Python sockets, so it (and any HTTP client honouring the proxy
    variables, in subprocesses too) is sent to a closed loopback proxy."""
    attempts: list[str] = []
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def blocked(what: str) -> NetworkBlocked:
        attempts.append(what)
        return NetworkBlocked(f"network access blocked in tests: {what}")

    def getaddrinfo(host, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if not _loopback(host):
            raise blocked(f"DNS lookup of {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    def check(sock: socket.socket, address: object) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
            raise blocked(f"connection to {address!r}")

    def connect(self, address):  # noqa: ANN001, ANN202
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self, address):  # noqa: ANN001, ANN202
        check(self, address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    for var in (
        "DDGS_PROXY",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
    ):
        monkeypatch.setenv(var, CLOSED_PROXY)
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1,::1")
    monkeypatch.setenv("no_proxy", "localhost,127.0.0.1,::1")
    yield attempts  # a test that provokes an attempt on purpose checks and clears this list
    if attempts:
        pytest.fail(f"the test tried to reach the network: {'; '.join(dict.fromkeys(attempts))}")


@pytest.fixture()
def no_name_lookups(monkeypatch: pytest.MonkeyPatch, no_network: list[str]) -> list[str]:
    """Stricter than ``no_network``: any name lookup at all, ``localhost`` included, is
    recorded and fails the test (at teardown, through ``no_network``); only IP literals
    pass, as getaddrinfo answers those without asking a resolver. For code that must
    resolve nothing (offline)."""
    inner = socket.getaddrinfo  # no_network's guard

    def literal(host: object) -> bool:
        if host is None:
            return True  # getaddrinfo(None, port): the wildcard address, no lookup
        text = host.decode(errors="replace") if isinstance(host, bytes) else str(host)
        try:
            ipaddress.ip_address(text.split("%")[0])
            return True
        except ValueError:
            return False

    def getaddrinfo(host, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if not literal(host):
            no_network.append(f"name lookup of {host!r}")
            raise NetworkBlocked(f"name lookup blocked in this test: {host!r}")
        return inner(host, *args, **kwargs)

    def by_name(name: str):  # noqa: ANN202
        def lookup(host, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            no_network.append(f"{name} of {host!r}")
            raise NetworkBlocked(f"name lookup blocked in this test: {name}({host!r})")

        return lookup

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for name in ("gethostbyname", "gethostbyname_ex", "gethostbyaddr"):
        monkeypatch.setattr(socket, name, by_name(name))
    return no_network


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared test data not found at {SHARED}")
    return SHARED


@pytest.fixture(scope="session")
def ai_pdf(shared_data: Path) -> Path:
    return shared_data / "ai-information" / "AI_Information.pdf"


@pytest.fixture(scope="session")
def real_embedder():
    from localcrag.models.embed import load_embedder

    path = MODELS / "all-MiniLM-L6-v2"
    if not path.exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    return load_embedder(path)


@pytest.fixture(scope="session")
def smollm():
    from localcrag.llm.gguf import load_llm

    path = MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    return load_llm(path, n_ctx=2048)
