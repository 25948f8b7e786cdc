"""A text protocol's plain text whose reply opens with ``<think>…</think>``: that part is
reasoning, as the live loop reads it (``frontier transduce --protocol ctl`` on a saved reply).

Every wire's decoder splits a leading ``<think>`` block off the reply's text
(``app/model/think_tags.py``), so the live loop never transduces a thought. ``frontier
transduce`` fed the assistant text itself did: a thought that drafted ``call c1 read``
was a contract error (or a call) in the debugger that the live run never had. The same
splitter now stands in front of the text transducer: the thought comes out as
:class:`ReasoningText`, the rest is transduced, and every offset is one into the text
after the thought, as in the live run's recordings. A reply whose first non-blank
character is not ``<`` cannot open with the tag: it goes straight to the transducer, and
the splitter (and the stream vocabulary it reads) is never loaded (``frontier transduce``
of CTL text starts light, issue 24).
"""

from __future__ import annotations

import codecs

from frontier.app.cst.in_front import InFront

TYPE_CHECKING = False
if TYPE_CHECKING:
    from frontier.app.cst.base import Transducer
    from frontier.app.model.think_tags import ThinkTags
    from frontier.app.stream_events import Event


class ThoughtFirst(InFront):
    """``inner`` (a text protocol's transducer) fed the text after a leading thought."""

    def __init__(self, inner: Transducer) -> None:
        self.inner = inner
        self._tags: ThinkTags | None = None
        self._plain = False
        self._lead = ""  # blank text while undecided
        self._utf8 = codecs.getincrementaldecoder("utf-8")("surrogateescape")

    def _decide(self, text: str) -> str:
        """Whether a thought may open the reply, from its first non-blank character (blank
        text is held, ``self._lead``, until one comes): the text to pass on."""
        text, self._lead = self._lead + text, ""
        first = text.lstrip()[:1]
        if not first:
            self._lead = text
        elif first == "<":
            from frontier.app.model.think_tags import ThinkTags

            self._tags = ThinkTags()
        else:
            self._plain = True
        return text if first else ""

    def _raw(self, data: bytes) -> list[Event]:
        """Bytes of a reply that opened no thought: to the transducer as they came."""
        return self.inner.feed(data) if data and not self.inner.stopped else []

    def _split(self, text: str, final: bool) -> list[Event]:
        """Text of a reply that may open with a thought: its reasoning as events, the rest
        transduced."""
        assert self._tags is not None
        from frontier.app.model.stream import End, ReasoningDelta, TextDelta
        from frontier.app.stream_events import ReasoningText

        deltas = self._tags.split([TextDelta(text)] if text else [])
        if final:
            deltas += self._tags.split([End()])
        events: list[Event] = []
        for delta in deltas:
            if type(delta) is ReasoningDelta:
                events.append(ReasoningText(delta.text))
            elif type(delta) is TextDelta and not self.inner.stopped:
                events += self.inner.feed(delta.text.encode("utf-8", "surrogateescape"))
        return events

    def _undecided(self, text: str) -> list[Event]:
        """``text`` arrived before the reply's first non-blank character was seen."""
        text = self._decide(text)
        if self._tags is not None:
            return self._split(text, final=False)
        if not self._plain:
            return []
        held, _ = self._utf8.getstate()  # a character cut at the chunk's end: its bytes
        self._utf8.reset()
        return self._raw(text.encode("utf-8", "surrogateescape") + held)

    def feed(self, data: bytes) -> list[Event]:
        if self._plain:  # the common case: the bytes go through untouched (issue 24)
            return self._raw(data)
        if self._tags is not None:
            return self._split(self._utf8.decode(data), final=False)
        return self._undecided(self._utf8.decode(data))

    def finish(self, clean: bool) -> list[Event]:
        events: list[Event] = []
        if self._tags is not None:
            events = self._split(self._utf8.decode(b"", final=True), final=True)
        elif not self._plain:  # only blank text came (or none)
            text = self._lead + self._utf8.decode(b"", final=True)
            events = self._raw(text.encode("utf-8", "surrogateescape"))
        return events + self.inner.finish(clean)
