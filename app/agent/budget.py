"""The context budget: how large the model's window is and how much of it a request uses.

The window (tokens) comes from, in this order: the ``context_window`` setting
(``--context-window N``, ``FRONTIER_CONTEXT_WINDOW``, ``config.toml``); the server,
asked once per session before its first request (``model/probe.py``); the model
catalogue (``model/catalogue.py``); else :data:`DEFAULT_WINDOW`, *assumed* — and shown
as such, with how to set it. A server that refuses a request as too long and says its size
(``ModelError.overflow``) sets it exactly, whatever the source was.

What a request uses is counted, not guessed, where the server says: the prompt tokens
of the last request's usage cover everything sent then; only the items added since are
estimated, at :data:`BYTES_PER_TOKEN` UTF-8 bytes per token plus
:data:`MESSAGE_OVERHEAD` per item, scaled by how far that estimate was off on the last
request the server counted (``ratio``). With no count yet (the first request, a server
that sends no usage, right after a compaction) the whole request is estimated that way.
The estimate reads the typed :class:`ModelRequest`, not any wire's JSON, so it is the
same whichever API the request goes to. docs/context-budget.md has the figures and why.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from frontier.app.model.conversation import Item, item_bytes
from frontier.app.model.request import ModelRequest, ToolSchema
from frontier.app.record import field, record

DEFAULT_WINDOW = 8192
"""Tokens assumed when neither the settings nor the server say: the smallest window of
the models people commonly run locally today (Llama 3 8B's, many llama.cpp setups)."""
VENDOR_WINDOW = 128_000
"""Assumed for a model no one describes on a vendor's own API (``catalogue.TOOL_HOSTS``):
every chat model those serve has at least this (OpenAI's since gpt-4-turbo, DeepSeek's,
xAI's; Anthropic's and Google's have families of their own), and a request too long for a
smaller one is refused with its size, which sets the window exactly; 8,192 compacted a
session every few messages and never learned better."""
ASSUMED = "assumed"
"""The window's source when nobody said: the settings, the server, the catalogue."""
DEFAULT_THRESHOLD = 0.8
"""Compact before a request would use more than this share of the window: the rest is
left for the answer (and for the estimate's error)."""
DEFAULT_KEEP_ROUNDS = 3
"""Rounds (model responses and their results) always kept whole by compaction."""
BYTES_PER_TOKEN = 4.0
MESSAGE_OVERHEAD = 4
"""Tokens a chat template adds around each message (role markers, separators); counted
per item, which a wire may join into fewer messages: a little over, never under."""
RATIO_BOUNDS = (0.25, 4.0)
"""How far the server's count may scale the estimate (a count outside is not believed)."""

if TYPE_CHECKING:
    from frontier.app.events import TokenUsage
    from frontier.app.model.probe import WindowInfo

Probe = Callable[[], Awaitable["WindowInfo | None"]]
"""Asks the server for the window (``OpenAIProvider.probe_context_window``)."""


def estimate_items(items: Iterable[Item]) -> int:
    """Tokens ``items`` take in a request, estimated from their bytes (what the budget
    adds to the server's last count, and what a compaction step measures)."""
    size = count = 0
    for item in items:
        size += item_bytes(item)
        count += 1
    return int(size / BYTES_PER_TOKEN) + MESSAGE_OVERHEAD * count


def estimate_tokens(request: ModelRequest) -> int:
    """Tokens ``request`` takes, estimated from bytes: its system prompt, its items, the
    assistant text it continues (``prefill``: sent too, and a cut reply can be long) and
    the tool schemas it offers, as JSON."""
    size = len(request.system.encode("utf-8")) + len(request.prefill.encode("utf-8"))
    count = (1 if request.system else 0) + (1 if request.prefill else 0)
    for item in request.items:
        size += item_bytes(item)
        count += 1
    if request.tools:
        size += len(
            json.dumps([tool_schema(t) for t in request.tools], ensure_ascii=False).encode()
        )
    return int(size / BYTES_PER_TOKEN) + MESSAGE_OVERHEAD * count


def tool_schema(tool: ToolSchema) -> dict[str, object]:
    """A tool as its schema is counted: the JSON a request carries for it."""
    return {"name": tool.name, "description": tool.description, "parameters": dict(tool.parameters)}


@record(frozen=False)
class ContextBudget:
    """The window and the running count for one session (``AgentLoop.compactor.budget``)."""

    window: int | None = None
    """Tokens, once known (set, learned or defaulted at the first request)."""
    source: str = ""
    """Where ``window`` came from: ``config``, ``server (GET /props ...)``, ``catalogue
    (gpt-4.1)``, ``assumed`` (nobody said), ``demo``, ``overflow`` (the server's own error
    said it)."""
    threshold: float = DEFAULT_THRESHOLD
    keep_rounds: int = DEFAULT_KEEP_ROUNDS
    probe: Probe | None = None
    catalogue: tuple[int, str] | None = None
    """``(tokens, source)`` from the model catalogue: used when the server says nothing
    (the server knows what it runs: a llama.cpp slot is often smaller than the model)."""
    assumed_window: int = DEFAULT_WINDOW
    """What is assumed when nobody says: :data:`DEFAULT_WINDOW`, or more on a vendor's own
    API (``VENDOR_WINDOW``), whose too-long error then says the real window."""
    ratio: float = 1.0
    """Server tokens per estimated token, from the last request the server counted."""
    _learned: bool = False
    _anchor: tuple[int, int, int] | None = field(default=None, repr=False)
    """(prompt tokens the server counted, items in that request, estimate of it)."""
    _sent: tuple[int, int] | None = field(default=None, repr=False)
    """The last request checked: its number of items and its estimate."""

    @property
    def limit(self) -> int | None:
        """Tokens a request may use before the history is compacted."""
        return int(self.window * self.threshold) if self.window else None

    async def learn(self) -> None:
        """Settle the window before the session's first request (asks the server once)."""
        if self._learned:
            return
        self._learned = True
        if self.window is not None:
            return
        info = None
        if self.probe is not None:
            try:
                info = await self.probe()
            except Exception:  # a probe only helps; the catalogue or the default follow
                info = None
        if info is not None and info.tokens > 0:
            self.window, self.source = info.tokens, f"server ({info.source})"
        elif self.catalogue is not None:
            self.window, self.source = self.catalogue
        else:
            self.window, self.source = self.assumed_window, ASSUMED

    @property
    def assumed(self) -> bool:
        """The window is only the default: nobody said (shown as such, with the fix)."""
        return self.source == ASSUMED

    def used(self, request: ModelRequest) -> int:
        """Tokens ``request`` will take: the server's count of the last request plus an
        estimate of the items added since (the history only grows between compactions,
        which call :meth:`rewritten`), else the whole request estimated."""
        anchor = self._anchor
        if anchor is not None and anchor[1] <= len(request.items):
            prompt, count, _ = anchor
            added = estimate_items(request.items[count:])
            return prompt + round(added * self.ratio)
        return round(estimate_tokens(request) * self.ratio)

    def over(self, request: ModelRequest) -> bool:
        limit = self.limit
        return limit is not None and self.used(request) > limit

    @property
    def counted_prompt(self) -> int | None:
        """The prompt tokens the server counted for the last request (``None``: it said
        none, or the history was rewritten since)."""
        return self._anchor[0] if self._anchor is not None else None

    def sending(self, request: ModelRequest) -> None:
        """The request about to go out (the server's count of it is read by :meth:`counted`)."""
        self._sent = (len(request.items), estimate_tokens(request))

    def counted(self, usage: TokenUsage) -> None:
        """The server's count for the request last passed to :meth:`sending` (its prompt
        tokens; a wire that reported none leaves the estimate as it was)."""
        prompt = usage.prompt
        if self._sent is None or prompt is None:
            return
        count, estimate = self._sent
        if prompt <= 0 or estimate <= 0:
            return
        ratio = prompt / estimate
        low, high = RATIO_BOUNDS
        if low <= ratio <= high:
            self.ratio = ratio
        self._anchor = (prompt, count, estimate)

    def rewritten(self) -> None:
        """The history was replaced (compacted): the server's last count no longer applies."""
        self._anchor = None

    def overflowed(self, window: int | None, requested: int | None) -> None:
        """The server refused the last request as too long, saying its window and what the
        request needed: both are exact, so the window and the ratio are set from them."""
        if window:
            self.window, self.source = window, "overflow"
            self._learned = True
        if requested and self._sent is not None and self._sent[1] > 0:
            ratio = requested / self._sent[1]
            low, high = RATIO_BOUNDS
            if low <= ratio <= high:
                self.ratio = max(self.ratio, ratio)
        self._anchor = None

    def share(self, used: int) -> float | None:
        return used / self.window if self.window else None


__all__ = [
    "BYTES_PER_TOKEN",
    "DEFAULT_KEEP_ROUNDS",
    "DEFAULT_THRESHOLD",
    "DEFAULT_WINDOW",
    "MESSAGE_OVERHEAD",
    "VENDOR_WINDOW",
    "ContextBudget",
    "estimate_items",
    "estimate_tokens",
]
