"""A patch a model ran as a shell command: ``apply_patch <<'EOF' … EOF``.

Codex's models were trained where ``apply_patch`` is also a command: they call ``shell``
with ``["apply_patch", PATCH]``, or ``bash -lc "apply_patch <<'EOF'\\n*** Begin Patch…"``.
Elsewhere that is "command not found", again and again (openai/codex#2235; a
"Patch-22" shim exists only to put an ``apply_patch`` on the PATH). Such a call is the
patch tool's call: read here, and made one in the agent loop, so it is reviewed as a
diff, applied atomically, undone like any edit, and the model is shown its call as
``apply_patch``. Only an invocation that is nothing else counts (but for a ``cd dir &&``
before it, which Codex's models write and Codex reads: its files are then that folder's);
anything else, a command after it, runs as the command it is.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping
from operator import ne

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
    found = patch_and_folder(command)
    return None if found is None else found[0]


def patch_and_folder(command: object) -> tuple[str, str] | None:
    """:func:`patch_in_command`'s patch and the folder a ``cd dir &&`` before the
    invocation went to (``""``: none), or ``None``."""
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 2 and command[0] in NAMES:
            patch = _patch(command[1])
            return None if patch is None else (patch, "")
        if len(command) == 3 and command[0] in SHELLS and command[1] in ("-lc", "-c"):
            return _script(command[2])
        return None
    return _script(command) if isinstance(command, str) else None


HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
WORKDIR = ("workdir", "cwd", "dir", "directory")
"""``shell``'s folder to run in, under each name it is sent (``arg_aliases.SHELL``)."""


def rebased(patch: str, args: Mapping[str, object], root: str | None, cd: str = "") -> str | None:
    """``patch`` as the workspace root reads it when the call ran it in a ``workdir``
    (Codex's models send one with every call, most often the root's own absolute path),
    and in the folder ``cd`` went to from there: each file's path with the folder before
    it; ``None`` when the folder is not one of the workspace's (``root`` unknown, outside
    it): the call stays a command."""
    folder = next((args[k] for k in WORKDIR if k in args), None)
    if folder is None or (isinstance(folder, str) and not folder.strip()):
        folder = ""
    if not isinstance(folder, str):
        return None
    folder = folder.strip()
    if cd and ".." in cd.split("/"):
        if root is None:
            return None
        logical = went_to(root, folder, cd)
        if logical is None:
            return None  # bash's cd fails there: nothing after it runs
        folder = logical
    elif cd:
        folder = cd if cd.startswith("/") or not folder else f"{folder.rstrip('/')}/{cd}"
    if not folder:
        return patch
    if root is None:
        return None
    try:
        rel = resolve(root, folder).rel
    except (OSError, PathError):  # outside the workspace, or the workspace itself gone:
        return None  # the call stays a command (and fails so)
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


HEADER_SAFE = re.compile(r"[^\s'\"\\]+")
"""A path a git header carries as it is."""
MAX_CHANGED = 400
"""The most lines (removed + added, over its files) a patch read from a command's result
(``sed -i``, ``git checkout --``) may change, and
:data:`MAX_PATCH` its most bytes: the patch is the model's call in every later request,
where its command was a line (``sed -i 's/ = / := /'`` over 50,000 lines would be 2 MB of
context, and 90 ms of diffing before the call starts). A larger edit stays a command."""
MAX_PATCH = 64 * 1024
MAX_FILES = 100
"""The most files one such call may change (a glob over more: a command)."""


def writes_exactly(root: str, patch: str, expected: Mapping[str, bytes | None]) -> bool:
    """Whether the patch engine, planning ``patch`` in ``root`` now, writes exactly
    ``expected`` (workspace path → bytes, ``None``: deleted) and nothing else. A patch
    made from a command's result (``sed -i``'s, ``git checkout``'s) is checked so before
    it stands for the command: the engine takes line ends from the file (a CRLF file's
    added lines get CRLF), so a diff that adds CR to a file that had none would not write
    what the command writes; such a call stays a command."""
    from frontier.tools.patch_engine import PatchError, apply_patch

    try:
        plan = apply_patch(root, patch, dry_run=True)
    except (PatchError, OSError):
        return False
    return not plan.already and {c.path: c.new for c in plan.changes} == dict(expected)


