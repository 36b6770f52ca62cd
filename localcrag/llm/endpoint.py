"""A generator on an OpenAI-compatible model server (llama.cpp's server, vLLM, Ollama, ...).

``EndpointLLM`` has the surface the pipeline uses of ``LocalLLM`` (``chat_prompt``,
``stream``, ``count_tokens``, ``fits``, ``yes_probability``), so answers, rewrites and the
``llm`` grader need no change. The server applies its own chat template, so
``chat_prompt`` returns a ``ChatPrompt``: the messages, which as a string are only what the
token estimate counts.

HTTP is httpx2's (a dependency of huggingface_hub and of the ``openai`` SDK): one pooled
client per server, keep-alive, its ``EventSource`` for the streamed answers; a connect and a
read timeout (the read one is ``llm_endpoint_timeout``, the longest wait for each piece),
one retry at once for a failure that may pass (no connection, a timeout, a 5xx; never a 4xx),
then ``EndpointDown`` with one line naming the URL. Every read is bounded, whatever the
server does: bodies and events by size (``*_MAX``), a request by ``llm_endpoint_deadline``
in all, a stream by the tokens asked for, counted here (a server may ignore
``max_tokens``); past a bound, ``EndpointDown`` too, so the local model answers. Offline,
the client is given the loopback address to connect to (``connect_to``): no name is
resolved, not even ``*.localhost``. Everything is explicit: the key comes
from the variable ``llm_endpoint_key_env`` names, and no environment variable (``OPENAI_*``,
proxies) changes a request. Not the ``openai`` SDK for that reason: it adds the headers of
``OPENAI_CUSTOM_HEADERS`` (an Authorization one too) to every request, with no way to say no.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from threading import Event
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from localcrag.errors import LocalcragError
from localcrag.llm.chat import GREEDY, ChatModel, ModelFacts, Sampling

if TYPE_CHECKING:
    import httpx2

CONNECT_TIMEOUT = 5.0  # seconds to open the connection (the read timeout is a setting)
BYTES_PER_TOKEN = 3  # token estimate: English BPE runs ~4 bytes per token, so this errs long
YES_NO_TOP = 10  # alternatives asked for with the yes/no token (OpenAI allows up to 20)
# every read is bounded: a server that never stops sending is cut, not read whole
ERROR_BODY_MAX = 64 * 1024  # bytes of an error body read (its first 200 characters are shown)
JSON_BODY_MAX = 8 * 1024 * 1024  # bytes of a model list or a yes/no answer
EVENT_MAX = 1024 * 1024  # bytes of one streamed event (one token's JSON is well under 4 KiB)
STREAM_BYTES_PER_TOKEN = 16 * 1024  # a stream's bytes in all, per token asked for (logprobs too)
TEXT_BYTES_PER_TOKEN = 64  # answer bytes per token asked for (a token is a few characters)
TOKEN_SLACK = 16  # text pieces past max_tokens before the stream is cut (counted here)
HOSTS_FILE = Path("/etc/hosts")  # where offline looks up *.localhost (tests point it elsewhere)


class EndpointDown(LocalcragError):
    """The model server did not answer, or answered with an error (after one retry)."""


class ChatPrompt(str):
    """Chat messages for a server that renders them with its own template; as a ``str``
    the messages' text (what ``count_tokens`` estimates), so callers need not know."""

    messages: tuple[dict[str, str], ...]

    def __new__(cls, messages: list[dict[str, str]]) -> ChatPrompt:
        obj = super().__new__(cls, "\n".join(f"{m['role']}: {m['content']}" for m in messages))
        obj.messages = tuple(dict(m) for m in messages)
        return obj


def hosts_file_entries(path: Path) -> dict[str, list[str]]:
    """Name -> addresses, as the hosts file lists them (read here: offline, no resolver is
    asked, and nsswitch could send a name to DNS). A file that cannot be read lists none."""
    entries: dict[str, list[str]] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return entries
    for raw in text.splitlines()[:100_000]:
        fields = raw.split("#", 1)[0].split()
        for name in fields[1:]:
            entries.setdefault(name.lower().rstrip("."), []).append(fields[0].split("%")[0])
    return entries


