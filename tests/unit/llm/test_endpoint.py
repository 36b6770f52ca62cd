"""The model-server client against scripted servers on 127.0.0.1: timeouts, one retry, the
one-line errors, the Bearer key, SSE parsing, the failover to the local model, --offline.

The real llama.cpp server is in test_endpoint_server.py; these need no model."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from threading import Event

import pytest

from localcrag import events as ev
from localcrag.crag.answer.style import resolve_style
from localcrag.errors import LocalcragError
from localcrag.llm.chat import GREEDY, ChatModel, ModelFacts, Sampling
from localcrag.llm.endpoint import ChatPrompt, EndpointDown, EndpointLLM, is_loopback, yes_share
from localcrag.llm.failover import FailoverLLM, Restart, endpoint_generator
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder, FakeGenerator
from tests.support.modelserver import MODEL_LIST


@pytest.fixture()
def silent() -> Iterator[tuple[list[socket.socket], str]]:
    """A server that accepts connections and never answers (a hung model server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield accepted, f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    listener.close()


def closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"  # nothing listens once closed


MESSAGES = [{"role": "user", "content": "Say hi."}]


def test_streams_chat_pieces_and_sends_the_key_as_bearer(fake) -> None:
    script, url = fake
    script.plan["/v1/chat/completions"] = [(200, ["Hel", "lo", " there."])]
    llm = EndpointLLM(url, api_key="s3cret")
    assert (
        "".join(llm.stream(llm.chat_prompt(MESSAGES), 16, Sampling(stop=("\n\n",))))
        == "Hello there."
    )
    assert llm.finish_reason == "length" and llm.name == "served-model"
    path, headers, body = script.seen[-1]
    assert path == "/v1/chat/completions" and headers["Authorization"] == "Bearer s3cret"
    assert (
        body["messages"] == MESSAGES and body["stream"] is True and body["model"] == "served-model"
    )
    assert body["max_tokens"] == 16 and body["stop"] == ["\n\n"] and "repeat_penalty" not in body


def test_a_plain_prompt_goes_to_completions(fake) -> None:
    script, url = fake
    script.plan["/v1/completions"] = [(200, ["a", "b"])]
    assert EndpointLLM(url, model="m").complete("Question:", 4) == "ab"
    assert script.seen[-1][0] == "/v1/completions" and script.seen[-1][2]["prompt"] == "Question:"


def test_5xx_is_retried_once_then_one_line_naming_the_url(fake) -> None:
    script, url = fake
    script.plan["/v1/models"] = [(503, {"error": {"message": "loading model"}})]
    with pytest.raises(EndpointDown) as err:
        EndpointLLM(url).check()
    line = str(err.value)
    assert (
        "\n" not in line
        and url in line
        and "HTTP 503: loading model" in line
        and "retried once" in line
    )
    assert len(script.seen) == 2
    script.plan["/v1/models"] = [(502, {}), (200, MODEL_LIST)]  # a second try that works
    script.seen.clear()
    EndpointLLM(url).check()
    assert len(script.seen) == 2


def test_4xx_is_not_retried_and_a_missing_key_is_named(fake, monkeypatch) -> None:
    script, url = fake
    script.plan["/v1/models"] = [(401, {"detail": "Invalid API key"})]
    monkeypatch.delenv("LC_TEST_KEY", raising=False)
    llm = endpoint_generator(
        Settings(llm_endpoint=url, llm_endpoint_key_env="LC_TEST_KEY"), lambda: None
    ).endpoint
    with pytest.raises(
        EndpointDown,
        match=r"HTTP 401: Invalid API key \(the key is read from "
        r"\$LC_TEST_KEY, which is not set\) \(not retried\)",
    ):
        llm.check()
    assert len(script.seen) == 1 and "Authorization" not in script.seen[0][1]
    monkeypatch.setenv("LC_TEST_KEY", "k-123")  # read from the environment, never stored
    llm = endpoint_generator(
        Settings(llm_endpoint=url, llm_endpoint_key_env="LC_TEST_KEY"), lambda: None
    ).endpoint
    with pytest.raises(EndpointDown):
        llm.check()
    assert script.seen[-1][1]["Authorization"] == "Bearer k-123"


def test_read_timeout_and_one_retry(silent) -> None:
    accepted, url = silent
    llm = EndpointLLM(url, model="m", read_timeout=0.3)
    with pytest.raises(EndpointDown, match=r"failed: no answer within 0.3 s \(retried once\)"):
        llm.check()
    assert len(accepted) == 2


def test_connection_refused(monkeypatch) -> None:
    url = closed_url()
    with pytest.raises(EndpointDown, match=r"connection refused \(retried once\)") as err:
        EndpointLLM(url).check()
    assert url in str(err.value)


def test_no_openai_or_proxy_variable_changes_the_request(fake, monkeypatch) -> None:
    """Everything is passed explicitly: OPENAI_* variables (a key, a base URL, extra headers,
    an organisation) and proxy variables are not read, so the request goes to the URL set,
    with the key set or none."""
    script, url = fake
    script.plan["/v1/chat/completions"] = [(200, ["ok"])]
    env = {
        "OPENAI_API_KEY": "sk-from-env",
        "OPENAI_BASE_URL": closed_url(),
        "OPENAI_CUSTOM_HEADERS": "Authorization: Bearer leaked\nX-Extra: 1",
        "OPENAI_ORG_ID": "org-x",
        "OPENAI_PROJECT_ID": "proj-x",
        "OPENAI_LOG": "debug",
        "HTTP_PROXY": closed_url(),
        "ALL_PROXY": closed_url(),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("http_proxy", closed_url())
    monkeypatch.delenv("NO_PROXY")  # set by conftest's no_network for every test
    monkeypatch.delenv("no_proxy")
    llm = EndpointLLM(url)
    assert llm.complete(llm.chat_prompt(MESSAGES), 4) == "ok"
    for _path, headers, _body in script.seen:
        sent = {k.lower() for k in headers}
        assert not sent & {"authorization", "x-extra", "openai-organization", "openai-project"}
    assert [p for p, _, _ in script.seen] == ["/v1/models", "/v1/chat/completions"]


def test_cancel_stops_the_stream_and_a_json_answer_is_not_a_stream(fake) -> None:
    script, url = fake
    script.plan["/v1/chat/completions"] = [(200, ["a", "b", "c"])]
    llm = EndpointLLM(url, model="m")
    cancel = threading.Event()
    got = []
    for piece in llm.stream(llm.chat_prompt(MESSAGES), 8, cancel=cancel):
        got.append(piece)
        cancel.set()
    assert got == ["a"]
    script.plan["/v1/chat/completions"] = [(200, {"choices": []})]  # JSON, not events
    with pytest.raises(EndpointDown, match=r"did not stream: .*'application/json'") as err:
        llm.complete(llm.chat_prompt(MESSAGES), 8)
    assert "\n" not in str(err.value)


def test_a_stream_cut_before_done_is_an_error(fake) -> None:
    script, url = fake
    script.plan["/v1/chat/completions"] = [(200, ["One.", None])]
    llm = EndpointLLM(url, model="m")
    pieces = []
    with pytest.raises(EndpointDown, match="stopped sending before the end"):
        for piece in llm.stream(llm.chat_prompt(MESSAGES), 8):
            pieces.append(piece)
    assert pieces == ["One."]


def test_yes_probability_from_top_logprobs() -> None:
    import math

    alts = [
        {"token": "Yes", "logprob": math.log(0.6)},
        {"token": " no", "logprob": math.log(0.2)},
        {"token": "The", "logprob": math.log(0.1)},
        {"token": "yes", "logprob": math.log(0.15)},
    ]
    choice = {
        "message": {"content": "Yes"},
        "logprobs": {"content": [{"token": "Yes", "top_logprobs": alts}]},
    }
    assert yes_share(choice) == pytest.approx(0.75 / 0.95)
    assert yes_share({"message": {"content": "No."}}) == 0.0  # no logprobs: the word it said
    assert yes_share({"message": {"content": "Maybe"}}) == 0.5


class Local(ChatModel):
    """A stand-in local model: records what it was asked."""

    facts = ModelFacts("local.gguf", n_params=135_000_000)
    n_ctx = 2048

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        return "LOCAL:" + messages[-1]["content"]

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Event | None = None
    ) -> Iterator[str]:
        self.prompts.append(prompt)
        yield "local answer."

    def yes_probability(self, prompt: str) -> float:
        self.prompts.append(prompt)
        return 0.25


def test_failover_to_the_local_model_until_the_next_question(fake) -> None:
    script, url = fake
    local = Local()
    gen = FailoverLLM(EndpointLLM(url), lambda: local)
    script.plan["/v1/models"] = [(500, {})]
    gen.begin_question()
    [notice] = gen.take_notices()
    assert url in notice and "answering with the local model local.gguf" in notice
    # the style follows the model that will write: the small local one quotes
    assert resolve_style("auto", gen.facts)[0] == "extractive"
    assert gen.complete(gen.chat_prompt(MESSAGES), 8) == "local answer."
    assert local.prompts == ["LOCAL:Say hi."]
    script.plan["/v1/models"] = [(200, MODEL_LIST)]
    gen.begin_question()  # the server is back
    assert not gen.take_notices() and gen.active is gen.endpoint
    style, why = resolve_style("auto", gen.facts)
    assert style == "generative" and "model server" in why and url in why


def test_failure_at_the_first_piece_reruns_locally_and_a_cut_restarts_it_locally(fake) -> None:
    script, url = fake
    local = Local()
    gen = FailoverLLM(EndpointLLM(url), lambda: local)
    gen.begin_question()
    script.plan["/v1/chat/completions"] = [(500, {})]
    prompt = gen.chat_prompt(MESSAGES)
    assert isinstance(prompt, ChatPrompt)
    assert gen.complete(prompt, 8) == "local answer."  # re-rendered with the local template
    assert local.prompts == ["LOCAL:Say hi."] and len(gen.take_notices()) == 1
    assert gen.yes_probability(gen.chat_prompt(MESSAGES)) == 0.25  # the rest of the question: local
    gen.begin_question()
    script.plan["/v1/chat/completions"] = [(200, ["Half", None])]
    pieces = list(gen.stream(gen.chat_prompt(MESSAGES), 8))
    assert (
        pieces[0] == "Half"
        and isinstance(pieces[1], Restart)
        and "".join(pieces[2:]) == "local answer."
    )
    [notice] = gen.take_notices()
    assert url in notice and "stopped mid-answer: what it wrote is withdrawn" in notice
    gen.begin_question()
    script.plan["/v1/chat/completions"] = [(200, ["Half", None])]
    assert gen.complete(gen.chat_prompt(MESSAGES), 8) == "local answer."  # the fragment is not kept


def test_pipeline_reports_the_fallback_before_the_answer(fake, tmp_path) -> None:
    from localcrag.crag.pipeline import Pipeline
    from localcrag.ingest.library import Library
    from localcrag.record import RunRecord
    from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader

    script, url = fake
    script.plan["/v1/models"] = [(500, {})]
    (tmp_path / "doc.md").write_text("Cobots work next to people in factories.\n", encoding="utf-8")
    s = Settings(llm_endpoint=url, offline=True)  # a server on this machine is allowed offline
    lib = Library(s, embedder=FakeEmbedder())
    lib.ingest([tmp_path / "doc.md"])
    local = FakeGenerator("Cobots work next to people [1].")
    pipe = Pipeline(s, library=lib, grader=FakeGrader())
    pipe._generator = endpoint_generator(s, lambda: local)  # what Pipeline.generator builds
    record = RunRecord()
    kinds = []
    for e in pipe.run("Where do cobots work?", mode="rag", style="generative"):
        record.add(e)
        kinds.append(type(e).__name__)
    assert kinds.index("GeneratorFellBack") < kinds.index("Token")
    assert url in record.generator_fallback and "local model" in record.generator_fallback
    assert local.prompts and record.answer.text.startswith("Cobots work next to people")
    assert pipe.generator_info() == {"kind": "endpoint", "url": url, "model": None}


LIGHTHOUSE = (
    "The lighthouse keeper lit the lamp every evening at dusk. "
    "The lighthouse stands on a rock at the mouth of the bay.\n"
)


@pytest.mark.parametrize("as_json", [True, False])
def test_a_server_dying_mid_answer_is_withdrawn_and_the_local_model_answers(
    fake, tmp_path, monkeypatch, capsys, as_json: bool
) -> None:
    """A real server on 127.0.0.1 streams a fragment and drops the connection: the fragment
    ("his crew" is in no evidence) is never the answer, the bundled local model answers the
    same question, and --json says so."""
    from localcrag.cli.main import main
    from tests.support import MODELS

    if not (MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf").exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    script, url = fake
    (tmp_path / "lighthouse.txt").write_text(LIGHTHOUSE, encoding="utf-8")
    assert main(["ingest", str(tmp_path / "lighthouse.txt")]) == 0
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", url)
    monkeypatch.setenv("LOCALCRAG_MAX_ANSWER_TOKENS", "40")
    script.plan["/v1/chat/completions"] = [(200, ["The lighthouse keeper ", "and his crew:", None])]
    capsys.readouterr()
    argv = ["ask", "What did the lighthouse keeper do?", "--style", "generative", "--mode", "rag"]
    assert (
        main(argv + (["--json"] if as_json else [])) == 3
    )  # answered, by the local model: said by the status
    out = capsys.readouterr()
    chats = [s for s in script.seen if s[0].endswith("/chat/completions")]
    assert len(chats) == 1  # the server was asked once; the answer came from the local model
    if as_json:
        data = json.loads(out.out.strip().splitlines()[-1])
        assert data["generator"]["restarted"] == "the model server stopped mid-answer"
        assert url in data["generator"]["fallback"] and "SmolLM2" in data["generator"]["fallback"]
        answer = data["answer"]
    else:
        answer = out.out
        assert "stopped mid-answer: what it wrote is withdrawn" in out.err
    assert answer.strip() and "his crew" not in answer


def test_offline_refuses_a_server_elsewhere_without_any_lookup() -> None:
    assert is_loopback("http://127.0.0.1:8080/v1") and is_loopback("http://localhost/v1")
    assert is_loopback("http://[::1]:8080/v1") and not is_loopback("http://gpu-box:8080/v1")
    assert not is_loopback("http://10.0.0.5/v1")
    with pytest.raises(
        LocalcragError,
        match=r"offline: llm_endpoint = http://gpu-box:8080/v1 is not "
        r"on this machine",
    ):
        endpoint_generator(
            Settings(llm_endpoint="http://gpu-box:8080/v1", offline=True), lambda: None
        )
    endpoint_generator(Settings(llm_endpoint="http://127.0.0.1:9/v1", offline=True), lambda: None)


def test_settings_check_the_url_and_come_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", "gpu-box:8080")
    with pytest.raises(LocalcragError, match="LOCALCRAG_LLM_ENDPOINT='gpu-box:8080'.*http://"):
        Settings.load()
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", "http://gpu-box:8080/v1/")
    assert Settings.load().endpoint.llm_endpoint == "http://gpu-box:8080/v1"


def test_ask_offline_refuses_a_remote_server_in_one_line(monkeypatch, capsys) -> None:
    from localcrag.cli.main import main

    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", "http://gpu-box:8080/v1")
    assert main(["ask", "Where do cobots work?", "--offline"]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "offline: llm_endpoint = http://gpu-box:8080/v1" in err[0]


def test_status_bar_and_trace_show_the_model_server() -> None:
    from types import SimpleNamespace

    from rich.console import Console

    from localcrag.tui.widgets.status import _model_server
    from localcrag.tui.widgets.trace import TraceState, render_trace

    app = SimpleNamespace(settings=Settings(llm_endpoint="http://gpu-box:8080/v1"))
    assert _model_server(app) == "model server: gpu-box:8080"
    assert _model_server(SimpleNamespace(settings=Settings())) == ""
    state = TraceState("Where do cobots work?")
    line = (
        "model server http://gpu-box:8080/v1 failed: timed out (retried once); answering with ..."
    )
    assert state.add(ev.GeneratorFellBack("http://gpu-box:8080/v1", line))
    console = Console(width=200, record=True)
    console.print(render_trace(state, 0.76, 0.51))
    assert "failed: timed out (retried once)" in console.export_text()


def test_the_settings_screen_choices_name_the_model_server() -> None:
    from localcrag.crag.answer.capability import model_choices

    lines = [
        c.line()
        for c in model_choices(
            Settings(llm_endpoint="http://gpu-box:8080/v1", llm_endpoint_model="qwen2.5-7b")
        )
    ]
    assert "counted as capable" in lines[0] and "written by qwen2.5-7b" in lines[1]
    assert "--generator" not in lines[2] and "llm_endpoint set" in lines[2]
    judge = model_choices(Settings(llm_endpoint="http://gpu-box:8080/v1", grader="llm"))[2].line()
    assert "llm yes/no with the model server at gpu-box:8080" in judge


class NamedLocal(FakeGenerator):
    """The local model behind the server: a name of its own, an answer the evidence holds."""

    facts = ModelFacts("local-model.gguf")


@pytest.mark.parametrize("cut", ["at the first piece", "mid-answer"])
def test_the_answer_line_names_the_local_model_after_a_server_failure(
    fake, tmp_path, monkeypatch, capsys, cut: str
) -> None:
    """The server lists its model (so the answer starts as its), then fails while writing:
    the local model writes the answer, and "Written by" names it, not the server's model."""
    from localcrag.cli.main import main
    from localcrag.ingest import library
    from localcrag.llm import gguf

    script, url = fake
    monkeypatch.setattr(library, "load_embedder", lambda *a, **k: FakeEmbedder())
    local = NamedLocal("The lighthouse keeper lit the lamp every evening at dusk [1].")
    monkeypatch.setattr(gguf, "load_llm", lambda *a, **k: local)
    (tmp_path / "lighthouse.txt").write_text(LIGHTHOUSE, encoding="utf-8")
    assert main(["ingest", str(tmp_path / "lighthouse.txt")]) == 0
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", url)
    script.plan["/v1/chat/completions"] = (
        [(500, {})] if cut == "at the first piece" else [(200, ["The lighthouse ", None])]
    )
    capsys.readouterr()
    argv = ["ask", "What did the lighthouse keeper do?", "--style", "generative", "--mode", "rag"]
    assert main(argv) in (0, 3)  # 3: restarted mid-answer
    out = capsys.readouterr()
    assert local.prompts and "local model local-model.gguf" in out.err
    [line] = [row for row in out.out.splitlines() if row.startswith("Answer: ")]
    assert line.startswith("Answer: Written by local-model, checked against"), line
    assert "served-model" not in out.out
