"""A file a model wrote with a shell command: ``cat > PATH <<'EOF' … EOF``.

Models trained where the shell is the only tool (SWE-agent's, mini-swe-agent's, Codex's
now and then) write a file whole with a here-document. As a command that write had no
review of what it replaced, no undo, and none of ``write``'s checks: a file the model
never read, or one the person changed since, was overwritten unseen under ``--approval
auto-edit`` (the sandbox lets a command write the workspace). Such a call is ``write``'s
call: read here, and made one in the agent loop as ``apply_patch <<'EOF'`` is
(``tools/patch_via_shell.py``), so it is reviewed as a diff, written atomically, undone
as any edit, refused over a file not read, and the model is shown its call as ``write``.

Only a command that is nothing else counts: ``cat > PATH <<'EOF'`` (or ``cat <<'EOF' >
PATH``), the body, the delimiter's line; or ``echo WORDS > PATH`` on one line, with
nothing bash would expand and no option; or ``printf FORMAT ARGS > PATH``, its content
what the printf program writes for those words (:func:`_printf`); before it at
most ``cd DIR &&`` and ``mkdir -p DIR &&`` for the file's own folder (which ``write``
makes). The body is the file's text exactly as bash would write it: a quoted delimiter
(``'EOF'``) leaves it as it is; an unquoted one expands ``$``, backquotes and
backslashes, so a body holding none of them counts, one holding any stays a command.
``>>`` appends: the patch that adds the lines at the end (:func:`append_call`; a missing
file: the ``write`` that makes it); where that cannot be known at confirmation (a call
before it in the reply still to change the files; a file with CR, not UTF-8, or an
append without a last line end) ``append``'s call, whose change is read when it starts;
a file over 4 MiB: a command. ``tee PATH <<'EOF'`` and ``cat <<'EOF' | tee PATH``
(``-a``: appended; ``> /dev/null`` or not) are read as ``cat``'s forms. ``tee`` of two
files or with another option, a second command, a path the shell would expand (``~``,
``$``, a glob) or one outside the workspace: a command, run as before.
"""

from __future__ import annotations

import posixpath
import re
import shlex
import stat
from collections.abc import Mapping

from frontier.app.programs import find_program
from frontier.tools.bounded_run import run_bounded
from frontier.tools.patch_via_shell import SHELLS, holds_secret, rebased
from frontier.tools.paths import PathError, resolve
from frontier.tools.shell_words import bash_words

_PATH = r"(?P<path>'[^'\n]+'|\"[^\"\n$`\\]+\"|[^\s;&|<>()'\"`$\\]+)"
_DOC = r"<<(?P<strip>-?)[ \t]*(?P<quote>['\"]?)(?P<delim>[A-Za-z_]\w{0,63})(?P=quote)"
_NULL = r"(?:[ \t]*1?>[ \t]*/dev/null)?"
"""``tee``'s copy of what it writes sent nowhere (``> /dev/null``), or not."""
_FORMS = {
    op: (
        re.compile(rf"cat[ \t]+1?{op}[ \t]*{_PATH}[ \t]*{_DOC}[ \t]*"),
        re.compile(rf"cat[ \t]+{_DOC}[ \t]*1?{op}[ \t]*{_PATH}[ \t]*"),
        re.compile(rf"tee[ \t]+{tee}{_PATH}{_NULL}[ \t]*{_DOC}{_NULL}[ \t]*"),
        re.compile(rf"cat[ \t]+{_DOC}[ \t]*\|[ \t]*tee[ \t]+{tee}{_PATH}{_NULL}[ \t]*"),
    )
    for op, tee in ((">", ""), (">>", r"(?:-a|--append)[ \t]+"))
}
"""The command's first line: ``cat > PATH <<'EOF'`` or ``cat <<'EOF' > PATH``, ``tee PATH
<<'EOF'`` or ``cat <<'EOF' | tee PATH`` (with ``> /dev/null`` or not; its copy on stdout
is all that is not written); ``>>`` and ``tee -a``: appended."""
_FD_REDIRECT = re.compile(r"(?:^|\s)\d+>")
_EXPANDS = re.compile(r"[$`\\]")
_PLAIN = re.compile(r"[A-Za-z0-9_./@%+,=:-]+")
"""A folder named before it: nothing the shell would expand or split."""


