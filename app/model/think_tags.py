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
A model whose template opens the tag in the prompt (DeepSeek-R1 distills, Qwen3's
Thinking-2507 models: the reply has ``</think>`` but no ``<think>``) is not recognised:
nothing in the stream tells its thinking from its answer before the closing tag arrives.
"""

from __future__ import annotations

from frontier.app.model.stream import (
    Delta,
    End,
    Finish,
    ReasoningBlock,
    ReasoningDelta,
    TextDelta,
    UsageDelta,
)

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

    @property
    def skipped(self) -> int:
        return self._inner.skipped if self._inner is not None else 0

    def feed(self, event: str, data: str) -> list[Delta]:
        assert self._inner is not None
        return self.split(self._inner.feed(event, data))

    def split(self, deltas: Iterable[Delta]) -> list[Delta]:
        """``deltas`` with the text of a leading ``<think>`` block as reasoning."""
        if self._state == _TEXT:
            return deltas if isinstance(deltas, list) else list(deltas)
        out: list[Delta] = []
        for delta in deltas:
            if self._state == _TEXT:
                out.append(delta)
            elif type(delta) is TextDelta:
                self._text(delta.text, out)
            elif type(delta) in (Finish, End):
                out += self.end()
                out.append(delta)
            elif self._state == _START and not isinstance(delta, _PASSING):
                out += self.end()  # a call, an error: the text did not open with the tag
                out.append(delta)
            else:
                out.append(delta)
        return out

    def _text(self, text: str, out: list[Delta]) -> None:
        if self._state == _START:
            held = self._held + text
            body = held.lstrip()
            lead = len(held) - len(body)
            if not body and lead <= MAX_LEAD:
                self._held = held
                return
            if body.startswith(OPEN) and lead <= MAX_LEAD:
                self._state, self._held = _INSIDE, ""
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
