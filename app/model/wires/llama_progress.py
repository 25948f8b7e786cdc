"""llama.cpp's ``prompt_progress``: how far its server has read a long prompt.

Sent when a request asks ``return_progress`` (the transport does, once ``GET /props``
showed llama.cpp): in a Chat Completions chunk, and in a Responses ``response.in_progress``
event. A long prompt on a CPU takes minutes before the first token; the progress moves the
first-byte deadline and is shown (``app/model/transport.py``). The object's shape is the
server's, the same on both wires: read here once.
"""

from __future__ import annotations

from frontier.app.model.stream import PromptProgress


def prompt_progress(value: object) -> PromptProgress | None:
    """``{"total", "processed", "cache"}`` as a :class:`PromptProgress`, else ``None``."""
    if not isinstance(value, dict):
        return None
    total, done, cached = (value.get(k) for k in ("total", "processed", "cache"))
    if not (isinstance(total, int) and isinstance(done, int)) or total <= 0:
        return None
    return PromptProgress(max(0, min(done, total)), total, cached if isinstance(cached, int) else 0)
