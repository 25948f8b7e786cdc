"""Recognising the prefix a server echoes back when it continues an assistant message.

A continuation request ends with an assistant message holding the bytes the model
has sent so far (the *prefix*); the server generates what comes next. Some servers
(llama.cpp's ``llama-server``) first send the prefix back, merged into the first
content delta(s) with the first new token: the prefix ``"1, 2, 3,"`` comes back as
``"1, 2, 3, "`` and then ``"4"`` — the ``" "`` is the model's first token, not part
of the echo. Others (vLLM, OpenRouter) send only the new bytes. The transducer
already has the prefix, so the echo must be dropped and everything after it passed
on, exactly once, whichever way the deltas split it.

:class:`EchoSkipper` holds the incoming bytes back while they still match the prefix
and decides once they stop matching (or the prefix is used up, or the stream ends):

* ``echo`` — the whole prefix came back, or all of it but trailing whitespace (a
  server whose template trims the message): the matched bytes are dropped, the
  rest is passed on;
* ``none`` — the continuation starts differently (a server that does not echo; a
  continuation that shares a few first bytes with the prefix by chance): nothing is
  dropped, the held bytes are passed on;
* ``mismatch`` — a long stretch matched and then diverged, or an echo was expected
  (this server echoed before) and did not come whole: the server is not continuing
  the message as it should (a restart, a different re-tokenisation). Nothing is
  passed on; the caller abandons the continuation and falls back to a resend.

Pure and small: bytes in, bytes out, no I/O (docs/protocol.md, "Continuation").
"""

from __future__ import annotations

from typing import Literal

WHITESPACE = b" \t\r\n"
ECHO_MIN = 16
"""Bytes of the prefix a continuation may repeat by chance before diverging; a longer
partial match is a server restarting or mangling the message (``mismatch``)."""

Outcome = Literal["undecided", "echo", "none", "mismatch"]


class EchoSkipper:
    """Drops the server's echo of ``prefix`` from the start of a continuation stream.

    ``expect``: ``True`` when this endpoint echoed before (anything but a whole echo is
    then a ``mismatch``), ``False`` when it is known not to echo (nothing is ever held
    or dropped), ``None`` when unknown (decided by what arrives).
    """

    def __init__(self, prefix: bytes, expect: bool | None = None) -> None:
        self.prefix = bytes(prefix)
        self.expect = expect
        self._core = len(self.prefix.rstrip(WHITESPACE))
        """The prefix without trailing whitespace: an echo must cover at least this."""
        self._lead = len(self.prefix) - len(self.prefix.lstrip(WHITESPACE))
        """Leading whitespace a trimming template may leave out of the echo."""
        self._matched = 0
        """How far into the prefix the bytes so far match it."""
        self._omitted = 0
        """Leading whitespace of the prefix the echo left out."""
        self._held = bytearray()
        self.outcome: Outcome = "undecided"
        self.skipped = 0
        """Incoming bytes dropped as the echo (valid once decided)."""
        self.detail = ""
        """Why a ``mismatch`` was decided (for the user)."""
        if expect is False or not self.prefix:
            self.outcome = "none"

    @property
    def decided(self) -> bool:
        return self.outcome != "undecided"

    @property
    def held(self) -> int:
        """Incoming bytes held back while undecided."""
        return len(self._held)

    def feed(self, data: bytes) -> bytes:
        """The bytes of ``data`` that belong to the continuation (possibly held ones too)."""
        if self.outcome in ("echo", "none"):
            return data
        if self.outcome == "mismatch":
            return b""
        prefix = self.prefix
        lead = self._lead
        first = bool(data) and not self._held and not self._matched and 0 < lead < len(prefix)
        if first and data[0] != prefix[0] and data[0] == prefix[lead]:
            self._matched = self._omitted = lead  # the echo starts after the blanks
        i = _common(data, prefix, self._matched)
        self._matched += i
        if self._matched == len(prefix):
            return self._decide(data, i)
        if i < len(data):  # diverged inside the prefix
            return self._decide(data, i)
        self._held += data
        return b""

    def finish(self) -> bytes:
        """The stream ended: decide on what arrived; the held bytes that belong to it."""
        if self.outcome != "undecided":
            return b""
        return self._decide(b"", 0)

    def _decide(self, data: bytes, i: int) -> bytes:
        """Decide with ``data[:i]`` matched (held bytes before it matched too)."""
        matched = self._matched - self._omitted
        whole = self._matched >= self._core and self._matched > 0
        if whole:
            self.outcome, self.skipped = "echo", matched
            rest = data[i:]
        elif self.expect is True or matched >= ECHO_MIN:
            self.outcome = "mismatch"
            what = "an echo of the" if self.expect else "the start of the"
            self.detail = (
                f"the continuation repeated {matched} of the {len(self.prefix)} bytes sent as "
                f"{what} message and then differed"
                if matched
                else f"the server did not echo the {len(self.prefix)} bytes sent, as it did before"
            )
            rest = b""
        else:
            self.outcome = "none"
            rest = bytes(self._held) + data
        self._held.clear()
        return rest


def _common(data: bytes, prefix: bytes, start: int) -> int:
    """How many first bytes of ``data`` equal ``prefix[start:]``."""
    want = prefix[start : start + len(data)]
    if data[: len(want)] == want:
        return len(want)
    lo, hi = 0, len(want)  # the first difference, by halving (a long echo is one delta)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if data[:mid] == want[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


__all__ = ["ECHO_MIN", "EchoSkipper", "Outcome"]
