"""The loop's context budget at work: count before each request, compact when needed.

:class:`Compactor` is what ``AgentLoop`` consults (given to it at construction;
``runtime.py`` builds both): before every model request it settles the window (once),
counts what the request would use, and — past the budget's threshold — plans a shorter
history in steps (``compaction.py`` chooses what), each one recorded in the store
(``session/compactions.py``) and announced with a ``Compacted`` event. It returns the
compacted history and the loop adopts it: the loop owns the history, the compactor
only reads the request it is shown.

1. ``stub``: old tool results become one-line stubs;
2. ``summary``: if still over, the oldest rounds are summarised by the model in a
   separate, tool-less request through the same client (its stream is recorded
   as a response like any other; the compaction row names it), falling back to a
   summary Frontier writes itself when that request fails;
3. if still over, both again keeping only the latest round whole;
4. if the request would still not fit the window at all (or the server refused it), the
   results the model has not read yet are cut to their two ends (``_trim``), and only
   if that is not enough stubbed, and everything but the person's last message is
   summarised.

None of it runs when it cannot help: what no step shortens (the instructions, the tools
and the person's last message) larger than the window. A window someone stated (the
setting, the server, the catalogue) refuses such a message before it is sent
(:meth:`Compactor.refused`); under an assumed window it is sent as it is, and the server
decides; a server that refuses it ends the turn ``too_long`` (``TooLong``), without a
summary of everything else that could not have made it fit.

A server that refuses a request as too long (``ModelError.overflow``, or the same
words in a stream's ``error``) teaches the budget the real window and triggers the
same steps unconditionally; the loop then retries once (docs/context-budget.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from frontier.app.agent.budget import (
    ASSUMED,
    BYTES_PER_TOKEN,
    ContextBudget,
    estimate_tokens,
    tool_schema,
)
from frontier.app.agent.compaction import (
    SummaryPlan,
    Trim,
    apply_summary,
    last_user,
    mechanical_summary,
    plan_summary,
    stub_results,
    transcript,
    trim_unread,
    units,
)
from frontier.app.agent.compaction_event import compaction_event
from frontier.app.agent.loop import PersistenceFailed, RequestCounter, TooLong
from frontier.app.events import (
    ContextUsage,
    Event,
    PromptRead,
    Retry,
    Summarising,
    TokenUsage,
)
from frontier.app.model.client import Client
from frontier.app.model.conversation import (
    TOO_LONG_OPENINGS,
    Item,
    UserText,
    item_bytes,
    role_of,
    without_images,
)
from frontier.app.model.errors import ContextOverflow, ModelError, context_overflow
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, WireEvent, text_of
from frontier.app.record import record, replace

if TYPE_CHECKING:
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
TRIM_CAPS = (16384, 8192, 4096, 2048, 1024)
"""The sizes (UTF-8 bytes) an unread result is cut to, tried from the largest, when the
request would not fit the window (step 2 of ``compaction.py``)."""
SUMMARY_SHARE = 0.85
"""The summary request (prompt + transcript + answer) stays within this share of the window."""
SUMMARY_TOKENS = (128, 2048)
"""Bounds of the answer's ``max_tokens`` (an eighth of the window, at most half of what it
replaces); less than twice the lower bound to replace is not worth a summary request."""


@record
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
        client: Client,
        requests: RequestCounter,
        store: SessionStore | None = None,
        session_id: str | None = None,
        emit: Callable[[Event], None] | None = None,
    ) -> None:
        """``client``: where summary requests go (the session's own); ``requests``: the
        numbering the loop's requests share (a summary is response N of the session)."""
        self.budget = budget
        self.client = client
        self.requests = requests
        self.store = store
        self.session_id = session_id
        self._emit = emit or (lambda event: None)

    # ------------------------------------------------------------------ the loop's hooks

    async def before_request(self, request: ModelRequest, mode: str) -> list[Item] | None:
        """Settle the window, and — when ``request`` would pass the threshold — the
        compacted history the loop should send instead (``None``: send it as it is);
        says how full the context is (``ContextUsage``)."""
        await self.budget.learn()
        compacted = None
        if self.budget.over(request):
            compacted = await self._compact(request, mode, "threshold", force=False)
        self._sending(request if compacted is None else _with(request, compacted))
        return compacted

    async def refused(self, request: ModelRequest) -> str | None:
        """Why ``request`` (the history with the person's new message) is not sent, or
        ``None``: what compaction never shortens is larger than a window someone stated.
        Settles the window first (asks the server once)."""
        await self.budget.learn()
        if self.budget.assumed:
            return None  # nobody said: the server may well take it
        unfit = self._unfit(request)
        return None if unfit is None else self._too_long(request, unfit, "so it was not sent")

    async def after_overflow(
        self, request: ModelRequest, mode: str, overflow: ContextOverflow, said: str = ""
    ) -> list[Item] | None:
        """The server refused ``request`` as too long (``said``: in its words): learn its
        numbers and compact whatever is over; the history to retry with (once), or
        ``None`` if nothing could be shortened. Raises :class:`TooLong` when nothing
        could make it fit."""
        self.budget.overflowed(overflow.window, overflow.requested)
        unfit = self._unfit(request)
        if unfit is not None:
            words = f" ({said[:SAID_SHOWN].rstrip('. ')})" if said else ""
            message = self._too_long(request, unfit, f"and the server refused it{words}")
            raise TooLong(message, self._withdraw(request, unfit))
        compacted = await self._compact(request, mode, "overflow", force=True)
        if compacted is not None:
            self._sending(_with(request, compacted))
        return compacted

    async def compact_now(self, request: ModelRequest, mode: str) -> list[Item] | None:
        """``/compact``: stub old results and summarise the rounds before the latest
        ``keep_rounds``, over the threshold or not (reason ``manual``); the compacted
        history, or ``None`` when nothing could be shortened."""
        await self.budget.learn()
        keep = self.budget.keep_rounds
        items = list(request.items)
        changed = False
        stubbed = self._stub(_with(request, items), keep, "manual")
        if stubbed is not None:
            items, changed = stubbed, True
        summarised = await self._summarise(_with(request, items), mode, keep, "manual")
        if summarised is not None:
            items, changed = summarised, True
        if not changed:
            return None
        self._sending(_with(request, items))
        return items

    def counted(self, usage: TokenUsage) -> None:
        """The server's token counts for the request just answered."""
        self.budget.counted(usage)

    @staticmethod
    def overflow_in(error: ModelError | str | None) -> ContextOverflow | None:
        """The overflow a model error (or a stream's error text) reports, if any."""
        if isinstance(error, ModelError):
            return error.overflow
        return context_overflow(error) if error else None

    # ------------------------------------------------------------------ counting

    def _sending(self, request: ModelRequest) -> None:
        used = self.budget.used(request)
        self.budget.sending(request)
        if self.budget.window:
            self._emit(ContextUsage(used, self.budget.window, self.budget.source))

    def _unfit(self, request: ModelRequest) -> tuple[int, int] | None:
        """``(tokens, window)`` when what no compaction step shortens — the instructions,
        the tools, a continued reply and the person's last message — passes the window."""
        window = self.budget.window
        if not window:
            return None
        index = last_user(request.items)
        kept = () if index is None else (request.items[index],)
        floor = round(estimate_tokens(_with(request, kept)) * self.budget.ratio)
        return (floor, window) if floor > window else None

    def _bare(self, request: ModelRequest) -> int:
        """Tokens the instructions and the tools take with no history at all."""
        return round(estimate_tokens(_with(request, ())) * self.budget.ratio)

    def _too_long(self, request: ModelRequest, unfit: tuple[int, int], what: str) -> str:
        """The person's account of a request no compaction can make fit, and what to do:
        a message too long, or a window too small for the instructions and tools alone."""
        tokens, window = unfit
        said = WINDOW_SAID.get(self.budget.source, self.budget.source)
        base = self._bare(request)
        if base > window:
            return (
                f"{TOO_LONG_OPENINGS[1]}{window:,} tokens ({said}), {what}: the "
                f"instructions and the tools alone need about {base:,}"
                f"{_servers_share(request, self.budget.ratio, base)}. Give the model a "
                "larger context (llama.cpp: -c; Ollama: num_ctx), or use a model with a "
                "larger window"
            )
        index = last_user(request.items)
        size = item_bytes(request.items[index]) if index is not None else 0
        return (
            f"{TOO_LONG_OPENINGS[0]}{size:,} bytes) is too long for the model: with the "
            f"instructions and the tools the request needs about {tokens:,} tokens and the "
            f"context window is {window:,} ({said}), {what}. Shorten it, or save the text "
            "in a file in the workspace and ask the agent to read the part that matters"
        )

    def _withdraw(self, request: ModelRequest, unfit: tuple[int, int]) -> list[Item] | None:
        """The history with the person's last message, which the server refused and no
        step could make fit, replaced by a line saying so (recorded as a ``stub`` step,
        reason ``too_long``): kept whole, every later request carried it, and the next
        turn paid a summary request to shorten what the model never took. ``None`` when
        the message is not what is too large (the instructions and tools alone are)."""
        index = last_user(request.items)
        if index is None:
            return None
        window = unfit[1]
        if self._bare(request) > window:
            return None
        items = list(request.items)
        size = item_bytes(items[index])
        before = self.budget.used(request)
        positions = self._positions(items)
        items[index] = UserText(WITHDRAWN.format(size=size, window=window), "notice")
        self.budget.rewritten()
        after = self.budget.used(_with(request, items))
        detail = {
            "reason": "too_long",
            "before": before,
            "after": after,
            "window": window,
            "rounds": 0,
            "withdrawn": size,
        }
        self._record("stub", items, detail, positions)
        self._emit(compaction_event("stub", detail))
        return items

    def drop_images(self, request: ModelRequest) -> list[Item] | None:
        """The history with every image taken out, each named in its message's text, when
        the server refused one (the model takes no images: ``ModelError.images_refused``);
        recorded as a ``stub`` step (reason ``images_refused``), so a resumed session
        never sends them again. ``None`` when the history holds none."""
        items = list(request.items)
        names: list[str] = []
        for i, item in enumerate(items):
            if isinstance(item, UserText) and item.images:
                names += [image.name or "(pasted)" for image in item.images]
                items[i] = without_images(item)
        if not names:
            return None
        before = self.budget.used(request)
        positions = self._positions(items)
        self.budget.rewritten()
        after = self.budget.used(_with(request, items))
        detail = {"reason": "images_refused", "before": before, "after": after, "rounds": 0}
        detail |= {"window": self.budget.window or 0, "images": names}
        self._record("stub", items, detail, positions)
        self._emit(compaction_event("stub", detail))
        return items

    # ------------------------------------------------------------------ compacting

    async def _compact(
        self, request: ModelRequest, mode: str, reason: str, *, force: bool
    ) -> list[Item] | None:
        """The steps of the module doc until the request fits; the compacted history, or
        ``None`` when no step applied (or none could make it fit)."""
        if self._unfit(request) is not None:
            return None  # what stays is larger than the window: shortening the rest is waste
        items = list(request.items)
        changed = False
        keeps = sorted({self.budget.keep_rounds, 1, 0}, reverse=True)
        for keep in keeps:
            # keeping no round whole (all but the user's message summarised) is the last
            # resort: only when the request would not fit the window at all
            current = _with(request, items)
            if keep == 0 and not (force or self.budget.used(current) > (self.budget.window or 0)):
                break
            if keep == 0 and (trimmed := self._trim(current, reason)) is not None:
                items, changed = trimmed, True
                current = _with(request, items)
                if not self.budget.over(current):
                    return items
            stubbed = self._stub(current, keep, reason)
            if stubbed is not None:
                items, changed = stubbed, True
            if (changed or not force) and not self.budget.over(_with(request, items)):
                return items if changed else None
            summarised = await self._summarise(_with(request, items), mode, keep, reason)
            if summarised is not None:
                items, changed = summarised, True
            if not self.budget.over(_with(request, items)):
                return items if changed else None
        return items if changed else None

    def _stub(self, request: ModelRequest, keep: int, reason: str) -> list[Item] | None:
        items = list(request.items)
        before = self.budget.used(request)
        positions = self._positions(items)
        sid = self.session_id or ""

        def locate(index: int, call_id: str) -> tuple[str, str] | None:
            if self.store is None or not sid:
                return None
            log_seq = positions[index] if positions is not None else None
            seq, name = self.store.compactions.result_row(sid, call_id, log_seq)
            return (f"session {sid[:8]} log #{seq}" if seq else f"session {sid[:8]}"), name

        stubbed, stubs = stub_results(items, keep_rounds=keep, locate=locate)
        if not stubs:
            return None
        rounds = len({_unit_of(items, s.index) for s in stubs})
        self.budget.rewritten()  # the server's last count is of the history before this
        after = self.budget.used(_with(request, stubbed))
        detail = {
            **self._detail(reason, before, after, rounds, keep),
            "stubbed": [
                {"id": s.call_id, "name": s.name, "kind": s.kind, "bytes": s.nbytes, "at": s.where}
                for s in stubs
            ],
        }
        self._record("stub", stubbed, detail, positions)
        self._emit(compaction_event("stub", detail))
        return stubbed

    def _detail(
        self, reason: str, before: int, after: int, rounds: int, keep: int
    ) -> dict[str, Any]:
        """What every step's stored detail says (``compaction_event.py`` reads it)."""
        return {
            "reason": reason,
            "before": before,
            "after": after,
            "window": self.budget.window,
            "rounds": rounds,
            "keep_rounds": keep,
        }

    def _trim(self, request: ModelRequest, reason: str) -> list[Item] | None:
        """The history with the results the model has not read yet cut to the largest of
        :data:`TRIM_CAPS` that brings the request under the threshold (else the
        smallest), recorded as a ``stub`` step whose detail lists them (``trimmed``);
        ``None`` when none is longer than the smallest cap."""
        items = list(request.items)
        before = self.budget.used(request)
        chosen: tuple[list[Item], tuple[Trim, ...]] | None = None
        for cap in TRIM_CAPS:
            trimmed, trims = trim_unread(items, cap)
            if not trims:
                continue
            if chosen is None:
                self.budget.rewritten()  # the server's last count is of the history before
            chosen = trimmed, trims
            if not self.budget.over(_with(request, trimmed)):
                break
        if chosen is None:
            return None
        trimmed, trims = chosen
        positions = self._positions(items)
        after = self.budget.used(_with(request, trimmed))
        detail = {
            **self._detail(reason, before, after, 1, 0),
            "trimmed": [
                {"id": t.call_id, "name": t.name, "bytes": t.nbytes, "kept": t.kept} for t in trims
            ],
        }
        self._record("stub", trimmed, detail, positions)
        self._emit(compaction_event("stub", detail))
        return trimmed

    async def _summarise(
        self, request: ModelRequest, mode: str, keep: int, reason: str
    ) -> list[Item] | None:
        items = list(request.items)
        plan = plan_summary(items, keep_rounds=keep)
        if plan is None:
            return None
        replaced = estimate_tokens(ModelRequest("", tuple(items[i] for i in plan.summarised)))
        if replaced < 2 * SUMMARY_TOKENS[0]:
            return None  # too little to be worth a request: a summary would not be shorter
        before = self.budget.used(request)
        self._emit(Summarising(plan.rounds, before, self.budget.window or 0))
        summary = await self._ask_for_summary(items, plan, replaced, mode)
        compacted = apply_summary(items, plan, summary.text)
        if estimate_tokens(ModelRequest("", tuple(compacted))) >= estimate_tokens(
            ModelRequest("", tuple(items))
        ):
            return None  # a summary longer than what it replaces helps nobody
        positions = self._positions(items)
        kept: list[int | None] = [None] * (len(compacted) - len(items[plan.rest :]))
        if plan.kept_user is not None:
            kept[-1] = positions[plan.kept_user] if positions is not None else None
        new_positions = (
            kept + list(positions[plan.rest :])
            if positions is not None
            else [None] * len(compacted)
        )
        self.budget.rewritten()  # the server's last count is of the history before this
        after = self.budget.used(_with(request, compacted))
        detail = {
            **self._detail(reason, before, after, plan.rounds, keep),
            "messages_summarised": len(plan.summarised),
            "source": summary.source,
            "response_id": summary.response_id,
        }
        self._record("summary", compacted, detail, new_positions)
        self._emit(compaction_event("summary", detail))
        return compacted

    async def _ask_for_summary(
        self, items: Sequence[Item], plan: SummaryPlan, replaced: int, mode: str
    ) -> Summary:
        """The summary, from the model in its own request (recorded as a response), else
        written by Frontier from the items. Its answer may take an eighth of the window,
        and at most half the tokens it replaces."""
        window = self.budget.window or 0
        answer = max(SUMMARY_TOKENS[0], min(SUMMARY_TOKENS[1], window // 8, replaced // 2))
        system = SUMMARY_PROMPT.format(words=int(answer * 0.6))
        room = int(window * SUMMARY_SHARE) - answer - estimate_tokens(ModelRequest(system, ())) - 32
        cap = max(1000, int(room * BYTES_PER_TOKEN / max(self.budget.ratio, 0.25)))
        text = transcript(items, plan.summarised, cap)
        request = ModelRequest(
            system,
            (UserText(SUMMARY_REQUEST.format(transcript=text), "notice"),),
            max_tokens=answer,
            once=True,  # its transcript is sent once: a cache write would cost, not save
            # the model's own effort, whatever the session asks: at `high` a Claude
            # summary spent half its `max_tokens` thinking, an OpenAI one its time
            effort="auto",
        )
        index = self.requests.take()
        rid: int | None = None
        if self.store is not None and self.session_id is not None:
            with _committing("begin_response"):
                rid = self.store.begin_response(
                    self.session_id, mode, self.client.model, index, wire=self.client.wire
                )
        pieces: list[str] = []
        finish, failure = "stopped", ""
        stream = self.client.stream(request)
        try:
            async for item in stream:
                if isinstance(item, Retry | PromptRead):
                    self._emit(item)
                elif isinstance(item, StreamEnd):
                    finish, failure = item.finish_reason, item.error or ""
                    break
                elif isinstance(item, WireEvent):
                    if rid is not None and self.store is not None:
                        with _committing("add_stream_event"):
                            self.store.add_stream_event(rid, item.t, item.raw)
                    pieces.append(text_of(item.deltas))
                    if sum(map(len, pieces)) > answer * 6:  # a server ignoring max_tokens
                        break
        except ModelError as exc:
            finish, failure = "error", exc.message
        finally:
            with contextlib.suppress(Exception):
                await stream.aclose()
            if rid is not None and self.store is not None:
                with _committing("end_response"):
                    self.store.end_response(rid, finish)
        said = "".join(pieces).strip()
        if finish == "error" or not said:
            why = failure or f"the answer was empty (finish_reason={finish})"
            text = mechanical_summary(items, plan.summarised)
            return Summary(text, f"Frontier (the summary request failed: {why[:200]})", rid)
        source = "model (cut at max_tokens)" if finish == "length" else "model"
        return Summary(said, source, rid)

    # ------------------------------------------------------------------ the store

    def _positions(self, items: Sequence[Item]) -> list[int | None] | None:
        """Each item's timeline position, when the store's history is ``items``."""
        if self.store is None or self.session_id is None:
            return None
        with _committing("reading the history"):
            stored = self.store.compactions.positioned(self.session_id)
        if len(stored) != len(items):
            return None
        if any(role_of(m) != role_of(s) for m, (s, _) in zip(items, stored, strict=True)):
            return None
        return [seq for _, seq in stored]

    def _record(
        self,
        step: str,
        items: list[Item],
        detail: dict[str, Any],
        positions: Sequence[int | None] | None,
    ) -> None:
        if self.store is None or self.session_id is None:
            return
        with _committing("compaction"):
            self.store.compactions.add(
                self.session_id,
                step,
                items,
                detail,
                log_seqs=list(positions) if positions is not None else [],
            )


def _with(request: ModelRequest, items: Sequence[Item]) -> ModelRequest:
    return replace(request, items=tuple(items))


WITHDRAWN = (
    "[The person sent a message of {size:,} bytes here, too long for the model's context "
    "window ({window:,} tokens): it was withdrawn, and they were asked to shorten it.]"
)
"""What the model is sent in place of a message it could not take (``_withdraw``)."""

SAID_SHOWN = 200
"""Characters of the server's refusal quoted when a message cannot fit (a proxy's 413 is
not a window: its words say so)."""

WINDOW_SAID = {
    "config": "the context_window setting",
    "overflow": "as the server's refusal said",
    ASSUMED: "assumed: neither the settings nor the server say; set context_window",
}
"""Where a window came from (``ContextBudget.source``), as the person reads it."""


def _unit_of(items: Sequence[Item], index: int) -> int:
    for unit in units(items):
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


def _servers_share(request: ModelRequest, ratio: float, base: int) -> str:
    """The MCP servers whose tools take a third or more of ``base`` tokens, largest first,
    and how to offer fewer: a server such as GitHub's lists ~90 tools with long
    descriptions, more than a local model's whole window, and the refusal named only the
    window."""
    import json

    from frontier.tools.contract import MCP_SEPARATOR

    sizes: dict[str, int] = {}
    for tool in request.tools:
        server, sep, _ = tool.name.partition(MCP_SEPARATOR)
        if sep:
            size = len(json.dumps(tool_schema(tool), ensure_ascii=False).encode())
            sizes[server] = sizes.get(server, 0) + size
    tokens = {name: round(size / BYTES_PER_TOKEN * ratio) for name, size in sizes.items()}
    if not tokens or sum(tokens.values()) * 3 < base:
        return ""
    shown = sorted(tokens.items(), key=lambda kv: -kv[1])[:3]
    named = ", ".join(f"{name} ~{n:,}" for name, n in shown)
    return (
        f" (the tools of MCP servers take about {sum(tokens.values()):,} of them: {named}; "
        "offer fewer with allow = [...] or deny = [...] in [mcp_servers.NAME], or "
        "enabled = false)"
    )


__all__ = ["SUMMARY_PROMPT", "Compactor", "Summary"]
