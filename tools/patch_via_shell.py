"""A patch a model ran as a shell command: ``apply_patch <<'EOF' … EOF``.

Codex's models were trained where ``apply_patch`` is also a command: they call ``shell``
with ``["apply_patch", PATCH]``, or ``bash -lc "apply_patch <<'EOF'\\n*** Begin Patch…"``.
Elsewhere that is "command not found", again and again (openai/codex#2235; a
"Patch-22" shim exists only to put an ``apply_patch`` on the PATH). Such a call is the
patch tool's call: read here, and made one in the agent loop, so it is reviewed as a
diff, applied atomically, undone like any edit, and the model is shown its call as
``apply_patch``. Only an invocation that is nothing else (no ``cd dir &&`` before it,
no command after it) counts; anything else runs as the command it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from frontier.tools.paths import PathError, resolve

NAMES = ("apply_patch", "applypatch")
SHELLS = ("bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/bin/zsh")
_HEAD = re.compile(
    r"(?:apply_patch|applypatch)[ \t]*<<(-?)[ \t]*(['\"]?)([A-Za-z_]\w{0,63})\2[ \t]*"
)
"""The invocation's line: ``apply_patch <<'EOF'`` (the delimiter quoted or not)."""


def patch_in_command(command: object) -> str | None:
    """The patch ``command`` (``shell``'s argument: a line, or an argv) applies with an
    ``apply_patch`` invocation and nothing else, or ``None``."""
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 2 and command[0] in NAMES:
            return _patch(command[1])
        if len(command) == 3 and command[0] in SHELLS and command[1] in ("-lc", "-c"):
            return _script(command[2])
        return None
    return _script(command) if isinstance(command, str) else None


HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
WORKDIR = ("workdir", "cwd", "dir", "directory")
"""``shell``'s folder to run in, under each name it is sent (``arg_aliases.SHELL``)."""


def rebased(patch: str, args: Mapping[str, object], root: str | None) -> str | None:
    """``patch`` as the workspace root reads it when the call ran it in a ``workdir``
    (Codex's models send one with every call, most often the root's own absolute path):
    each file's path with the folder before it; ``None`` when the folder is not one of
    the workspace's (``root`` unknown, outside it): the call stays a command."""
    folder = next((args[k] for k in WORKDIR if k in args), None)
    if folder is None or (isinstance(folder, str) and not folder.strip()):
        return patch
    if not isinstance(folder, str) or root is None:
        return None
    try:
        rel = resolve(root, folder.strip()).rel
    except PathError:
        return None  # outside the workspace: the call stays a command (and fails so)
    if rel in ("", "."):
        return patch
    lines = []
    for line in patch.split("\n"):
        for head in HEADERS:
            if line.startswith(head) and not line[len(head) :].startswith("/"):
                line = f"{head}{rel}/{line[len(head) :].lstrip()}"
                break
        lines.append(line)
    return "\n".join(lines)


def _script(script: str) -> str | None:
    """The heredoc's body when ``script`` is the invocation's line, the body, and its
    delimiter's line, and nothing else (found by lines: linear whatever the script)."""
    script = script.strip()
    first, _, rest = script.partition("\n")
    head = _HEAD.fullmatch(first.strip())
    if head is None:
        return None
    body, _, last = rest.rpartition("\n")
    delimiter = head.group(3)
    if last.strip() != delimiter:
        return None
    lines = body.split("\n")
    if any(line.strip() == delimiter for line in lines):
        return None  # bash would end the heredoc there and run what follows: a command
    if head.group(1):  # <<- : bash strips the body's leading tabs
        body = "\n".join(line.lstrip("\t") for line in lines)
    return _patch(body + "\n")


def _patch(text: str) -> str | None:
    return text if text.lstrip().startswith("*** Begin Patch") else None
