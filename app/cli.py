"""``frontier`` — the command-line entry point.

Only argparse is imported here (without ``gettext``: ``app/argparse_lean.py``); each
subcommand's handler lives in ``frontier.app.commands.<name>`` and is imported when that
command runs, so ``frontier --help`` and ``frontier apply-patch`` never load Textual or httpx.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence

from frontier.app.argparse_lean import argparse
from frontier.app.vocab import (
    APPROVAL_MEANINGS,
    APPROVALS,
    DEFAULT_MODE,
    PATCH_FORMATS,
    PROTOCOL_SETTINGS,
    PROTOCOLS,
    REASONING_EFFORTS,
    SANDBOXES,
    THEME_NAMES,
    WIRE_SETTINGS,
    WIRES,
    wire_setting,
)

EPILOG = """\
examples:
  frontier demo                         watch the built-in scripted model (no network, no key)
  frontier demo --tour                  a guided tour of the demo for teaching (space, b)
  frontier serve                        the demo in a browser, on http://127.0.0.1:8470/
  frontier --base-url http://127.0.0.1:8080/v1 --model qwen
  frontier --provider openai --model gpt-4.1          (OPENAI_API_KEY; Responses API)
  frontier --provider anthropic --model claude-sonnet-4-5   (ANTHROPIC_API_KEY)
  frontier --provider ollama --model qwen2.5-coder:7b       (a local Ollama; no key)
  frontier -c                           continue this workspace's last session
  frontier -c "now add a test"          continue it headless with one more task
  frontier "add a --verbose flag" --approval auto-edit   run one task headless and exit
  frontier -p "what does app/cli.py do?"                 print only the final answer
  frontier run "add a --verbose flag" --json             events as JSON lines (docs/headless.md)
  frontier transduce --protocol ctl --chunk 1 < reply.txt
  frontier apply-patch --root . --dry-run < change.diff
  frontier doctor --provider ollama --model qwen2.5-coder:7b   what would stop a session

configuration: config.toml in the user config dir (FRONTIER_CONFIG_DIR overrides), with
[providers.NAME] tables for named endpoints (docs/models.md; built in: openai, anthropic,
openrouter, deepseek, ollama, llamacpp), FRONTIER_PROVIDER / FRONTIER_WIRE /
FRONTIER_BASE_URL / FRONTIER_MODEL / FRONTIER_PROTOCOL / FRONTIER_APPROVAL /
FRONTIER_PATCH_FORMAT / FRONTIER_CONNECT_TIMEOUT / FRONTIER_FIRST_BYTE_TIMEOUT /
FRONTIER_IDLE_TIMEOUT (by default a hung server is given up on within 2 minutes; 6 for a
reasoning model, which may think silently for minutes) /
FRONTIER_CONTEXT_WINDOW / FRONTIER_COMPACT_THRESHOLD (compact the history before a
request would pass this share of the window; default 0.8) /
FRONTIER_MAX_TOKENS / FRONTIER_PREFILL (auto|on|off: continue a ctl reply cut by the
token limit from its last byte instead of asking for a resend; docs/protocol.md).
With no endpoint named, OPENAI_BASE_URL is used (said at the start); the openai and
anthropic providers read OPENAI_BASE_URL / ANTHROPIC_BASE_URL, as their SDKs do.
The key: FRONTIER_API_KEY, else api_key_command (prints it) or api_key_file in
config.toml (keeps it out of the environment, where approved commands could read
it), else OPENAI_API_KEY (ANTHROPIC_API_KEY on the Anthropic wire or host); a
provider's key_command / key_file / key_env replace those. Tools run without
variables named *KEY*, *SECRET*, *TOKEN*, *PASSWORD*;
FRONTIER_TOOL_ENV_ALLOW=GITHUB_TOKEN,... lets named ones through.
Sessions live in the user data dir (FRONTIER_DATA_DIR overrides).
"""


AGENT_OPTIONS = (
    "provider",
    "base_url",
    "model",
    "wire",
    "protocol",
    "approval",
    "workspace",
    "patch_format",
    "theme",
    "connect_timeout",
    "first_byte_timeout",
    "idle_timeout",
    "instructions",
    "prefill",
    "max_tokens",
    "reasoning_effort",
    "context_window",
    "max_calls",
    "sandbox",
    "sandbox_network",
)
"""Every endpoint/mode/policy flag, as its ``argparse`` dest (``--base-url`` → ``base_url``;
``instructions`` is ``--no-instructions``)."""
ENDPOINT = frozenset(AGENT_OPTIONS) - {"theme"}
SUBCOMMAND_OWN = {
    "transduce": frozenset({"protocol", "wire"}),
    "check": frozenset({"protocol", "wire"}),
    "import": frozenset({"protocol", "wire"}),
    "replay": frozenset({"wire"}),
    "eval": frozenset({"protocol", "wire"}),
}
"""Agent flags' names a subcommand uses for its own options (``transduce --protocol``,
``--wire``: how its input is framed), not the agent's."""
OFFERED: dict[str | None, frozenset[str]] = {
    None: frozenset(AGENT_OPTIONS),
    "demo": frozenset(
        {"protocol", "approval", "theme", "instructions", "prefill", "sandbox", "sandbox_network"}
    ),
    "run": ENDPOINT,
    "resume": frozenset(AGENT_OPTIONS),
    "replay": frozenset({"protocol", "theme"}),
    "undo": frozenset({"workspace"}),
    "rewind": frozenset({"workspace"}),
    "mcp": frozenset({"workspace"}),
    "checks": frozenset({"workspace"}),
    "doctor": ENDPOINT,
}
"""Which agent flags each command uses; a command offers only those, so a flag it would
ignore (``replay --approval``, ``run --theme``, ``demo --workspace``) is an error, not a
silent no-op. The demo's model, endpoint and timeouts are built in and its workspace is
a scratch copy; a replay only re-reads bytes (``--protocol`` re-frames them; the
recording names its wire, so ``--wire`` and ``--provider`` do not apply)."""


