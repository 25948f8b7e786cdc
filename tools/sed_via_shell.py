"""Files a model edited with ``sed -i``.

Models trained where the shell is the only tool (SWE-agent's, mini-swe-agent's, and most
others now and then) edit a file in place with ``sed -i 's/old/new/' FILE``. As a command
that edit had no review, no undo, and under ``--approval auto-edit`` it ran unasked (the
sandbox lets a command write the workspace): a pattern that matched more than the model
meant rewrote lines nobody saw. Such a call is the patch tool's: read here, and made one
in the agent loop as ``apply_patch <<'EOF'`` is (``tools/patch_via_shell.py``), so it is
reviewed as a diff, written atomically, **undone as any edit**, and the model is shown its
call as ``apply_patch`` (the diff of what its ``sed`` did).

The new content is GNU sed's own: ``sed --sandbox`` (no ``e``, ``w``, ``r``: it can run
nothing and touch no file) reads each file's bytes on its stdin with the call's script
and options, one run per file as ``-i`` runs it, and the patch is the diff of the two
(``tools/diffing.py``), so the file written is the file ``sed -i`` would have written. A
sed that is not GNU's (no ``--sandbox``), a script sed refuses, one that runs past
:data:`SECONDS` or writes more than :data:`KEPT_MAX`, an edit of more than
:data:`MAX_CHANGED` lines, a patch the engine would not write byte for byte as sed does
(``patch_via_shell.writes_exactly``: line ends it takes from the file): a command, run
as before.

Only ``sed`` alone counts (after at most ``cd DIR &&``, or in a ``workdir``), with
``-i``/``--in-place`` and no backup suffix, scripts given plainly (``-e``, or the first
operand), options among ``-E``/``-r``, ``-n``, ``-s`` and their long names, and FILEs
naming regular files of the workspace (not links, UTF-8, at most 4 MiB), each once
— a FILE may be a glob of names in one folder (``src/*.py``, not ``*/*.py``), expanded as
bash would (``tools/shell_words.py``), up to :data:`MAX_FILES` files. Anything else the
shell would expand or act on (``$``, a backquote, ``[``, a brace, ``~``, ``;``, a pipe, a
redirection) or a second command: a command. A call with no file changed stays a
command too (it changes nothing).

The patch is made from each file's content at confirmation, so it is made only when the
files are as the call will find them (``Registry.meant``'s ``settled``).
"""

from __future__ import annotations

import glob
from collections.abc import Mapping

from frontier.app.programs import find_program
from frontier.tools import beneath
from frontier.tools.bounded_run import Deadline, run_bounded
from frontier.tools.delete_via_shell import KEPT_MAX, command_words, regular_file
from frontier.tools.patch_via_shell import MAX_FILES, folder_prefix, result_patch
from frontier.tools.paths import PathError
from frontier.tools.shell_words import Word, bash_words

SECONDS = 1.0
"""The longest the ``sed`` runs of one call may take together (a script that loops: the
call stays a command, bounded by the shell's own timeout); the call waits on them."""
_SHORT = {"E": "-E", "r": "-E", "n": "-n", "s": ""}
_LONG = {"--regexp-extended": "-E", "--quiet": "-n", "--silent": "-n", "--separate": ""}


def sed_patch(command: object, args: Mapping[str, object], root: str | None) -> str | None:
    """The unified diff of what ``command`` (``shell``'s argument), a plain ``sed -i``,
    changes in the workspace's files; ``None`` when it is anything else or changes
    nothing (the call stays a command)."""
    found = command_words(command, root, "sed")
    words = bash_words(found[1]) if found is not None else None
    if found is None or words is None or root is None:
        return None
    read = _options(words[1:])
    if read is None:
        return None
    options, scripts, operands = read
    files = _files(operands, args, root, found[0])
    if files is None:
        return None
    deadline = Deadline(SECONDS)
    return result_patch(root, (_edited(root, rel, options, scripts, deadline) for rel in files))


