"""Truncation resumed from the frontier: echo skipping, the joined stream, the fallbacks.

The loop runs against the demo transport (no network) with ``prefill``: a response cut
by ``max_tokens`` inside a CTL frame goes on in a request ending with the bytes so far
as an assistant message, fed to the same transducer (docs/protocol.md, "Continuation").
"""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncGenerator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scripted import ScriptedClient

from frontier.app.agent.continuation import MAX_CONTINUATIONS, Prefill, open_stream
from frontier.app.agent.echo import ECHO_MIN, EchoSkipper
from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.commands import check
from frontier.app.cst.props import check_stream
from frontier.app.events import (
    CallReady,
    Event,
    RepairRequested,
    ResponseContinued,
    ResponseEnded,
    StreamBytes,
    TokenUsage,
    ToolFinished,
)
from frontier.app.model.conversation import AssistantTurn, ToolResults, UserText
from frontier.app.model.demo_script import Arg, Call, Step, ctl_frame
from frontier.app.model.prefill import (
    VLLM_BODY,
    PrefillSupport,
    detect_prefill,
    from_models,
    from_props,
)
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import (
    End,
    Finish,
    StreamEnd,
    StreamItem,
    TextDelta,
    UsageDelta,
    WireEvent,
    text_of,
)
from frontier.app.model.transport import ModelClient
from frontier.app.model.wires.demo import DEMO_BASE_URL, DemoTransport
from frontier.app.replay_player import ReplayPlayer, source_from_recording
from frontier.app.session.record import write_recording
from frontier.app.session.store import SessionStore
from frontier.app.wire.continuation import Join, join_data, read_join, text_pieces
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

# --------------------------------------------------------------------------- the echo


def skip_all(prefix: bytes, pieces: list[bytes], expect: bool | None = None) -> tuple[bytes, str]:
    skipper = EchoSkipper(prefix, expect)
    out = b"".join(skipper.feed(p) for p in pieces) + skipper.finish()
    return out, skipper.outcome


def test_the_llama_cpp_echo_is_skipped_and_its_extra_space_kept() -> None:
    """As the rig's llama-server sends it: the prefix "… 7, 8," comes back as "… 7, 8, "
    — the prefix, then the model's first token " " in the same delta."""
    prefix = b"1, 2, 3, 4, 5, 6, 7, 8,"
    out, outcome = skip_all(prefix, [b"1, 2, 3, 4, 5, 6, 7, 8, ", b"9", b",", b" 10"])
    assert (out, outcome) == (b" 9, 10", "echo")


def test_an_echo_split_over_deltas_is_held_until_it_is_whole() -> None:
    skipper = EchoSkipper(b"call c1 write\narg content <<EOF\nline one\n")
    assert skipper.feed(b"call c1 wr") == b""
    assert skipper.feed(b"ite\narg content <<E") == b""
    assert skipper.held == len(b"call c1 write\narg content <<E")
    assert skipper.feed(b"OF\nline one\nline two\n") == b"line two\n"
    assert skipper.skipped == len(skipper.prefix)


def test_no_echo_passes_everything_on() -> None:
    out, outcome = skip_all(b"call c1 write\narg content <<EOF\nline", [b"s two\n", b"EOF\n"])
    assert (out, outcome) == (b"s two\nEOF\n", "none")


def test_a_short_chance_match_is_not_an_echo() -> None:
    """The continuation starts with a few bytes the prefix also starts with: not an echo."""
    prefix = b"arg content <<EOF\nab"
    out, outcome = skip_all(prefix, [b"a", b"rg", b"ue\n"])
    assert (out, outcome) == (b"argue\n", "none")


def test_an_echo_without_the_prefix_trailing_whitespace_still_counts() -> None:
    """A template that trims the message echoes it without its final newline."""
    out, outcome = skip_all(b"line one\n", [b"line one", b"line two\n"])
    assert (out, outcome) == (b"line two\n", "echo")


def test_an_echo_without_the_prefix_leading_whitespace_still_counts() -> None:
    out, outcome = skip_all(b"\n\ncall c1 read\n", [b"call c1 read\narg path x\n"])
    assert (out, outcome) == (b"arg path x\n", "echo")


def test_a_long_match_that_diverges_is_a_mismatch() -> None:
    prefix = b"call c1 write\narg path notes.txt\narg content <<EOF\n"
    skipper = EchoSkipper(prefix)
    assert skipper.feed(b"call c1 write\narg path other.txt\n") == b""
    assert skipper.outcome == "mismatch"
    assert "repeated 23 of the 51 bytes" in skipper.detail
    assert skipper.feed(b"more") == b""  # nothing more passes


def test_an_echo_expected_but_missing_is_a_mismatch_and_known_none_holds_nothing() -> None:
    assert skip_all(b"call c1 read\n", [b"arg path x\n"], expect=True)[1] == "mismatch"
    skipper = EchoSkipper(b"call c1 read\n", expect=False)
    assert skipper.feed(b"call c1 read\n") == b"call c1 read\n"  # never judged an echo


def test_the_stream_ending_while_undecided_decides() -> None:
    prefix = b"call c1 read\n"
    assert skip_all(prefix, [b"call c1 read\n"]) == (b"", "echo")  # only the echo came
    assert skip_all(prefix, [b"cal"]) == (b"cal", "none")  # three bytes: a chance match


