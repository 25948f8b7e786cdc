"""``frontier doctor``'s look at the model: endpoint, key, model, window, tools, a reply.

What a session would find out one failure at a time (a 401 on the first message, a model
name the server does not serve, a local server whose tool calls come back as text), found
in one run, each with its fix. The same client a session makes (``runtime.model_client``:
the key resolved the same way, the same wire and timeouts) asks the same questions the
session asks before its first request (``/models``, the window, whether the model takes
tools, whether a cut reply can be continued); then, unless ``--no-request``, one short
request, and one asking for a tool call in the protocol the session would use, read by
that protocol's own transducer — a framing the model breaks, or the call a model makes
as text because the server was started without its tool-call parser (llama.cpp without
``--jinja``, vLLM without ``--enable-auto-tool-choice``: the commonest reason a local
model "does nothing"), is seen before a task.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from frontier.app.config import Config, ConfigError
from frontier.app.doctor.check import Check, Findings
from frontier.app.frontends.terminal_text import terminal_safe

if TYPE_CHECKING:
    from frontier.app.agent.modes import ModeAdapter
    from frontier.app.events import ToolCall
    from frontier.app.model.catalogue import ModelInfo
    from frontier.app.model.request import ModelRequest
    from frontier.app.model.transport import ModelClient

AREA = "model"
PROBE = "read"
"""The tool the tool-call check asks for (the call is only read, never run)."""
PROBE_PATH = "README.md"
CALL_TOKENS = 600
"""``max_tokens`` of the tool-call request: a text protocol's frame takes more than a word."""
REPLY_TOKENS = 200
"""``max_tokens`` of the doctor's requests: enough for a word (or a short thought first)."""
SHOWN_MODELS = 8
QUOTED = 80
"""Characters of a reply quoted."""
URL_FIX = (
    "pass a base URL such as http://127.0.0.1:8080/v1 (--base-url, or base_url in config.toml)"
)
NO_ENDPOINT_FIX = (
    "pass --base-url URL (and --model M) or --provider NAME, or set FRONTIER_BASE_URL or a "
    "[providers.NAME] table in config.toml; `frontier demo` needs none"
)


async def model_checks(
    config: Config,
    *,
    ask: bool = True,
    record: Path | None = None,
    every_protocol: bool = False,
    seen: Callable[[Check], None] | None = None,
) -> list[Check]:
    """Every check of the endpoint and the model, in the order a session meets them;
    ``record``: where the tool-call check's response is written as a recording (for
    ``frontier check --explain`` and ``replay``); ``every_protocol``: the tool-call check
    in each protocol, and which the model's calls were read in; ``seen``: told each check
    as it is found."""
    from frontier.app.agent.runtime import model_client
    from frontier.app.model.catalogue import host_has_tools, known, resolve_wire
    from frontier.app.model.registry import codec
    from frontier.app.secrets import Scrubber, url_secrets
    from frontier.app.session.catalogue import sanitize_url

    found = Findings(seen)
    base = config.base_url
    if not base:
        found.add(Check("settings", "endpoint", "fail", "no endpoint configured", NO_ENDPOINT_FIX))
        return found.checks
    found.hide(Scrubber.from_env(config.api_key, *url_secrets(base)).scrub)
    info = known(config.model) if config.model else None
    try:
        wire = resolve_wire(config.wire, base, info)
    except ValueError as exc:
        found.add(Check("settings", "endpoint", "fail", str(exc)))
        return found.checks
    shown = sanitize_url(base) or base
    mistake = _url_mistake(base)
    if mistake:
        found.add(
            Check("settings", "endpoint", "fail", f"invalid base URL {shown!r}: {mistake}", URL_FIX)
        )
        return found.checks
    source = f" (from {config.base_url_from})" if config.base_url_from else ""
    how = " (auto)" if config.wire == "auto" else ""
    found.add(Check("settings", "endpoint", "ok", f"{shown}{source} · wire {wire}{how}"))
    notes: list[str] = []
    try:
        client, keyed = model_client(config, base, config.model or "", codec(wire), info, notes)
    except ConfigError as exc:
        found.add(Check("settings", "key", "fail", str(exc)))
        return found.checks
    found.hide(client.scrubber.scrub)  # the key however obtained, header values too
    key = found.add(_key_check(keyed, notes, vendor=bool(host_has_tools(base))))
    try:
        if key.status != "fail":  # else every request would be refused: none is sent
            await _asked(found, client, config, info, ask=ask, record=record, every=every_protocol)
    finally:
        await client.aclose()
    return found.checks


