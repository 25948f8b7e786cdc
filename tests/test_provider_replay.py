"""Replaying recorded responses: same bytes, same ends, recorded pace scaled by speed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from frontier.app.providers.demo import DemoTransport
from frontier.app.providers.demo_script import DEMO_TASK
from frontier.app.providers.errors import ProviderError
from frontier.app.providers.openai import Chunk, OpenAIProvider, StreamEnd
from frontier.app.providers.replay import (
    Recorded,
    ReplayClock,
    ReplayTransport,
    as_recorded,
    load_recording,
    parse_speed,
    replay_stream,
)

MESSAGES = [{"role": "user", "content": DEMO_TASK}]


class FakeTime:
    """A clock that only moves when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 9))
        self.now += seconds


async def record_demo(mode: str, steps: int) -> list[Recorded]:
    """Record real streams (the demo model's), as the loop's recorder would."""
    provider = OpenAIProvider("http://demo.invalid/v1", "demo", transport=DemoTransport(mode, 0))
    messages: list[dict[str, Any]] = list(MESSAGES)
    out = []
    for _ in range(steps):
        items = [i async for i in provider.stream(messages)]
        end = items[-1]
        assert isinstance(end, StreamEnd)
        out.append(
            Recorded(
                tuple((c.t, c.raw) for c in items if isinstance(c, Chunk)),
                end.finish_reason,
                mode,
                "demo",
            )
        )
        messages += [{"role": "assistant", "content": "x"}, {"role": "user", "content": "r"}]
    await provider.aclose()
    return out


async def test_transport_replays_the_exact_stream_through_the_provider() -> None:
    recorded = await record_demo("ctl-heredoc", 2)
    provider = OpenAIProvider(
        "http://replay.invalid/v1", "demo", transport=ReplayTransport(recorded, "max")
    )
    for rec in recorded:
        items = [i async for i in provider.stream(MESSAGES)]
        assert [c.raw for c in items if isinstance(c, Chunk)] == [d for _, d in rec.events]
        assert items[-1].finish_reason == rec.finish_reason == "stop"
    with pytest.raises(ProviderError, match="no more recorded responses") as info:
        _ = [i async for i in provider.stream(MESSAGES)]
    assert info.value.status == 410
    await provider.aclose()


async def test_unfinished_recording_replays_as_a_disconnect() -> None:
    full = (await record_demo("ctl", 1))[0]
    cut = Recorded(full.events[:10], None, "ctl", "demo")
    provider = OpenAIProvider("http://r.invalid/v1", "m", transport=ReplayTransport(cut, "max"))
    items = [i async for i in provider.stream(MESSAGES)]
    await provider.aclose()
    assert len([i for i in items if isinstance(i, Chunk)]) == 10
    assert items[-1].finish_reason == "disconnect"
    direct = [i async for i in replay_stream(cut, "max")]
    assert direct[-1].finish_reason == "disconnect"


async def test_recorded_pace_is_scaled_by_speed() -> None:
    rec = Recorded(
        (
            (0.1, json.dumps({"choices": [{"index": 0, "delta": {"content": "a"}}]})),
            (0.3, json.dumps({"choices": [{"index": 0, "delta": {"content": "b"}}]})),
            (0.3, json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
            (0.9, "[DONE]"),
        ),
        "stop",
    )
    fake = FakeTime()
    clock = ReplayClock(2.0, sleep=fake.sleep, now=fake)
    items = [i async for i in replay_stream(rec, clock=clock)]
    assert fake.sleeps == [0.05, 0.1, 0.3]  # gaps 0.1, 0.2, (0), 0.6 at twice the speed
    assert [i.t for i in items if isinstance(i, Chunk)] == [0.1, 0.3, 0.3]
    assert items[-1] == StreamEnd("stop", {})


async def test_pause_holds_and_resume_continues() -> None:
    fake = FakeTime()
    clock = ReplayClock(1.0, sleep=fake.sleep, now=fake)
    clock.pause()
    task = asyncio.create_task(clock.reach(1.0))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not task.done() and clock.paused
    clock.resume()
    await asyncio.wait_for(task, 5)
    assert fake.sleeps == [1.0] and clock.position == 1.0


async def test_switching_to_max_releases_a_long_wait_at_once() -> None:
    never = asyncio.Event()

    async def blocking_sleep(seconds: float) -> None:
        await never.wait()

    clock = ReplayClock(1.0, sleep=blocking_sleep)
    task = asyncio.create_task(clock.reach(3600.0))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not task.done()
    clock.set_speed("max")
    await asyncio.wait_for(task, 5)


def test_speed_values() -> None:
    assert parse_speed("max") is None and parse_speed("2.5") == 2.5 and parse_speed(0.1) == 0.1
    for bad in ("0", "-1", "fast"):
        with pytest.raises(ValueError, match="number > 0 or 'max'"):
            parse_speed(bad)


def test_load_recording_file_written_by_the_recorder(tmp_path: Path) -> None:
    from frontier.app.session.record import RecordingWriter

    path = tmp_path / "r.jsonl"
    hi = json.dumps({"choices": [{"index": 0, "delta": {"content": "hi"}}]})
    cut = json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})
    with RecordingWriter(path, "ctl", "qwen") as writer:
        writer.event(hi, t=0.01)
        writer.event(cut, t=0.02)
        writer.end("length")
    rec = load_recording(path)
    assert rec.events == ((0.01, hi), (0.02, cut))
    assert (rec.mode, rec.model, rec.finish_reason) == ("ctl", "qwen", "length")


def test_unreadable_recording_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"format": "something-else"}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:1"):
        load_recording(path)


def test_store_shaped_recordings_are_accepted() -> None:
    class Row:
        mode, model, finish_reason = "xml", "m", "stop"
        events = ((0.5, '{"choices": []}'),)

    rec = as_recorded(Row())
    assert rec == Recorded(((0.5, '{"choices": []}'),), "stop", "xml", "m")
