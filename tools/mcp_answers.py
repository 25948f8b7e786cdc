"""An MCP server's answer that is not what the protocol says is one call's failure, never
the server's death, and is said at once.

Why: every exception out of the SDK's ``call_tool`` marked the server dead for the rest of
the session, so one JSON-RPC error (``-32602`` for arguments the model got wrong, which
servers send as the specification allows) or one result without ``content`` lost every
tool of that server; and an answer the SDK could not read at all (``"jsonrpc"`` left out,
a ``result`` that is a string) was dropped, so its call waited out its time limit (60 s by
default) to say "timed out". A server that answered is alive: only a closed connection
ends it.
"""

from __future__ import annotations

import sys
from typing import Any

from frontier.app import fastjson
from frontier.app.wire import safejson

CONNECTION_CLOSED = -32000
"""The code the SDK gives the error it raises itself when the server's connection closes
(``mcp_types.CONNECTION_CLOSED``; a server may use it too, so its message tells)."""
CLOSED_MESSAGE = "Connection closed"
UNREADABLE = -32603
"""The code of the error made for an answer that could not be read (JSON-RPC's internal
error): its ``data`` (:data:`MARK`) tells it from one the server sent."""
MARK = "frontier: the answer could not be read"
DROPPED = "frontier: the answer was dropped"
"""The ``data`` of the error made for an answer over the size limit (:func:`dropped_answer`)."""
_HEAD_ID = None
"""``{"jsonrpc": "2.0", "id": N`` or ``{"id": N`` at a message's start (compiled when
first needed: ``re`` is not imported for a session without a server)."""


def dropped_answer(head: bytes, size: int, limit: int) -> str | None:
    """For a message over ``limit`` bytes, dropped unread: when its first bytes name the
    request it answers (its ``id`` first, or after ``"jsonrpc"``, as the Python SDK writes
    it), an error answering that request, so its call fails now saying why. Else its call
    waited out its time limit to say "timed out", which invites the model to run again a
    call that ran."""
    global _HEAD_ID
    if _HEAD_ID is None:
        import re

        _HEAD_ID = re.compile(
            r'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")\s*,'
        )
    found = _HEAD_ID.match(head.decode("utf-8", "replace"))
    if found is None:
        return None
    ident: int | str = safejson.loads(found.group(1))
    message = (
        f"its answer was over {limit >> 20} MiB ({size:,} bytes), more than Frontier "
        "reads, and was dropped unread: the call may have run; ask for less"
    )
    error = {"code": UNREADABLE, "message": message, "data": DROPPED}
    return fastjson.dumps({"jsonrpc": "2.0", "id": ident, "error": error})


def unreadable_answer(line: str) -> str | None:
    """For a line the SDK could not read as a message: when it is a JSON object answering
    a request (an ``id``, no ``method``), a JSON-RPC error answering that request and
    saying what is wrong, so its call fails now; else ``None`` (noted as before)."""
    try:
        value = safejson.loads(line, max_depth=safejson.ENVELOPE_DEPTH)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or "method" in value:
        return None
    ident = value.get("id")
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    error = {"code": UNREADABLE, "message": _wrong(value), "data": MARK}
    return fastjson.dumps({"jsonrpc": "2.0", "id": ident, "error": error})


def _wrong(value: dict[str, Any]) -> str:
    """What makes ``value`` no JSON-RPC response, in the protocol's words."""
    if value.get("jsonrpc") != "2.0":
        return 'it has no "jsonrpc": "2.0"'
    if "result" in value and "error" in value:
        return 'it has both "result" and "error"'
    if "result" in value:
        return 'its "result" is not an object'
    if "error" in value:
        error = value["error"]
        if not isinstance(error, dict):
            return 'its "error" is not an object'
        return 'its "error" lacks an integer "code" or a string "message"'
    return 'it has neither "result" nor "error"'


def answer_failure(exc: BaseException) -> str | None:
    """Why a call failed when ``exc`` came of the server's answer (the server is alive);
    ``None`` when it says the connection is gone."""
    errors = sys.modules.get("mcp.shared.exceptions")  # loaded with the SDK's client
    if errors is not None and isinstance(exc, errors.MCPError):
        code, message = exc.code, exc.message
        if code == CONNECTION_CLOSED and message == CLOSED_MESSAGE:
            return None
        if exc.data == MARK:
            return f"its answer is not a JSON-RPC response ({message})"
        if exc.data == DROPPED:
            return message
        return f"{message} (JSON-RPC error {code})"
    pydantic = sys.modules.get("pydantic_core")  # the SDK's models are pydantic's
    if pydantic is not None and isinstance(exc, pydantic.ValidationError):
        return f"its answer is not a tool result ({_first_error(exc)})"
    return None


def _first_error(exc: Any) -> str:
    """The first of a pydantic error's complaints: where, and what."""
    try:
        first = exc.errors()[0]
    except (AttributeError, IndexError, TypeError):
        return "not what MCP says a result is"
    where = ".".join(str(part) for part in first.get("loc", ())) or "the result"
    return f"{where}: {first.get('msg', 'invalid')}"


def schema_note(problem: str) -> str:
    """The line added to a result whose structured content does not match the tool's output
    schema: the result is kept (the tool ran; a failure would invite the call again)."""
    said = "the server's structured content does not match the tool's output schema"
    return f"[note: {said}: {problem}]"


STAND_IN = "Server returned an error response"
"""What the SDK's streamable HTTP client says for any HTTP error without a JSON-RPC body:
the status is not said (:func:`http_refusal` says it, from the response Frontier saw)."""


def http_refusal(status: int) -> str:
    """What an HTTP error from a remote server means for the person configuring it."""
    if status == 401:
        return (
            "HTTP 401: the server wants to know who asks (a sign-in, OAuth, which Frontier "
            "does not do): give it a token in its headers, e.g. headers = { Authorization = "
            '"Bearer ${TOKEN}" }'
        )
    if status == 403:
        return "HTTP 403: the server refused this token (it lacks access, or has expired)"
    if status == 429:
        return "HTTP 429: the server is limiting requests; try again later"
    return f"HTTP {status}"


def said_plainly(text: str, status: int | None) -> str:
    """``text`` with the SDK's :data:`STAND_IN` replaced by what ``status`` means."""
    if status is None or STAND_IN not in text:
        return text
    return text.replace(STAND_IN, http_refusal(status))