_TEXT = st.text(alphabet=st.sampled_from("ab \n<EOF>é€"), min_size=0, max_size=40)


def _chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    pieces, last = [], 0
    for point in [*points, len(data)]:
        pieces.append(data[last:point])
        last = point
    return pieces


@given(
    prefix=_TEXT.filter(lambda t: t.strip() != ""),
    rest=_TEXT,
    echoed=st.booleans(),
    cuts=st.lists(st.integers(0, 200), max_size=12),
)
def test_the_echo_skipper_under_random_chunkings(
    prefix: str, rest: str, echoed: bool, cuts: list[int]
) -> None:
    """Whatever the chunking: an echoing server's continuation comes out exactly (echo
    dropped once), and a non-echoing one's whole; the outcome never depends on the cuts."""
    p, r = prefix.encode(), rest.encode()
    if not echoed and r[:1] in (p[:1], p.lstrip()[:1]):
        r = b"#" + r  # a continuation that starts like the prefix is another test
    incoming = (p + r) if echoed else r
    out, outcome = skip_all(p, _chunked(incoming, cuts))
    whole, whole_outcome = skip_all(p, [incoming])
    assert (out, outcome) == (whole, whole_outcome)
    assert out == r
    assert outcome == ("echo" if echoed else "none")


@given(
    prefix=_TEXT.filter(lambda t: len(t.rstrip()) >= 1),
    rest=st.text(alphabet=st.sampled_from("xy<E\n"), min_size=1, max_size=20),
    cuts=st.lists(st.integers(0, 120), max_size=8),
)
def test_an_echo_trimmed_of_trailing_whitespace_under_random_chunkings(
    prefix: str, rest: str, cuts: list[int]
) -> None:
    p = prefix.encode()
    r = rest.encode()
    if r[:1].isspace():
        r = b"x" + r  # new text starting with whitespace the echo dropped is ambiguous
    incoming = p.rstrip() + r
    out, outcome = skip_all(p, _chunked(incoming, cuts))
    assert (out, outcome) == (r, "echo")


# --------------------------------------------------------------------------- the marker


def test_the_join_marker_round_trips_and_text_pieces_drop_the_echo() -> None:
    join = Join(5, 5, 1)
    assert read_join(join_data(join)) == join
    assert read_join('{"object":"chat.completion.chunk"}') is None

    def chunk(text: str) -> str:
        return json.dumps({"choices": [{"delta": {"content": text}}]})

    events = [(0.0, chunk("abc")), (0.1, chunk("de")), (0.2, join_data(join))]
    events += [(0.3, chunk("ab")), (0.4, chunk("cdeF")), (0.5, chunk("G"))]
    seen: list[str] = []

    def text_of(data: str) -> str:  # what the wire's decoder would read; never a marker
        seen.append(data)
        return str(json.loads(data)["choices"][0]["delta"]["content"])

    pieces, joins = text_pieces(events, text_of)
    assert b"".join(p for _, p in pieces) == b"abcdeFG"
    assert joins == [join]
    assert seen == [data for _, data in events if data != join_data(join)]
    # a marker whose offset is not the input so far shifts nothing
    forged = [(0.0, chunk("abc")), (0.1, join_data(Join(1, 2))), (0.2, chunk("xy"))]
    assert b"".join(p for _, p in text_pieces(forged, text_of)[0]) == b"abcxy"


