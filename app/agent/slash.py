"""Slash commands: the vocabulary, parsing ``/name args``, custom commands, templates.

Typed in a front end's message box, ``/name args`` is an operation on the session
(``/model``, ``/clear``…), never text for the model — unless the command is a *prompt
template* (``/init``, or a custom command from a file), whose expanded text is sent as
the user's message. This module is the one place that says which commands exist, what
each takes and means (the menu, ``/help`` and the help screen read it), how a typed
line is read (:func:`resolve`) and how custom commands are found (:func:`load_commands`).
It knows no front end: what a command *does* in the TUI lives in
``app/frontends/tui/slash_actions.py``.

Reading a line (docs/slash-commands.md):

- ``/name [args]`` where ``name`` is a command: that command;
- ``/name`` where ``name`` looks like a command name but none exists: refused
  ("unknown command /name — /help lists them"), so a mistyped ``/hepl`` never reaches
  the model;
- ``/usr/bin is odd``, ``/tmp/x.py``: the first word is path-like (another ``/``, a
  ``.``, or characters no name may have), so the line is an ordinary message;
- ``//text``: sends ``/text`` literally (the escape for anything else).

Custom commands are Markdown files ``NAME.md`` in ``.frontier/commands/`` of the
workspace (*project*) and ``<config dir>/commands/`` (*user*). They come from a
repository that may be hostile, so a file is read only when it is a regular file
(no symlink, FIFO or device) inside the workspace, at most :data:`MAX_TEMPLATE_BYTES`,
valid UTF-8, with a name of :data:`NAME_PATTERN`; anything else is skipped with a note
that says why. A custom command can never replace a built-in.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from frontier.app.record import field, record

NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
"""What a command name may be: also the file name (without ``.md``) of a custom one."""
MAX_TEMPLATE_BYTES = 32 * 1024
"""A custom command's file larger than this is skipped (a prompt, not a corpus)."""
MAX_COMMAND_FILES = 200
"""Files looked at per folder: a folder of thousands never stalls the menu."""
MAX_HELP = 100
"""Characters of a custom command's one-line help."""
_TYPED_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
"""A typed first word that reads as a command name (any case)."""
ARGUMENTS = "$ARGUMENTS"
"""Replaced by what follows the name in a template."""
PROJECT_DIR = Path(".frontier") / "commands"

Source = Literal["built in", "project", "user"]


@record
class SlashCommand:
    """One command as the menu lists it and the dispatcher runs it."""

    name: str
    help: str
    """One line: what it does."""
    args: str = ""
    """The argument hint (``[NAME] [--provider P]``); empty: takes none."""
    source: Source = "built in"
    template: str | None = None
    """A prompt template's body (``None``: an operation, handled by the front end)."""
    path: Path | None = None
    """The file a custom command came from."""

    @property
    def is_template(self) -> bool:
        return self.template is not None

    @property
    def needs_argument(self) -> bool:
        """Enter in the menu completes ``/name `` instead of running it: a custom
        template that uses ``$ARGUMENTS`` would run with a hole in it. A built-in's
        arguments are all optional, ``/init``'s notes too (its template reads well
        without them), so a built-in runs on the first Enter."""
        return (
            self.source != "built in" and self.template is not None and ARGUMENTS in self.template
        )

    @property
    def label(self) -> str:
        """``/name`` with its argument hint, as the menu and /help show it."""
        return f"/{self.name} {self.args}".rstrip()


INIT_TEMPLATE = """\
Draft an AGENTS.md for this workspace: the instructions a coding agent (you, next time) \
needs before working here. Look around first — the README, the build and test \
configuration, the layout of the source and tests — and read what is there rather than \
guessing. Then write AGENTS.md at the workspace root (if one exists, improve it and keep \
what is still true) with short sections:
- what the project is, in two sentences;
- how to set it up, build, run the tests (the exact commands) and lint;
- the layout: where the code, tests and docs live;
- conventions a change must follow (style, naming, error handling, commit habits);
- anything surprising a newcomer would get wrong.
Keep it under 150 lines, concrete, no filler. $ARGUMENTS"""
"""``/init``: the file is written with a tool call, so it is reviewed like any write."""

