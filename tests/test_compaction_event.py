"""A compaction reads the same live and in a resumed session's history: the event is made
from the detail the store keeps (``agent/compaction_event.py``), and the history puts it
after the row it followed, before the failed reply the same request ended in."""

from __future__ import annotations

from frontier.app.agent.compaction_event import compaction_event
from frontier.app.agent.history_events import history_events
from frontier.app.events import Compacted, TurnEnded, UserMessage
from frontier.app.session.compactions import CompactionStep
from frontier.app.session.store import LogRecord
from frontier.app.session.timeline import Failure

STUB = {
    "reason": "threshold",
    "before": 5610,
    "after": 1916,
    "window": 4096,
    "rounds": 2,
    "keep_rounds": 3,
    "stubbed": [{"id": "c1", "bytes": 12449}, {"id": "c2", "bytes": 51}],
    "log_seq": 7,
}


def test_each_step_is_said_in_the_compactors_words() -> None:
    assert compaction_event("stub", STUB) == Compacted(
        "stub",
        5610,
        1916,
        4096,
        2,
        "threshold",
        "2 tool results (12,500 bytes) from 2 rounds before the latest 3 replaced by stubs",
    )
    summary = {"reason": "overflow", "rounds": 1, "keep_rounds": 1, "messages_summarised": 4}
    assert compaction_event("summary", {**summary, "source": "model smollm2"}).detail == (
        "1 round (4 messages) before the latest summarised by the model"
    )
    cut_short = {**summary, "source": "model (cut at max_tokens)"}  # said, not hidden (the rig)
    assert compaction_event("summary", cut_short).detail == (
        "1 round (4 messages) before the latest summarised by the model (its summary cut at "
        "the output token limit)"
    )
    assert compaction_event("summary", {**summary, "source": "Frontier (no model)"}).detail == (
        "1 round (4 messages) before the latest summarised by Frontier (no model)"
    )
    withdrawn = compaction_event("stub", {"reason": "too_long", "withdrawn": 10_000})
    assert withdrawn.detail == "your message (10,000 bytes) withdrawn from what the model is sent"
    last_too = compaction_event("stub", {**STUB, "keep_rounds": 0}).detail
    assert last_too.endswith(
        "(the latest too: the request did not fit the window) replaced by stubs"
    )
    trimmed = [
        {"id": "c1", "name": "shell", "bytes": 32_760, "kept": 8_192},
        {"id": "c2", "name": "read", "bytes": 20_000, "kept": 8_000},
    ]
    cut = compaction_event("stub", {**STUB, "keep_rounds": 0, "trimmed": trimmed}).detail
    assert cut == (
        "2 tool results of the latest round (52,760 → 16,192 bytes) cut to their first 60% "
        "and last 40%: the request did not fit the window"
    )
    odd = compaction_event("stub", {"trimmed": [{"bytes": "x"}, 7]}).detail
    assert odd.startswith("1 tool result of the latest round (0 → 0 bytes) cut to its")


def test_a_detail_of_the_wrong_shape_reads_as_absent() -> None:
    """The detail comes back from the person's store: an older or edited row never raises."""
    odd = {"before": "5610", "rounds": True, "stubbed": [3, None, {"bytes": "x"}], "reason": 4}
    event = compaction_event("stub", odd)
    assert (event.before, event.rounds, event.reason) == (0, 0, "threshold")
    assert (
        event.detail
        == "1 tool result (0 bytes) from 0 rounds replaced by stubs"  # no keep_rounds: not said
    )
    assert compaction_event("summary", {}).detail.endswith("summarised by the model")


def test_the_step_comes_after_its_row_and_before_the_reply_that_failed_there() -> None:
    records = [
        LogRecord(1, "user", 0.0, None, None, None, {"text": "hello"}),
        LogRecord(2, "user", 0.0, None, None, None, {"text": "x" * 50}),
        LogRecord(3, "user", 0.0, None, None, None, {"text": "shorter"}),
    ]
    failure = Failure(2, 0.0, "too long: the request needs 9,000 tokens")
    step = CompactionStep(2, "stub", {"reason": "too_long", "withdrawn": 50})
    events = list(history_events(records, [failure], [step]))
    assert [type(e) for e in events] == [
        UserMessage,
        UserMessage,
        Compacted,
        TurnEnded,
        UserMessage,
    ]
    assert events[2] == compaction_event("stub", step.detail)
    # a step after the last row comes last; two at one row keep their order
    late = [CompactionStep(3, "stub", STUB), CompactionStep(3, "summary", {"rounds": 5})]
    tail = list(history_events(records, (), late))[-2:]
    assert [(e.step, e.rounds) for e in tail if isinstance(e, Compacted)] == [
        ("stub", 2),
        ("summary", 5),
    ]


def test_the_export_puts_them_in_the_same_order() -> None:
    from frontier.app.session.compactions import CompactionRecord
    from frontier.app.session.export import export_records

    records = [LogRecord(1, "user", 0.0, None, None, None, {"text": "x" * 50})]
    withdrawn = {"reason": "too_long", "withdrawn": 50, "log_seq": 1}
    step = CompactionRecord(1, "s", 0.0, "stub", 1, [], withdrawn)
    failure = Failure(1, 0.0, "too long: the request needs 9,000 tokens")
    kinds = [r["type"] for r in export_records(records, [step], [failure])]
    assert kinds == ["user", "compaction", "ended"]
