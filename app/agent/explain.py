"""The framing-error inspector's contract: one :class:`Explanation` per contract error.

An explanation joins what the bytes say (``app/cst/explain.py``: the window around the
offset, the frame as parsed so far) with what the runtime did about it: the exact
feedback the agent loop sends (``repair.repair_text``), the next user message the
store recorded, and the model's next attempt — the next response of the same session
— with whether it succeeded (the same call id and tool confirmed without error). It
lives with the agent because repair is the agent's, and it is the one place both
views read: ``frontier check --explain`` prints :func:`format_explanation`, the TUI's
inspector screen renders the same object with styles. Neither recomputes anything.

Sources: a recording file (no session: the feedback is what the runtime *would* send,
and there is no next attempt to look at), or a stored session (``SESSION`` for every
response, ``SESSION#N`` for one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from frontier.app.agent.repair import Failure, recorded_cut, repair_text, truncation
from frontier.app.agent.wire_story import ServerError, WireStory, wire_story
from frontier.app.cst.explain import (
    ErrorSite,
    Span,
    StreamReport,
    hex_rows,
    locate_errors,
    site_beside,
    text_lines,
)
from frontier.app.cst.snapshot import FrameSnapshot
from frontier.app.model.registry import codec
from frontier.app.record import record, replace
from frontier.app.session.explain import StoredResponse, StoredSession, load_session
from frontier.app.session.record import Recording
from frontier.app.stream_events import ContractError
from frontier.app.vocab import NATIVE_MODES, is_clean

SERVER_FRAMING = "server_framing"
"""The kind of an explanation about the server's framing (the wire's own rules broken),
never a model contract error: nothing is sent to the model for it."""

SERVER_FEEDBACK = (
    "none: the server broke its wire's own rules, not the model; the runtime tells the "
    "model nothing about it (the codec reads past such events)"
)

REPLAY_KEYS = "e jumps to the error, e again inspects it, g there highlights its byte"


@record
class NextAttempt:
    """The response after the failed one, in the same session."""

    name: str
    """``SESSION#N`` of that response ("" when there is none)."""
    outcome: str
    """``repaired`` (the same call, or for a call with no id the same tool, confirmed;
    after a cut with no call open: the next response ended without an error),
    ``failed`` (it broke the framing again, before resending it), ``other`` (it did
    something else), ``none`` (no later response was stored)."""
    summary: str
    """One line in words."""
    call: tuple[str, str] | None = None
    """``(id, tool)`` of the call it confirmed in place of the failed one."""
    offset: int | None = None
    """Where that call was confirmed (its last byte)."""
    result: str | None = None
    """How that call then ended, as stored (``ok``, ``error``…; ``None``: no result)."""
    errors: tuple[str, ...] = ()
    """Its own contract errors, ``kind at byte N``."""

    @property
    def succeeded(self) -> bool:
        return self.outcome == "repaired"


@record
class Explanation:
    source: str
    """The recording file, or ``SESSION#N``."""
    mode: str
    finish_reason: str
    site: ErrorSite
    feedback: str
    """The user message text the agent loop sends for this error (``repair_text``); for
    a second error of one response, the first's (the loop reports the first)."""
    recorded: str | None = None
    """The next runtime user message the store recorded after the response (``None``:
    not a stored session, or none was stored)."""
    attempt: NextAttempt | None = None
    """``None`` for a recording file (no session to look in)."""
    session: str | None = None
    request_index: int | None = None
    wire: WireStory | None = None
    """A native response retold in its wire's events (``None``: a text protocol)."""

    @property
    def server(self) -> bool:
        """About the server's framing, not the model's."""
        return self.site.kind == SERVER_FRAMING

    @property
    def recorded_matches(self) -> bool | None:
        """The stored message carries this feedback (``None``: nothing to compare)."""
        return None if self.recorded is None else self.feedback in self.recorded

    @property
    def replay_command(self) -> str:
        return f"frontier replay {self.source}"


# --------------------------------------------------------------------------- building


