"""The run's summary: what a headless run did, summed from its events (run_tally.py)."""

from __future__ import annotations

from frontier.app.events import (
    AssistantText,
    ResponseEnded,
    ResponseStarted,
    TokenUsage,
    ToolCall,
    ToolFinished,
    ToolResult,
    ToolStarted,
    TurnEnded,
)
from frontier.app.frontends.run_tally import RunTally


def finished(call_id: str, kind: str = "ok", files: list[str] | None = None) -> ToolFinished:
    meta = {"files": files} if files is not None else {}
    return ToolFinished(ToolResult(call_id, "write", kind, "", 0, 0.1, meta))  # type: ignore[arg-type]


def test_the_tally_counts_requests_calls_files_and_tokens_and_keeps_the_last_answer() -> None:
    tally = RunTally(started=100.0)
    for event in (
        ResponseStarted("native-inc"),
        AssistantText("I will edit two files."),
        ResponseEnded("tool_calls", TokenUsage(prompt=1000, completion=50, cached=800)),
        ToolStarted(ToolCall("c1", "write", {})),
        finished("c1", files=["b.py", "a.py"]),
        finished("c2", "error", files=["c.py"]),  # failed: its files were not changed
        finished("c3", files=["a.py"]),
        ResponseStarted("native-inc"),
        ResponseEnded("stop", TokenUsage(prompt=1200, completion=30)),
        AssistantText("Both are done."),  # reported after its response ended
        TurnEnded("done", ""),
    ):
        tally(event)
    result = tally.result("s1", 0, now=112.5)
    assert result == {
        "type": "result",
        "v": 1,
        "session": "s1",
        "exit": 0,
        "reason": "done",
        "message": "",
        "answer": "Both are done.",
        "turns": 1,
        "requests": 2,
        "tool_calls": 3,
        "failed_calls": 1,
        "files": ["b.py", "a.py"],
        "usage": {"prompt_tokens": 2200, "completion_tokens": 80, "cached_tokens": 800},
        "seconds": 12.5,
    }
    assert tally.line(112.5) == (
        "── done · 2 requests · 3 tool calls (1 failed) · 2 files changed: b.py, a.py · "
        "2,200 tokens in (800 cached), 80 out · 12.5 s"
    )


def test_a_reply_with_no_prose_keeps_the_earlier_answer_and_no_usage_is_null() -> None:
    tally = RunTally(started=0.0)
    for event in (
        ResponseStarted("ctl"),
        AssistantText("Here is what I found."),
        ResponseEnded("stop"),
        ResponseStarted("ctl"),
        ResponseEnded("error"),
        TurnEnded("provider_error", "HTTP 500"),
    ):
        tally(event)
    result = tally.result("s2", 1, now=1.0)
    assert result["answer"] == "Here is what I found."
    assert result["usage"] is None and result["reason"] == "provider_error"
    assert result["message"] == "HTTP 500" and result["exit"] == 1
    assert tally.line(1.0) == "── provider_error · 2 requests · 0 tool calls · 1.0 s"
    files = RunTally(0.0)
    for n in range(7):
        files(finished(f"c{n}", files=[f"f{n}.py"]))
    assert "7 files changed: f0.py, f1.py, f2.py, f3.py, f4.py and 2 more" in files.line(1.0)


def test_lengths_read_as_a_person_reads_them_and_file_names_are_shown_safe() -> None:
    from frontier.app.frontends.run_tally import duration

    assert [duration(s) for s in (4.24, 59.9, 187, 3845)] == [
        "4.2 s",
        "59.9 s",
        "3 min 07 s",
        "1 h 04 min",
    ]
    tally = RunTally(0.0)
    tally(ResponseStarted("ctl"))
    tally(finished("c1", files=["evil\x1b]52;c;AAAA\x07.py"]))
    line = tally.line(200.0, head="this run")
    assert line.startswith("── this run · 1 request · 1 tool call · 1 file changed: evil")
    assert "\x1b" not in line and "\\x1b" in line and line.endswith("3 min 20 s")


def test_a_continued_response_counts_its_cut_stream_as_a_request_with_its_tokens() -> None:
    """A reply cut at its length limit and continued from its frontier is one response
    made of two requests; the cut one's tokens were spent (and billed) too."""
    from frontier.app.events import ResponseContinued
    from frontier.widgets.progress import TurnProgress

    tally, progress = RunTally(started=0.0), TurnProgress()
    cut = TokenUsage(prompt=900, completion=400)
    for event in (
        ResponseStarted("ctl-heredoc"),
        ResponseContinued(3000, 25, 1, cut),
        ResponseEnded("stop", TokenUsage(prompt=1300, completion=120)),
        TurnEnded("done", ""),
    ):
        tally(event)
    progress.stream_cut(cut)
    progress.response_ended(TokenUsage(prompt=1300, completion=120))
    result = tally.result("s1", 0, now=1.0)
    assert result["requests"] == 2
    assert result["usage"] == {"prompt_tokens": 2200, "completion_tokens": 520, "cached_tokens": 0}
    assert (progress.tokens_in, progress.tokens_out) == (2200, 520)  # the status bar's ↑ ↓
    assert progress.context_used == 1420  # the window's share: the last request's alone