def _chat(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


async def test_the_joined_stream_is_neutral_events_with_the_echo_cut_from_text_deltas() -> None:
    """What ``open_stream`` yields for a continued response, whatever the wire: the cut
    stream's events, the join marker (a ``WireEvent`` whose ``raw`` is the marker and
    which carries no deltas: recorded, never fed), then the continuation's events with
    their ``raw`` as the server sent it (echo included, for the recording) and the echo
    cut out of their ``TextDelta``\\ s only. The cut stream's end is swallowed."""
    prefix = "call c1 read\narg path READ"
    client = ScriptedClient(
        [
            ([_chat("call c1 re"), _chat("ad\narg path READ")], "length"),
            ([_chat("call c1 read\narg pa"), _chat("th READ" + "ME.md\nend\n")], "stop"),
        ]
    )

    async def llama() -> PrefillSupport:
        return PrefillSupport(True, "llama.cpp", "test")

    told: list[Event] = []
    request = ModelRequest("system", (UserText("read the readme"),))
    items: list[StreamItem] = [
        item
        async for item in open_stream(
            client,
            request,
            mode="ctl",
            prefill=Prefill("auto", llama),
            can_prefill=True,
            resumable=lambda: prefix.encode(),
            emit=told.append,
        )
    ]
    assert [type(i) for i in items] == [WireEvent] * 5 + [StreamEnd]
    end = items[-1]
    assert isinstance(end, StreamEnd) and end.finish_reason == "stop"
    events = [i for i in items if isinstance(i, WireEvent)]
    join = Join(len(prefix), len(prefix), 1)
    assert (events[2].raw, events[2].deltas) == (join_data(join), ())
    # the raw strings are the server's, untouched (the recording holds the echo) ...
    assert [json.loads(e.raw) for e in events[3:]] == [
        _chat("call c1 read\narg pa"),
        _chat("th READ" + "ME.md\nend\n"),
    ]
    # ... while the text fed on is the message going on, once
    assert events[3].deltas == ()  # all echo: its text delta is gone
    assert events[4].deltas == (TextDelta("ME.md\nend\n"),)
    assert "".join(text_of(e.deltas) for e in events) == prefix + "ME.md\nend\n"
    (continued,) = [e for e in told if isinstance(e, ResponseContinued)]
    assert (continued.offset, continued.echo_skipped, continued.attempt) == (26, 26, 1)
    # the continuation is the same request with the bytes so far to go on from
    assert client.sent[1] == replace(request, prefill=prefix)
    assert client.requests[1][-1] == {"role": "assistant", "content": prefix}
    assert client.requests[0][-1]["role"] == "user"


# --------------------------------------------------------------------------- the loop

NOTES = "".join(f"line {i:02d} of the release notes\n" for i in range(1, 31))
READ = Call("c1", "read", (Arg("path", "README.md"),))


def write_call(form: str) -> Call:
    return Call("c2", "write", (Arg("path", "NOTES.md"), Arg("content", NOTES, form)))  # type: ignore[arg-type]


def resending(step: Step):  # type: ignore[no-untyped-def]
    """A compliant model: the step, resent whole after a truncation; done after results."""

    def pick(messages: list[dict[str, Any]]) -> Step:
        last = str(messages[-1].get("content") or "")
        if last.startswith("result ") and "error truncated" not in last:
            return Step("done", "Done.\n")
        return step

    return pick


def demo_chat(transport: DemoTransport, *, max_tokens: int | None = None) -> ModelClient:
    """A Chat Completions client whose server is ``transport`` (the demo model)."""
    return ModelClient(
        codec("openai-chat"), DEMO_BASE_URL, "demo", transport=transport, max_tokens=max_tokens
    )


class Run:
    def __init__(
        self,
        tmp_path: Path,
        step: Step,
        *,
        mode: str = "ctl-heredoc",
        max_tokens: int | None = 40,
        prefill: str | None = "auto",
        server_prefill: bool = True,
        echo: bool = True,
        responder: Any = None,
    ) -> None:
        self.root = tmp_path / "ws"
        self.root.mkdir()
        (self.root / "README.md").write_text("# readme\n")
        self.store = SessionStore.open(tmp_path / "s.db")
        self.sid = self.store.create_session(str(self.root), "demo", DEMO_BASE_URL, mode)
        self.events: list[Event] = []
        self.transport = DemoTransport(
            mode, rate=0, prefill=server_prefill, echo=echo, responder=responder or resending(step)
        )
        client = demo_chat(self.transport, max_tokens=max_tokens)
        self.client = client
        registry = default_registry()
        boundary = ToolBoundary(
            registry,
            self.root,
            PolicyApprover("auto"),
            self.store.persistence(self.sid),
            emit=self.events.append,
        )
        self.loop = AgentLoop(
            client=client,
            boundary=boundary,
            registry=registry,
            mode=get_mode(mode),
            emit=self.events.append,
            store=self.store,
            session_id=self.sid,
            can_prefill=client.codec.can_prefill,
            prefill=None if prefill is None else Prefill(prefill, lambda: detect_prefill(client)),
        )

    async def send(self, text: str = "write the notes") -> str:
        ended = await self.loop.send(text)
        return ended.reason

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def runs(self) -> list[str]:
        return [e.result.call_id for e in self.of(ToolFinished) if e.result.kind == "ok"]

    def requests(self) -> list[list[dict[str, Any]]]:
        return [body["messages"] for body in self.transport.bodies]

    def recordings(self) -> list[Any]:
        return [r.to_recording() for r in self.store.responses.recordings(self.sid)]


async def test_a_cut_heredoc_is_resumed_and_its_confirmed_lines_kept(tmp_path: Path) -> None:
    step = Step("notes", "Reading, then writing the notes.\n", (READ, write_call("heredoc")))
    run = Run(tmp_path, step, max_tokens=80)  # ~280 tokens: cut three times
    assert await run.send() == "done"
    # c1 ran once (before the first cut); c2 once, with the whole body
    assert run.runs() == ["c1", "c2"]
    assert (run.root / "NOTES.md").read_text() == NOTES
    ready = [e.call for e in run.of(CallReady)]
    assert [c.id for c in ready] == ["c1", "c2"] and ready[1].args["content"] == NOTES
    joins = run.of(ResponseContinued)
    assert joins and [j.attempt for j in joins] == list(range(1, len(joins) + 1))
    assert not run.of(RepairRequested)
    # one ResponseEnded for the joined response, and the stream bytes are contiguous
    first_done = next(i for i, e in enumerate(run.events) if isinstance(e, ResponseEnded))
    assert all(not isinstance(e, ResponseEnded) for e in run.events[:first_done])
    assert run.of(ResponseEnded)[0].finish_reason == "stop"
    offset = 0
    for event in run.events[:first_done]:
        if isinstance(event, StreamBytes):
            assert event.offset == offset
            offset += len(event.data)
    # each continuation request ends with the bytes so far; the echo was skipped
    requests = run.requests()
    for join, request in zip(joins, requests[1:], strict=False):
        assert request[-1]["role"] == "assistant"
        assert len(request[-1]["content"].encode()) == join.offset == join.echo_skipped
    # the history holds the joined message once
    text = "Reading, then writing the notes.\n" + ctl_frame(READ) + ctl_frame(write_call("heredoc"))
    assistant = [m for m in requests[-1] if m["role"] == "assistant"]
    assert assistant == [{"role": "assistant", "content": text}]
    kept = [i for i in run.loop.history if isinstance(i, AssistantTurn)]
    assert kept[0] == AssistantTurn(text)  # the typed history: the joined reply, once


@pytest.mark.parametrize("echo", [True, False])
async def test_a_cut_length_prefixed_body_keeps_its_counted_bytes(
    tmp_path: Path, echo: bool
) -> None:
    step = Step("notes", "", (write_call("length"),))
    run = Run(tmp_path, step, mode="ctl", max_tokens=70, echo=echo)
    assert await run.send() == "done"
    assert run.runs() == ["c2"]
    assert (run.root / "NOTES.md").read_text() == NOTES
    joins = run.of(ResponseContinued)
    assert len(joins) >= 2  # a continuation cut again continues again
    assert all((j.echo_skipped == j.offset) == echo for j in joins)


async def test_check_verifies_the_joined_recording_as_one_stream(tmp_path: Path) -> None:
    step = Step("notes", "Writing.\n", (READ, write_call("heredoc")))
    run = Run(tmp_path, step, max_tokens=100)
    assert await run.send() == "done"
    joined = run.recordings()[0]
    assert joined.joins() and joined.finish_reason == "stop"
    text = "Writing.\n" + ctl_frame(READ) + ctl_frame(write_call("heredoc"))
    assert joined.transducer_input() == text.encode()
    for protocol in (None, "native-inc"):  # decoded once, what the two readers give apart
        assert joined.decoded(protocol) == (joined.pieces(protocol), joined.joins())
    report = check_stream(joined.transducer_input(), joined.mode, joined.clean)
    assert report.ok and report.calls == 2
    # the recording file form: written, read back, checked by `frontier check`
    path = tmp_path / "joined.jsonl"
    write_recording(path, joined)

    assert check.main(argparse.Namespace(sources=[str(path)])) == 0
    # and replay plays it as the loop fed it, the join shown where it was made
    player = ReplayPlayer(source_from_recording(joined))
    played = player.run_all()
    assert [e.call.id for e in played if isinstance(e, CallReady)] == ["c1", "c2"]
    shown = [e for e in played if isinstance(e, ResponseContinued)]
    assert [(e.offset, e.echo_skipped) for e in shown] == [
        (j.offset, j.echo_skipped) for j in joined.joins()
    ]
    first = played.index(shown[0])
    after = next(e for e in played[first:] if isinstance(e, StreamBytes))
    assert after.offset == shown[0].offset


async def test_check_cli_on_a_stored_session_reports_the_join(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    step = Step("notes", "", (write_call("heredoc"),))
    run = Run(tmp_path, step, max_tokens=100)
    assert await run.send() == "done"
    path = tmp_path / "r.jsonl"
    write_recording(path, run.recordings()[0])

    assert check.main(argparse.Namespace(sources=[str(path)])) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok ") and "continued_at=" in out and "calls=1" in out


async def test_a_continuation_is_not_blamed_on_the_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The continuation's stream starts over after Frontier's join marker: its first
    content, after the first stream's ``finish_reason: length``, read as the server's
    framing error ("a chunk carries content or tool_calls after finish_reason")."""
    run = Run(tmp_path, Step("notes", "", (write_call("heredoc"),)), max_tokens=100)
    assert await run.send() == "done"
    path = tmp_path / "r.jsonl"
    write_recording(path, run.recordings()[0])
    from frontier.app.cli import build_parser

    assert check.main(build_parser().parse_args(["check", "--explain", str(path)])) == 0
    out = capsys.readouterr().out
    assert "continued_at=" in out and "framing" not in out, out


async def test_a_server_without_prefill_support_gets_the_resend(tmp_path: Path) -> None:
    """``auto`` against a server that is not known to continue: today's resend."""
    step = Step("notes", "", (write_call("heredoc"),))
    run = Run(tmp_path, step, max_tokens=60, server_prefill=False)
    assert await run.send() == "repair_limit"  # each resend is cut again at 60 tokens
    assert not run.of(ResponseContinued)
    assert [r.kind for r in run.of(RepairRequested)] == ["truncated"] * 3
    assert all(m[-1]["role"] == "user" for m in run.requests())
    assert run.loop.prefill is not None and run.loop.prefill.known is not None
    assert not run.loop.prefill.known.enabled
    assert not (run.root / "NOTES.md").exists()


async def test_prefill_off_never_continues(tmp_path: Path) -> None:
    step = Step("notes", "", (write_call("heredoc"),))
    run = Run(tmp_path, step, max_tokens=60, prefill="off")
    await run.send()
    assert not run.of(ResponseContinued)
    assert all(m[-1]["role"] == "user" for m in run.requests())


async def test_past_the_budget_of_continuations_the_turn_resends(tmp_path: Path) -> None:
    step = Step("notes", "", (write_call("heredoc"),))
    run = Run(tmp_path, step, max_tokens=8)  # needs far more than three continuations
    assert await run.send() == "repair_limit"
    assert len(run.of(ResponseContinued)) == MAX_CONTINUATIONS  # per turn, not per response
    repair = run.of(RepairRequested)[0]
    assert repair.kind == "truncated"
    assert not (run.root / "NOTES.md").exists()


async def test_a_server_that_restarts_instead_of_continuing_falls_back_and_is_remembered(
    tmp_path: Path,
) -> None:
    """The continuation repeats the message's start, then differs (a server answering the
    trailing assistant message anew): nothing of it is fed, the cut is resent, and this
    session does not try again."""
    first = Step("notes", "", (write_call("heredoc"),))
    other = Call("c2", "write", (Arg("path", "OTHER.md"), Arg("content", NOTES, "heredoc")))
    bodies: list[dict[str, Any]] = []

    def pick(messages: list[dict[str, Any]]) -> Step:
        if bodies[-1]["messages"][-1]["role"] == "assistant":
            return Step("again", "", (other,))  # not the message that was cut: a restart
        if str(messages[-1].get("content") or "").startswith("result "):
            return Step("done", "Done.\n")
        return first

    run = Run(tmp_path, first, max_tokens=30, echo=False, responder=pick)
    bodies = run.transport.bodies
    reason = await run.send()
    assert reason == "repair_limit"
    assert not run.of(ResponseContinued)
    cut = run.of(ResponseEnded)[0]  # the ✂ line says why it was not continued
    assert cut.finish_reason == "length"
    assert "not continued" in cut.detail and "prefill is off" in cut.detail
    assert run.of(RepairRequested)[0].kind == "truncated"
    assert run.loop.prefill.known is not None and not run.loop.prefill.known.enabled
    continuations = [m for m in run.requests() if m[-1]["role"] == "assistant"]
    assert len(continuations) == 1  # tried once, then remembered
    assert not (run.root / "OTHER.md").exists() and not (run.root / "NOTES.md").exists()
    for rec in run.recordings():  # nothing of the refused continuation was recorded
        assert not rec.joins()
        assert b"OTHER" not in rec.transducer_input()


class _CutOff(httpx.AsyncByteStream):
    """A response stream whose connection drops after its first ``keep`` chunks: no
    finish, no ``[DONE]`` (a ``disconnect``)."""

    def __init__(self, stream: httpx.AsyncByteStream, keep: int) -> None:
        self._stream, self._keep = stream, keep

    async def __aiter__(self) -> AsyncGenerator[bytes, None]:
        sent = 0
        async for chunk in self._stream:
            if sent == self._keep:
                return
            sent += 1
            yield chunk


class DroppingTransport(DemoTransport):
    """The demo model, whose first answer is cut off after ``keep`` events."""

    def __init__(self, *args: Any, keep: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.keep = keep

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        if request.method == "POST" and self.requests == 1:
            stream = response.stream
            assert isinstance(stream, httpx.AsyncByteStream)
            return httpx.Response(200, headers=response.headers, stream=_CutOff(stream, self.keep))
        return response


@pytest.mark.parametrize("prefill", ["auto", "off"])
async def test_a_dropped_connection_mid_heredoc_goes_on_from_the_frontier(
    tmp_path: Path, prefill: str
) -> None:
    step = Step("notes", "Reading, then writing the notes.\n", (READ, write_call("heredoc")))
    run = Run(tmp_path, step, max_tokens=None, prefill=prefill)
    transport = DroppingTransport(
        "ctl-heredoc", rate=0, prefill=True, responder=resending(step), keep=30
    )
    run.transport = transport
    run.loop.client = demo_chat(transport)
    run.loop.prefill = (
        Prefill(prefill, lambda: detect_prefill(run.loop.client))  # type: ignore[arg-type]
    )
    assert await run.send() == "done"
    assert (run.root / "NOTES.md").read_text() == NOTES
    requests = run.requests()
    if prefill == "off":  # as before: the cut is a truncation, the model asked to go on
        assert not run.of(ResponseContinued)
        assert run.of(RepairRequested)[0].kind == "truncated"
        return
    # c1 was confirmed before the drop and ran once; c2 ran once, its body whole
    assert run.runs() == ["c1", "c2"]
    (join,) = run.of(ResponseContinued)
    assert not run.of(RepairRequested)  # no repair round, no body written anew
    assert requests[1][-1]["role"] == "assistant"  # went on from the bytes so far
    assert len(requests[1][-1]["content"].encode()) == join.offset > 0
    assert run.of(ResponseEnded)[0].finish_reason == "stop"


async def test_native_modes_are_never_continued(tmp_path: Path) -> None:
    step = Step("native", "Writing the notes.", (write_call("heredoc"),), finish="tool_calls")
    run = Run(tmp_path, step, mode="native-inc", max_tokens=20)
    await run.send()
    assert not run.of(ResponseContinued)
    assert all(m[-1]["role"] != "assistant" for m in run.requests())


# --------------------------------------------------------------------------- Anthropic Messages

ANTHROPIC = codec("anthropic-messages")
WRITTEN = "Writing the notes.\n" + ctl_frame(write_call("heredoc"))


def messages_events(text: str, stop: str) -> list[str]:
    """An Anthropic Messages stream of ``text`` (in pieces of 24 characters) ending with
    ``stop`` (``max_tokens``, ``end_turn``)."""
    pieces = [text[i : i + 24] for i in range(0, len(text), 24)]
    usage = {"input_tokens": 100, "output_tokens": 1}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
        for p in pieces
    ]
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop},
            "usage": {"output_tokens": len(pieces)},
        },
        {"type": "message_stop"},
    ]
    return [json.dumps(e) for e in events]