def result_patch(
    root: str, changes: Iterable[tuple[str, bytes | None, bytes | None] | None]
) -> str | None:
    """The patch a command's result stands for (``sed -i``'s, ``git checkout``'s): each
    ``(path, bytes now or None when missing, bytes the command writes or None when it
    removes the file)`` as a diff (a removal as git's header alone: its lines are the
    file's, the review shows them), at most :data:`MAX_CHANGED` lines over them and
    :data:`MAX_PATCH` bytes, checked by :func:`writes_exactly`; ``None`` when a file
    cannot be said so (an item ``None``, not UTF-8, over the bound), a file now or the
    patch holds a secret (:func:`holds_secret`: the store keeps no such file's content,
    so undo could not bring it back, and the patch is shown to the model) or nothing
    changes.
    ``changes`` is read one file at a time, so a bound passed stops the work the next
    would cost (a ``sed`` run each)."""
    from frontier.tools.diffing import changed_lines, line_keys, render, text_opcodes

    budget = MAX_CHANGED
    diffs: list[str] = []
    expected: dict[str, bytes | None] = {}
    for change in changes:
        if change is None:
            return None
        path, now, then = change
        if then == now:
            continue  # unchanged (by sed; only its timestamps, for git)
        if then is None:
            if not HEADER_SAFE.fullmatch(path) or _secret(now):
                return None
            diffs.append(f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n")
            expected[path] = None
            continue
        try:
            old, new = (now.decode("utf-8") if now is not None else None), then.decode("utf-8")
        except UnicodeDecodeError:
            return None
        a, b = line_keys(old), line_keys(new)
        if len(a) == len(b) and sum(map(ne, a, b)) * 2 > budget:
            return None  # line for line (most s///): too many changed, known without a diff
        ops = text_opcodes(a, b)
        budget -= changed_lines(ops)
        if budget < 0 or _secret(now):  # the bounds first: a scan is the dearer
            return None
        diffs.append(render(path, old, new, a, b, ops)[0])
        expected[path] = then
    patch = "".join(diffs)
    if not patch or len(patch) > MAX_PATCH or holds_secret(patch):
        return None
    return patch if writes_exactly(root, patch, expected) else None


def _secret(now: bytes | None) -> bool:
    """A file's content now holds a secret: the store keeps none, so undo could not bring
    it back, where the command it stands for was asked as destroying work."""
    return now is not None and holds_secret(now.decode("utf-8", "surrogateescape"))


def holds_secret(text: str) -> bool:
    """Whether ``text`` holds what every sink scrubs (a known key, a credential's shape:
    ``app/secrets.py``). A patch made from a file's content is the model's call in every
    later request, sent to its provider, where the command showed the model nothing of
    the file (``cp .env.example .env`` would have sent the old ``.env``'s lines): such a
    call stays a command."""
    from frontier.app.secrets import Scrubber

    return Scrubber.from_env().scrub(text) != text


def shell_line(args: Mapping[str, object]) -> str:
    """The command a shell call's arguments run, as a person reads it: ``command`` itself,
    a ``bash -lc``'s script, or an argv quoted back into one line (``""``: none)."""
    command = args.get("command")
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 3 and command[0] in SHELLS and command[1] in ("-lc", "-c"):
            return command[2]
        return shlex.join(command)
    return ""


def went_to(root: str, base: str, cd: str) -> str | None:
    """The folder ``cd DIR`` goes to from ``base`` (the workspace-relative or absolute
    ``workdir``; ``""``: the root) as bash's ``cd`` does by default (logically): each
    ``..`` takes off the name before it, which must be a folder there — bash refuses
    ``cd no-such-dir/..`` and ``cd a-file/..``, so what follows never runs. The absolute
    path, or ``None`` when bash's ``cd`` would fail. (A lexical ``normpath`` said the
    top for ``cd /ws/no-such-dir/..``, and the patch was applied where bash ran
    nothing.)"""
    if cd.startswith("/"):
        start = cd
    else:
        top = base if base.startswith("/") else posixpath.join(root, base) if base else root
        start = posixpath.join(top, cd)
    parts: list[str] = []
    for part in start.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not os.path.isdir("/" + "/".join(parts)):
                return None
            if parts:
                parts.pop()
        else:
            parts.append(part)
    where = "/" + "/".join(parts)
    return where if os.path.isdir(where) else None


def folder_prefix(args: Mapping[str, object], root: str | None, cd: str = "") -> str | None:
    """The workspace-relative folder a shell call ran in (its ``workdir``, then ``cd``), as
    a prefix for the paths it names (``"src/"``; ``""`` for the root); ``None`` when
    that folder is not the workspace's (:func:`rebased`)."""
    based = rebased("*** Update File: _", args, root, cd)
    return None if based is None else based.removeprefix("*** Update File: ")[:-1]


def _script(script: str) -> tuple[str, str] | None:
    """The heredoc's body when ``script`` is the invocation's line, the body, and its
    delimiter's line, and nothing else (found by lines: linear whatever the script), and
    the folder of a ``cd dir &&`` on the invocation's line before it."""
    script = script.strip()
    first, _, rest = script.partition("\n")
    cd, invocation = cd_prefix(first.strip())
    head = _HEAD.fullmatch(invocation)
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
    patch = _patch(body + "\n")
    return None if patch is None else (patch, cd)


def cd_prefix(line: str) -> tuple[str, str]:
    """``(folder, the rest)`` of ``cd folder && rest``; ``("", line)`` for any other line,
    or a folder the shell would expand (``~``, ``$``, a backquote, a glob): the line then
    is no invocation alone, and runs as a command."""
    before, sep, after = line.partition("&&")
    if not sep or not before.lstrip().startswith("cd "):
        return "", line
    try:
        words = shlex.split(before)
    except ValueError:
        return "", line
    if words[1:2] == ["--"]:  # ``cd -- DIR``: how ``workdir`` is written (``process.py``)
        words = [words[0], *words[2:]]
    if len(words) != 2 or words[1] in ("", "-") or any(c in words[1] for c in "~$`*?[\n"):
        return "", line  # ``cd -`` goes to $OLDPWD
    return words[1], after.strip()


def _patch(text: str) -> str | None:
    return text if text.lstrip().startswith("*** Begin Patch") else None
