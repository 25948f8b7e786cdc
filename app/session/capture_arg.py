"""Whether a command-line source names bytes to read or a stored session.

Its own module so that ``frontier check SESSION`` decides it without importing the capture
readers (their detectors, their patterns and the wire codecs: ~3 ms of start-up, issue 24).
"""

from __future__ import annotations

from pathlib import Path


def split_pick(arg: str) -> tuple[str, int | None]:
    """``FILE#N`` → (``FILE``, N), only when ``arg`` itself is not an existing file and
    ``FILE`` is (a session's ``SESSION#N`` stays whole)."""
    if arg == "-" or Path(arg).is_file() or "#" not in arg:
        return arg, None
    path, _, index = arg.rpartition("#")
    if (path == "-" or Path(path).is_file()) and index.isdigit():
        return path, int(index)
    return arg, None


def is_capture_arg(arg: str) -> bool:
    """Whether ``arg`` names bytes to read (a file, ``-``, ``FILE#N``) rather than a
    stored session."""
    path, _ = split_pick(arg)
    return path == "-" or Path(path).is_file()
