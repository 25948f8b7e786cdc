"""Whether a command-line source names bytes to read or a stored session.

Its own module so that ``frontier check SESSION`` decides it without importing the capture
readers (their detectors, their patterns and the wire codecs: ~3 ms of start-up, issue 24).
"""

from __future__ import annotations

from pathlib import Path


def split_pick(arg: str) -> tuple[str, int | None]:
    """``FILE#N`` → (``FILE``, N), only when ``arg`` itself is not an existing file and
    ``FILE`` is (a session's ``SESSION#N`` stays whole). ``FILE#`` then anything but a
    number (``x.har#1#2``, ``x.har#a``) is (``FILE``, ``None``) when ``FILE`` is a file, so
    that it is read as the file it names and :func:`bad_pick` refuses the pick: it was
    looked up as a stored session, whose error said the file was not one."""
    if arg == "-" or Path(arg).is_file() or "#" not in arg:
        return arg, None
    path, _, index = arg.rpartition("#")
    if (path == "-" or Path(path).is_file()) and index.isdigit():
        return path, int(index)
    head = _file_before_a_hash(arg)
    return (head, None) if head is not None else (arg, None)


def _file_before_a_hash(arg: str) -> str | None:
    """The longest part of ``arg`` before one of its ``#`` that is ``-`` or an existing
    file (a file's name may hold ``#`` itself), else ``None``."""
    at = len(arg)
    while (at := arg.rfind("#", 0, at)) > 0:
        head = arg[:at]
        if head == "-" or Path(head).is_file():
            return head
    return None


def bad_pick(arg: str) -> str | None:
    """What is wrong with the ``#…`` after a capture's file name, ``None`` when nothing is
    (no pick, or ``#N`` with N from 1): ``#0`` was "not an event stream" of a response that
    does not exist, and ``x.har#1#2`` "not a file" of a file that is one."""
    if arg == "-" or Path(arg).is_file():
        return None
    path, pick = split_pick(arg)
    if pick == 0:
        return "#0 does not exist: FILE#N counts the capture's responses from 1"
    if pick is None and path != arg:
        rest = arg[len(path) :]
        shown = rest if len(rest) <= 40 and rest.isprintable() else "what follows it"
        return f"{shown!r} after the file's name picks no response: FILE#N picks response N"
    return None


def is_capture_arg(arg: str) -> bool:
    """Whether ``arg`` names bytes to read (a file, ``-``, ``FILE#N``) rather than a
    stored session."""
    path, _ = split_pick(arg)
    return path == "-" or Path(path).is_file()
