"""A generator on an OpenAI-compatible model server (llama.cpp's server, vLLM, Ollama, ...).

``EndpointLLM`` has the surface the pipeline uses of ``LocalLLM`` (``chat_prompt``,
``stream``, ``count_tokens``, ``fits``, ``yes_probability``), so answers, rewrites and the
``llm`` grader need no change. The server applies its own chat template, so
``chat_prompt`` returns a ``ChatPrompt``: the messages, which as a string are only what the
token estimate counts. HTTP is the standard library's (httpx is not a dependency): a
connect and a read timeout, one retry on a failure before the first piece, then
``EndpointDown`` with one line naming the URL.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import closing
from typing import Any
from urllib.parse import urlsplit

from localcrag.errors import LocalcragError

CONNECT_TIMEOUT = 5.0  # seconds to open the connection (the read timeout is a setting)
BYTES_PER_TOKEN = 3  # token estimate: English BPE runs ~4 bytes per token, so this errs long
YES_NO_TOP = 10  # alternatives asked for with the yes/no token (OpenAI allows up to 20)


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


def is_loopback(url: str) -> bool:
    """True when the URL's host is this machine (localhost, 127.0.0.0/8, ::1); no DNS lookup,
    so it is safe to ask offline."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class EndpointLLM:
    """One OpenAI-compatible server; ``url`` is its base URL ending in ``/v1``."""

    remote = True  # evidence text leaves the process (the answer style counts it as capable)
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
    ) -> None:
        self.url = url.rstrip("/")
        parts = urlsplit(self.url)
        self._https = parts.scheme == "https"
        self._host, self._port = parts.hostname or "", parts.port
        self._base = parts.path.rstrip("/")
        self._model = model
        self._key, self._key_env = api_key, key_env
        self.n_ctx = n_ctx
        self.read_timeout = read_timeout
        self.extra_body = dict(
            extra_body or {}
        )  # server-specific options sent with every generation
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

    def _connect(self) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        conn = cls(self._host, self._port, timeout=min(CONNECT_TIMEOUT, self.read_timeout))
        conn.connect()
        conn.sock.settimeout(self.read_timeout)  # from now on: the wait for each piece
        return conn

    def _request(self, method: str, path: str, body: dict | None = None) -> tuple[Any, Any]:
        """(connection, response) for a 2xx answer; EndpointDown otherwise, after one retry
        for a failure that may pass (no connection, a timeout, a 5xx)."""
        headers = {"Accept": "application/json, text/event-stream"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        why = ""
        for attempt in (1, 2):  # noqa: B007 (read after the loop)
            try:
                conn = self._connect()
            except OSError as exc:
                why = (
                    _reason(exc)
                    if isinstance(exc, (ConnectionRefusedError, socket.gaierror))
                    else f"could not connect ({_reason(exc)})"
                )
                continue
            try:
                conn.request(method, self._base + path, body=data, headers=headers)
                resp = conn.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                why = (
                    f"no answer within {self.read_timeout:g} s"
                    if isinstance(exc, TimeoutError)
                    else _reason(exc)
                )
                continue
            if 200 <= resp.status < 300:
                return conn, resp
            detail = _error_detail(resp)
            conn.close()
            why = f"HTTP {resp.status}{': ' + detail if detail else ''}"
            if resp.status == 401 and self._key_env and not self._key:
                why += f" (the key is read from ${self._key_env}, which is not set)"
            if resp.status < 500:
                break  # the request itself is wrong: asking again gives the same answer
        retried = "retried once" if attempt == 2 else "not retried"
        raise EndpointDown(
            f"model server {self.url} failed: {why} ({retried})",
            "check llm_endpoint, or unset it to use the local model",
        )

    def check(self) -> None:
        """Ask the server for its models (``GET /models``): is it up, and which model is
        meant when ``llm_endpoint_model`` is unset (the first one listed)."""
        conn, resp = self._request("GET", "/models")
        with closing(conn):
            try:
                listed = json.loads(resp.read() or b"{}").get("data") or []
            except (OSError, ValueError, AttributeError, http.client.HTTPException) as exc:
                raise EndpointDown(
                    f"model server {self.url} sent an unreadable model list: {_reason(exc)}",
                    "check llm_endpoint",
                ) from exc
        if not self._model:
            if not listed:
                raise EndpointDown(
                    f"model server {self.url} lists no models", "set llm_endpoint_model"
                )
            self._model = str(listed[0].get("id"))

    def model_id(self) -> str:
        """``llm_endpoint_model``, else the first model the server lists (asked once)."""
        if not self._model:
            self.check()
        return str(self._model)

    def _events(self, path: str, body: dict, cancel: threading.Event | None) -> Iterator[dict]:
        """The JSON objects of a server-sent event stream, until ``[DONE]``."""
        conn, resp = self._request("POST", path, body)
        with closing(conn):
            while not (cancel is not None and cancel.is_set()):
                try:
                    line = resp.readline()
                except (OSError, http.client.HTTPException) as exc:
                    why = (
                        f"nothing for {self.read_timeout:g} s"
                        if isinstance(exc, TimeoutError)
                        else _reason(exc)
                    )
                    raise EndpointDown(
                        f"model server {self.url} stopped sending: {why}",
                        "check the server, or raise llm_endpoint_timeout",
                    ) from exc
                if not line:  # the connection closed without the closing [DONE]
                    raise EndpointDown(
                        f"model server {self.url} stopped sending before the end of the answer",
                        "check the server",
                    )
                text = line.decode("utf-8", errors="replace").strip()
                if not text.startswith("data:"):
                    continue  # blank separators, ": ping" comments, event names
                payload = text[5:].strip()
                if payload == "[DONE]":
                    return
                try:
                    yield json.loads(payload)
                except ValueError as exc:
                    raise EndpointDown(
                        f"model server {self.url} sent an unreadable event: {payload[:80]!r}",
                        "check the server",
                    ) from exc

    # --- generation ------------------------------------------------------------------

    def stream(
        self,
        prompt: str,
        max_tokens: int,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        cancel: threading.Event | None = None,
        repeat_penalty: float = 1.0,
    ) -> Iterator[str]:
        """Text pieces as the server streams them: ``/chat/completions`` for a ChatPrompt,
        ``/completions`` for a plain prompt. ``repeat_penalty`` is not sent (not part of the
        OpenAI API, which rejects it; a capable model does not need it): the server's own
        default applies, unless ``extra_body`` names one."""
        chat = isinstance(prompt, ChatPrompt)
        body: dict[str, Any] = {
            "model": self.model_id(),
            "max_tokens": int(max_tokens),
            "temperature": float(temperature),
            "stream": True,
            "seed": 0,
        }
        body.update(self.extra_body)
        if stop:
            body["stop"] = list(stop)
        if chat:
            body["messages"] = list(prompt.messages)
        else:
            body["prompt"] = str(prompt)
        self.finish_reason = None
        for event in self._events("/chat/completions" if chat else "/completions", body, cancel):
            for choice in event.get("choices") or []:
                self.finish_reason = choice.get("finish_reason") or self.finish_reason
                piece = (choice.get("delta") or {}).get("content") if chat else choice.get("text")
                if piece:
                    yield piece

    def complete(self, prompt: str, max_tokens: int, **kwargs: Any) -> str:
        return "".join(self.stream(prompt, max_tokens, **kwargs))

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
        conn, resp = self._request("POST", "/chat/completions", body)
        with closing(conn):
            try:
                choice = (json.loads(resp.read()).get("choices") or [{}])[0]
            except (OSError, ValueError, http.client.HTTPException) as exc:
                raise EndpointDown(
                    f"model server {self.url} sent an unreadable answer: {_reason(exc)}",
                    "check the server",
                ) from exc
        return yes_share(choice)


def yes_share(choice: dict) -> float:
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


def _reason(exc: BaseException) -> str:
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, socket.gaierror):
        return "unknown host"
    return " ".join(str(exc).split()) or type(exc).__name__


def _error_detail(resp: Any) -> str:
    """The server's own error message, short (OpenAI's {"error": {"message": ...}} or FastAPI's
    {"detail": ...}), else the start of the body."""
    try:
        raw = resp.read(2000).decode("utf-8", errors="replace")
    except (OSError, http.client.HTTPException):
        return ""
    try:
        data = json.loads(raw)
        err = data.get("error") if isinstance(data, dict) else None
        msg = (err.get("message") if isinstance(err, dict) else err) or data.get("detail")
        return " ".join(str(msg).split())[:200]
    except (ValueError, AttributeError):
        return " ".join(raw.split())[:200]
