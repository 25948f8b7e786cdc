"""``frontier`` — the command-line entry point.

Only argparse is imported here; each subcommand's handler lives in
``frontier.app.commands.<name>`` and is imported when that command runs, so
``frontier --help`` and ``frontier apply-patch`` never load Textual or httpx.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from frontier.app.vocab import AGENT_MODES, APPROVALS, DEFAULT_MODE, PATCH_FORMATS, PROTOCOLS

EPILOG = """\
examples:
  frontier demo                         watch the built-in scripted model (no network, no key)
  frontier --base-url http://127.0.0.1:8080/v1 --model qwen
  frontier run --prompt "add a --verbose flag" --approval auto-edit --json
  frontier transduce --protocol ctl --chunk 1 < reply.txt
  frontier apply-patch --root . --dry-run < change.diff

configuration: config.toml in the user config dir (FRONTIER_CONFIG_DIR overrides),
FRONTIER_BASE_URL / FRONTIER_MODEL / FRONTIER_PROTOCOL / FRONTIER_APPROVAL /
FRONTIER_PATCH_FORMAT / FRONTIER_CONNECT_TIMEOUT / FRONTIER_FIRST_BYTE_TIMEOUT /
FRONTIER_IDLE_TIMEOUT (by default a hung server is given up on within 2 minutes).
The key: FRONTIER_API_KEY, else api_key_command (prints it) or api_key_file in
config.toml (keeps it out of the environment, where approved commands could read
it), else OPENAI_API_KEY.
Sessions live in the user data dir (FRONTIER_DATA_DIR overrides).
"""


def _agent_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Endpoint/mode/policy flags, accepted before or after the subcommand."""
    default = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--base-url",
        default=default,
        metavar="URL",
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1",
    )
    parser.add_argument(
        "--model", default=default, metavar="M", help="model name sent to the endpoint"
    )
    parser.add_argument(
        "--protocol",
        default=default,
        choices=AGENT_MODES,
        help=f"how tool calls are framed (default {DEFAULT_MODE})",
    )
    parser.add_argument(
        "--approval",
        default=default,
        choices=APPROVALS,
        help="ask (default), auto-edit, auto or read-only",
    )
    parser.add_argument(
        "--workspace",
        default=default,
        metavar="DIR",
        help="workspace root (default: current directory; for resume: where the session's "
        "project is now, if it moved)",
    )
    parser.add_argument(
        "--patch-format",
        default=default,
        choices=PATCH_FORMATS,
        help="the patch dialect apply_patch teaches the model: auto (default: the Codex "
        "*** Begin Patch envelope for OpenAI GPT-4.1+, o-series and codex models, a unified "
        "diff otherwise), unified or codex; both are always accepted",
    )
    parser.add_argument(
        "--theme",
        default=default,
        metavar="NAME",
        help="TUI theme: frontier-dark, frontier-light, frontier-contrast",
    )
    parser.add_argument(
        "--connect-timeout",
        default=default,
        type=float,
        metavar="S",
        help="seconds to connect to the endpoint (default 10)",
    )
    parser.add_argument(
        "--first-byte-timeout",
        default=default,
        type=float,
        metavar="S",
        help="seconds from sending a request to the first byte of the answer (default 45; "
        "raise it for a slow local model on long prompts)",
    )
    parser.add_argument(
        "--idle-timeout",
        default=default,
        type=float,
        metavar="S",
        help="seconds without a byte mid-answer before it counts as a stall (default 30)",
    )


