"""HAR files as captures (issue 25): every streamed response to a model endpoint is read,
with its request body and its events; no header, cookie or query string survives; a
malformed or hostile HAR gives one clear error."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from frontier.app.cli import main as cli_main
from frontier.app.session import capture, capture_har
from frontier.app.session.capture import capture_sources
from frontier.app.session.capture_har import HarError, har_responses

KEY = "sk-secret-HAR-0123456789abcdef"
XKEY = "xk-secret-HAR-fedcba9876543210"
AZKEY = "az-secret-HAR-5555aaaa5555"
COOKIE = "session=cookie-secret-HAR-77"
SETCOOKIE = "sid=set-cookie-secret-HAR-88; HttpOnly"
QKEY = "q-secret-HAR-999"
SECRETS = (KEY, XKEY, AZKEY, "cookie-secret-HAR-77", "set-cookie-secret-HAR-88", QKEY)

CHAT = (
    'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n'
    'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n'
    "data: [DONE]\n\n"
)
RESPONSES = (
    'event: response.created\ndata: {"type":"response.created"}\n\n'
    "event: response.output_text.delta\n"
    'data: {"type":"response.output_text.delta","delta":"Hi"}\n\n'
    'event: response.completed\ndata: {"type":"response.completed"}\n\n'
)
ANTHROPIC = (
    'event: message_start\r\ndata: {"type":"message_start"}\r\n\r\n'
    ": keep-alive\r\n\r\n"
    'event: ping\r\ndata: {"type":"ping"}\r\n\r\n'
    'event: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\n'
)


def entry(
    url: str,
    body: str | None,
    *,
    mime: str = "text/event-stream",
    request: dict[str, Any] | None = None,
    timings: dict[str, float] | None = None,
    secrets: bool = True,
    **content: Any,
) -> dict[str, Any]:
    """One HAR entry as Chromium writes it, carrying every kind of credential a HAR holds."""
    headers = [{"name": "Content-Type", "value": "application/json"}]
    if secrets:
        headers += [
            {"name": "Authorization", "value": f"Bearer {KEY}"},
            {"name": "x-api-key", "value": XKEY},
            {"name": "api-key", "value": AZKEY},
            {"name": "Cookie", "value": COOKIE},
        ]
    got: dict[str, Any] = {"mimeType": mime, "size": len(body or ""), **content}
    if body is not None:
        got["text"] = body
    return {
        "startedDateTime": "2026-01-01T00:00:00.000Z",
        "time": 120,
        "request": {
            "method": "POST",
            "url": url + (f"?key={QKEY}" if secrets else ""),
            "headers": headers,
            "cookies": [{"name": "session", "value": "cookie-secret-HAR-77"}],
            "queryString": [{"name": "key", "value": QKEY}] if secrets else [],
            **(
                {"postData": {"mimeType": "application/json", "text": json.dumps(request)}}
                if request is not None
                else {}
            ),
        },
        "response": {
            "status": 200,
            "headers": [
                {"name": "content-type", "value": mime},
                {"name": "set-cookie", "value": SETCOOKIE},
            ],
            "cookies": [{"name": "sid", "value": "set-cookie-secret-HAR-88"}],
            "content": got,
        },
        "timings": timings
        if timings is not None
        else {"blocked": 1, "dns": -1, "connect": -1, "send": 1, "wait": 8, "receive": 90},
    }


def har(*entries: dict[str, Any]) -> bytes:
    return json.dumps({"log": {"version": "1.2", "entries": list(entries)}}).encode()


def three_wires() -> bytes:
    page = entry("https://api.example.com/index.html", "<html>", mime="text/html")
    return har(
        page,
        entry(
            "https://api.example.com/v1/chat/completions",
            CHAT,
            request={"model": "gpt-x", "stream": True, "tools": []},
        ),
        entry("https://api.example.com/v1/events", "data: x\n\n"),  # a stream, no model endpoint
        entry(
            "https://gw.example.com/openai/v1/responses",
            RESPONSES,
            request={"model": "o-y", "stream": True},
        ),
        entry(
            "https://api.anthropic.com/v1/messages",
            ANTHROPIC,
            mime="text/event-stream; charset=utf-8",
            request={"model": "claude-z", "stream": True},
        ),
    )


def test_every_streamed_model_response_is_one_response_with_its_events() -> None:
    chat, responses, anthropic = har_responses(three_wires())

    assert [r.entry for r in (chat, responses, anthropic)] == [2, 4, 5]
    assert [r.endpoint for r in (chat, responses, anthropic)] == [
        "/v1/chat/completions",
        "/openai/v1/responses",
        "/v1/messages",
    ]
    assert [r.model for r in (chat, responses, anthropic)] == ["gpt-x", "o-y", "claude-z"]
    assert all(r.kind == "har" and not r.torn and not r.notes for r in (chat, responses))
    assert chat.request == {"model": "gpt-x", "stream": True, "tools": []}
    assert [(e.event, e.data) for e in chat.events][-1] == (None, "[DONE]")
    assert len(chat.events) == 3
    assert [e.event for e in responses.events] == [
        "response.created",
        "response.output_text.delta",
        "response.completed",
    ]
    # CRLF and a keep-alive comment, as Anthropic's servers send them
    assert [e.event for e in anthropic.events] == ["message_start", "ping", "message_stop"]
    assert anthropic.events[0].data == '{"type":"message_start"}'


def test_events_are_spread_over_the_receive_time() -> None:
    (chat,) = har_responses(three_wires(), entry=2)
    # first byte at blocked 1 + send 1 + wait 8 = 10 ms; the body took 90 ms
    assert [e.t for e in chat.events] == [0.01, 0.055, 0.1]


def test_without_timings_events_have_no_time() -> None:
    data = har(entry("http://h/v1/chat/completions", CHAT, timings={}))
    assert [e.t for e in har_responses(data)[0].events] == [None, None, None]


def test_no_header_cookie_or_query_survives() -> None:
    data = three_wires()
    assert all(s.encode() in data for s in SECRETS)  # the HAR holds every one

    out = har_responses(data)
    shown = repr(out) + "".join(json.dumps(r.request) + " ".join(r.notes) for r in out)
    for secret in SECRETS:
        assert secret not in shown
    for wrong in (99, 1, 3):
        with pytest.raises(HarError) as caught:
            har_responses(data, entry=wrong)
        assert not any(s in str(caught.value) for s in SECRETS)
        assert "#2, #4, #5" in str(caught.value)


def test_a_stream_is_known_by_its_content_type_header_alone() -> None:
    e = entry("http://127.0.0.1:8080/chat/completions", CHAT, mime="")
    e["response"]["headers"][0]["value"] = "text/event-stream; charset=utf-8"
    (r,) = har_responses(har(e))
    assert r.endpoint == "/chat/completions" and len(r.events) == 3


def test_a_base64_body_is_decoded() -> None:
    body = base64.b64encode(CHAT.encode()).decode()
    (r,) = har_responses(har(entry("http://h/v1/chat/completions", body, encoding="base64")))
    assert [e.data for e in r.events][-1] == "[DONE]"


def test_an_empty_or_truncated_body_is_said_in_notes_not_an_error() -> None:
    empty = entry("http://h/v1/chat/completions", None)
    cut = entry("http://h/v1/chat/completions", CHAT[:60], size=len(CHAT))
    first, second = har_responses(har(empty, cut))

    assert first.events == () and "no body" in first.notes[0]
    assert second.torn and len(second.events) == 1
    assert any(f"60 of the body's {len(CHAT)} bytes" in n for n in second.notes)
    assert any("ends inside an event" in n for n in second.notes)


def test_a_request_body_that_is_not_json_or_too_deep_is_left_out() -> None:
    bad = entry("http://h/v1/chat/completions", CHAT)
    bad["request"]["postData"] = {"text": "model=x"}
    deep = entry("http://h/v1/chat/completions", CHAT)
    deep["request"]["postData"] = {"text": "[" * 5000 + "]" * 5000}
    first, second = har_responses(har(bad, deep))
    assert first.request is None and "not JSON" in first.notes[0]
    assert second.request is None and "nested" in second.notes[0]
    assert len(second.events) == 3


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"", "not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b'{"log": {"entries": {}}}', "no log.entries"),
        (b"[1, 2]", "no log.entries"),
        (b"[" * 100_000 + b"]" * 100_000, "nested"),
        (b'{"log": {"entries": [' + b'"x",' * 5 + b'{"url": 1}]}}', "no entry of this HAR"),
    ],
)
def test_a_malformed_har_gives_one_clear_error(data: bytes, said: str) -> None:
    with pytest.raises(HarError, match=said) as caught:
        har_responses(data)
    if said != "no entry of this HAR":
        assert str(caught.value).startswith("not a HAR file: ")


def test_size_and_entry_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture_har, "MAX_HAR_BYTES", 1000)
    with pytest.raises(HarError, match=r"not a HAR file: .* at most"):
        har_responses(b" " * 1001)
    monkeypatch.setattr(capture_har, "MAX_HAR_BYTES", 128 << 20)

    monkeypatch.setattr(capture_har, "MAX_ENTRIES", 2)
    streams = [entry(f"http://h/v1/chat/completions#{i}", CHAT, secrets=False) for i in range(3)]
    out = har_responses(har(*streams))
    assert [r.entry for r in out] == [1, 2]
    assert out[0].notes == ("the HAR has 3 entries; only the first 2 were read",)


def test_a_har_may_be_larger_than_a_capture_of_one_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A HAR holds a page's every request (images base64 among them), so its cap is its own
    (``MAX_HAR_BYTES``, twice ``MAX_CAPTURE``): a HAR between the two is read whole, while
    a raw SSE body of the same size, and a HAR past its own cap, are refused naming theirs.
    A HAR of 64–128 MiB was refused as an SSE body would be."""
    monkeypatch.setattr(capture, "MAX_CAPTURE", 4 << 10)
    monkeypatch.setattr(capture, "MAX_HAR_BYTES", 8 << 10, raising=False)
    monkeypatch.setattr(capture_har, "MAX_HAR_BYTES", 8 << 10)
    image = entry("https://h/logo.png", "A" * (5 << 10), mime="image/png", encoding="base64")
    stream = entry("https://h/v1/chat/completions", CHAT, secrets=False)
    page = tmp_path / "page.har"
    page.write_bytes(har(image, stream))
    assert 4 << 10 < page.stat().st_size <= 8 << 10
    [source] = capture_sources(str(page))
    assert source.name == str(page) and "HAR #2" in source.summary
    sse = tmp_path / "big.sse"
    sse.write_bytes(CHAT.encode() * 50)
    assert 4 << 10 < sse.stat().st_size <= 8 << 10
    assert cli_main(["check", str(sse)]) == 2
    assert "over 4,096 bytes, the cap for a capture" in capsys.readouterr().err
    heavy = tmp_path / "heavy.har"
    heavy.write_bytes(har(image, image, stream))
    assert cli_main(["check", str(heavy)]) == 2
    err = capsys.readouterr().err
    assert "the cap for a HAR file" in err and "filter the network panel" in err


