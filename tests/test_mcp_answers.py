"""``tools/mcp_answers.py``: which lines the SDK could not read are answers to a request
(and so fail that request at once), and which failures leave the server alive."""

from __future__ import annotations

import json

import pytest

from frontier.tools import mcp_answers


@pytest.mark.parametrize(
    ("line", "ident", "words"),
    [
        ('{"id": 3, "result": {}}', 3, 'no "jsonrpc": "2.0"'),
        ('{"jsonrpc": "1.0", "id": "a", "result": {}}', "a", 'no "jsonrpc": "2.0"'),
        ('{"jsonrpc": "2.0", "id": 4, "result": "text"}', 4, '"result" is not an object'),
        ('{"jsonrpc": "2.0", "id": 5, "error": "bad"}', 5, '"error" is not an object'),
        ('{"jsonrpc": "2.0", "id": 6, "error": {"message": "x"}}', 6, 'lacks an integer "code"'),
        ('{"jsonrpc": "2.0", "id": 7, "result": {}, "error": {}}', 7, 'both "result" and "error"'),
        ('{"jsonrpc": "2.0", "id": 8}', 8, 'neither "result" nor "error"'),
    ],
)
def test_an_answer_that_is_no_response_answers_its_request_with_why(
    line: str, ident: object, words: str
) -> None:
    made = json.loads(mcp_answers.unreadable_answer(line) or "null")
    assert made["jsonrpc"] == "2.0" and made["id"] == ident
    assert made["error"]["code"] == mcp_answers.UNREADABLE
    assert made["error"]["data"] == mcp_answers.MARK
    assert words in made["error"]["message"]


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc": "2.0", "id": 3, "res',  # cut short: which request it answers is unknown
        '{"id": true, "result": {}}',  # a bool is no request id
        '{"id": 1.5, "result": {}}',
        '{"id": null, "error": {}}',
        '{"method": "ping", "id": 2}',  # a request of the server's, not an answer
        '[{"id": 1, "result": {}}]',
        '{"id": 1, "result": ' + "[" * 100_000 + "]" * 100_000 + "}",  # too deep: no crash
        "Starting server...",
    ],
)
def test_a_line_that_answers_no_known_request_is_left_to_the_sdk(line: str) -> None:
    assert mcp_answers.unreadable_answer(line) is None


def test_failures_that_are_answers_leave_the_server_alive_a_closed_connection_does_not() -> None:
    from mcp.shared.exceptions import MCPError
    from mcp_types import CallToolResult
    from pydantic import ValidationError

    said = mcp_answers.answer_failure(MCPError(-32602, "bad arguments"))
    assert said == "bad arguments (JSON-RPC error -32602)"
    said = mcp_answers.answer_failure(MCPError(-32603, "no jsonrpc", mcp_answers.MARK))
    assert said == "its answer is not a JSON-RPC response (no jsonrpc)"
    assert mcp_answers.answer_failure(MCPError(-32000, "Connection closed")) is None
    with pytest.raises(ValidationError) as caught:
        CallToolResult.model_validate({})
    said = mcp_answers.answer_failure(caught.value)
    assert said == "its answer is not a tool result (content: Field required)"
    assert mcp_answers.answer_failure(OSError("pipe")) is None
    assert mcp_answers.answer_failure(RuntimeError("x")) is None