def loopback_address(host: str, hosts_file: Path | None = None) -> str | None:
    """The loopback IP literal to connect to for ``host``, found without any resolver: an IP
    literal in 127.0.0.0/8 or ::1 as it is; ``localhost`` and ``*.localhost`` as the hosts
    file maps them to a loopback address (``localhost`` unmapped: 127.0.0.1, RFC 6761);
    None for anything else (it would need a lookup, or it is another machine)."""
    host = host.lower().strip("[]").rstrip(".")
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        ip = None
    if ip is not None:
        return str(ip) if ip.is_loopback else None
    if host != "localhost" and not host.endswith(".localhost"):
        return None
    for addr in hosts_file_entries(hosts_file or HOSTS_FILE).get(host, []):
        try:
            if ipaddress.ip_address(addr).is_loopback:
                return str(ipaddress.ip_address(addr))
        except ValueError:
            continue
    return "127.0.0.1" if host == "localhost" else None


def is_loopback(url: str, hosts_file: Path | None = None) -> bool:
    """True when the URL's host is this machine, known without a DNS lookup (see
    ``loopback_address``), so it is safe to ask offline."""
    return loopback_address(urlsplit(url).hostname or "", hosts_file) is not None


class EndpointLLM(ChatModel):
    """One OpenAI-compatible server; ``url`` is its base URL ending in ``/v1``."""

    has_chat_template = True  # the server applies the model's own

    def __init__(
        self,
        url: str,
        model: str | None = None,
        api_key: str | None = None,
        n_ctx: int = 2048,
        read_timeout: float = 60.0,
        key_env: str | None = None,
        extra_body: dict[str, Any] | None = None,
        connect_to: str | None = None,
        deadline: float = 300.0,
    ) -> None:
        self.url = url.rstrip("/")
        parts = urlsplit(self.url)
        self._host, self._port = parts.hostname or "", parts.port
        # offline: the IP literal to connect to, so the HTTP client resolves no name; the
        # request still says the URL's host (Host header, and TLS's server name)
        self.connect_to = connect_to
        self._client: httpx2.Client | None = None
        self._lock = threading.Lock()
        self._model = model
        self._key, self._key_env = api_key, key_env
        self.n_ctx = n_ctx
        self.read_timeout = read_timeout
        self.deadline = deadline  # seconds one request may take in all (the stream included)
        # server-specific options sent with every generation
        self.extra_body = dict(extra_body or {})
        self.finish_reason: str | None = None  # of the last stream: "stop" or "length"

    @property
    def name(self) -> str:
        """For "Written by <name>": the model's file name, once known."""
        if self._model:
            return self._model.replace("\\", "/").rsplit("/", 1)[-1]
        return f"the model server at {self._host}" + (f":{self._port}" if self._port else "")

    @property
    def model(self) -> str | None:
        """The model name sent, once known (set, or listed by the server)."""
        return self._model

    @property
    def facts(self) -> ModelFacts:
        """Remote: evidence text leaves the process (the answer style counts it as capable)."""
        return ModelFacts(self.name, remote=True, url=self.url, served_model=self._model)

    def __repr__(self) -> str:
        return f"EndpointLLM({self.url!r}, model={self._model!r})"

    # --- tokens: estimated (no OpenAI endpoint counts them) -----------------------------

    def count_tokens(self, text: str) -> int:
        return len(text.encode("utf-8")) // BYTES_PER_TOKEN + 1

    def fits(self, prompt_tokens: int, max_tokens: int) -> bool:
        return prompt_tokens + max_tokens <= self.n_ctx

    def chat_prompt(self, messages: list[dict[str, str]]) -> ChatPrompt:
        return ChatPrompt(messages)

    # --- HTTP ------------------------------------------------------------------------

    @property
    def _tls_name(self) -> dict[str, str]:
        """With ``connect_to``, https checks the certificate against the URL's host."""
        return {"sni_hostname": self._host} if self.connect_to else {}

    def _http(self) -> httpx2.Client:
        """The connection pool, made on first use (building an ``EndpointLLM`` opens nothing);
        ``trust_env=False``: no proxy, netrc or certificate variable applies."""
        import httpx2

        with self._lock:
            if self._client is None:
                headers = {"Accept": "application/json, text/event-stream"}
                if self._key:
                    headers["Authorization"] = f"Bearer {self._key}"
                base = httpx2.URL(self.url + "/")
                if self.connect_to:
                    headers["Host"] = urlsplit(self.url).netloc.rsplit("@", 1)[-1]
                    base = base.copy_with(host=self.connect_to)
                connect = min(CONNECT_TIMEOUT, self.read_timeout)
                self._client = httpx2.Client(
                    base_url=base,
                    headers=headers,
                    timeout=httpx2.Timeout(self.read_timeout, connect=connect),
                    trust_env=False,
                )
            return self._client

    def _deadline(self) -> Deadline:
        return Deadline(self.deadline, self.url)

    def _send(
        self, method: str, path: str, body: dict[str, Any] | None, deadline: Deadline
    ) -> httpx2.Response:
        """The open (streamed) response to a 2xx answer; EndpointDown otherwise, after one
        retry for a failure that may pass (no connection, a timeout, a 5xx). No wait is
        longer than what is left of ``deadline``; an error body is read up to
        ERROR_BODY_MAX bytes."""
        import httpx2

        client = self._http()
        why = ""
        for attempt in (1, 2):  # noqa: B007 (read after the loop)
            wait = deadline.wait(self.read_timeout)
            request = client.build_request(
                method,
                path,
                json=body,
                timeout=httpx2.Timeout(wait, connect=min(CONNECT_TIMEOUT, wait)),
                extensions=self._tls_name,
            )
            try:
                resp = client.send(request, stream=True)
            except httpx2.TransportError as exc:
                deadline.check("before it answered")
                why = _reason(exc, wait)
                continue
            if resp.is_success:
                return resp
            try:
                raw = deadline.read(resp, ERROR_BODY_MAX, "its error", whole=False)
                detail = _error_detail(raw.decode("utf-8", errors="replace"))
            except httpx2.TransportError:
                detail = ""
            finally:
                resp.close()
            why = f"HTTP {resp.status_code}{': ' + detail if detail else ''}"
            if resp.status_code == 401 and self._key_env and not self._key:
                why += f" (the key is read from ${self._key_env}, which is not set)"
            if resp.status_code < 500:
                break  # the request itself is wrong: asking again gives the same answer
        retried = "retried once" if attempt == 2 else "not retried"
        raise EndpointDown(
            f"model server {self.url} failed: {why} ({retried})",
            "check llm_endpoint, or unset it to use the local model",
        )

    def _json(self, path: str, body: dict[str, Any] | None, what: str) -> dict[str, Any]:
        """The JSON object answered to ``path`` (GET without a body, POST with one), read up
        to JSON_BODY_MAX bytes and within the deadline."""
        import httpx2

        deadline = self._deadline()
        with closing(self._send("GET" if body is None else "POST", path, body, deadline)) as resp:
            try:
                data = json.loads(deadline.read(resp, JSON_BODY_MAX, f"its {what}") or b"{}")
            except (httpx2.TransportError, ValueError) as exc:
                deadline.check(f"sending its {what}")
                why = _reason(exc, deadline.wait(self.read_timeout))
                raise EndpointDown(
                    f"model server {self.url} sent an unreadable {what}: {why}", "check the server"
                ) from None
        return data if isinstance(data, dict) else {}

    def check(self) -> None:
        """Ask the server for its models (``GET /models``): is it up, and which model is
        meant when ``llm_endpoint_model`` is unset (the first one listed)."""
        listed = self._json("models", None, "model list").get("data") or []
        if not self._model:
            if not listed or not isinstance(listed[0], dict):
                raise EndpointDown(
                    f"model server {self.url} lists no models", "set llm_endpoint_model"
                )
            self._model = str(listed[0].get("id"))

    def model_id(self) -> str:
        """``llm_endpoint_model``, else the first model the server lists (asked once)."""
        if not self._model:
            self.check()
        return str(self._model)

    def _events(
        self, path: str, body: dict[str, Any], cancel: Event | None, max_bytes: int
    ) -> Iterator[dict[str, Any]]:
        """The JSON objects of a server-sent event stream (httpx2's ``EventSource``), until
        ``[DONE]``; a stream that ends without it is an error (the answer was cut). Bounded:
        EVENT_MAX bytes an event, ``max_bytes`` in all, and the deadline."""
        import httpx2

        deadline = self._deadline()
        with closing(self._send("POST", path, body, deadline)) as resp:
            bounded = cast("httpx2.Response", _Bounded(resp, deadline, max_bytes))
            try:
                for event in httpx2.EventSource(bounded, max_event_size=EVENT_MAX):
                    if event.data == "[DONE]" or (cancel is not None and cancel.is_set()):
                        return
                    try:
                        data = json.loads(event.data)
                    except ValueError:
                        raise EndpointDown(
                            f"model server {self.url} sent an unreadable event: "
                            f"{event.data[:80]!r}",
                            "check the server",
                        ) from None
                    yield data
            except httpx2.SSEError as exc:
                if "limit" in str(exc):
                    raise EndpointDown(
                        f"model server {self.url} sent an event longer than "
                        f"{EVENT_MAX // 1024} KiB",
                        "check the server",
                    ) from None
                raise EndpointDown(
                    f"model server {self.url} did not stream: {_reason(exc, self.read_timeout)}",
                    "check that llm_endpoint is an OpenAI-compatible server",
                ) from None
            except httpx2.TransportError as exc:
                deadline.check("streaming the answer")
                raise EndpointDown(
                    f"model server {self.url} stopped sending: "
                    f"{_reason(exc, self.read_timeout, 'nothing for')}",
                    "check the server, or raise llm_endpoint_timeout",
                ) from None
        raise EndpointDown(
            f"model server {self.url} stopped sending before the end of the answer",
            "check the server",
        )

    # --- generation ------------------------------------------------------------------

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Event | None = None
    ) -> Iterator[str]:
        """Text pieces as the server streams them: ``/chat/completions`` for a ChatPrompt,
        ``/completions`` for a plain prompt. ``repeat_penalty`` is not sent (not part of the
        OpenAI API, which rejects it; a capable model does not need it): the server's own
        default applies, unless ``extra_body`` names one."""
        chat = isinstance(prompt, ChatPrompt)
        body: dict[str, Any] = {
            "model": self.model_id(),
            "max_tokens": int(max_tokens),
            "temperature": float(sampling.temperature),
            "stream": True,
            "seed": 0,
        }
        body.update(self.extra_body)
        if sampling.stop:
            body["stop"] = list(sampling.stop)
        if isinstance(prompt, ChatPrompt):
            body["messages"] = list(prompt.messages)
        else:
            body["prompt"] = str(prompt)
        self.finish_reason = None
        most = int(max_tokens) + TOKEN_SLACK  # counted here: a server may ignore max_tokens
        pieces = sent = 0
        path = "chat/completions" if chat else "completions"
        budget = EVENT_MAX + most * STREAM_BYTES_PER_TOKEN  # the stream's bytes in all
        for event in self._events(path, body, cancel, budget):
            for choice in event.get("choices") or []:
                self.finish_reason = choice.get("finish_reason") or self.finish_reason
                piece = (choice.get("delta") or {}).get("content") if chat else choice.get("text")
                if piece:
                    pieces, sent = pieces + 1, sent + len(piece.encode("utf-8"))
                    if pieces > most or sent > most * TEXT_BYTES_PER_TOKEN:
                        raise EndpointDown(
                            f"model server {self.url} sent more than the {max_tokens} tokens "
                            "asked for",
                            "check the server",
                        )
                    yield piece

    def yes_probability(self, prompt: str) -> float:
        """P(yes) / (P(yes) + P(no)) of the first answer token, from the server's
        ``top_logprobs``; a server that returns none is scored by its greedy word (yes 1,
        no 0, anything else 0.5)."""
        messages = (
            list(prompt.messages)
            if isinstance(prompt, ChatPrompt)
            else [{"role": "user", "content": str(prompt)}]
        )
        body = {
            "model": self.model_id(),
            "messages": messages,
            "max_tokens": 1,
            "temperature": 0.0,
            "logprobs": True,
            "top_logprobs": YES_NO_TOP,
            "seed": 0,
        }
        choices = self._json("chat/completions", body, "answer").get("choices") or [{}]
        choice = choices[0] if isinstance(choices[0], dict) else {}
        return yes_share(choice)