def _capture_options(p: argparse.ArgumentParser) -> None:
    """``--wire`` / ``--protocol`` for reading a capture (override what is detected)."""
    p.add_argument(
        "--wire",
        choices=WIRES,
        type=wire_setting,
        default=None,
        help="a capture's wire (default: detected from its events or endpoint)",
    )
    p.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default=None,
        help="a capture's protocol (default: what the request offered, else native for "
        "a stream with native tool calls, else the text's own call markers)",
    )


def _flag(dest: str) -> str:
    if dest == "instructions":
        return "--no-instructions"  # on by default: the flag only turns it off
    return "--" + dest.replace("_", "-")


def _positive_int(text: str) -> int:
    """``--max-turns``: a whole number of model requests, at least one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"must be at least 1 (got {value}): it counts the model requests a task may make"
        )
    return value


def _agent_options(
    parser: argparse.ArgumentParser, *, top: bool, only: frozenset[str] = frozenset(AGENT_OPTIONS)
) -> None:
    """The endpoint/mode/policy flags in ``only``, accepted before or after the subcommand."""
    default = None if top else argparse.SUPPRESS
    specs: dict[str, dict[str, object]] = {
        "provider": {
            "metavar": "NAME",
            "help": "a named endpoint: openai, anthropic, openrouter, deepseek, ollama, "
            "llamacpp, or a [providers.NAME] table in config.toml (base URL, wire, key, "
            "timeouts, model); "
            "the flags below override its values",
        },
        "base_url": {
            "metavar": "URL",
            "help": "the endpoint, e.g. http://127.0.0.1:8080/v1 or https://api.openai.com/v1",
        },
        "model": {
            "metavar": "M",
            "help": "model name sent to the endpoint (default: the one its /models lists)",
        },
        "wire": {
            "choices": WIRE_SETTINGS,
            "type": wire_setting,
            "help": "the API spoken: auto (default: anthropic-messages for api.anthropic.com "
            "and a .../anthropic path, "
            "openai-responses for api.openai.com and codex models, else openai-chat), "
            f"{', '.join(WIRES)}",
        },
        "protocol": {
            "choices": PROTOCOL_SETTINGS,
            "help": "how tool calls are framed: auto (default: native-inc where the model "
            f"catalogue or the server says the model has native tools, else {DEFAULT_MODE}) "
            "or a mode",
        },
        "approval": {
            "choices": APPROVALS,
            "help": "who says yes before an edit or command runs: "
            + "; ".join(f"{name}: {meaning}" for name, meaning in APPROVAL_MEANINGS.items())
            + " (default ask)",
        },
        "workspace": {
            "metavar": "DIR",
            "help": "workspace root (default: current directory; for resume: where the "
            "session's project is now, if it moved)",
        },
        "patch_format": {
            "choices": PATCH_FORMATS,
            "help": "the patch dialect apply_patch teaches the model: auto (default: the Codex "
            "*** Begin Patch envelope for OpenAI GPT-4.1+, o-series and codex models, a "
            "unified diff otherwise), unified or codex; both are always accepted",
        },
        "theme": {
            "choices": THEME_NAMES,
            "metavar": "NAME",
            "help": f"TUI theme: {', '.join(THEME_NAMES)} (remembered when changed in the TUI)",
        },
        "connect_timeout": {
            "type": float,
            "metavar": "S",
            "help": "seconds to connect to the endpoint (default 10)",
        },
        "first_byte_timeout": {
            "type": float,
            "metavar": "S",
            "help": "seconds from sending a request to the first byte of the answer (default "
            "45, or 300 for a model that may reason silently first; raise it for a slow "
            "local model on long prompts)",
        },
        "idle_timeout": {
            "type": float,
            "metavar": "S",
            "help": "seconds without content mid-answer before it counts as a stall; "
            "keep-alives do not count (default 30, or 300 for a model that may reason "
            "silently)",
        },
        "instructions": {
            "action": "store_const",
            "const": False,
            "help": "leave the project's AGENTS.md, CLAUDE.md and .frontier/instructions.md "
            "(workspace and parents up to the repository root) out of the system prompt "
            "(also instructions = false in config.toml, or FRONTIER_INSTRUCTIONS=0)",
        },
        "prefill": {
            "choices": ("auto", "on", "off"),
            "help": "resume a ctl/ctl-heredoc response cut by max_tokens from its last byte, by "
            "continuing it as a trailing assistant message: auto (default: where the server "
            "does — llama.cpp, vLLM, OpenRouter), on, or off (resend it instead)",
        },
        "max_tokens": {
            "type": int,
            "metavar": "N",
            "help": "max_tokens sent with each request (default: the server's)",
        },
        "reasoning_effort": {
            "choices": REASONING_EFFORTS,
            "help": "how hard a reasoning model thinks: auto (default: the model's own), low, "
            "medium, high (OpenAI's reasoning.effort / reasoning_effort, a Claude thinking "
            "budget)",
        },
        "context_window": {
            "type": int,
            "metavar": "N",
            "help": "the model's context window in tokens (default: asked from the server, "
            "else the model catalogue, else 8192, assumed and said); the history is "
            "compacted before a request would pass 80%% of it",
        },
        "max_calls": {
            "type": int,
            "metavar": "N",
            "help": "the most tool calls one model response may make (default 64): a call "
            "past it is not run, the model is told so, and the rest of that response is "
            "not read",
        },
        "sandbox": {
            "choices": SANDBOXES,
            "help": "where shell and python run: workspace-write (default: in an OS sandbox "
            "that may write only the workspace, .git and .frontier read-only, credentials "
            "hidden), read-only (may write nothing) or off (unconfined, as your user). Where "
            "no sandbox can start, every command is asked first; see docs/sandbox.md",
        },
        "sandbox_network": {
            "choices": ("off", "on"),
            "help": "whether sandboxed commands may use the network (default off)",
        },
    }
    for dest in AGENT_OPTIONS:
        if dest in only:
            parser.add_argument(_flag(dest), dest=dest, default=default, **specs[dest])  # type: ignore[arg-type]


EVAL_OPTIONS: dict[str, dict[str, object]] = {
    "--calls": {
        "metavar": "FILE",
        "help": "the workload: a JSON list of {name, args} (default: a built-in mix of reads, "
        "edits, a 5 KB write and a multi-file patch)",
    },
    "--session": {
        "metavar": "ID|CAPTURE",
        "help": "the workload: the calls of a stored session, or of a recording or capture "
        "file (raw SSE, raw HTTP, HAR, chunk log; - for stdin)",
    },
    "--framings": {
        "metavar": "LIST",
        "help": f"a comma-separated subset (default all: {','.join(PROTOCOLS)})",
    },
    "--cuts": {"type": int, "metavar": "N", "help": "relative cut points (default 200)"},
    "--every-byte": {
        "action": "store_true",
        "help": "also cut at every byte of every rendering (each pass reads byte by byte)",
    },
    "--chunk": {
        "metavar": "LIST",
        "help": "chunk sizes, one feed each; all must agree at every cut (default 1,7,64)",
    },
    "--token": {
        "type": int,
        "metavar": "N",
        "help": "characters per streamed chunk of native arguments (default 4)",
    },
    "--wire": {
        "choices": WIRES,
        "type": wire_setting,
        "help": "a capture's wire, when detection from its events should not decide",
    },
    "--protocol": {
        "choices": PROTOCOLS,
        "help": "a capture's protocol, when detection should not decide",
    },
    "--json": {"action": "store_true", "help": "print the report as JSON"},
    "--plot": {
        "metavar": "FILE",
        "help": "also write the chart to FILE, .svg or .png (needs the plots extra: "
        "pip install 'frontier-agent[plots]')",
    },
    "--tui": {
        "action": "store_true",
        "help": "show the chart in the terminal, in a Textual screen (plots extra)",
    },
}
"""``frontier eval``'s options; ``None`` when not given (the command fills in defaults)."""
EVAL_FRAMINGS = (
    "--calls",
    "--session",
    "--framings",
    "--cuts",
    "--every-byte",
    "--chunk",
    "--token",
)
EVAL_COMMON = ("--wire", "--protocol", "--json", "--plot", "--tui")


