"""Run turns without the TUI: print events, approve by policy or on the terminal."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

from frontier.app.agent.headless import EventPrinter, default_approver
from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config
from frontier.app.events import ToolFinished
from frontier.app.providers.errors import ProviderError
from frontier.app.secrets import Scrubber, url_secrets
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
    """Exit 0 when every turn ended with the model finishing the task, else 1.

    Whatever is printed goes through one scrubber shared with the runtime (the key,
    even from ``api_key_command``, and URL credentials); a store that fails while
    closing (a full disk) is reported as a message and exit 1, never a traceback.
    """
    scrubber = Scrubber.from_env(config.api_key, *url_secrets(config.base_url))
    printer = EventPrinter(as_json=as_json, scrubber=scrubber)
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
            scrubber=scrubber,
        )
    except (ValueError, StoreError) as exc:
        print(f"frontier: {printer.text(str(exc))}", file=sys.stderr)
        return 2
    if not as_json:
        print(f"session {runtime.session_id} · {runtime.mode} · workspace {runtime.workspace}")
    for note in runtime.notes:  # stderr with --json: stdout stays one event per line
        print(f"note {printer.text(note)}", file=sys.stderr if as_json else sys.stdout)
    for result in runtime.recovered:
        printer(ToolFinished(result))
    status = EXIT_OK
    watch = asyncio.create_task(printer.watch(), name="waiting-lines")
    try:
        for prompt in prompts or runtime.demo_prompts:
            if not as_json:
                print(f"you {printer.text(prompt)}")
            ended = await runtime.loop.send(prompt)
            if ended.reason != "done":
                message = printer.text(f"turn ended: {ended.reason}: {ended.message}")
                print(f"frontier: {message}", file=sys.stderr)
                status = EXIT_FAILED
                break
    except ProviderError as exc:
        print(f"frontier: {printer.text(str(exc))}", file=sys.stderr)
        status = EXIT_FAILED
    finally:
        watch.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watch
        try:
            await runtime.aclose()
        except Exception as exc:  # e.g. the store's last flush on a full disk
            message = printer.text(str(exc))
            print(f"frontier: closing the session failed: {message}", file=sys.stderr)
            status = EXIT_FAILED
    return status
