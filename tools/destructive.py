"""Commands that destroy work no undo brings back: ``rm -rf src``, ``git clean -fd``,
``git reset --hard``, ``find . -delete``.

The file tools keep what they replace (undo puts it back); a command keeps nothing. Under
``--approval auto-edit`` a command inside the sandbox runs unasked, and the sandbox lets
it write, so delete, anything in the workspace: a model that "cleaned up" with ``rm -rf
src`` or ``git clean -fdx`` took the person's uncommitted work with it (the peers'
trackers hold many such reports; Codex asks for ``rm -f``/``git reset`` even inside its
sandbox). :func:`destroys` names such a command: the shell tool's preview carries it
(``Preview.destroys``), every review shows it, and the policy asks a person first
(``tools/policy.py``).

Read as bash reads it, roughly and on the safe side: the script is split into simple
commands at ``;`` ``&&`` ``||`` ``|`` ``&`` parentheses, ``$(``, backquotes and line
ends (a here-document's lines are data, not commands), each command's leading
assignments and wrappers (``sudo``, ``env``, ``xargs``, ``timeout`` …) set aside, a
variable the script set before read as its value, and ``bash -c '…'`` read in turn. What
cannot be read (an unclosed quote) is read word by word; a program made only when the
command runs (``$(printf rm) -rf src``, ``$RM -rf src``) is named for that. Not judged:
code run by the ``python`` tool, a script file the command runs, ``>`` over a file
(alone, ``> f`` is the patch emptying it: ``write_via_shell.emptied_patch``), plain ``rm
FILE`` (one named file, the way models remove what they made; alone, it is the patch
tool's undoable deletion: ``tools/delete_via_shell.py``). With the workspace at hand (``kind_of``),
``mv``/``cp`` onto a file that exists is named too (a plain one, alone, is the patch
tool's: ``move_via_shell.replaced_in_command``; a plain ``rm -r`` alone is ``remove``'s
call: ``tools/remove_tree.py``).

Deleting what a build makes again is not asked: every target of the ``rm`` inside a
folder such as ``node_modules``, ``dist``, ``__pycache__`` (:data:`REMADE`), compiled
files (``*.pyc``, ``*.o``), or under ``/tmp``.
"""

from __future__ import annotations

import posixpath
import re
import shlex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    KindOf = Callable[[str], str | None]
    """What a path names in the workspace: ``"file"``, ``"dir"``, or ``None``."""

MAX_SCRIPT = 4 * 1024
"""Characters of a command (here-documents' bodies aside) read as bash would; past it
the rest is read word by word (linear either way, but ``shlex`` reads a few characters a
microsecond: a 64 KiB command took 100 ms of the loop)."""
_NAMED = re.compile(r"(?<![\w.-])(?:rm|git|find|shred|mv|cp|eval)(?![\w.-])")
"""A word every command named here holds, however it is wrapped or nested: a command
without one is not read further. Looked for with the quotes and backslashes taken out
(:func:`_joined`): the shell joins ``r''m``, ``r""m`` and ``r\\m`` into ``rm`` (stop 62:
they were not seen, so such an ``rm -rf src`` ran unasked under ``auto-edit``). A name
the script keeps in a variable (``RM="rm -rf"; $RM src``) is read through it
(:func:`_through_variables`); one made otherwise at run time (``$(printf rm)``) cannot
be read, and is named as such (:func:`made_at_run_time`)."""
MAX_DEPTH = 3
"""``bash -c`` inside ``bash -c`` … read this deep; deeper counts as destructive."""
MAX_NESTING = 8
"""``$(…)`` inside ``$(…)`` … read this deep for a program made at run time (each level
reads each character once: linear); deeper counts as destructive."""