def explain_stream(
    source: str,
    mode: str,
    pieces: Sequence[bytes],
    finish_reason: str,
    *,
    session: StoredSession | None = None,
    request_index: int | None = None,
    wire: str | None = None,
    events: Sequence[tuple[float, str]] = (),
) -> list[Explanation]:
    """Every contract error of one response (its transducer input ``pieces`` in arrival
    order; a native protocol's is the SSE body of ``wire``, default Chat Completions);
    with ``session`` and ``request_index``, also the stored feedback and the next
    attempt. ``events``, the recorded ``data`` strings, add a text protocol's errors
    raised beside its text (:func:`errors_beside`)."""
    clean = is_clean(finish_reason)
    report = locate_errors(pieces, mode, clean, codec(wire), cut_said=recorded_cut(finish_reason))
    report = _with_beside(report, pieces, errors_beside(mode, wire, events))
    story = wire_story(pieces, mode, clean, codec(wire))
    server = [
        Explanation(
            source,
            mode,
            finish_reason,
            _server_site(e, n, story, report),
            SERVER_FEEDBACK,
            session=session.session_id if session is not None else None,
            request_index=request_index,
            wire=story,
        )
        for n, e in enumerate(story.server if story is not None else (), 1)
    ]
    if not report.errors:
        return server
    first = report.errors[0]
    if first.kind == "truncated":  # told as the loop tells it (``AgentLoop._truncated``)
        failure = truncation(
            first.message,
            first.offset,
            mode=mode,
            finish_reason=finish_reason,
            cut=report.truncated,
            held_arguments=dict(report.held),
            open_calls=first.open_calls,
            confirmed=tuple((c.id, c.name) for c in first.confirmed),
            wire_proves=codec(wire).signals_call_done,
        )
    else:
        failure = Failure(
            first.kind, first.message, first.offset, tuple(i for i, _ in first.open_calls)
        )
    feedback = repair_text(failure, mode=mode)
    stored = (
        session.find(request_index) if session is not None and request_index is not None else None
    )
    recorded = stored.feedback if stored is not None else None
    out = []
    for site in report.errors:
        attempt = None
        if session is not None and request_index is not None:
            attempt = _next_attempt(site, session.after(request_index))
        out.append(
            Explanation(
                source,
                mode,
                finish_reason,
                site,
                feedback,
                recorded,
                attempt,
                session.session_id if session is not None else None,
                request_index,
                story,
            )
        )
    return server + out


def errors_beside(
    mode: str, wire: str | None, events: Sequence[tuple[float, str]]
) -> list[ContractError]:
    """The contract errors the live run raised beside a text protocol's text, replayed
    through the live adapter (``ModeAdapter``) from the recorded events: a native tool
    call, an unreadable event inside a frame. The text alone (``locate_errors``) cannot
    show them, so ``check --explain`` said nothing of a turn the live run failed. Up to
    the first error the adapter raised (the loop reports that one); none for a native
    protocol, or a continued response (its text is joined across requests)."""
    if mode in NATIVE_MODES or not events:
        return []
    from frontier.app.agent.modes import ModeAdapter, get_mode
    from frontier.app.wire.continuation import read_join

    adapter = ModeAdapter(get_mode(mode))
    decoder = codec(wire).decoder()
    for _, data in events:
        if read_join(data) is not None:
            return []
        _, raised = adapter.feed(decoder.feed("message", data))
        errors = [e for e in raised if isinstance(e, ContractError)]
        if errors:
            return errors
    return []


def _with_beside(
    report: StreamReport, pieces: Sequence[bytes], beside: Sequence[ContractError]
) -> StreamReport:
    """``report`` with the errors raised beside the text that it does not hold, all in
    the order of their offsets (the first is the one the loop reported)."""
    known = {(e.kind, e.offset, e.message) for e in report.errors}
    extra = [
        site_beside(pieces, report.mode, e)
        for e in beside
        if (e.kind, e.offset, e.message) not in known
    ]
    if not extra:
        return report
    merged = sorted([*extra, *report.errors], key=lambda e: e.offset)
    count = len(merged)
    sites = tuple(replace(e, number=n, count=count) for n, e in enumerate(merged, 1))
    return replace(report, errors=sites)


def _server_site(
    error: ServerError, number: int, story: WireStory | None, report: StreamReport
) -> ErrorSite:
    """A server framing error as a site: at the byte the stream had reached, with the
    frame of the model's first error when there is one (else nothing was open)."""
    count = len(story.server) if story is not None else 1
    frame = (
        report.errors[0].frame
        if report.errors
        else FrameSnapshot("between events", error.offset, error.offset)
    )
    return ErrorSite(
        kind=SERVER_FRAMING,
        message=f"server framing error: {error.message}",
        offset=error.offset,
        number=number,
        count=count,
        at_finish=False,
        frame=frame,
        window_start=error.offset,
        window=b"",
        size=report.size,
        call=None,
        open_calls=(),
        confirmed=report.calls,
    )


def explain_recording(source: str, rec: Recording) -> list[Explanation]:
    """A recording file's errors (no session: no stored feedback, no next attempt)."""
    pieces = [p for _, p in rec.pieces()]
    return explain_stream(
        source, rec.mode, pieces, rec.finish_reason, wire=rec.wire, events=rec.events
    )


