"""A reply that opens with ``<think>…</think>`` in its text: that part is reasoning.

Qwen3, QwQ, DeepSeek-R1, GLM and MiniMax write their thinking between ``<think>`` tags.
A server that splits it off (vLLM with a reasoning parser, llama.cpp's default
``--reasoning-format``, DeepSeek's API) streams it as ``reasoning_content``; one that does
not (vLLM without ``--reasoning-parser``, llama.cpp with ``--reasoning-format none``, a
plain proxy) streams it as the reply's text. There the text protocols read the model's
*drafts* as its decisions: a thought such as "I could run: ``call c1 shell`` … ``end``,
but better not" ran the drafted command the moment its ``end`` arrived, and the real
answer after ``</think>`` was stopped as text after a call. In the native modes the
thinking showed as the reply's prose and went back in the history as what the model said.

:class:`ThinkTags` wraps a wire's decoder (every wire's ``decoder()`` returns one, so the
live loop, replay, ``check`` and captures read the same deltas): text that opens the
reply's text with ``<think>`` (after whitespace) becomes :class:`ReasoningDelta` up to
``</think>``, shown and stored as thinking, never transduced. Only a tag that opens the
text counts; a ``<think>`` later in a reply is text. The recorded events keep the server's
bytes as sent.

Bounded: at most :data:`MAX_LEAD` characters of leading whitespace and a tag's length are
held back while undecided, and each piece of text is searched once for the closing tag.

A model whose template opens the tag in the prompt (DeepSeek-R1 distills, QwQ, Qwen3's
Thinking-2507 models) writes ``</think>`` with no ``<think>``: nothing in a stream tells
its thinking from its answer before the closing tag arrives, so its first such reply is
text. That reply is the evidence (:attr:`ThinkTags.opened_in_prompt`: a ``</think>`` at a
line start in text that never opened one, no reasoning from the server), and the client
reads the same model's later replies *opened*: the recording of each starts with
:data:`OPENED` (a data string of Frontier's, like a continuation's join), which puts the
decoder inside a thought, so every reader of the recording splits it as the live run did.
An opened reply whose server streams its own reasoning first is not opened after all (that
server splits the thinking off), and one that ends cleanly without ``</think>`` says the
evidence was wrong (:attr:`ThinkTags.never_closed`): the client stops opening.
"""

from __future__ import annotations

from frontier.app.model.stream import (
    CallArgs,
    CallDone,
    CallStart,
    Delta,
    End,
    Finish,
    Ignored,
    ReasoningBlock,
    ReasoningDelta,
    TextDelta,
    UsageDelta,
)
from frontier.app.vocab import is_clean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from frontier.app.model.wires.base import EventDecoder

OPEN = "<think>"
CLOSE = "</think>"
KEPT = "think_tags"
"""The key of the :class:`ReasoningBlock` a closed thought is kept in (``keep``): the Chat
wire writes it back where it came from, ``<think>…</think>`` before the reply's text."""
MAX_LEAD = 64
"""Whitespace before ``<think>`` that still opens the reply (servers send a newline or two)."""
OPENED = '{"object":"frontier.think_opened"}'
"""The data string a response's recording starts with when its reply was read as opened
inside a thought (its template opened ``<think>`` in the prompt): Frontier's, never a
server's event."""
EVIDENCE_SCAN = 1 << 16
"""Characters of a reply's text searched for a ``</think>`` it never opened."""

_START, _INSIDE, _TEXT = 0, 1, 2
_PASSING = (UsageDelta, ReasoningDelta, ReasoningBlock)
"""Deltas that do not decide whether the text opened with the tag (a usage chunk, the
server's own reasoning field) and pass while it is undecided."""