def test_what_parsing_a_har_builds_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """``{}`` is two characters of a file and a 64-byte dict once parsed: a HAR is refused
    past ``MAX_CONTAINERS`` lists and objects, before it is parsed (128 MiB of ``{},`` took
    46 s and 5 GB to be told it held no stream). Brackets inside its strings (a page's
    scripts, a request body) do not count."""
    monkeypatch.setattr(capture_har, "MAX_CONTAINERS", 40)
    stream = entry("http://h/v1/chat/completions", CHAT, secrets=False)  # 13 of them
    script = entry("http://h/app.js", "function f() { return [{}]; }" * 500, mime="text/javascript")
    [found] = har_responses(har(script, stream))
    assert found.entry == 2
    with pytest.raises(HarError, match=r"over 40 lists and objects; save it again with only"):
        har_responses(har(*([{}] * 40), stream))
    with pytest.raises(HarError, match="over 40 lists and objects"):  # no stream: still bounded
        har_responses(b'{"log": {"entries": [' + b"{}," * 10_000 + b"{}]}}")
    # request bodies are strings in the HAR, parsed and kept with their responses: one
    # budget of the same size for all of them
    body = {"model": "m", "tools": [{"name": "read", "parameters": {"type": "object"}}] * 12}
    first, second = (
        entry("http://h/v1/chat/completions", CHAT, secrets=False, request=body) for _ in "ab"
    )
    read, unread = har_responses(har(first, second))
    assert read.request == body and read.notes == ()
    assert unread.request is None and unread.notes == (
        "the request body was not read: this HAR's request bodies hold over 40 lists and objects",
    )