class MessagesModel:
    """A scripted model on the Anthropic Messages wire. Each request is encoded by that
    wire's adapter first, as the transport does (a prefill the API would refuse raises
    ``ValueError`` there), then answered by ``respond`` with Messages events read by the
    wire's own decoder. ``cut_at``: the first response stops there (``max_tokens``)."""

    wire = "anthropic-messages"
    model = "claude-test"
    base_url = "https://api.anthropic.com/v1"  # never reached: ``stream`` answers

    def __init__(self, cut_at: int) -> None:
        self.cut_at = cut_at
        self.sent: list[ModelRequest] = []
        self.bodies: list[dict[str, Any]] = []

    def respond(self, request: ModelRequest) -> tuple[str, str]:
        if request.prefill:  # the message goes on from its frontier (never echoed)
            assert WRITTEN.startswith(request.prefill)
            return WRITTEN[len(request.prefill) :], "end_turn"
        last = request.items[-1]
        if isinstance(last, ToolResults) and last.results:
            return "Done.\n", "end_turn"
        if len(self.bodies) == 1:  # the first response is cut by the token limit
            return WRITTEN[: self.cut_at], "max_tokens"
        return WRITTEN, "end_turn"  # a resend, whole

    async def probe_json(self, path: str, *, root: bool = False) -> Any:
        raise AssertionError("the Messages API continues by design: nothing is probed")

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        self.sent.append(request)
        self.bodies.append(ANTHROPIC.body(request, self.model))
        text, stop = self.respond(request)
        decoder = ANTHROPIC.decoder()
        finish, usage = "disconnect", TokenUsage()
        for data in messages_events(text, stop):
            deltas = tuple(decoder.feed("message", data))
            for delta in deltas:
                if isinstance(delta, Finish):
                    finish = delta.reason
                elif isinstance(delta, UsageDelta):
                    usage = delta.usage
            if any(not isinstance(d, End) for d in deltas):
                yield WireEvent(data, 0.0, deltas)
        yield StreamEnd(finish, usage)

    async def aclose(self) -> None:
        return None