def write_in_command(
    command: object, args: Mapping[str, object], root: str | None, op: str = ">"
) -> tuple[str, str] | None:
    """``(path, content)`` of the file ``command`` (``shell``'s argument) writes with a
    here-document and nothing else, its path as the workspace root reads it (a
    ``workdir``, a ``cd``); ``None`` otherwise. ``op=">>"``: what it appends."""
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 3 and command[0] in SHELLS and command[1] in ("-lc", "-c"):
            command = command[2]
        else:
            return None
    if not isinstance(command, str):
        return None
    found = _script(command, op, root)
    if found is None:
        return None
    path, content, cd = found
    where = rebased(f"*** Add File: {path}", args, root, cd)
    if where is None:
        return None
    path = where.removeprefix("*** Add File: ")
    if path.startswith("/"):  # a workspace file by its absolute path, or a command
        if root is None:
            return None
        try:
            path = resolve(root, path).rel
        except (OSError, PathError):
            return None
    return path, content


def _script(script: str, op: str, root: str | None) -> tuple[str, str, str] | None:
    """``(path, content, cd folder)`` when ``script`` is the here-document write alone
    (found by lines: linear whatever the script)."""
    first, _, rest = script.lstrip().rstrip("\n").partition("\n")
    (cd, made), line = _before(first.strip())
    one_line = line if line is not None and not rest else None
    if one_line is not None and (
        echoed := _echo(one_line, op) or _printf(one_line, op, root) or _emptied(one_line, op)
    ):
        if made and not _within(echoed[0], made):
            return None
        return echoed[0], echoed[1], cd
    head = next((m for form in _FORMS[op] if (m := form.fullmatch(line or ""))), None)
    if head is None or not rest:
        return None
    raw, delimiter = head.group("path"), head.group("delim")
    path = raw[1:-1] if raw[:1] in "'\"" else raw
    if any(c in path for c in "*?[~") or path.endswith("/") or raw.startswith("-"):
        return None  # a glob, a folder; tee's option (`tee -i f`), not a file
    lines = rest.split("\n")
    last = lines.pop()
    strip = bool(head.group("strip"))
    if (last.lstrip("\t") if strip else last) != delimiter:
        return None
    if strip:  # <<- : bash strips the body's leading tabs
        lines = [line.lstrip("\t") for line in lines]
    if delimiter in lines:
        return None  # bash would end the here-document there and run what follows
    if not head.group("quote") and any(_EXPANDS.search(line) for line in lines):
        return None  # bash would expand it: the file would not hold this text
    if made and not _within(path, made):
        return None  # it makes a folder the file is not in: a command of its own
    return path, "".join(line + "\n" for line in lines), cd


_EMPTIED = (
    re.compile(rf"(?:(?::|true|cat[ \t]+/dev/null)[ \t]*)?>[ \t]*{_PATH}[ \t]*"),
    re.compile(rf"truncate[ \t]+(?:-s[ \t]*0|--size[ \t=]0)[ \t]+{_PATH}[ \t]*"),
)
"""A file emptied: ``> PATH``, ``: > PATH``, ``true > PATH``, ``cat /dev/null > PATH``,
``truncate -s 0 PATH`` (each makes a missing file, empty)."""


def _emptied(line: str, op: str) -> tuple[str, str] | None:
    """``(path, "")`` of a command that only empties (or makes empty) one file."""
    found = next((m for form in _EMPTIED if (m := form.fullmatch(line))), None)
    if op != ">" or found is None:
        return None
    raw = found.group("path")
    path = raw[1:-1] if raw[:1] in "'\"" else raw
    if any(c in path for c in "*?[~") or path.endswith("/") or raw.startswith("-"):
        return None
    return path, ""