REMADE = frozenset(
    {
        "node_modules",
        "dist",
        "build",
        "target",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".next",
        ".nuxt",
        ".turbo",
        ".parcel-cache",
        ".gradle",
        "coverage",
        "htmlcov",
        ".coverage",
    }
)
"""Folders a build or an install makes again: deleting inside them loses nothing written."""
_REMADE_SUFFIXES = (".pyc", ".pyo", ".o", ".class", ".egg-info")
_SEPARATORS = ";&|()\n"
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_TO_SHELL = re.compile(r"\s*(?:sudo\s+)?(?:\S*/)?(?:ba|z|da|k)?sh(?:\s+-\w+)*\s*<<")
"""A line whose here-document a shell runs as its script (``bash <<'EOF'``)."""
_SPACED = re.compile(r"[\s'\"]")
_TO_PYTHON = re.compile(r"python[\d.]*(?:\s+-\w*)*\s+(?:-\s+)?<<|python[\d.]*\s+-c\s")
"""Python given its code in the command: a here-document, or ``-c``."""
_MOVERS = frozenset({"mv", "cp", "rm", "git", "find"})
"""Commands after which the workspace seen before the command no longer says what is
where (``mv a b && cp b a`` loses nothing)."""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_WRAPPERS = frozenset({"sudo", "doas", "command", "builtin", "exec", "nohup", "time", "nice"})
_WRAPPER_ARGS = {"sudo": {"-u", "-g", "-h", "-p", "-C"}, "nice": {"-n"}}
"""A wrapper's options that take the next word as their value."""
_XARGS_ARGS = frozenset({"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a"})
_GIT_ARGS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})


def destroys(command: str | list[str], depth: int = 0, kind_of: KindOf | None = None) -> str | None:
    """What in ``command`` (a ``bash -c`` script, or an argv) deletes files or discards
    changes that no undo brings back, said in a few words (```rm -rf src` deletes files``);
    ``None`` when nothing does, as far as it can be read. ``kind_of``: what a path names
    in the workspace (``"file"``, ``"dir"``, ``None``), to tell an ``mv``/``cp`` that
    would overwrite a file; read from the workspace root, so not after a ``cd``."""
    if isinstance(command, list):
        return _judged(command, depth, kind_of)
    if _TO_PYTHON.search(command) and (why := python_destroys(command)) is not None:
        return why  # `python3 - <<'EOF'` runs its body as the python tool runs its code
    if _MADE.search(command) and (why := made_at_run_time(command, depth)) is not None:
        return why  # `$(printf rm) -rf src`: what it runs cannot be read before it runs
    if not _NAMED.search(_joined(command)):
        return None  # the common case, at a regular expression's speed
    assigned: dict[str, str] = {}
    for words in simple_commands(command):
        if _assigns(words, assigned):
            continue
        words = _through_variables(words, assigned)
        if words[0] in ("cd", "pushd", "popd"):
            kind_of = None  # relative paths are another folder's now
        elif any(_NAMED.search(word) for word in words):
            why = _judged(words, depth, kind_of)
            if why is not None:
                return why
            run = unwrapped(words)
            if run and posixpath.basename(run[0]) in _MOVERS:
                kind_of = None  # the workspace as it is now no longer tells what follows
    return None


_MADE = re.compile(r"[$`]")
"""A character without which no program's name is made at run time."""
_KEYWORDS = frozenset({"!", "{", "}", "then", "do", "else", "elif", "if", "while", "until"})
"""Words before a command's name that are the shell's own (``if $(x); then …``)."""
_HEADS = ";&|\n"
"""Where a command's name can start (parentheses and ``$(`` kept inside the words)."""


def made_at_run_time(script: str, depth: int = 0) -> str | None:
    """A command of ``script`` whose program the shell makes only when it runs it —
    ``$(printf rm) -rf src``, `` `echo rm` -rf src``, ``$'\\x72m' -rf src``, ``${x}m``, a
    variable the script did not set (``$RM -rf src``), ``eval "$(… | base64 -d)"`` — said
    as destroying: nothing can tell what it deletes before it runs (stop 66: each ran
    unasked under ``auto-edit``). Looked for in each command substitution too,
    :data:`MAX_NESTING` deep."""
    assigned: dict[str, str] = {}
    for words in _heads(script):
        if _assigns(words, assigned):
            continue
        run = unwrapped(_through_variables(words, assigned))
        while run and run[0].lstrip("(") in _KEYWORDS:
            run = run[1:]
        if not run:
            continue
        name = run[0].lstrip("(")
        if name[:1] in ("$", "`") or "$(" in name or "`" in name:
            return f"`{_shown(run)}` runs a program made only when it runs, which may delete files"
        if posixpath.basename(name) == "eval" and any(_MADE.search(w) for w in run[1:]):
            return f"`{_shown(run)}` runs code made only when it runs, which may delete files"
    inner = _substitutions(script)
    if inner and depth >= MAX_NESTING:
        return f"`{_shown(script.split())}` nests commands too deep to read"
    for text in inner:  # each outermost one, read once: linear in the script
        if (why := made_at_run_time(text, depth + 1)) is not None:
            return why
    return None


