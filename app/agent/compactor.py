"""The loop's context budget at work: count before each request, compact when needed.

:class:`Compactor` is what ``AgentLoop`` consults (``loop.compactor``; ``runtime.py``
builds it): before every model request it settles the window (once), counts what the
request would use, and — past the budget's threshold — shortens ``loop.messages`` in
steps (``compaction.py`` chooses what), each one recorded in the store
(``session/compactions.py``) and announced with a ``Compacted`` event:

1. ``stub``: old tool results become one-line stubs;
2. ``summary``: if still over, the oldest rounds are summarised by the model in a
   separate, tool-less request through the same provider (its stream is recorded
   as a response like any other; the compaction row names it), falling back to a
   summary Frontier writes itself when that request fails;
3. if still over, both again keeping only the latest round whole;
4. if the request would still not fit the window at all (or the server refused it),
   everything but the person's last message is summarised.

A server that refuses a request as too long (``ProviderError.overflow``, or the same
words in a stream's ``error``) teaches the budget the real window and triggers the
same steps unconditionally; the loop then retries once (docs/context-budget.md).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from frontier.app.agent.budget import BYTES_PER_TOKEN, ContextBudget, estimate_tokens
from frontier.app.agent.compaction import (
    SummaryPlan,
    apply_summary,
    mechanical_summary,
    plan_summary,
    stub_results,
    transcript,
    units,
)
from frontier.app.agent.loop import PersistenceFailed
from frontier.app.events import Compacted, ContextUsage, Event, Retry, Summarising
from frontier.app.providers.base import Chunk, StreamEnd
from frontier.app.providers.errors import ContextOverflow, ProviderError, context_overflow
from frontier.app.wire.chunks import content

if TYPE_CHECKING:
    from frontier.app.agent.loop import AgentLoop
    from frontier.app.session.store import SessionStore

SUMMARY_PROMPT = """\
You write the memory of a coding agent. The conversation below, between a user and \
the agent (with the agent's tool calls and their results), is too long to keep: the \
agent will continue from your summary instead of it. Write the summary as notes for \
the agent, in at most {words} words:
- what the user asked for, with every constraint and preference they stated;
- what the agent has done: files read, created or changed (with their paths), commands \
run and how they ended;
- facts found that are still needed (names, values, errors and their causes);
- what is left to do, and what the agent was doing last.
Plain sentences or a short list. Do not call tools, do not invent anything, do not \
address the user."""
SUMMARY_REQUEST = "Summarise this part of the session:\n\n{transcript}"
SUMMARY_SHARE = 0.85
"""The summary request (prompt + transcript + answer) stays within this share of the window."""
SUMMARY_TOKENS = (128, 2048)
"""Bounds of the answer's ``max_tokens`` (an eighth of the window, at most half of what it
replaces); less than twice the lower bound to replace is not worth a summary request."""


@dataclass(frozen=True)
class Summary:
    text: str
    source: str
    """``model``, ``model (cut at max_tokens)`` or ``frontier (<why the request failed>)``."""
    response_id: int | None


class Compactor:
    """One session's budget and compaction (see the module doc)."""

    def __init__(
        self,
        budget: ContextBudget,
        *,
        store: SessionStore | None = None,
        session_id: str | None = None,
        emit: Callable[[Event], None] | None = None,
    ) -> None:
        self.budget = budget
        self.store = store
        self.session_id = session_id
        self._emit = emit or (lambda event: None)

    # ------------------------------------------------------------------ the loop's hooks

    async def before_request(self, loop: AgentLoop) -> None:
        """Settle the window, compact if the request would pass the threshold, and say
        how full the context is (``ContextUsage``)."""
        await self.budget.learn()
        if self.budget.over(*self._request(loop)):
            await self._compact(loop, "threshold", force=False)
        self._sending(loop)

    async def after_overflow(self, loop: AgentLoop, overflow: ContextOverflow) -> bool:
        """The server refused the request as too long: learn its numbers and compact
        whatever is over; whether anything changed (the loop then retries once)."""
        self.budget.overflowed(overflow.window, overflow.requested)
        changed = await self._compact(loop, "overflow", force=True)
        if changed:
            self._sending(loop)
        return changed

    def counted(self, usage: dict[str, Any]) -> None:
        """The server's ``usage`` for the request just answered."""
        self.budget.counted(usage)

    @staticmethod
    def overflow_in(error: ProviderError | str | None) -> ContextOverflow | None:
        """The overflow a provider error (or a stream's ``error`` text) reports, if any."""
        if isinstance(error, ProviderError):
            return error.overflow
        return context_overflow(error) if error else None

    # ------------------------------------------------------------------ counting

    def _request(self, loop: AgentLoop) -> tuple[list[dict[str, Any]], Any]:
        return loop._request_messages(), loop.mode.tools(loop.registry)

    def _used(self, loop: AgentLoop) -> int:
        return self.budget.used(*self._request(loop))

    def _sending(self, loop: AgentLoop) -> None:
        request, tools = self._request(loop)
        used = self.budget.used(request, tools)
        self.budget.sending(request, tools)
        if self.budget.window:
            self._emit(ContextUsage(used, self.budget.window, self.budget.source))

    # ------------------------------------------------------------------ compacting

    async def _compact(self, loop: AgentLoop, reason: str, *, force: bool) -> bool:
        """The steps of the module doc until the request fits; whether any applied."""
        changed = False
        keeps = sorted({self.budget.keep_rounds, 1, 0}, reverse=True)
        for keep in keeps:
            # keeping no round whole (all but the user's message summarised) is the last
            # resort: only when the request would not fit the window at all
            if keep == 0 and not (force or self._used(loop) > (self.budget.window or 0)):
                break
            if self._stub(loop, keep, reason):
                changed = True
            if (changed or not force) and not self.budget.over(*self._request(loop)):
                return changed
            if await self._summarise(loop, keep, reason):
                changed = True
            if not self.budget.over(*self._request(loop)):
                return changed
        return changed

    def _stub(self, loop: AgentLoop, keep: int, reason: str) -> bool:
        before = self._used(loop)
        positions = self._positions(loop.messages)
        sid = self.session_id or ""

        def locate(index: int, call_id: str) -> tuple[str, str] | None:
            if self.store is None or not sid:
                return None
            log_seq = positions[index] if positions is not None else None
            seq, name = self.store.compactions.result_row(sid, call_id, log_seq)
            return (f"session {sid[:8]} log #{seq}" if seq else f"session {sid[:8]}"), name

        stubbed, stubs = stub_results(loop.messages, keep_rounds=keep, locate=locate)
        if not stubs:
            return False
        rounds = len({_unit_of(loop.messages, s.index) for s in stubs})
        self._replace(loop, stubbed)
        after = self._used(loop)
        saved = sum(s.nbytes for s in stubs)
        detail = {
            "reason": reason,
            "before": before,
            "after": after,
            "window": self.budget.window,
            "rounds": rounds,
            "keep_rounds": keep,
            "stubbed": [
                {"id": s.call_id, "name": s.name, "kind": s.kind, "bytes": s.nbytes, "at": s.where}
                for s in stubs
            ],
        }
        self._record("stub", stubbed, detail, positions)
        self._emit(
            Compacted(
                "stub",
                before,
                after,
                self.budget.window or 0,
                rounds,
                reason,
                f"{_count(len(stubs), 'tool result')} ({saved:,} bytes) from "
                f"{_count(rounds, 'round')} {_older_than(keep)} replaced by stubs",
            )
        )
        return True

    async def _summarise(self, loop: AgentLoop, keep: int, reason: str) -> bool:
        messages = list(loop.messages)
        plan = plan_summary(messages, keep_rounds=keep)
        if plan is None:
            return False
        replaced = estimate_tokens([messages[i] for i in plan.summarised])
        if replaced < 2 * SUMMARY_TOKENS[0]:
            return False  # too little to be worth a request: a summary would not be shorter
        before = self._used(loop)
        self._emit(Summarising(plan.rounds, before, self.budget.window or 0))
        summary = await self._ask_for_summary(loop, messages, plan, replaced)
        compacted = apply_summary(messages, plan, summary.text)
        if estimate_tokens(compacted) >= estimate_tokens(messages):
            return False  # a summary longer than what it replaces helps nobody
        positions = self._positions(messages)
        kept: list[int | None] = [None] * (len(compacted) - len(messages[plan.rest :]))
        if plan.kept_user is not None:
            kept[-1] = positions[plan.kept_user] if positions is not None else None
        new_positions = (
            kept + list(positions[plan.rest :])
            if positions is not None
            else [None] * len(compacted)
        )
        self._replace(loop, compacted)
        after = self._used(loop)
        detail = {
            "reason": reason,
            "before": before,
            "after": after,
            "window": self.budget.window,
            "rounds": plan.rounds,
            "keep_rounds": keep,
            "messages_summarised": len(plan.summarised),
            "source": summary.source,
            "response_id": summary.response_id,
        }
        self._record("summary", compacted, detail, new_positions)
        who = "the model" if summary.source.startswith("model") else summary.source
        self._emit(
            Compacted(
                "summary",
                before,
                after,
                self.budget.window or 0,
                plan.rounds,
                reason,
                f"{_count(plan.rounds, 'round')} ({len(plan.summarised)} messages) "
                f"{_older_than(keep)} summarised by {who}",
            )
        )
        return True

    async def _ask_for_summary(
        self,
        loop: AgentLoop,
        messages: Sequence[dict[str, Any]],
        plan: SummaryPlan,
        replaced: int,
    ) -> Summary:
        """The summary, from the model in its own request (recorded as a response), else
        written by Frontier from the messages. Its answer may take an eighth of the window,
        and at most half the tokens it replaces."""
        window = self.budget.window or 0
        answer = max(SUMMARY_TOKENS[0], min(SUMMARY_TOKENS[1], window // 8, replaced // 2))
        system = SUMMARY_PROMPT.format(words=int(answer * 0.6))
        room = int(window * SUMMARY_SHARE) - answer - estimate_tokens([{"content": system}]) - 32
        cap = max(1000, int(room * BYTES_PER_TOKEN / max(self.budget.ratio, 0.25)))
        text = transcript(messages, plan.summarised, cap)
        request = [
            {"role": "system", "content": system},
            {"role": "user", "content": SUMMARY_REQUEST.format(transcript=text)},
        ]
        index = loop.request_index
        loop.request_index += 1
        rid: int | None = None
        if self.store is not None and self.session_id is not None:
            with _committing("begin_response"):
                rid = self.store.begin_response(self.session_id, loop.mode.name, loop.model, index)
        kwargs: dict[str, Any] = {}
        with contextlib.suppress(TypeError, ValueError):
            if "extra" in inspect.signature(loop.provider.stream).parameters:
                kwargs["extra"] = {"max_tokens": answer}
        pieces: list[str] = []
        finish, failure = "stopped", ""
        stream = loop.provider.stream(request, tools=None, **kwargs)
        try:
            async for item in stream:
                if isinstance(item, Retry):
                    self._emit(item)
                elif isinstance(item, StreamEnd):
                    finish, failure = item.finish_reason, item.error or ""
                    break
                elif isinstance(item, Chunk):
                    if rid is not None and self.store is not None:
                        with _committing("add_stream_event"):
                            self.store.add_stream_event(rid, item.t, item.raw)
                    pieces.append(content(item.data))
                    if sum(map(len, pieces)) > answer * 6:  # a server ignoring max_tokens
                        break
        except ProviderError as exc:
            finish, failure = "error", exc.message
        finally:
            with contextlib.suppress(Exception):
                await stream.aclose()  # type: ignore[attr-defined]
            if rid is not None and self.store is not None:
                with _committing("end_response"):
                    self.store.end_response(rid, finish)
        said = "".join(pieces).strip()
        if finish == "error" or not said:
            why = failure or f"the answer was empty (finish_reason={finish})"
            text = mechanical_summary(messages, plan.summarised)
            return Summary(text, f"Frontier (the summary request failed: {why[:200]})", rid)
        source = "model (cut at max_tokens)" if finish == "length" else "model"
        return Summary(said, source, rid)

    # ------------------------------------------------------------------ the store

    def _positions(self, messages: Sequence[dict[str, Any]]) -> list[int | None] | None:
        """Each message's timeline position, when the store's history is ``messages``."""
        if self.store is None or self.session_id is None:
            return None
        with _committing("reading the history"):
            stored = self.store.compactions.positioned(self.session_id)
        if len(stored) != len(messages):
            return None
        if any(m.get("role") != s.get("role") for m, (s, _) in zip(messages, stored, strict=True)):
            return None
        return [seq for _, seq in stored]

    def _replace(self, loop: AgentLoop, messages: list[dict[str, Any]]) -> None:
        loop.messages[:] = messages
        self.budget.rewritten()

    def _record(
        self,
        step: str,
        messages: list[dict[str, Any]],
        detail: dict[str, Any],
        positions: Sequence[int | None] | None,
    ) -> None:
        if self.store is None or self.session_id is None:
            return
        with _committing("compaction"):
            self.store.compactions.add(
                self.session_id,
                step,
                messages,
                detail,
                log_seqs=list(positions) if positions is not None else [],
            )


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _older_than(keep: int) -> str:
    if keep == 0:
        return "(the latest too: the request did not fit the window)"
    return "before the latest" if keep == 1 else f"before the latest {keep}"


def _unit_of(messages: Sequence[dict[str, Any]], index: int) -> int:
    for unit in units(messages):
        if unit.start <= index < unit.end:
            return unit.start
    return index


@contextlib.contextmanager
def _committing(what: str) -> Iterator[None]:
    """A store failure ends the turn ``session_persistence_failed``, as in the loop."""
    try:
        yield
    except PersistenceFailed:
        raise
    except Exception as exc:
        raise PersistenceFailed(f"session store: {what} failed: {exc}") from exc


__all__ = ["SUMMARY_PROMPT", "Compactor", "Summary"]
