"""Web search fallback: DuckDuckGo via ``ddgs``, with hard offline and time guarantees.

Why this module is careful:
- ``offline=True`` or policy "never" must mean *no* network activity, not even DNS.
- ddgs joins its own worker pool before returning, so its ``timeout`` is not a deadline;
  every search here runs in a daemon thread that we stop waiting for at the deadline.
- ``getaddrinfo`` has no timeout, so the reachability probe also runs in a thread.
- Failures become one-line messages (``WebSearchError``), never tracebacks.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from localcrag.events import Event, WebError, WebQuery, WebResults, WebSkipped
from localcrag.types import WebResult

T = TypeVar("T")

SEARCH_HOST = "duckduckgo.com"
ONLINE_TTL = 30.0  # seconds a DNS verdict is reused: one probe per question, not per call

SKIP_OFFLINE = "offline setting"
SKIP_DNS = "no network: the search host does not resolve"
SKIP_DISABLED = "web search disabled"
SKIP_DECLINED = "declined by user"
SKIP_EMPTY = "empty query"
SKIP_NO_CONSENT = "nobody to ask for consent (no terminal)"
SKIP_SCOPED = "the question is asked within chosen documents"

MSG_OFFLINE = f"offline: cannot resolve {SEARCH_HOST}"
MSG_RATELIMIT = "rate limited by DuckDuckGo (202 Ratelimit); try again later"
MSG_NO_RESULTS = "DuckDuckGo returned no results (possibly rate limited); try again later"


class WebSearchError(Exception):
    """A web search failed; ``str()`` is a one-line message fit for the user."""


class WebSearch(Protocol):
    """Anything that turns a query into web results (DuckDuckGo, a fake in tests...)."""

    @property
    def host(self) -> str | None:
        """The host a DNS lookup must resolve before a search is tried; None: a local
        engine or a fake, never probed."""

    def search(self, query: str, max_results: int) -> list[WebResult]: ...


# --- helpers -----------------------------------------------------------------------------


def _call_with_deadline(fn: Callable[[], T], seconds: float) -> T:
    """Run ``fn`` in a daemon thread; raise TimeoutError if it is not done in time.

    The thread is abandoned, not killed (Python cannot kill threads); being a daemon it
    never blocks interpreter exit, and ddgs' own HTTP timeout ends it soon after.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="localcrag-web", daemon=True).start()
    if not done.wait(max(seconds, 0.0)):
        raise TimeoutError(f"no answer after {seconds:g} s")
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def _one_line(text: str, limit: int = 120) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


_online_cache: dict[str, tuple[float, bool]] = {}
_online_lock = threading.Lock()


def clear_online_cache() -> None:
    """Forget cached DNS verdicts (tests; or after the user reconnects)."""
    with _online_lock:
        _online_cache.clear()


def is_online(host: str = SEARCH_HOST, timeout: float = 1.5) -> bool:
    """True if ``host`` resolves within ``timeout`` s. Cached for ONLINE_TTL seconds.

    DNS is the honest test: a raw socket connect can "succeed" through a proxy or
    captive portal while nothing is reachable, and it would be a network call itself.
    """
    now = time.monotonic()
    with _online_lock:
        hit = _online_cache.get(host)
        if hit is not None and now - hit[0] < ONLINE_TTL:
            return hit[1]
    try:
        ok = bool(
            _call_with_deadline(
                lambda: socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM), timeout
            )
        )
    except Exception:  # noqa: BLE001 - gaierror, UnicodeError, TimeoutError: all mean "no"
        ok = False
    with _online_lock:
        _online_cache[host] = (time.monotonic(), ok)
    return ok


# --- DuckDuckGo ----------------------------------------------------------------------------


def _to_results(raw: list[dict[str, Any]], max_results: int) -> list[WebResult]:
    """ddgs dicts -> WebResult, dropping entries without a URL or text and duplicate URLs."""
    out: list[WebResult] = []
    seen: set[str] = set()
    for item in raw or []:
        url = str(item.get("href") or item.get("url") or "").strip()
        title = " ".join(str(item.get("title") or "").split())
        snippet = " ".join(str(item.get("body") or item.get("snippet") or "").split())
        key = url.rstrip("/").lower()
        if not url or not (title or snippet) or key in seen:
            continue
        seen.add(key)
        out.append(WebResult(title=title, url=url, snippet=snippet))
        if len(out) >= max_results:
            break
    return out


class DDGSearch:
    """DuckDuckGo text search through ``ddgs`` (imported on first use: it pulls in lxml/primp).

    ``backend="duckduckgo"`` queries html.duckduckgo.com only, so the DNS probe of
    duckduckgo.com is the right reachability test; ddgs also offers brave, mojeek,
    startpage, wikipedia, grokipedia, yahoo (comma-separated) or "auto".
    """

    host = SEARCH_HOST

    def __init__(
        self, timeout: float = 5.0, region: str = "wt-wt", backend: str = "duckduckgo"
    ) -> None:
        self.timeout = float(min(max(timeout, 0.1), 5.0))
        self.region = region
        self.backend = backend

    def search(self, query: str, max_results: int) -> list[WebResult]:
        """Search; raise WebSearchError with a one-line message on any failure."""
        try:
            import ddgs
            from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException
        except Exception as exc:  # noqa: BLE001
            raise WebSearchError(
                f"web search unavailable: cannot import ddgs ({type(exc).__name__})"
            ) from None

        def run() -> list[dict[str, Any]]:
            # ddgs annotates an int, but its HTTP client and its wait() take float seconds
            client = ddgs.DDGS(timeout=self.timeout)  # type: ignore[arg-type]
            return client.text(
                query, region=self.region, max_results=max_results, backend=self.backend
            )

        timed_out = f"web search timed out after {self.timeout:g} s"
        try:
            raw = _call_with_deadline(run, self.timeout)
        except TimeoutError:
            raise WebSearchError(timed_out) from None
        except RatelimitException:
            raise WebSearchError(MSG_RATELIMIT) from None
        except TimeoutException:
            raise WebSearchError(timed_out) from None
        except DDGSException as exc:
            raise WebSearchError(_ddgs_message(str(exc), timed_out)) from None
        except Exception as exc:  # noqa: BLE001 - a bug or odd network error, still one line
            raise WebSearchError(
                _one_line(f"web search failed: {type(exc).__name__}: {exc}")
            ) from None
        return _to_results(raw, max_results)