def _heads(script: str) -> Iterator[list[str]]:
    """The words of each simple command, ``$(`` and backquotes kept in them (where
    :func:`simple_commands` splits there): a command's first word as the shell sees it."""
    text = _without_heredocs(script)[:MAX_SCRIPT]
    lexer = shlex.shlex(text, posix=True, punctuation_chars=_HEADS)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    found: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and all(c in _HEADS for c in token):
                found.append([])
            else:
                found[-1].append(token)
    except ValueError:  # an unclosed quote: word by word
        found = [part.split() for part in re.split(r"[;&|\n]+", text)]
    yield from (words for words in found if words)


def _substitutions(script: str) -> list[str]:
    """What each outermost ``$(…)`` and `` `…` `` of ``script`` holds, in one pass (those
    inside are read when these are; quotes not read: on the safe side, an odd parenthesis
    ends one early, an unclosed one runs to the end)."""
    text = script[:MAX_SCRIPT]
    out: list[str] = []
    level, start, i = 0, 0, 0
    while i < len(text):
        pair = text[i : i + 2]
        if pair == "$(":
            if level == 0:
                start = i + 2
            level += 1
            i += 2
            continue
        if level and text[i] == "(":
            level += 1
        elif level and text[i] == ")":
            level -= 1
            if level == 0:
                out.append(text[start:i])
        i += 1
    if level:
        out.append(text[start:])
    out += text.split("`")[1::2]
    return [part for part in out if part.strip()]


_DECLARERS = frozenset({"export", "declare", "local", "readonly", "typeset"})
_VARIABLE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")


def _assigns(words: list[str], assigned: dict[str, str]) -> bool:
    """Whether ``words`` only set variables (``x=rm``, ``export RM="rm -rf"``); if so
    their values are kept in ``assigned``, the last one winning, as the shell's."""
    start = 1 if words[0] in _DECLARERS else 0
    rest = [w for w in words[start:] if not (start and w.startswith("-"))]
    if not rest or not all(_ASSIGNMENT.match(w) for w in rest):
        return False
    for word in rest:
        name, value = word.split("=", 1)
        assigned[name] = value
    return True


def _through_variables(words: list[str], assigned: dict[str, str]) -> list[str]:
    """``words`` with each word that is only a variable the script set before (``$RM``,
    ``${x}``) replaced by its value's words, as the shell expands an unquoted one (a
    quoted one stays one word; read apart, it is on the safe side)."""
    if not assigned or not any("$" in w for w in words):
        return words
    out: list[str] = []
    for word in words:
        named = _VARIABLE.fullmatch(word)
        name = named and (named.group(1) or named.group(2))
        if name and name in assigned:
            out.extend(assigned[name].split() or [""])
        else:
            out.append(word)
    return [w for w in out if w] or words


def _joined(command: str) -> str:
    """``command`` with its quotes and backslashes taken out, as the shell joins a word's
    pieces (``r''m`` is ``rm``): for the look for a name only."""
    if "'" not in command and '"' not in command and "\\" not in command:
        return command
    return command.replace("'", "").replace('"', "").replace("\\", "")