def _eval_options(parser: argparse.ArgumentParser, *, top: bool, only: Sequence[str]) -> None:
    """``frontier eval``'s options, accepted before or after its experiment's name."""
    for flag in only:
        default = None if top else argparse.SUPPRESS
        parser.add_argument(flag, default=default, **EVAL_OPTIONS[flag])  # type: ignore[arg-type]


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


CHECK_PROPERTIES = """\
The properties, checked at every byte prefix of each recorded stream:
  S1  no incomplete call is ever executable: a call becomes runnable only once its
      confirming byte has arrived, and a stream cut off there completes no call
  S2  a call executable on a prefix is byte-identical (id, name, args, offset) to
      the same call on the whole stream: nothing that ran can change afterwards
  S3  the number of executable calls never decreases as the prefix grows
  bound  the pending (undecided) bytes never exceed the protocol's bound
A model breaking the framing is not a violation (the runtime reports it); bytes that
arrive for a call already executable are (S2). A line says ok when the properties hold;
the closing line counts the responses whose framing broke (--explain shows each error).
exit status: 0 every property holds, 1 a violation (the first offset is named),
2 a source cannot be read."""


SERVE_EPILOG = """\
Every page load starts a new session: a new process, and for the demo a new scratch
workspace (kept with the sessions in the data dir). Whoever can open the page drives an
agent that runs shell commands in the workspace: keep the default 127.0.0.1 unless the
network is yours; the page must come from this server (a page of another site open in
the same browser is refused). Ctrl+C stops the server and every session.
examples:
  frontier serve                                     the demo, on http://127.0.0.1:8470/
  frontier serve --port 0 -- demo --rate 30          any free port, a slower demo
  frontier serve -- --base-url http://127.0.0.1:8080/v1 --model qwen"""


EVAL_EPILOG = """\
examples:
  frontier eval                                   the built-in workload in every framing
  frontier eval framings --calls calls.json --cuts 500 --chunk 1,3 --plot c.svg
  frontier eval counts SESSION other.jsonl --json
exit status: 0 ok; 1 a framing changed a ready call, made one ready only because the reply
was cut, or gave different calls for different chunk sizes; 2 usage error, unreadable
source, or a missing optional library (the message says what to install)."""


UNDO_EPILOG = """\
Repeated undos walk back through the session; naming an undo (u1) brings its change back.
A file created by the change is deleted, one it deleted is recreated. The diff is shown
and asked about on the terminal (--yes skips that; without a terminal it is shown and not
applied). The model is told with the next message of `frontier resume SESSION`.
exit status: 0 restored; 1 nothing written (a file changed since the change, its earlier
version was not kept, nothing to undo, denied, or the write failed: the message says what
is on disk); 2 no such session or call, the session is open elsewhere, or its workspace
is gone."""


REWIND_EPILOG = """\
Without MESSAGE it lists your messages the model still has, each with the files a rewind
to before it puts back and the commands run since (what they wrote beyond the files they
name is not put back),
and writes nothing. The files' undo is shown and asked about on the terminal (--yes skips
that; without a terminal it is shown and not applied); it is recorded, so
`frontier undo SESSION uN` brings the changes back. The message is printed, to be sent
again with `frontier run -c`.
exit status: 0 rewound; 1 nothing done (a file changed since, its earlier version was not
kept, or declined), or the files were put back but the conversation could not be; 2 no
such session or message, the session is open elsewhere, or its workspace is gone."""


MCP_EPILOG = """\
Servers come from [mcp_servers.NAME] in config.toml and from the workspace's
.frontier/mcp.toml; a project server starts only once trusted here (`trust` shows what it
runs first; a change to what it runs asks again). docs/mcp.md has every key.
  frontier mcp list                  servers, state and tools (starts them, then stops)
  frontier mcp test tracker          start, list tools, ping, with timings
  frontier mcp trust                 review and trust the project's new servers
  frontier mcp allow tracker__search always allow one tool (tracker__* : all of them)
exit status: 0 ok; 1 a test failed or trust declined; 2 usage or config error; 3 trust
needed an answer and there was no terminal (--yes)."""