def _url_mistake(base: str) -> str | None:
    """Why ``base`` is no URL a request can go to (``urlsplit``'s words: a port past 65535,
    a broken IPv6 host), else ``None``: said on the endpoint's line, not as a traceback or
    an unreachable server further down."""
    from urllib.parse import urlsplit

    try:
        urlsplit(base).port  # noqa: B018 (read for the ValueError it raises)
    except ValueError as exc:
        return str(exc)
    return None


def _key_check(keyed: Config, notes: list[str], *, vendor: bool) -> Check:
    if keyed.api_key:
        said = f"from {keyed.api_key_from or 'the settings'} ({len(keyed.api_key)} characters)"
        if notes:
            return Check("settings", "key", "warn", said + "; " + "; ".join(notes))
        return Check("settings", "key", "ok", said)
    if vendor:
        return Check(
            "settings",
            "key",
            "fail",
            "no API key: this vendor's API refuses requests without one",
            "export FRONTIER_API_KEY=… (or OPENAI_API_KEY / ANTHROPIC_API_KEY), or set "
            "api_key_command or api_key_file in config.toml",
        )
    return Check("settings", "key", "ok", "none sent (a local server needs none)")


async def _asked(
    found: Findings,
    client: ModelClient,
    config: Config,
    info: ModelInfo | None,
    *,
    ask: bool,
    record: Path | None = None,
    every: bool = False,
) -> None:
    """The look-ups a session makes before its first request, then the requests."""
    from frontier.app.model.probe import is_llama_cpp
    from frontier.app.model.served_models import listed_models

    listing = await client.probe_json("models")
    llama = is_llama_cpp(await client.probe_json("props", root=True))
    model = _model_check(client.model, listing, listed_models(listing), llama)
    if found.add(model).status == "fail":
        return
    if not client.model:  # the one the server lists, as a session takes it
        from frontier.app.model.catalogue import known

        client.model = listed_models(listing)[0]
        info = known(client.model)
    if ask and found.add(await _reply_check(client)).status == "fail":
        return  # nothing more can be learned from this endpoint
    found.add(await _window_check(client, config, info))
    mode, protocol = await _protocol_check(client, config, info)
    found.add(protocol)
    found.add(await _prefill_check(client, config, info, mode))
    if not ask:
        found.add(Check(AREA, "reply", "skip", "no request sent (--no-request)"))
        return
    call = found.add(await _tool_call_check(client, mode, record))
    if every:
        await _every_protocol(found, client, mode, call, record)


async def _every_protocol(
    found: Findings, client: ModelClient, chosen: str, first: Check, record: Path | None
) -> None:
    """The tool-call check in every other protocol, then which ones the model's calls were
    read in: the answer to "which ``--protocol`` for this model?" on this server. Each
    other protocol's trouble is a warning (the session does not use it)."""
    from frontier.app.vocab import AGENT_MODES

    passed = [chosen] if first.status == "ok" else []
    for mode in AGENT_MODES:
        if mode == chosen:
            continue
        path = record.with_name(f"{record.stem}-{mode}{record.suffix}") if record else None
        check = await _tool_call_check(client, mode, path)
        status = "warn" if check.status == "fail" else check.status
        found.add(Check(AREA, f"tool call · {mode}", status, check.said, check.fix))
        if check.status == "ok":
            passed.append(mode)
    order = [m for m in AGENT_MODES if m in passed]
    if chosen in passed:
        found.add(Check(AREA, "protocols", "ok", f"calls read in: {', '.join(order)}"))
    elif passed:
        found.add(
            Check(
                AREA,
                "protocols",
                "warn",
                f"calls read in: {', '.join(order)}; not in {chosen}, the one a session uses",
                f'--protocol {order[0]} (or protocol = "{order[0]}" in config.toml)',
            )
        )
    else:
        found.add(
            Check(
                AREA,
                "protocols",
                "warn",
                "no protocol's call was read: this model may not make tool calls at all",
                "a larger or instruction-tuned model; its tool-calling chat template on the server",
            )
        )


