"""A transducer in front of another: it turns its input into the inner one's (a wire's
SSE body into assistant text, a reply's leading thought into reasoning), and its state
— the frontier, what is consumed and pending, whether it stopped — is the inner one's."""

from __future__ import annotations

TYPE_CHECKING = False  # types only
if TYPE_CHECKING:
    from frontier.app.cst.base import Transducer


class InFront:
    """The inner transducer's state, for one that feeds it (``feed``/``finish`` are the
    subclass's)."""

    inner: Transducer

    @property
    def frontier(self) -> int:
        return self.inner.frontier

    @property
    def consumed(self) -> int:
        return self.inner.consumed

    @property
    def stopped(self) -> bool:
        return self.inner.stopped

    def pending(self) -> bytes:
        return self.inner.pending()

    def pending_bound(self) -> int:
        return self.inner.pending_bound()
