"""What the built-in demo model says, step by step, in every protocol mode.

The script is data (``Step`` / ``Call`` / ``Arg``), rendered to each mode's wire
form by ``render_text``; the transport in ``demo.py`` only streams it. Each step
carries ``shows``: the behaviour it exists to demonstrate (docs, tests and the
TUI's demo banner read it). The task works on the bundled ``demo_project``.

CTL script (``ctl`` / ``ctl-heredoc``; docs/decisions-providers.md explains each):
0 prose + ``read`` · 1 ``apply_patch`` (approval) · 2 ``shell`` tests (live output)
· 3 ``write`` with a miscounted length prefix (contract error) · 4 the same write
as a heredoc · 5 a call followed by a hallucinated ``result`` frame (stream
stopped) · 6 a frame cut off mid-argument (``length``) · 7 the complete resend ·
8 the closing summary (no call: task done). With ``--prefill on`` step 6 is
continued from its frontier instead and step 7 is skipped (``demo.pick_step``).

Native (``native-eos`` / ``native-inc``) and ``xml``: two ``read``\\ s in one
response · ``apply_patch`` · ``shell`` · summary.
"""

from __future__ import annotations

from typing import Literal

from frontier.app.record import record
from frontier.app.vocab import AGENT_MODES, CTL_MODES, NATIVE_MODES

DEMO_TASK = "Add a --shout flag to the greet CLI and run the tests."
DEMO_MODEL = "frontier-demo"
DEMO_BASE_URL = "http://demo.invalid/v1"
"""Never resolved: requests go to the demo's transport (``wires/demo.py``), not the
network. Here, with the model's name, so knowing a session is the demo's loads no HTTP."""
MODES = AGENT_MODES
"""Every protocol mode has a script (``frontier.app.vocab`` is the list's home)."""

ArgForm = Literal["inline", "length", "heredoc"]


@record
class Arg:
    key: str
    value: str
    form: ArgForm = "inline"
    declared: int | None = None
    """Length form only: the byte count the model *claims* (a deliberate miscount)."""


@record
class Call:
    id: str
    name: str
    args: tuple[Arg, ...]

    def arguments(self) -> dict[str, str]:
        return {a.key: a.value for a in self.args}


@record
class Step:
    """One model response."""

    shows: str
    prose: str
    calls: tuple[Call, ...] = ()
    after: str = ""
    """Raw text the model keeps writing after its frames (a hallucinated result)."""
    cut_before: str | None = None
    """Truncate the rendered text just before this marker (with ``finish='length'``)."""
    finish: str = "stop"


# --------------------------------------------------------------------------- content

SHOUT_PATCH = "\n".join(
    [
        "--- a/greet/cli.py",
        "+++ b/greet/cli.py",
        "@@ -6,6 +6,7 @@",
        " def build_parser() -> argparse.ArgumentParser:",
        '     parser = argparse.ArgumentParser(prog="greet", description="Print a friendly greeting.")',  # noqa: E501
        '     parser.add_argument("name", help="who to greet")',
        '+    parser.add_argument("--shout", action="store_true", help="greet in capitals")',
        "     return parser",
        " ",
        " ",
        "@@ -15,7 +16,8 @@",
        " ",
        " def main(argv: list[str] | None = None) -> int:",
        "     args = build_parser().parse_args(argv)",
        "-    print(greeting(args.name))",
        "+    text = greeting(args.name)",
        "+    print(text.upper() if args.shout else text)",
        "     return 0",
        " ",
        " ",
        "--- a/tests/test_cli.py",
        "+++ b/tests/test_cli.py",
        "@@ -15,3 +15,6 @@",
        " class GreetTest(unittest.TestCase):",
        "     def test_greets_by_name(self) -> None:",
        '         self.assertEqual(run("Ada"), (0, "Hello, Ada!\\n"))',
        "+",
        "+    def test_shout_prints_capitals(self) -> None:",
        '+        self.assertEqual(run("--shout", "Ada"), (0, "HELLO, ADA!\\n"))',
        "",
    ]
)
"""Against ``demo_project``: adds ``--shout`` to greet/cli.py and a test for it."""

