"""The framing-error inspector's core and ``frontier check --explain``.

Every contract-error kind is explained from a recording (``inspector_cases``): the
bytes around the offset, the frame as parsed so far, the feedback; a stored session
adds what the store recorded and the model's next attempt — built through the demo
model and the real loop (the miscounted body and the cut-off call are repaired on the
next response) and through the store API (a repair that fails again, a session that
ends at the error).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inspector_cases import BAD_XML, EXPECT, recordings

from frontier.app.agent.explain import (
    explain_recording,
    explain_session,
    explain_stream,
    format_explanation,
)
from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.agent.repair import Failure, repair_text
from frontier.app.cli import main as cli_main
from frontier.app.cst.base import split
from frontier.app.cst.explain import hex_rows, locate_errors, text_lines
from frontier.app.cst.snapshot import can_snapshot
from frontier.app.events import CONTRACT_ERROR_KINDS
from frontier.app.model.conversation import AssistantTurn, Item, UserText
from frontier.app.model.demo_script import DEMO_TASK
from frontier.app.model.registry import codec
from frontier.app.model.transport import ModelClient
from frontier.app.model.wires.demo import DEMO_BASE_URL, DemoTransport, make_demo_workspace
from frontier.app.session.db import default_path
from frontier.app.session.record import read_recording, synthesize
from frontier.app.session.store import SessionStore
from frontier.app.transducers import transducer_factory
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

ANSI = re.compile(r"\x1b\[")
TRUNCATED_FEEDBACK = (
    "error truncated: your response was cut off at byte 197 by the output token limit. "
    "c1 (read) was complete and ran: its result is above.\n"
    "c2 (apply_patch) was cut off before its arguments were complete, so it did not run: "
    "resend it complete (and anything after).\n"
    "Keep arguments short enough to fit."
)
"""What the loop sends after the ``truncated`` example (ctl, cut by the token limit
after c1 ran, inside c2)."""


@pytest.fixture
def cases(tmp_path: Path) -> dict[str, Path]:
    return recordings(tmp_path)


# --------------------------------------------------------------------------- each kind


@pytest.mark.parametrize("kind", CONTRACT_ERROR_KINDS)
def test_each_kind_is_explained_from_a_recording(cases: dict[str, Path], kind: str) -> None:
    path = cases[kind]
    rec = read_recording(path)
    [exp] = explain_recording(str(path), rec)
    site = exp.site
    assert site.kind == kind
    text = format_explanation(exp)
    for expected in EXPECT[kind]:
        assert expected in text, f"{kind}: {expected!r} not in\n{text}"
    # the window holds the error offset (or ends at it), and the hex rows mark it
    assert site.window_start <= site.offset <= site.window_start + len(site.window)
    marked = [r for r in hex_rows(site) if r.error is not None]
    assert len(marked) == 1
    row = marked[0]
    assert row.offset + row.error == site.offset
    # the feedback is exactly what the loop sends for the first error of a response
    # (a truncation's names each call of the response: tests/test_wires_loopback.py
    # checks it against what a live session stored)
    if kind == "truncated":
        assert exp.feedback == TRUNCATED_FEEDBACK
    else:
        open_ids = tuple(i for i, _ in site.open_calls)
        failure = Failure(site.kind, site.message, site.offset, open_ids)
        assert exp.feedback == repair_text(failure, mode=rec.mode)
    assert f"  feedback  {exp.feedback.splitlines()[0]}" in text
    assert "  recorded  not a stored session" in text
    assert "  next      unknown: a recording file" in text


def test_every_kind_has_a_case() -> None:
    assert set(EXPECT) == set(CONTRACT_ERROR_KINDS)


def test_declared_vs_arrived_are_read_from_the_frame(cases: dict[str, Path]) -> None:
    small = explain_recording("x", read_recording(cases["unexpected_line"]))[0].site
    assert (small.declared, small.arrived, small.written) == (5, 5, 12)
    assert small.frame.args[-1].key == "content" and small.frame.args[-1].complete
    large = explain_recording("x", read_recording(cases["body_eof"]))[0].site
    assert (large.declared, large.arrived) == (400, 17)
    assert large.frame.open_arg is not None and large.frame.open_arg.key == "content"
    heredoc = explain_recording("x", read_recording(cases["heredoc_eof"]))[0].site
    assert heredoc.frame.tag == "EOF" and heredoc.arrived == 18 and heredoc.declared is None


def test_the_frame_is_the_one_before_the_error_whatever_the_chunking() -> None:
    text = "Notes.\ncall c1 write\narg path a.py\narg content 5\nhello world\nend\n"
    seen = set()
    for size in (1, 2, 3, 7, 64, len(text)):
        report = locate_errors(split(text.encode(), size), "ctl", True)
        [site] = report.errors
        seen.add((site.offset, site.frame, site.window, site.written))
    assert len(seen) == 1


def test_a_snapshot_changes_nothing() -> None:
    """Snapshotting between every byte leaves the events exactly as without it."""
    for path in sorted(Path(__file__).with_name("examples").glob("*.jsonl")):
        rec = read_recording(path)
        data = rec.transducer_input()
        fresh = transducer_factory(rec.wire)
        plain = fresh(rec.mode)
        expected = [e for b in split(data, 1) for e in plain.feed(b)] + plain.finish(rec.clean)
        t = fresh(rec.mode)
        got = []
        for b in split(data, 1):
            if can_snapshot(t):
                t.snapshot()
            got += t.feed(b)
        got += t.finish(rec.clean)
        assert got == expected, path.name


def test_text_view_marks_frontier_and_error() -> None:
    report = locate_errors([b"call c1 read\nbogus\nend\n"], "ctl", True)
    [site] = report.errors
    lines = text_lines(site)
    marks = [(s.kind, s.data) for line in lines for s in line]
    assert ("frontier", b"") in marks
    assert ("error", b"b") in marks
    assert ("unread", b"ogus\n") in marks
    assert ("confirmed", b"call c1 read\n") in marks


def test_xml_truncation_explains_one_error_per_call_with_the_first_ones_feedback() -> None:
    text = BAD_XML.replace("stray words\n", "").replace("</minimax:tool_call>\n", "")
    text += '<invoke name="read">\n<parameter name="path">REA'
    found = explain_stream("x.jsonl", "xml", [text.encode()], "length")
    assert [e.site.kind for e in found] == ["truncated", "truncated"]
    assert [e.site.call for e in found] == [("call_1", "read"), ("call_2", "read")]
    assert found[0].feedback == found[1].feedback  # the loop sends the first error's
    assert found[1].site.frame.element == (
        'minimax:tool_call > invoke name="read" > parameter name="path"'
    )
    assert "error 2/2 truncated" in format_explanation(found[1])


# --------------------------------------------------------------------------- a stored session


async def _demo_session(tmp_path: Path, mode: str) -> str:
    """The demo story through the real loop into the default store (``check`` reads it)."""
    root = make_demo_workspace(tmp_path / "ws")
    store = SessionStore.open(default_path())
    sid = store.create_session(str(root), "demo", DEMO_BASE_URL, mode)
    registry = default_registry()
    loop = AgentLoop(
        client=ModelClient(
            codec("openai-chat"), DEMO_BASE_URL, "demo", transport=DemoTransport(mode, rate=0)
        ),
        boundary=ToolBoundary(registry, root, PolicyApprover("auto"), store.persistence(sid)),
        registry=registry,
        mode=get_mode(mode),
        store=store,
        session_id=sid,
    )
    ended = await loop.send(DEMO_TASK)
    assert ended.reason == "done", ended
    store.close()
    return sid


@pytest.mark.parametrize(
    ("mode", "kind"), [("ctl", "unexpected_line"), ("ctl-heredoc", "body_eof")]
)
async def test_the_demo_miscount_is_repaired_on_the_next_response(
    tmp_path: Path, mode: str, kind: str
) -> None:
    sid = await _demo_session(tmp_path, mode)
    found = explain_session(sid)
    assert [e.site.kind for e in found] == [kind, "truncated"]
    miscount, cut = found
    assert miscount.site.call == ("c4", "write")
    assert miscount.recorded is not None and miscount.recorded_matches
    assert miscount.attempt is not None and miscount.attempt.succeeded
    assert miscount.attempt.call == ("c4", "write") and miscount.attempt.result == "ok"
    assert miscount.attempt.name == f"{sid}#{miscount.request_index + 1}"
    assert cut.attempt is not None and cut.attempt.call == ("c6", "replace")
    assert cut.attempt.succeeded


async def test_check_explain_prints_the_session_and_next_attempt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sid = await _demo_session(tmp_path, "ctl-heredoc")
    assert cli_main(["check", "--explain", sid]) == 0
    out = capsys.readouterr().out
    assert not ANSI.search(out)  # no colour: a pipe, a CI log
    blocks = [line for line in out.splitlines() if line.startswith("explain ")]
    assert len(blocks) == 2
    first = re.search(r"explain (\S+)#(\d+) error 1/1 body_eof at byte (\d+)", out)
    assert first is not None and first[1] == sid
    index = int(first[2])
    assert '  length    arg "content": declared 135 bytes, 116 arrived (19 missing)' in out
    assert "  recorded  the store's next user message carries this feedback:" in out
    assert f"  next      {sid}#{index + 1}: repaired: c4 write confirmed at byte" in out
    assert ", then ran: ok" in out
    assert f"  replay    frontier replay {sid}#{index}" in out
    # SESSION#N explains that response only; its check line comes first
    assert cli_main(["check", "--explain", f"{sid}#{index}"]) == 0
    one = capsys.readouterr().out.splitlines()
    assert one[0].startswith(f"ok    {sid}#{index}: ") and "errors=body_eof" in one[0]
    assert one[1] == f"explain {sid}#{index} error 1/1 body_eof at byte {first[3]}"


def _stored(texts: list[tuple[str, str | None]], mode: str = "ctl") -> str:
    """A session through the store API: per response its text and the runtime's next
    user message (``None``: none stored), each response's errors logged as the loop does."""
    store = SessionStore.open(default_path())
    sid = store.create_session("/tmp/ws", "m", None, mode)
    for index, (text, feedback) in enumerate(texts):
        rid = store.begin_response(sid, mode, "m", index)
        rec = synthesize(text, mode, sizes=(5,))
        for t, data in rec.events:
            store.add_stream_event(rid, t, data)
        for site in locate_errors([text.encode()], mode, True).errors:
            store.add_contract_error(sid, site.kind, site.message, site.offset, rid)
        store.end_response(rid, "stop")
        round_: list[Item] = [AssistantTurn(text)]
        if feedback is not None:
            round_.append(UserText(feedback, "feedback"))
        store.append_items(sid, round_)
    store.close()
    return sid