class Deadline:
    """The time one request may take in all (``llm_endpoint_deadline``), retry included: no
    single wait is longer than what is left, and every piece received checks it."""

    def __init__(self, seconds: float, url: str) -> None:
        self.seconds, self.url = seconds, url
        self.at = time.monotonic() + seconds

    def check(self, doing: str) -> None:
        """EndpointDown once the time is up."""
        if time.monotonic() >= self.at:
            raise EndpointDown(
                f"model server {self.url} took more than {self.seconds:g} s {doing}",
                "check the server, or raise llm_endpoint_deadline",
            )

    def wait(self, read_timeout: float) -> float:
        """The longest wait for the next piece: the read timeout, or what is left."""
        self.check("before it answered")
        return min(read_timeout, self.at - time.monotonic())

    def read(self, resp: httpx2.Response, cap: int, what: str, whole: bool = True) -> bytes:
        """The body, up to ``cap`` bytes: more is an error (``whole``) or left unread."""
        buf = bytearray()
        for chunk in resp.iter_bytes():
            buf += chunk
            if len(buf) > cap:
                if not whole:
                    return bytes(buf[:cap])
                raise EndpointDown(
                    f"model server {self.url} sent more than {cap // 1024} KiB for {what}",
                    "check the server",
                )
            self.check(f"sending {what}")
        return bytes(buf)