TEST_COMMAND = "python3 -m unittest -v"
TRY_COMMAND = "python3 -m greet.cli --shout Ada"
NOTES = (
    "# Notes\n"
    "\n"
    "- `greet --shout NAME` prints the greeting in capitals.\n"
    "- Run the tests with `python3 -m unittest -v`.\n"
)
README_OLD = "    python3 -m greet.cli Ada\n"
README_NEW = "    python3 -m greet.cli Ada\n    python3 -m greet.cli --shout Ada   # HELLO, ADA!\n"
NOTES_MISCOUNT = 23
"""How far the demo's length prefix for NOTES.md is off (bytes)."""
SUMMARY = (
    "Done. `greet --shout NAME` now prints the greeting in capitals, the new test "
    "passes next to the old one, and NOTES.md and README.md describe the flag.\n"
)
FINISHED = (
    "The demo script is complete. To work with a real model, start Frontier with "
    "--base-url (e.g. a local llama.cpp or Ollama server) and --model.\n"
)
DECLINED = (
    "You declined that change, so I have stopped here; nothing else was modified. "
    "Send another message (say, go on) and I will offer the same step again.\n"
)
"""After a denied call. The demo model then offers that step again on the next message
(``demo.story_position``): it never goes on as if the denied work had been done."""


def _ctl_steps(mode: str) -> tuple[Step, ...]:
    heredoc = mode == "ctl-heredoc"
    body_form: ArgForm = "heredoc" if heredoc else "length"
    # ctl teaches length prefixes: the demo miscounts low (more content follows the
    # declared body -> unexpected_line); ctl-heredoc's model miscounts high (the
    # stream ends inside the body -> body_eof). Both resend as a heredoc.
    wrong = len(NOTES.encode()) + (NOTES_MISCOUNT if heredoc else -NOTES_MISCOUNT)
    replace = Call(
        "c6",
        "replace",
        (
            Arg("path", "README.md"),
            Arg("old", README_OLD, body_form),
            Arg("new", README_NEW, body_form),
        ),
    )
    return (
        Step(
            "prose, then a read: text is confirmed line by line; the call runs at `end`",
            "I'll start by reading the CLI to see how its arguments are parsed.\n",
            (Call("c1", "read", (Arg("path", "greet/cli.py"),)),),
        ),
        Step(
            "an apply_patch over two files: the diff is reviewed and needs approval",
            "The parser is built in `build_parser()`. I'll add a `--shout` flag there, "
            "use it in `main()`, and cover it with a test.\n",
            (Call("c2", "apply_patch", (Arg("patch", SHOUT_PATCH, body_form),)),),
        ),
        Step(
            "a shell call: the test run streams its output live",
            "Now let me run the test suite.\n",
            (Call("c3", "shell", (Arg("command", TEST_COMMAND),)),),
        ),
        Step(
            "a length-prefixed argument counted wrong: a contract error naming declared "
            "vs arrived bytes goes back to the model, and the call never runs",
            "Both tests pass. I'll record the change in NOTES.md.\n",
            (
                Call(
                    "c4",
                    "write",
                    (Arg("path", "NOTES.md"), Arg("content", NOTES, "length", declared=wrong)),
                ),
            ),
        ),
        Step(
            "the repair: the same write resent as a heredoc, which needs no byte count",
            "I miscounted the bytes. Resending the note as a heredoc, which needs no count.\n",
            (Call("c4", "write", (Arg("path", "NOTES.md"), Arg("content", NOTES, "heredoc"))),),
        ),
        Step(
            "a call followed by a hallucinated result frame: the runtime stops the stream "
            "and keeps only the text up to the call",
            "Let me try the flag by hand.\n",
            (Call("c5", "shell", (Arg("command", TRY_COMMAND),)),),
            after="result c5 exit=0 12\nHELLO, ADA!\nend\nThe flag works as expected.\n",
        ),
        Step(
            "a frame cut off mid-argument (finish_reason length): the call is truncated, "
            "nothing runs, and the model is asked to resend",
            "The output is right. I'll mention the flag in the README too.\n",
            (replace,),
            cut_before="--shout Ada   #",
            finish="length",
        ),
        Step(
            "the complete resend after truncation",
            "My last reply was cut off; here is the complete call.\n",
            (replace,),
        ),
        Step("the closing summary: a response without calls ends the task", SUMMARY),
    )