CHECKS_EPILOG = """\
Checks ([checks.NAME]: run read-only after each edit, their verdict told to the model) and
formatters ([formatters.NAME]: run on a file's new content before the review) come from
config.toml and from the workspace's .frontier/checks.toml; a project's runs only once
trusted here (`trust` shows what it runs first; a change to what it runs asks again).
docs/checks.md has every key.
  frontier checks                  each one, where it comes from, and whether it runs here
  frontier checks trust            review and trust the project's new ones
  frontier checks trust --forget ruff
  frontier checks test ruff src/app.py   run it as after an edit of src/app.py
exit status: 0 ok (test: passed, or formatted); 1 trust declined, or the test's check
failed; 2 usage or config error, or no such check here; 3 trust needed an answer and
there was no terminal (--yes)."""


RUN_EPILOG = """\
The text form streams the model's prose to stdout as it arrives and its reasoning to
stderr; --json writes one event per line (the format is versioned: docs/headless.md).
exit status: 0 the task ended with the model done; 1 a turn failed (the reason is on
stderr); 2 usage or setup error; 3 a call needed approval and nobody could be asked (no
terminal): stderr names the --approval that allows it; 130, 143, 129 stopped by ctrl+c,
SIGTERM or SIGHUP (the running command's result is kept; a second signal ends at once);
141 stdout's reader went away (| head)."""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, told the terminal's width: argparse asks ``shutil`` for it, and
    importing ``shutil`` (with ``bz2``, ``lzma``) was a quarter of what a command added to
    the interpreter's start-up. Same answer: ``COLUMNS``, else the terminal, else 80."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = _columns() - 2  # as argparse does
        super().__init__(prog, indent_increment, max_help_position, width)

    def _split_lines(self, text: str, width: int) -> list[str]:
        """An option's help in lines of at most ``width``, words kept whole (one longer
        than a line is cut). argparse hands this to ``textwrap``: ~2 ms of ``--help`` to
        import and run it, for the same lines but where a hyphenated word falls at a line's
        end (``textwrap`` may break it after the hyphen; this moves it to the next line)."""
        lines: list[str] = []
        line = ""
        for word in text.split():
            while len(word) > width:
                if line:
                    lines.append(line)
                    line = ""
                lines.append(word[:width])
                word = word[width:]
            if not line:
                line = word
            elif len(line) + 1 + len(word) <= width:
                line += " " + word
            else:
                lines.append(line)
                line = word
        if line:
            lines.append(line)
        return lines


_COLUMNS: dict[str | None, int] = {}
"""``_columns()``'s answers by ``COLUMNS``: every parser's formatter asks (24 for ``--help``)."""


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing ``shutil``."""
    import os

    key = os.environ.get("COLUMNS")
    found = _COLUMNS.get(key)
    if found is None:
        found = _COLUMNS[key] = _find_columns()
    return found


def _find_columns() -> int:
    import os

    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Parsers(Mapping[str, argparse.ArgumentParser]):
    """The commands' parsers, each built when first looked up: ``frontier sessions`` builds
    one parser, ``frontier --help`` none (building all fifteen took ~20 ms, most of what
    ``--help`` added to the interpreter's own start-up)."""

    def __init__(self, action: _LazyCommands) -> None:
        self._action = action
        self._built: dict[str, argparse.ArgumentParser] = {}

    def __getitem__(self, name: str) -> argparse.ArgumentParser:
        built = self._built.get(name)
        if built is None:
            help_text, epilog, fill = COMMANDS[name]  # KeyError: not a command
            built = self._action.build(name, help_text, epilog)
            fill(built)
            self._built[name] = built
        return built

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


class _LazyCommands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The ``COMMAND`` positional: every command is listed (in ``--help``, as a choice,
    in errors) from ``COMMANDS``; a command's own parser is built only when it is used."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._name_parser_map = _Parsers(self)  # type: ignore[assignment]
        self.choices = self._name_parser_map
        for name, (help_text, _, _) in COMMANDS.items():
            self._choices_actions.append(self._ChoicesPseudoAction(name, (), help_text))

    def build(self, name: str, help_text: str, epilog: str | None) -> argparse.ArgumentParser:
        """One command's empty parser, as ``add_parser`` makes it (prog, formatter); not
        listed again, the listing is made once above."""
        return self._parser_class(
            prog=f"{self._prog_prefix} {name}",
            description=help_text,
            epilog=epilog,
            formatter_class=_Formatter,
        )


def build_parser(*, agent_options: bool = True) -> argparse.ArgumentParser:
    """The ``frontier`` parser; ``agent_options=False`` for a command line that starts with
    its command (``frontier sessions``), where no flag can come before the command: the
    top level's twenty agent flags are then not built (~0.6 ms of every command: issue 24)
    and their destinations default to ``None``, as those flags' own defaults would."""
    parser = argparse.ArgumentParser(
        prog="frontier",
        description=(
            "A terminal coding agent whose tool calls run the moment "
            "the model's bytes prove them complete."
        ),
        epilog=EPILOG,
        formatter_class=_Formatter,
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="print the installed version and exit"
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="continue the session of this workspace used last (as `frontier resume --last`)",
    )
    if agent_options:
        _agent_options(parser, top=True)
    else:
        parser.set_defaults(**dict.fromkeys(AGENT_OPTIONS))
    parser.register("action", "lazy_parsers", _LazyCommands)
    parser.add_subparsers(dest="command", metavar="COMMAND", action="lazy_parsers")

    return parser


def _demo_command(p: argparse.ArgumentParser) -> None:
    _agent_options(p, top=False, only=OFFERED["demo"])
    p.add_argument(
        "--headless",
        action="store_true",
        help="print events instead of opening the TUI (the default when stdout is not a terminal)",
    )
    p.add_argument("--json", action="store_true", help="with --headless: one JSON event per line")
    p.add_argument(
        "--rate",
        type=float,
        default=None,
        metavar="TOK_S",
        help="scripted token rate (default 60 tokens/s; 0 = as fast as possible)",
    )
    p.add_argument(
        "--tour",
        action="store_true",
        help="a guided tour for teaching: the story stops at each moment that shows CST at "
        "work, highlights the panes and explains (space next, b back); --headless prints it",
    )


def _run_command(p: argparse.ArgumentParser) -> None:
    _agent_options(p, top=False, only=OFFERED["run"])
    p.add_argument(
        "task",
        nargs="?",
        metavar="PROMPT",
        help="the task (- reads it from stdin; so does no prompt when stdin is not a "
        "terminal; with a PROMPT, a piped stdin is sent after it)",
    )
    p.add_argument("--prompt", metavar="TEXT", help="the task, as a flag (same as PROMPT)")
    p.add_argument(
        "-p",
        "--print",
        dest="print_mode",
        action="store_true",
        help="print only the final answer on stdout (progress and reasoning are not shown; "
        "failures go to stderr), as `claude -p`",
    )
    p.add_argument(
        "--max-turns",
        type=_positive_int,
        default=None,
        metavar="N",
        help="model responses one prompt may lead to before the turn stops (a reply "
        "continued after a cut counts once; at least 1; default: max_turns in config.toml "
        "or FRONTIER_MAX_TURNS, else 20)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON event per line, flushed as it happens; the first line names the session",
    )
    p.add_argument(
        "--session", metavar="ID", help="continue this session instead of starting a new one"
    )
    p.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="continue the session of this workspace used last (`frontier -c PROMPT` too)",
    )


