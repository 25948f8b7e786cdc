"""The guided tour's core: the recorded story and the moments found in it (no Textual).

The moments come from the events, never from offsets: a script whose prose is longer
still yields all six, at the new offsets, with texts that name them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from frontier.app.agent.tour import (
    TourRecording,
    find_moments,
    record_story_sync,
)
from frontier.app.events import (
    CallStarted,
    Confirmed,
    ContractError,
    ResponseEnded,
    StreamBytes,
    StreamStopped,
    ToolFinished,
    ToolOutput,
    ToolStarted,
)
from frontier.app.model.wires import demo as demo_provider

STORY = ["first_call", "heredoc_tag", "miscount", "eager_call", "made_up_result", "truncation"]
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def recording() -> TourRecording:
    return record_story_sync()


def steady(recording: TourRecording) -> list[str]:
    """The events with what a clock decides (elapsed times, unittest's "in 0.001s") masked."""
    out = []
    for event in recording.events:
        text = re.sub(r"elapsed=[0-9.e-]+", "elapsed=…", repr(event))
        out.append(re.sub(r"in \d+\.\d+s", "in …s", text))
    return out


def test_the_story_has_every_moment_in_story_order(recording: TourRecording) -> None:
    moments = find_moments(recording)
    assert [m.key for m in moments] == STORY
    stops = [m.stop for m in moments]
    assert stops == sorted(set(stops))
    assert [m.response for m in moments] == [1, 2, 4, 6, 6, 7]
    for moment in moments:
        assert moment.panes and moment.tab in moment.panes
        assert 120 < len(moment.text) < 260, (moment.key, len(moment.text))


def test_each_moment_stops_on_the_event_that_makes_it(recording: TourRecording) -> None:
    events = recording.events
    m = {moment.key: moment for moment in find_moments(recording)}
    first = next(i for i, e in enumerate(events) if isinstance(e, CallStarted))
    assert first <= m["first_call"].stop < first + 3
    assert not any(isinstance(e, CallStarted) for e in events[first + 1 : m["first_call"].stop])
    eager = events[m["eager_call"].stop]
    assert isinstance(eager, ToolStarted) and eager.call.id == "c5"
    assert isinstance(events[m["eager_call"].stop + 1], StreamBytes)  # the stream goes on
    miscount = [e for e in events[: m["miscount"].stop + 1] if isinstance(e, ContractError)]
    assert [e.kind for e in miscount] == ["body_eof"]
    stopped = [e for e in events[: m["made_up_result"].stop + 1] if isinstance(e, StreamStopped)]
    assert [e.reason for e in stopped] == ["text_after_call"]
    cut = [e for e in events[: m["truncation"].stop + 1] if isinstance(e, ResponseEnded)]
    assert cut[-1].finish_reason == "length"
    # the made-up result moment includes c5's real run; the truncation its `truncated` row
    done = [e.result for e in events[: m["truncation"].stop + 1] if isinstance(e, ToolFinished)]
    assert ("c5", "ok") in [(r.call_id, r.kind) for r in done]
    assert ("c6", "truncated") in [(r.call_id, r.kind) for r in done]


def test_the_texts_name_the_offsets_and_bytes_of_this_recording(recording: TourRecording) -> None:
    m = {moment.key: moment for moment in find_moments(recording)}
    frame = next(
        e for e in recording.events if isinstance(e, Confirmed) and e.data == b"call c1 read\n"
    )
    end = frame.offset + len(frame.data)
    assert f"Byte {end - 1:,}" in m["first_call"].text
    assert f"byte {end:,}" in m["first_call"].text
    assert "“call c1 read⏎”" in m["first_call"].text
    tag = m["heredoc_tag"]
    frontier, bound = recording.probes[tag.stop]
    assert f"Bytes {frontier:,}–{frontier + 2:,} “EOF”" in tag.text
    assert bound == 4 and "3 of at most 4 bytes" in tag.text
    assert "“arg content 135” (byte 85) declared 135 bytes" in m["miscount"].text
    assert "only 116 arrived" in m["miscount"].text and "body_eof at byte 217" in m["miscount"].text
    assert "“end⏎” at bytes 88–91 confirmed c5 (shell)" in m["eager_call"].text
    assert "“result…” (byte 92)" in m["made_up_result"].text
    assert "byte 212 cut the reply inside c6 replace" in m["truncation"].text
    assert "54 body bytes, no EOF line" in m["truncation"].text


def test_the_recording_is_the_same_every_run(recording: TourRecording) -> None:
    again = record_story_sync()
    assert steady(again) == steady(recording)
    assert again.probes == recording.probes
    assert [m.stop for m in find_moments(again)] == [m.stop for m in find_moments(recording)]


def test_tool_output_is_cut_at_line_ends(recording: TourRecording) -> None:
    outputs = [e for e in recording.events if isinstance(e, ToolOutput)]
    assert outputs and all(e.data.endswith("\n") for e in outputs[:-1])
    assert all(e.data.count("\n") <= 1 for e in outputs)


def test_the_moments_follow_the_script_not_its_offsets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Longer prose in every step moves every offset; the moments move with them."""
    lead = "Let me think about this carefully before I touch anything at all.\n"
    original = demo_provider.script

    def longer(mode: str):  # type: ignore[no-untyped-def]
        return tuple(replace(step, prose=lead + step.prose) for step in original(mode))

    monkeypatch.setattr(demo_provider, "script", longer)
    moments = {m.key: m for m in find_moments(record_story_sync())}
    assert list(moments) == STORY
    shift = len(lead)
    assert f"Byte {79 + shift:,}," in moments["first_call"].text
    assert f"“arg content 135” (byte {85 + shift:,})" in moments["miscount"].text
    assert f"body_eof at byte {217 + shift:,}" in moments["miscount"].text
    assert f"bytes {88 + shift:,}–{91 + shift:,} confirmed c5" in moments["eager_call"].text
    assert f"(byte {92 + shift:,})" in moments["made_up_result"].text
    assert f"byte {212 + shift:,} cut the reply" in moments["truncation"].text


def test_the_ctl_story_has_every_moment_too() -> None:
    moments = find_moments(record_story_sync("ctl"))
    assert sorted(m.key for m in moments) == sorted(STORY)
    miscount = next(m for m in moments if m.key == "miscount")
    assert "unexpected_line" in miscount.text  # ctl's model counts too few bytes


def test_recording_leaves_nothing_in_the_users_dirs() -> None:
    record_story_sync()
    for name in ("FRONTIER_DATA_DIR", "FRONTIER_CONFIG_DIR"):
        where = Path(os.environ[name])
        assert not where.exists() or not any(where.iterdir()), name


def frontier(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "FRONTIER_DATA_DIR": str(tmp_path / "data"),
        "FRONTIER_CONFIG_DIR": str(tmp_path / "config"),
    }
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *args],
        capture_output=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def test_the_headless_tour_prints_every_card(tmp_path: Path) -> None:
    out = frontier("demo", "--tour", "--headless", tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr
    heads = [line for line in out.stdout.splitlines() if line.startswith("moment ")]
    assert len(heads) == 6 and heads[0].startswith("moment 1/6 · the first call line")
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--protocol", "native-inc"], "--protocol must be one of ctl, ctl-heredoc"),
        (["--approval", "auto"], "--approval does not apply"),
        (["--prefill", "on"], "--prefill does not apply"),
    ],
)
def test_the_tour_refuses_options_it_cannot_honour(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    out = frontier("demo", "--tour", "--headless", *argv, tmp_path=tmp_path)
    assert out.returncode == 2
    assert said in out.stderr and not out.stdout
