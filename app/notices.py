"""Notes the model is told at the start of the person's next message, and how to find
them again in a stored message.

An undo, a rewind, the jobs that ended while a session was away and the person's own
``!`` command tell the model what changed behind its back by opening the next user
message with a note (:func:`with_notices`). The store keeps that message as the model
received it; the resumed Transcript, the session list and the picker show the person what
they typed, the notes apart (:func:`split_notices`), found by how each note begins
(:data:`NOTICE_OPENINGS`). One home for the openings, so the session layer can read them
without the agent's modules.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

PERSON_RAN_OPENING = "(The user ran a command themselves"
"""How the note of the person's own ``!`` command begins (``agent/person_command.py``)."""
JOBS_OPENING = "(Background jobs started before this session was resumed "
"""How a resumed session's note on its ended jobs begins (``job_notice.py`` writes it)."""
REWOUND_JOBS_OPENING = "(Background jobs started after the point the conversation went back to "
"""How a rewind's note on the jobs the model no longer knows of begins (``rewind.py``)."""
NOTICE_OPENINGS = (
    PERSON_RAN_OPENING,
    "(The user undid ",
    "(An undo the user ran (",
    "(The user took the conversation back ",
    "(The user put back the files ",
    JOBS_OPENING,
    REWOUND_JOBS_OPENING,
)
"""How every note begins (``undo.notice_for`` and the others above)."""


def with_notices(notices: Sequence[str], text: str) -> str:
    """``text`` opened by the notes (each on its own line), as the model receives it."""
    if not notices:
        return text
    head = "\n".join(notices)
    return f"{head}\n\n{text}" if text else head


def split_notices(sent: str) -> tuple[tuple[str, ...], str]:
    """The inverse of :func:`with_notices`: ``(notes, what the person typed)``.

    The store keeps a user message as the model received it; a resumed Transcript shows
    the person only what they typed, and the notes apart. The notes are the lines before
    the first blank line, each opening as :data:`NOTICE_OPENINGS` says (a line that does
    not continues the note above it); a message that opens otherwise has none."""
    if not sent.startswith(NOTICE_OPENINGS):
        return (), sent
    head, _, typed = sent.partition("\n\n")
    notes: list[str] = []
    for line in head.split("\n"):
        if line.startswith(NOTICE_OPENINGS) or not notes:
            notes.append(line)
        else:
            notes[-1] = f"{notes[-1]}\n{line}"
    return tuple(notes), typed


def typed_part(sent: str) -> str:
    """What the person typed of a stored message (its notes left out)."""
    return split_notices(sent)[1]