def emptied_patch(root: str | None, path: str) -> str | None:
    """The patch taking every line out of ``path`` (a write of nothing over a file that
    is there: ``> app.log``), within ``result_patch``'s bounds; ``None`` otherwise (a
    command). A patch, not ``write``: ``write`` refuses a file the model never read, and
    emptying a log it never read is what ``> app.log`` is for."""
    from frontier.tools import beneath
    from frontier.tools.delete_via_shell import KEPT_MAX, regular_file
    from frontier.tools.patch_via_shell import result_patch

    rel = regular_file(root or "", path) if root is not None else None
    if rel is None or root is None:
        return None
    try:
        data, _mode = beneath.read_file(root, rel, KEPT_MAX)
    except (OSError, ValueError, PathError):
        return None
    return None if not data else result_patch(root, [(rel, data, b"")])


def _echo(line: str, op: str) -> tuple[str, str] | None:
    """``(path, content)`` of ``echo WORDS > PATH`` alone, when bash would write the words
    as they are (nothing it expands: no ``$``, backquote, backslash, glob, ``~``; no
    option such as ``-e`` or ``-n``)."""
    if not line.startswith("echo") or any(c in line for c in "$`\\*?[]{}~#"):
        return None
    if _FD_REDIRECT.search(line):
        return None  # `2> f`: the file gets what the command says on stderr
    lexer = shlex.shlex(line, posix=True, punctuation_chars="<>|&;()")
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return None
    if len(words) < 3 or words[0] != "echo" or words[-2] != op:
        return None
    said = words[1:-2]
    if any(w and all(c in "<>|&;()" for c in w) for w in said):
        return None  # another redirection or command
    if said and said[0].startswith("-"):
        return None  # -n, -e: not the words as they are
    path = words[-1]
    if not path or path.endswith("/"):
        return None
    return path, " ".join(said) + "\n"


_PRINTF = re.compile(rf"(?P<call>printf[ \t].*?)[ \t]*(?P<op>>>?)[ \t]*{_PATH}[ \t]*")
_BASH_ONLY = re.compile(r"%[-+ #0-9.*]*[q(]")
"""Conversions the program and bash's own printf write differently: ``%q`` (quoted
otherwise), ``%(…)T`` (bash's only)."""
PRINTF_SECONDS = 1.0
"""The longest ``printf`` may take to say what it writes (a huge width: ``%999999999d``)."""


def _printf(line: str, op: str, root: str | None) -> tuple[str, str] | None:
    """``(path, content)`` of ``printf FORMAT [ARGS] > PATH`` alone: what the program
    writes, run on the words bash would give it (``tools/shell_words.py``: nothing
    expanded); ``None`` for anything else, an option (``-v``), a conversion only bash's
    own printf has (``%q`` quotes otherwise, ``%(…)T``), a failure or output that is not
    UTF-8."""
    found = _PRINTF.fullmatch(line)
    if found is None or found.group("op") != op or _FD_REDIRECT.search(line):
        return None
    words = bash_words(found.group("call"))
    if words is None or len(words) < 2 or any(w.pattern is not None for w in words):
        return None
    given = [w.text for w in words[1:]]
    if given[0] == "--":  # both printfs take it as the end of options
        given = given[1:]
    elif given[0].startswith("-"):
        return None  # bash's -v: sets a variable, writes nothing
    if not given or any(_BASH_ONLY.search(w) for w in given):
        return None
    program = find_program("printf", root)
    ran = (
        run_bounded([program, "--", *given], limit=4 * 1024 * 1024, seconds=PRINTF_SECONDS)
        if program is not None
        else None
    )
    if ran is None or ran[0] != 0:
        return None
    try:
        content = ran[1].decode("utf-8")
    except UnicodeDecodeError:
        return None
    raw = found.group("path")
    path = raw[1:-1] if raw[:1] in "'\"" else raw
    if any(c in path for c in "*?[~") or path.endswith("/"):
        return None
    return path, content


def _before(line: str) -> tuple[tuple[str, str], str | None]:
    """``((cd folder, mkdir folder), the rest)`` of ``[cd D &&] [mkdir -p D &&] rest``;
    ``None`` for the rest when something else comes before it."""
    cd = made = ""
    while "&&" in line:
        before, _, after = line.partition("&&")
        try:
            words = shlex.split(before)
        except ValueError:
            return (cd, made), None
        if not words or not _PLAIN.fullmatch(words[-1]):
            return (cd, made), None
        if len(words) == 2 and words[0] == "cd" and not cd and not made:
            cd = words[1]
        elif len(words) == 3 and words[:2] == ["mkdir", "-p"] and not made:
            made = words[2]
        else:
            return (cd, made), None
        line = after.strip()
    return (cd, made), line