def simple_commands(script: str) -> Iterator[list[str]]:
    """The words of each simple command of ``script``, in order (see the module doc)."""
    whole = _without_heredocs(script)
    text, rest = whole[:MAX_SCRIPT].replace("`", "\n"), whole[MAX_SCRIPT:]
    lexer = shlex.shlex(text, posix=True, punctuation_chars=_SEPARATORS)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    found: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and all(c in _SEPARATORS for c in token):
                found.append([])
            else:
                found[-1].append(token)
    except ValueError:  # an unclosed quote: read it word by word instead
        found = list(_plainly(text))
    yield from (words for words in found if words)
    if rest:
        yield from _plainly(rest)


def _plainly(text: str) -> Iterator[list[str]]:
    """Words split at blanks and at the separators, quotes kept as they are."""
    for part in re.split(r"[;&|()\n`]+", text):
        words = [w.strip("'\"") for w in part.split()]
        if words:
            yield words


def _without_heredocs(script: str) -> str:
    """``script`` without the bodies of its here-documents (their lines are data)."""
    return split_heredocs(script)[0]


def split_heredocs(script: str) -> tuple[str, list[str]]:
    """``(script without its here-documents' bodies, the bodies)``; a body fed to a shell
    (``bash <<'EOF'``) runs as commands, so it stays in the script."""
    if "<<" not in script:
        return script, []
    out: list[str] = []
    bodies: list[str] = []
    body: list[str] = []
    ending: list[str] = []
    for line in script.split("\n"):
        if ending:
            if line.strip() == ending[0]:
                ending.pop(0)
                bodies.append("\n".join(body))
                body = []
            else:
                body.append(line)
            continue
        out.append(line)
        if not _TO_SHELL.match(line):  # `bash <<'EOF'` runs its body: commands, kept
            ending = [m.group(2) for m in _HEREDOC.finditer(line) if not line.startswith("#")]
    if body:
        bodies.append("\n".join(body))  # a body never closed runs to the end
    return "\n".join(out), bodies


def _judged(words: list[str], depth: int, kind_of: KindOf | None) -> str | None:
    words = unwrapped(words)
    if not words:
        return None
    name = posixpath.basename(words[0].lstrip("\\"))
    args = words[1:]
    shown = _shown(words)
    if name == "eval" and args:
        if depth >= MAX_DEPTH:
            return f"`{shown}` runs a shell inside a shell too deep to read"
        return destroys(" ".join(args), depth + 1, kind_of)
    if name in _SHELLS:
        script = _shell_script(args)
        if script is None:
            return None
        if depth >= MAX_DEPTH:
            return f"`{shown}` runs a shell inside a shell too deep to read"
        return destroys(script, depth + 1, kind_of)
    if name == "rm":
        return _rm(args, shown)
    if name == "find":
        if "-delete" in args or any(
            a in ("-exec", "-execdir", "-ok") and i + 1 < len(args) and _is(args[i + 1], "rm")
            for i, a in enumerate(args)
        ):
            return f"`{shown}` deletes the files it finds"
        return None
    if name == "shred":
        return f"`{shown}` destroys files"
    if name == "git":
        return _git(args, shown)
    if name in ("mv", "cp") and kind_of is not None:
        return _overwrites(args, shown, kind_of)
    return None


def _overwrites(args: list[str], shown: str, kind_of: KindOf) -> str | None:
    """``mv``/``cp`` onto a file that exists (``cp .env.example .env``): the file it
    replaces is gone. Not when it keeps it (``-n``, ``-i``: asked on an empty stdin,
    ``-b``), names its folder otherwise (``-t``), or a path the shell would expand."""
    flags, operands = _flags(args)
    keeps = {"n", "i", "b", "t", "--no-clobber", "--interactive", "--backup", "--target-directory"}
    if flags & keeps or len(operands) < 2 or any(_expands(p) for p in operands):
        return None
    *sources, target = operands
    if kind_of(target) == "file":
        return f"`{shown}` overwrites {target}"
    if kind_of(target) == "dir":
        for source in sources:
            inside = posixpath.join(target, posixpath.basename(source.rstrip("/")))
            if kind_of(inside) == "file":
                return f"`{shown}` overwrites {inside}"
    return None


