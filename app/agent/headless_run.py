"""Run turns without the TUI: print events, approve by policy or on the terminal."""

from __future__ import annotations

import sys
from pathlib import Path

from frontier.app.agent.headless import EventPrinter, default_approver
from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config
from frontier.app.events import ToolFinished
from frontier.app.providers.errors import ProviderError
from frontier.app.session.store import StoreError
from frontier.tools.contract import Approver

EXIT_OK = 0
EXIT_FAILED = 1


async def run_headless(
    config: Config,
    *,
    prompts: list[str],
    as_json: bool = False,
    max_turns: int = 20,
    session_id: str | None = None,
    demo: bool = False,
    demo_rate: float = 60.0,
    approver: Approver | None = None,
    workspace: Path | None = None,
    protocol: str | None = None,
) -> int:
    """Exit 0 when every turn ended with the model finishing the task, else 1."""
    printer = EventPrinter(as_json=as_json)
    try:
        runtime = create_runtime(
            config,
            approver=approver or default_approver(),
            observer=printer,
            demo=demo,
            demo_rate=demo_rate,
            session_id=session_id,
            max_turns=max_turns,
            workspace=workspace,
            protocol=protocol,
        )
    except (ValueError, StoreError) as exc:
        print(f"frontier: {exc}", file=sys.stderr)
        return 2
    if not as_json:
        print(f"session {runtime.session_id} · {runtime.mode} · workspace {runtime.workspace}")
    for note in runtime.notes:  # stderr with --json: stdout stays one event per line
        print(f"note {note}", file=sys.stderr if as_json else sys.stdout)
    for result in runtime.recovered:
        printer(ToolFinished(result))
    try:
        for prompt in prompts or runtime.demo_prompts:
            if not as_json:
                print(f"you {prompt}")
            ended = await runtime.loop.send(prompt)
            if ended.reason != "done":
                print(f"frontier: turn ended: {ended.reason}: {ended.message}", file=sys.stderr)
                return EXIT_FAILED
    except ProviderError as exc:
        print(f"frontier: {exc}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        await runtime.aclose()
    return EXIT_OK
