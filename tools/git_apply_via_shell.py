"""A patch a model applied with ``git apply``: ``git apply fix.patch`` or ``git apply
<<'EOF'`` with the diff.

Models that write a diff the way they have seen it (a file, then ``git apply``; a
here-document) changed the files with a command: no review of what it wrote but the
command's line, nothing kept, no undo, unasked under ``--approval auto-edit`` in the
sandbox. Such a call is the patch tool's: read here, and made one in the agent loop as
``apply_patch <<'EOF'`` is (``tools/patch_via_shell.py``), so it is reviewed as a diff,
written atomically, **undone as any edit**, and the model is shown its call as
``apply_patch``.

What git writes is git's to say, so git says it: at confirmation it applies the diff to
copies of the files the diff names, in a temporary folder (no repository there, no
program of the repository's run: ``tools/git_safely.py``), and the call becomes the
patch from each file as it is to the copy git wrote (``patch_via_shell.result_patch``:
within its bounds, and checked to write exactly git's bytes). Git refusing the diff
leaves the call a command, which then fails with git's own words.

Only ``git apply [-v] [-R] [-pN] [-CN] [--recount] [--ignore-whitespace]
[--ignore-space-change] [--whitespace=nowarn|warn|fix] FILE`` (a regular file of the
workspace, at most :data:`~frontier.tools.patch_via_shell.MAX_PATCH` bytes) or ``git
apply [those] [-] <<'EOF'`` with the diff (an unquoted delimiter: a body bash would not
expand), run at the workspace's top: no other ``workdir``, and a ``cd DIR &&`` before it
only to the top itself (``cd /the/workspace && git apply fix.patch``, as models write a
command; in a subfolder git reads the diff's paths otherwise). Stays a command: any
other option (``--check``, ``--index``, ``--cached``, ``-3``, ``--reject``,
``--directory`` …), a diff that deletes
or renames a file, changes a mode or is binary, a path outside the workspace or a link,
a workspace that is a repository's subfolder, a repository whose settings or attributes
make git convert line ends or text as it reads and writes (``core.autocrlf``, ``eol``,
``filter``, ``ident``, ``working-tree-encoding``; ``text`` only where a file or the diff
holds a CR), or more than the bounds. The diff is applied to the files as they are at
confirmation, so it is read only when the files are settled (``Registry.meant``).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping

from frontier.tools import beneath
from frontier.tools.bounded_run import Deadline, run_bounded
from frontier.tools.delete_via_shell import KEPT_MAX, regular_file
from frontier.tools.git_safely import git_env, run_git, settings
from frontier.tools.patch_via_shell import (
    MAX_FILES,
    MAX_PATCH,
    SHELLS,
    cd_prefix,
    folder_prefix,
    result_patch,
)
from frontier.tools.paths import PathError, resolve
from frontier.tools.shell_words import bash_words

SECONDS = 1.0
"""The longest the git runs of one call may take together; past it the call stays a
command."""
_HEAD = re.compile(
    r"(?P<line>git[ \t]+apply(?:[ \t][^<\n]*)?)[ \t]*"
    r"<<(?P<strip>-?)[ \t]*(?P<quote>['\"]?)(?P<delim>[A-Za-z_]\w{0,63})(?P=quote)[ \t]*"
)
"""The invocation's line with a here-document: ``git apply -v <<'EOF'``."""
_EXPANDS = re.compile(r"[$`\\]")
_FLAGS = frozenset(
    {
        "-v",
        "--verbose",
        "-R",
        "--reverse",
        "--recount",
        "--ignore-whitespace",
        "--ignore-space-change",
        "--whitespace=nowarn",
        "--whitespace=warn",
        "--whitespace=fix",
    }
)
_SAID = frozenset({"-v", "--verbose"})
"""Options that only make git say more: not given to the runs here."""
_NUMBERED = re.compile(r"-[pC][0-9]")
_CONVERTING = (b"filter", b"ident", b"working-tree-encoding", b"eol", b"crlf")
_CONFIG = r"^(core\.(autocrlf|eol|safecrlf|whitespace)|apply\..*)$"


