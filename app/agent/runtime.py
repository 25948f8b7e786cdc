"""Assemble a working agent from a ``Config``: workspace, provider, store, tools, loop.

The TUI and the headless commands both start here, so they run the same core;
they differ only in the approver and the observer they pass in.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.config import Config
from frontier.app.events import Event, ToolResult
from frontier.app.providers.demo_script import DEMO_MODEL, DEMO_TASK
from frontier.tools.contract import Approver


@dataclass
class Runtime:
    loop: AgentLoop
    session_id: str
    workspace: Path
    model: str
    mode: str
    base_url: str | None
    demo_prompts: list[str] = field(default_factory=list)
    recovered: list[ToolResult] = field(default_factory=list)
    """Calls reconciled on resume (in flight when the last run stopped)."""
    _closers: list[Any] = field(default_factory=list, repr=False)

    async def aclose(self) -> None:
        for closer in self._closers:
            result = closer()
            if hasattr(result, "__await__"):
                await result
        self._closers.clear()


def demo_workspace() -> Path:
    """A scratch copy of the bundled sample project: the demo never touches user files."""
    from frontier.app.providers.demo import make_demo_workspace

    return make_demo_workspace(Path(tempfile.mkdtemp(prefix="frontier-demo-")))


def create_runtime(
    config: Config,
    *,
    approver: Approver,
    observer: Callable[[Event], None] | None = None,
    demo: bool = False,
    demo_rate: float = 60.0,
    session_id: str | None = None,
    max_turns: int = 20,
    workspace: Path | None = None,
    protocol: str | None = None,
) -> Runtime:
    """Build the loop; ``session_id`` resumes a stored session (reconciling open calls).

    ``protocol`` is the mode the user asked for explicitly; without it a resumed
    session keeps its own mode and a new one uses ``config.protocol``.
    """
    from frontier.app.providers.demo import DEMO_BASE_URL
    from frontier.app.providers.openai import OpenAIProvider
    from frontier.app.session.store import SessionStore
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.policy import PolicyApprover
    from frontier.tools.registry import default_registry

    emit = observer or (lambda event: None)
    store = SessionStore.open(secrets=[config.api_key])
    mode_name = protocol or config.protocol
    messages: list[dict[str, Any]] = []
    recovered: list[ToolResult] = []
    undelivered: list[ToolResult] = []
    if session_id is not None:
        info = store.get_session(session_id)
        session_id = info.id
        root = Path(info.workspace)
        mode_name = protocol or info.mode
        recovered = store.recover(session_id, root)
        undelivered = store.undelivered_results(session_id)
        messages = store.load_messages(session_id)
        model = config.model or info.model
        base_url = config.base_url or info.base_url
        demo = demo or base_url == DEMO_BASE_URL
    else:
        root = workspace or (demo_workspace() if demo else Path(config.workspace or ".").resolve())
        model = DEMO_MODEL if demo else (config.model or "")
        base_url = DEMO_BASE_URL if demo else config.base_url
    mode = get_mode(mode_name)
    if demo:
        from frontier.app.providers.demo import demo_provider

        provider = demo_provider(mode.name, demo_rate)
    else:
        if not base_url:
            raise ValueError(
                "no endpoint configured: pass --base-url URL (and --model M), "
                "or run `frontier demo`"
            )
        provider = OpenAIProvider(base_url, model, api_key=config.api_key)
    if session_id is None:
        session_id = store.create_session(str(root), model, base_url, mode.name)
    registry = default_registry()
    boundary = ToolBoundary(
        registry,
        root,
        PolicyApprover(config.approval, approver),
        store.persistence(session_id),
        emit=emit,
    )
    loop = AgentLoop(
        provider=provider,
        boundary=boundary,
        registry=registry,
        mode=mode,
        emit=emit,
        store=store,
        session_id=session_id,
        model=model,
        max_turns=max_turns,
        messages=messages,
    )
    loop.carried = undelivered
    runtime = Runtime(
        loop=loop,
        session_id=session_id,
        workspace=root,
        model=model,
        mode=mode.name,
        base_url=base_url,
        demo_prompts=[DEMO_TASK] if demo and not messages else [],
        recovered=recovered,
    )
    runtime._closers.extend([provider.aclose, store.close])
    return runtime
