"""Reading a command line or a script for the workspace paths a write of it may reach:
what ``tools/command_changes.py`` holds before the command runs.

The operands of a program that may write them (not ``cat``, ``grep``, ``git diff``,
``sed`` without ``-i``…: :data:`_READ_ONLY`), redirection targets (``> out.txt``), the
string literals of an interpreter's code (``python3 -c``, ``node -e``, a here-document's
body, the ``python`` tool's script: :func:`literal_words`), each resolved from the folder a
plain ``cd`` went to; a glob expanded as bash would. A line this reading cannot follow (a
``$``/backquote word, a ``cd`` to a folder not named plainly) stops it there. Bounded: at
most :data:`NAMES_MAX` paths and :data:`WORDS_MAX` words looked up; every lookup is
beneath the root (``tools/paths.resolve``), a link never followed out.
"""

from __future__ import annotations

import glob
import os
import posixpath
import re
import stat
from collections.abc import Iterable, Iterator
from itertools import islice, pairwise
from pathlib import Path

from frontier.app.record import record
from frontier.tools import beneath
from frontier.tools.destructive import remade, simple_commands, split_heredocs, unwrapped
from frontier.tools.paths import PathError, resolve

NAMES_MAX = 2_000
"""Paths a line names at most: past it the reading stops (``Named.over``) and the command is
not watched (its watch holds as many files at most: ``command_changes.NAMES_MAX``)."""
WORDS_MAX = 4 * NAMES_MAX
"""Distinct words of a line looked up as paths at most (each is a lookup beneath the root)."""
_READ_ONLY = frozenset(
    {
        "cat", "tac", "ls", "ll", "dir", "tree", "stat", "file", "du", "df", "wc", "head",
        "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "cmp",
        "comm", "echo", "printf", "pwd", "which", "type", "whereis", "nl", "od", "xxd",
        "hexdump", "strings", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum",
        "cksum", "cut", "tr", "jq", "yq", "column", "fold", "fmt", "rev", "basename",
        "dirname", "realpath", "readlink", "true", "false", "test", "[", "date", "id",
        "whoami", "uname", "hostname", "sleep", "seq", "expr", "bat", "fd", "locate",
        "sed", "find", "sort", "git",
    }
)  # fmt: skip
"""Programs that only read the files they are given (``sed``, ``find``, ``sort`` and ``git``
only without the options or subcommands :func:`_writes` looks for)."""
_GIT_READS = frozenset(
    {
        "status", "diff", "log", "show", "blame", "grep", "ls-files", "ls-tree", "rev-parse",
        "describe", "shortlog", "cat-file", "rev-list", "whatchanged", "reflog", "help",
        "version", "--version", "merge-base", "name-rev", "for-each-ref", "check-ignore",
    }
)  # fmt: skip
_FIND_WRITES = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint",
                          "-fprint0", "-fprintf", "-fls"})  # fmt: skip
_MAKERS = frozenset({"cp", "touch", "tee", "ln", "install", "dd", "truncate", "split", "mkdir"})
"""Programs whose operands name files they make: a name not there yet is watched for them
(for any other program only a name that looks like a file's, with a dot or a slash: most
operands not there are subcommands, ``npm ci``)."""
_REDIRECT = re.compile(r"(?:\d*|&)>>?\|?(.*)")
"""``>``, ``>>``, ``2>``, ``&>``, ``>|`` — with the target attached (group 1) or next."""
_EXPANDS = frozenset("$`~\n")
_DUPLICATES = re.compile(r"\d*[<>]&(?:\d+|-)")
"""``2>&1``, ``>&2``, ``<&-``: a descriptor made a copy of another, no file (and an ``&``
the reading of the line would take for a command's end)."""
_ODD = frozenset(" \t\r\n(){}<>|;,='\"%!\\$`")
"""Characters no name a command or script makes is taken to hold (a word holding one is
code, a message or a format: ``print(1.5)``, ``f"{x}.py"``)."""
SCRIPT_MAX = 64 * 1024
"""Characters of a script read for the paths its literals name."""
_LITERAL = re.compile(r"'([^'\\\n]{1,255})'" r'|"([^"\\\n]{1,255})"')
_INTERPRETER = re.compile(r"python[\d.]*|node|nodejs|ruby|perl|php|deno|bun|Rscript")
_CODE_FLAGS = frozenset({"-c", "-e", "-E", "-r", "-p", "--eval"})
_GLOB = frozenset("*?[")


