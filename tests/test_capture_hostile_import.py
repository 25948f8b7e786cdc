"""``frontier import``'s outputs (``docs/captures.md``, "frontier import"): the capture is
never written over, each picked response gets its own default name, ``-o -`` is standard
output, and an existing file that holds a capture is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from frontier.app.cli import main

CHUNK = '{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}'
BODY = f"data: {CHUNK}\n\ndata: [DONE]\n\n"


def har(entries: int) -> str:
    one = {
        "request": {"method": "POST", "url": "https://h/v1/chat/completions"},
        "response": {"status": 200, "content": {"mimeType": "text/event-stream", "text": BODY}},
    }
    return json.dumps({"log": {"entries": [one] * entries}})


def test_the_capture_itself_is_never_written_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "self.sse"
    capture.write_text(BODY)
    assert main(["import", str(capture), "-o", str(capture)]) == 2
    assert "is the capture itself" in capsys.readouterr().err
    assert capture.read_text() == BODY


def test_an_existing_file_holding_a_capture_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture, other = tmp_path / "a.sse", tmp_path / "b.har"
    capture.write_text(BODY)
    other.write_text(har(1))
    assert main(["import", str(capture), "-o", str(other)]) == 2
    assert "holds a capture" in capsys.readouterr().err and other.read_text() == har(1)
    again = tmp_path / "a.jsonl"
    assert main(["import", str(capture), "-o", str(again)]) == 0
    assert main(["import", str(capture), "-o", str(again)]) == 0  # a recording: replaced


def test_a_large_gzipped_capture_is_refused_as_an_output_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only its first 64 KiB are read to tell what a file holds: a cut gzip, which the
    capture reader refuses as damaged, so a 77 KB gzipped capture was written over."""
    import gzip
    import random

    capture, other = tmp_path / "a.sse", tmp_path / "big.sse.gz"
    capture.write_text(BODY)
    noise = random.Random(7)
    pieces = (
        "data: "
        + json.dumps(
            {"choices": [{"index": 0, "delta": {"content": f"{noise.getrandbits(128):032x}"}}]}
        )
        for _ in range(4000)
    )
    big = gzip.compress("\n\n".join(pieces).encode() + b"\n\n")
    assert len(big) > 64 << 10
    other.write_bytes(big)
    assert main(["import", str(capture), "-o", str(other)]) == 2
    assert "holds a capture" in capsys.readouterr().err and other.read_bytes() == big


def test_each_picked_response_gets_its_own_default_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``x.har#1`` then ``x.har#2`` both wrote ``x.har.recording.jsonl``."""
    capture = tmp_path / "x.har"
    capture.write_text(har(2))
    assert main(["import", f"{capture}#1"]) == 0
    assert main(["import", f"{capture}#2"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["x.har", "x.har.recording-1.jsonl", "x.har.recording-2.jsonl"]
    assert main(["import", str(capture)]) == 0  # all of them: the same names
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    capsys.readouterr()


def test_dash_o_dash_writes_the_recording_to_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It made a file named ``-`` in the working directory."""
    monkeypatch.chdir(tmp_path)
    capture = tmp_path / "c.sse"
    capture.write_text(BODY)
    assert main(["import", str(capture), "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out.splitlines()[0])["format"] == "frontier-recording"
    assert sorted(tmp_path.iterdir()) == [capture]  # no file named "-"
    several = tmp_path / "x.har"
    several.write_text(har(2))
    assert main(["import", str(several), "-o", "-"]) == 2
    assert "pick one" in capsys.readouterr().err


def test_a_time_that_is_no_number_is_never_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The recording held ``"t": Infinity``, which no JSON reader takes."""
    log = tmp_path / "inf.jsonl"
    log.write_text(f'{{"t": 0, "chunk": {CHUNK}}}\n{{"t": 1e400, "chunk": {CHUNK}}}\n')
    assert main(["import", str(log)]) == 2
    assert "not a finite number" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inf.jsonl"]