def test_a_repair_that_fails_again_and_a_session_that_ends_at_the_error() -> None:
    first = "call c1 write\narg path a.py\narg content 3\nhello\nend\n"
    again = "call c1 write\narg path a.py\narg content 4\nhello\nend\n"
    sent = explain_stream("x", "ctl", [first.encode()], "stop")[0].feedback
    sid = _stored([(first, sent), (again, "error contract (unexpected_line) …"), (again, None)])
    one, two, three = explain_session(sid)
    assert one.attempt is not None and one.attempt.outcome == "failed"
    assert one.attempt.summary.startswith("failed again: unexpected_line at byte 46")
    assert one.recorded_matches is True
    assert two.recorded_matches is False  # the store holds another text than the loop's
    assert "it differs from the feedback above" in format_explanation(two)
    assert three.recorded is None and three.attempt is not None
    assert three.attempt.outcome == "none"
    assert "  recorded  no runtime message was stored after this response" in (
        format_explanation(three)
    )
    assert "  next      no later response was stored" in format_explanation(three)


def test_a_call_not_resent_is_not_a_repair() -> None:
    broken = "call c1 write\narg path a.py\narg content 3\nhello\nend\n"
    other = "call c2 read\narg path a.py\nend\n"
    sid = _stored([(broken, "error contract"), (other, None)])
    [exp] = explain_session(sid)
    assert exp.attempt is not None and exp.attempt.outcome == "other"
    assert exp.attempt.summary == "c1 write was not resent; it confirmed c2 read"


