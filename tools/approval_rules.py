"""Always-allow rules: approvals a person gave once that stand for later calls.

A review offers two kinds (DESIGN §5, issue 14), and the person chooses whether
a rule lasts for the session or is also remembered for the workspace:

``CommandRule``  a ``shell`` (or ``python``) call whose command is *exactly* this
                 text (leading and trailing whitespace aside). Allowing ``git
                 status`` never allows ``git status; rm -rf /``, ``git status &&
                 x`` or ``git status $(x)``: those are different strings.
                 ``prefix=True`` is the one looser form, written by hand in the
                 approvals file (``command_prefixes``): ``pytest`` then also
                 matches ``pytest -q tests/test_x.py``, but only when everything
                 after the prefix is plain words — letters, digits and ``_ . / =
                 : , + @ % -`` — so no ``;``, ``&``, ``|``, redirection, ``$``,
                 backquote, quote, glob, brace, ``~`` or newline can smuggle a
                 second command or an expansion in, and no word names a path
                 outside the workspace (absolute, ``~`` or with a ``..`` part).
``ToolRule``     an MCP server's tool by its full name (``srv__search``), or every
                 tool of one server (``srv__*``, written by hand): the person chose
                 to trust what that server does with those calls (issue 26).
``EditRule``     a file mutation whose every touched path (each file, both ends
                 of a move) lies beneath this workspace folder — resolved beneath
                 the root now, links inside the workspace followed, so a link
                 pointing elsewhere is judged by where it points. ``""`` is the
                 whole workspace. Nothing inside a ``.git`` folder is ever allowed
                 by a rule (hooks there run on the next ``git commit``).

Nothing outside the workspace can be auto-approved: a folder rule is stored
relative to the root and refused when it leaves it; file paths that do not
resolve beneath the root match no rule. Rules never override ``read-only``.

Pure logic on the call contract's types, no I/O but path resolution; the
approvals file is read and written by ``frontier.app.config``.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from frontier.app.events import ToolCall
from frontier.app.record import record
from frontier.tools.beneath import PathError, resolve_rel
from frontier.tools.contract import (
    MCP_SEPARATOR,
    MCP_SERVER_NAME,
    MCP_TOOL_NAME,
    Preview,
    ToolSpec,
)

COMMAND_TOOLS = ("shell", "python")
"""Tools whose command text a ``CommandRule`` can name (``prefix`` only for ``shell``)."""
PLAIN_WORD = re.compile(r"[A-Za-z0-9_./=:,+@%-]+")
"""One argument a prefix rule lets through: nothing a shell would expand or split on."""
PROTECTED_PARTS = frozenset({".git"})
"""Path components no edit rule covers (a hook written there runs on the next commit)."""


class RuleError(ValueError):
    """A rule that cannot be kept: a folder outside the workspace, an unsafe prefix."""


@record
class CommandRule:
    """``tool`` calls whose command is exactly ``command`` (or starts with it, ``prefix``)."""

    tool: str
    command: str
    prefix: bool = False

    def describe(self) -> str:
        shown = self.command if len(self.command) <= 60 else self.command[:59] + "…"
        what = "python code" if self.tool == "python" else "the command"
        if self.prefix:
            return f"commands starting `{shown}` (plain arguments)"
        return f"{what} `{shown}`"


@record
class EditRule:
    """File edits beneath ``folder`` (workspace-relative, POSIX; ``""`` = everywhere)."""

    folder: str

    def describe(self) -> str:
        return f"edits under {self.folder}/" if self.folder else "edits anywhere in the workspace"


@record
class ToolRule:
    """Calls of the MCP tool ``name`` (``srv__tool``), or of any tool of a server
    (``srv__*``)."""

    name: str

    def describe(self) -> str:
        if self.name.endswith(SERVER_WILDCARD):
            return f"every tool of MCP server {self.name[: -len(SERVER_WILDCARD)]}"
        return f"MCP tool {self.name}"

    def matches(self, tool: str) -> bool:
        if self.name.endswith(SERVER_WILDCARD):
            return tool.startswith(self.name[:-1])
        return tool == self.name


SERVER_WILDCARD = MCP_SEPARATOR + "*"
RULE_TOOL_NAME = re.compile(f"{MCP_SERVER_NAME}{MCP_SEPARATOR}(\\*|{MCP_TOOL_NAME})")
"""What a ``ToolRule`` may name: ``server__tool`` or ``server__*``."""

Rule = CommandRule | EditRule | ToolRule


# --------------------------------------------------------------------- making rules


def clean_folder(root: str | os.PathLike[str], folder: str) -> str:
    """``folder`` as a rule stores it: relative to the real root, POSIX, ``""`` for the
    root itself. Raises :class:`RuleError` when it leaves the workspace or is protected."""
    text = folder.strip()
    if not text or text in (".", "./"):
        return ""
    try:
        rel = resolve_rel(root, text)
    except PathError as exc:
        raise RuleError(f"folder {folder!r} is not inside the workspace: {exc}") from None
    rel = "" if rel == "." else rel.strip("/")
    if PROTECTED_PARTS & set(rel.split("/")):
        raise RuleError(f"folder {folder!r} is inside .git: edits there always ask")
    return rel


def command_rule(tool: str, command: str, *, prefix: bool = False) -> CommandRule:
    """A checked ``CommandRule``; raises :class:`RuleError` for what it cannot express."""
    if tool not in COMMAND_TOOLS:
        raise RuleError(
            f"tool {tool!r} has no command to allow; choose {' or '.join(COMMAND_TOOLS)}"
        )
    text = command.strip()
    if not text:
        raise RuleError("an empty command cannot be allowed")
    if prefix:
        if tool != "shell":
            raise RuleError("a prefix rule is for shell commands only")
        if not _plain_words(text):
            raise RuleError(
                f"prefix {text!r} must be plain words (letters, digits, _ . / = : , + @ % -), "
                "with no path outside the workspace"
            )
    return CommandRule(tool, text, prefix)


def tool_rule(name: str) -> ToolRule:
    """A checked ``ToolRule``; raises :class:`RuleError` for a name no MCP tool can have."""
    text = name.strip()
    if not RULE_TOOL_NAME.fullmatch(text):
        raise RuleError(f"{text!r} is not an MCP tool (server__tool) or server (server__*)")
    return ToolRule(text)


def offer(call: ToolCall, spec: ToolSpec | None, preview: Preview) -> Rule | None:
    """The rule a review offers for this call, or ``None`` when none fits.

    An MCP server's tool: that tool. A command: exactly its text. An edit: the deepest
    folder holding every path it touches (``""`` when they only share the root). Nothing
    is offered for a path that is absolute, climbs with ``..`` or lies inside ``.git``.
    """
    if spec is not None and spec.source == "mcp":
        try:
            return tool_rule(call.name)
        except RuleError:
            return None
    if preview.kind == "command" and preview.command and call.name in COMMAND_TOOLS:
        try:
            return command_rule(call.name, preview.command)
        except RuleError:
            return None
    if preview.kind != "diff" or not preview.files:
        return None
    if spec is not None and (spec.kind != "edit" or spec.internal):
        return None
    folders: list[list[str]] = []
    for path in touched_paths(preview):
        parts = _relative_parts(path)
        if parts is None:
            return None
        folders.append(parts[:-1])
    common = folders[0]
    for parts in folders[1:]:
        n = 0
        while n < min(len(common), len(parts)) and common[n] == parts[n]:
            n += 1
        common = common[:n]
    return EditRule("/".join(common))


def touched_paths(preview: Preview) -> list[str]:
    """Every workspace path a diff preview writes, creates, deletes or moves."""
    paths: list[str] = []
    for file in preview.files:
        for path in (file.path, file.moved_from, file.moved_to):
            if path is not None and path not in paths:
                paths.append(path)
    return paths


# --------------------------------------------------------------------- matching


def command_matches(rule: CommandRule, tool: str, command: str) -> bool:
    """Whether ``rule`` covers ``tool`` running ``command`` (see the module doc)."""
    if rule.tool != tool:
        return False
    text = command.strip()
    if text == rule.command:
        return True
    if not rule.prefix or not text.startswith(rule.command + " "):
        return False
    return _plain_words(text)


def edit_matches(rule: EditRule, root: str | os.PathLike[str], preview: Preview) -> bool:
    """Whether every path ``preview`` touches lies beneath ``rule.folder`` (resolved now)."""
    paths = touched_paths(preview)
    if preview.kind != "diff" or not paths:
        return False
    try:
        folder = resolve_rel(root, rule.folder) if rule.folder else "."
    except PathError:
        return False
    folder = "" if folder == "." else folder
    for path in paths:
        if _relative_parts(path) is None:
            return False
        try:
            real = resolve_rel(root, path)
        except PathError:
            return False
        parts = real.split("/")
        if PROTECTED_PARTS & set(parts):
            return False
        if folder and not (real == folder or real.startswith(folder + "/")):
            return False
    return True


def _relative_parts(path: str) -> list[str] | None:
    """``path``'s components when it is relative, stays inside and avoids ``.git``."""
    if not path or path.startswith(("/", "~")) or "\\" in path or "\x00" in path:
        return None
    norm = posixpath.normpath(path)
    parts = norm.split("/")
    if norm in (".", "") or ".." in parts or PROTECTED_PARTS & set(parts):
        return None
    return parts


