"""Standard streams closed by whoever started Frontier are ``/dev/null`` instead.

``frontier run "…" <&-`` (a daemon, a cron job, a harness that closes what it does not
pass) leaves Python's ``sys.stdin`` ``None``, and the first ``isatty()`` or ``flush()``
raised a traceback (``frontier run`` with stdin closed, ``sessions`` and ``check`` with
stdout closed). Worse, a descriptor 0, 1 or 2 left free is the next one ``open`` returns:
the session store could become "standard output" for whatever writes there. git does the
same at start (``sanitize_stdfds``).

And a stream that cannot encode every character (``PYTHONIOENCODING=ascii``, a legacy
8-bit locale) writes ``?`` for what it cannot say: Frontier's own lines hold ✓ ✗ … and a
model's text holds anything, and Python's strict default made the first such character
a traceback (``frontier demo --headless`` ended at its first line).
"""

from __future__ import annotations

import codecs
import io
import os
import sys

_STREAMS = (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w"))


def silence(fd: int, flags: int = os.O_WRONLY) -> None:
    """Descriptor ``fd`` made ``/dev/null`` (open or closed before): writes to it go
    nowhere, reads end at once. Where a reader went away (``| head``) or a terminal hung
    up, so that what is still written cannot fail."""
    devnull = os.open(os.devnull, flags)
    if devnull != fd:  # a closed ``fd`` is the lowest free one: ``open`` returned it
        os.dup2(devnull, fd)
        os.close(devnull)


def reopen_closed() -> None:
    """Each of descriptors 0, 1 and 2 that is closed opened on ``/dev/null``, and its
    ``sys`` stream made from it; nothing to do (two attribute reads) when all are open."""
    for name, fd, mode in _STREAMS:
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:  # closed: Python found it so at start
            silence(fd, os.O_RDONLY if mode == "r" else os.O_WRONLY)
        # lives as long as the process, as the stream Python would have made
        stream = open(fd, mode, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def replace_unencodable() -> None:
    """``sys.stdout`` and ``sys.stderr`` write ``?`` for a character their encoding cannot
    hold, rather than raising mid-line; a UTF-8 stream (nearly all) is left as it is."""
    for stream in (sys.stdout, sys.stderr):
        if (
            isinstance(stream, io.TextIOWrapper)
            and stream.errors == "strict"
            and not is_utf8(stream.encoding)
        ):
            stream.reconfigure(errors="replace")


def is_utf8(encoding: str | None) -> bool:
    """Whether ``encoding`` (any of Python's spellings) is UTF-8."""
    if encoding is None:
        return False
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False
