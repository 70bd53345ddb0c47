"""A fake model server for tests: a real HTTP server on 127.0.0.1, in its own thread, speaking
the OpenAI Chat Completions wire (``POST /v1/chat/completions``) or the Anthropic Messages
wire (``POST /v1/messages``), streamed (SSE) and not, with injectable faults.

    with FakeLLM([{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.py"}}]},
                  {"content": "all done"}]) as fake:
        fake.inject(Fault.rate_limited(retry_after="1"), Fault.server_error())
        config = ProviderConfig(name="openai", base_url=fake.url)
        ...
        assert fake.requests[0]["model"] == ...

A turn is the scripted-provider format (``{"tool_calls": [...]}``, a call's ``id`` chosen
by the turn or made up, or ``{"content": ...}``) or
a callable receiving the request body and returning one. When the turns run out the server
answers ``{"content": "done"}``. A turn ``{"sse": b"..."}`` replays those bytes verbatim as
the SSE body of a streamed answer (the recorded streams in ../shared/wire-schemas/streams).
Faults are consumed one per request, before turns (``fake.inject_at(n, fault)`` gives the
n-th request its own); a fault that produces no usable answer (an error status, a hang, a
drop, a truncated, malformed, endless or trickling answer) leaves the turn for the next
request, so a retry gets it. ``Fault.endless(...)`` never stops sending (content deltas,
argument deltas, both, or one endless line); ``Fault.trickle(s)`` sends a byte every ``s``
seconds forever; ``Fault.stream_error(..., message=...)`` puts any text in an error event.

What the fake saw and said, per request (index ``i`` is the ``i+1``-th request):
``fake.requests[i]`` (the body), ``fake.headers[i]``, ``fake.usages[i]`` (the usage object
reported, e.g. ``["prompt_tokens_details"]["cached_tokens"]`` or
``["cache_read_input_tokens"]``; None when the request got no answer) and
``fake.sent_bytes[i]`` (answer body bytes written).

Usage is reported as a real server would, prompt caching included (``fake_cache.py``
documents the serialisation and the rules: the OpenAI wire's automatic prefix cache, the
Anthropic wire's ``cache_control`` breakpoints with the 20-block lookback).
``cache_tokens=(read, write)`` reports fixed figures instead. The emulated entries expire
as a real provider's do (``fake_cache.py``), on ``clock`` (a test passes one it moves).
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from harness.provider.config import ProviderConfig, RetryPolicy, Timeouts
from tests.support.fake_cache import AnthropicBreakpointCache, OpenAIPrefixCache, breakpoint_error

Turn = Mapping[str, Any] | Callable[[dict[str, Any]], Mapping[str, Any]]
FaultKind = Literal[
    "status",
    "hang",
    "drop",
    "truncate",
    "empty",
    "invalid_body",
    "bad_arguments",
    "stream_error",
    "endless",
    "trickle",
]
Endless = Literal["content", "arguments", "mixed", "line"]

# Error bodies in each wire's real format, by error name.
_OPENAI_ERRORS: dict[str, tuple[str, str | None, str]] = {
    # name: (type, code, message)
    "rate_limit": (
        "requests",
        "rate_limit_exceeded",
        "Rate limit reached for requests. Please try again in 1s.",
    ),
    "server": ("server_error", None, "The server had an error while processing your request."),
    "auth": ("invalid_request_error", "invalid_api_key", "Incorrect API key provided: {key}."),
    "context_length": (
        "invalid_request_error",
        "context_length_exceeded",
        "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 131072 tokens. Please reduce the length of the messages.",
    ),
    "bad_request": ("invalid_request_error", None, "Invalid value for 'model'."),
}
_ANTHROPIC_ERRORS: dict[str, tuple[str, str]] = {
    "rate_limit": ("rate_limit_error", "Number of requests has exceeded your rate limit."),
    "server": ("api_error", "Internal server error"),
    "overloaded": ("overloaded_error", "Overloaded"),
    "auth": ("authentication_error", "invalid x-api-key: {key}"),
    "context_length": (
        "invalid_request_error",
        "prompt is too long: 210000 tokens > 200000 maximum",
    ),
    "bad_request": ("invalid_request_error", "model: field required"),
}


@dataclass(frozen=True)
class Fault:
    """One injected misbehaviour. Build with the class methods."""

    kind: FaultKind
    status: int = 200
    error: str = ""  # a name from the error tables: the body in the wire's own format
    body: bytes | None = None  # an exact body instead
    headers: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    after_events: int = 0
    raw_arguments: str = ""
    shape: Endless = "content"  # what an endless answer repeats

    @classmethod
    def http(
        cls,
        status: int,
        error: str = "server",
        *,
        body: str | bytes | Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Fault:
        raw = json.dumps(body).encode() if isinstance(body, Mapping) else body
        raw = raw.encode() if isinstance(raw, str) else raw
        return cls("status", status, error, raw, tuple((headers or {}).items()))

    @classmethod
    def rate_limited(cls, retry_after: str | None = "1") -> Fault:
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        return cls.http(429, "rate_limit", headers=headers)

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        return cls.http(status, "overloaded" if status == 529 else "server")

    @classmethod
    def unauthorized(cls) -> Fault:
        """401 whose message echoes the key the client sent (as some servers do)."""
        return cls.http(401, "auth")

    @classmethod
    def context_length(cls, status: int = 400) -> Fault:
        return cls.http(status, "context_length")

    @classmethod
    def hang(cls, seconds: float, *, after_events: int = 0) -> Fault:
        """Say nothing for ``seconds`` (before the headers, or mid-stream after some events)."""
        return cls("hang", seconds=seconds, after_events=after_events)

    @classmethod
    def drop(cls, *, after_events: int = 2) -> Fault:
        """Close the connection mid-answer, without ending the HTTP body."""
        return cls("drop", after_events=after_events)

    @classmethod
    def truncated(cls, *, after_events: int = 2) -> Fault:
        """End the stream cleanly at the HTTP level but before the wire's end marker."""
        return cls("truncate", after_events=after_events)

    @classmethod
    def empty_choices(cls) -> Fault:
        """OpenAI: ``choices: []``; Anthropic: a message without ``content``."""
        return cls("empty")

    @classmethod
    def invalid_body(cls) -> Fault:
        """A 200 whose body (or a stream event) is not JSON."""
        return cls("invalid_body")

    @classmethod
    def bad_arguments(cls, raw: str = '{"path": "a.py"') -> Fault:
        """Answer the next turn, but every tool call's arguments are ``raw`` (not JSON)."""
        return cls("bad_arguments", raw_arguments=raw)

    @classmethod
    def stream_error(
        cls, error: str = "overloaded", *, after_events: int = 1, message: str | None = None
    ) -> Fault:
        """An error event inside a 200 stream (Anthropic ``event: error``; OpenAI ``{"error"}``),
        in the wire's own format; ``message`` replaces the error's message."""
        body = None if message is None else message.encode()
        return cls("stream_error", error=error, body=body, after_events=after_events)

    @classmethod
    def endless(cls, what: Endless = "content") -> Fault:
        """A 200 answer that never ends, as fast as the client reads: content deltas, tool-call
        argument deltas, both alternating, or one ``data:`` line that never ends (``line``).
        Not streamed: a JSON body that never closes."""
        return cls("endless", shape=what)

    @classmethod
    def trickle(cls, interval_s: float) -> Fault:
        """A slow loris: a 200 whose body is one byte every ``interval_s``, forever."""
        return cls("trickle", seconds=interval_s)


