"""MiniMax-style XML tool calls (mode ``xml``): executed only after the stream ends.

```
<minimax:tool_call>
<invoke name="read">
<parameter name="path">src/app.py</parameter>
</invoke>
</minimax:tool_call>
```

Prose outside blocks is confirmed as it arrives. Each block is checked when
its closing tag arrives (a malformed block is a ``bad_xml`` error at once), but
its calls become executable only at ``finish(clean=True)``: on truncation none
runs and each call seen so far (complete or not) gets a ``truncated`` error.
Parameter values are the text between the tags, as strings, less one
padding newline at each end (``_unpad``); the tool layer coerces them to the
schema types.

A block is split into invokes and parameters by ``bytes.find`` of the tags,
left to right, each byte looked at a bounded number of times: a regex with a
lazy ``(.*?)</invoke>`` rescans the rest of the block from every unclosed
``<invoke>`` (8,000 of them took 19 s). What it accepts is exactly what that
regex's ``finditer``/``sub`` accepted.
"""

from __future__ import annotations

import re

from frontier.app.cst.base import preview
from frontier.app.cst.snapshot import ArgState, FrameSnapshot, head
from frontier.app.stream_events import (
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    ToolCall,
)

OPEN = b"<minimax:tool_call>"
CLOSE = b"</minimax:tool_call>"
MAX_BLOCK_BYTES = 16 << 20

MAX_HELD = 64 << 20
"""Bytes of complete blocks a response may hold until its end (their calls run only then)."""

_INVOKE_START_RE = re.compile(rb'<invoke name="([^"<>]*)"')


class _Tag:
    """An element ``<tag name="…">body</tag>``: its open-tag regex and closing tag."""

    def __init__(self, tag: bytes) -> None:
        self.start = b"<" + tag + b' name="'
        self.open = re.compile(re.escape(self.start) + rb'([^"<>]*)">')
        self.close = b"</" + tag + b">"


_INVOKE = _Tag(b"invoke")
_PARAM = _Tag(b"parameter")


def _elements(data: bytes, tag: _Tag) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """(name, body) of each ``tag`` element in ``data``, and the bytes outside them.

    Linear: the same matches as ``re.finditer`` of ``<tag name="([^"<>]*)">(.*?)</tag>``
    (leftmost open tag whose name is well formed, body up to the next closing
    tag), and the outside as that regex's ``sub(b"", data)`` — but once no
    closing tag follows, no later open tag can have one either, so it stops.
    """
    found: list[tuple[bytes, bytes]] = []
    outside: list[bytes] = []
    pos = 0
    at = data.find(tag.start)
    while at >= 0:
        m = tag.open.match(data, at)
        if m is None:
            at = data.find(tag.start, at + 1)
            continue
        end = data.find(tag.close, m.end())
        if end < 0:
            break
        outside.append(data[pos:at])
        found.append((m[1], data[m.end() : end]))
        pos = end + len(tag.close)
        at = data.find(tag.start, pos)
    outside.append(data[pos:])
    return found, b"".join(outside)


def _unpad(value: bytes) -> bytes:
    """A parameter value less its padding: one ``\\n`` right after ``<parameter …>`` and one
    right before ``</parameter>``; every other byte is kept.

    Models trained on MiniMax's format write ``<parameter name="x">\\nvalue\\n</parameter>``
    and its reference parser (and vLLM's) strip the padding, so keeping it sent a stray
    newline into a ``path`` or ``command``. Stripping *all* whitespace, as they do, would
    also eat indentation and blank lines that belong to the value, so exactly one each
    side (a value that must end in a newline is written with two).
    Blocks are read whole at their closing tag, so where the chunks split does not matter.
    """
    if value[:1] == b"\n":
        value = value[1:]
    if value[-1:] == b"\n":
        value = value[:-1]
    return value


def _held_prefix(data: bytes, tag: bytes) -> int:
    """How many trailing bytes of ``data`` could be the start of ``tag``."""
    for k in range(min(len(tag) - 1, len(data)), 0, -1):
        if data.endswith(tag[:k]):
            return k
    return 0