def _expands(word: str) -> bool:
    return word.startswith("~") or any(c in word for c in "$*?[{`")


def _shown(words: list[str]) -> str:
    """The words as read, one quoted where it holds a blank or a quote (``jq '.v = 2'
    f``), at most 60 characters."""
    text = " ".join(shlex.quote(w) if not w or _SPACED.search(w) else w for w in words)
    return text if len(text) <= 60 else text[:59] + "…"


def _is(word: str, name: str) -> bool:
    return posixpath.basename(word.lstrip("\\")) == name


def unwrapped(words: list[str]) -> list[str]:
    """``words`` without leading assignments and wrappers (``sudo -u x``, ``env A=1``,
    ``timeout 5``, ``xargs -n1``): the command they run."""
    i = 0
    while i < len(words):
        word = words[i]
        name = posixpath.basename(word.lstrip("\\"))
        if _ASSIGNMENT.match(word):
            i += 1
        elif name in _WRAPPERS or name == "env":
            i += 1
            takes = _WRAPPER_ARGS.get(name, set()) | (
                {"-u", "-C", "-S"} if name == "env" else set()
            )
            while i < len(words) and (
                words[i].startswith("-") or (name == "env" and _ASSIGNMENT.match(words[i]))
            ):
                i += 2 if words[i] in takes else 1
        elif name == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in ("-s", "-k", "--signal", "--kill-after") else 1
            i += 1  # the duration
        elif name == "xargs":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in _XARGS_ARGS else 1
        else:
            break
    return words[i:]


def _shell_script(args: list[str]) -> str | None:
    """The script of ``bash -c SCRIPT`` (``-lc``, ``-ec`` …); ``None``: no ``-c``."""
    for i, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            return args[i + 1] if i + 1 < len(args) else None
        if not arg.startswith("-") and not arg.startswith("+"):
            return None  # a script file: not read
    return None


def _flags(args: list[str]) -> tuple[set[str], list[str]]:
    """Short option letters and long options (``-rf`` → ``r``, ``f``), and the operands."""
    flags: set[str] = set()
    operands: list[str] = []
    ended = False
    for arg in args:
        if ended or not arg.startswith("-") or arg == "-":
            operands.append(arg)
        elif arg == "--":
            ended = True
        elif arg.startswith("--"):
            flags.add(arg.split("=", 1)[0])
        else:
            flags.update(arg[1:])
    return flags, operands


def _rm(args: list[str], shown: str) -> str | None:
    flags, targets = _flags(args)
    if not flags & {"r", "R", "f", "--recursive", "--force"}:
        return None  # rm FILE: one named file, as models remove what they made
    if targets and all(remade(t) for t in targets):
        return None
    return f"`{shown}` deletes files"


def remade(target: str) -> bool:
    """``target`` is inside what a build makes again, or under ``/tmp``."""
    if "$" in target or target.startswith("~"):
        return False
    path = posixpath.normpath(target)
    if path.startswith(("/tmp/", "/var/tmp/")):
        return True
    if path.startswith("/") or path == ".." or path.startswith("../"):
        return False
    parts = path.split("/")
    return any(p in REMADE or p.endswith(_REMADE_SUFFIXES) for p in parts)


def _git(args: list[str], shown: str) -> str | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GIT_ARGS else 1
    if i >= len(args):
        return None
    sub, rest = args[i], args[i + 1 :]
    flags, operands = _flags(rest)
    if sub == "reset" and "--hard" in flags:
        return f"`{shown}` discards uncommitted changes"
    if sub == "checkout" and ("--" in rest or "." in operands or flags & {"f", "--force"}):
        return f"`{shown}` discards uncommitted changes"
    if sub == "restore" and (not flags & {"S", "--staged"} or flags & {"W", "--worktree"}):
        return f"`{shown}` discards uncommitted changes"
    if sub == "clean" and flags & {"f", "--force"} and not flags & {"n", "--dry-run"}:
        return f"`{shown}` deletes untracked files"
    if sub == "rm" and "--cached" not in flags:
        return f"`{shown}` deletes files"
    if sub == "stash" and operands[:1] in (["drop"], ["clear"]):
        return f"`{shown}` discards stashed changes"
    return None


