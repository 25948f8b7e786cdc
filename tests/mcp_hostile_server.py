"""A hostile MCP stdio server for tests/test_mcp_hostile.py: a result of 50 MB, a tool that
never answers, one that exits the process mid-call, a tool whose name has control
characters, a ``list_changed`` flood, a result holding a lone surrogate and (``deep`` on the
command line, then a number of levels) a tool whose input schema nests that deep (60 levels
reach Frontier's own bound, 100 are more than the SDK's client can read), a tool that prints
a line that is no message before its answer, (``banner``) a server that greets on stdout,
and (``nolist``) a server that answers ``tools/list`` with an error. It is the
standard-library fixture server (tests/mcp_server_fixture.py) with these tools: starting the SDK's
server cost ~2 s of CPU each time (issue 24), and a hand-written server can send what the
SDK's would refuse to."""

from __future__ import annotations

import os
import sys
from typing import Any

import mcp_server_fixture as fixture

DEEP = int(sys.argv[2]) if sys.argv[1:2] == ["deep"] else 0
BAD_NAME = "evil\x1b[31m\x07name"
DOTTED = "github.search"
LONG = "list_pull_request_review_comments_for_repository_by_number_and_state"


def deep_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    node = schema
    for _ in range(levels):
        child: dict[str, Any] = {"type": "object"}
        node["properties"] = {"x": child}
        node = child
    return schema


def ok(text: str) -> str:
    """A well-behaved tool, to show the session still works."""
    return text


def huge() -> str:
    """A result of 50 MB, with markers at both ends."""
    return "HEAD" + "x" * (50 * 1024 * 1024) + "TAIL"


def hang() -> object:
    """Never answers."""
    return fixture.SLOW


def die() -> str:
    """Exits the process mid-call."""
    os._exit(7)


def flood(count: int) -> str:
    """300 more tools (more than a client takes), then ``count``
    ``notifications/tools/list_changed``."""
    for i in range(300):
        fixture.TOOLS[f"f{i}"] = (lambda: "flooded", "flood", {}, None)
    for _ in range(count):
        fixture.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    return f"sent {count}"


def surrogate() -> str:
    """A result holding a lone surrogate: valid JSON (``"\\udcff"``), not a character."""
    return "bad\udcff name"


def chatty() -> str:
    """Prints a line that is no message on stdout before it answers (a stray ``print``)."""
    print("debug: chatty called", flush=True)
    return "said"


def garbled(count: int) -> str:
    """Prints ``count`` lines on stdout that start as JSON and are not (the SDK fails to
    read each), then answers."""
    for i in range(count):
        print("{not json " + str(i), flush=False)
    sys.stdout.flush()
    return f"garbled {count}"


def noisy(kib: int) -> str:
    """Writes ``kib`` KiB of log lines to stderr, then ``noisy done``, and answers."""
    line = "debug: " + "x" * 1016 + "\n"  # 1 KiB
    for _ in range(kib):
        sys.stderr.write(line)
    print(f"noisy done {kib}", file=sys.stderr, flush=True)
    return "logged"


SLOPPY = {
    "nojsonrpc": lambda i: {"id": i, "result": {"content": [{"type": "text", "text": "hi"}]}},
    "textresult": lambda i: {"jsonrpc": "2.0", "id": i, "result": "just text"},
    "nocode": lambda i: {"jsonrpc": "2.0", "id": i, "error": {"message": "went wrong"}},
    "rpcerror": lambda i: {"jsonrpc": "2.0", "id": i, "error": {"code": -32000, "message": "no"}},
    "emptyresult": lambda i: {"jsonrpc": "2.0", "id": i, "result": {}},
    "both": lambda i: {"jsonrpc": "2.0", "id": i, "result": {}, "error": {"code": 1}},
}
"""Answers a careless hand-written server sends, by the ``how`` of :func:`sloppy`."""


def sloppy(how: str) -> object:
    """Answers with a reply that is JSON but no JSON-RPC response (:data:`SLOPPY`)."""
    fixture.send(SLOPPY[how](fixture.ANSWERING[0]))
    return fixture.SLOW


TYPED_SCHEMA = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
"""The output schema ``typed`` declares, and its answers miss."""


def typed() -> object:
    """Has run (made issue 7), but its structured content misses its output schema."""
    result = {
        "content": [{"type": "text", "text": "made issue 7"}],
        "structuredContent": {"id": "7"},
    }
    fixture.send({"jsonrpc": "2.0", "id": fixture.ANSWERING[0], "result": result})
    return fixture.SLOW


def embedded() -> object:
    """Answers as GitHub's server answers ``get_file_contents``: the file as an embedded
    resource (and a binary one beside it)."""
    content = [
        {"type": "text", "text": "successfully downloaded text file"},
        {
            "type": "resource",
            "resource": {
                "uri": "repo://a/README.md",
                "mimeType": "text/markdown",
                "text": "# A\nbody",
            },
        },
        {"type": "resource", "resource": {"uri": "repo://a/logo.png", "blob": "iVBORw0K"}},
    ]
    result = {"content": content}
    fixture.send({"jsonrpc": "2.0", "id": fixture.ANSWERING[0], "result": result})
    return fixture.SLOW


