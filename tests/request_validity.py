"""Test support: is a request body one the API would accept? One checker per wire.

Each returns the problems found (empty: valid) for the rules an API enforces on a
conversation: roles alternate, every call is answered exactly once in the message after
it (and nowhere else), reasoning blocks precede the calls they led to, nothing is empty.
"""

from __future__ import annotations

from typing import Any

from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest


def problems(request: ModelRequest, wire: str) -> list[str]:
    body = codec(wire).body(request, "test-model")
    return CHECKERS[wire](body)


def chat_problems(body: dict[str, Any]) -> list[str]:
    out: list[str] = []
    messages = body["messages"]
    if not messages or messages[0]["role"] != "system":
        out.append("the first message is not the system prompt")
    rest = messages[1:]
    open_calls: list[str] = []
    last_role = None
    for i, m in enumerate(rest):
        role = m["role"]
        if role == "tool":
            if m["tool_call_id"] not in open_calls:
                out.append(f"message {i}: a tool result for no open call {m['tool_call_id']}")
            else:
                open_calls.remove(m["tool_call_id"])
            last_role = "tool"  # results answer the calls: either side may speak next
            continue
        if open_calls:
            out.append(f"message {i}: calls {open_calls} were never answered")
            open_calls = []
        if role == last_role:
            out.append(f"message {i}: two {role} messages in a row")
        if role == "assistant":
            calls = m.get("tool_calls") or []
            ids = [c["id"] for c in calls]
            if len(ids) != len(set(ids)):
                out.append(f"message {i}: repeated call ids {ids}")
            open_calls = ids
            if not calls and not (m.get("content") or "").strip():
                out.append(f"message {i}: an empty assistant message")
        elif role == "user" and not str(m.get("content") or "").strip():
            out.append(f"message {i}: an empty user message")
        last_role = role
    if open_calls:
        out.append(f"calls {open_calls} were never answered")
    if rest and rest[0]["role"] != "user":
        out.append("the conversation does not start with the user")
    if rest and rest[-1]["role"] == "assistant" and rest[-1].get("tool_calls"):
        out.append("the request ends with unanswered calls")
    return out


def responses_problems(body: dict[str, Any]) -> list[str]:
    out: list[str] = []
    items = body["input"]
    if body.get("store") is not False:
        out.append("store is not false")
    outstanding: list[str] = []
    answered: set[str] = set()
    last_role = None
    for i, item in enumerate(items):
        kind = item.get("type", "message")
        if kind == "function_call":
            outstanding.append(item["call_id"])
            last_role = "assistant"
        elif kind == "function_call_output":
            cid = item["call_id"]
            if cid not in outstanding:
                out.append(f"item {i}: output for no open call {cid}")
            else:
                outstanding.remove(cid)
                answered.add(cid)
        elif kind == "reasoning":
            if "encrypted_content" not in item:
                out.append(f"item {i}: a reasoning item without encrypted_content")
            last_role = "assistant"
        elif kind == "message":
            role = item["role"]
            if role == "user" and outstanding:
                out.append(f"item {i}: calls {outstanding} unanswered before the user speaks")
                outstanding = []
            if role == last_role == "user":
                out.append(f"item {i}: two user messages in a row")
            texts = [p.get("text", "") for p in item.get("content", [])]
            pictures = [p for p in item.get("content", []) if p.get("type") == "input_image"]
            if not any(t.strip() for t in texts) and not pictures:
                out.append(f"item {i}: an empty {role} message")
            last_role = role
    if outstanding:
        out.append(f"calls {outstanding} were never answered")
    return out


def anthropic_problems(body: dict[str, Any]) -> list[str]:
    out: list[str] = []
    messages = body["messages"]
    if "max_tokens" not in body:
        out.append("max_tokens is missing")
    if not messages or messages[0]["role"] != "user":
        out.append("the first message is not the user's")
    open_ids: list[str] = []
    used: set[str] = set()
    for i, m in enumerate(messages):
        if i and m["role"] == messages[i - 1]["role"]:
            out.append(f"message {i}: two {m['role']} messages in a row")
        blocks = m["content"] if isinstance(m["content"], list) else [{"type": "text"}]
        if not blocks:
            out.append(f"message {i}: no content")
        if m["role"] == "user":
            ids = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
            if sorted(ids) != sorted(open_ids):
                out.append(f"message {i}: results {ids} do not answer {open_ids}")
            first_text = next(
                (k for k, b in enumerate(blocks) if b.get("type") != "tool_result"), len(blocks)
            )
            if any(b.get("type") == "tool_result" for b in blocks[first_text:]):
                out.append(f"message {i}: a tool_result after text")
            open_ids = []
        else:
            kinds = [b.get("type") for b in blocks]
            seen_other = False
            for kind in kinds:
                if kind in ("thinking", "redacted_thinking") and seen_other:
                    out.append(f"message {i}: a thinking block after text or tool_use")
                if kind not in ("thinking", "redacted_thinking"):
                    seen_other = True
            open_ids = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            for ident in open_ids:  # the API refuses a repeated id ("must be unique")
                if ident in used:
                    out.append(f"message {i}: tool_use id {ident} used before")
                used.add(ident)
        for b in blocks:
            if b.get("type") == "text" and not str(b.get("text", "")).strip():
                out.append(f"message {i}: an empty text block")
    if open_ids:
        out.append(f"calls {open_ids} were never answered")
    if body.get("thinking") and len(messages) >= 2 and messages[-1]["role"] == "user":
        last, before = messages[-1]["content"], messages[-2]["content"]
        results = isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)
        first = before[0].get("type") if isinstance(before, list) and before else None
        if results and first not in ("thinking", "redacted_thinking"):
            # "When `thinking` is enabled, a final `assistant` message must start with a
            # thinking block (preceeding the lastmost set of `tool_use` and `tool_result`)"
            out.append("thinking on, but the tool loop's assistant message has no thinking")
    return out


CHECKERS = {
    "openai-chat": chat_problems,
    "openai-responses": responses_problems,
    "anthropic-messages": anthropic_problems,
}
WIRES = tuple(CHECKERS)