def test_brackets_in_request_bodies_strings_do_not_use_up_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long session's HAR repeats the conversation, code and all, in every request body:
    only the lists and objects a body holds (3 here) are charged, not the brackets in its
    strings (30). Charging those left the last three of these six bodies unread with 18 of
    100 in use."""
    monkeypatch.setattr(capture_har, "MAX_CONTAINERS", 100)
    body = {"model": "m", "messages": [{"role": "user", "content": "[{" * 15}]}
    streams = [
        entry(f"http://h/v1/chat/completions#{i}", CHAT, secrets=False, request=body)
        for i in range(6)
    ]
    found = har_responses(har(*streams))  # the HAR itself: 99 lists and objects
    assert [r.request for r in found] == [{"model": "m"}] * 6  # read whole, the model kept
    assert all(r.notes == () for r in found)


def test_the_events_of_a_hars_responses_share_one_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bodies are strings in the HAR, so its container bound does not count their
    events: together its responses may hold ``MAX_EVENTS``, and a body past what is left is
    not read, with a note on its response (the others are checked as ever)."""
    monkeypatch.setattr(capture_har, "MAX_EVENTS", 4)
    streams = [entry(f"http://h/v1/chat/completions#{i}", CHAT, secrets=False) for i in "ab"]
    read, unread = har_responses(har(*streams))
    assert len(read.events) == 3 and read.notes == ()
    assert unread.events == () and unread.notes == (
        "the body was not read: this HAR's responses hold over 4 events",
    )