_READERS = frozenset(
    {
        "cat", "tac", "sort", "uniq", "sed", "awk", "gawk", "grep", "egrep", "fgrep", "rg",
        "jq", "yq", "head", "tail", "cut", "rev", "fmt", "fold", "expand", "unexpand", "nl",
        "paste", "iconv", "xxd", "base64", "column", "json_pp", "wc", "dos2unix",
    }
)  # fmt: skip
"""Commands that read the files named as their arguments (``tr`` reads only its input)."""
_PROGRAM_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "jq", "yq"})
"""Readers whose first operand is a pattern or a program, not a file (unless ``-e``/``-f``
gave it)."""
_PIPELINE_ENDS = re.compile(r"\n|;|&&|\|\||(?<![>|])&(?!>)")
_REDIRECTIONS = frozenset({">", ">|", "&>", "<"})


def empties_itself(command: str) -> str | None:
    """Why ``command`` would empty a file before reading it (``sort f > f``, ``jq . x.json
    > x.json``, ``tr a b < f > f``): the shell truncates a ``>`` target before any command
    of the pipeline runs, so what the command reads of it is nothing, and the file is
    lost. ``None`` when no pipeline of it does (as far as it can be read: quoted and plain
    words; a variable or a glob is not followed)."""
    if ">" not in command:
        return None
    text = _without_heredocs(command)[:MAX_SCRIPT]
    for pipeline in _PIPELINE_ENDS.split(text):
        if ">" not in pipeline:
            continue
        lexer = shlex.shlex(pipeline, posix=True, punctuation_chars="<>|&")
        lexer.whitespace_split = True
        try:
            tokens = list(lexer)
        except ValueError:
            continue
        written: list[str] = []
        read: list[str] = []
        commands: list[list[str]] = [[]]
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if token in _REDIRECTIONS and i + 1 < len(tokens):
                (read if token == "<" else written).append(tokens[i + 1])
                i += 2
                continue
            if token == "|":
                commands.append([])
            elif token.startswith(">") or token.endswith(">"):
                pass  # >>, 2>, 2>&1: appends or another stream, never read back here
            else:
                commands[-1].append(token)
            i += 1
        for words in commands:
            words = unwrapped(words)
            name = posixpath.basename(words[0]) if words else ""
            if name in _READERS:
                operands = [w for w in words[1:] if not w.startswith("-")]
                given = any(w in ("-e", "-f") or w.startswith("--expression") for w in words)
                if name in _PROGRAM_FIRST and not given:
                    operands = operands[1:]  # the pattern or the program
                read.extend(operands)
        norm = {posixpath.normpath(p) for p in read if not _expands(p)}
        for target in written:
            if target.startswith("/dev/"):
                continue  # a device (`< /dev/null > /dev/null`): nothing to lose
            if not _expands(target) and posixpath.normpath(target) in norm:
                shown = _shown(tokens)
                return (
                    f"`{shown}` would empty {target} before it is read (the shell truncates "
                    f"a > target before the command runs), and {target} would be lost; "
                    f"nothing run. Write to another file, then move it over: … > "
                    f"{target}.tmp && mv {target}.tmp {target}"
                )
    return None


_PY_DELETES = re.compile(r"\b(?:shutil\.)?rmtree\s*\(|\bos\.removedirs\s*\(")
"""Python's ways to delete a folder with everything in it."""


def python_destroys(code: str) -> str | None:
    """What the ``python`` tool's ``code`` would destroy that no undo brings back: a
    folder deleted whole (``shutil.rmtree``); ``None`` otherwise (a file removed one by
    one, ``os.remove``, is how scripts tidy what they made: not named)."""
    found = _PY_DELETES.search(code[: 1 << 20])
    if found is None:
        return None
    line = code[: found.start()].count("\n")
    text = code.split("\n")[line].strip()
    shown = text if len(text) <= 60 else text[:59] + "…"
    return f"`{shown}` deletes a folder and everything in it"
