"""Result frames: how a tool's outcome goes back to the model (DESIGN §3).

``result <id> exit=<code> <nbytes>\\n<nbytes bytes of output>\\nend\\n`` — the
byte count is exact for what is sent, after the output cap, so the model can
rely on it the same way the runtime relies on the model's length prefixes.
"""

from __future__ import annotations

from frontier.app.events import ToolResult
from frontier.tools.output_cap import TOOL_OUT_CAP, cap_output

__all__ = ["TOOL_OUT_CAP", "cap_output", "exit_code_of", "result_body", "result_frame"]


def exit_code_of(result: ToolResult) -> int:
    """The ``exit=`` field: the process's code for exec tools, else 0 ok / 1 failed."""
    if result.exit_code is not None:
        return result.exit_code
    return 0 if result.ok else 1


def result_body(result: ToolResult) -> str:
    """The output the model reads; a failure starts with its kind so it can react to it."""
    body = cap_output(result.output)
    if result.ok:
        return body
    return f"[{result.kind}] {body}" if body else f"[{result.kind}]"


def result_frame(result: ToolResult) -> str:
    body = result_body(result).encode("utf-8")
    header = f"result {result.call_id} exit={exit_code_of(result)} {len(body)}\n"
    return header + body.decode("utf-8") + "\nend\n"