def messages_run(tmp_path: Path, model: MessagesModel) -> Run:
    run = Run(tmp_path, Step("unused", ""), max_tokens=None)
    run.loop.client = model
    run.loop.signals_call_done = ANTHROPIC.signals_call_done
    run.loop.can_prefill = ANTHROPIC.can_prefill
    run.loop.prefill = Prefill("auto", lambda: detect_prefill(model))
    return run


async def test_a_cut_response_on_anthropic_messages_is_continued_from_its_frontier(
    tmp_path: Path,
) -> None:
    """Anthropic continues a final assistant message by design (and never echoes it): the
    cut CTL response goes on from its frontier in a request whose ``prefill`` is the
    bytes so far, sent as the final assistant message, and the heredoc keeps its lines."""
    cut_at = WRITTEN.index("line 12 of the") + len("line 12 of")  # mid-line: no whitespace
    model = MessagesModel(cut_at)
    run = messages_run(tmp_path, model)
    assert await run.send() == "done"
    assert run.runs() == ["c2"]
    assert (run.root / "NOTES.md").read_text() == NOTES
    assert not run.of(RepairRequested)
    (continued,) = run.of(ResponseContinued)
    assert (continued.offset, continued.echo_skipped) == (len(WRITTEN[:cut_at].encode()), 0)
    known = run.loop.prefill.known if run.loop.prefill is not None else None
    assert known is not None and (known.enabled, known.server, known.echo) == (
        True,
        "Anthropic",
        False,
    )
    # the continuation: the same history, with the frontier as the prefill ...
    first, again = model.sent[0], model.sent[1]
    assert first.prefill == "" and again.prefill == WRITTEN[:cut_at]
    assert again.items == first.items
    # ... which the wire sends as the final assistant message
    assert model.bodies[1]["messages"][-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": WRITTEN[:cut_at]}],
    }
    assert model.bodies[0]["messages"][-1]["role"] == "user"
    # one response, joined: its end is the continuation's, the history holds it once
    assert run.of(ResponseEnded)[0].finish_reason == "stop"
    assert [i for i in model.sent[-1].items if isinstance(i, AssistantTurn)] == [
        AssistantTurn(WRITTEN)
    ]
    # recorded on its wire, with the join: read back as the one stream that was fed
    (joined, _done) = run.recordings()
    assert joined.wire == "anthropic-messages" and joined.finish_reason == "stop"
    assert [(j.offset, j.echo_skipped) for j in joined.joins()] == [(continued.offset, 0)]
    assert joined.transducer_input() == WRITTEN.encode()