def _replay_command(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "source",
        metavar="SOURCE",
        nargs="?",
        help="a recording or capture file (raw SSE, raw HTTP, HAR, chunk log; - for stdin; "
        "FILE#N), a "
        "session id (or unique prefix), or SESSION#N for one response",
    )
    _last_flag(p)
    p.add_argument(
        "--wire",
        choices=WIRES,
        type=wire_setting,
        default=None,
        help="a capture's wire, when detection from its events should not decide",
    )
    p.add_argument(
        "--headless", action="store_true", help="print the events instead of opening the TUI"
    )
    p.add_argument("--json", action="store_true", help="with --headless: JSON lines")
    p.add_argument(
        "--speed",
        default="1",
        help="initial speed: 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100 or max (default 1)",
    )
    _agent_options(p, top=False, only=OFFERED["replay"])


def _transduce_command(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--protocol",
        required=True,
        choices=PROTOCOLS,
        help="how the input is framed: assistant text for ctl, ctl-heredoc, json-whole, "
        "json-object and xml; the SSE body (data: lines) for native-eos and native-inc",
    )
    p.add_argument(
        "--wire",
        choices=WIRES,
        type=wire_setting,
        default=None,
        help="the API whose SSE body the input is (default openai-chat for the native "
        "protocols); with a text protocol, read the assistant text of that wire's SSE body",
    )
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


def _last_flag(p: argparse.ArgumentParser, where: str = "the current directory") -> None:
    """``--last``: the session of this workspace used last (``commands/session_pick``)."""
    p.add_argument(
        "--last",
        action="store_true",
        help=f"the session of this workspace ({where}) used last",
    )


def _check_command(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="recording or capture files (raw SSE, raw HTTP as curl -i or Wireshark saves "
        "it, HAR, a JSON-lines chunk log; - for stdin; "
        "FILE#N for one response of several), session ids (every response) or SESSION#N",
    )
    _last_flag(p)
    _capture_options(p)
    p.add_argument(
        "--explain",
        action="store_true",
        help="also explain each contract error: the bytes around it (text and hex), the "
        "frame as parsed so far, the feedback sent to the model and (for a stored "
        "session) its next attempt",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=_positive_int,
        metavar="N",
        help="check N responses at once, each in a process of its own (default: one per CPU "
        "when there is more than 256 KiB to check, else 1)",
    )


def _import_command(p: argparse.ArgumentParser) -> None:
    p.add_argument("capture", metavar="CAPTURE", help="the capture file (- for stdin; FILE#N)")
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="where to write (default CAPTURE.recording.jsonl; with several responses or "
        "CAPTURE#N, -N before its suffix, N the response's number; - for stdout); never "
        "over the capture or another capture",
    )
    _capture_options(p)
    p.add_argument(
        "--rate",
        type=float,
        default=None,
        metavar="EVENTS_S",
        help="pace a capture without timing at this many events per second (default 50)",
    )


def _apply_patch_command(p: argparse.ArgumentParser) -> None:
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


