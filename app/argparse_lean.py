"""``argparse``, imported without ``gettext`` and ``locale``.

argparse imports ``gettext`` only to translate its own messages ("usage:", "unrecognized
arguments: %s"), and ``gettext`` imports ``locale``: together ~1.9 ms of every command's
start-up, 7 % of the interpreter's own (issue 24). Python ships no catalogue for those
messages (``gettext`` looks for ``messages.mo`` under ``sys.base_prefix/share/locale``),
so its answer is the message itself, and Frontier's own text is English: a stand-in that
returns the message, as ``gettext`` does without a catalogue, changes no output.

The stand-in is in ``sys.modules`` only while argparse is imported, so a later
``import gettext`` anywhere gets the real module. Where ``gettext`` or ``argparse`` is
loaded already, nothing is done.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse as argparse
else:

    def _import() -> object:
        if "argparse" in sys.modules or "gettext" in sys.modules:
            import argparse

            return argparse
        stand_in = type(sys)("gettext")
        stand_in.gettext = lambda message: message
        stand_in.ngettext = lambda singular, plural, n: singular if n == 1 else plural
        sys.modules["gettext"] = stand_in
        try:
            import argparse
        except ImportError:  # a Python whose argparse wants more of gettext: the real one
            sys.modules.pop("argparse", None)
            del sys.modules["gettext"]
            import argparse
        finally:
            if sys.modules.get("gettext") is stand_in:
                del sys.modules["gettext"]
        return argparse

    argparse = _import()