def test_check_explain_of_a_file_and_of_a_missing_response(
    cases: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["check", "--explain", str(cases["bad_xml"])]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok    ") and f"\nexplain {cases['bad_xml']} error 1/1 bad_xml" in out
    sid = _stored([("call c1 read\narg path a\nend\n", None)])
    assert cli_main(["check", "--explain", f"{sid}#7"]) == 2
    assert "no response #7" in capsys.readouterr().err
    # a clean recording prints its check line and nothing more
    clean = Path(__file__).with_name("examples") / "ok-ctl-length.jsonl"
    assert cli_main(["check", "--explain", str(clean)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_text_is_stable_for_ci_logs(cases: dict[str, Path]) -> None:
    """Every field line starts with two spaces and a label from a fixed set."""
    labels = {"mode", "message", "offset", "state", "call", "args", "length", "tag", "element"}
    labels |= {"json", "pending", "hex", "text", "feedback", "recorded", "next", "replay"}
    labels |= {"wire", "calls", "client", "whose"}  # native: the wire's events (issue 25)
    for kind, path in cases.items():
        for exp in explain_recording(str(path), read_recording(path)):
            lines = format_explanation(exp).splitlines()
            assert lines[0].startswith(f"explain {path} error 1/1 {kind} at byte ")
            for line in lines[1:]:
                label = line[2:12].strip()
                assert line.startswith("  ") and (label in labels or not label), line


def test_a_stored_response_explains_as_its_text_does() -> None:
    """Offsets from the store are the recording's: the same site as from the text."""
    text = "Writing.\ncall c1 write\narg content <<EOF\nline\n"
    sid = _stored([(text, None)], mode="ctl-heredoc")
    [stored] = explain_session(sid)
    [direct] = explain_stream("x", "ctl-heredoc", [text.encode()], "stop")
    assert (stored.site.offset, stored.site.window, stored.site.frame) == (
        direct.site.offset,
        direct.site.window,
        direct.site.frame,
    )
