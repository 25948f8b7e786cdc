"""A child's stderr copied into a log file that stays within a bound while it runs.

An MCP server's stderr went straight into its log file, and the log was moved aside only
when the server next started: a server that logs every request (many do at their default
level; at debug some write every message they get, tool results included) grew it
without end within one session, in the data folder. Here the child writes into a pipe
and a thread copies what it reads into the log, moving the log to ``NAME.1`` (the one
before is dropped) each time the next piece would take it past ``limit``: at most twice
``limit`` on disk per server, and the newest lines (a crash's last words, which the
notes quote) are always in the log.

A log that cannot be written (a full disk, a folder made read-only) is skipped, never
waited on: the thread keeps reading, so the child never blocks on its stderr.

The secrets the child was given (its ``env`` values, what its arguments hold) are
hidden in the log (``[env value]``, ``[REDACTED]``): a server that printed its token as
it failed had it kept there, where the doctor and every note send the person. What is
read is written at once, but for an end that could be the start of a secret (held, at
most the longest secret's length, until the next read or the end): a secret split
across two reads is still hidden, and a line with no end (a prompt, a last complaint
before exiting) is never held back.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TextIO

CHUNK = 1 << 16
"""Bytes read from the pipe at a time."""
HOLD_MAX = 4096
"""A longer secret is not waited for across reads (finding its start would cost as much)."""


class CappedLog:
    """``stream``, the write end of a pipe, is what the child gets as its stderr; call
    :meth:`spawned` once the child holds its copy, and :meth:`close` when done with it
    (either closes Frontier's copy, so the copying ends when the child's stderr does)."""

    def __init__(self, path: Path, limit: int, secrets: Mapping[str, str] | None = None) -> None:
        read_fd, write_fd = os.pipe()
        self.path = path
        self.limit = limit
        self.secrets = sorted(
            (
                (v.encode("utf-8", "surrogateescape"), shown.encode())
                for v, shown in (secrets or {}).items()
                if v
            ),
            key=lambda pair: len(pair[0]),
            reverse=True,
        )
        """What never reaches the log as written (longest first), and what it reads as."""
        self._pattern = (
            re.compile(b"|".join(re.escape(v) for v, _ in self.secrets)) if self.secrets else None
        )
        """Any secret, longest first: replaced in one pass, so none is cut by another's."""
        self._shown = dict(self.secrets)
        self.rotations = 0
        """Times the log was moved aside while this child ran."""
        self.stream: TextIO = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self._thread = threading.Thread(
            target=self._copy, args=(read_fd,), name=f"stderr to {path.name}", daemon=True
        )
        self._thread.start()

    def spawned(self) -> None:
        """The child has its copy of the pipe: Frontier's is closed."""
        self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.stream.close()

    def join(self, timeout: float | None = None) -> bool:
        """Wait until everything the child wrote is in the log (its stderr closed);
        whether it is."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _copy(self, fd: int) -> None:
        log: IO[bytes] | None = None
        held = b""
        try:
            log, size = self._open()
            while True:
                read = os.read(fd, CHUNK)
                chunk, held = self._writable(held + read, ended=not read)
                if not chunk:
                    if read:
                        continue
                    break
                if log is not None and size and size + len(chunk) > self.limit:
                    log.close()
                    log, size = self._rotate()
                if log is None:
                    continue  # no log to write: read on, so the child is never held
                try:
                    log.write(chunk)
                    size += len(chunk)
                except OSError:
                    log.close()
                    log = None
        finally:
            os.close(fd)
            if log is not None:
                log.close()

    def _writable(self, data: bytes, *, ended: bool) -> tuple[bytes, bytes]:
        """What may be written now, its secrets hidden, and what waits for the next read:
        the longest end of ``data`` that could be the start of a secret and cuts no whole
        secret found in two (none once ``ended``). A secret whose own end starts a secret
        was held in part and written in clear; a password inside a URL that is a secret
        too was hidden alone when the read ended inside the URL."""
        if self._pattern is None:
            return data, b""
        spans = [m.span() for m in self._pattern.finditer(data)]
        cut = len(data) if ended else self._hold_from(data, spans)
        parts: list[bytes] = []
        at = 0
        for start, end in spans:
            if end > cut:
                break
            parts += [data[at:start], self._shown[data[start:end]]]
            at = end
        parts.append(data[at:cut])
        return b"".join(parts), data[cut:]

    def _hold_from(self, data: bytes, spans: list[tuple[int, int]]) -> int:
        """Where the held end of ``data`` begins: the earliest place, among the last
        bytes, from which ``data`` is a proper start of a secret and that no secret found
        spans; ``len(data)``: nothing is held."""
        tail = max(0, len(data) - HOLD_MAX)
        near = [(start, end) for start, end in spans if end > tail]  # the only ones a hold cuts
        best = len(data)
        for secret, _ in self.secrets:
            if len(secret) > HOLD_MAX:
                continue  # replaced where a read holds it whole; never waited for
            first = secret[:1]
            at = max(0, len(data) - len(secret) + 1)
            while (at := data.find(first, at)) != -1 and at < best:
                cuts = any(start < at < end for start, end in near)
                if not cuts and secret.startswith(data[at:]):
                    best = at
                    break
                at += 1
        return best

    def _open(self) -> tuple[IO[bytes] | None, int]:
        try:
            log = self.path.open("ab", buffering=0)  # unbuffered: a reader sees each line
        except OSError:
            return None, 0
        try:
            return log, os.fstat(log.fileno()).st_size
        except OSError:
            log.close()
            return None, 0

    def _rotate(self) -> tuple[IO[bytes] | None, int]:
        with contextlib.suppress(OSError):
            os.replace(self.path, self.path.with_name(self.path.name + ".1"))
            self.rotations += 1
        return self._open()