def _model_check(model: str, listing: object, names: list[str], llama: bool = False) -> Check:
    """Whether the model named is one the server lists. ``llama``: the server is llama.cpp,
    which serves the one model it loaded whatever name a request gives."""
    listed = ", ".join(names[:SHOWN_MODELS]) + (" …" if len(names) > SHOWN_MODELS else "")
    if listing is None:
        if not model:
            return Check(
                AREA,
                "model",
                "fail",
                "no model named, and GET /models gave no answer to take one from",
                "pass --model M (or set model in config.toml or FRONTIER_MODEL)",
            )
        return Check(
            AREA,
            "model",
            "warn",
            f"{model}: GET /models gave no answer, so it could not be checked (a server "
            "down, a wrong base URL, or one that lists no models)",
            "if the reply check below fails too, check the base URL (it usually ends in /v1)",
        )
    if not model:
        if len(names) == 1:
            return Check(AREA, "model", "ok", f"{names[0]} (the one the server lists)")
        return Check(
            AREA,
            "model",
            "fail",
            f"no model named and the server lists {len(names)}: {listed or 'none'}",
            "pass --model M (or set model in config.toml or FRONTIER_MODEL)",
        )
    if names and model not in names and llama and len(names) == 1:
        return Check(
            AREA,
            "model",
            "ok",
            f"{model}: llama.cpp answers every request with the model it loaded, "
            f"{names[0]}, whatever the name (it checks none)",
        )
    if names and model not in names:
        return Check(
            AREA,
            "model",
            "warn",
            f"{model} is not among the models the server lists: {listed}",
            "use one of those names (--model); some servers also take aliases they do not list",
        )
    return Check(AREA, "model", "ok", f"{model}" + (" (listed by the server)" if names else ""))


async def _window_check(client: ModelClient, config: Config, info: ModelInfo | None) -> Check:
    """The window as a session's budget learns it (``runtime.context_budget``): the
    settings, the server, the catalogue, else assumed (more on a vendor's own API)."""
    from frontier.app.agent.budget import ASSUMED
    from frontier.app.agent.runtime import context_budget

    budget = context_budget(config, client, info, demo=False)
    await budget.learn()
    window = f"{budget.window or 0:,} tokens"
    if budget.source == ASSUMED:
        return Check(
            AREA,
            "window",
            "warn",
            f"not said by the server or the catalogue: {window} would be assumed",
            "pass --context-window N (or context_window in config.toml) with the model's window",
        )
    return Check(AREA, "window", "ok", f"{window} ({_window_source(budget.source)})")


def _window_source(source: str) -> str:
    """``server (GET /props …)`` → ``server: GET /props …``; ``config`` → the settings."""
    if source == "config":
        return "the settings"
    for who, said in (("server (", "server: "), ("catalogue (", "the catalogue: ")):
        if source.startswith(who) and source.endswith(")"):
            return said + source[len(who) : -1]
    return source


async def _protocol_check(
    client: ModelClient, config: Config, info: ModelInfo | None
) -> tuple[str, Check]:
    from frontier.app.model.catalogue import resolve_protocol

    if config.protocol != "auto":
        return config.protocol, Check(AREA, "protocol", "ok", f"{config.protocol} (set)")
    server = await client.probe_tools()
    mode = resolve_protocol("auto", info, server)
    if info is not None and info.tools:
        why = "the catalogue says the model takes native tool calls"
    elif server:
        why = "the server says the model takes native tool calls"
    elif server is False:
        why = "the server says the model takes no native tool calls"
    else:
        why = "neither the catalogue nor the server says the model takes native tool calls"
    return mode, Check(AREA, "protocol", "ok", f"auto picks {mode}: {why}")


async def _prefill_check(
    client: ModelClient, config: Config, info: ModelInfo | None, mode: str
) -> Check:
    """Whether a cut text reply would go on from its last byte, decided as a session
    decides it (``runtime.session_prefill``, then the endpoint's detection)."""
    from frontier.app.agent.runtime import session_prefill
    from frontier.app.vocab import CTL_MODES

    if mode not in CTL_MODES:
        return Check(AREA, "continuation", "skip", f"only for the text protocols, not {mode}")
    prefill = session_prefill(config, client, client.codec, info, demo=False)
    if prefill is None:
        return Check(
            AREA,
            "continuation",
            "ok",
            "a cut reply is resent (prefill is off, the wire cannot continue a reply, or the "
            "model refuses to)",
        )
    found = await prefill.support()
    if found.enabled:
        return Check(
            AREA,
            "continuation",
            "ok",
            f"a reply cut off goes on from its last byte ({found.reason})",
        )
    return Check(AREA, "continuation", "ok", f"a cut reply is resent ({found.reason})")


