"""A protocol's transducer reading one wire: where the CST and the wires meet.

The CST imports no wire (it reads neutral deltas), and no wire imports the CST; what
needs a native protocol's transducer over a recorded SSE body — replay, ``check``, the
inspector, the evaluation — asks here, above both layers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from frontier.app.cst.factory import make_transducer
from frontier.app.model.registry import codec

TYPE_CHECKING = False  # Transducer is a type only (a Protocol: app/cst/base.py)
if TYPE_CHECKING:
    from frontier.app.cst.base import Transducer


def transducer_factory(wire: str | None = None) -> Callable[[str], Transducer]:
    """``protocol -> fresh transducer`` reading ``wire`` (default: Chat Completions): the
    text protocols ignore the wire, the native ones read its SSE body."""
    return functools.partial(make_transducer, wire=codec(wire))


__all__ = ["transducer_factory"]