def _native_steps() -> tuple[Step, ...]:
    return (
        Step(
            "prose, then two read calls in one response (parallel-safe)",
            "I'll read the CLI and its tests first.",
            (
                Call("call_1", "read", (Arg("path", "greet/cli.py"),)),
                Call("call_2", "read", (Arg("path", "tests/test_cli.py"),)),
            ),
            finish="tool_calls",
        ),
        Step(
            "an apply_patch over two files: the diff is reviewed and needs approval",
            "I'll add a `--shout` flag, use it in `main()`, and cover it with a test.",
            (Call("call_3", "apply_patch", (Arg("patch", SHOUT_PATCH),)),),
            finish="tool_calls",
        ),
        Step(
            "a shell call: the test run streams its output live",
            "Now let me run the test suite.",
            (Call("call_4", "shell", (Arg("command", TEST_COMMAND),)),),
            finish="tool_calls",
        ),
        Step(
            "the closing summary: a response without calls ends the task",
            "Done. `greet --shout NAME` now prints the greeting in capitals and the new "
            "test passes next to the old one.",
        ),
    )


def _xml_steps() -> tuple[Step, ...]:
    return tuple(Step(s.shows, s.prose + "\n", s.calls) for s in _native_steps())


def script(mode: str) -> tuple[Step, ...]:
    """The demo's responses for ``mode``, in order (index = model request number)."""
    if mode in CTL_MODES:
        return _ctl_steps(mode)
    if mode in NATIVE_MODES:
        return _native_steps()
    if mode == "xml":
        return _xml_steps()
    raise ValueError(
        f"the demo model has no script for protocol {mode!r}; use one of {', '.join(MODES)}"
    )


def closing_step(mode: str, *, declined: bool) -> Step:
    """What the demo says past the end of its script, or after a denied approval."""
    text = DECLINED if declined else FINISHED
    if mode in NATIVE_MODES:
        text = text.rstrip("\n")
    return Step("the end of the script", text)


# --------------------------------------------------------------------------- rendering


def render_text(step: Step, mode: str) -> str:
    """The assistant text of a text-mode step (CTL frames or MiniMax XML), cut if scripted."""
    if mode in CTL_MODES:
        text = step.prose + "".join(ctl_frame(c) for c in step.calls)
    elif mode == "xml":
        text = step.prose + (xml_block(step.calls) if step.calls else "")
    else:
        text = step.prose
    text += step.after
    if step.cut_before is not None:
        text = text[: text.index(step.cut_before)]
    return text


def ctl_frame(call: Call) -> str:
    """One CTL frame (DESIGN §3)."""
    lines = [f"call {call.id} {call.name}\n"]
    for arg in call.args:
        if arg.form == "inline":
            if "\n" in arg.value or arg.value.isdigit() or arg.value.startswith("<<"):
                raise ValueError(f"arg {arg.key!r} cannot be inline: {arg.value!r}")
            lines.append(f"arg {arg.key} {arg.value}\n")
        elif arg.form == "length":
            count = len(arg.value.encode()) if arg.declared is None else arg.declared
            lines.append(f"arg {arg.key} {count}\n{arg.value}")
        else:
            if not arg.value.endswith("\n") or "\nEOF\n" in "\n" + arg.value:
                raise ValueError(f"arg {arg.key!r} cannot be a heredoc with tag EOF")
            lines.append(f"arg {arg.key} <<EOF\n{arg.value}EOF\n")
    lines.append("end\n")
    return "".join(lines)


def xml_block(calls: tuple[Call, ...]) -> str:
    """MiniMax tool-call block: parameter values are raw text, one invoke per call."""
    parts = ["<minimax:tool_call>\n"]
    for call in calls:
        parts.append(f'<invoke name="{call.name}">\n')
        for arg in call.args:
            parts.append(f'<parameter name="{arg.key}">{arg.value}</parameter>\n')
        parts.append("</invoke>\n")
    parts.append("</minimax:tool_call>\n")
    return "".join(parts)


__all__ = [
    "DEMO_MODEL",
    "DEMO_TASK",
    "MODES",
    "SHOUT_PATCH",
    "Arg",
    "Call",
    "Step",
    "closing_step",
    "ctl_frame",
    "render_text",
    "script",
    "xml_block",
]
