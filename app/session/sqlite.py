"""``sqlite3`` for the store, without the ``datetime`` its package imports.

The ``sqlite3`` package is a thin layer over the C module ``_sqlite3``: it imports
``datetime`` (~2 ms of start-up, 7 % of the interpreter's own: issue 24) only to
register the default adapters for ``date`` and ``datetime`` values, deprecated since
Python 3.12 and never used here (the store keeps times as numbers and ISO text). The
connection, row, error classes and ``connect`` are the C module's own, so an error
raised here is the ``sqlite3.Error`` any other code catches. Where ``_sqlite3`` is not
a module of its own (another Python), this is the ``sqlite3`` package.

Use: ``from frontier.app.session.sqlite import sqlite3``.
"""

from __future__ import annotations

__all__ = ["sqlite3"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
else:
    try:
        import _sqlite3 as sqlite3
    except ImportError:
        import sqlite3
