"""System prompts, generated from the tool registry for every mode (DESIGN §4).

Each text protocol is taught precisely, with an example, because a model that
frames a call wrongly costs a repair round trip.
"""

from __future__ import annotations

from collections.abc import Iterable

from frontier.app.vocab import NATIVE_MODES
from frontier.tools.contract import ToolSpec
from frontier.tools.patch_docs import PatchDialect, patch_example, patch_prompt, taught_dialect

INTRO = (
    "You are Frontier, a coding agent working in a project directory (the workspace). "
    "Use the tools to read, change and test the code; paths are relative to the workspace. "
    "Be brief. When the task is done, say so in one or two sentences and stop calling tools."
)

CTL_COMMON = """\
# Calling tools (CTL)
Write a call as lines of plain text, outside any code fence:

call <id> <tool>
arg <key> <value on one line>
end

- <id> is yours to choose, unique in the conversation (c1, c2, ...).
- One `arg` per argument, written `arg <key> <value>` on one line.
- A value made only of digits is read as a byte count (see below), so write a number
  as a one-line body: `arg limit 4`, then a line `200` (3 digits + newline = 4 bytes).
- A call runs the moment its `end` line arrives. After your last call, stop writing:
  the results come back in the next message as

  result <id> exit=<code> <nbytes>
  <output>
  end

  Never write a `result` block yourself: anything you write after a call is discarded.
"""

_CTL_HEREDOC_INTRO = """\
For a multi-line value use a heredoc: `arg <key> <<TAG`, then the value's lines,
then a line that is exactly TAG. Pick a TAG that does not occur as a line in the
value (EOF, PATCH, END_CONTENT). Inside a heredoc everything is literal: code fences,
indentation, lines saying `end` or `call`.
"""


def ctl_heredoc(dialect: PatchDialect = "unified") -> str:
    """How heredocs are written, with an apply_patch example in ``dialect``."""
    return (
        f"{_CTL_HEREDOC_INTRO}\n"
        "Example:\n"
        "I'll add the flag.\n"
        "call c2 apply_patch\n"
        "arg patch <<PATCH\n"
        f"{patch_example(dialect)}"
        "PATCH\n"
        "end\n"
    )


CTL_HEREDOC = ctl_heredoc("unified")

CTL_LENGTH = """\
For a multi-line value use a length prefix: `arg <key> <nbytes>` where <nbytes> is the
exact size of the value in bytes (UTF-8: é is 2 bytes), then exactly that many bytes.
The next `arg` or `end` line starts right after them, so a value usually ends with its
own newline, and that newline is counted. A one-line value that is all digits must use
this form. A heredoc (`arg <key> <<TAG` ... a line `TAG`) is also accepted.

Example (the value "hello\\nworld\\n" is 12 bytes):
I'll create the notes file.
call c2 write
arg path NOTES.md
arg content 12
hello
world
end
"""

XML = """\
# Calling tools
Write each call as a MiniMax tool-call block:

<minimax:tool_call>
<invoke name="TOOL">
<parameter name="KEY">VALUE</parameter>
</invoke>
</minimax:tool_call>

Several <invoke> elements may share one block. Values are literal text (no escaping);
numbers are written as digits. Calls run after your message ends; the results come
back in the next message as `result <id> exit=<code> <nbytes>` blocks, where the ids
are c1, c2, ... in the order of your calls. Never write a result yourself.
"""


def tool_list(specs: Iterable[ToolSpec]) -> str:
    """The tools and their arguments, one block per tool."""
    blocks = []
    for spec in specs:
        props = spec.parameters.get("properties", {})
        required = set(spec.parameters.get("required", []))
        lines = [f"## {spec.name}", spec.description]
        for key, schema in props.items():
            flag = "required" if key in required else "optional"
            kind = schema.get("type", "string")
            desc = schema.get("description", "")
            lines.append(f"- {key} ({kind}, {flag}): {desc}".rstrip(": "))
        blocks.append("\n".join(lines))
    return "# Tools\n\n" + "\n\n".join(blocks)


def system_prompt(mode: str, specs: Iterable[ToolSpec], instructions: str = "") -> str:
    """The system prompt for ``mode``; text protocols get the framing, a paragraph on
    patches in the dialect the registry's ``apply_patch`` teaches, and the tool list.
    ``instructions`` (the project's AGENTS.md…, ``app/agent/instructions.py``) come last."""
    specs = list(specs)
    project = [instructions] if instructions else []
    if mode in NATIVE_MODES:
        return "\n\n".join([INTRO, *project])  # the tools[] schema carries the descriptions
    dialect = taught_dialect(specs)
    editing = [patch_prompt(dialect)] if dialect is not None else []
    if mode == "xml":
        return "\n\n".join([INTRO, XML, *editing, tool_list(specs), *project])
    teach = ctl_heredoc(dialect or "unified") if mode == "ctl-heredoc" else CTL_LENGTH
    return "\n\n".join([INTRO, CTL_COMMON, teach, *editing, tool_list(specs), *project])
