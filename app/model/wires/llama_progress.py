"""llama.cpp's ``prompt_progress``: how far its server has read a long prompt.

Sent when a request asks ``return_progress`` (the transport does, once ``GET /props``
showed llama.cpp): in a Chat Completions chunk, and in a Responses ``response.in_progress``
event. A long prompt on a CPU takes minutes before the first token; the progress moves the
first-byte deadline and is shown (``app/model/transport.py``). The object's shape is the
server's, the same on both wires: read here once.

Its ``/v1/messages`` sends no progress: there the transport asks ``GET /slots`` while it
waits (:func:`slots_reading`), whose answer says whether a slot is busy and how many
tokens of its prompt it has read.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.app.model.stream import PromptProgress

MAX_SLOTS = 1024
"""More slots than any server runs: an answer listing more is not read (untrusted input)."""


def prompt_progress(value: object) -> PromptProgress | None:
    """``{"total", "processed", "cache"}`` as a :class:`PromptProgress`, else ``None``."""
    if not isinstance(value, dict):
        return None
    total, done, cached = (value.get(k) for k in ("total", "processed", "cache"))
    if not (isinstance(total, int) and isinstance(done, int)) or total <= 0:
        return None
    return PromptProgress(max(0, min(done, total)), total, cached if isinstance(cached, int) else 0)


def slots_reading(value: object) -> Sequence[int] | None:
    """llama.cpp's ``GET /slots`` answer as the prompt tokens read by each busy slot
    (``is_processing``), in order; ``None`` when it is not such an answer (slots disabled:
    501; another server: 404).

    Its ``n_prompt_tokens`` is not the prompt's size while it reads (it grows a batch at a
    time: 2,048, then 3,877 for a prompt of 3,877 on the rig's server): only the count read
    is taken."""
    if not isinstance(value, list) or len(value) > MAX_SLOTS:
        return None
    if not all(isinstance(slot, dict) and "is_processing" in slot for slot in value):
        return None
    read = []
    for slot in value:
        if slot["is_processing"] is True:
            done = slot.get("n_prompt_tokens_processed")
            read.append(done if type(done) is int and done >= 0 else 0)
    return read
