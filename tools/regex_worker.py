"""The child process that runs Python's ``re`` for grep when RE2 cannot (``regex_guard``).

Started as ``python -I -S regex_worker.py``: it imports only the standard library, so it
starts in a few milliseconds and needs nothing of Frontier's. It reads, on stdin:

* once: the pattern's flags (4 bytes), the CPU seconds it may use (4 bytes), the pattern's
  length (4 bytes) and the pattern (UTF-8, surrogates passed through);
* then batches: a length (8 bytes) and that many bytes of UTF-8 text, lines split on
  ``\\n`` only;

and answers each batch with the number of matching lines (4 bytes) and their indices
(4 bytes each), all little-endian. End of input ends it.

It is the only place a model's regex runs as a backtracking match, and it is a separate
process on purpose: ``re`` holds the GIL for as long as a match runs, so in the agent a
catastrophic pattern (``(a+)+$``) froze everything, timers and Esc included. Here the
parent's timeout and Esc kill it, and its CPU limit ends it even if the parent died.
"""

from __future__ import annotations

import array
import re
import sys
import warnings
from typing import BinaryIO

INDEX = "I" if array.array("I").itemsize == 4 else "L"
"""Typecode of a 4-byte unsigned index (the reply's unit)."""


def _read(stream: BinaryIO, size: int) -> bytes | None:
    """Exactly ``size`` bytes, or ``None`` at end of input."""
    chunks: list[bytes] = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _limit_cpu(seconds: int) -> None:
    """SIGXCPU after ``seconds`` of CPU: a worker orphaned mid-match cannot spin forever."""
    if seconds <= 0:
        return
    try:
        import resource
    except ImportError:  # not POSIX: the parent's kill is the only bound
        return
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    head = _read(stdin, 12)
    if head is None:
        return 0
    flags = int.from_bytes(head[:4], "little")
    _limit_cpu(int.from_bytes(head[4:8], "little"))
    source = _read(stdin, int.from_bytes(head[8:], "little"))
    if source is None:
        return 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = re.compile(source.decode("utf-8", "surrogatepass"), flags).search
    while (size := _read(stdin, 8)) is not None:
        data = _read(stdin, int.from_bytes(size, "little"))
        if data is None:
            return 0
        lines = data.decode("utf-8", "surrogatepass").split("\n")
        hits = array.array(INDEX, [i for i, line in enumerate(lines) if search(line)])
        if sys.byteorder != "little":
            hits.byteswap()
        stdout.write(len(hits).to_bytes(4, "little") + hits.tobytes())
        stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