class _Bounded:
    """A streamed response as ``EventSource`` reads it (``headers``, ``request``,
    ``iter_text``), with the deadline and a byte budget checked on every piece received:
    a server dripping a byte a second never completes an event, so a check per event alone
    would never run."""

    def __init__(self, resp: httpx2.Response, deadline: Deadline, max_bytes: int) -> None:
        self._resp, self._deadline, self._max = resp, deadline, max_bytes
        self.headers, self.request = resp.headers, resp.request

    def iter_text(self) -> Iterator[str]:
        got = 0
        for text in self._resp.iter_text():
            got += len(text)
            if got > self._max:
                raise EndpointDown(
                    f"model server {self._deadline.url} sent more than {self._max // 1024} KiB "
                    "for one answer",
                    "check the server",
                )
            self._deadline.check("streaming the answer")
            yield text


def yes_share(choice: dict[str, Any]) -> float:
    """The yes/no verdict of one chat choice (see ``EndpointLLM.yes_probability``)."""
    import math

    content = (choice.get("logprobs") or {}).get("content") or []
    mass = {"yes": 0.0, "no": 0.0}
    for alt in (content[0].get("top_logprobs") or []) if content else []:
        word = str(alt.get("token", "")).strip().lower()
        if word in mass:
            mass[word] += math.exp(float(alt.get("logprob", -math.inf)))
    if mass["yes"] + mass["no"] > 0:
        return mass["yes"] / (mass["yes"] + mass["no"])
    said = str((choice.get("message") or {}).get("content") or "").strip().lower()
    return 1.0 if said.startswith("yes") else 0.0 if said.startswith("no") else 0.5


def _reason(exc: BaseException, timeout: float, waited: str = "no answer within") -> str:
    """One line for an httpx2 error: the OS error under it when there is one."""
    import httpx2

    if isinstance(exc, httpx2.ConnectTimeout):
        return "could not connect (timed out)"
    if isinstance(exc, httpx2.TimeoutException):
        return f"{waited} {timeout:g} s"
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, ConnectionRefusedError):
        return "connection refused"
    if isinstance(cause, socket.gaierror):
        return "unknown host"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"could not connect ({text})" if isinstance(exc, httpx2.ConnectError) else text


def _error_detail(raw: str) -> str:
    """The server's own error message, short (OpenAI's {"error": {"message": ...}} or FastAPI's
    {"detail": ...}), else the start of the body."""
    try:
        data = json.loads(raw)
        err = data.get("error") if isinstance(data, dict) else None
        msg = (err.get("message") if isinstance(err, dict) else err) or data.get("detail")
        return " ".join(str(msg).split())[:200]
    except (ValueError, AttributeError):
        return " ".join(raw[:2000].split())[:200]
