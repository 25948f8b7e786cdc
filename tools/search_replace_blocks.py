"""Cline's ``replace_in_file`` and Roo's ``apply_diff``: edits written as search/replace
blocks, read as ``multi``'s edits (and Kimi CLI's ``StrReplaceFile``, whose ``edit`` is
one ``{old, new}`` or a list of them, as they are).

Models trained in Cline (and Roo Code, which forked it) edit a file with one ``diff``
argument holding blocks::

    ------- SEARCH                 (or <<<<<<< SEARCH)
    the exact lines to find
    =======
    the lines to put there
    +++++++ REPLACE                (or >>>>>>> REPLACE)

(Roo may put ``:start_line:N`` and a ``-------`` line after the head.) Each block is one
edit ``{old, new}``; ``multi`` then finds each once, all or nothing, with its usual
tolerance (whitespace at line ends, a tab file's indentation, typographic punctuation)
and its usual refusals. The call was ``unknown tool`` and a repair round every time.
Read by lines, linear; at most :data:`MAX_BLOCKS` blocks. Anything not made of whole
blocks (a marker missing, text between blocks, an empty search) is not read as edits:
the call stays unknown, and its error lists the tools.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from frontier.tools.arg_aliases import name_key

NAMES = ("replaceinfile", "applydiff")
"""Cline's and Roo's names, as ``arg_aliases.name_key`` reads them."""
MAX_BLOCKS = 100
_SEARCH = re.compile(r"(?:-{3,}|<{3,}) ?SEARCH>?")
_DIVIDER = re.compile(r"={3,}")
_REPLACE = re.compile(r"(?:\+{3,}|>{3,}) ?REPLACE<?")
_START_LINE = re.compile(r":(?:start|end)_line:\s*-?\d+")


EDITING = ("strreplacefile",)
"""Kimi CLI's ``StrReplaceFile {path, edit}``: one ``{old, new}`` or a list of them."""


def multi_args(name: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """``multi``'s arguments for a search/replace call (:data:`NAMES`, any case; Kimi
    CLI's :data:`EDITING`): ``{path, edits}``; ``None`` when ``name`` is not one or its
    ``diff`` is not whole blocks."""
    path = next((args[k] for k in ("path", "file_path", "target_file") if k in args), None)
    if name_key(name) in EDITING:
        edit = args.get("edit")
        edits = [edit] if isinstance(edit, Mapping) else edit
        if not isinstance(path, str) or not isinstance(edits, list) or not edits:
            return None
        return {"path": path, "edits": [dict(e) if isinstance(e, Mapping) else e for e in edits]}
    if name_key(name) not in NAMES:
        return None
    diff = args.get("diff")
    if not isinstance(path, str) or not isinstance(diff, str):
        return None
    edits = blocks(diff)
    return None if edits is None else {"path": path, "edits": edits}


def blocks_hint(name: str) -> str:
    """What to do, for a search/replace call whose ``diff`` is not whole blocks."""
    if name_key(name) not in NAMES:
        return ""
    return (
        f"{name}'s diff must be whole blocks ('------- SEARCH', the lines, '=======', the "
        "new lines, '+++++++ REPLACE'); or call multi with edits [{old, new}]"
    )


def blocks(diff: str) -> list[dict[str, str]] | None:
    """The edits ``diff``'s blocks make, in order, or ``None`` (see the module doc)."""
    edits: list[dict[str, str]] = []
    state = "between"
    old: list[str] = []
    new: list[str] = []
    lines = diff.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r")
        bare = line.strip()
        if state == "between":
            if _SEARCH.fullmatch(bare):
                state, old, new = "search", [], []
                while i + 1 < len(lines) and _START_LINE.fullmatch(lines[i + 1].strip()):
                    i += 1  # Roo's line hints: the text is found by itself
                if i + 1 < len(lines) and lines[i + 1].strip() == "-------":
                    i += 1
            elif bare:
                return None  # words outside a block: not blocks
        elif state == "search":
            if _DIVIDER.fullmatch(bare):
                state = "replace"
            else:
                old.append(line)
        elif _REPLACE.fullmatch(bare):
            if not any(part.strip() for part in old) or len(edits) >= MAX_BLOCKS:
                return None
            edits.append({"old": "\n".join(old), "new": "\n".join(new)})
            state = "between"
        else:
            new.append(line)
        i += 1
    return edits if edits and state == "between" else None


__all__ = ["EDITING", "MAX_BLOCKS", "NAMES", "blocks", "blocks_hint", "multi_args"]
