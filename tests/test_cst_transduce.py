"""``frontier transduce``: the framing debugger, run as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).parent / "examples"


def transduce(data: bytes, *flags: str) -> tuple[int, list[dict], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "transduce", *flags],
        input=data,
        capture_output=True,
        timeout=60,
        check=False,
    )
    lines = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    return proc.returncode, lines, proc.stderr.decode()


def test_transduce_prints_text_calls_and_summary_the_same_for_any_chunk() -> None:
    data = (EXAMPLES / "reply-ctl-heredoc.txt").read_bytes()
    code, out, _ = transduce(data, "--protocol", "ctl-heredoc")
    assert code == 0
    assert [x["type"] for x in out] == ["text", "call", "call", "summary"]
    assert out[0]["data"].startswith("I'll look at the CLI")
    assert out[2]["name"] == "apply_patch" and "+import sys\n" in out[2]["args"]["patch"]
    summary = out[-1]
    assert summary["calls"] == 2 and summary["errors"] == 0 and summary["confirmed"] == len(data)
    _, by_byte, _ = transduce(data, "--protocol", "ctl-heredoc", "--chunk", "1")
    assert by_byte[:-1] == out[:-1]
    assert 0 < by_byte[-1]["max_pending"] <= len("PATCH") + 1 + len("arg patch <<PATCH")


def test_transduce_errors_are_output_and_the_summary_exits_1() -> None:
    data = b"call c1 w\narg a 5\nhello world\nend\n"
    code, out, _ = transduce(data, "--protocol", "ctl")
    assert code == 0  # the event stream: errors are records its reader consumes
    assert transduce(data, "--protocol", "ctl", "--summary")[0] == 1  # the verdict
    [err] = [x for x in out if x["type"] == "error"]
    assert err["kind"] == "unexpected_line" and err["offset"] == len(b"call c1 w\narg a 5\nhello")


def test_transduce_truncated_eof_and_summary_only() -> None:
    data = b"call c1 w\narg a <<E\nx\nE\nend"
    code, out, _ = transduce(data, "--protocol", "ctl", "--eof", "truncated", "--summary")
    assert code == 1 and len(out) == 1
    expected = {"confirmed": len(data) - 3, "pending": 3, "max_pending": 3, "calls": 0}
    assert out[0] == {"type": "summary", **expected, "errors": 1}


def test_transduce_native_sse_and_events_all() -> None:
    body = (EXAMPLES / "reply-native.sse").read_bytes()
    code, out, _ = transduce(body, "--protocol", "native-inc", "--chunk", "5", "--events", "all")
    assert code == 0
    types = [x["type"] for x in out]
    assert types.count("call") == 2 and "call_started" in types
    assert out[0] == {"type": "text", "offset": 0, "data": "Reading two files."}


def test_transduce_binary_args_are_base64() -> None:
    _, out, _ = transduce(b"call c1 w\narg a 2\n\xff\x00end\n", "--protocol", "ctl")
    assert out[0]["args"] == {"a": {"base64": "/wA="}}


def test_transduce_usage_errors_exit_2() -> None:
    code, _, err = transduce(b"", "--protocol", "ctl", "--chunk", "0")
    assert code == 2 and "--chunk" in err
    code, _, err = transduce(b"", "--protocol", "bogus")
    assert code == 2 and "invalid choice" in err


def test_cst_core_and_commands_never_import_textual_or_httpx() -> None:
    modules = [
        "frontier.app.cst.factory",
        "frontier.app.cst.ctl",
        "frontier.app.cst.native",
        "frontier.app.cst.jsonbuf",
        "frontier.app.cst.xml",
        "frontier.app.cst.props",
        "frontier.app.session.record",
        "frontier.app.commands.transduce",
        "frontier.app.commands.check",
    ]
    code = f"import sys\nfor m in {modules!r}: __import__(m)\n" + (
        "print('textual' in sys.modules, 'httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


THOUGHT = (
    b"<think>\nI could run it:\ncall c1 shell\narg command <<E\nrm -rf build\nE\nend\n"
    b"but better not.\n</think>\nLooking.\ncall c1 read\narg path <<E\na.py\nE\nend\n"
)


def test_a_replys_leading_thought_is_reasoning_as_the_live_loop_reads_it() -> None:
    """Every wire's decoder splits a leading ``<think>`` off; transduce of the reply's text
    transduced it: the drafted ``rm -rf build`` was a call here that never ran live, and
    the real call was an error after it. Same lines for any chunk; offsets after it."""
    code, out, _ = transduce(THOUGHT, "--protocol", "ctl-heredoc")
    assert code == 0
    kinds = [x["type"] for x in out]
    assert kinds == ["reasoning"] * 8 + ["text", "text", "call", "summary"], kinds
    assert "".join(x["text"] for x in out[:8]).startswith("\nI could run it:\ncall c1 shell")
    [call] = [x for x in out if x["type"] == "call"]
    assert call["name"] == "read" and out[-1]["errors"] == 0
    after = THOUGHT[THOUGHT.index(b"</think>") + len(b"</think>") :]
    assert out[-1]["confirmed"] == len(after)
    _, by_byte, _ = transduce(THOUGHT, "--protocol", "ctl-heredoc", "--chunk", "1")
    assert by_byte[:-1] == out[:-1]


def test_the_servers_reasoning_is_printed_by_lines_for_every_protocol() -> None:
    body = (
        b'data: {"choices":[{"delta":{"reasoning_content":"hmm\\nmore"}}]}\n\n'
        b'data: {"choices":[{"delta":{"reasoning_content":" thought\\n"}}]}\n\n'
        b'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    for flags in (["--protocol", "native-inc"], ["--protocol", "ctl", "--wire", "openai-chat"]):
        _, out, _ = transduce(body, *flags, "--chunk", "5")
        said = [x["text"] for x in out if x["type"] == "reasoning"]
        assert said == ["hmm\n", "more thought\n"], (flags, out)