def _files(
    operands: list[Word], args: Mapping[str, object], root: str, folder: str
) -> list[str] | None:
    """The workspace files ``operands`` name, as bash reads them in the call's folder (a
    ``workdir``, a ``cd``): a glob expanded as bash would (sorted, no hidden names), each
    a regular file (:func:`regular_file`) named once; ``None`` otherwise (a glob that
    matches nothing is sed's error, run as a command)."""
    base = folder_prefix(args, root, folder)
    if base is None:
        return None
    names: list[str] = []
    for word in operands:
        if word.pattern is None:
            names.append(word.text if word.text.startswith("/") else base + word.text)
            continue
        folder, _, _name = word.pattern.rpartition("/")
        if word.pattern.startswith("/") or glob.has_magic(folder):
            return None  # absolute, or a walk of the folders below (*/*/*.py): bash's
        matched = sorted(glob.glob(glob.escape(base) + word.pattern, root_dir=root))
        if not matched or len(names) + len(matched) > MAX_FILES:
            return None
        names += matched
    files: list[str] = []
    for name in names:
        rel = regular_file(root, name)
        if rel is None or rel in files:
            return None  # sed -i f f edits f twice: not read as one patch
        files.append(rel)
    return files


def _options(words: list[Word]) -> tuple[list[str], list[str], list[Word]] | None:
    """``(options, scripts, files)`` of GNU sed's words after ``sed`` (options anywhere,
    as it reads them), when they edit in place with nothing else asked; else ``None``. Only
    a file may be a glob."""
    options: list[str] = []
    scripts: list[str] = []
    operands: list[Word] = []
    in_place = False
    index = 0
    while index < len(words):
        word = words[index].text
        if words[index].pattern is not None and not word.startswith("-"):
            operands.append(words[index])
            index += 1
            continue
        index += 1
        if word == "--":
            operands += words[index:]
            break
        if word in ("-i", "--in-place"):
            in_place = True
        elif word in _LONG:
            options.append(_LONG[word])
        elif word.startswith("--expression="):
            scripts.append(word.removeprefix("--expression="))
        elif word == "--expression":
            if index >= len(words) or words[index].pattern is not None:
                return None
            scripts.append(words[index].text)
            index += 1
        elif word.startswith("-") and len(word) > 1 and not word.startswith("--"):
            letters = word[1:]
            for at, letter in enumerate(letters):
                if letter == "i":
                    if at != len(letters) - 1:
                        return None  # -iE: a backup file named with suffix E
                    in_place = True
                elif letter == "e":
                    rest = letters[at + 1 :]
                    if not rest:
                        if index >= len(words) or words[index].pattern is not None:
                            return None
                        rest = words[index].text
                        index += 1
                    scripts.append(rest)
                    break
                elif letter in _SHORT:
                    options.append(_SHORT[letter])
                else:
                    return None  # -f, -z, -u, -l, -b…: not the plain form
        elif word.startswith("-") and len(word) > 1:
            return None  # --in-place=SUFFIX, --posix, --follow-symlinks…
        else:
            operands.append(words[index - 1])
    if not scripts and operands:
        script = operands.pop(0)
        if script.pattern is not None:
            return None  # bash would glob the script
        scripts.append(script.text)
    if not in_place or not scripts or not operands:
        return None
    return sorted({o for o in options if o}), scripts, operands


def _edited(
    root: str, rel: str, options: list[str], scripts: list[str], deadline: Deadline
) -> tuple[str, bytes, bytes] | None:
    """``(rel, its bytes, the bytes sed leaves)``; ``None`` when it cannot be read or sed
    would not edit it."""
    try:
        data, _mode = beneath.read_file(root, rel, KEPT_MAX)
    except (OSError, ValueError, PathError):
        return None
    if data is None:
        return None
    argv = ["--sandbox", *options]
    for script in scripts:
        argv += ["-e", script]
    edited = run_sed(argv, data, deadline.left(), root)
    return None if edited is None else (rel, data, edited)


def run_sed(
    argv: list[str], data: bytes, seconds: float | None = None, root: str | None = None
) -> bytes | None:
    """What ``sed ARGV`` writes for ``data`` on its stdin, or ``None``: no sed, a failure,
    more than :data:`KEPT_MAX` bytes, or longer than ``seconds`` (:data:`SECONDS`)."""
    sed = find_program("sed", root)
    if sed is None:
        return None
    ran = run_bounded(
        [sed, *argv], given=data, limit=KEPT_MAX, seconds=SECONDS if seconds is None else seconds
    )
    return ran[1] if ran is not None and ran[0] == 0 else None
