"""`ask` and `eval` through llama-cpp-python's own OpenAI-compatible server on 127.0.0.1,
serving the bundled SmolLM2 (started once per session by ``localcrag.llm.serve.serving``,
AMX-safe, killed at the end).

The local generator is set to a file that does not exist, so an answer can only come from
the server (the local model would fail to load); the fallback test uses the real one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from localcrag.cli.main import main
from tests.support import MODELS

MODEL = MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf"
KEY = "test-key-0451"
DOC = (
    "# Cobots\n\nCollaborative robots, called cobots, work safely next to people in factories. "
    "They were invented in 1996 by two professors at Northwestern University.\n\n"
    "# Weather\n\nRain falls when clouds hold too much water.\n"
)
QUESTION = "Where do cobots work?"


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    for module in ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings"):
        pytest.importorskip(module, reason="llama-cpp-python[server] is not installed")
    if not MODEL.exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    from localcrag.llm.serve import serving

    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with serving(MODEL, threads=1, n_ctx=2048, api_key=KEY, log=log) as url:
        yield url


@pytest.fixture(scope="session")
def server_home(tmp_path_factory: pytest.TempPathFactory, server_url: str) -> Path:
    """A home with DOC indexed (real embedder), shared by the tests of this file."""
    home = tmp_path_factory.mktemp("endpoint-home")
    doc = home / "cobots.md"
    doc.write_text(DOC, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LOCALCRAG_HOME", str(home))
        assert main(["ingest", str(doc)]) == 0
    return home


@pytest.fixture()
def through_server(server_url: str, server_home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Settings from the environment: the server, its key from LC_SERVER_KEY, no local model."""
    monkeypatch.setenv("LOCALCRAG_HOME", str(server_home))
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", server_url)
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT_KEY_ENV", "LC_SERVER_KEY")
    monkeypatch.setenv("LC_SERVER_KEY", KEY)
    monkeypatch.setenv("LOCALCRAG_GENERATOR", "absent-local-model.gguf")
    monkeypatch.setenv("LOCALCRAG_MAX_ANSWER_TOKENS", "32")
    return server_url


def _json(capsys: pytest.CaptureFixture) -> dict:
    out = capsys.readouterr().out
    return json.loads(out.strip().splitlines()[-1])


def test_stream_and_yes_no_logprobs_from_the_real_server(server_url: str) -> None:
    from localcrag.llm.endpoint import EndpointDown, EndpointLLM

    with pytest.raises(EndpointDown, match="HTTP 401"):  # the key is checked
        EndpointLLM(server_url).check()
    llm = EndpointLLM(server_url, api_key=KEY)
    text = llm.complete(llm.chat_prompt([{"role": "user", "content": "Name a colour."}]), 6)
    assert text.strip() and llm.finish_reason in ("stop", "length")
    assert llm.name == MODEL.name  # the first model the server lists
    prompt = llm.chat_prompt([{"role": "user", "content": "Is Paris in France? Answer yes or no."}])
    p = llm.yes_probability(prompt)
    assert 0.0 < p < 1.0 and p != 0.5  # from top_logprobs, not the greedy word


def test_ask_json_through_the_server(through_server: str, capsys) -> None:
    assert main(["ask", QUESTION, "--json", "--mode", "rag", "--style", "generative"]) == 0
    out = _json(capsys)
    assert out["generator"] == {
        "kind": "endpoint",
        "url": through_server,
        "model": str(MODEL),
        "fallback": None,
        "restarted": None,
    }
    assert out["answer"].strip() and out["timings_ms"]["generate"] is not None
    assert out["answer_style"] in (
        "generative",
        "extractive",
    )  # extractive: nothing passed the check


def test_llm_grader_and_auto_style_through_the_server(
    through_server: str, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("LOCALCRAG_GRADER", "llm")
    assert main(["ask", QUESTION, "--json"]) == 0
    out = _json(capsys)
    assert out["grades"] and all(g["grader"] == "llm" and g["error"] is None for g in out["grades"])
    assert out["generator"]["fallback"] is None


def test_eval_through_the_server(through_server: str, tmp_path: Path, capsys) -> None:
    root = tmp_path / "mydata"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "cobots.md").write_text(DOC, encoding="utf-8")
    rows = [
        {
            "question": QUESTION,
            "answer": "next to people in factories",
            "gold_sources": ["cobots.md"],
        },
        {"question": "Why does rain fall?", "answer": "clouds hold too much water"},
        {"question": "Who won the 1998 football world cup?", "answerable": False},
    ]
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert (
        main(
            [
                "eval",
                str(root),
                "--json",
                "--only",
                "answers",
                "--limit",
                "3",
                "--mode",
                "rag",
                "--style",
                "generative",
            ]
        )
        == 0
    )
    res = _json(capsys)
    assert res["questions"] == 3 and res["settings"]["llm_endpoint"] == through_server
    assert res["modes"]["rag"]["answer_f1"] is not None


def test_server_down_one_line_then_the_local_model(server_home: Path, monkeypatch, capsys) -> None:
    from localcrag.llm.serve import free_port

    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    monkeypatch.setenv("LOCALCRAG_HOME", str(server_home))
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", url)
    monkeypatch.setenv("LOCALCRAG_MAX_ANSWER_TOKENS", "32")
    assert main(["ask", QUESTION, "--mode", "rag"]) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if line.strip()]
    assert (
        len(warnings) == 1
        and url in warnings[0]
        and "connection refused (retried once)" in warnings[0]
    )
    assert f"answering with the local model {MODEL.name}" in warnings[0]
    assert (
        "Answer: Quoted from your documents" in captured.out
    )  # auto: the small local model quotes
    assert main(["ask", QUESTION, "--mode", "rag", "--json"]) == 0
    out = _json(capsys)
    assert out["generator"]["kind"] == "endpoint" and url in out["generator"]["fallback"]
    assert out["answer"].strip()


def test_a_client_gone_mid_answer_leaves_the_model_free(server_url: str) -> None:
    """The run-ahead stream (localcrag.llm.serve_stream) stops when the client goes and holds
    the model until then: the next answers are whole and the same as before."""
    from localcrag.llm.endpoint import EndpointLLM

    llm = EndpointLLM(server_url, api_key=KEY)
    prompt = llm.chat_prompt([{"role": "user", "content": "Count from one to twenty in words."}])
    whole = llm.complete(prompt, 40)
    pieces = llm.stream(prompt, 40)
    next(pieces)
    pieces.close()  # the connection closes after one piece
    assert llm.complete(prompt, 40) == whole
    assert llm.complete(prompt, 40) == whole and llm.finish_reason in ("stop", "length")
