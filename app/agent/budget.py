"""The context budget: how large the model's window is and how much of it a request uses.

The window (tokens) comes from, in this order: the ``context_window`` setting
(``--context-window N``, ``FRONTIER_CONTEXT_WINDOW``, ``config.toml``); the server,
asked once per session before its first request (``providers/context_window.py``);
else :data:`DEFAULT_WINDOW`. A server that refuses a request as too long and says its
size (``ProviderError.overflow``) sets it exactly, whatever the source was.

What a request uses is counted, not guessed, where the server says: the
``prompt_tokens`` of the last request's ``usage`` covers everything sent then; only
what was added since is estimated, at :data:`BYTES_PER_TOKEN` UTF-8 bytes per token
plus :data:`MESSAGE_OVERHEAD` per message, scaled by how far that estimate was off on
the last request the server counted (``ratio``). With no count yet (the first request,
a server that sends no ``usage``, right after a compaction) the whole request is
estimated that way. docs/context-budget.md has the figures and why.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

DEFAULT_WINDOW = 8192
"""Tokens assumed when neither the settings nor the server say: the smallest window of
the models people commonly run locally today (Llama 3 8B's, many llama.cpp setups)."""
DEFAULT_THRESHOLD = 0.8
"""Compact before a request would use more than this share of the window: the rest is
left for the answer (and for the estimate's error)."""
DEFAULT_KEEP_ROUNDS = 3
"""Rounds (model responses and their results) always kept whole by compaction."""
BYTES_PER_TOKEN = 4.0
MESSAGE_OVERHEAD = 4
"""Tokens a chat template adds around each message (role markers, separators)."""
RATIO_BOUNDS = (0.25, 4.0)
"""How far the server's count may scale the estimate (a count outside is not believed)."""

if TYPE_CHECKING:
    from frontier.app.providers.context_window import WindowInfo

Probe = Callable[[], Awaitable["WindowInfo | None"]]
"""Asks the server for the window (``OpenAIProvider.probe_context_window``)."""

Messages = Sequence[Mapping[str, Any]]


def estimate_tokens(messages: Messages, tools: Sequence[Any] | None = None) -> int:
    """Tokens ``messages`` (and a native ``tools[]`` schema) take, estimated from bytes."""
    size = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            size += len(content.encode("utf-8"))
        elif content is not None:
            size += len(json.dumps(content, ensure_ascii=False).encode("utf-8"))
        calls = message.get("tool_calls")
        if calls:
            size += len(json.dumps(calls, ensure_ascii=False).encode("utf-8"))
    if tools:
        size += len(json.dumps(list(tools), ensure_ascii=False).encode("utf-8"))
    return int(size / BYTES_PER_TOKEN) + MESSAGE_OVERHEAD * len(messages)


@dataclass
class ContextBudget:
    """The window and the running count for one session (``AgentLoop.compactor.budget``)."""

    window: int | None = None
    """Tokens, once known (set, learned or defaulted at the first request)."""
    source: str = ""
    """Where ``window`` came from: ``config``, ``server (GET /props ...)``, ``default``,
    ``demo``, ``overflow`` (the server's own error said it)."""
    threshold: float = DEFAULT_THRESHOLD
    keep_rounds: int = DEFAULT_KEEP_ROUNDS
    probe: Probe | None = None
    ratio: float = 1.0
    """Server tokens per estimated token, from the last request the server counted."""
    _learned: bool = False
    _anchor: tuple[int, int, int] | None = field(default=None, repr=False)
    """(prompt tokens the server counted, messages in that request, estimate of them)."""
    _sent: tuple[list[Mapping[str, Any]], int] | None = field(default=None, repr=False)
    """The last request checked (its messages and the tool schema's estimate)."""

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
            except Exception:  # a probe only helps; the default is documented
                info = None
        if info is not None and info.tokens > 0:
            self.window, self.source = info.tokens, f"server ({info.source})"
        else:
            self.window, self.source = DEFAULT_WINDOW, "default"

    def used(self, request: Messages, tools: Sequence[Any] | None = None) -> int:
        """Tokens ``request`` (the whole message list, system prompt first) will take."""
        anchor = self._anchor
        if anchor is not None and anchor[1] <= len(request):
            prompt, count, _ = anchor
            added = estimate_tokens(request[count:])
            return prompt + round(added * self.ratio)
        return round(estimate_tokens(request, tools) * self.ratio)

    def over(self, request: Messages, tools: Sequence[Any] | None = None) -> bool:
        limit = self.limit
        return limit is not None and self.used(request, tools) > limit

    def sending(self, request: Messages, tools: Sequence[Any] | None = None) -> None:
        """The request about to go out (its ``usage`` is read by :meth:`counted`)."""
        self._sent = (list(request), estimate_tokens(request, tools))

    def counted(self, usage: Mapping[str, Any]) -> None:
        """The server's ``usage`` for the request last passed to :meth:`sending`."""
        prompt = usage.get("prompt_tokens")
        if self._sent is None or not isinstance(prompt, int) or isinstance(prompt, bool):
            return
        request, estimate = self._sent
        if prompt <= 0 or estimate <= 0:
            return
        ratio = prompt / estimate
        low, high = RATIO_BOUNDS
        if low <= ratio <= high:
            self.ratio = ratio
        self._anchor = (prompt, len(request), estimate)

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
    "ContextBudget",
    "estimate_tokens",
]
