"""Bytes the model has to send again after a ``length`` cut: resent vs continued.

    .venv/bin/python bench/continuation.py [--max-tokens 96,128,256,512] [--lines 40]
    .venv/bin/python bench/continuation.py --base-url http://127.0.0.1:18080/v1 \\
        --model smollm2 --max-tokens 8,12,16 --runs 5

One task — write a file whose content is a long CTL heredoc — run through the real
``AgentLoop`` (ctl-heredoc, ``ToolBoundary`` with ``PolicyApprover("auto")`` in a scratch
workspace, a ``SessionStore``) with a small ``max_tokens``, twice per setting in the same
run: **resend** (``prefill`` off: the cut frame is reported ``truncated`` and the model
asked to resend it, DESIGN §6) and **continue** (``prefill`` on: the next request ends with
the bytes so far as an assistant message and its stream feeds the same transducer,
docs/protocol.md "Continuation"). Per arm it prints:

* ``sent again`` — bytes the model streamed that the session then threw away and the
  model had to send again: every response's transducer input minus what history kept of
  it (a cut frame is dropped whole on a resend; a continuation drops nothing);
* ``generated`` — every byte the transducer was fed (the server's echo of a prefill is
  skipped before it and not counted; it is printed as ``echo``);
* ``requests``, ``joins`` (continuations made), ``tokens`` (the servers' completion
  tokens), whether the call ran (``done``), and ``check`` (``frontier check``'s S1–S3 on
  every recorded response: all ok or the number that failed).

Without ``--base-url`` the model is the **scripted** demo transport (``DemoTransport``
with a responder): it writes ``--lines`` numbered lines in one heredoc and, after a
truncation, resends the whole call — what a compliant model does; with prefill it
continues the message, echoing it first as llama.cpp does. With ``--base-url`` it is a
**real** model (the rig's llama-server): a 135M model rarely writes CTL by itself, so
every request that ends with a user message is *seeded* — an assistant prefill holding
the frame's first lines (``call c1 write`` … ``<<EOF``), which llama.cpp continues and
echoes, so the seed counts as model output in both arms (a resend must send it again,
as a real model resending the call would). ``--runs`` repeats each arm (temperature
``--temperature``, seed = run number); output is not deterministic.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from frontier.app.agent.continuation import MAX_CONTINUATIONS, Prefill
from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.cst.props import check_stream
from frontier.app.events import (
    Event,
    ResponseContinued,
    ResponseEnded,
    ResponseStarted,
    StreamBytes,
    ToolCall,
    ToolFinished,
    ToolResult,
)
from frontier.app.model.conversation import AssistantTurn, ToolResults, UserText
from frontier.app.model.demo_script import Arg, Call, Step
from frontier.app.model.prefill import PrefillSupport
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamItem
from frontier.app.model.transport import ModelClient
from frontier.app.model.wires.demo import DEMO_BASE_URL, DemoTransport
from frontier.app.session.store import SessionStore
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

MODE = "ctl-heredoc"
SEED = "call c1 write\narg path NOTES.md\narg content <<EOF\n"
REAL_TASK = (
    "Write NOTES.md with 12 numbered release notes, one per line, then close the heredoc "
    "with a line EOF and the frame with a line end, like:\ncall c1 write\narg path NOTES.md\n"
    "arg content <<EOF\n1. first change\n2. second change\nEOF\nend\n"
)


def scripted_step(lines: int) -> Step:
    body = "".join(f"{i}. changed the greeting for name number {i}\n" for i in range(1, lines + 1))
    call = Call("c1", "write", (Arg("path", "NOTES.md"), Arg("content", body, "heredoc")))
    return Step("bench", "", (call,))


def resending(step: Step):  # type: ignore[no-untyped-def]
    def pick(messages: list[dict[str, Any]]) -> Step:
        last = str(messages[-1].get("content") or "")
        if last.startswith("result ") and "error truncated" not in last:
            return Step("done", "Done.\n")
        return step

    return pick


class Seeded:
    """A real endpoint whose fresh requests begin the frame (see the module doc): a model
    client (``app.model.client.Client``) around the real one."""

    def __init__(
        self, inner: ModelClient, temperature: float, seed: int, prefix: str = SEED
    ) -> None:
        self.inner = inner
        self.wire = inner.wire
        self.model = inner.model
        self.extra = {"temperature": temperature, "seed": seed}
        self.base_url = inner.base_url
        self.prefix = prefix
        """The frame's start (``bench/eval_counts.py`` seeds up to a length prefix)."""

    async def probe_json(self, path: str, *, root: bool = False) -> Any:
        return await self.inner.probe_json(path, root=root)

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        last = request.items[-1] if request.items else None
        # the task, or a resend asked for after a cut or a framing error (no result
        # frames); a continuation already ends with its prefill
        fresh = isinstance(last, UserText) or (isinstance(last, ToolResults) and not last.results)
        if fresh and not request.prefill:
            request = replace(request, prefill=self.prefix)
        return self.inner.stream(replace(request, extra={**self.extra, **request.extra}))

    async def aclose(self) -> None:
        await self.inner.aclose()


class Ending:
    """The boundary, ending the turn once the write ran: the figures are about that frame."""

    def __init__(self, inner: ToolBoundary) -> None:
        self.inner = inner

    async def run(self, call: ToolCall) -> ToolResult:
        result = await self.inner.run(call)
        if result.kind == "ok":
            result = replace(result, meta={**result.meta, "terminates": True})
        return result

    async def run_batch(self, calls: list[ToolCall]) -> list[ToolResult]:
        return [await self.run(call) for call in calls]

    def cancel_running(self) -> bool:
        return self.inner.cancel_running()