def _within(path: str, folder: str) -> bool:
    """``path`` lies in ``folder`` (both read from the same folder)."""
    return posixpath.normpath(path).startswith(posixpath.normpath(folder).rstrip("/") + "/")


def appended_patch(root: str, path: str, added: str) -> str | None:
    """The unified diff that appends ``added`` to ``path`` as ``>>`` would (its last three
    lines as context), for a UTF-8 file of at most 4 MiB that ends with a line break and
    has no CR, whose last lines hold no secret (``patch_via_shell.holds_secret``: the
    patch is shown to the model); ``None`` otherwise. A missing file is not this (``>>``
    makes it: that is a ``write``)."""
    from frontier.tools import beneath

    try:
        data, _mode = beneath.read_file(root, path, 4 * 1024 * 1024)
        text = data.decode("utf-8") if data is not None else None
    except (OSError, ValueError, PathError):
        return None
    if text is None or b"\r" in (data or b"") or (text and not text.endswith("\n")) or not added:
        return None
    lines = text.split("\n")[:-1] if text else []
    new = added.split("\n")[:-1]
    context = lines[-3:]
    first = len(lines) - len(context) + 1
    old_range = f"{first},{len(context)}" if context else "0,0"
    hunk = f"@@ -{old_range} +{first if context else 1},{len(context) + len(new)} @@\n"
    body = "".join(f" {line}\n" for line in context) + "".join(f"+{line}\n" for line in new)
    if holds_secret("".join(f"{line}\n" for line in context)):
        return None  # the file's lines, never shown to the model: `append` takes only its own
    return f"--- a/{path}\n+++ b/{path}\n{hunk}{body}"


def append_call(
    command: object,
    args: Mapping[str, object],
    root: str | None,
    *,
    settled: bool = True,
    later: bool = False,
) -> tuple[str, dict[str, str]] | None:
    """The file tool's call for ``cat >> F <<'EOF'`` / ``echo WORDS >> F`` alone: the patch
    that appends the lines to F (:func:`appended_patch`), or, F missing, the ``write``
    that makes it, when the files are ``settled``; else, or when neither can say it (no
    last line end, CR, not UTF-8), ``append``'s call if ``later`` (:func:`later_append`);
    ``None``: a command."""
    found = write_in_command(command, args, root, ">>")
    if found is None:
        return None
    made = appending(root, found[0], found[1]) if settled else None
    if made is None and later:
        made = later_append(root, found[0], found[1])
    return made


def later_append(root: str | None, path: str, added: str) -> tuple[str, dict[str, str]] | None:
    """``append``'s call adding ``added`` to ``path``, its change read when it starts (after
    the calls before it in its reply ran); ``None`` when the file is now not a regular file
    or over 4 MiB (its review would hold it whole: the call stays a command)."""
    if root is None:
        return None
    try:
        where = resolve(root, path)
    except (OSError, PathError):
        return None
    try:
        info = where.real.stat()
    except FileNotFoundError:  # made by a call before it, or by the append
        return "append", {"path": where.rel, "content": added}
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > 4 * 1024 * 1024:
        return None
    return "append", {"path": where.rel, "content": added}


def appending(root: str | None, path: str, added: str) -> tuple[str, dict[str, str]] | None:
    """The file tool's call that appends ``added`` (whole lines) to ``path``: the patch
    adding them, or, the file missing, the ``write`` that makes it; ``None`` when neither
    can say it (the caller's call stays as it was)."""
    if root is None or not added.endswith("\n"):
        return None
    try:
        where = resolve(root, path)
        missing = not where.real.exists()
    except (OSError, PathError):  # outside, or the workspace itself gone or replaced
        return None
    if missing:
        return "write", {"path": where.rel, "content": added}
    patch = appended_patch(root, where.rel, added)
    return None if patch is None else ("apply_patch", {"patch": patch})
