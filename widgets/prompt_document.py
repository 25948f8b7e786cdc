"""The message box's document: Textual's, with the two answers it recomputes on every
rendered line kept instead.

Textual's ``TextArea`` asks, for each line it renders, whether the box is empty
(``self.text``: every line joined) and how tall the wrapped text is
(``WrappedDocument.height``: a sum over every line). Both are O(lines), so with a long
paste in the box (a CI log) each key repainted 6-8 lines at two O(n) walks each: after
50,000 lines (3.6 MB) a key took 45 ms to show where an empty box takes 8.6
(``bench/prompt_paste.py``). Here:

* :class:`PromptDocument` keeps its joined text until its next edit. Textual documents
  its ``Document.replace_range`` as "the only method by which a document may be
  updated" (keys, pastes, undo and redo all come through it), so the kept text can never
  be stale.
* :class:`PromptWrapping` answers ``height`` from ``_offset_to_line_info``, which holds
  one entry per wrapped line (``wrap`` and ``wrap_range`` keep it so): the same number,
  in O(1), with nothing kept that could go stale.
* :func:`wraps_at` lets the box skip Textual's rewrap of every line when the box is
  resized or its scrollbar shows at an unchanged wrap width (stop 44): a paste that
  grows the box rewrapped the whole paste once per such change.

:func:`adopt` gives a ``TextArea``'s plain document these classes after Textual's own
``_set_document`` has made them (the classes add no state a fresh instance would lack, so
the instances change class in place: nothing is wrapped twice, and Textual's own set-up
stays Textual's).
"""

from __future__ import annotations

from textual.widgets import TextArea
from textual.widgets.text_area import Document, EditResult, Location, WrappedDocument


class PromptDocument(Document):
    """A ``Document`` whose ``text`` is joined once per edit, not once per call."""

    _joined: str | None = None

    @property
    def text(self) -> str:
        joined = self._joined
        if joined is None:
            joined = self._joined = super().text
        return joined

    def replace_range(self, start: Location, end: Location, text: str) -> EditResult:
        self._joined = None
        return super().replace_range(start, end, text)


class PromptWrapping(WrappedDocument):
    """A ``WrappedDocument`` whose ``height`` is a length, not a sum over every line."""

    @property
    def height(self) -> int:
        return len(self._offset_to_line_info)


def wraps_at(wrapped: WrappedDocument, width: int, tab_width: int) -> bool:
    """``wrapped`` is wrapped at ``width`` and ``tab_width`` now (a rewrap there would
    make the lines it has: ``wrap_range`` keeps them current through every edit, and a
    new document is wrapped when it is made)."""
    return (wrapped._width, wrapped._tab_width) == (width, tab_width)


def holds_text(area: TextArea) -> bool:
    """``area`` holds any text, in O(1) (``bool(area.text)`` joins every line; the
    screen asks this on every key)."""
    document = area.document
    return document.line_count > 1 or bool(document[0])


def adopt(area: TextArea) -> None:
    """Give ``area``'s document and its wrapping the classes above, when they are
    Textual's plain ones (a syntax-highlighted document is left as it is)."""
    if type(area.document) is Document:
        area.document.__class__ = PromptDocument
    if type(area.wrapped_document) is WrappedDocument:
        area.wrapped_document.__class__ = PromptWrapping