@record
class Named:
    """The workspace paths a command line names, relative to the root."""

    files: tuple[str, ...]
    """Files, and names not there yet (``> new.txt``, ``cp a b``)."""
    folders: tuple[str, ...]
    """Folders (``.``: the workspace), watched with everything beneath them."""
    over: str | None = None
    """Why the reading stopped (more than :data:`NAMES_MAX` paths, or
    :data:`WORDS_MAX` words to look up); ``None``: it read the whole line."""


def named(command: str, root: str | os.PathLike[str]) -> Named:
    """The paths ``command`` names that a write of its may reach (module doc)."""
    return _resolved(root, _words(command, root))


def named_in_script(code: str, root: str | os.PathLike[str]) -> Named:
    """The paths a script's string literals name (the ``python`` tool's code)."""
    return _resolved(root, (("", word, _file_like(word)) for word in literal_words(code)))


def literal_words(code: str) -> list[str]:
    """The string literals of a script (Python, JavaScript, Ruby…) that could name a file:
    ``open("src/a.py", "w")``, ``Path('notes.md')``. Read by a regular expression with a
    bounded literal (linear), over the first :data:`SCRIPT_MAX` characters; ``.``/``..``
    are left out (``'.'.join`` is everywhere), as is anything with a blank or a brace."""
    out: list[str] = []
    for found in _LITERAL.finditer(code, 0, SCRIPT_MAX):
        word = found.group(1) or found.group(2)
        if word not in (".", "..") and _name_like(word):
            out.append(word)
    return out


def _words(command: str, root: str | os.PathLike[str]) -> Iterator[tuple[str, str, bool]]:
    """``(folder, word, may name a file not there yet)`` for each word of ``command`` a
    write may reach: operands of a program that writes, redirection targets, the string
    literals of an interpreter's code (``python -c``, a here-document's body)."""
    cwd = ""
    for program, args in _commands(command):
        if program == "cd":
            where = _cd(root, cwd, args)
            if where is None:
                return  # the rest runs in a folder this reading cannot name
            cwd = where
            continue
        operands, targets = _redirections(args)
        for code in _code_of(program, args):
            yield from ((cwd, word, _file_like(word)) for word in literal_words(code))
        writes = _writes(program, args)
        for word in (operands if writes else []) + targets:
            new = word in targets or program in _MAKERS or _file_like(word)
            yield cwd, word, new
    for body in split_heredocs(command)[1]:  # `python3 - <<'EOF'`: a script's literals
        yield from ((cwd, word, _file_like(word)) for word in literal_words(body))


def _resolved(root: str | os.PathLike[str], words: Iterable[tuple[str, str, bool]]) -> Named:
    """Each distinct word looked up beneath the root once; past :data:`WORDS_MAX` of them the
    reading stops (a line of 200,000 names would hold the command back for seconds)."""
    files: dict[str, None] = {}
    folders: dict[str, None] = {}
    looked: set[tuple[str, str, bool]] = set()
    for cwd, word, new in words:
        if (cwd, word, new) in looked:
            continue
        looked.add((cwd, word, new))
        if len(looked) > WORDS_MAX:
            why = f"its line has more than {WORDS_MAX:,} words to look up as files"
            return Named(tuple(files), tuple(folders), over=why)
        for rel, is_folder in _paths(root, cwd, word, new=new):
            (folders if is_folder else files)[rel] = None
        if len(files) + len(folders) > NAMES_MAX:
            why = f"it names more than {NAMES_MAX:,} files"
            return Named(tuple(files), tuple(folders), over=why)
    return Named(tuple(files), tuple(folders))


def _code_of(program: str, args: list[str]) -> Iterator[str]:
    """The code an interpreter is given on its command line (``python3 -c CODE``,
    ``node -e CODE``, ``perl -e CODE``)."""
    if not _INTERPRETER.fullmatch(program):
        return
    for flag, code in pairwise(args):
        if flag in _CODE_FLAGS:
            yield code


def _file_like(word: str) -> bool:
    """A name not there yet is watched for only when it looks like a file's (a dot or a
    slash): most words not there are subcommands or a script's other strings."""
    return "." in word or "/" in word


def _name_like(word: str) -> bool:
    """``word`` could be a file's name as a script or a command writes it."""
    return bool(word) and not any(c in _ODD for c in word) and "://" not in word