def _too_many_breakpoints(body: Mapping[str, Any]) -> Fault | None:
    """The real server's 400 for a request with more than 4 ``cache_control`` blocks."""
    message = breakpoint_error(body)
    if message is None:
        return None
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return Fault.http(400, body=error)


@dataclass
class _Answer:
    """What one request gets: the turn, the request, and usage to report."""

    turn: Mapping[str, Any]
    body: dict[str, Any]
    number: int
    prompt_tokens: int
    completion_tokens: int
    cache: tuple[int, int] = (0, 0)
    raw_arguments: str | None = None

    @property
    def calls(self) -> list[dict[str, Any]]:
        calls = []
        for n, c in enumerate(self.turn.get("tool_calls") or []):
            args = self.raw_arguments
            if args is None:
                args = json.dumps(c.get("arguments", {}))
            calls.append({"n": n, "name": c["name"], "arguments": args, "id": c.get("id")})
        return calls

    @property
    def content(self) -> str:
        return str(self.turn.get("content", ""))


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _sse(data: Mapping[str, Any] | str, event: str | None = None) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


@dataclass
class FakeLLM:
    turns: list[Turn] = field(default_factory=list)
    wire: str = "openai"
    delay_s: float = 0.0
    chunk_chars: int = 8  # streamed content and arguments are split into pieces this long
    interleave: bool = False  # OpenAI stream: alternate the deltas of several tool calls
    report_usage: bool = True  # False: a server that never reports usage
    cache_tokens: tuple[int, int] | None = None  # fixed (read, write); None: emulate the cache
    write_size: int = 0  # >0: coalesce stream events into writes of about this many bytes
    ignore_stream: bool = False  # answer whole JSON even when the client asked for a stream
    clock: Callable[[], float] = time.monotonic  # what the emulated caches expire on

    def __post_init__(self) -> None:
        if self.wire not in ("openai", "anthropic"):
            raise ValueError(f"unknown wire {self.wire!r}")
        self.turns = list(self.turns)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.faults: list[Fault] = []
        self.scheduled: dict[int, Fault] = {}  # request number (1-based) → its fault
        self.disconnects = 0  # clients that went away while the server was hanging
        self.connections = 0  # TCP connections accepted (keep-alive reuse keeps this low)
        self.usages: list[dict[str, Any] | None] = []  # the usage reported, per request
        self.sent_bytes: list[int] = []  # body bytes written, per request
        self._openai_cache = OpenAIPrefixCache(clock=self.clock)
        self._anthropic_cache = AnthropicBreakpointCache(clock=self.clock)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    # -- control -----------------------------------------------------------------------

    def add_turns(self, *turns: Turn) -> None:
        with self._lock:
            self.turns.extend(turns)

    def inject(self, *faults: Fault) -> None:
        with self._lock:
            self.faults.extend(faults)

    def inject_at(self, request: int, fault: Fault) -> None:
        """``fault`` answers the ``request``-th request (1-based), before queued faults."""
        with self._lock:
            self.scheduled[request] = fault

    def start(self) -> FakeLLM:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        port = server.server_address[1]
        self.url = f"http://127.0.0.1:{port}" + ("/v1" if self.wire == "openai" else "")
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.02,), name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def config(self, **overrides: Any) -> ProviderConfig:
        """A ``ProviderConfig`` pointing at this server, with retries fast enough for tests."""
        options: dict[str, Any] = {
            "name": self.wire,
            "base_url": self.url,
            "retry": RetryPolicy(backoff_base_s=0.01, backoff_cap_s=0.05),
            "timeouts": Timeouts(connect=2.0, read=5.0, total=10.0),
        }
        options.update(overrides)
        return ProviderConfig(**options)

    @property
    def path(self) -> str:
        return "/v1/chat/completions" if self.wire == "openai" else "/v1/messages"

    # -- serving (called on handler threads) ----------------------------------------------

    def _receive(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Fault | None]:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.usages.append(None)
            self.sent_bytes.append(0)
            number = len(self.requests)
            fault = self.scheduled.pop(number, None)
            if fault is None and self.faults:
                fault = self.faults.pop(0)
            return number, fault

    def _take_turn(self, body: dict[str, Any], consume: bool) -> Mapping[str, Any]:
        with self._lock:
            turn: Turn = {"content": "done"}
            if self.turns:
                turn = self.turns.pop(0) if consume else self.turns[0]
        return turn(body) if callable(turn) else turn

    def _answer(
        self, body: dict[str, Any], raw: bytes, number: int, fault: Fault | None
    ) -> _Answer:
        consume = fault is None or fault.kind == "bad_arguments"
        turn = self._take_turn(body, consume)
        prompt, cache = self._prompt_usage(body, raw)
        answer = _Answer(
            turn=turn,
            body=body,
            number=number,
            prompt_tokens=prompt,
            completion_tokens=max(1, len(json.dumps(turn, default=repr)) // 4),
            cache=cache,
            raw_arguments=fault.raw_arguments if fault and fault.kind == "bad_arguments" else None,
        )
        if self.report_usage and consume:  # a faulty answer's usage never reaches the client
            usage = self._openai_usage(answer) if self.wire == "openai" else None
            with self._lock:
                self.usages[number - 1] = usage or self._anthropic_usage(answer)
        return answer

    def _prompt_usage(self, body: dict[str, Any], raw: bytes) -> tuple[int, tuple[int, int]]:
        """Prompt tokens (OpenAI: all of them; Anthropic: the uncached rest) and the cache's
        (read, write), as the emulated cache (or the fixed ``cache_tokens``) says."""
        if self.cache_tokens is not None:
            return max(1, len(raw) // 4), self.cache_tokens
        with self._lock:
            if self.wire == "openai":
                total, cached = self._openai_cache.process(body)
                return total, (cached, 0)
            fresh, read, creation = self._anthropic_cache.process(body)
            return fresh, (read, creation)

    def _error_body(self, error: str, key: str) -> bytes:
        if self.wire == "openai":
            kind, code, message = _OPENAI_ERRORS.get(error, _OPENAI_ERRORS["server"])
            err = {"message": message.format(key=key), "type": kind, "param": None, "code": code}
            return json.dumps({"error": err}).encode()
        kind, message = _ANTHROPIC_ERRORS.get(error, _ANTHROPIC_ERRORS["server"])
        return json.dumps(
            {"type": "error", "error": {"type": kind, "message": message.format(key=key)}}
        ).encode()

    def _wait(self, handler: BaseHTTPRequestHandler, seconds: float) -> bool:
        """Sleep, waking early when the server stops or the client hangs up (then False)."""
        deadline = time.monotonic() + seconds
        sock = handler.connection
        while not self._stopping.is_set() and time.monotonic() < deadline:
            readable, _, _ = select.select([sock], [], [], 0.02)
            if not readable:
                continue
            try:
                peek = sock.recv(1, socket.MSG_PEEK)
            except OSError:
                peek = b""
            if not peek:
                with self._lock:
                    self.disconnects += 1
                return False
            time.sleep(0.02)
        return not self._stopping.is_set()

    # -- rendering: whole answers -------------------------------------------------------

    def _whole(self, a: _Answer, fault: Fault | None) -> dict[str, Any]:
        kind = fault.kind if fault else None
        if self.wire == "openai":
            return self._openai_whole(a, kind)
        return self._anthropic_whole(a, kind)

    def _openai_usage(self, a: _Answer) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "prompt_tokens": a.prompt_tokens,
            "completion_tokens": a.completion_tokens,
            "total_tokens": a.prompt_tokens + a.completion_tokens,
        }
        if a.cache[0] or self.cache_tokens is None:
            usage["prompt_tokens_details"] = {"cached_tokens": a.cache[0]}
        return usage

    def _openai_whole(self, a: _Answer, kind: str | None) -> dict[str, Any]:
        calls = [
            {
                "id": c["id"] or f"call_{a.number}_{c['n']}",  # a turn may choose it
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in a.calls
        ]
        message: dict[str, Any] = {"role": "assistant", "content": a.content or None}
        if calls:
            message["tool_calls"] = calls
        choice = {"index": 0, "message": message, "finish_reason": _finish(a, "tool_calls")}
        data: dict[str, Any] = {
            "id": f"chatcmpl-{a.number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": a.body.get("model", "fake"),
            "choices": [] if kind == "empty" else [choice],
        }
        if kind == "stream_error":
            data = {"error": {"message": "Overloaded", "type": "server_error", "code": 502}}
        if self.report_usage:
            data["usage"] = self._openai_usage(a)
        return data

    def _anthropic_usage(self, a: _Answer, *, output: int | None = None) -> dict[str, Any]:
        return {
            "input_tokens": a.prompt_tokens,
            "cache_read_input_tokens": a.cache[0],
            "cache_creation_input_tokens": a.cache[1],
            "output_tokens": a.completion_tokens if output is None else output,
        }

    def _anthropic_whole(self, a: _Answer, kind: str | None) -> dict[str, Any]:
        if kind == "stream_error":
            return json.loads(self._error_body("overloaded", ""))  # type: ignore[no-any-return]
        content: list[dict[str, Any]] = []
        if a.content:
            content.append({"type": "text", "text": a.content})
        for c in a.calls:
            block: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{a.number}_{c['n']}"}
            block["name"] = c["name"]
            # The real API always sends an object; a raw string tests a broken server.
            block["input"] = c["arguments"] if a.raw_arguments else json.loads(c["arguments"])
            content.append(block)
        data: dict[str, Any] = {
            "id": f"msg_{a.number}",
            "type": "message",
            "role": "assistant",
            "model": a.body.get("model", "fake"),
            "stop_reason": _finish(a, "tool_use", "end_turn"),
            "stop_sequence": None,
        }
        if kind != "empty":
            data["content"] = content
        if self.report_usage:
            data["usage"] = self._anthropic_usage(a)
        return data

    # -- rendering: streams ---------------------------------------------------------------

    def _events(self, a: _Answer, fault: Fault | None) -> list[bytes]:
        if self.wire == "openai":
            events = self._openai_events(a, fault.kind if fault else None)
        else:
            events = self._anthropic_events(a, fault.kind if fault else None)
        if fault and fault.kind == "invalid_body":
            events.insert(1, b"data: {not json\n\n")
        if fault and fault.kind == "stream_error":
            error = self._stream_error(fault.error, fault.body)
            events = [*events[: fault.after_events], error]
        return events

    def _stream_error(self, error: str, message: bytes | None = None) -> bytes:
        body = json.loads(self._error_body(error, ""))
        if message is not None:
            body["error"]["message"] = message.decode()
        return _sse(body, "error" if self.wire == "anthropic" else None)

    def _openai_events(self, a: _Answer, kind: str | None) -> list[bytes]:
        include_usage = bool((a.body.get("stream_options") or {}).get("include_usage"))
        include_usage = include_usage and self.report_usage
        base = {
            "id": f"chatcmpl-{a.number}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": a.body.get("model", "fake"),
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            data = {**base, "choices": [] if kind == "empty" else [choice]}
            if include_usage:
                data["usage"] = None
            return _sse(data)

        events = [chunk({"role": "assistant", "content": ""})]
        if a.content:
            events += [chunk({"content": p}) for p in _pieces(a.content, self.chunk_chars)]
        streams = []
        for c in a.calls:
            head = {
                "index": c["n"],
                "id": c["id"] or f"call_{a.number}_{c['n']}",
                "type": "function",
            }
            first = chunk(
                {"tool_calls": [{**head, "function": {"name": c["name"], "arguments": ""}}]}
            )
            rest = [
                chunk({"tool_calls": [{"index": c["n"], "function": {"arguments": p}}]})
                for p in _pieces(c["arguments"], self.chunk_chars)
            ]
            streams.append([first, *rest])
        events += _merge(streams, self.interleave)
        events.append(chunk({}, _finish(a, "tool_calls")))
        if include_usage:
            events.append(_sse({**base, "choices": [], "usage": self._openai_usage(a)}))
        events.append(b"data: [DONE]\n\n")
        return events

    def _anthropic_events(self, a: _Answer, kind: str | None) -> list[bytes]:
        message = {
            "id": f"msg_{a.number}",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": a.body.get("model", "fake"),
            "stop_reason": None,
            "stop_sequence": None,
        }
        if self.report_usage:
            message["usage"] = self._anthropic_usage(a, output=1)
        if kind == "empty":
            return [_sse({"type": "message_stop"}, "message_stop")]
        events = [_sse({"type": "message_start", "message": message}, "message_start")]
        events.append(_sse({"type": "ping"}, "ping"))
        index = 0
        if a.content:
            events += _block(
                index,
                {"type": "text", "text": ""},
                [{"type": "text_delta", "text": p} for p in _pieces(a.content, self.chunk_chars)],
            )
            index += 1
        for c in a.calls:
            start = {"type": "tool_use", "id": f"toolu_{a.number}_{c['n']}", "name": c["name"]}
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in _pieces(c["arguments"], self.chunk_chars)
            ]
            events += _block(index, {**start, "input": {}}, deltas)
            index += 1
        delta: dict[str, Any] = {
            "type": "message_delta",
            "delta": {"stop_reason": _finish(a, "tool_use", "end_turn"), "stop_sequence": None},
        }
        if self.report_usage:
            delta["usage"] = {"output_tokens": a.completion_tokens}
        events.append(_sse(delta, "message_delta"))
        events.append(_sse({"type": "message_stop"}, "message_stop"))
        return events


def _finish(a: _Answer, tools: str, stop: str = "stop") -> str:
    return str(a.turn.get("finish_reason") or (tools if a.calls else stop))


def _block(index: int, start: dict[str, Any], deltas: list[dict[str, Any]]) -> list[bytes]:
    events = [
        _sse(
            {"type": "content_block_start", "index": index, "content_block": start},
            "content_block_start",
        )
    ]
    events += [
        _sse({"type": "content_block_delta", "index": index, "delta": d}, "content_block_delta")
        for d in deltas
    ]
    events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    return events


def _merge(streams: list[list[bytes]], interleave: bool) -> list[bytes]:
    if not interleave:
        return [e for s in streams for e in s]
    merged: list[bytes] = []
    longest = max((len(s) for s in streams), default=0)
    for i in range(longest):
        merged += [s[i] for s in streams if i < len(s)]
    return merged


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    fake: FakeLLM

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client hanging up (cancellation, timeouts, aclose) is normal here, not an error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else Nagle + delayed ACK add ~40 ms per answer
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return None

    @property
    def fake(self) -> FakeLLM:
        return self.server.fake

    def setup(self) -> None:
        super().setup()
        with self.fake._lock:
            self.fake.connections += 1

    def do_POST(self) -> None:
        fake = self.fake
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path != fake.path:
            self._send(404, b'{"error": "not found"}')
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, b'{"error": "the request body is not JSON"}')
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        number, fault = fake._receive(body, headers)
        if fault is None and fake.wire == "anthropic" and fake.cache_tokens is None:
            fault = _too_many_breakpoints(body)
        if fake.delay_s:
            time.sleep(fake.delay_s)
        try:
            self._serve(fake, body, raw, number, fault, headers)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _serve(
        self,
        fake: FakeLLM,
        body: dict[str, Any],
        raw: bytes,
        number: int,
        fault: Fault | None,
        headers: dict[str, str],
    ) -> None:
        if fault and fault.kind == "status":
            bearer = headers.get("authorization", "").removeprefix("Bearer ")
            key = headers.get("x-api-key") or bearer
            payload = fault.body if fault.body is not None else fake._error_body(fault.error, key)
            self._send(fault.status, payload, dict(fault.headers))
            return
        if fault and fault.kind == "hang" and fault.after_events == 0:
            fake._wait(self, fault.seconds)
            self.close_connection = True
            return
        streamed = bool(body.get("stream")) and not fake.ignore_stream
        if fault and fault.kind in ("endless", "trickle"):
            self._forever(fake, number, fault, streamed)
            return
        answer = fake._answer(body, raw, number, fault)
        replay = answer.turn.get("sse")
        if isinstance(replay, bytes) and streamed:
            self._open_stream()
            self._write_chunk(fake, number, replay)
            self._end_stream()
        elif streamed:
            self._stream(fake, number, fake._events(answer, fault), fault)
        else:
            self._send_whole(fake, answer, fault)

    def _forever(self, fake: FakeLLM, number: int, fault: Fault, streamed: bool) -> None:
        """An answer that never ends: until the client hangs up or the server stops."""
        if streamed:
            self._open_stream()
        else:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
        if fault.kind == "trickle":
            head, again = b"", b" "
        elif streamed:
            head, again = _endless_events(fake.wire, fault.shape)
        else:
            head, again = b'{"choices": [{"index": 0, "message": {"content": "', b"x" * 65536
        self._write_chunk(fake, number, head)
        while not fake._stopping.is_set():
            if fault.kind == "trickle" and not fake._wait(self, fault.seconds):
                break
            self._write_chunk(fake, number, again)
        self._hang_up()

    def _send_whole(self, fake: FakeLLM, answer: _Answer, fault: Fault | None) -> None:
        payload = json.dumps(fake._whole(answer, fault)).encode()
        if fault and fault.kind == "invalid_body":
            payload = payload[: len(payload) // 2]
        if fault and fault.kind in ("drop", "truncate", "hang"):
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            if fault.kind == "hang":
                fake._wait(self, fault.seconds)
            self._hang_up()
            return
        self._send(200, payload)

    def _open_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def _write_chunk(self, fake: FakeLLM, number: int, data: bytes) -> None:
        if not data:
            return
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()
        with fake._lock:
            fake.sent_bytes[number - 1] += len(data)

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _stream(self, fake: FakeLLM, number: int, events: list[bytes], fault: Fault | None) -> None:
        self._open_stream()
        cut = fault.after_events if fault and fault.kind in ("drop", "truncate", "hang") else None
        for batch in _batches(events[:cut] if cut is not None else events, fake.write_size):
            self._write_chunk(fake, number, batch)
        if fault and fault.kind == "hang":
            fake._wait(self, fault.seconds)
        if fault and fault.kind in ("drop", "hang"):
            self._hang_up()
            return
        self._end_stream()

    def _send(self, status: int, payload: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _hang_up(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def _endless_events(wire: str, what: Endless) -> tuple[bytes, bytes]:
    """The opening events of an endless stream, and about 64 KB of events repeated forever."""
    if what == "line":
        return b"data: ", b"x" * 65536
    if wire == "openai":
        call = {"index": 0, "id": "call_endless", "type": "function"}
        head = _sse({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
        head += _sse(
            {
                "choices": [
                    {"index": 0, "delta": {"tool_calls": [{**call, "function": {"name": "f"}}]}}
                ]
            }
        )
        text = _sse({"choices": [{"index": 0, "delta": {"content": "x" * 64}}]})
        piece = {"tool_calls": [{"index": 0, "function": {"arguments": "x" * 64}}]}
        args = _sse({"choices": [{"index": 0, "delta": piece}]})
    else:
        message = {"type": "message", "role": "assistant", "content": [], "model": "fake"}
        head = _sse({"type": "message_start", "message": message}, "message_start")
        for index, block in enumerate(
            [
                {"type": "text", "text": ""},
                {"type": "tool_use", "id": "t", "name": "f", "input": {}},
            ]
        ):
            start = {"type": "content_block_start", "index": index, "content_block": block}
            head += _sse(start, "content_block_start")
        text = _sse(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "x" * 64},
            },
            "content_block_delta",
        )
        delta = {"type": "input_json_delta", "partial_json": "x" * 64}
        args = _sse(
            {"type": "content_block_delta", "index": 1, "delta": delta}, "content_block_delta"
        )
    unit = {"content": text, "arguments": args, "mixed": text + args}[what]
    return head, unit * max(1, 65536 // len(unit))


def _batches(events: Iterable[bytes], size: int) -> Iterable[bytes]:
    if size <= 0:
        yield from events
        return
    pending: list[bytes] = []
    length = 0
    for event in events:
        pending.append(event)
        length += len(event)
        if length >= size:
            yield b"".join(pending)
            pending, length = [], 0
    if pending:
        yield b"".join(pending)


__all__ = ["Endless", "FakeLLM", "Fault", "Turn"]