class EchoingMessagesModel(MessagesModel):
    """llama.cpp's ``/v1/messages``: it continues the final assistant message, but sends
    the prefix back first (the rig, issue 20's wire)."""

    base_url = "http://127.0.0.1:18080/v1"

    def respond(self, request: ModelRequest) -> tuple[str, str]:
        if request.prefill:
            return request.prefill + WRITTEN[len(request.prefill) :], "end_turn"
        return super().respond(request)


async def test_a_messages_server_that_echoes_the_prefix_has_its_echo_skipped(
    tmp_path: Path,
) -> None:
    """Every server on the Messages wire was taken for Anthropic's, which never echoes: the
    echo was read as the continuation, so the reply held the cut prefix twice (stored,
    exported, and in a CTL frame spliced into a call's arguments)."""
    cut_at = WRITTEN.index("line 12 of the") + len("line 12 of")
    model = EchoingMessagesModel(cut_at)
    run = messages_run(tmp_path, model)
    assert await run.send() == "done"
    assert run.runs() == ["c2"]
    assert (run.root / "NOTES.md").read_text() == NOTES
    (continued,) = run.of(ResponseContinued)
    prefix = len(WRITTEN[:cut_at].encode())
    assert (continued.offset, continued.echo_skipped) == (prefix, prefix)
    assert [i for i in model.sent[-1].items if isinstance(i, AssistantTurn)] == [
        AssistantTurn(WRITTEN)
    ]
    known = run.loop.prefill.known if run.loop.prefill is not None else None
    assert known is not None and (known.enabled, known.echo) == (True, True)