@dataclass
class Outcome:
    generated: int = 0
    resent: int = 0
    echo: int = 0
    requests: int = 0
    joins: int = 0
    tokens: int = 0
    done: bool = False
    check_failed: int = 0
    seconds: float = 0.0
    reasons: list[str] = field(default_factory=list)


async def one_run(args: argparse.Namespace, max_tokens: int, continued: bool, run: int) -> Outcome:
    out = Outcome()
    with tempfile.TemporaryDirectory(prefix="frontier-bench-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        store = SessionStore.open(Path(tmp) / "s.db")
        base = args.base_url or DEMO_BASE_URL
        sid = store.create_session(str(root), args.model, base, MODE)
        events: list[Event] = []
        client: Any
        wire = codec("openai-chat")
        if args.base_url:
            inner = ModelClient(wire, args.base_url, args.model, max_tokens=max_tokens)
            client = Seeded(inner, args.temperature, run)
            task = REAL_TASK
        else:
            transport = DemoTransport(
                MODE, 0, prefill=True, echo=True, responder=resending(scripted_step(args.lines))
            )
            client = ModelClient(
                wire, DEMO_BASE_URL, "demo", transport=transport, max_tokens=max_tokens
            )
            task = "Write the release notes."
        registry = default_registry()
        boundary = Ending(
            ToolBoundary(
                registry, root, PolicyApprover("auto"), store.persistence(sid), emit=events.append
            )
        )

        async def known() -> PrefillSupport:
            return PrefillSupport(True, "bench", "bench: prefill on")

        loop = AgentLoop(
            client=client,
            boundary=boundary,
            registry=registry,
            mode=get_mode(MODE),
            emit=events.append,
            store=store,
            session_id=sid,
            max_turns=args.max_requests,
            can_prefill=wire.can_prefill,
            prefill=Prefill("on", known, limit=args.continuations) if continued else None,
        )
        began = time.perf_counter()
        ended = await loop.send(task)
        out.seconds = time.perf_counter() - began
        out.reasons.append(ended.reason)
        kept = sum(
            len(item.text.encode()) for item in loop.history if isinstance(item, AssistantTurn)
        )
        for event in events:
            if isinstance(event, StreamBytes):
                out.generated += len(event.data)
            elif isinstance(event, ResponseStarted):
                out.requests += 1
            elif isinstance(event, ResponseContinued):
                out.requests += 1
                out.joins += 1
                out.echo += event.echo_skipped
                out.tokens += event.usage.completion or 0
            elif isinstance(event, ResponseEnded):
                out.tokens += event.usage.completion or 0
            elif isinstance(event, ToolFinished) and event.result.call_id == "c1":
                out.done = out.done or event.result.kind == "ok"
        out.resent = out.generated - kept
        for recorded in store.responses.recordings(sid):
            rec = recorded.to_recording()
            if not check_stream(
                rec.transducer_input(), rec.mode, rec.clean, wire=codec(rec.wire)
            ).ok:
                out.check_failed += 1
        store.close()
        await client.aclose()
    return out


def _figure(values: list[int]) -> str:
    if len(values) == 1:
        return f"{values[0]:,}"
    return f"{statistics.median(values):,.0f} ({min(values):,}–{max(values):,})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="a real endpoint (the rig); default: scripted")
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--max-tokens", default="", help="comma-separated (default by source)")
    parser.add_argument("--lines", type=int, default=40, help="scripted heredoc lines")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--max-requests", type=int, default=8, help="max_turns of the turn")
    parser.add_argument(
        "--continuations", type=int, default=MAX_CONTINUATIONS, help="per turn (default 3)"
    )
    args = parser.parse_args()
    default = "8,12,16" if args.base_url else "96,128,256,512"
    settings = [int(x) for x in (args.max_tokens or default).split(",")]
    source = f"real model {args.model} at {args.base_url}" if args.base_url else "scripted"
    print(f"source: {source}; mode {MODE}; runs per arm: {args.runs}")
    head = (
        f"{'max_tokens':>10} {'arm':>9} {'done':>5} {'sent again':>16} {'generated':>16} "
        f"{'echo':>10} {'requests':>9} {'joins':>6} {'tokens':>12} {'check':>6} {'s':>6}  ended"
    )
    print(head)
    for max_tokens in settings:
        for continued in (False, True):
            outs = [await one_run(args, max_tokens, continued, run) for run in range(args.runs)]
            done = sum(o.done for o in outs)
            failed = sum(o.check_failed for o in outs)
            reasons = ",".join(sorted({r for o in outs for r in o.reasons}))
            print(
                f"{max_tokens:>10} {'continue' if continued else 'resend':>9} "
                f"{done:>2}/{len(outs):<2} {_figure([o.resent for o in outs]):>16} "
                f"{_figure([o.generated for o in outs]):>16} {_figure([o.echo for o in outs]):>10} "
                f"{_figure([o.requests for o in outs]):>9} {_figure([o.joins for o in outs]):>6} "
                f"{_figure([o.tokens for o in outs]):>12} {failed if failed else 'ok':>6} "
                f"{statistics.median(o.seconds for o in outs):>6.2f}  {reasons}"
            )


if __name__ == "__main__":
    asyncio.run(main())
