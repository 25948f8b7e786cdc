"""Standard streams closed by whoever started Frontier are ``/dev/null`` instead.

``frontier run "…" <&-`` (a daemon, a cron job, a harness that closes what it does not
pass) leaves Python's ``sys.stdin`` ``None``, and the first ``isatty()`` or ``flush()``
raised a traceback (``frontier run`` with stdin closed, ``sessions`` and ``check`` with
stdout closed). Worse, a descriptor 0, 1 or 2 left free is the next one ``open`` returns:
the session store could become "standard output" for whatever writes there. git does the
same at start (``sanitize_stdfds``).
"""

from __future__ import annotations

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