def test_many_entries_are_read_in_one_pass() -> None:
    """10,000 entries (the cap) with one stream among them: read, not refused."""
    filler = {"request": {"url": "http://h/a.js"}, "response": {"content": {"mimeType": "x"}}}
    data = har(*([filler] * 9_999), entry("http://h/v1/messages", ANTHROPIC, secrets=False))
    (r,) = har_responses(data)
    assert r.entry == 10_000 and len(r.events) == 3


def test_check_and_import_never_print_or_write_a_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from frontier.app.cli import main

    capture = tmp_path / "devtools.har"
    capture.write_bytes(three_wires())
    main(["check", "--explain", str(capture)])
    main(["check", f"{capture}#1"])
    main(["import", str(capture), "-o", str(tmp_path / "lesson.jsonl")])
    written = sorted(tmp_path.glob("lesson*.jsonl"))
    out = capsys.readouterr()
    assert len(written) == 3, out
    assert "#2, #4, #5" in out.err  # the refused #1 names the streamed entries
    for text in (out.out, out.err, *(p.read_text() for p in written)):
        for secret in SECRETS:
            assert secret not in text


CALLS_RM = (
    'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":'
    '{"name":"rm_rf","arguments":"{}"}}]}}]}\n\n'
    'data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    "data: [DONE]\n\n"
)


def test_the_tools_a_request_offered_are_said_and_a_call_to_another_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    offered = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in "ab"]
    anthropic_tools = [{"name": f"t{i}", "input_schema": {}} for i in range(14)]
    path = tmp_path / "calls.har"
    path.write_bytes(
        har(
            entry(
                "https://api.example.com/v1/chat/completions",
                CALLS_RM,
                request={"model": "m", "stream": True, "tools": offered},
            ),
            entry(
                "https://api.anthropic.com/v1/messages",
                ANTHROPIC,
                request={"model": "c", "stream": True, "tools": anthropic_tools},
            ),
        )
    )
    (chat, anthropic) = capture_sources(str(path))
    assert "offered tools: a, b" in chat.summary
    assert "called a tool the request did not offer: rm_rf" in chat.summary
    assert chat.recording.meta["offered_tools"] == ["a", "b"]
    assert "offered tools: t0, t1" in anthropic.summary and "(+2 more)" in anthropic.summary
    assert "did not offer" not in anthropic.summary  # it called nothing
    out = tmp_path / "lesson.jsonl"
    assert cli_main(["import", f"{path}#1", "-o", str(out)]) == 0
    header = json.loads(out.read_text().splitlines()[0])
    assert header["offered_tools"] == ["a", "b"]
    assert header["notes"] == ["called a tool the request did not offer: rm_rf"]
    capsys.readouterr()


