"""One place that maps a protocol name to its transducer (and its input shape).

The names themselves live in ``frontier.app.vocab`` (``PROTOCOLS``).
"""

from __future__ import annotations

from frontier.app.vocab import CTL_MODES, NATIVE_MODES, PROTOCOLS

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    from frontier.app.cst.base import Transducer
    from frontier.app.cst.native import DeltaSource

__all__ = ["PROTOCOLS", "input_kind", "make_transducer", "pending_size"]


def input_kind(protocol: str) -> Literal["text", "sse"]:
    """What the transducer reads: assistant text bytes, or an SSE body for native modes."""
    _check(protocol)
    return "sse" if protocol in NATIVE_MODES else "text"


def make_transducer(
    protocol: str, *, wire: DeltaSource | None = None, sse: bool = False, **options: Any
) -> Transducer:
    """A fresh transducer for one response. ``options`` go to the constructor
    (``l_line``/``max_arg`` for CTL, ``max_bytes`` for JSON, ``max_block`` for XML).

    The native protocols read one wire's SSE body: ``wire`` is that wire's adapter
    (``app/model/registry.codec``; CST imports no wire). ``app/transducers.py``
    gives a one-argument factory bound to a wire, as replay and ``check`` take it.
    ``sse``: a text protocol reads the assistant text of ``wire``'s SSE body instead of
    the text itself (``frontier transduce --wire``)."""
    _check(protocol)
    if sse and protocol not in NATIVE_MODES:
        if wire is None:
            raise ValueError("reading an SSE body needs the wire's adapter")
        from frontier.app.cst.sse_text import TextSSETransducer

        return TextSSETransducer(make_transducer(protocol, **options), wire)
    if protocol in CTL_MODES:
        from frontier.app.cst.ctl import CtlTransducer

        return CtlTransducer(**options)
    if protocol in NATIVE_MODES:
        from frontier.app.cst.native import NativeSSETransducer

        if wire is None:
            raise ValueError(f"{protocol} reads a wire's SSE body: pass the wire's adapter")
        return NativeSSETransducer(protocol == "native-inc", wire, **options)
    if protocol == "json-whole":
        from frontier.app.cst.jsonbuf import JsonWholeTransducer

        return JsonWholeTransducer(**options)
    if protocol == "json-object":
        from frontier.app.cst.jsonbuf import JsonObjectTransducer

        return JsonObjectTransducer(**options)
    from frontier.app.cst.xml import XmlTransducer

    return XmlTransducer(**options)


def pending_size(t: Transducer) -> int:
    """``len(t.pending())`` without building the bytes where the transducer can avoid it."""
    size = getattr(t, "pending_size", None)
    return int(size()) if callable(size) else len(t.pending())


def _check(protocol: str) -> None:
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")