def explain_session(arg: str, path: Path | None = None) -> list[Explanation]:
    """``SESSION`` (every response) or ``SESSION#N`` (response N): their errors with the
    stored feedback and the next attempt. Raises ``StoreError`` / ``SessionNotFound``
    (a ``LookupError`` names a missing ``#N``)."""
    session_arg, _, index = arg.partition("#")
    session = load_session(session_arg, path)
    responses = session.responses
    if index:
        responses = tuple(r for r in responses if str(r.request_index) == index)
        if not responses:
            names = ", ".join(r.name for r in session.responses) or "none"
            raise LookupError(f"{arg}: no response #{index} in that session (it has {names})")
    out: list[Explanation] = []
    for response in responses:
        out += _explain_stored(session, response)
    return out


def explain_stored(
    session_id: str, request_index: int, path: Path | None = None
) -> list[Explanation]:
    """One stored response's errors (what the live TUI's inspector opens)."""
    session = load_session(session_id, path)
    response = session.find(request_index)
    return _explain_stored(session, response) if response is not None else []


def pick(
    explanations: Sequence[Explanation], kind: str, offset: int, message: str = ""
) -> Explanation | None:
    """The explanation of the error ``kind`` at ``offset`` (the message breaks a tie)."""
    found = [e for e in explanations if e.site.kind == kind and e.site.offset == offset]
    exact = [e for e in found if e.site.message == message]
    return next(iter(exact or found), None)


def _explain_stored(session: StoredSession, response: StoredResponse) -> list[Explanation]:
    rec = response.recording
    return explain_stream(
        response.name,
        rec.mode,
        [p for _, p in rec.pieces()],
        rec.finish_reason,
        session=session,
        request_index=response.request_index,
        wire=rec.wire,
        events=rec.events,
    )


def _next_attempt(site: ErrorSite, nxt: StoredResponse | None) -> NextAttempt:
    if nxt is None:
        return NextAttempt(
            "", "none", "no later response was stored: the turn or the session ended here"
        )
    rec = nxt.recording
    pieces = [p for _, p in rec.pieces()]
    cut = recorded_cut(rec.finish_reason)
    report: StreamReport = locate_errors(pieces, rec.mode, rec.clean, codec(rec.wire), cut_said=cut)
    report = _with_beside(report, pieces, errors_beside(rec.mode, rec.wire, rec.events))
    errors = tuple(f"{e.kind} at byte {e.offset}" for e in report.errors)
    target = site.call
    match = None
    if target is not None:
        match = next((c for c in report.calls if (c.id, c.name) == target), None)
        if match is None and rec.mode in ("native-eos", "native-inc", "xml"):
            match = next((c for c in report.calls if c.name == target[1]), None)  # new ids
    elif not report.errors and report.calls:
        match = report.calls[0]
    if match is not None:
        result = next((c.result for c in nxt.calls if c.call_id == match.id), None)
        ran = f", then ran: {result}" if result else ", no result stored"
        more = f"; later in it: {', '.join(errors)}" if errors else ""
        return NextAttempt(
            nxt.name,
            "repaired",
            f"repaired: {match.id} {match.name} confirmed at byte {match.offset}{ran}{more}",
            (match.id, match.name),
            match.offset,
            result,
            errors,
        )
    if target is None and site.kind == "truncated" and not report.errors:
        # cut with no call open, the model was asked to go on: it did, uncut
        what = ", ".join(f"{c.id} {c.name}" for c in report.calls) or "no call"
        return NextAttempt(
            nxt.name, "repaired", f"went on: ended {rec.finish_reason}, confirmed {what}"
        )
    if report.errors:
        e = report.errors[0]
        return NextAttempt(
            nxt.name,
            "failed",
            f"failed again: {e.kind} at byte {e.offset}: {e.message}",
            errors=errors,
        )
    what = ", ".join(f"{c.id} {c.name}" for c in report.calls) or "no call"
    missing = f"{target[0]} {target[1]} was not resent" if target else "nothing was resent"
    return NextAttempt(nxt.name, "other", f"{missing}; it confirmed {what}", errors=errors)


# --------------------------------------------------------------------------- the text view

LABEL = 10
ARGS_SHOWN = 120
"""Argument bytes of a call quoted in the wire's view."""
MARK_FRONTIER = "«F»"
MARK_ERROR = "«E»"
MARK_END = "«E: end of stream»"