BUILTINS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "list the slash commands and the keys"),
    SlashCommand(
        "model",
        "show the model, provider and wire; with NAME switch from the next request",
        "[NAME] [--provider P]",
    ),
    SlashCommand(
        "mode", "show the protocol mode; with NAME switch from the next request", "[NAME]"
    ),
    SlashCommand("approval", "show the approval policy; with POLICY switch to it", "[POLICY]"),
    SlashCommand(
        "effort",
        "show how hard the model is asked to think; with LEVEL ask that from the next request",
        "[auto|low|medium|high]",
    ),
    SlashCommand(
        "sandbox",
        "show where commands run (and how to change it)",
        "[workspace-write|read-only|off]",
    ),
    SlashCommand(
        "mcp",
        "the MCP servers: state, tools and logs; `trust` the project's waiting ones",
        "[trust]",
    ),
    SlashCommand(
        "status", "the session at a glance: model, wire, policies, context, tokens, servers"
    ),
    SlashCommand("context", "what fills the model's context window, part by part"),
    SlashCommand(
        "doctor",
        "check the setup: endpoint, key, model, a tool call, sandbox, editor…",
        "[--no-request]",
    ),
    SlashCommand("compact", "compact the model's context now (summarise older rounds)"),
    SlashCommand("clear", "new context, same session: the model forgets the conversation"),
    SlashCommand("new", "start a new session in this workspace"),
    SlashCommand(
        "resume", "open a stored session in place of this one (a picker, or the ID's)", "[ID]"
    ),
    SlashCommand(
        "memory",
        "edit the project's instructions (AGENTS.md) in your editor; the model reads them next",
    ),
    SlashCommand(
        "init",
        "ask the model to draft an AGENTS.md here (reviewed)",
        "[NOTES]",
        template=INIT_TEMPLATE,
    ),
    SlashCommand("diff", "everything this session changed in the workspace, as one diff"),
    SlashCommand("undo", "put back the files of the last change (or of CALL)", "[CALL]"),
    SlashCommand(
        "rewind", "back to before one of your messages: its files, the conversation, or both"
    ),
    SlashCommand(
        "jobs",
        "the background jobs the model started; show one's output, stop one (or all)",
        "[show ID|stop ID|stop all]",
    ),
    SlashCommand(
        "checks",
        "the after-edit checks and formatters; pause them, run them again, trust the project's",
        "[off|on|trust]",
    ),
    SlashCommand("export", "write the session as Markdown into the current directory"),
    SlashCommand("exit", "quit (the session is kept: frontier -c continues it)"),
)
BUILTIN_NAMES = frozenset(c.name for c in BUILTINS)
assert all(NAME_PATTERN.fullmatch(name) for name in BUILTIN_NAMES)


# --------------------------------------------------------------------------- reading a line


@record
class Message:
    """Not a command: send ``text`` to the model as typed (``//x`` already made ``/x``)."""

    text: str
    kind: Literal["message"] = "message"


@record
class Invocation:
    """``/name args`` naming ``command``; a template's ``text`` is its expansion."""

    command: SlashCommand
    arguments: str
    text: str | None = None
    """What is sent for a prompt template (``None`` for an operation)."""
    kind: Literal["command"] = "command"


@record
class Unknown:
    """``/name`` that looks like a command but none has that name: refused, never sent."""

    name: str
    kind: Literal["unknown"] = "unknown"

    @property
    def message(self) -> str:
        return f"unknown command /{self.name} — /help lists them"


Resolution = Message | Invocation | Unknown