class ThinkTags:
    """One response's deltas with a leading ``<think>`` block turned into reasoning."""

    def __init__(self, inner: EventDecoder | None = None, *, keep: bool = False) -> None:
        """``keep``: a thought that closed is also kept as a :class:`ReasoningBlock`
        (``{KEPT: text}``), so the history can give the model back what it wrote (MiniMax
        asks for its thinking in later turns; Qwen3's template drops old turns' itself)."""
        self._inner = inner
        self._state = _START
        self._held = ""
        self._keep = keep
        self._thought: list[str] = []
        self.opened = False
        """Read as opened inside a thought (:data:`OPENED`)."""
        self.opened_in_prompt = False
        """Evidence that the model's template opens the thought in the prompt."""
        self.never_closed = False
        """Read opened, it ended cleanly with no ``</think>``: the evidence was wrong."""
        self._texted = False  # a text delta of this reply was read
        self._drafted: set[int] = set()  # keys of calls read out of an unclosed thought
        self._seeking = True
        """Still looking for evidence: the reply opened no thought (its own ``<think>``,
        or read opened), got no reasoning from its server, and has not been searched
        :data:`EVIDENCE_SCAN` far."""
        self._finished: bool | None = None  # how its finish ended it (None: none came)
        self._scan = ""  # the end of the text searched so far (a tag cut between pieces)
        self._blank = True  # all the text before ``_scan`` is whitespace
        self._scanned = 0

    @property
    def skipped(self) -> int:
        return self._inner.skipped if self._inner is not None else 0

    def feed(self, event: str, data: str) -> list[Delta]:
        assert self._inner is not None
        if data == OPENED:
            self.open()
            return []
        return self.split(self._inner.feed(event, data))

    def open(self) -> None:
        """Read this reply as opened inside a thought (only before any of it)."""
        if self._state == _START and not self._held:
            self._state, self.opened, self._seeking = _INSIDE, True, False

    def split(self, deltas: Iterable[Delta]) -> list[Delta]:
        """``deltas`` with the text of a leading ``<think>`` block as reasoning."""
        if self._state == _TEXT:
            deltas = deltas if isinstance(deltas, list) else list(deltas)
            if self._drafted:  # the rest of a call drafted in the thought
                deltas = [d for d in deltas if not _drafted(d, self._drafted)]
            if self._seeking:
                self._evidence(deltas)
            return deltas
        out: list[Delta] = []
        for delta in deltas:
            if type(delta) is ReasoningDelta:  # the server's own: it splits thinking off
                self._seeking = False
                if self.opened and not self._texted:
                    self._state, self.opened = _TEXT, False  # not opened after all
            if self._state == _TEXT:
                if not (self._drafted and _drafted(delta, self._drafted)):
                    out.append(delta)
            elif self._state == _INSIDE and type(delta) in _CALLS:
                self._draft(delta, out)  # the server read a call out of the thought
            elif type(delta) is TextDelta:
                self._texted = True
                self._text(delta.text, out)
            elif type(delta) in (Finish, End):
                if type(delta) is Finish:
                    self._finished = is_clean(delta.reason)  # type: ignore[attr-defined]
                if self.opened and self._state == _INSIDE:
                    self.never_closed = self._finished is not False
                out += self.end()
                out.append(delta)
            elif self._state == _START and not isinstance(delta, _PASSING):
                out += self.end()  # a call, an error: the text did not open with the tag
                out.append(delta)
            else:
                out.append(delta)
        if self._state == _TEXT and self._seeking:
            self._evidence(out)
        return out

    def _draft(self, delta: Delta, out: list[Delta]) -> None:
        """A call the server parsed out of the unclosed thought (vLLM's tool parser reads
        ``<tool_call>`` anywhere in the text): a draft, never run — it is left out, and
        noted once (what was read and deliberately not used)."""
        assert isinstance(delta, _CALLS)
        key = delta.key
        if key not in self._drafted:
            self._drafted.add(key)
            out.append(
                Ignored(
                    f"a tool call the server read out of the reply's unclosed thinking "
                    f"(before </think>; call {key}) was left out: a draft never runs"
                )
            )

    def _evidence(self, deltas: list[Delta]) -> None:
        """Look for a ``</think>`` at a line start in text of a reply that never opened
        one (and got no reasoning from its server): its template opened it. Each piece is
        searched once, with the few characters before it (a tag cut between pieces)."""
        for delta in deltas:
            if type(delta) is ReasoningDelta:
                self._seeking = False
                return
            if type(delta) is not TextDelta:
                continue
            piece = delta.text  # type: ignore[attr-defined]
            window = self._scan + piece
            self._scanned += len(piece)
            if ">" in piece:  # a tag that ends in this piece ends with its ">"
                at = window.find(CLOSE)
                while at >= 0:
                    before = window[:at]
                    if before.rstrip(" \t").endswith("\n") or (self._blank and not before.strip()):
                        self.opened_in_prompt, self._seeking = True, False
                        return
                    at = window.find(CLOSE, at + 1)
            if self._blank:
                self._blank = not window[:-_KEEP].strip()
            self._scan = window[-_KEEP:]
            if self._scanned >= EVIDENCE_SCAN:
                self._seeking = False
                return

    def _text(self, text: str, out: list[Delta]) -> None:
        if self._state == _START:
            held = self._held + text
            body = held.lstrip()
            lead = len(held) - len(body)
            if not body and lead <= MAX_LEAD:
                self._held = held
                return
            if body.startswith(OPEN) and lead <= MAX_LEAD:
                self._state, self._held, self._seeking = _INSIDE, "", False
                text = body[len(OPEN) :]
            elif OPEN.startswith(body) and lead <= MAX_LEAD:
                self._held = held  # "<thi": not yet decided
                return
            else:
                self._state, self._held = _TEXT, ""
                out.append(TextDelta(held))
                return
        if self._state == _INSIDE:
            buf = self._held + text
            at = buf.find(CLOSE)
            if at < 0:
                keep = _partial_close(buf)
                self._held = buf[len(buf) - keep :] if keep else ""
                thought = buf[: len(buf) - keep]
                if thought:
                    out.append(ReasoningDelta(thought))
                    if self._keep:
                        self._thought.append(thought)
                return
            if at:
                out.append(ReasoningDelta(buf[:at]))
                if self._keep:
                    self._thought.append(buf[:at])
            if self._keep:
                out.append(ReasoningBlock({KEPT: "".join(self._thought)}))
                self._thought = []
            self._state, self._held = _TEXT, ""
            rest = buf[at + len(CLOSE) :]
            if rest:
                out.append(TextDelta(rest))

    def end(self) -> list[Delta]:
        """Whatever is held, as what it turned out to be: text never opened by the tag
        (a reply of ``<thi``), or the end of a thought the stream cut."""
        held, self._held = self._held, ""
        if self._state == _START:
            self._state = _TEXT
            return [TextDelta(held)] if held else []
        return [ReasoningDelta(held)] if held else []


_KEEP = len(CLOSE) + 8
"""Characters of text kept between pieces for :meth:`ThinkTags._evidence`."""


_CALLS = (CallStart, CallArgs, CallDone)


def _drafted(delta: Delta, keys: set[int]) -> bool:
    """``delta`` belongs to a call left out as drafted in the thought."""
    return isinstance(delta, _CALLS) and delta.key in keys


def _partial_close(text: str) -> int:
    """The length of the longest end of ``text`` that begins ``</think>``."""
    for n in range(min(len(CLOSE) - 1, len(text)), 0, -1):
        if CLOSE.startswith(text[-n:]):
            return n
    return 0


def split_think(deltas: Iterable[Delta], *, keep: bool = False) -> list[Delta]:
    """A whole answer's deltas (``json_answer``), split as a stream's would be."""
    tags = ThinkTags(keep=keep)
    return [*tags.split(deltas), *tags.end()]