async def test_a_prefix_ending_in_whitespace_is_resent_on_anthropic_messages(
    tmp_path: Path,
) -> None:
    """The Messages API refuses a final assistant message that ends in whitespace: the
    adapter will not encode it (``ValueError``), so this truncation is resent as without
    prefill — nothing of a refused request goes out — and prefill stays on for the next."""
    cut_at = WRITTEN.index("line 12 of the")  # right after a newline
    assert WRITTEN[cut_at - 1] == "\n"
    model = MessagesModel(cut_at)
    run = messages_run(tmp_path, model)
    assert await run.send() == "done"
    assert run.runs() == ["c2"]
    assert (run.root / "NOTES.md").read_text() == NOTES
    assert not run.of(ResponseContinued)
    assert [r.kind for r in run.of(RepairRequested)] == ["truncated"]
    cut = run.of(ResponseEnded)[0]
    assert cut.finish_reason == "length"
    assert "not continued" in cut.detail and "ends in whitespace" in cut.detail
    # the continuation was asked for, refused by the adapter, and never sent
    assert model.sent[1].prefill == WRITTEN[:cut_at]
    assert len(model.bodies) == len(model.sent) - 1
    assert all(body["messages"][-1]["role"] == "user" for body in model.bodies)
    known = run.loop.prefill.known if run.loop.prefill is not None else None
    assert known is not None and known.enabled  # only this prefix could not be sent


# --------------------------------------------------------------------------- detection


class FakeProbe:
    wire = "openai-chat"

    def __init__(self, base_url: str, answers: dict[str, Any]) -> None:
        self.base_url = base_url
        self.answers = answers
        self.asked: list[str] = []

    async def probe_json(self, path: str, *, root: bool = False) -> Any:
        self.asked.append(("/" if root else "") + path)
        return self.answers.get(path)


RIG_PROPS = {
    "default_generation_settings": {"n_ctx": 4096},
    "total_slots": 2,
    "model_alias": "smollm2-135m-instruct-q4_1",
    "model_path": "/tmp/frontier-rig/models/SmolLM2-135M-Instruct.Q4_1.gguf",
}
"""What the rig's llama-server answers to ``GET /props`` (abridged)."""


async def test_detection_by_props_models_and_host() -> None:
    llama = await detect_prefill(FakeProbe("http://127.0.0.1:18080/v1", {"props": RIG_PROPS}))
    assert (llama.enabled, llama.server) == (True, "llama.cpp")
    vllm_models = {"data": [{"id": "qwen", "owned_by": "vllm", "max_model_len": 32768}]}
    vllm = await detect_prefill(FakeProbe("http://gpu:8000/v1", {"models": vllm_models}))
    assert (vllm.enabled, vllm.server, dict(vllm.body)) == (True, "vLLM", dict(VLLM_BODY))
    probe = FakeProbe("https://openrouter.ai/api/v1", {})
    routed = await detect_prefill(probe)
    assert routed.server == "OpenRouter" and probe.asked == []
    other = await detect_prefill(FakeProbe("https://api.openai.com/v1", {"models": {"data": []}}))
    assert not other.enabled and "prefill = on" in other.reason
    assert from_props({"error": "nope"}) is None
    assert from_models({"data": [{"owned_by": "llamacpp"}]}) == PrefillSupport(
        True, "llama.cpp", "llama.cpp (GET /models: owned_by llamacpp)"
    )


async def test_prefill_on_forces_it_and_a_failing_probe_means_off() -> None:
    async def unknown() -> PrefillSupport:
        return PrefillSupport(False, reason="not known")

    async def broken() -> PrefillSupport:
        raise RuntimeError("boom")

    assert (await Prefill("on", unknown).support()).enabled
    assert not (await Prefill("auto", unknown).support()).enabled
    found = await Prefill("auto", broken).support()
    assert not found.enabled and "boom" in found.reason
    with pytest.raises(ValueError, match="prefill must be one of"):
        Prefill("sometimes")


