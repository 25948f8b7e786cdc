"""``frontier run PROMPT`` (also ``frontier PROMPT``, ``--prompt TEXT``, ``-`` or a piped
stdin): one task headless, same loop as the TUI; ``-p`` prints only the final answer.
With a PROMPT, a piped stdin goes with it (``git diff | frontier "review this"``).
``-c`` (``frontier -c PROMPT``) continues this workspace's session used last."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from frontier.app.commands._agent_args import config_from_args, with_model
from frontier.app.frontends.terminal_text import safe_print


def main(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if config is None:
        return 2
    session = getattr(args, "session", None)
    workspace = getattr(args, "workspace", None)
    if getattr(args, "continue_session", False):
        from frontier.app.commands.session_pick import chosen

        where = Path(workspace or config.workspace or ".")
        session = chosen("run", session, True, where, flag="-c")
        if session is None:
            return 2
        workspace = None  # --workspace said where to look; the session's own root stands
    if not config.has_endpoint and session is None:  # a stored session knows its endpoint
        safe_print(
            "frontier run: no endpoint configured. Pass --base-url URL --model M "
            "(e.g. http://127.0.0.1:8080/v1 for llama.cpp), set FRONTIER_BASE_URL, "
            "or try the built-in model: frontier demo --headless",
            file=sys.stderr,
        )
        return 2
    if session is None:
        config = with_model(config, " run")
        if config is None:
            return 2
    if args.print_mode and args.json:
        safe_print("frontier run: -p/--print and --json are two outputs; pick one", file=sys.stderr)
        return 2
    prompt = task(args)
    if prompt is None:
        return 2
    if session is None:  # git status beside the imports below (app/agent/environment.py)
        from frontier.app.agent.environment import gather_soon

        gather_soon(Path(config.workspace or "."))
    from frontier.app.frontends.headless import run_headless

    return asyncio.run(
        run_headless(
            config,
            prompts=[prompt],
            as_json=args.json,
            print_mode=args.print_mode,
            max_turns=args.max_turns,
            session_id=session,
            # with --session, --workspace says where that session's project is now
            workspace=Path(workspace) if session is not None and workspace else None,
        )
    )


def task(args: argparse.Namespace) -> str | None:
    """The prompt from PROMPT or ``--prompt`` (``-``: stdin), else a piped stdin; ``None``
    after saying what is wrong (none, two, or empty)."""
    given = [p for p in (args.task, args.prompt) if p is not None]
    if len(given) > 1:
        safe_print("frontier run: give the prompt once (PROMPT or --prompt)", file=sys.stderr)
        return None
    prompt = given[0] if given else None
    if prompt == "-" or (prompt is None and not sys.stdin.isatty()):
        prompt = from_stdin()
        if prompt is None:  # said why
            return None
    elif prompt is not None and prompt.strip() and not sys.stdin.isatty():
        piped = piped_input()
        if piped is None:  # said why
            return None
        if piped.strip():
            from frontier.app.agent.attachments import fenced

            head = f"Standard input, piped to this task ({len(piped.encode()):,} bytes):"
            prompt = f"{prompt}\n\n{fenced(head, piped)}"
    if prompt is None or not prompt.strip():
        safe_print(
            'frontier run: no prompt; pass it as an argument (frontier "fix the bug"), '
            "--prompt TEXT, or - and the task on stdin",
            file=sys.stderr,
        )
        return None
    return prompt


STDIN_WAIT = 3.0
"""Seconds a task given as an argument waits for a piped stdin to send something or end.
``git diff | frontier run "review this"`` sends the diff with the task; a harness that
starts Frontier with a pipe it never writes nor closes (a common way to spawn an agent)
would otherwise wait for ever (Claude Code's ``-p`` did, then got this same guard)."""
STDIN_MAX = 64 << 20
"""Bytes of a prompt read from stdin: far beyond any model's context (two million tokens
are ~8 MB of text), so a pipe that never ends (``yes | frontier run -``) is refused with a
message instead of filling memory."""


def piped_input() -> str | None:
    """What a pipe or file on stdin holds, sent with a task given as an argument: empty
    when it sends nothing and does not end within :data:`STDIN_WAIT` (said on stderr) or
    is no descriptor at all, ``None`` after saying why it cannot be sent
    (:func:`from_stdin`)."""
    import select

    try:
        fd = sys.stdin.fileno()
        ready, _, _ = select.select([fd], [], [], STDIN_WAIT)
    except (OSError, ValueError, AttributeError):  # no descriptor: nothing a shell piped
        return ""
    if not ready:
        safe_print(
            f"note stdin sent nothing in {STDIN_WAIT:g} s and did not end: the task goes "
            "without it (pipe the input in, or run with < /dev/null)",
            file=sys.stderr,
        )
        return ""
    return from_stdin("the input")


def from_stdin(what: str = "the prompt") -> str | None:
    """The prompt piped in, as text: bytes that are not UTF-8 are sent as U+FFFD and said.

    Read as the terminal's text they failed either way: a strict locale raised
    ``UnicodeDecodeError`` (a traceback), and in a C.UTF-8 one Python kept them as lone
    surrogates, which the session store cannot write ("turn ended:
    session_persistence_failed"), after the whole prompt had been echoed. A log with one
    Latin-1 byte is the usual case, and the model can still read the rest."""
    raw = getattr(sys.stdin, "buffer", None)
    if raw is None:  # not a byte stream (a test's StringIO)
        return sys.stdin.read()
    data = raw.read(STDIN_MAX + 1)
    if len(data) > STDIN_MAX:
        safe_print(
            f"frontier run: {what} on stdin is over {STDIN_MAX >> 20} MiB, more than any "
            "model takes; send a part of it (or a file's path for the agent to read)",
            file=sys.stderr,
        )
        return None
    text = data.decode("utf-8", "replace")
    replaced = text.count("\ufffd") - data.count("\ufffd".encode())
    if replaced:
        safe_print(
            f"note stdin is not all UTF-8 text: {replaced:,} invalid byte sequence"
            f"{'s' if replaced > 1 else ''} sent as \ufffd",
            file=sys.stderr,
        )
    return text
