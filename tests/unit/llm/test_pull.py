"""`localcrag models pull` against a fake hub on 127.0.0.1 serving the bundled SmolLM2 GGUF.

Every test sets HF_ENDPOINT to the fake hub and asserts it; the autouse network guard in
conftest.py fails any test that tries to reach anything but loopback.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from localcrag.cli.main import main
from localcrag.llm import pull
from tests.support.fakehub import SMOL, SPEC, FakeHub


def _pulled(tmp_path: Path) -> Path:
    return tmp_path / "models" / SMOL.name


def _on_fake_hub(hub: FakeHub) -> None:
    assert os.environ["HF_ENDPOINT"] == hub.url and hub.url.startswith("http://127.0.0.1:")


def test_pull_downloads_verifies_and_lists(hub: FakeHub, tmp_path: Path, capsys) -> None:
    _on_fake_hub(hub)
    assert main(["models", "pull", SPEC]) == 0
    out = capsys.readouterr().out
    dest = _pulled(tmp_path)
    assert dest.read_bytes() == SMOL.read_bytes()
    assert f"sha256 {hub.sha256(SPEC)[:12]}... verified" in out
    assert f"from {hub.url}" in out and "--generator" in out
    assert [m for m, *_ in hub.requests] == ["HEAD", "GET"], hub.requests
    assert not list(dest.parent.glob(".*.part"))
    # the list reads the pulled file's own header
    assert main(["models"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if SMOL.name in x)
    assert "135M" in line and "8192" in line and " yes " in line
    # a second pull finds it and downloads nothing
    assert main(["models", "pull", SPEC]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert len(hub.gets()) == 1


def test_a_cut_connection_is_resumed_with_a_range_request(hub: FakeHub, tmp_path: Path) -> None:
    _on_fake_hub(hub)
    hub.cut_after = 25_000_000
    assert main(["models", "pull", SPEC]) == 0
    gets = hub.gets()
    assert len(gets) == 2 and gets[0][2] is None
    # resumed from the last whole block written before the drop
    assert gets[1][2] == f"bytes={hub.cut_after // pull.CHUNK * pull.CHUNK}-"
    assert _pulled(tmp_path).read_bytes() == SMOL.read_bytes()


def test_a_partial_file_from_an_earlier_run_is_resumed(hub: FakeHub, tmp_path: Path) -> None:
    _on_fake_hub(hub)
    dest = _pulled(tmp_path)
    dest.parent.mkdir(parents=True)
    part = dest.with_name(f".{dest.name}.part")
    part.write_bytes(SMOL.read_bytes()[:5_000_000])  # e.g. Ctrl-C in an earlier pull
    assert main(["models", "pull", SPEC]) == 0
    assert hub.gets()[0][2] == "bytes=5000000-"
    assert dest.read_bytes() == SMOL.read_bytes() and not part.exists()


def test_checksum_mismatch_is_one_line_and_removes_the_file(
    hub: FakeHub, tmp_path: Path, capsys
) -> None:
    _on_fake_hub(hub)
    hub.advertise_sha = "ab" * 32
    assert main(["models", "pull", SPEC]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "checksum mismatch" in err and "partial file was removed" in err
    assert not any(_pulled(tmp_path).parent.iterdir())  # neither the file nor a .part


def test_disk_full_refuses_before_downloading(
    hub: FakeHub, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    _on_fake_hub(hub)
    monkeypatch.setattr(pull, "free_bytes", lambda folder: 10_000_000)
    assert main(["models", "pull", SPEC]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not enough disk space" in err and "10.00 MB" not in err
    assert "0.01 GB free" in err
    assert hub.gets() == []


def test_offline_is_one_line_and_sends_nothing(
    hub: FakeHub, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    _on_fake_hub(hub)
    assert main(["models", "pull", "qwen2.5-1.5b", "--offline"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("localcrag: offline: not pulling")
    monkeypatch.setattr("localcrag.crag.web.is_online", lambda host, timeout=1.5: False)
    assert main(["models", "pull", SPEC]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "offline: cannot resolve 127.0.0.1" in err
    assert "pull again" in err and "command" not in err  # the Models screen (F3) shows it too
    assert hub.requests == []


def test_unknown_file_and_repo_and_name(hub: FakeHub, capsys) -> None:
    _on_fake_hub(hub)
    assert main(["models", "pull", SPEC.replace("Q4_1", "Q8_0")]) == 1
    assert "no such file in that repository" in capsys.readouterr().err
    assert main(["models", "pull", "nobody/nothing/x.gguf"]) == 1
    assert "no such repository" in capsys.readouterr().err
    assert main(["models", "pull", "gpt-9"]) == 1
    err = capsys.readouterr().err
    assert "unknown model 'gpt-9'" in err and "qwen2.5-1.5b" in err
    assert len(hub.requests) == 2  # the unknown short name never left the machine


def test_hub_offline_flag_is_lifted_only_for_the_pull(hub: FakeHub) -> None:
    from huggingface_hub import constants

    _on_fake_hub(hub)
    assert constants.HF_HUB_OFFLINE  # conftest (like the Makefile) sets HF_HUB_OFFLINE=1
    seen = []
    with pull.hub_allowed():
        seen.append(constants.HF_HUB_OFFLINE)
    assert seen == [False] and constants.HF_HUB_OFFLINE


def test_generator_option_takes_a_pulled_short_name(hub: FakeHub, tmp_path: Path) -> None:
    from localcrag.errors import LocalcragError
    from localcrag.llm.catalogue import local_model

    _on_fake_hub(hub)
    models = tmp_path / "models"
    models.mkdir()
    with pytest.raises(LocalcragError, match="not pulled yet.*models pull qwen2.5-1.5b"):
        local_model("qwen2.5-1.5b", models)
    (models / "qwen2.5-1.5b-instruct-q4_k_m.gguf").write_bytes(SMOL.read_bytes()[:4096])
    assert local_model("qwen2.5-1.5b", models) == "qwen2.5-1.5b-instruct-q4_k_m.gguf"
    assert (
        local_model("qwen2.5-1.5b-instruct-q4_k_m", models) == "qwen2.5-1.5b-instruct-q4_k_m.gguf"
    )
    with pytest.raises(LocalcragError, match="no model 'nope'"):
        local_model("nope", models)


def test_ask_with_a_catalogue_model_not_pulled_says_how_to_pull(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("LOCALCRAG_MODELS_DIR", str(tmp_path))
    assert main(["ask", "What is a cobot?", "--generator", "llama3.2-1b"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "run `localcrag models pull llama3.2-1b` first" in err