@settings(max_examples=200, deadline=None)
@example([(40, 0), (40, 0), (35, 0)])  # the third is one over what is left
@example([(40, 0), (40, 0), (34, 1)])  # the third fits exactly, its strings' brackets not
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 60)), min_size=1, max_size=6))
def test_bodies_are_read_or_left_as_exact_counts_would_decide(
    shapes: list[tuple[int, int]],
) -> None:
    """Bodies are charged their bracket count (strings' brackets included) while it fits,
    and every body's exact count once one does not: the bodies read are exactly those an
    exact count of each would read, however many brackets their strings hold."""
    bodies = [{"model": "m", "a": [[] for _ in range(k)], "s": "[{" * m} for k, m in shapes]
    streams = [
        entry(f"http://h/v1/chat/completions#{i}", CHAT, secrets=False, request=body)
        for i, body in enumerate(bodies)
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(capture_har, "MAX_CONTAINERS", 120)  # the HAR itself: under 110
        found = har_responses(har(*streams))
    left, expected = 120, []
    for k, _ in shapes:
        exact = 2 + k  # the body, its list, k lists in it
        expected.append(exact <= left)
        left -= exact if exact <= left else 0
    assert [r.request is not None for r in found] == expected


def test_responses_detected_alike_are_said_in_one_line(tmp_path: Path) -> None:
    """A long session's HAR is hundreds of responses detected alike: one line names them
    all (a run of them; a response with a note, or read another way, keeps its own), where
    each had its own line and the replay's Transcript filled with them first."""
    page = entry("https://h/index.html", "<html>", mime="text/html", secrets=False)
    chat = [entry("https://h/v1/chat/completions", CHAT, secrets=False) for _ in range(3)]
    cut = entry("https://h/v1/chat/completions", CHAT, secrets=False, size=10_000)
    other = entry("https://h/v1/messages", ANTHROPIC, secrets=False)
    path = tmp_path / "s.har"
    path.write_bytes(har(*chat[:2], page, chat[2], cut, other, *chat[:2]))
    lines = capture.detection_lines(capture_sources(str(path)))
    assert lines[0] == (
        f"{path}#1–#2, #4 (3 responses): capture: HAR · openai-chat (from choices chunks) · "
        "ctl-heredoc (no call in the text: the default text mode) · 9 events · finish stop ×3"
    )
    assert lines[1].startswith(f"{path}#5: capture: HAR #5 · ") and "truncated" in lines[1]
    assert lines[2].startswith(f"{path}#6: capture: HAR #6 · anthropic-messages")
    assert lines[3].startswith(f"{path}#7–#8 (2 responses): capture: HAR · openai-chat")
    assert len(lines) == 4
    one = capture.detection_lines(capture_sources(f"{path}#4"))
    assert one == [f"{path}#4: " + capture_sources(f"{path}#4")[0].summary]


def test_reading_a_large_capture_is_said_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A HAR of a long session takes seconds to read before anything shows: ``check``,
    ``replay`` and ``import`` say first that they are reading it, and how much."""
    from frontier.app.commands import check

    path = tmp_path / "big.har"
    path.write_bytes(three_wires())
    monkeypatch.setattr(check, "SAY_READING", path.stat().st_size)
    assert cli_main(["check", f"{path}#2"]) == 0
    assert capsys.readouterr().err.startswith(f"reading {path} (0 MiB)…\n")
    assert cli_main(["import", str(path), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert capsys.readouterr().err.startswith(f"reading {path} (0 MiB)…\n")
    monkeypatch.setattr(check, "SAY_READING", path.stat().st_size + 1)
    assert cli_main(["check", f"{path}#2"]) == 0
    assert not capsys.readouterr().err.startswith("reading")
