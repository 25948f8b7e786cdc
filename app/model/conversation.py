"""The typed conversation: what was said, from which every wire encodes its request.

The loop keeps the history as a list of :data:`Item` (never a wire's JSON); the store
keeps each item as JSON (:func:`item_to_json`); the compactor plans over the items; a
wire adapter turns them into its API's messages through :func:`wire_messages`, which
makes any history valid for every API:

- roles alternate: consecutive user-side items (a typed message, results, runtime
  feedback) become one user message, consecutive assistant turns one assistant message;
  an assistant turn with nothing in it reads ``[no reply]``;
- every call has exactly one result: a call the history has no result for gets a
  ``not_executed`` one, a result for no call of the turn before it is sent as text;
- reasoning blocks an API requires back go back to that API only, before the turn's
  text and calls (Anthropic's thinking-before-``tool_use`` rule);
- an interrupted or failed reply keeps what was said, with its marker (``cut``), so
  the model learns it was cut and the next user message never follows a user message.

A reply's calls travel natively only when the request offers tools; otherwise (a text
protocol, after the session switched modes) they are written as text, and results as
result frames.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from frontier.app import fastjson
from frontier.app.image import IMAGE_TYPES, Image
from frontier.app.record import field, record
from frontier.app.vocab import FAILED_CUT

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    Origin = Literal["person", "feedback", "summary", "notice", "carried", "tool"]
"""Who wrote a user-side text: the ``person`` (typed or queued); the runtime
(``feedback``: a repair request; ``notice``: an undo the person made; ``carried``:
results that reached the model late, after a crash); a compaction's ``summary``; a
``tool``'s images (what ``read`` found, shown after the results: the APIs take images
on the user's side only)."""
ORIGINS = ("person", "feedback", "summary", "notice", "carried", "tool")

NO_REPLY = "[no reply]"
SUMMARY_MARK = "[Frontier compacted the conversation:"
"""How a compaction's summary message starts (``agent/compaction.py`` writes it; a stored
history from before typed items is read back by it)."""
NOT_EXECUTED = "[not_executed] no result was recorded for this call; it may not have run"


IMAGE_TOKENS = 1600
"""What an image is counted as in the context budget: Anthropic's figure for the largest
image it keeps whole (about 1.15 megapixels: width × height / 750); OpenAI's high-detail
tiles cost about the same. An estimate, like every byte count here."""
IMAGE_BYTES = IMAGE_TOKENS * 4
""":data:`IMAGE_TOKENS` as the bytes :func:`item_bytes` counts (4 a token, as the budget
reads them: ``agent/budget.BYTES_PER_TOKEN``)."""


@record
class UserText:
    """Text on the user's side of the conversation, with any images the person attached."""

    text: str
    origin: Origin = "person"
    images: tuple[Image, ...] = ()