class _VersionAction(argparse.Action):
    """``--version``: read from the installed metadata only when asked (start-up stays fast)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("frontier-agent")
        except PackageNotFoundError:
            text = "unknown (not installed; run pip install -e .)"
        print(f"frontier {text}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="frontier",
        description=(
            "A terminal coding agent whose tool calls run the moment "
            "the model's bytes prove them complete."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="print the installed version and exit"
    )
    _agent_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        return p

    p = add(
        "demo",
        "the built-in scripted model in a scratch copy of a sample project (no network, no key)",
    )
    _agent_options(p, top=False)
    p.add_argument(
        "--headless", action="store_true", help="print events instead of opening the TUI"
    )
    p.add_argument("--json", action="store_true", help="with --headless: one JSON event per line")
    p.add_argument(
        "--rate",
        type=float,
        default=None,
        metavar="TOK_S",
        help="scripted token rate (default 60 tokens/s; 0 = as fast as possible)",
    )

    p = add(
        "run", "run one task headless: same loop, events as text or JSON lines, approvals by policy"
    )
    _agent_options(p, top=False)
    p.add_argument(
        "--prompt", required=True, metavar="TEXT", help="the task (- reads it from stdin)"
    )
    p.add_argument(
        "--max-turns",
        type=int,
        default=20,
        metavar="N",
        help="model requests before giving up (default 20)",
    )
    p.add_argument(
        "--json", action="store_true", help="one JSON event per line, flushed as it happens"
    )
    p.add_argument(
        "--session", metavar="ID", help="continue this session instead of starting a new one"
    )

    p = add("replay", "replay a recording or a stored session")
    p.add_argument("source", metavar="RECORDING|SESSION")
    p.add_argument(
        "--headless", action="store_true", help="print the events instead of opening the TUI"
    )
    p.add_argument("--json", action="store_true", help="with --headless: JSON lines")
    p.add_argument("--speed", default="1", help="initial speed: 0.1..100 or max")
    _agent_options(p, top=False)

    p = add("transduce", "stdin bytes -> confirmed events as JSON lines (debug a model's framing)")
    p.add_argument("--protocol", required=True, choices=PROTOCOLS)
    p.add_argument(
        "--chunk",
        type=int,
        default=4096,
        metavar="N",
        help="feed N bytes at a time (1 = byte by byte)",
    )
    p.add_argument(
        "--eof",
        choices=("clean", "truncated"),
        default="clean",
        help="how the stream ends (clean = finish_reason stop)",
    )
    p.add_argument("--summary", action="store_true", help="print only the summary line")
    p.add_argument(
        "--events",
        choices=("calls", "all"),
        default="calls",
        help="all = also call_started/arg_started/arg_bytes",
    )

    p = add("check", "verify S1–S3 over every byte prefix of recordings or stored sessions")
    p.add_argument("sources", nargs="+", metavar="RECORDING|SESSION")

    p = add(
        "apply-patch",
        "apply a patch from stdin (a unified diff or a '*** Begin Patch' envelope, detected) "
        "with the agent's engine; exit 0 = applied or already applied, 1 = nothing written",
    )
    p.add_argument(
        "--root",
        required=True,
        metavar="DIR",
        help="workspace root; every path must stay inside it",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="locate every hunk and print the result, write nothing",
    )

    p = add("sessions", "list stored sessions, newest first")
    p.add_argument("--json", action="store_true")

    p = add("resume", "continue a stored session")
    p.add_argument("session_id", metavar="ID")
    p.add_argument("--headless", action="store_true")
    p.add_argument("--prompt", metavar="TEXT", help="with --headless: the next message")
    p.add_argument("--json", action="store_true")
    p.add_argument("--max-turns", type=int, default=20, metavar="N")
    p.add_argument(
        "--rate",
        type=float,
        default=None,
        metavar="TOK_S",
        help="for a demo session: the scripted token rate (default 60; 0 = no delay)",
    )
    _agent_options(p, top=False)

    p = add("export", "export a stored session")
    p.add_argument("session_id", metavar="ID")
    p.add_argument("--format", choices=("jsonl", "markdown"), default="markdown")
    p.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")

    return parser


_HANDLERS = {
    None: "tui_main",
    "demo": "demo",
    "run": "run",
    "replay": "replay",
    "transduce": "transduce",
    "check": "check",
    "apply-patch": "apply_patch",
    "sessions": "sessions",
    "resume": "resume",
    "export": "export",
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    module = importlib.import_module(f"frontier.app.commands.{_HANDLERS[args.command]}")
    try:
        return int(module.main(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`frontier ... | head`): stop quietly, like other CLIs.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
