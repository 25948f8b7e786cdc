"""One workload, rendered in every framing a transducer reads (experiment C).

Each framing gets the bytes its transducer is fed in a session: assistant text for
the text framings, the SSE body of a chat-completions stream for the native ones.
The renderings write what a model taught by Frontier's system prompts would write:

* ``ctl`` — one-line values inline; multi-line values, digit-only values and long
  lines length-prefixed with their exact UTF-8 byte count (``arg content 5120``);
* ``ctl-heredoc`` — the same, but a multi-line value that ends with a newline is a
  heredoc (``<<EOF``, or ``EOF1``… when ``EOF`` is a line of the value); one that
  does not end with a newline keeps its length prefix, as docs/protocol.md says;
* ``json-object`` — one ``{"id", "name", "arguments"}`` object per call, one a line;
* ``json-whole`` — the whole message is ``{"calls": [...]}`` (no prose: it must be JSON);
* ``native-inc`` / ``native-eos`` — ``delta.content`` pieces for the prose, then per
  call a chunk announcing ``index``/``id``/``name`` and its ``function.arguments`` (the
  JSON object as a string) in pieces of ``token`` characters, one chunk each (about
  one token, as servers stream them), a ``finish_reason: tool_calls`` chunk and
  ``[DONE]``;
* ``xml`` — one MiniMax ``<minimax:tool_call>`` block with an ``<invoke>`` per call;
  a value that begins or ends with a newline gets one more there (the padding the
  transducer drops, as MiniMax's own parser does).

Values that are not strings (``offset: 1``, ``edits: [...]``) are typed JSON in the
JSON framings and their compact JSON text in the text ones (the tool boundary coerces
text to the schema's type). Every framing but ``json-whole`` starts with the same
line of prose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Literal

from frontier.app.evaluation.workload import WorkCall, value_text
from frontier.app.model.wires.openai_chat import scripted_events
from frontier.app.record import record
from frontier.app.vocab import NATIVE_MODES, PROTOCOLS
from frontier.app.wire.sse import encode_sse

FRAMINGS: tuple[str, ...] = PROTOCOLS
"""Every framing a transducer reads, in ``frontier transduce --protocol`` order."""

PROSE = "I'll look at the code, make the change, document it and run the tests.\n"
TOKEN_CHARS = 4
"""Characters per streamed piece in the native renderings (about one token)."""
INLINE_MAX = 512
"""The longest value written inline (bytes); longer one-line values get a length prefix."""

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class RenderError(ValueError):
    """A call cannot be written in a framing (e.g. a key CTL cannot carry)."""


@record
class Rendering:
    framing: str
    data: bytes
    """What the framing's transducer is fed: assistant text, or an SSE body."""
    input: Literal["text", "sse"]


def render(framing: str, calls: Sequence[WorkCall], *, token: int = TOKEN_CHARS) -> Rendering:
    """``calls`` as the bytes ``framing``'s transducer reads."""
    if framing not in FRAMINGS:
        raise ValueError(f"unknown framing {framing!r}; choose from {', '.join(FRAMINGS)}")
    ids = [f"c{i + 1}" for i in range(len(calls))]
    if framing in NATIVE_MODES:
        return Rendering(framing, native_sse(calls, ids, token), "sse")
    if framing in ("ctl", "ctl-heredoc"):
        text = PROSE + "".join(
            ctl_call(i, c, heredoc=framing == "ctl-heredoc")
            for i, c in zip(ids, calls, strict=True)
        )
    elif framing == "json-object":
        text = PROSE + "".join(_json_call(i, c) + "\n" for i, c in zip(ids, calls, strict=True))
    elif framing == "json-whole":
        text = '{"calls": [\n' + ",\n".join(
            _json_call(i, c) for i, c in zip(ids, calls, strict=True)
        )
        text += "\n]}\n"
    else:
        text = PROSE + xml_block(calls)
    return Rendering(framing, text.encode("utf-8"), "text")


def render_all(
    calls: Sequence[WorkCall], framings: Sequence[str] = FRAMINGS, *, token: int = TOKEN_CHARS
) -> list[Rendering]:
    return [render(f, calls, token=token) for f in framings]


# --------------------------------------------------------------------------- CTL


def ctl_call(call_id: str, call: WorkCall, *, heredoc: bool) -> str:
    """One CTL frame (DESIGN §3), argument forms chosen as the prompts teach."""
    parts = [f"call {call_id} {call.name}\n"]
    for key, value in call.args.items():
        if _KEY.fullmatch(key) is None:
            raise RenderError(f"call {call_id} ({call.name}): CTL cannot carry the key {key!r}")
        text = value_text(value)
        raw = text.encode("utf-8")
        one_line = "\n" not in text and not text.isdigit() and not text.startswith("<<")
        if one_line and len(raw) <= INLINE_MAX:
            parts.append(f"arg {key} {text}\n")
            continue
        if heredoc and text.endswith("\n"):
            tag = heredoc_tag(text)
            parts.append(f"arg {key} <<{tag}\n{text}{tag}\n")
            continue
        parts.append(f"arg {key} {len(raw)}\n{text}")
    parts.append("end\n")
    return "".join(parts)


def heredoc_tag(text: str) -> str:
    """``EOF``, or ``EOF1``, ``EOF2``… : the first that is not a line of ``text``."""
    lines = set(text.split("\n"))
    tag, n = "EOF", 0
    while tag in lines:
        n += 1
        tag = f"EOF{n}"
    return tag


# --------------------------------------------------------------------------- JSON


def _json_call(call_id: str, call: WorkCall) -> str:
    return json.dumps(
        {"id": call_id, "name": call.name, "arguments": dict(call.args)}, ensure_ascii=False
    )


# --------------------------------------------------------------------------- native SSE


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), max(1, size))]


def native_sse(calls: Sequence[WorkCall], ids: Sequence[str], token: int) -> bytes:
    """The SSE body of a Chat Completions stream whose calls come as tool call pieces."""
    scripted = [
        (call_id, call.name, _pieces(json.dumps(dict(call.args), ensure_ascii=False), token))
        for call_id, call in zip(ids, calls, strict=True)
    ]
    return encode_sse(scripted_events(_pieces(PROSE, token), scripted, model="eval"))


# --------------------------------------------------------------------------- MiniMax XML


def xml_block(calls: Sequence[WorkCall]) -> str:
    """One ``<minimax:tool_call>`` block; values raw, padded where they meet a tag with
    a newline (``_unpad`` in ``app/cst/xml.py`` drops exactly one each side)."""
    parts = ["<minimax:tool_call>\n"]
    for call in calls:
        parts.append(f'<invoke name="{call.name}">\n')
        for key, value in call.args.items():
            text = value_text(value)
            if "</parameter>" in text or '"' in key or "<" in key:
                raise RenderError(f"call {call.name}: XML cannot carry argument {key!r} as is")
            front = "\n" if text.startswith("\n") else ""
            back = "\n" if text.endswith("\n") else ""
            parts.append(f'<parameter name="{key}">{front}{text}{back}</parameter>\n')
        parts.append("</invoke>\n")
    parts.append("</minimax:tool_call>\n")
    return "".join(parts)


__all__ = [
    "FRAMINGS",
    "INLINE_MAX",
    "PROSE",
    "TOKEN_CHARS",
    "RenderError",
    "Rendering",
    "ctl_call",
    "heredoc_tag",
    "native_sse",
    "render",
    "render_all",
    "xml_block",
]