def _ddgs_message(text: str, timed_out: str) -> str:
    """Classify ddgs' stringly-typed errors (9.x wraps every HTTP error in DDGSException)."""
    low = text.lower()
    if "dns" in low or "resolv" in low or "name or service not known" in low:
        return MSG_OFFLINE
    if "ratelimit" in low or "rate limit" in low or re.search(r"\b202\b", low):
        return MSG_RATELIMIT
    if "timed out" in low or "timeout" in low:
        return timed_out
    if "no results found" in low:
        # ddgs 9.16 turns DuckDuckGo's 202 rate-limit page into "No results found."
        return MSG_NO_RESULTS
    return _one_line(f"web search failed: {text}")


# --- the pipeline's entry point ------------------------------------------------------------


@dataclass(frozen=True)
class WebOutcome:
    """What the web step did: results, an error, or why it was skipped."""

    attempted: bool  # a search request was actually sent
    query: str | None
    results: tuple[WebResult, ...] = ()
    error: str | None = None
    skipped: str | None = None


def search_web(
    query: str | Callable[[], str | None],
    *,
    searcher: WebSearch | None,
    offline: bool,
    policy: str,
    confirm: Callable[[str], bool] | None,
    timeout: float = 5.0,
    max_results: int = 4,
    region: str = "wt-wt",
    scoped: bool = False,
) -> WebOutcome:
    """Run the policy checks, then the search, within ``timeout`` seconds in total.

    Order: a scoped question (never the web) -> offline/"never"/"ask" with nobody to ask (no network at all) -> DNS probe -> the
    query -> "ask" confirm -> search. ``query`` may be a function (the model's rewrite): it runs only once the
    machine is known to be online, so an offline ask never pays for a query it cannot send.
    The DNS probe targets ``searcher.host`` (DuckDuckGo for DDGSearch / None); a searcher
    whose ``host`` is None (a fake, a local engine) is not probed.
    """
    if policy not in ("ask", "always", "never"):
        raise ValueError(f"web policy must be ask, always or never, not {policy!r}")
    if scoped:  # the person said where to look: the web is elsewhere
        return WebOutcome(False, None, skipped=SKIP_SCOPED)
    if offline:
        return WebOutcome(False, None, skipped=SKIP_OFFLINE)
    if policy == "never":
        return WebOutcome(False, None, skipped=SKIP_DISABLED)
    if policy == "ask" and confirm is None:  # the answer can only be "no": not even a DNS lookup
        return WebOutcome(False, None, skipped=SKIP_NO_CONSENT)
    host = SEARCH_HOST if searcher is None else searcher.host
    if host and not is_online(host, timeout=min(1.5, timeout)):
        return WebOutcome(False, None, skipped=SKIP_DNS)  # checked first: never ask in vain
    q = " ".join(((query() if callable(query) else query) or "").split()) or None
    if q is None:
        return WebOutcome(False, None, skipped=SKIP_EMPTY)
    if policy == "ask" and (confirm is None or not confirm(q)):
        return WebOutcome(False, q, skipped=SKIP_DECLINED)
    remaining = max(timeout, 0.2)  # the budget starts now: the user's thinking time is not in it
    engine: WebSearch = (
        searcher if searcher is not None else DDGSearch(timeout=remaining, region=region)
    )
    try:
        results = _call_with_deadline(lambda: engine.search(q, max_results), remaining)
    except TimeoutError:
        return WebOutcome(True, q, error=f"web search timed out after {timeout:g} s")
    except WebSearchError as exc:
        message = _one_line(str(exc))
        if message.startswith("web search timed out"):  # report the caller's budget, not the rest
            message = f"web search timed out after {timeout:g} s"
        return WebOutcome(True, q, error=message)
    except Exception as exc:  # noqa: BLE001 - a broken searcher must not end the answer
        return WebOutcome(
            True, q, error=_one_line(f"web search failed: {type(exc).__name__}: {exc}")
        )
    return WebOutcome(True, q, results=tuple(results[:max_results]))


def outcome_events(outcome: WebOutcome) -> list[Event]:
    """The events the pipeline yields for a web step (WebSkipped.reason is ``skipped``)."""
    if outcome.skipped is not None:
        return [WebSkipped(reason=outcome.skipped)]
    events: list[Event] = [WebQuery(query=outcome.query or "")]
    if outcome.error is not None:
        events.append(WebError(query=outcome.query, error=outcome.error))
    else:
        events.append(WebResults(query=outcome.query or "", results=outcome.results))
    return events