def format_explanation(exp: Explanation, *, per_row: int = 16) -> str:
    """The explanation as plain text: one ``label  value`` line per field, continuation
    lines indented, no colour (``frontier check --explain``; the TUI copies it too)."""
    site, frame = exp.site, exp.site.frame
    what = "server framing error" if exp.server else f"error {site.number}/{site.count} {site.kind}"
    if exp.server:
        what += f" {site.number}/{site.count}"
    out = [f"explain {exp.source} {what} at byte {site.offset}"]

    def field(label: str, *lines: str) -> None:
        if not lines:
            return
        out.append(f"  {label:<{LABEL}}{lines[0]}".rstrip())
        out.extend(f"  {'':<{LABEL}}{line}".rstrip() for line in lines[1:])

    if exp.server:
        field("mode", f"{exp.mode} · finish {exp.finish_reason} · wire {_wire_name(exp)}")
        field("message", site.message)
        field("whose", "the server's: the wire's own rules were broken (not a model error)")
        field("feedback", exp.feedback)
        _wire_fields(exp, field)
        field("replay", f"{exp.replay_command}   ({REPLAY_KEYS})")
        return "\n".join(out) + "\n"
    when = "at the end of the stream" if site.at_finish else "by a byte"
    field("mode", f"{exp.mode} · finish {exp.finish_reason} · {site.size:,} bytes · raised {when}")
    field("message", site.message)
    field(
        "offset", f"{site.offset} · frontier {frame.frontier} (the bytes before it are confirmed)"
    )
    field("state", frame.state)
    field("call", call_line(exp))
    field("args", *arg_lines(exp))
    length = length_line(exp)
    if length:
        field("length", length)
    if frame.tag:
        field("tag", f"{frame.tag} (the body ends at a line that is exactly {frame.tag})")
    if frame.element:
        field("element", frame.element)
    if frame.json:
        field("json", f"{frame.json} · {frame.pending:,} argument bytes held")
    if frame.line:
        field("pending", f"{_quote(frame.line)} (held, undecided)")
    _wire_fields(exp, field)
    field(
        "hex",
        f"bytes {site.window_start}–{site.window_start + len(site.window)} of {site.size}; "
        "| = frontier, ^^ = error offset",
        *_hex_text(site, per_row),
    )
    field("text", f"{MARK_FRONTIER} = frontier, {MARK_ERROR} = error offset", *_text_text(site))
    field("feedback", *exp.feedback.splitlines())
    field("recorded", *recorded_lines(exp))
    field("next", next_line(exp))
    field("replay", f"{exp.replay_command}   ({REPLAY_KEYS})")
    return "\n".join(out) + "\n"


def _wire_name(exp: Explanation) -> str:
    return exp.wire.wire if exp.wire is not None else "?"


def _wire_fields(exp: Explanation, field: Callable[..., None]) -> None:
    if exp.wire is None:
        return
    field("wire", *wire_lines(exp))
    field("calls", *wire_call_lines(exp))
    field("client", *client_lines(exp))


def wire_lines(exp: Explanation) -> list[str]:
    """Where the framing broke, in the wire's events (native protocols)."""
    story = exp.wire
    if story is None:
        return []
    head = f"{story.wire} · {story.events} SSE event(s)"
    if exp.server:
        return [head]
    return [head, *(story.broke or ("the events alone do not place this error",))]


def wire_call_lines(exp: Explanation) -> list[str]:
    """Each call as parsed so far: the wire's name for it, its argument bytes, whether
    they were a complete JSON object."""
    story = exp.wire
    if story is None:
        return []
    lines = []
    for call in story.calls:
        state = "complete JSON" if call.json_complete else "not complete JSON"
        more = len(call.args) > ARGS_SHOWN
        lines.append(call.label)
        lines.append(
            f"  {len(call.args):,} argument bytes, {state}: "
            + _quote(call.args[:ARGS_SHOWN], more=more)
        )
    return lines or ["no tool call"]


def client_lines(exp: Explanation) -> list[str]:
    """What a confirming client would and would not have run, and at which event."""
    story = exp.wire
    if story is None:
        return []
    lines = list(story.steps)
    for call in story.calls:
        if call.ran_at:
            lines.append(f"ran: {call.id} {call.name} (at {call.ran_at})")
        else:
            lines.append(f"held back: {call.id} {call.name}: {call.held}")
    return lines or ["no call, nothing to run"]


def call_line(exp: Explanation) -> str:
    """The call the error is about (and the frame's, when the transducer was in another)."""
    site, frame = exp.site, exp.site.frame
    if site.call is None:
        return "none (no call had started)"
    line = f"{site.call[0]} {site.call[1]}"
    if frame.call_id and frame.call_id != site.call[0]:
        tool = f" {frame.tool}" if frame.tool else ""
        line += f" (the frame below is {frame.call_id}{tool}, open then)"
    return line


