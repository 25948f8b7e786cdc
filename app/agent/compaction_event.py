"""A compaction step's event, made from the detail stored with it.

The compactor announces each step live with a :class:`Compacted` event, and a resumed
session's history shows the steps stored before it (``history_events.py``): both make
the event here from the same ``detail`` the store keeps (``session/compactions.py``), so
a step reads the same in the Transcript whether it happened now or before the resume.

The stored detail is read back from the person's store: a value of the wrong type (a
row written by an older Frontier, or edited) counts as absent, never raises.
"""

from __future__ import annotations

from collections.abc import Mapping

from frontier.app.events import Compacted

TYPE_CHECKING = False  # typing is not imported at run time
if TYPE_CHECKING:
    from typing import Any


def compaction_event(step: str, detail: Mapping[str, Any]) -> Compacted:
    """The :class:`Compacted` event of a ``step`` (``stub`` or ``summary``) whose stored
    ``detail`` is this (the compactor's keys: ``reason``, ``before``, ``after``,
    ``window``, ``rounds``, ``keep_rounds``, ``stubbed``, ``trimmed``, ``withdrawn``,
    ``messages_summarised``, ``source``)."""
    reason = _text(detail, "reason") or "threshold"
    rounds = _int(detail, "rounds")
    return Compacted(
        step,
        _int(detail, "before"),
        _int(detail, "after"),
        _int(detail, "window"),
        rounds,
        reason,
        _words(step, reason, rounds, detail),
        _int(detail, "messages"),
    )


def _words(step: str, reason: str, rounds: int, detail: Mapping[str, Any]) -> str:
    """What the step did, in the words the Transcript shows after "⇣ compacted (why):"."""
    kept = detail.get("keep_rounds")
    keep = f" {_older_than(kept)}" if isinstance(kept, int) and not isinstance(kept, bool) else ""
    if reason == "clear":
        items = _int(detail, "items")
        return f"context cleared (/clear): the model forgets the {_count(items, 'earlier item')}"
    if reason == "rewind":
        items = _int(detail, "items")
        return (
            f"rewound (/rewind) to before your message {_int(detail, 'to')}: it and what "
            f"followed ({_count(items, 'item')}) taken out of what the model is sent"
        )
    if reason == "too_long":
        withdrawn = _int(detail, "withdrawn")
        return f"your message ({withdrawn:,} bytes) withdrawn from what the model is sent"
    if reason == "images_refused":
        images = detail.get("images")
        names = [n for n in images if isinstance(n, str)] if isinstance(images, list) else []
        return (
            f"{_count(len(names), 'image')} ({', '.join(names)}) taken out of what the "
            "model is sent: it takes no images"
        )
    if step == "stub" and isinstance(trimmed := detail.get("trimmed"), list):
        cuts = [t for t in trimmed if isinstance(t, Mapping)]
        was = sum(t["bytes"] for t in cuts if isinstance(t.get("bytes"), int))
        now = sum(t["kept"] for t in cuts if isinstance(t.get("kept"), int))
        return (
            f"{_count(len(cuts), 'tool result')} of the latest round ({was:,} → {now:,} bytes) "
            f"cut to {'its' if len(cuts) == 1 else 'their'} first 60% and last 40%: the "
            "request did not fit the window"
        )
    if step == "stub":
        stubbed = detail.get("stubbed")
        stubs = [s for s in stubbed if isinstance(s, Mapping)] if isinstance(stubbed, list) else []
        saved = sum(s["bytes"] for s in stubs if isinstance(s.get("bytes"), int))
        return (
            f"{_count(len(stubs), 'tool result')} ({saved:,} bytes) from "
            f"{_count(rounds, 'round')}{keep} replaced by stubs"
        )
    source = _text(detail, "source")
    who = "the model" if source.startswith("model") or not source else source
    if source == "model (cut at max_tokens)":  # kept as far as it went: said, not hidden
        who = "the model (its summary cut at the output token limit)"
    return (
        f"{_count(rounds, 'round')} ({_int(detail, 'messages_summarised')} messages){keep} "
        f"summarised by {who}"
    )


def _int(detail: Mapping[str, Any], key: str) -> int:
    value = detail.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _text(detail: Mapping[str, Any], key: str) -> str:
    value = detail.get(key)
    return value if isinstance(value, str) else ""


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _older_than(keep: int) -> str:
    if keep == 0:
        return "(the latest too: the request did not fit the window)"
    return "before the latest" if keep == 1 else f"before the latest {keep}"


__all__ = ["compaction_event"]