@record
class CallEntry:
    """A native tool call the model made (JSON-safe arguments)."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@record
class Reasoning:
    """A reasoning block an API requires back (opaque: ``data`` is the block as its
    ``wire`` sent it; no other wire is ever sent it)."""

    wire: str
    data: Mapping[str, Any]


@record
class AssistantTurn:
    """One model reply as kept: its text (for the text protocols the raw text up to the
    last confirmed call, frames included), the native calls that were run, reasoning
    blocks to send back, and ``cut``: the marker sentence when the reply is not whole
    (``[Reply interrupted by the user]``), shown to the model after the text."""

    text: str = ""
    calls: tuple[CallEntry, ...] = ()
    reasoning: tuple[Reasoning, ...] = ()
    cut: str = ""


def failed_cut(why: str) -> str:
    """The ``cut`` of a reply that failed (the server's error, a dropped request): what
    the model is told, and the only place the turn's error is kept (:func:`failure_of`).
    Past 300 characters it is cut, and ends in "…" so that a resumed session's Transcript
    and the export show it was cut (they showed "HTTP 400 Bad Reque")."""
    said = " ".join(why.split())
    return f"{FAILED_CUT}{said if len(said) <= 300 else said[:299] + '…'}]"


TOO_LONG_OPENINGS = ("your message (", "the model's context window is ")
"""How the error of a turn that ended ``too_long`` begins (``Compactor._too_long`` writes
it with these): read back from a stored failure, it names the reason a resumed session
and the export show (a server's error begins with its URL)."""


def failure_reason(why: str) -> str:
    """The ``TurnEnded`` reason a stored failure's ``why`` stands for."""
    return "too_long" if why.startswith(TOO_LONG_OPENINGS) else "provider_error"


def failure_of(cut: str) -> str | None:
    """What a failed reply's ``cut`` says went wrong, or ``None`` for any other cut."""
    if cut.startswith(FAILED_CUT) and cut.endswith("]"):
        return cut[len(FAILED_CUT) : -1]
    return None


@record
class ResultEntry:
    """The result of one call as the model reads it."""

    call_id: str
    name: str
    kind: str
    """How the call ended (``ok``, ``error``, ``denied``, ... ``events.ResultKind``)."""
    exit_code: int
    body: str
    """The text the model reads: capped, a failure headed by its ``[kind]``."""


@record
class ToolResults:
    """The results answering the assistant turn before it, and runtime text that goes
    with them (a repair request, the carried results' explanation).

    ``framed``: the text protocols send results as result frames inside a user message
    (DESIGN §3), not as the API's native tool results."""

    results: tuple[ResultEntry, ...] = ()
    note: str = ""
    framed: bool = False


Item = UserText | AssistantTurn | ToolResults
"""One entry of the history."""


# --------------------------------------------------------------------------- text forms


def frame(entry: ResultEntry) -> str:
    """A result as a CTL result frame: ``result <id> exit=<code> <nbytes>\\n<body>\\nend\\n``
    (``nbytes`` counts exactly the UTF-8 bytes of the body sent)."""
    body = entry.body.encode("utf-8")
    return f"result {entry.call_id} exit={entry.exit_code} {len(body)}\n{entry.body}\nend\n"


def call_text(call: CallEntry) -> str:
    """A native call written as text, for a request that offers no tools."""
    args = fastjson.dumps(dict(call.arguments), ensure_ascii=False, separators=(",", ":"))
    return f"[called {call.name} (id {call.id}) with {args}]"


def user_text(item: UserText | ToolResults) -> str:
    """The user-side text of an item sent without native results (its images apart)."""
    if isinstance(item, UserText):
        return item.text
    return "".join(frame(r) for r in item.results) + item.note


def assistant_text(turn: AssistantTurn) -> str:
    """The turn's text with its cut marker (``[no reply]`` when it has neither)."""
    if turn.cut:
        return f"{turn.text}\n\n{turn.cut}" if turn.text.strip() else turn.cut
    return turn.text


# --------------------------------------------------------------------------- for wires


@record
class UserMessage:
    """One user-role message: native results first (answering the assistant message
    before it), then texts in order."""

    results: tuple[ResultEntry, ...] = ()
    texts: tuple[str, ...] = ()
    images: tuple[Image, ...] = ()
    """Sent before the texts (Anthropic's advice: an image, then what to do with it)."""

    @property
    def text(self) -> str:
        return "\n\n".join(t for t in self.texts if t)


@record
class AssistantMessage:
    """One assistant-role message: reasoning blocks for this wire, text, native calls."""

    text: str = ""
    calls: tuple[CallEntry, ...] = ()
    reasoning: tuple[Mapping[str, Any], ...] = ()


Message = UserMessage | AssistantMessage


def wire_messages(items: Iterable[Item], *, native: bool, wire: str) -> list[Message]:
    """The history as alternating messages every API accepts (see the module doc).

    ``native``: the request offers tools, so calls and results travel natively;
    ``wire``: reasoning blocks made by this wire are kept, others dropped. The first
    message is always a user message and no message is empty."""
    out: list[Message] = []
    calls_open: tuple[CallEntry, ...] = ()
    """Native calls of the last assistant message still waiting for their results."""

    def user(
        results: Sequence[ResultEntry] = (), text: str = "", images: tuple[Image, ...] = ()
    ) -> None:
        texts = (text,) if text else ()
        if out and isinstance(out[-1], UserMessage):
            prev = out[-1]
            out[-1] = UserMessage(
                prev.results + tuple(results), prev.texts + texts, prev.images + images
            )
        elif results or texts or images:
            out.append(UserMessage(tuple(results), texts, images))

    def close_calls() -> None:
        nonlocal calls_open
        if calls_open:
            missing = [
                ResultEntry(c.id, c.name, "not_executed", 1, NOT_EXECUTED) for c in calls_open
            ]
            user(missing)
            calls_open = ()

    for item in items:
        if isinstance(item, AssistantTurn):
            close_calls()
            calls = item.calls if native else ()
            text = assistant_text(item)
            if item.calls and not native:
                written = "\n".join(call_text(c) for c in item.calls)
                text = f"{text}\n\n{written}" if text.strip() else written
            reasoning = tuple(r.data for r in item.reasoning if r.wire == wire)
            if out and isinstance(out[-1], AssistantMessage):
                prev = out[-1]
                joined = "\n\n".join(t for t in (prev.text, text) if t.strip())
                out[-1] = AssistantMessage(joined, prev.calls + calls, prev.reasoning + reasoning)
            else:
                if not out:
                    out.append(UserMessage(texts=("(The conversation continues.)",)))
                out.append(AssistantMessage(text, calls, reasoning))
            calls_open = calls
        elif isinstance(item, ToolResults) and native and not item.framed and calls_open:
            wanted = {c.id: c for c in calls_open}
            answered: dict[str, ResultEntry] = {}
            strays: list[ResultEntry] = []
            for r in item.results:
                if r.call_id in wanted and r.call_id not in answered:
                    answered[r.call_id] = r
                else:
                    strays.append(r)
            paired = [
                answered.get(c.id) or ResultEntry(c.id, c.name, "not_executed", 1, NOT_EXECUTED)
                for c in calls_open
            ]
            calls_open = ()
            stray_text = "".join(frame(r) for r in strays)
            user(paired, stray_text + item.note)
        else:
            close_calls()
            assert isinstance(item, UserText | ToolResults)
            user((), user_text(item), item.images if isinstance(item, UserText) else ())
    close_calls()
    for i, message in enumerate(out):
        if isinstance(message, AssistantMessage) and not message.text.strip() and not message.calls:
            out[i] = AssistantMessage(NO_REPLY, (), message.reasoning)
    return out


# --------------------------------------------------------------------------- storage


def item_to_json(item: Item) -> dict[str, Any]:
    """The stored form of an item (``"item"`` names its type)."""
    if isinstance(item, UserText):
        stored: dict[str, Any] = {"item": "user", "text": item.text, "origin": item.origin}
        if item.images:
            stored["images"] = [
                {"media_type": i.media_type, "data": i.data, "name": i.name} for i in item.images
            ]
        return stored
    if isinstance(item, AssistantTurn):
        out: dict[str, Any] = {"item": "assistant", "text": item.text}
        if item.calls:
            out["calls"] = [
                {"id": c.id, "name": c.name, "arguments": dict(c.arguments)} for c in item.calls
            ]
        if item.reasoning:
            out["reasoning"] = [{"wire": r.wire, "data": dict(r.data)} for r in item.reasoning]
        if item.cut:
            out["cut"] = item.cut
        return out
    out = {
        "item": "results",
        "results": [
            {"id": r.call_id, "name": r.name, "kind": r.kind, "exit": r.exit_code, "body": r.body}
            for r in item.results
        ],
    }
    if item.note:
        out["note"] = item.note
    if item.framed:
        out["framed"] = True
    return out


ITEM_ROLES = {"user": "user", "assistant": "assistant", "results": "results"}
"""The ``role`` column the store files each stored item under."""


def role_of(item: Item) -> str:
    if isinstance(item, UserText):
        return "user"
    return "assistant" if isinstance(item, AssistantTurn) else "results"


def is_item_json(obj: object) -> bool:
    """True for an item's stored form (sessions before issue 20 stored chat messages)."""
    return isinstance(obj, Mapping) and obj.get("item") in ITEM_ROLES


def item_from_json(obj: Mapping[str, Any]) -> Item:
    """The item a stored form holds; ``ValueError`` for anything else."""
    kind = obj.get("item")
    if kind == "user":
        origin = obj.get("origin", "person")
        if origin not in ORIGINS:
            origin = "person"
        images = tuple(
            Image(i["media_type"], i["data"], _str(i.get("name")))
            for i in _list(obj.get("images"))
            if isinstance(i, Mapping)
            and i.get("media_type") in IMAGE_TYPES
            and isinstance(i.get("data"), str)
        )
        return UserText(_str(obj.get("text")), origin, images)
    if kind == "assistant":
        calls = tuple(
            CallEntry(_str(c.get("id")), _str(c.get("name")), _dict(c.get("arguments")))
            for c in _list(obj.get("calls"))
            if isinstance(c, Mapping)
        )
        reasoning = tuple(
            Reasoning(_str(r.get("wire")), _dict(r.get("data")))
            for r in _list(obj.get("reasoning"))
            if isinstance(r, Mapping)
        )
        return AssistantTurn(_str(obj.get("text")), calls, reasoning, _str(obj.get("cut")))
    if kind == "results":
        results = tuple(
            ResultEntry(
                _str(r.get("id")),
                _str(r.get("name")),
                _str(r.get("kind")) or "ok",
                r["exit"] if isinstance(r.get("exit"), int) else 0,
                _str(r.get("body")),
            )
            for r in _list(obj.get("results"))
            if isinstance(r, Mapping)
        )
        return ToolResults(results, _str(obj.get("note")), bool(obj.get("framed")))
    raise ValueError(f"not a conversation item: {str(obj)[:80]}")


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


# --------------------------------------------------------------------------- measures


def item_bytes(item: Item) -> int:
    """UTF-8 bytes an item puts in a request (its text, calls' arguments, results)."""
    if isinstance(item, UserText):
        return len(item.text.encode("utf-8")) + len(item.images) * IMAGE_BYTES
    if isinstance(item, AssistantTurn):
        size = len(item.text.encode("utf-8")) + len(item.cut.encode("utf-8"))
        for call in item.calls:
            args = fastjson.dumps(dict(call.arguments), ensure_ascii=False)
            size += len(call.name) + len(call.id) + len(args.encode("utf-8"))
        for block in item.reasoning:
            size += len(fastjson.dumps(dict(block.data), ensure_ascii=False).encode("utf-8"))
        return size
    size = len(item.note.encode("utf-8"))
    for r in item.results:
        size += len(r.body.encode("utf-8")) + len(r.call_id) + 24
    return size


def text_items(items: Sequence[Item]) -> str:
    """The whole history as plain text (a summary request's transcript source)."""
    parts: list[str] = []
    for item in items:
        if isinstance(item, AssistantTurn):
            parts.append(assistant_text(item))
            parts.extend(call_text(c) for c in item.calls)
        else:
            parts.append(user_text(item))
            if isinstance(item, UserText):  # a summary request carries no image
                parts.extend(image_note(i) for i in item.images)
    return "\n\n".join(p for p in parts if p)


def without_images(item: UserText) -> UserText:
    """``item`` with its images taken out and named in its text (the model cannot read
    them: its server refused them)."""
    if not item.images:
        return item
    if item.origin == "tool":  # its text names each image already
        return UserText(f"{item.text}\n(not sent: the model takes no images)", "tool")
    said = "\n".join(image_note(image) for image in item.images)
    note = f"{said}\n(not sent: the model takes no images)"
    return UserText(f"{item.text}\n\n{note}" if item.text else note, item.origin)


def image_note(image: Image) -> str:
    """An image in words, where only text goes (a summary request, the export)."""
    return f"[image {image.name or '(pasted)'}, {image.media_type}, {image.size():,} bytes]"


__all__ = [
    "IMAGE_TYPES",
    "NOT_EXECUTED",
    "NO_REPLY",
    "SUMMARY_MARK",
    "TOO_LONG_OPENINGS",
    "AssistantMessage",
    "AssistantTurn",
    "CallEntry",
    "Image",
    "Item",
    "Message",
    "Origin",
    "Reasoning",
    "ResultEntry",
    "ToolResults",
    "UserMessage",
    "UserText",
    "assistant_text",
    "call_text",
    "failed_cut",
    "failure_of",
    "failure_reason",
    "frame",
    "image_note",
    "is_item_json",
    "item_bytes",
    "item_from_json",
    "item_to_json",
    "role_of",
    "text_items",
    "user_text",
    "wire_messages",
    "without_images",
]
