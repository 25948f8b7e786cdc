"""A text protocol read from a wire's SSE body (``frontier transduce --wire W --protocol
ctl``): the body's events are decoded by the wire's adapter and their assistant text is
fed to the text transducer, whose offsets (into the text) are the ones reported."""

from __future__ import annotations

from frontier.app.cst.in_front import InFront
from frontier.app.model.stream import End, Finish, ReasoningDelta, TextDelta
from frontier.app.stream_events import ContractError, Event, ReasoningText
from frontier.app.vocab import is_clean
from frontier.app.wire.sse import SSEDecoder

TYPE_CHECKING = False  # types only (Protocols, for the type checker)
if TYPE_CHECKING:
    from frontier.app.cst.base import Transducer
    from frontier.app.cst.native import DeltaSource


class TextSSETransducer(InFront):
    """``inner`` (a text protocol's transducer) fed the assistant text of an SSE body."""

    def __init__(self, inner: Transducer, wire: DeltaSource) -> None:
        self.inner = inner
        self._decoder = wire.decoder()
        self._sse = SSEDecoder()
        self.finish_reason: str | None = None
        self.saw_end = False
        self._cut = False
        """An SSE line passed the decoder's limit: the text was cut there, said once."""
        self._body = 0

    def feed(self, data: bytes) -> list[Event]:
        events: list[Event] = []
        self._body += len(data)
        for name, item in self._sse.feed_events(data):
            for delta in self._decoder.feed(name, item):
                if type(delta) is TextDelta and not self.inner.stopped:
                    events += self.inner.feed(delta.text.encode("utf-8"))
                elif type(delta) is ReasoningDelta:  # the server's, or a <think> split off
                    events.append(ReasoningText(delta.text))
                elif type(delta) is Finish:
                    self.finish_reason = delta.reason
                elif type(delta) is End:
                    self.saw_end = True
        if self._sse.too_long and not self._cut:  # nothing more is read: the text is cut
            self._cut = True
            events += self.inner.finish(False)
            events.append(
                ContractError(
                    "limit",
                    f"an SSE line or event of the response passed {self._sse.max_line} bytes "
                    f"(body byte {self._body}); the response cannot be read: resend it",
                    self.inner.consumed,
                )
            )
        return events

    def finish(self, clean: bool) -> list[Event]:
        """``clean`` holds only if the body itself ended cleanly (a finish that is clean,
        or the wire's terminal event without a finish)."""
        if self._cut:  # finished where the line was cut
            return []
        ended = is_clean(self.finish_reason) or (self.saw_end and self.finish_reason is None)
        return self.inner.finish(clean and ended)