def _doctor_command(p: argparse.ArgumentParser) -> None:
    _agent_options(p, top=False, only=OFFERED["doctor"])
    p.add_argument(
        "--no-request",
        action="store_true",
        help="send the model no request (the look-ups a session makes before its first still run)",
    )
    p.add_argument(
        "--record",
        metavar="FILE",
        help="write the tool-call check's response to FILE as a recording (frontier check "
        "--explain FILE and frontier replay FILE read it)",
    )
    p.add_argument(
        "--every-protocol",
        action="store_true",
        help="the tool-call check in every protocol (five requests), and which ones the "
        "model's calls were read in: which --protocol suits this model on this server",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per check")


def _sessions_command(p: argparse.ArgumentParser) -> None:
    # `delete` is a word, not a subparser: a second parser doubled what listing costs
    # before it reads the store (issue 24)
    p.add_argument("--json", action="store_true", help="a JSON array instead of the table")
    p.add_argument(
        "action",
        nargs="?",
        metavar="delete",
        help="delete the sessions named (or --older-than DAYS): every row, its content "
        "overwritten on disk; asks first (--yes without a terminal)",
    )
    p.add_argument("ids", metavar="ID", nargs="*", help="with delete: session ids or prefixes")
    p.add_argument(
        "--older-than",
        metavar="DAYS",
        type=float,
        help="with delete: every session last used more than DAYS days ago",
    )
    p.add_argument("--yes", "-y", action="store_true", help="with delete: do not ask")


def _resume_command(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "session_id",
        metavar="ID",
        nargs="?",
        help="the session id or a unique prefix (`frontier sessions` lists them); "
        "without it or --last, the TUI opens on a picker of the stored sessions",
    )
    _last_flag(p, "--workspace DIR, else the current directory")
    p.add_argument("--headless", action="store_true", help="send --prompt and print events, no TUI")
    p.add_argument("--prompt", metavar="TEXT", help="with --headless: the next message")
    p.add_argument("--json", action="store_true", help="with --headless: one JSON event per line")
    p.add_argument(
        "--max-turns",
        type=_positive_int,
        default=None,
        metavar="N",
        help="with --headless: model requests the prompt may lead to before the turn stops "
        "(at least 1; default: max_turns in config.toml or FRONTIER_MAX_TURNS, else 20)",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=None,
        metavar="TOK_S",
        help="for a demo session: the scripted token rate (default 60; 0 = no delay)",
    )
    _agent_options(p, top=False, only=OFFERED["resume"])


def _undo_command(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "session_id", metavar="SESSION", nargs="?", help="the session id or a unique prefix"
    )
    _last_flag(p, "--workspace DIR, else the current directory")
    p.add_argument(
        "call",
        metavar="CALL",
        nargs="?",
        help="the call to undo (c4; u1 undoes an undo); default: the newest change in effect",
    )
    p.add_argument(
        "--yes", "-y", action="store_true", help="approve without asking (the diff is not shown)"
    )
    p.add_argument(
        "--list", action="store_true", help="list the session's file changes and write nothing"
    )
    _agent_options(p, top=False, only=OFFERED["undo"])


def _rewind_command(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "session_id", metavar="SESSION", nargs="?", help="the session id or a unique prefix"
    )
    _last_flag(p, "--workspace DIR, else the current directory")
    p.add_argument(
        "message",
        metavar="MESSAGE",
        nargs="?",
        help="the number of your message to go back to before (the list's); default: list them",
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument(
        "--files-only",
        action="store_true",
        help="put back the files only: the model keeps the conversation",
    )
    what.add_argument(
        "--conversation-only",
        action="store_true",
        help="take back the conversation only: the files stay as they are",
    )
    p.add_argument(
        "--yes", "-y", action="store_true", help="approve without asking (the diff is not shown)"
    )
    p.add_argument("--list", action="store_true", help="list your messages and write nothing")
    _agent_options(p, top=False, only=OFFERED["rewind"])


def _mcp_command(p: argparse.ArgumentParser) -> None:
    _agent_options(p, top=False, only=OFFERED["mcp"])
    servers = p.add_subparsers(dest="mcp_command", metavar="ACTION")
    q = servers.add_parser(
        "list", help="start the servers a session here would start; their state and tools"
    )
    q.add_argument("--json", action="store_true", help="one JSON object")
    q = servers.add_parser("test", help="start one server, list its tools and ping it")
    q.add_argument("name", metavar="NAME", help="the server's name")
    q = servers.add_parser(
        "trust",
        help="show what .frontier/mcp.toml's servers run and trust them for this workspace",
    )
    q.add_argument(
        "names", metavar="NAME", nargs="*", help="these servers (default: every new one)"
    )
    q.add_argument("--yes", "-y", action="store_true", help="trust without asking")
    q.add_argument("--forget", action="store_true", help="withdraw the trust instead")
    q = servers.add_parser(
        "allow", help="always allow an MCP tool (srv__tool) or every tool of a server (srv__*)"
    )
    q.add_argument("tool", metavar="TOOL", help="srv__tool or srv__*")
    q.add_argument("--forget", action="store_true", help="remove the rule instead")
    _workspace_after_action(servers)  # `frontier mcp list --workspace DIR` too


def _checks_command(p: argparse.ArgumentParser) -> None:
    _agent_options(p, top=False, only=OFFERED["checks"])
    p.set_defaults(checks_command="list")
    actions = p.add_subparsers(dest="checks_command", metavar="ACTION")
    q = actions.add_parser(
        "list", help="every check and formatter, where it comes from, whether it runs here"
    )
    q.add_argument("--json", action="store_true", help="one JSON object")
    q = actions.add_parser(
        "trust",
        help="show what .frontier/checks.toml's commands run and trust them for this workspace",
    )
    q.add_argument(
        "names",
        metavar="NAME",
        nargs="*",
        help="these (ruff: the check and the formatter so named; checks.ruff: one) "
        "(default: every new one)",
    )
    q.add_argument("--yes", "-y", action="store_true", help="trust without asking")
    q.add_argument("--forget", action="store_true", help="withdraw the trust instead")
    q = actions.add_parser(
        "test",
        help="run one check or formatter on files as a session would after an edit "
        "(read-only; a formatter's diff is shown, nothing written)",
    )
    q.add_argument("name", metavar="NAME", help="ruff (the check and the formatter), checks.ruff")
    q.add_argument("files", metavar="FILE", nargs="*", help="the files an edit changed")
    _workspace_after_action(actions)  # `frontier checks list --workspace DIR` too


def _workspace_after_action(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``--workspace DIR`` after a command's action too, not only before it."""
    for action in actions.choices.values():
        action.add_argument(
            "--workspace",
            metavar="DIR",
            default=argparse.SUPPRESS,
            help="the workspace (default: the current directory)",
        )


def _export_command(p: argparse.ArgumentParser) -> None:
    p.add_argument("session_id", metavar="ID", nargs="?", help="the session id or a unique prefix")
    _last_flag(p)
    p.add_argument(
        "--format",
        choices=("jsonl", "markdown"),
        default="markdown",
        help="markdown (default, for reading) or jsonl (one record per line, for programs)",
    )
    p.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")


def _eval_command(p: argparse.ArgumentParser) -> None:
    _eval_options(p, top=True, only=EVAL_FRAMINGS + EVAL_COMMON)
    experiments = p.add_subparsers(dest="experiment", metavar="EXPERIMENT")
    q = experiments.add_parser(
        "framings",
        help="the same calls rendered in every framing and cut at the same relative points "
        "(the default)",
        description="Write one workload in every framing, cut each at the same relative "
        "points, and compare the calls ready to run at each cut, calls that changed after "
        "being ready (must be none), bytes held undecided, and the share of the work kept.",
        epilog=EVAL_EPILOG,
        formatter_class=_Formatter,
    )
    _eval_options(q, top=False, only=EVAL_FRAMINGS + EVAL_COMMON)
    q = experiments.add_parser(
        "counts",
        help="declared vs arrived bytes of every length-prefixed CTL argument in recordings "
        "or stored sessions",
        description="Every `arg <key> <nbytes>` the model wrote: the byte count it said vs "
        "the bytes it sent, how far off, and whether its next reply got it right.",
        epilog=EVAL_EPILOG,
        formatter_class=_Formatter,
    )
    q.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="recording files (one sequence, in the order given), session ids (every "
        "response) or SESSION#N",
    )
    _eval_options(q, top=False, only=EVAL_COMMON)


def _serve_command(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--port",
        type=int,
        default=8470,  # not textual-serve's 8000 nor 8080, which every dev server tries first
        metavar="N",
        help="port to listen on (default 8470; 0 picks a free one and prints it)",
    )
    p.add_argument(
        "--host",
        metavar="H",
        help="address to listen on (default 127.0.0.1); any other lets whoever reaches it "
        "drive the agent, so it warns",
    )
    p.add_argument(
        "--public-url",
        metavar="URL",
        help="the address browsers use, when it is not http://HOST:PORT (a proxy, or "
        "--host 0.0.0.0 reached by this machine's name)",
    )
    p.add_argument(
        "--max-sessions",
        type=int,
        default=4,
        metavar="N",
        help="browser sessions (processes) open at once (default 4)",
    )
    p.add_argument(
        "served",
        nargs="*",
        metavar="-- FRONTIER_ARGS",
        help="what to serve, after --: e.g. -- --base-url URL --model M, or -- demo --rate 30 "
        "(default: demo)",
    )


COMMANDS: dict[str, tuple[str, str | None, Callable[[argparse.ArgumentParser], None]]] = {
    "demo": (
        "the built-in scripted model in a scratch copy of a sample project (no network, no key)",
        None,
        _demo_command,
    ),
    "run": (
        "run one task headless: same loop, events as text or JSON lines, approvals by policy "
        "(`frontier PROMPT` is `frontier run PROMPT`)",
        RUN_EPILOG,
        _run_command,
    ),
    "replay": (
        "replay a recording, a capture or a stored session",
        None,
        _replay_command,
    ),
    "transduce": (
        "stdin bytes -> confirmed events, and the model's reasoning (a reply's leading "
        "<think> block too, as live), as JSON lines (debug a model's framing)",
        "exit status: with --summary, 1 when the input has contract errors (the "
        "summary counts them), else 0; the event stream exits 0 (its errors are records "
        "in the output); 2 usage error, or a native-mode input without an SSE data: line",
        _transduce_command,
    ),
    "check": (
        "verify S1–S3 at every byte prefix of recordings or stored sessions: no call runs "
        "incomplete (S1), changes once runnable (S2) or disappears (S3)",
        CHECK_PROPERTIES,
        _check_command,
    ),
    "import": (
        "turn a capture (raw SSE, raw HTTP, HAR, a JSON-lines chunk log) into a documented "
        "Frontier "
        "recording: provenance in the header, never a header value",
        None,
        _import_command,
    ),
    "apply-patch": (
        "apply a patch from stdin (a unified diff or a '*** Begin Patch' envelope, detected) "
        "with the agent's engine; exit 0 = applied or already applied, 1 = nothing written",
        None,
        _apply_patch_command,
    ),
    "sessions": (
        "list stored sessions, newest first, with their first prompt",
        None,
        _sessions_command,
    ),
    "resume": (
        "continue a stored session (the TUI unless --headless)",
        "`frontier -c` is `frontier resume --last`; `frontier -c PROMPT` continues it "
        "headless (`frontier run -c PROMPT`).",
        _resume_command,
    ),
    "undo": (
        "put back the files of a stored session's last change (or of CALL), only if each "
        "still has the content that change left; reviewed, recorded, atomic",
        UNDO_EPILOG,
        _undo_command,
    ),
    "rewind": (
        "take a stored session back to before one of your messages: the files its calls "
        "changed since (reviewed, undoable), the conversation, or both",
        REWIND_EPILOG,
        _rewind_command,
    ),
    "mcp": (
        "MCP servers as tools: list them with their tools, test one, trust a project's "
        "servers, always allow a tool",
        MCP_EPILOG,
        _mcp_command,
    ),
    "checks": (
        "after-edit checks and formatters: list them with where each comes from, trust a "
        "project's own (.frontier/checks.toml)",
        CHECKS_EPILOG,
        _checks_command,
    ),
    "doctor": (
        "what would stop a session here: the settings, the endpoint and the model (one "
        "short request and one tool call), the sandbox (used), the editor, call-backs, "
        "storage, the project's instructions and MCP servers; each with its fix",
        "exit status: 0 when nothing would stop a session (warnings included), 1 when a "
        "check failed. The flags are a session's: `frontier doctor --provider anthropic` "
        "checks that endpoint. --no-request sends nothing to the model (no tokens spent).",
        _doctor_command,
    ),
    "export": (
        "export a stored session",
        None,
        _export_command,
    ),
    "eval": (
        "compare ways of writing tool calls: how much of the work each keeps runnable when a "
        "reply is cut short (framings, the default), and how well models count bytes (counts)",
        EVAL_EPILOG,
        _eval_command,
    ),
    "serve": (
        "serve the TUI in a browser (textual-serve), on 127.0.0.1 only unless --host is "
        "given; `frontier demo` by default, or the frontier command after --",
        SERVE_EPILOG,
        _serve_command,
    ),
}


RUN_ONLY = frozenset({"-p", "--print", "--json", "--max-turns", "--session", "--prompt"})
"""``run``'s own flags: given without a command (``echo task | frontier -p``) they mean
``run``. ``-c`` is the top level's too: with a prompt it continues headless (``frontier
-c "go on"``), alone it opens the TUI."""

LAST_TAKERS = frozenset({"resume", "export", "undo", "rewind", "check", "replay"})
"""Commands that take ``--last``: the session of this workspace used last."""


def _subparsers(parser: argparse.ArgumentParser) -> Mapping[str, argparse.ArgumentParser]:
    """The commands' parsers by name (built when looked up: see ``_Parsers``)."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if isinstance(action, argparse._SubParsersAction):
            return action.choices  # type: ignore[return-value]
    return {}


def prompt_as_run(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str] | None:
    """``argv`` as a ``run`` command line when its first positional is a prompt rather
    than a command (``frontier "fix the bug" --approval auto-edit``), or when it has
    ``run``'s own flags and no command (``frontier -p < task.txt``); else ``None``.

    A first positional that names a command stays that command; a prompt that looks
    like one is given after ``--`` (``frontier -- "demo please"``) or to ``run``. Option
    values are skipped by asking the parsers which options take one, so
    ``frontier --model demo "hi"`` is the prompt ``hi``, not the demo."""
    commands = _subparsers(parser)
    given = list(argv)
    own = False
    i = 0
    while i < len(given):
        token = given[i]
        if token == "--":
            if i + 1 == len(given):
                return None
            return ["run", *given[:i], "--", *given[i + 1 :]]
        if token.startswith("-") and token != "-":
            name = token.split("=", 1)[0]
            action = parser._option_string_actions.get(name)
            if action is None:  # run's own flag (built only for an option the top lacks)
                action = commands["run"]._option_string_actions.get(name)
            own = own or name in RUN_ONLY
            if action is not None and action.nargs != 0 and "=" not in token:
                i += 1  # its value, whatever it looks like
            i += 1
            continue
        if token in commands:
            return None
        _refuse_a_typo(parser, token, commands)
        return ["run", *given[:i], *given[i + 1 :], "--", token]
    return ["run", *given] if own else None


def _refuse_a_typo(
    parser: argparse.ArgumentParser, token: str, commands: Mapping[str, object]
) -> None:
    """A one-word "prompt" that is nearly a command (``frontier sesions``) is a typo."""
    if any(c.isspace() for c in token):
        return
    import difflib

    close = difflib.get_close_matches(token, list(commands), n=1, cutoff=0.75)
    if close:
        parser.error(
            f"unknown command {token!r}; did you mean `frontier {close[0]}`? (to send it "
            f"to the model as a prompt: `frontier run {token}`)"
        )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse, then refuse an agent flag given before a command that would ignore it
    (``frontier --theme x run``): a flag that does nothing is an error, not a surprise.
    A prompt in place of a command is ``run`` (:func:`prompt_as_run`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(agent_options=not argv or argv[0] not in COMMANDS)
    argv = prompt_as_run(parser, argv) or argv
    args, extra = parser.parse_known_args(argv)
    if extra:
        _refuse_unknown(parser, args.command, extra)
    offered = OFFERED.get(args.command, frozenset())
    for dest in AGENT_OPTIONS:
        if dest not in offered and getattr(args, dest, None) is not None:
            if dest in SUBCOMMAND_OWN.get(args.command or "", frozenset()):
                continue  # e.g. transduce's own --protocol and --wire, not the agent flags
            parser.error(f"{_flag(dest)} does not apply to `frontier {args.command}`")
    if args.continue_last and args.command is not None:
        parser.error(
            f"-c/--continue before a command opens the TUI; `frontier {args.command}` "
            + (
                "takes it after the command (`frontier run -c PROMPT`)"
                if args.command == "run"
                else "takes --last after the command"
                if args.command in LAST_TAKERS
                else "takes no session (`frontier -c` alone is `frontier resume --last`)"
            )
        )
    return args


def _refuse_unknown(
    parser: argparse.ArgumentParser, command: str | None, extra: Sequence[str]
) -> None:
    """Unknown arguments, reported by the command they were given to; an agent flag the
    command does not take says so rather than "unrecognized"."""
    target = parser
    if command is not None:
        for action in parser._subparsers._group_actions if parser._subparsers else ():
            if isinstance(action, argparse._SubParsersAction):
                target = action.choices.get(command, parser)
    flags = {_flag(dest) for dest in AGENT_OPTIONS}
    for arg in extra:
        name = arg.split("=", 1)[0]
        if command is not None and name in flags:
            target.error(
                f"{name} does not apply to `frontier {command}` (`frontier {command} --help` "
                "lists what it takes)"
            )
    target.error(f"unrecognized arguments: {' '.join(extra)}")


_HANDLERS = {
    None: "tui_main",
    "demo": "demo",
    "run": "run",
    "replay": "replay",
    "transduce": "transduce",
    "check": "check",
    "import": "import_capture",
    "apply-patch": "apply_patch",
    "sessions": "sessions",
    "resume": "resume",
    "export": "export",
    "doctor": "doctor",
    "mcp": "mcp",
    "checks": "checks",
    "undo": "undo",
    "rewind": "rewind",
    "eval": "eval",
    "serve": "serve",
}


def main(argv: Sequence[str] | None = None) -> int:
    from frontier.app.std_streams import reopen_closed, replace_unencodable

    reopen_closed()  # a stream closed by the caller: /dev/null, not a traceback
    replace_unencodable()  # an ASCII or Latin-1 stdout: ? for ✗, not a traceback
    args = parse_args(argv)
    from frontier.app import pathlib_lean  # every command uses pathlib, none urllib

    pathlib_lean.load()
    module = importlib.import_module(f"frontier.app.commands.{_HANDLERS[args.command]}")
    try:
        return int(module.main(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except FileNotFoundError:
        from frontier.app import working_dir

        if not working_dir.gone():
            raise
        print(f"frontier: {working_dir.GONE}", file=sys.stderr)  # paths relative to it failed
        return 2
    except BrokenPipeError:
        # The reader went away (`frontier ... | head`): stop quietly, like other CLIs.
        from frontier.app.std_streams import silence

        silence(sys.stdout.fileno())
        return 141


def entry() -> int:
    """The ``frontier`` console script: :func:`main`, then an exit that skips the
    interpreter's last garbage collection.

    At exit CPython collects every object once more (~2.5 ms here, more after a session's
    worth of objects: issue 24) only to free memory the process is about to give back
    whole. ``gc.freeze()`` moves what is alive out of the collector's sight, so that pass
    has nothing to walk; objects are still released as the modules are torn down, and
    every ``atexit`` handler and ``finally`` still runs. Not in :func:`main`, which tests
    and other code call in a process that goes on."""
    try:
        return main()
    finally:
        import gc

        gc.freeze()


if __name__ == "__main__":
    sys.exit(entry())