def _plain_words(text: str) -> bool:
    """Every space-separated word is plain (``PLAIN_WORD``) and names no outside path."""
    words = text.split(" ")
    for word in words:
        if not word:
            continue  # runs of spaces split nothing further
        if not PLAIN_WORD.fullmatch(word):
            return False
        for piece in word.split("="):  # --rootdir=/etc is a path too
            if piece.startswith("/") or ".." in piece.split("/"):
                return False
    return True


# --------------------------------------------------------------------- the set of rules


@record
class AllowedRule:
    """A rule in force and whether it is remembered in the workspace's approvals file."""

    rule: Rule
    remembered: bool


class ApprovalRules:
    """The rules of one session's workspace: matched by the policy, changed by the person."""

    def __init__(self, root: str | os.PathLike[str], rules: Iterable[AllowedRule] = ()) -> None:
        self.root = Path(root)
        self._rules: dict[Rule, bool] = {}
        for allowed in rules:
            self._rules[allowed.rule] = allowed.remembered

    def __iter__(self) -> Iterator[AllowedRule]:
        return (AllowedRule(rule, kept) for rule, kept in self._rules.items())

    def __len__(self) -> int:
        return len(self._rules)

    def __contains__(self, rule: object) -> bool:
        return rule in self._rules

    def add(self, rule: Rule, *, remember: bool = False) -> Rule:
        """Allow ``rule`` (checked and normalised first); returns the rule as kept."""
        if isinstance(rule, EditRule):
            rule = EditRule(clean_folder(self.root, rule.folder))
        elif isinstance(rule, ToolRule):
            rule = tool_rule(rule.name)
        else:
            rule = command_rule(rule.tool, rule.command, prefix=rule.prefix)
        self._rules[rule] = self._rules.get(rule, False) or remember
        return rule

    def remove(self, rule: Rule) -> bool:
        """Revoke ``rule``; False when it was not in force."""
        return self._rules.pop(rule, None) is not None

    def remembered(self) -> list[Rule]:
        return [rule for rule, kept in self._rules.items() if kept]

    def match(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Rule | None:
        """The first rule that allows this call, or ``None``."""
        for rule in self._rules:
            if isinstance(rule, ToolRule):
                if spec.source == "mcp" and rule.matches(call.name):
                    return rule
            elif isinstance(rule, CommandRule):
                command = preview.command if preview.kind == "command" else None
                if command is not None and command_matches(rule, call.name, command):
                    return rule
            elif spec.kind == "edit" and edit_matches(rule, self.root, preview):
                return rule
        return None


# --------------------------------------------------------------------- the file's data

RULE_KEYS = ("commands", "command_prefixes", "python", "edits", "mcp_tools")
"""What a workspace's entry in the approvals file holds (lists of strings)."""


def rules_to_data(rules: Sequence[Rule]) -> dict[str, list[str]]:
    """The approvals file's lists for one workspace (``RULE_KEYS``)."""
    data: dict[str, list[str]] = {key: [] for key in RULE_KEYS}
    for rule in rules:
        if isinstance(rule, EditRule):
            data["edits"].append(rule.folder or ".")
        elif isinstance(rule, ToolRule):
            data["mcp_tools"].append(rule.name)
        elif rule.tool == "python":
            data["python"].append(rule.command)
        else:
            data["command_prefixes" if rule.prefix else "commands"].append(rule.command)
    return data


def rules_from_data(
    root: str | os.PathLike[str], data: Mapping[str, Any]
) -> tuple[list[Rule], list[str]]:
    """The rules a workspace's entry holds, and a note for each one refused (a folder
    outside the workspace, an unsafe prefix, a value that is not a string)."""
    rules: list[Rule] = []
    notes: list[str] = []
    for key in RULE_KEYS:
        values = data.get(key, [])
        if not isinstance(values, list):
            notes.append(f"{key} must be a list of strings; ignored")
            continue
        for value in values:
            if not isinstance(value, str):
                notes.append(f"{key}: {value!r} is not a string; ignored")
                continue
            try:
                if key == "edits":
                    rules.append(EditRule(clean_folder(root, value)))
                elif key == "mcp_tools":
                    rules.append(tool_rule(value))
                else:
                    tool = "python" if key == "python" else "shell"
                    rules.append(command_rule(tool, value, prefix=key == "command_prefixes"))
            except RuleError as exc:
                notes.append(f"{key}: {exc}; ignored")
    return rules, notes