def arg_lines(exp: Explanation) -> list[str]:
    """One line per argument of the frame: key, form, size, the value's head."""
    lines = []
    for arg in exp.site.frame.args:
        size = f"{arg.size:,} B"
        declared = f" of {arg.declared:,} declared" if arg.declared is not None else ""
        state = "" if arg.complete else " (open)"
        value = _quote(arg.head, more=arg.size > len(arg.head)) if arg.head else ""
        lines.append(f"{arg.key:<10} {arg.form:<8} {size}{declared}{state} {value}".rstrip())
    return lines or ["none yet"]


def length_line(exp: Explanation) -> str:
    """Declared vs arrived for a length-prefixed argument, or what arrived of a heredoc."""
    site = exp.site
    arg = site.counted
    if arg is None:
        return ""
    if arg.form == "heredoc":
        tag = site.frame.tag or "its TAG"
        return f'arg "{arg.key}": {arg.size:,} body bytes arrived, no line {tag} yet'
    if arg.declared is None:
        return ""
    line = f'arg "{arg.key}": declared {arg.declared:,} bytes, {arg.size:,} arrived'
    if site.written is not None:
        miss = site.written - arg.declared
        line += f"; the model wrote ≈{site.written:,} (up to the next end/arg line: {miss:+,})"
    elif arg.size < arg.declared:
        line += f" ({arg.declared - arg.size:,} missing)"
    return line


def recorded_lines(exp: Explanation) -> list[str]:
    if exp.session is None:
        return ["not a stored session: the feedback above is what the runtime sends"]
    if exp.recorded is None:
        return ["no runtime message was stored after this response"]
    verdict = (
        "the store's next user message carries this feedback:"
        if exp.recorded_matches
        else "the store's next user message (it differs from the feedback above):"
    )
    return [verdict, *exp.recorded.splitlines()]


def next_line(exp: Explanation) -> str:
    if exp.server:
        return "not a model error: no attempt is asked of the model for it"
    attempt = exp.attempt
    if attempt is None:
        return "unknown: a recording file (explain the session that recorded it to see it)"
    if not attempt.name:
        return attempt.summary
    return f"{attempt.name}: {attempt.summary}"


def _hex_text(site: ErrorSite, per_row: int) -> list[str]:
    lines = []
    for row in hex_rows(site, per_row):
        pad = row.offset % per_row
        cells = ["   "] * pad
        for i, byte in enumerate(row.data):
            sep = "|" if row.frontier == i else " "
            cells.append(f"{sep}{byte:02x}")
        end_sep = "|" if row.frontier == len(row.data) else " "
        cells.append(end_sep)
        cells += ["   "] * (per_row - pad - len(row.data))
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in row.data)
        lines.append(f"{row.offset:>8} {''.join(cells)}  {' ' * pad}{text}")
        if row.error is not None:
            col = 9 + 3 * (pad + row.error) + 1
            ascii_col = 9 + 3 * per_row + 1 + 2 + pad + row.error
            marker = [" "] * (ascii_col + 1)
            marker[col : col + 2] = "^^"
            marker[ascii_col] = "^"
            lines.append("".join(marker).rstrip())
    return lines


def _text_text(site: ErrorSite) -> list[str]:
    lines = []
    at = site.window_start
    first = True
    for spans in text_lines(site):
        parts = []
        for span in spans:
            if span.kind == "frontier":
                parts.append(MARK_FRONTIER)
            elif span.kind == "end":
                parts.append(MARK_END)
            elif span.kind == "error":
                parts.append(MARK_ERROR + printable(span.data))
            else:
                parts.append(printable(span.data))
        lead = "…" if first and at > 0 else ""  # the window may start mid-line
        lines.append(f"{at:>8}  {lead}{''.join(parts)}")
        at += sum(len(s.data) for s in spans)
        first = False
    return lines


def printable(data: bytes) -> str:
    """Bytes as one line of text: ``⏎`` for a newline, escapes for other controls."""
    out = []
    for ch in data.decode("utf-8", "replace"):
        if ch == "\n":
            out.append("⏎")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def _quote(data: bytes, *, more: bool = False) -> str:
    return "'" + printable(data) + ("…" if more else "") + "'"


__all__ = [
    "SERVER_FRAMING",
    "Explanation",
    "NextAttempt",
    "Span",
    "client_lines",
    "explain_recording",
    "explain_session",
    "explain_stored",
    "explain_stream",
    "format_explanation",
    "pick",
    "wire_call_lines",
    "wire_lines",
]
