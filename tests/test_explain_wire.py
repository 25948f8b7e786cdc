"""The explanation speaks the capture's language (issue 25): a native stream's framing
error named by its wire event, the calls as parsed so far, what a confirming client
ran and held back at each event; and the server's own framing errors told apart.

Streams are hand-written recordings (data strings as each wire sends them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from frontier.app.agent.explain import (
    SERVER_FRAMING,
    Explanation,
    explain_recording,
    format_explanation,
)
from frontier.app.cli import main as cli_main
from frontier.app.model.wires.rules import RULES, check_events
from frontier.app.session.record import Recording, write_recording


def _rec(wire: str, data: list[Any], mode: str = "native-inc", finish: str = "stop") -> Recording:
    texts = [d if isinstance(d, str) else json.dumps(d) for d in data]
    events = tuple((round(i * 0.01, 6), d) for i, d in enumerate(texts))
    return Recording(
        mode=mode,
        model="example",
        created="2026-01-01T00:00:00+00:00",
        events=events,
        finish_reason=finish,
        end_t=events[-1][0],
        wire=wire,
    )


def _explain(rec: Recording) -> list[Explanation]:
    return explain_recording("capture.jsonl", rec)


def _model(found: list[Explanation]) -> Explanation:
    return next(e for e in found if not e.server)


def _server(found: list[Explanation]) -> list[str]:
    return [e.site.message for e in found if e.server]


# --------------------------------------------------------------------------- Anthropic


def _block_start(index: int, ident: str, name: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": ident, "name": name, "input": {}}
    return {"type": "content_block_start", "index": index, "content_block": block}


def _input(index: int, piece: str) -> dict[str, Any]:
    delta = {"type": "input_json_delta", "partial_json": piece}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def _anthropic(*middle: dict[str, Any], reason: str = "max_tokens") -> list[Any]:
    return [
        {"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        _stop(0),
        _block_start(1, "toolu_a", "read"),
        _input(1, '{"path": "a.py"}'),
        _stop(1),
        *middle,
        {"type": "message_delta", "delta": {"stop_reason": reason}},
        {"type": "message_stop"},
    ]


CUT_ANTHROPIC = _anthropic(_block_start(2, "toolu_b", "write"), _input(2, '{"path": "b.py", "con'))


def test_anthropic_tool_use_cut_by_max_tokens_names_the_block_and_what_ran() -> None:
    exp = _model(_explain(_rec("anthropic-messages", CUT_ANTHROPIC, finish="length")))
    text = format_explanation(exp)
    assert (
        "the Anthropic tool_use block at index 2 (toolu_b write) never got its "
        "content_block_stop before event 10 message_delta with stop_reason: max_tokens"
    ) in text
    # the call as parsed so far: its bytes and that they were not complete JSON
    assert '16 argument bytes, complete JSON: \'{"path": "a.py"}\'' in text
    assert '21 argument bytes, not complete JSON: \'{"path": "b.py", "con\'' in text
    # what a confirming client ran, at which event, and what it held back and why
    assert "event 7 content_block_stop index 1: toolu_a read became executable" in text
    assert "ran: toolu_a read (at event 7 content_block_stop index 1)" in text
    assert "held back: toolu_b write: its arguments are not a complete JSON object" in text
    assert not _server(_explain(_rec("anthropic-messages", CUT_ANTHROPIC, finish="length")))


def test_anthropic_native_eos_holds_a_complete_block_back() -> None:
    rec = _rec("anthropic-messages", CUT_ANTHROPIC, mode="native-eos", finish="length")
    text = format_explanation(_model(_explain(rec)))
    assert (
        "the Anthropic tool_use block at index 1 (toolu_a read) got its content_block_stop "
        "but did not run: the response was cut at event 10 message_delta"
    ) in text
    assert "held back: toolu_a read: native-eos runs no call before a clean end" in text
    assert "ran: " not in text


# --------------------------------------------------------------------------- Chat


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _piece(index: int, args: str, ident: str = "", name: str = "") -> dict[str, Any]:
    fn: dict[str, Any] = {"arguments": args}
    call: dict[str, Any] = {"index": index, "function": fn}
    if ident:
        call.update(id=ident, type="function")
        fn["name"] = name
    return _chunk({"tool_calls": [call]})


def test_chat_late_arguments_name_the_tool_calls_index_and_when_it_ran() -> None:
    data = [
        _chunk({"content": "Reading."}),
        _piece(0, '{"path": "a.py"}', "call_a", "read"),
        _piece(1, '{"path"', "call_b", "read"),
        _piece(0, ', "limit": 5}'),
        _chunk({}, "tool_calls"),
        "[DONE]",
    ]
    exp = _model(_explain(_rec("openai-chat", data, finish="tool_calls")))
    assert exp.site.kind == "late_arguments"
    text = format_explanation(exp)
    assert (
        "Chat tool_calls[0] (call_a read) received argument bytes at event 4 chunk "
        "(tool_calls[0] 13 argument chars) after it was complete (it became executable at "
        "event 3 chunk (tool_calls[1] 7 argument chars)) (late_arguments)"
    ) in text
    assert "ran: call_a read (at event 3" in text
    assert "held back: call_b read: reading stopped at the late arguments" in text


def test_chat_cut_by_length_says_chat_never_marks_a_call_complete() -> None:
    data = [
        _piece(0, '{"path": "a.py"}', "call_a", "read"),
        _piece(1, '{"path": "b', "call_b", "write"),
        _chunk({}, "length"),
        "[DONE]",
    ]
    text = format_explanation(_model(_explain(_rec("openai-chat", data, finish="length"))))
    assert (
        "Chat tool_calls[1] (call_b write) was still open at event 3 chunk (finish_reason: length)"
        in text
    )
    assert "ran: call_a read (at event 2 chunk (tool_calls[1] 11 argument chars))" in text
    assert "Chat never says a call is complete" in text


# --------------------------------------------------------------------------- Responses


def _added(index: int, item: str, ident: str, name: str) -> dict[str, Any]:
    fc = {"type": "function_call", "id": item, "call_id": ident, "name": name, "arguments": ""}
    return {"type": "response.output_item.added", "output_index": index, "item": fc}


def _args(index: int, delta: str, item: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "response.function_call_arguments.delta"}
    out.update(output_index=index, delta=delta)
    if item:
        out["item_id"] = item
    return out


def _args_done(index: int, arguments: str) -> dict[str, Any]:
    kind = "response.function_call_arguments.done"
    return {"type": kind, "output_index": index, "arguments": arguments}


def _item_done(index: int, item: str, ident: str, name: str, arguments: str) -> dict[str, Any]:
    fc = {"type": "function_call", "id": item, "call_id": ident, "name": name}
    fc.update(arguments=arguments, status="completed")
    return {"type": "response.output_item.done", "output_index": index, "item": fc}


COMPLETED = {"type": "response.completed", "response": {"status": "completed", "output": []}}
INCOMPLETE = {
    "type": "response.incomplete",
    "response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
}


def test_responses_item_without_output_item_done_is_named_with_its_id() -> None:
    data = [
        _added(0, "fc_1", "call_a", "read"),
        _args(0, '{"path": "a.py"}'),
        _item_done(0, "fc_1", "call_a", "read", '{"path": "a.py"}'),
        _added(1, "fc_2", "call_b", "write"),
        _args(1, '{"path": "b.py", "content": "x'),
        INCOMPLETE,
    ]
    text = format_explanation(_model(_explain(_rec("openai-responses", data, finish="length"))))
    assert (
        "the Responses function_call item fc_2 at output_index 1 (call_b write) never got its "
        "response.output_item.done before event 6 response.incomplete (reason: max_output_tokens)"
    ) in text
    assert "ran: call_a read (at event 3 response.output_item.done output_index 0" in text
    assert "held back: call_b write: its arguments are not a complete JSON object; its " in text


# --------------------------------------------------------------------------- server rules


SERVER_CASES: dict[str, tuple[str, list[Any], str]] = {
    "anthropic delta for a block never started": (
        "anthropic-messages",
        _anthropic(_input(5, '{"x": 1}'), reason="end_turn"),
        "content_block_delta (input_json_delta) at event 8 for index 5, a block never started",
    ),
    "anthropic stop for an index never opened": (
        "anthropic-messages",
        _anthropic(_stop(4), reason="end_turn"),
        "content_block_stop at event 8 for index 4, never opened",
    ),
    "anthropic delta after its stop": (
        "anthropic-messages",
        _anthropic(_input(1, "}"), reason="end_turn"),
        "content_block_delta (input_json_delta) at event 8 for index 1, after its "
        "content_block_stop at event 7",
    ),
    "anthropic index reused": (
        "anthropic-messages",
        _anthropic(_block_start(1, "toolu_c", "read"), _stop(1), reason="end_turn"),
        "content_block_start at event 8 reused index 1 (first started at event 5)",
    ),
    "anthropic event after message_stop": (
        "anthropic-messages",
        [*_anthropic(reason="end_turn"), _block_start(3, "toolu_d", "write")],
        "`content_block_start` at event 10 came after message_stop (event 9)",
    ),
    "responses delta for an item never added": (
        "openai-responses",
        [_args(2, '{"a": 1}'), COMPLETED],
        "response.function_call_arguments.delta at event 1 for output_index 2, an item never added",
    ),
    "responses arguments .done disagrees with the deltas": (
        "openai-responses",
        [
            _added(0, "fc_1", "call_a", "read"),
            _args(0, '{"path": "a.py"}'),
            _args_done(0, '{"path": "b.py"}'),
            _item_done(0, "fc_1", "call_a", "read", '{"path": "b.py"}'),
            COMPLETED,
        ],
        "response.function_call_arguments.done at event 3 carries arguments "
        '\'{"path": "b.py"}\' for output_index 0, but its deltas said \'{"path": "a.py"}\'',
    ),
    "responses output_item.done disagrees with the deltas": (
        "openai-responses",
        [
            _added(0, "fc_1", "call_a", "read"),
            _args(0, '{"path": "a.py"}'),
            _item_done(0, "fc_1", "call_a", "read", '{"path": "c.py"}'),
            COMPLETED,
        ],
        'response.output_item.done at event 3 carries arguments \'{"path": "c.py"}\' for '
        'output_index 0, but the deltas said \'{"path": "a.py"}\'',
    ),
    "responses call_id changes at done": (
        "openai-responses",
        [
            _added(0, "fc_1", "call_a", "read"),
            _args(0, '{"path": "a.py"}'),
            _item_done(0, "fc_1", "call_z", "read", '{"path": "a.py"}'),
            COMPLETED,
        ],
        "the function_call at output_index 0 changed its call_id from call_a to call_z at "
        "response.output_item.done (event 3)",
    ),
    "responses delta names another item": (
        "openai-responses",
        [_added(0, "fc_1", "call_a", "read"), _args(0, '{"path": "a.py"}', "fc_9"), COMPLETED],
        "response.function_call_arguments.delta at event 2 names item fc_9 for "
        "output_index 0, which was added as fc_1",
    ),
    "responses output_index reused": (
        "openai-responses",
        [_added(0, "fc_1", "call_a", "read"), _added(0, "fc_2", "call_b", "read"), COMPLETED],
        "response.output_item.added at event 2 reused output_index 0 (first added at event 1)",
    ),
    "responses event after response.completed": (
        "openai-responses",
        [COMPLETED, _added(0, "fc_1", "call_a", "read")],
        "`response.output_item.added` at event 2 came after the response ended (event 1)",
    ),
    "chat id changes for one index": (
        "openai-chat",
        [_piece(0, '{"a"', "call_a", "read"), _piece(0, ": 1}", "call_b", "read"), "[DONE]"],
        "tool_calls[0] changed its id from call_a to call_b at event 2 (one index, two ids)",
    ),
    "chat chunk after [DONE]": (
        "openai-chat",
        [
            _piece(0, '{"a": 1}', "call_a", "read"),
            _chunk({}, "tool_calls"),
            "[DONE]",
            _chunk({"content": "more"}),
        ],
        "a chunk at event 4 came after data: [DONE] (event 3)",
    ),
    "chat tool_calls after finish_reason": (
        "openai-chat",
        [
            _piece(0, '{"a": 1}', "call_a", "read"),
            _chunk({}, "tool_calls"),
            _piece(1, '{"b": 2}', "call_b", "read"),
            "[DONE]",
        ],
        "a chunk at event 3 carries content or tool_calls after finish_reason (event 2)",
    ),
}


def test_a_reserialised_repeat_is_the_servers_and_the_model_is_not_blamed_alone() -> None:
    """The same JSON in other bytes at ``output_item.done``: the accumulator stops with
    ``late_arguments`` (the call may have run); the explanation says the server did it."""
    data = [
        _added(0, "fc_1", "call_a", "read"),
        _args(0, '{"path": "a.py"}'),
        _args_done(0, '{"path": "a.py"}'),
        _item_done(0, "fc_1", "call_a", "read", '{"path":"a.py"}'),
        COMPLETED,
    ]
    found = _explain(_rec("openai-responses", data))
    assert _server(found) == [
        "server framing error: response.output_item.done at event 4 carries arguments "
        '\'{"path":"a.py"}\' for output_index 0, but function_call_arguments.done said '
        '\'{"path": "a.py"}\' (the same JSON in other bytes)'
    ]
    assert _model(found).site.kind == "late_arguments"


@pytest.mark.parametrize("case", sorted(SERVER_CASES))
def test_server_framing_errors_are_the_servers(case: str) -> None:
    wire, data, message = SERVER_CASES[case]
    found = _explain(_rec(wire, data))
    assert _server(found) == [f"server framing error: {message}"], case
    exp = next(e for e in found if e.server)
    assert exp.site.kind == SERVER_FRAMING
    text = format_explanation(exp)
    assert text.startswith("explain capture.jsonl server framing error 1/1 at byte ")
    assert "whose     the server's: the wire's own rules were broken (not a model error)" in text
    assert "feedback  none: the server broke its wire's own rules, not the model" in text
    # the rule is checked over the events alone, with no Frontier state
    events = [("message", d if isinstance(d, str) else json.dumps(d)) for d in data]
    assert [v.rule in RULES for v in check_events(wire, events)] == [True]


def test_well_formed_streams_have_no_server_framing_error() -> None:
    ok = [
        _added(0, "fc_1", "call_a", "read"),
        _args(0, '{"path":', "fc_1"),
        _args(0, ' "a.py"}', "fc_1"),
        _args_done(0, '{"path": "a.py"}'),
        _item_done(0, "fc_1", "call_a", "read", '{"path": "a.py"}'),
        COMPLETED,
    ]
    assert _explain(_rec("openai-responses", ok)) == []
    assert _explain(_rec("anthropic-messages", _anthropic(reason="tool_use"))) == []
    chat = [_piece(0, '{"a": 1}', "call_a", "read"), _chunk({}, "tool_calls"), "[DONE]"]
    assert _explain(_rec("openai-chat", chat)) == []


def test_check_explain_prints_the_servers_error_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "server.jsonl"
    wire, data, message = SERVER_CASES["anthropic stop for an index never opened"]
    write_recording(path, _rec(wire, data))
    cli_main(["check", "--explain", str(path)])
    out = capsys.readouterr().out
    assert f"explain {path} server framing error 1/1" in out
    assert f"server framing error: {message}" in out
    assert "error 1/1 server_framing" not in out  # never dressed as a model contract error


@pytest.mark.parametrize("case", sorted(SERVER_CASES))
def test_check_names_the_servers_framing_error_under_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    path = tmp_path / "server.jsonl"
    wire, data, message = SERVER_CASES[case]
    write_recording(path, _rec(wire, data))
    cli_main(["check", str(path)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(("ok    ", "FAIL  ")) and str(path) in lines[0]
    assert lines[1].startswith("      server framing error at event ")
    assert lines[1].endswith(f"(the server's, not the model's): {message}")
    # one line per stream, however many events broke the rules; then the closing count
    assert len(lines) == 3
    assert lines[2].startswith("1 response: ")
    assert "; framing broken: " in lines[2] and "1 with the server's framing errors" in lines[2]


def test_a_responses_stream_without_output_index_is_matched_by_item_id() -> None:
    """llama.cpp's ``/v1/responses`` (seen on the rig) names items only by id: the rules
    say so once, as the server's deviation, and still follow the call to its done."""
    item = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "write"}
    events = [
        (
            "response.output_item.added",
            json.dumps({"type": "response.output_item.added", "item": {**item, "arguments": ""}}),
        ),
        (
            "response.function_call_arguments.delta",
            json.dumps(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_1",
                    "delta": '{"path": "a',
                }
            ),
        ),
        (
            "response.output_item.done",
            json.dumps(
                {"type": "response.output_item.done", "item": {**item, "arguments": '{"path": "a'}}
            ),
        ),
    ]
    found = check_events("openai-responses", events)
    assert [v.rule for v in found] == ["missing_index"]
    assert "carries no output_index" in found[0].message and "event 1" in found[0].message