class XmlTransducer:
    def __init__(self, max_block: int = MAX_BLOCK_BYTES, max_held: int = MAX_HELD) -> None:
        self.max_block = max_block
        self.max_held = max_held
        self.consumed = 0
        self.stopped = False
        self.truncated_calls: list[tuple[str, str]] = []
        self._text_end = 0
        self._tail = b""
        self._in_block = False
        self._block = bytearray()
        self._block_start = 0
        self._blocks: list[tuple[int, bytes]] = []
        self._held = 0
        """Bytes in ``_blocks``."""
        self._calls: list[ToolCall] = []
        self._finished = False

    @property
    def frontier(self) -> int:
        if self._blocks:
            return self._blocks[0][0]
        if self._in_block:
            return self._block_start
        return self._text_end

    def pending(self) -> bytes:
        held = b"".join(b for _, b in self._blocks)
        return held + (bytes(self._block) if self._in_block else self._tail)

    def pending_size(self) -> int:
        return self._held + (len(self._block) if self._in_block else len(self._tail))

    def pending_bound(self) -> int:
        return self.consumed

    def snapshot(self) -> FrameSnapshot:
        """The element being read and the invoke's parameters so far (the inspector's view)."""
        held = len(self._calls)
        if not self._in_block:
            where = "stopped" if self.stopped else "outside a <minimax:tool_call> block"
            return FrameSnapshot(
                where, self.frontier, self.consumed, self.pending_size(), line=head(self._tail)
            )
        block = bytes(self._block)
        path = ["minimax:tool_call"]
        tool = call_id = None
        args: list[ArgState] = []
        at = block.rfind(_INVOKE.start)
        if at >= 0 and block.find(_INVOKE.close, at) >= 0:
            found = _elements(block, _INVOKE)[0]  # all closed: the block's last invoke
            if found:
                name, body = found[-1]
                tool = name.decode("utf-8", "replace")
                call_id = f"call_{held + len(found)}"
                path.append(f'after invoke name="{tool}"')
                args = [
                    ArgState(k.decode("utf-8", "replace"), "xml", len(_unpad(v)), head(_unpad(v)))
                    for k, v in _elements(body, _PARAM)[0]
                ]
        elif at >= 0:
            done = len(_elements(block[:at], _INVOKE)[0])
            call_id = f"call_{held + done + 1}"
            m = _INVOKE.open.match(block, at)
            if m is None:
                path.append("invoke (its open tag not yet complete)")
            else:
                tool = m[1].decode("utf-8", "replace")
                path.append(f'invoke name="{tool}"')
                body = block[m.end() :]
                p_at = body.rfind(_PARAM.start)
                open_param = p_at >= 0 and body.find(_PARAM.close, p_at) < 0
                params, _ = _elements(body[:p_at] if open_param else body, _PARAM)
                args = [
                    ArgState(k.decode("utf-8", "replace"), "xml", len(_unpad(v)), head(_unpad(v)))
                    for k, v in params
                ]
                if open_param:
                    pm = _PARAM.open.match(body, p_at)
                    if pm is None:
                        path.append("parameter (its open tag not yet complete)")
                    else:
                        key = pm[1].decode("utf-8", "replace")
                        path.append(f'parameter name="{key}"')
                        value = body[pm.end() :]
                        args.append(ArgState(key, "xml", len(value), head(value), complete=False))
        return FrameSnapshot(
            f"in the <minimax:tool_call> block at byte {self._block_start}",
            self.frontier,
            self.consumed,
            self.pending_size(),
            call_id=call_id,
            tool=tool,
            args=tuple(args),
            element=" > ".join(path),
            line=head(block[-48:]),
        )

    def feed(self, data: bytes) -> list[Event]:
        self.consumed += len(data)
        ev: list[Event] = []
        if self.stopped or self._finished or not data:
            return ev
        s = self._tail + data if self._tail and not self._in_block else data
        base = self.consumed - len(s) if not self._in_block else self.consumed - len(data)
        self._tail = b""
        pos = 0
        while pos < len(s) and not self.stopped:
            if self._in_block:
                look = max(0, len(self._block) - len(CLOSE) + 1)
                self._block += s[pos:]
                j = self._block.find(CLOSE, look)
                if j < 0:
                    if len(self._block) > self.max_block:
                        self._fail(
                            "limit",
                            f"a <minimax:tool_call> block passed {self.max_block} bytes",
                            self._block_start + self.max_block,
                            ev,
                        )
                    break
                end = j + len(CLOSE)
                overflow = len(self._block) - end
                block = bytes(self._block[:end])
                self._block = bytearray()
                self._in_block = False
                self._close_block(block, ev)
                pos = len(s) - overflow
                self._text_end = base + pos
                continue
            j = s.find(OPEN, pos)
            if j < 0:
                keep = _held_prefix(s[pos:], OPEN)
                end = len(s) - keep
                if end > pos:
                    ev.append(Confirmed(base + pos, "text", s[pos:end]))
                self._text_end = base + end
                self._tail = s[end:]
                break
            if j > pos:
                ev.append(Confirmed(base + pos, "text", s[pos:j]))
            self._text_end = base + j
            self._in_block = True
            self._block_start = base + j
            pos = j
        return ev

    def _close_block(self, block: bytes, ev: list[Event]) -> None:
        start = self._block_start
        inner = block[len(OPEN) : -len(CLOSE)]
        found, outside = _elements(inner, _INVOKE)
        junk = outside.strip()
        if not found or junk:
            what = "has no <invoke name=…>…</invoke>" if not found else f"has stray {preview(junk)}"
            self._fail(
                "bad_xml", f"the <minimax:tool_call> block at byte {start} {what}", start, ev
            )
            return
        calls: list[ToolCall] = []
        for raw_name, body in found:
            name = raw_name.decode("utf-8", "replace")
            number = len(self._calls) + len(calls) + 1
            if not name:
                self._fail("bad_xml", f"invoke #{number} has an empty name", start, ev)
                return
            args: dict[str, str] = {}
            params, outside = _elements(body, _PARAM)
            stray = outside.strip()
            if stray:
                self._fail(
                    "bad_xml",
                    f"invoke #{number} ({name}) has stray {preview(stray)} "
                    f"outside <parameter> tags",
                    start,
                    ev,
                )
                return
            for raw_key, value in params:
                key = raw_key.decode("utf-8", "replace")
                if key in args:
                    self._fail(
                        "bad_arg",
                        f'invoke #{number} ({name}): parameter "{key}" given twice',
                        start,
                        ev,
                    )
                    return
                args[key] = _unpad(value).decode("utf-8", "replace")
            calls.append(ToolCall(f"call_{number}", name, args, start + len(block) - 1))
        if self._held + len(block) > self.max_held:
            self._fail(
                "limit",
                f"the <minimax:tool_call> blocks of this response passed {self.max_held} bytes "
                f"(their calls run only at its end); send fewer or smaller calls",
                start + self.max_held - self._held,
                ev,
            )
            return
        self._held += len(block)
        self._blocks.append((start, block))
        for call in calls:
            ev.append(CallStarted(call.id, call.name, start))
        self._calls.extend(calls)

    def _fail(self, kind: str, message: str, offset: int, ev: list[Event]) -> None:
        self.stopped = True
        ev.append(ContractError(kind, message + "; resend the calls", offset))

    def finish(self, clean: bool) -> list[Event]:
        ev: list[Event] = []
        if self.stopped or self._finished:
            return ev
        self._finished = True
        if not clean:
            open_names = []
            if self._in_block:
                open_names = [
                    m[1].decode("utf-8", "replace") for m in _INVOKE_START_RE.finditer(self._block)
                ]
            everything = [(c.id, c.name) for c in self._calls]
            everything += [(f"call_{len(everything) + i + 1}", n) for i, n in enumerate(open_names)]
            for ident, name in everything:
                self.truncated_calls.append((ident, name))
                ev.append(
                    ContractError(
                        "truncated",
                        f"call {ident} ({name}): the response was cut off, so none of its "
                        f"{len(everything)} call(s) ran; resend them",
                        self.consumed,
                    )
                )
            self.stopped = True
            return ev
        if self._in_block:
            self._fail(
                "bad_xml",
                f"the stream ended inside the <minimax:tool_call> block at byte "
                f"{self._block_start} (no {CLOSE.decode()})",
                self.consumed,
                ev,
            )
            return ev
        if self._tail:
            ev.append(Confirmed(self._text_end, "text", self._tail))
            self._text_end += len(self._tail)
            self._tail = b""
        for start, block in self._blocks:
            ev.append(Confirmed(start, "frame", block))
        self._blocks = []
        self._held = 0
        ev.extend(CallReady(c) for c in self._calls)
        return ev