async def _reply_check(client: ModelClient) -> Check:
    """One short request: the key, the model name and the stream, proven at once."""
    from frontier.app.model.conversation import UserText
    from frontier.app.model.request import ModelRequest

    request = ModelRequest(
        "You are being tested by a setup check. Answer with one word.",
        (UserText("Reply with the single word: ready"),),
        max_tokens=REPLY_TOKENS,
    )
    heard = await _heard(client, request)
    if heard.error is not None:
        return Check(AREA, "reply", "fail", heard.error)
    took = f"first byte after {heard.first:.2f} s, whole in {heard.total:.2f} s"
    tokens = ""
    if heard.prompt_tokens is not None:
        tokens = f", {heard.prompt_tokens} prompt and {heard.completion_tokens or 0} reply tokens"
    if not heard.text.strip() and heard.finish == "length":
        return Check(
            AREA,
            "reply",
            "ok",
            f"answered, cut at {REPLY_TOKENS} tokens before any text (it thought first); "
            f"{took}{tokens}",
        )
    if not heard.text.strip():
        return Check(
            AREA,
            "reply",
            "warn",
            f"the stream ended ({heard.finish}) with no text; {took}",
            "try a larger model, or `frontier run --json` to see its events",
        )
    quoted = _quoted(client, heard.text)
    return Check(AREA, "reply", "ok", f"{quoted!r} ({heard.finish}); {took}{tokens}")


async def _tool_call_check(client: ModelClient, mode_name: str, record: Path | None) -> Check:
    """One request as a session's first would be for a task that needs a file read: the
    protocol's system prompt and every built-in tool; the reply read by the same
    transducer a session reads it with (``Mode.adapter``), so what is confirmed here is
    what a session would run — and a framing the model breaks is seen before a task. The
    call is read, never run."""
    from frontier.app.agent.modes import get_mode
    from frontier.app.agent.text_calls import text_call
    from frontier.app.model.conversation import UserText
    from frontier.app.model.request import ModelRequest
    from frontier.tools.registry import default_registry

    mode = get_mode(mode_name)
    registry = default_registry()
    request = ModelRequest(
        mode.system_prompt(registry),
        (UserText(f'Use the {PROBE} tool to read the file "{PROBE_PATH}". Make only that call.'),),
        mode.tools(registry),
        max_tokens=CALL_TOKENS,
    )
    heard = await _heard(client, request, mode.adapter())
    kept = _recorded(heard, client, mode_name, record) if record is not None else ""
    if heard.error is not None:
        return Check(
            AREA,
            "tool call",
            "fail",
            heard.error + kept,
            "a server that refuses tools[]: --protocol ctl-heredoc writes calls in the text"
            if mode.native
            else "",
        )
    if heard.calls:
        call = heard.calls[0]
        shown = _quoted(client, json.dumps(call.args, ensure_ascii=False))
        said = f"{terminal_safe(call.name)}({shown}), confirmed by the {mode_name} reader"
        if call.name != PROBE:
            return Check(
                AREA, "tool call", "warn", f"asked for {PROBE}, the model called {said}{kept}"
            )
        return Check(AREA, "tool call", "ok", said + kept)
    if heard.errors:
        kind, message = heard.errors[0]
        return Check(
            AREA,
            "tool call",
            "fail" if mode.native else "warn",
            f"the {mode_name} framing broke ({kind}): {_quoted(client, message, 200)}{kept}",
            "the server's tool-call parser does not fit the model: check its chat template"
            if mode.native
            else "a session asks the model to repair it, a request each time; another "
            "protocol may suit this model (--protocol native-inc, ctl-heredoc, xml)",
        )
    envelope = text_call(heard.text, {PROBE}) if mode.native else None
    if envelope is not None:
        first = _quoted(client, envelope.splitlines()[0])
        return Check(
            AREA,
            "tool call",
            "fail",
            f"the model wrote the call as text ({first!r}): the server did not read it as a "
            f"tool call, so a session's calls would not run{kept}",
            "llama.cpp: start it with --jinja; vLLM: --enable-auto-tool-choice and the "
            "model's --tool-call-parser; or --protocol ctl-heredoc (calls in the text, read "
            "by Frontier itself)",
        )
    quoted = _quoted(client, heard.text)
    return Check(
        AREA,
        "tool call",
        "warn",
        f"the model answered in prose instead of calling the tool: {quoted!r}{kept}",
        "a small model often does; another protocol may suit it better (--protocol "
        + ("ctl-heredoc)" if mode.native else "native-inc, where the server offers tools)"),
    )