SHOT = (
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDA"
    "AAANHQEDasKb6QAAAABJRU5ErkJggg=="
)
"""A 2×2 red PNG, base64-encoded."""
HOLLOW = "iVBORw0KGgo" + "A" * 40 + "="
"""A PNG's signature and zero bytes, base64-encoded: no image, though it starts as one."""


def screenshot() -> object:
    """Answers as Playwright's server answers ``browser_take_screenshot``: an image content
    (and three it must not show: bytes that are no image, a PNG's signature and zeros, and
    broken base64)."""
    content = [
        {"type": "text", "text": "Took the screenshot"},
        {"type": "image", "data": SHOT, "mimeType": "image/png"},
        {"type": "image", "data": "aGVsbG8gd29ybGQ=", "mimeType": "image/png"},
        {"type": "image", "data": HOLLOW, "mimeType": "image/png"},
        {"type": "image", "data": "iVBORw0KGgo", "mimeType": "image/jpeg"},
    ]
    result = {"content": content}
    fixture.send({"jsonrpc": "2.0", "id": fixture.ANSWERING[0], "result": result})
    return fixture.SLOW


def gallery() -> object:
    """Six screenshots in one answer: more than a result shows."""
    content = [{"type": "image", "data": SHOT, "mimeType": "image/png"} for _ in range(6)]
    fixture.send({"jsonrpc": "2.0", "id": fixture.ANSWERING[0], "result": {"content": content}})
    return fixture.SLOW


def listed_with_schema(params: dict[str, Any]) -> object:
    tools = fixture.listed()
    for tool in tools:
        if tool["name"] == "typed":
            tool["outputSchema"] = TYPED_SCHEMA
        if tool["name"] == "ok":  # as zod-to-json-schema writes it
            tool["inputSchema"] = {
                "$schema": "http://json-schema.org/draft-07/schema#",
                **tool["inputSchema"],
            }
    return {"tools": tools}


def nothing() -> str:
    return ""


def refuse_listing(params: dict[str, Any]) -> object:
    raise fixture.RpcError(-32603, "the tool listing could not be made")


if __name__ == "__main__":
    fixture.TOOLS.clear()
    schema = fixture.object_schema
    fixture.TOOLS.update(
        {
            "ok": (ok, ok.__doc__ or "", schema(text="string"), None),
            "huge": (huge, huge.__doc__ or "", {}, None),
            "hang": (hang, hang.__doc__ or "", {}, None),
            "die": (die, die.__doc__ or "", {}, None),
            "flood": (flood, flood.__doc__ or "", schema(count="integer"), None),
            "surrogate": (surrogate, surrogate.__doc__ or "", {}, None),
            "chatty": (chatty, chatty.__doc__ or "", {}, None),
            "noisy": (noisy, noisy.__doc__ or "", schema(kib="integer"), None),
            "garbled": (garbled, garbled.__doc__ or "", schema(count="integer"), None),
            "sloppy": (sloppy, sloppy.__doc__ or "", schema(how="string"), None),
            "typed": (typed, typed.__doc__ or "", {}, None),
            "embedded": (embedded, embedded.__doc__ or "", {}, None),
            "screenshot": (screenshot, screenshot.__doc__ or "", {}, None),
            "gallery": (gallery, gallery.__doc__ or "", {}, None),
            BAD_NAME: (nothing, "", {}, None),
        }
    )
    fixture.METHODS["tools/list"] = listed_with_schema
    if sys.argv[1:] == ["names"]:  # names the specification allows and model APIs refuse
        for odd in (DOTTED, LONG, LONG[:-1] + "x"):
            fixture.TOOLS[odd] = (ok, ok.__doc__ or "", schema(text="string"), None)
    if sys.argv[1:] == ["arrays"]:  # an array without items, which OpenAI refuses
        tagged = {
            "type": "object",
            "properties": {
                "tags": {"type": "array"},
                "n": {"type": ["array", "null"]},
                "d": {"type": "object", "default": {"type": "array"}},  # data shaped as one
            },
        }
        fixture.TOOLS["tagged"] = (ok, ok.__doc__ or "", tagged, None)
    if sys.argv[1:] == ["unschemed"]:  # one tool whose schema is no object's
        fixture.TOOLS["plain"] = (ok, ok.__doc__ or "", {"type": "string"}, None)
    if sys.argv[1:] == ["twins"]:  # two names the model would be offered as one
        fixture.TOOLS["dup.x"] = (ok, ok.__doc__ or "", schema(text="string"), None)
        fixture.TOOLS["dup_x"] = (nothing, "", {}, None)
    if DEEP:
        fixture.TOOLS["deep"] = (nothing, "", deep_schema(DEEP), None)
    if sys.argv[1:] == ["notools"]:  # resources only, as some shared configurations hold
        fixture.METHODS["initialize"] = lambda params: {
            "protocolVersion": params.get("protocolVersion"),
            "capabilities": {"resources": {}},
            "serverInfo": {"name": "resources", "version": "1"},
        }
        del fixture.METHODS["tools/list"]
    if sys.argv[1:] == ["noping"]:  # as servers written before ping was asked of them
        del fixture.METHODS["ping"]
    if sys.argv[1:] == ["nolist"]:
        fixture.METHODS["tools/list"] = refuse_listing
    if sys.argv[1:] == ["banner"]:  # as careless servers greet whoever starts them
        print("Starting hostile MCP server v1.0 ...\n\n  listening on stdio", flush=True)
    fixture.main()