def git_apply_patch(command: object, args: Mapping[str, object], root: str | None) -> str | None:
    """The patch of what ``command`` (``shell``'s argument), a plain ``git apply`` of a
    diff file or a here-document, writes; ``None`` for anything else (a command)."""
    if root is None:
        return None
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 3 and command[0] in SHELLS and command[1] in ("-lc", "-c"):
            command = command[2]
        else:
            return None
    if not isinstance(command, str):
        return None
    first, newline, rest = command.strip().partition("\n")
    cd, line = cd_prefix(first.strip())
    if folder_prefix(args, root, cd) != "" or not line.startswith("git"):
        return None  # git run in a subfolder reads the diff's paths otherwise
    found = _invocation(line + newline + rest, root)
    if found is None:
        return None
    options, diff = found
    if not diff or len(diff) > MAX_PATCH:
        return None
    deadline = Deadline(SECONDS)
    with tempfile.TemporaryDirectory(prefix="frontier-apply-") as copies:
        paths = _named(copies, options, diff, deadline)
        if paths is None:
            return None
        before: dict[str, bytes | None] = {}
        for path in paths:
            now = _read(root, path)
            if now is False:
                return None
            before[path] = now if isinstance(now, bytes) else None
        if not _plain(root, before, diff, deadline):
            return None
        for path, now in before.items():
            if now is not None:
                copy = os.path.join(copies, path)
                os.makedirs(os.path.dirname(copy), exist_ok=True)
                with open(copy, "wb") as out:
                    out.write(now)
        ran = _git(copies, ["apply", *options], diff, deadline)
        if ran is None or ran[0] != 0:
            return None  # git refuses it: the command fails with git's words
        after = (_result(copies, path, before[path]) for path in paths)
        return result_patch(root, after)


def _invocation(script: str, root: str) -> tuple[list[str], bytes] | None:
    """``(options for git, the diff)`` of ``git apply`` alone: a file's, or a
    here-document's."""
    first, _, rest = script.partition("\n")
    head = _HEAD.fullmatch(first.strip())
    line = head.group("line") if head is not None else first.strip()
    if head is None and rest:
        return None
    words = bash_words(line)
    if words is None or any(w.pattern is not None for w in words):
        return None
    texts = [w.text for w in words]
    if texts[:2] != ["git", "apply"]:
        return None
    options: list[str] = []
    operands: list[str] = []
    ended = False
    for word in texts[2:]:
        if not ended and word == "--":
            ended = True
        elif not ended and word != "-" and word.startswith("-"):
            if word not in _FLAGS and not _NUMBERED.fullmatch(word):
                return None
            if word not in _SAID:
                options.append(word)
        else:
            operands.append(word)
    if head is not None:
        body = _body(rest, head)
        return None if body is None or operands not in ([], ["-"]) else (options, body)
    if len(operands) != 1 or operands[0] == "-":
        return None
    rel = regular_file(root, operands[0])
    if rel is None:
        return None
    try:
        data, _mode = beneath.read_file(root, rel, MAX_PATCH)
    except (OSError, ValueError, PathError):
        return None  # over the bound, gone, outside
    return (options, data) if data is not None else None


def _body(rest: str, head: re.Match[str]) -> bytes | None:
    """The here-document's bytes when ``rest`` is its body and its delimiter's line and
    nothing else, and bash would give it to git as written."""
    body, _, last = rest.rpartition("\n")
    delimiter = head.group("delim")
    strip = bool(head.group("strip"))
    if (last.lstrip("\t") if strip else last) != delimiter:
        return None
    lines = body.split("\n") if body or rest.startswith("\n") else []
    if strip:
        lines = [line.lstrip("\t") for line in lines]
    if delimiter in lines:
        return None  # bash would end the here-document there and run what follows
    if not head.group("quote") and any(_EXPANDS.search(line) for line in lines):
        return None  # bash would expand it: git would read another diff
    return "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")