def _quoted(client: ModelClient, text: str, most: int = QUOTED) -> str:
    """What the model wrote, on one line, as a finding quotes it: scrubbed before it is cut
    (a key cut in two at ``most`` would not be known by its end, and show its start)."""
    return terminal_safe(" ".join(client.scrubber.scrub(text).split()))[:most]


def _recorded(heard: _Heard, client: ModelClient, mode: str, path: Path) -> str:
    """Write the response as a Frontier recording, masked with the session's secrets (the
    key from ``api_key_command`` too, the URL's, the header values: ``write_recording``
    alone knows only the environment's); what the check says of it."""
    from frontier.app.session.record import Recording, scrub_recording, write_recording

    usage: dict[str, int] = {}
    if heard.prompt_tokens is not None:
        usage["prompt_tokens"] = heard.prompt_tokens
    if heard.completion_tokens is not None:
        usage["completion_tokens"] = heard.completion_tokens
    recording = Recording(
        mode,
        client.model,
        "",
        tuple(heard.raw),
        heard.finish or "disconnect",
        usage,
        heard.end_t,
        {"source": "frontier doctor (the tool-call check)"},
        client.wire,
    )
    try:
        write_recording(path, scrub_recording(recording, client.scrubber))
    except OSError as exc:
        return f"; not recorded: {exc.strerror or exc}"
    return f"; recorded: frontier check --explain {terminal_safe(str(path))} reads it"


class _Heard:
    """What one streamed response said, read the way the doctor needs."""

    def __init__(self) -> None:
        self.text = ""
        self.calls: list[ToolCall] = []
        """The calls the protocol's reader confirmed."""
        self.errors: list[tuple[str, str]] = []
        """Its contract errors: ``(kind, message)``."""
        self.finish = ""
        self.error: str | None = None
        self.first = 0.0
        self.total = 0.0
        self.prompt_tokens: int | None = None
        self.completion_tokens: int | None = None
        self.raw: list[tuple[float, str]] = []
        """Each event's arrival time and ``data`` as the server sent it (a recording's)."""
        self.end_t: float | None = None


async def _heard(
    client: ModelClient, request: ModelRequest, reader: ModeAdapter | None = None
) -> _Heard:
    """The reply to ``request``; with ``reader`` (a protocol's), its confirmed calls and
    contract errors too."""
    from frontier.app.model.errors import ModelError
    from frontier.app.model.stream import (
        CallStart,
        ReasoningDelta,
        StreamEnd,
        TextDelta,
        WireEvent,
    )
    from frontier.app.stream_events import CallReady, ContractError
    from frontier.app.vocab import is_clean

    heard = _Heard()
    events: list[object] = []
    began = time.monotonic()
    try:
        async with contextlib.aclosing(client.stream(request)) as stream:
            async for item in stream:
                if isinstance(item, WireEvent):
                    heard.raw.append((item.t, item.raw))
                    for delta in item.deltas:
                        if not heard.first and isinstance(
                            delta, (TextDelta, ReasoningDelta, CallStart)
                        ):
                            heard.first = time.monotonic() - began
                        if isinstance(delta, TextDelta):
                            heard.text += delta.text
                    if reader is not None:
                        events.extend(reader.feed(item.deltas)[1])
                elif isinstance(item, StreamEnd):
                    heard.end_t = time.monotonic() - began
                    heard.finish = item.finish_reason
                    heard.prompt_tokens = item.usage.prompt
                    heard.completion_tokens = item.usage.completion
                    if item.finish_reason == "error":
                        heard.error = f"the server ended the reply with an error: {item.error}"
                    elif item.finish_reason == "disconnect":
                        heard.error = f"the reply broke off: {item.detail or 'disconnected'}"
                    elif reader is not None:
                        events.extend(reader.finish(is_clean(item.finish_reason)))
    except ModelError as exc:
        heard.error = str(exc)
    heard.total = time.monotonic() - began
    heard.calls = [e.call for e in events if isinstance(e, CallReady)]
    heard.errors = [(e.kind, e.message) for e in events if isinstance(e, ContractError)]
    return heard


__all__ = ["NO_ENDPOINT_FIX", "model_checks"]
