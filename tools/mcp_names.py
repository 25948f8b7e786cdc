"""How a server's tool is named to the model: ``SERVER__tool``, in the characters and the
length every model API takes for a tool's name.

Why: OpenAI's and Anthropic's APIs take a tool name of at most 64 characters from
``[A-Za-z0-9_-]``, and refuse the whole request otherwise, so one long name (a server
called ``github-enterprise`` with a tool ``list_pull_request_review_comments_for_repo``)
failed every turn of the session. And the MCP specification allows a dot in a tool's name
(``github.search``), which such an API refuses: those tools were skipped. A name that fits
stays as it is; another has each other character made ``_`` and, when still too long, is
cut and given eight hex digits of its own SHA-1, so two long names never meet. The call
goes to the server under the tool's own name.
"""

from __future__ import annotations

import hashlib
import re

from frontier.tools.contract import MCP_SEPARATOR

SERVER_TOOL_NAME = re.compile(r"[!-~]{1,128}")
"""What a server's own tool name may be: the specification's 128 characters, printable
ASCII without a space (a control character or a bidi override is skipped, noted)."""
MAX_WIRE_NAME = 64
"""The longest tool name OpenAI's and Anthropic's APIs take."""
_WIRE_NAME = re.compile(f"[A-Za-z0-9_-]{{1,{MAX_WIRE_NAME}}}")
_NOT_WIRE = re.compile(r"[^A-Za-z0-9_-]")
_DIGEST = 8


def wire_name(server: str, tool: str) -> str:
    """``SERVER__tool`` as the model sees and calls it (``server`` is a configured name:
    at most 32 characters of ``[a-z0-9_-]``)."""
    full = f"{server}{MCP_SEPARATOR}{tool}"
    if _WIRE_NAME.fullmatch(full):
        return full
    part = _NOT_WIRE.sub("_", tool)
    room = MAX_WIRE_NAME - len(server) - len(MCP_SEPARATOR)
    if len(part) > room:
        digest = hashlib.sha1(tool.encode(), usedforsecurity=False).hexdigest()[:_DIGEST]
        part = f"{part[: room - _DIGEST - 1]}_{digest}"
    return f"{server}{MCP_SEPARATOR}{part}"