def test_a_deeply_nested_event_is_bounded_not_a_crash() -> None:
    """A capture is untrusted: an event nested 200,000 levels deep is read as not JSON
    (bounded before any recursion), never a ``RecursionError``: the server's
    ``not_json``."""
    for wire in ("anthropic-messages", "openai-responses", "openai-chat"):
        (violation,) = check_events(wire, [("content_block_delta", "[" * 200_000)])
        assert violation.rule == "not_json" and violation.event == 1


# --------------------------------------------------------------------------- beside the text


def _chat_text(piece: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}


def test_a_hole_in_a_text_frame_is_explained_where_the_live_run_failed_it() -> None:
    """An event that is not JSON inside a ctl-heredoc frame: the live run failed the call
    (``bad_json``: a hole in its bytes). The text alone reads as a whole frame, so
    ``check --explain`` said nothing; it now shows the error at the text byte where the
    event came, with the frame as parsed to there and the feedback the model got."""
    head = "call c1 write\narg path a.txt\narg content <<EOF\nl"
    rest = "ine2\nEOF\nend\n"
    rec = _rec(
        "openai-chat",
        [_chat_text(head), "{not json", _chat_text(rest), "[DONE]"],
        mode="ctl-heredoc",
    )
    (found,) = _explain(rec)
    site = found.site
    assert (site.kind, site.offset) == ("bad_json", len(head.encode()))
    assert site.call == ("c1", "write") and site.open_calls == (("c1", "write"),)
    assert site.frame.tool == "write" and site.frame.open_arg is not None
    assert "'{not json'" in site.message
    assert "error contract (bad_json)" in found.feedback
    text = format_explanation(found)
    assert f"bad_json at byte {len(head)}" in text and "c1 write" in text


def test_responses_events_numbered_backwards_or_items_added_out_of_order_are_named() -> None:
    """Neither was flagged (a capture audit): a spliced or reordered capture, or a proxy
    that buffered events out of order, read as the model's doing or as nothing."""

    def added(index: int, number: int) -> tuple[str, str]:
        item = {"id": f"msg_{index}", "type": "message"}
        body = {"type": "response.output_item.added", "output_index": index,
                "sequence_number": number, "item": item}  # fmt: skip
        return "response.output_item.added", json.dumps(body)

    found = check_events("openai-responses", [added(0, 1), added(1, 2), added(2, 2)])
    assert [v.rule for v in found] == ["out_of_order"]
    assert "sequence_number 2, not after the 2 before it" in found[0].message
    found = check_events("openai-responses", [added(1, 1), added(0, 2)])
    assert [v.rule for v in found] == ["out_of_order"]
    assert "added output_index 0 after output_index 1" in found[0].message
    assert check_events("openai-responses", [added(0, 1), added(1, 2)]) == []