async def test_a_vllm_continuation_sends_continue_final_message(tmp_path: Path) -> None:
    step = Step("notes", "", (write_call("heredoc"),))
    run = Run(tmp_path, step, max_tokens=100, echo=False)

    async def vllm() -> PrefillSupport:
        return PrefillSupport(True, "vLLM", "test", body=dict(VLLM_BODY))

    run.loop.prefill = Prefill("auto", vllm)
    assert await run.send() == "done"
    bodies = run.transport.bodies
    assert "continue_final_message" not in bodies[0]
    assert bodies[1]["continue_final_message"] is True
    assert bodies[1]["add_generation_prompt"] is False
    assert bodies[1]["max_tokens"] == 100


async def test_the_client_probes_the_demo_like_llama_cpp() -> None:
    client = demo_chat(DemoTransport("ctl", 0, prefill=True))
    assert (await detect_prefill(client)).server == "llama.cpp"
    plain = demo_chat(DemoTransport("ctl", 0))
    assert not (await detect_prefill(plain)).enabled
    await client.aclose()
    await plain.aclose()


def test_echo_min_is_what_the_docs_say() -> None:
    assert ECHO_MIN == 16


class Refusing(DemoTransport):
    """Answers a request ending with an assistant message with HTTP 400 (or an error
    event in a 200 stream)."""

    def __init__(self, *args: Any, event: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.event = event

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            body = json.loads(request.content)
            if body["messages"][-1]["role"] == "assistant":
                self.bodies.append(body)
                error = {"error": {"message": "assistant prefill is not supported"}}
                if self.event:
                    sse = f"data: {json.dumps(error)}\n\n".encode()
                    headers = {"content-type": "text/event-stream"}
                    return httpx.Response(200, headers=headers, content=sse)
                return httpx.Response(400, json=error)
        return await super().handle_async_request(request)


@pytest.mark.parametrize("event", [False, True], ids=["http-400", "error-event"])
async def test_a_refused_continuation_falls_back_to_the_resend(tmp_path: Path, event: bool) -> None:
    step = Step("notes", "", (write_call("heredoc"),))
    run = Run(tmp_path, step, max_tokens=100)
    run.transport = Refusing(
        "ctl-heredoc", rate=0, prefill=True, responder=resending(step), event=event
    )
    client = demo_chat(run.transport, max_tokens=100)
    run.loop.client = client
    run.loop.prefill = Prefill("on", lambda: detect_prefill(client))
    assert await run.send() == "repair_limit"
    cut = run.of(ResponseEnded)[0]
    assert "not continued: the continuation request failed" in cut.detail
    assert "assistant prefill is not supported" in cut.detail
    assert [m[-1]["role"] for m in run.requests()] == ["user", "assistant", "user", "user", "user"]
    assert not run.of(ResponseContinued)
    assert run.loop.prefill.known is not None and not run.loop.prefill.known.enabled


# --------------------------------------------------------------------------- settings


def test_prefill_and_max_tokens_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from frontier.app.cli import build_parser
    from frontier.app.commands._agent_args import config_from_args
    from frontier.app.config import ConfigError, config_path, load_config

    monkeypatch.delenv("FRONTIER_PREFILL", raising=False)
    monkeypatch.delenv("FRONTIER_MAX_TOKENS", raising=False)
    assert (load_config().prefill, load_config().max_tokens) == ("auto", None)
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text("prefill = false\nmax_tokens = 512\n")
    assert (load_config().prefill, load_config().max_tokens) == ("off", 512)
    monkeypatch.setenv("FRONTIER_PREFILL", "on")
    monkeypatch.setenv("FRONTIER_MAX_TOKENS", "64")
    assert (load_config().prefill, load_config().max_tokens) == ("on", 64)
    args = build_parser().parse_args(
        ["run", "--prefill", "off", "--max-tokens", "8", "--prompt", "x"]
    )
    config = config_from_args(args)
    assert config is not None and (config.prefill, config.max_tokens) == ("off", 8)
    monkeypatch.setenv("FRONTIER_PREFILL", "sometimes")
    with pytest.raises(ConfigError, match=r"prefill must be auto, on or off.*FRONTIER_PREFILL"):
        load_config()
    monkeypatch.setenv("FRONTIER_PREFILL", "auto")
    with pytest.raises(ConfigError, match=r"max_tokens must be a whole number.*--max-tokens"):
        load_config(max_tokens=0)
    assert build_parser().parse_args(["demo", "--prefill", "on"]).prefill == "on"


async def test_max_tokens_goes_in_every_request_body() -> None:
    go = ModelRequest("", (UserText("go"),))
    transport = DemoTransport("ctl", 0)
    client = demo_chat(transport, max_tokens=7)
    items = [item async for item in client.stream(go)]
    assert transport.bodies[0]["max_tokens"] == 7
    end = items[-1]
    assert isinstance(end, StreamEnd) and end.finish_reason == "length"
    plain = DemoTransport("ctl", 0)
    client2 = demo_chat(plain)
    _ = [item async for item in client2.stream(go)]
    assert "max_tokens" not in plain.bodies[0]
    # a request's own cap wins over the client's
    capped = [item async for item in client.stream(ModelRequest("", go.items, max_tokens=3))]
    assert transport.bodies[1]["max_tokens"] == 3 and isinstance(capped[-1], StreamEnd)
    await client.aclose()
    await client2.aclose()
