"""The autouse guard in conftest.py: no test can reach the internet, even when the code
under test swallows the error."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support import CLOSED_PROXY, REPO


def test_dns_and_connections_to_the_internet_are_blocked(no_network: list[str]) -> None:
    blocked = "network access blocked in tests"  # NetworkBlocked (conftest loads twice: by text)
    with pytest.raises(OSError, match=blocked):
        socket.getaddrinfo("duckduckgo.com", 443)
    with pytest.raises(OSError, match=blocked), socket.socket() as s:
        s.connect(("93.184.216.34", 80))
    with pytest.raises(OSError, match=blocked), socket.socket(socket.AF_INET6) as s:
        s.connect_ex(("2001:db8::1", 80))
    assert len(no_network) == 3 and "duckduckgo.com" in no_network[0]
    no_network.clear()  # provoked on purpose: do not fail this test at teardown


def test_loopback_still_works(no_network: list[str]) -> None:
    assert socket.getaddrinfo("localhost", 80)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=2):
            pass
    assert no_network == []
    assert os.environ["DDGS_PROXY"] == CLOSED_PROXY  # ddgs (Rust HTTP) goes nowhere either


def test_a_swallowed_attempt_still_fails_the_test(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text("from tests.conftest import *  # noqa: F401,F403\n")
    (tmp_path / "test_inner.py").write_text(
        textwrap.dedent("""
        from localcrag.crag import web

        def test_probe_swallows_the_error():
            web.clear_online_cache()
            assert web.is_online("example.org") is False  # is_online catches every error
    """)
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(tmp_path / "test_inner.py"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert out.returncode != 0, out.stdout
    assert "the test tried to reach the network: DNS lookup of 'example.org'" in out.stdout


def test_the_offline_guard_fails_on_any_name_lookup(no_name_lookups: list[str]) -> None:
    assert socket.getaddrinfo("127.0.0.1", 80) and socket.getaddrinfo("::1", 80)
    assert no_name_lookups == []
    for name in ("localhost", "gpu.localhost"):
        with pytest.raises(OSError, match="name lookup blocked"):
            socket.getaddrinfo(name, 80)
    with pytest.raises(OSError, match="name lookup blocked"):
        socket.gethostbyname("localhost")
    assert len(no_name_lookups) == 3 and "'gpu.localhost'" in no_name_lookups[1]
    no_name_lookups.clear()  # provoked on purpose: do not fail this test at teardown
