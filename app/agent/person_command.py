"""``!COMMAND`` in the message box: a command the person runs themselves, its output
then told to the model.

Claude Code's bash mode, Codex CLI's ``!`` and Aider's ``/run`` let a person run the
tests or ``git log`` without asking the model to, and have the model see what came out:
cheaper than a round trip, and the person's own choice of command. Here:

- it runs as the person typed it, in the workspace root, with ``bash -c`` — **outside
  the sandbox** (the person's own command, as in their terminal; never the model's), in
  the environment the agent's commands get (secret-named variables left out:
  ``tools/process.child_env``), stdin empty, stopped by Esc (exit 130) or after
  :data:`TIMEOUT` seconds;
- its output shows live in the Transcript as a row of its own (``!1``, ``!2``…), with
  the pager, from the same events a tool call emits; it is not a tool call: nothing is
  stored in the call ledger and no turn starts;
- the model is told with the person's next message, as an undo is (``notices``): the
  command, how it ended and its output, capped as a tool's is (``cap_output``) and
  indented, so the note holds no blank line and a resumed Transcript shows it apart from
  what was typed (``notices.split_notices``). Until that message it lives in memory: a quit
  before it drops it (the command can be run again; nothing it did is lost).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from frontier.app.events import Event, ToolCall, ToolFinished, ToolOutput, ToolResult, ToolStarted
from frontier.app.notices import PERSON_RAN_OPENING

if TYPE_CHECKING:  # the message box imports command_of at start-up: the rest when one runs
    from frontier.tools.base import CancelToken

TIMEOUT = 600.0
"""Seconds a person's command may run (a build, a test suite); Esc stops it sooner."""
PREFIX = "!"
"""What starts a message box line that is a command (`` !x``, with a blank first, is a
message)."""


def command_of(typed: str) -> str | None:
    """The command in a message typed as ``!COMMAND``; ``None`` for any other message
    (``!`` alone, text that does not start with it, or a Markdown image ``![…](…)``)."""
    if not typed.startswith(PREFIX) or typed.startswith("!["):
        return None  # `![alt](url)`: Markdown's image, pasted at the start of a message
    command = typed[len(PREFIX) :].strip()
    return command or None


async def run_person_command(
    command: str,
    call_id: str,
    workspace: str,
    emit: Callable[[Event], None],
    cancel: CancelToken,
    timeout: float = TIMEOUT,
) -> ToolResult:
    """Run ``command`` as the person typed it; the events a tool call emits say how it
    goes (a front end shows a row for ``call_id``)."""
    from frontier.tools.output_cap import cap_output
    from frontier.tools.paths import real_root
    from frontier.tools.process import ShellTool, child_env, rendered, run_process

    root = str(real_root(workspace))
    call = ToolCall(call_id, "shell", {"command": command})
    emit(ToolStarted(call))
    argv, _ = ShellTool().argv({"command": command}, root)  # bash -c, as the model's
    res = await run_process(
        argv,
        cwd=root,
        env=child_env(),
        timeout=timeout,
        cancel=cancel,
        on_output=lambda text: emit(ToolOutput(call_id, text)),
    )
    output = rendered(res, timeout)
    meta = {"bytes": res.total_bytes, "sandbox": {"mode": "off"}, "by": "person"}
    result = ToolResult(
        call_id, "shell", res.kind, cap_output(output), res.exit_code, res.elapsed, meta
    )
    emit(ToolFinished(result))
    return result


def notice_for(command: str, result: ToolResult) -> str:
    """What the model is told with the person's next message (no blank line in it)."""
    if result.kind == "cancelled":
        ended = "stopped by them"
    elif result.kind == "timeout":
        ended = "stopped after its time ran out"
    else:
        ended = f"exit {result.exit_code}"
    lines = [f"$ {line}" if i == 0 else f"  {line}" for i, line in enumerate(command.split("\n"))]
    lines += result.output.rstrip("\n").split("\n")
    body = "\n".join(f"  {line}" for line in lines)
    return (
        f"{PERSON_RAN_OPENING} in the workspace ({ended} after {result.elapsed:.1f} s); "
        f"the command and its output follow, indented.)\n{body}"
    )