def _named(copies: str, options: list[str], diff: bytes, deadline: Deadline) -> list[str] | None:
    """The paths the diff writes, as git reads them with ``options`` (one run: ``--numstat
    --summary``); ``None`` when it deletes, renames, copies or changes a mode, is binary,
    names a path git quotes, or more than ``MAX_FILES`` files."""
    listed = _git(copies, ["apply", *options, "--numstat", "--summary"], diff, deadline)
    if listed is None or listed[0] != 0:
        return None
    paths: list[str] = []
    for line in listed[1].splitlines():
        if line.startswith(b" "):
            if not line.startswith(b" create mode 100644 "):
                return None  # a deletion, rename, copy or mode
            continue
        added, _, rest = line.partition(b"\t")
        removed, _, path = rest.partition(b"\t")
        if not added.isdigit() or not removed.isdigit() or not path or path.startswith(b'"'):
            return None  # binary ("-"), or a name git quotes (a control, a quote, not UTF-8)
        try:
            paths.append(path.decode("utf-8"))
        except UnicodeDecodeError:
            return None
    if not paths or len(paths) > MAX_FILES or len(set(paths)) != len(paths):
        return None
    return paths


def _plain(root: str, before: Mapping[str, bytes | None], diff: bytes, deadline: Deadline) -> bool:
    """Whether git in the workspace would read and write these files (``before``: each
    one's bytes, ``None`` when the diff makes it) byte for byte as the run in the
    temporary folder does: no repository, or one whose top is the workspace and whose
    settings and attributes convert nothing here."""
    top = run_git(root, ["rev-parse", "--show-prefix"], timeout=deadline.left())
    if top is None:
        return False
    if top[0] != 0:
        return True  # no repository: git applies it as here
    if top[1].strip():
        return False  # a subfolder of a repository: git reads paths from its top
    config = run_git(root, ["config", "--get-regexp", _CONFIG], timeout=deadline.left())
    if config is None or config[0] not in (0, 1):
        return False
    if any(line.strip() != b"core.autocrlf false" for line in config[1].splitlines()):
        return False
    given = b"".join(p.encode() + b"\0" for p in before)
    said = run_git(
        root,
        ["check-attr", "-z", "--stdin", "text", *(a.decode() for a in _CONVERTING)],
        given=given,
        timeout=deadline.left(),
    )
    if said is None or said[0] != 0:
        return False
    fields = said[1].split(b"\0")
    crs = b"\r" in diff or any(b"\r" in now for now in before.values() if now is not None)
    for attribute, value in zip(fields[1:-1:3], fields[2:-1:3], strict=True):
        if value == b"unspecified":
            continue
        if attribute in _CONVERTING or crs:
            return False
    return True


def _read(root: str, path: str) -> bytes | bool | None:
    """A named file's bytes now; ``None`` when missing (the diff makes it); ``False`` when
    it cannot be one of the patch's (a link, a folder, over the bound, outside)."""
    try:
        where = resolve(root, path)
    except (OSError, PathError):
        return False
    if not os.path.lexists(where.real):
        return None
    rel = regular_file(root, path)
    if rel is None or rel != where.rel:
        return False
    try:
        data, _mode = beneath.read_file(root, rel, KEPT_MAX)
    except (OSError, ValueError, PathError):
        return False
    return data if data is not None else False


def _result(copies: str, path: str, now: bytes | None) -> tuple[str, bytes | None, bytes] | None:
    """``(path, its bytes now, the bytes git wrote into its copy)``; ``None`` when git
    removed it or wrote more than the bound."""
    try:
        with open(os.path.join(copies, path), "rb") as given:
            data = given.read(KEPT_MAX + 1)
    except OSError:
        return None
    return None if len(data) > KEPT_MAX else (path, now, data)


def _git(
    folder: str, args: list[str], given: bytes, deadline: Deadline
) -> tuple[int, bytes] | None:
    """``git ARGS`` in the temporary ``folder`` (no repository found above it), hardened,
    ``given`` on its stdin."""
    from frontier.app.programs import find_program

    git = find_program("git", folder)
    if git is None:
        return None
    env = git_env(os.environ)
    env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(folder)
    return run_bounded(
        [git, *settings(), "--no-optional-locks", *args],
        limit=1 << 20,
        seconds=deadline.left(),
        given=given,
        cwd=folder,
        env=env,
    )