def only_reads(command: str) -> bool:
    """Every program of the line only reads (``cat``, ``grep``, ``git diff``…), none is an
    interpreter, and nothing is redirected into a file: no write to look for."""
    if "<<" in command:
        return False
    for program, args in _commands(command):
        if program == "cd":
            continue
        if _INTERPRETER.fullmatch(program) or _writes(program, args) or _redirections(args)[1]:
            return False
    return True


def _commands(command: str) -> Iterator[tuple[str, list[str]]]:
    """``(program's name, its words)`` of each simple command of the line (assignments and
    wrappers such as ``sudo``, ``env``, ``timeout`` skipped)."""
    for words in simple_commands(_DUPLICATES.sub(" ", command)):
        run = unwrapped(words)
        if run:
            yield posixpath.basename(run[0]), run[1:]


def _writes(program: str, operands: list[str]) -> bool:
    """Whether ``program`` may write the files among its operands."""
    if program not in _READ_ONLY:
        return True
    if program == "sed":
        return any(w.startswith(("-i", "--in-place")) for w in operands)
    if program == "find":
        return any(w in _FIND_WRITES for w in operands)
    if program == "sort":
        return any(w.startswith(("-o", "--output")) for w in operands)
    if program == "git":
        sub = next((w for w in operands if not w.startswith("-")), "")
        return sub not in _GIT_READS
    return False


def _redirections(words: list[str]) -> tuple[list[str], list[str]]:
    """``(operands, redirection targets)`` of a command's words after its name."""
    operands: list[str] = []
    targets: list[str] = []
    take = False
    for word in words:
        if take:
            if word != "/dev/null":
                targets.append(word)
            take = False
            continue
        found = _REDIRECT.fullmatch(word)
        if found is not None:
            target = found.group(1)
            if not target:
                take = True
            elif not target.startswith("&") and target != "/dev/null":
                targets.append(target)  # `2>&1` is a descriptor, `/dev/null` no file
        elif not word.startswith(("-", "<")):
            operands.append(word)
    return operands, targets


def _cd(root: str | os.PathLike[str], cwd: str, args: list[str]) -> str | None:
    """The folder ``cd ARGS`` goes to, relative to the root; ``None`` when not plainly one
    of the workspace's (no argument is the home folder)."""
    args = args[1:] if args[:1] == ["--"] else args
    if len(args) != 1 or any(c in _EXPANDS or c in _GLOB for c in args[0]):
        return None
    try:
        where = resolve(root, posixpath.join(cwd, args[0]) if cwd else args[0])
    except (PathError, ValueError):
        return None
    return "" if where.rel in ("", ".") else where.rel


def _paths(
    root: str | os.PathLike[str], cwd: str, word: str, *, new: bool
) -> Iterator[tuple[str, bool]]:
    """``(rel, is_folder)`` for each workspace path ``word`` names (a glob expanded as bash
    would, from the command's folder)."""
    if not word or any(c in _EXPANDS for c in word) or "\x00" in word:
        return
    real = beneath.real_root(root)
    if any(c in _GLOB for c in word):
        try:
            found = list(islice(glob.iglob(word, root_dir=real / cwd), NAMES_MAX + 1))
        except (OSError, ValueError):
            return
        for match in found:
            yield from _path(root, real, cwd, match, new=False)
        return
    yield from _path(root, real, cwd, word, new=new)


def _path(
    root: str | os.PathLike[str], real: Path, cwd: str, word: str, *, new: bool
) -> Iterator[tuple[str, bool]]:
    joined = word if word.startswith("/") or not cwd else posixpath.join(cwd, word)
    try:
        where = resolve(root, joined)
    except (PathError, ValueError):
        return  # outside the workspace, or no name a file can have
    rel = "." if where.rel in ("", ".") else where.rel
    if rel != "." and remade(rel):
        return
    try:
        st = os.lstat(real / rel)
    except FileNotFoundError:
        if new and rel != "." and _name_like(word) and (real / rel).parent.is_dir():
            yield rel, False  # a name the command may create
        return
    except OSError:
        return
    if stat.S_ISDIR(st.st_mode):
        yield rel, True
    elif stat.S_ISREG(st.st_mode):
        yield rel, False  # a link is left alone: a write through it is its target's


__all__ = [
    "NAMES_MAX",
    "SCRIPT_MAX",
    "WORDS_MAX",
    "Named",
    "literal_words",
    "named",
    "named_in_script",
    "only_reads",
]