def split_command(text: str) -> tuple[str, str] | None:
    """``(name, arguments)`` when ``text`` is ``/name`` + optional whitespace and
    arguments with a well-formed ``name``; ``None`` when it is not command-shaped."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, rest = text[1:].partition("\n")
    word, _, args = head.partition(" ")
    word = word.strip()
    if "\t" in word:
        word, _, more = word.partition("\t")
        args = f"{more} {args}"
    if not _TYPED_NAME.fullmatch(word):
        return None
    word = word.lower()  # `/Help` is `/help`
    arguments = args.strip() if not rest else f"{args.strip()}\n{rest}".strip()
    return word, arguments


def resolve(text: str, commands: Sequence[SlashCommand]) -> Resolution:
    """How a submitted line is read (see the module doc)."""
    if text.startswith("//"):
        return Message(text[1:])
    parts = split_command(text)
    if parts is None:
        return Message(text)
    name, arguments = parts
    command = next((c for c in commands if c.name == name), None)
    if command is None:
        return Unknown(name)
    if command.template is not None:
        return Invocation(command, arguments, expand(command.template, arguments))
    return Invocation(command, arguments)


def expand(template: str, arguments: str) -> str:
    """``template`` with ``$ARGUMENTS`` replaced by ``arguments``; a template without the
    placeholder gets non-empty arguments appended as a paragraph (nothing typed is lost)."""
    if ARGUMENTS in template:
        return template.replace(ARGUMENTS, arguments).strip()
    return f"{template.strip()}\n\n{arguments}".strip() if arguments else template.strip()


def matching(commands: Iterable[SlashCommand], query: str) -> list[SlashCommand]:
    """The menu for ``/query``: names starting with it first, then names containing it
    (each group in the order given)."""
    q = query.casefold()
    listed = list(commands)
    first = [c for c in listed if c.name.startswith(q)]
    then = [c for c in listed if q in c.name and not c.name.startswith(q)]
    return first + then


# --------------------------------------------------------------------------- custom commands


@record
class Commands:
    """Every command a session offers, and what loading the custom ones skipped."""

    commands: tuple[SlashCommand, ...] = BUILTINS
    problems: tuple[str, ...] = ()

    def named(self, name: str) -> SlashCommand | None:
        return next((c for c in self.commands if c.name == name), None)


@record(frozen=False)
class _Loader:
    found: dict[str, SlashCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def folder(self, folder: Path, source: Source, inside: Path | None) -> None:
        try:
            if inside is not None and not _beneath(folder, inside):
                self.problems.append(f"{folder}: not inside the workspace (a symlink?); skipped")
                return
            if not folder.is_dir():
                return
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            self.problems.append(f"{folder}: cannot be read ({exc.strerror or exc}); skipped")
            return
        files = [e for e in entries if e.name.endswith(".md")]
        if len(files) > MAX_COMMAND_FILES:
            self.problems.append(
                f"{folder}: {len(files)} command files; only the first {MAX_COMMAND_FILES} read"
            )
        for entry in files[:MAX_COMMAND_FILES]:
            self.file(Path(entry.path), entry.name[: -len(".md")], source)

    def file(self, path: Path, name: str, source: Source) -> None:
        where = f"{source} command {path.name!r}"
        if not NAME_PATTERN.fullmatch(name):
            self.problems.append(
                f"{where} skipped: a name is 1–32 of a-z 0-9 _ - (starting with a letter or digit)"
            )
            return
        if name in BUILTIN_NAMES:
            self.problems.append(f"{where} skipped: /{name} is built in and cannot be replaced")
            return
        if name in self.found:  # the project's was read first and wins
            self.problems.append(f"{where} skipped: the project's /{name} is used instead")
            return
        try:
            body = read_template(path)
        except ValueError as exc:
            self.problems.append(f"{where} skipped: {exc}")
            return
        help_text, template = parse_template(body)
        self.found[name] = SlashCommand(
            name,
            help_text or f"prompt template from {source} commands",
            "[ARGUMENTS]" if ARGUMENTS in template else "",
            source=source,
            template=template,
            path=path,
        )


def _beneath(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        return False
    return True


def read_template(path: Path) -> str:
    """A command file's text: a regular file (never through a symlink, never a FIFO that
    would block), at most :data:`MAX_TEMPLATE_BYTES`, UTF-8. ``ValueError`` says why not."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if path.is_symlink():
            raise ValueError(
                "it is a symlink (command files are read only as regular files)"
            ) from None
        raise ValueError(f"cannot be read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > MAX_TEMPLATE_BYTES:
            raise ValueError(
                f"{info.st_size:,} bytes, over the {MAX_TEMPLATE_BYTES // 1024} KiB "
                "a command may have"
            )
        data = handle.read(MAX_TEMPLATE_BYTES + 1)
    if len(data) > MAX_TEMPLATE_BYTES:
        raise ValueError(f"over the {MAX_TEMPLATE_BYTES // 1024} KiB a command may have")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None


def parse_template(text: str) -> tuple[str, str]:
    """``(help, template)``: the help from front matter's ``description:`` (the block
    between two ``---`` lines, removed from the template), else from the first line
    when it is a Markdown heading or an HTML-style comment (kept in the template)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    help_text = ""
    if text.startswith("---\n"):
        end = text.find("\n---", 3)
        if end != -1:
            header, text = text[4:end], text[end + 4 :].lstrip("\n")
            for line in header.splitlines():
                key, sep, value = line.partition(":")
                if sep and key.strip().lower() == "description":
                    help_text = value.strip().strip("\"'")
    if not help_text:
        first = text.lstrip("\n").split("\n", 1)[0].strip()
        if first.startswith("#"):
            help_text = first.lstrip("#").strip()
        elif first.startswith("<!--") and first.endswith("-->"):
            help_text = first[4:-3].strip()
    return _one_line(help_text), text.strip()


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_HELP else flat[: MAX_HELP - 1] + "…"


def load_commands(workspace: Path | None, config: Path | None) -> Commands:
    """The built-ins, then the workspace's ``.frontier/commands/*.md`` (*project*), then
    ``<config>/commands/*.md`` (*user*). Reads files: a front end calls it off its loop."""
    loader = _Loader()
    if workspace is not None:
        loader.folder(workspace / PROJECT_DIR, "project", workspace)
    if config is not None:
        loader.folder(config / "commands", "user", None)
    custom = sorted(loader.found.values(), key=lambda c: c.name)
    return Commands((*BUILTINS, *custom), tuple(loader.problems))


__all__ = [
    "ARGUMENTS",
    "BUILTINS",
    "BUILTIN_NAMES",
    "INIT_TEMPLATE",
    "MAX_TEMPLATE_BYTES",
    "NAME_PATTERN",
    "Commands",
    "Invocation",
    "Message",
    "Resolution",
    "SlashCommand",
    "Unknown",
    "expand",
    "load_commands",
    "matching",
    "parse_template",
    "read_template",
    "resolve",
    "split_command",
]
