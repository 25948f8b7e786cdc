"""Regenerate the bundled example streams and recordings in this folder.

Run: ``.venv/bin/python tests/examples/make_examples.py``. Each ``err-*.jsonl``
recording breaks the CTL contract in one way (its name is the error kind);
``frontier check`` must still pass on all of them, because S1–S3 are about the
transducer never running an incomplete or changing call, not about the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from frontier.app.session.record import Recording, synthesize, write_recording

HERE = Path(__file__).parent

PATCH = "\n".join(
    [
        "--- a/greet/cli.py",
        "+++ b/greet/cli.py",
        "@@ -1,4 +1,5 @@",
        " import argparse",
        "+import sys",
        " ",
        " def main():",
        "     parser = argparse.ArgumentParser()",
        "",
    ]
)

REPLY_HEREDOC = f"""\
I'll look at the CLI first, then add the import.
call c1 read
arg path greet/cli.py
end
call c2 apply_patch
arg patch <<PATCH
{PATCH}PATCH
end
"""

BODY = 'print("héllo")\n'
REPLY_LENGTH = (
    "Writing the file with an exact byte count.\n"
    "call w1 write\n"
    "arg path hello.py\n"
    f"arg content {len(BODY.encode())}\n{BODY}"
    "end\n"
    "call s1 shell\n"
    "arg command python3 hello.py\n"
    "end\n"
)

REPLY_XML = """\
Reading the file.
<minimax:tool_call>
<invoke name="read">
<parameter name="path">greet/cli.py</parameter>
</invoke>
</minimax:tool_call>
"""

ERRORS = {
    "bad_call": "call c1\narg path x\nend\n",
    "bad_arg": "call c1 read\narg path a.py\narg path b.py\nend\n",
    "unexpected_line": "call c1 write\narg path a.py\narg content 5\nhello world\nend\n",
    "body_eof": "call c1 write\narg path a.py\narg content 400\nonly a few bytes\n",
    "heredoc_eof": "call c1 write\narg content <<EOF\nline one\nline two\n",
    "line_too_long": "call c1 write\narg path " + "a" * 5000 + "\nend\n",
    "limit": "call c1 write\narg content 2000000\n",
}


def native_chunks(calls: list[tuple[str, str, dict[str, Any]]], piece: int = 9) -> list[str]:
    out = [json.dumps({"choices": [{"delta": {"content": "Reading two files."}}]})]
    for index, (ident, name, args) in enumerate(calls):
        text = json.dumps(args)
        parts = [text[i : i + piece] for i in range(0, len(text), piece)]
        for j, part in enumerate(parts):
            fn: dict[str, Any] = {"arguments": part}
            tc: dict[str, Any] = {"index": index, "function": fn}
            if j == 0:
                tc.update(id=ident, type="function")
                fn["name"] = name
            out.append(json.dumps({"choices": [{"delta": {"tool_calls": [tc]}}]}))
    out.append(json.dumps({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}))
    out.append("[DONE]")
    return out


def native_recording(mode: str, data: list[str]) -> Recording:
    events = tuple((round(i * 0.015, 6), d) for i, d in enumerate(data))
    return Recording(
        mode=mode,
        model="example",
        created="2026-01-01T00:00:00+00:00",
        events=events,
        finish_reason="tool_calls",
        end_t=events[-1][0],
    )


def main() -> None:
    (HERE / "reply-ctl-heredoc.txt").write_text(REPLY_HEREDOC, "utf-8")
    (HERE / "reply-ctl-length.txt").write_text(REPLY_LENGTH, "utf-8")
    write_recording(HERE / "ok-ctl-heredoc.jsonl", synthesize(REPLY_HEREDOC, "ctl-heredoc"))
    write_recording(HERE / "ok-ctl-length.jsonl", synthesize(REPLY_LENGTH, "ctl", sizes=(3, 11)))
    write_recording(HERE / "ok-xml.jsonl", synthesize(REPLY_XML, "xml", sizes=(5,)))
    cut = REPLY_HEREDOC[: REPLY_HEREDOC.index("+import sys")]
    write_recording(
        HERE / "truncated-ctl-heredoc.jsonl",
        synthesize(cut, "ctl-heredoc", finish_reason="length"),
    )
    for kind, text in ERRORS.items():
        write_recording(HERE / f"err-{kind}.jsonl", synthesize(text, "ctl", sizes=(4, 64)))
    calls = [("call_a", "read", {"path": "greet/cli.py"}), ("call_b", "read", {"path": "README"})]
    for mode in ("native-inc", "native-eos"):
        write_recording(HERE / f"ok-{mode}.jsonl", native_recording(mode, native_chunks(calls)))
    bad = native_chunks([("call_x", "write", {"path": "a.py"})])
    bad[1] = bad[1].replace('{\\"path', "{path")
    write_recording(HERE / "err-bad_json-native-inc.jsonl", native_recording("native-inc", bad))
    (HERE / "reply-native.sse").write_bytes(
        b"".join(b"data: " + d.encode() + b"\n\n" for d in native_chunks(calls))
    )


if __name__ == "__main__":
    main()
