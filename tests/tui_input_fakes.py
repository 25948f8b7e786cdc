"""A scripted loop for the message-box tests: it records what each turn was sent.

``EchoLoop`` answers every turn at once — or, with ``hold`` set, only when the test
releases it, so the agent is "working" while the test types. At the release it
takes what was queued through the session's inbox, exactly where ``AgentLoop`` does
(the request boundary after a tool round), so the TUI sees the real
``QueuedDelivered`` event from the real ``AgentSession``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frontier.app.agent.modes import Mode, get_mode
from frontier.app.agent.queue import MessageQueue
from frontier.app.agent.session import AgentSession, EventHub
from frontier.app.events import (
    AssistantText,
    Event,
    ResponseEnded,
    ResponseStarted,
    ToolResult,
    TurnEnded,
)
from frontier.app.model.conversation import Image
from frontier.app.session.prompt_history import PromptHistory


@dataclass
class EchoLoop:
    emit: Callable[[Event], None]
    hold: bool = False
    sent: list[str] = field(default_factory=list)
    images: list[tuple[Image, ...]] = field(default_factory=list)
    """The images sent with each message of ``sent``."""
    """The user message content of each model request, in order."""
    carried: list[ToolResult] = field(default_factory=list)
    inbox: Any = None
    """The session's queue (``AgentLoop.inbox``): given to both by ``echo_factory``."""
    mode: Mode = field(default_factory=lambda: get_mode("ctl-heredoc"))
    mode_pending: bool = False
    release: asyncio.Event = field(default_factory=asyncio.Event)
    started: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: bool = False
    frontier: int = 0
    effort: str | None = None
    default_effort: str | None = None

    def pending_bound(self) -> int:
        return 0

    def cancel_turn(self) -> None:
        self.cancelled = True
        self.release.set()

    async def stop_turn(self) -> None:
        """Nothing to wait for: the scripted turn ends with the task that runs it."""

    def cancel_tool(self) -> bool:
        return False

    def set_mode(self, mode: Mode) -> None:
        self.mode = mode

    async def send(self, text: str, images: tuple[Image, ...] = ()) -> TurnEnded:
        self.sent.append(text)
        self.images.append(images)
        self.emit(ResponseStarted("ctl-heredoc", len(self.sent) - 1))
        self.started.set()
        if self.hold:
            await self.release.wait()
            self.release.clear()
        if self.cancelled:
            self.cancelled = False
            ended = TurnEnded("cancelled", "turn cancelled by the user")
            self.emit(ended)
            return ended
        self.emit(AssistantText(f"ok: {text[:20]}"))
        self.emit(ResponseEnded("stop"))
        taken = self.inbox.take() if self.inbox is not None else None
        if taken is not None:  # the next request of this turn carries them
            self.sent.append(taken.content)
            self.emit(taken.event)
            self.emit(ResponseStarted("ctl-heredoc", len(self.sent) - 1))
            self.emit(AssistantText("noted"))
            self.emit(ResponseEnded("stop"))
        ended = TurnEnded("done")
        self.emit(ended)
        return ended


@dataclass
class EchoRuntime:
    loop: EchoLoop
    session: AgentSession


def echo_factory(
    root: Path,
    holder: list[EchoRuntime],
    *,
    hold: bool = False,
    history_key: str | None = None,
) -> Callable[[], AgentSession]:
    """A factory for ``FrontierApp(session_factory=...)``; ``history_key`` persists the
    prompt history (under the suite's FRONTIER_DATA_DIR) like ``create_runtime`` does."""

    def factory() -> AgentSession:
        events = EventHub()
        queue = MessageQueue(root)
        loop = EchoLoop(events.emit, hold=hold, inbox=queue)
        history = PromptHistory.for_workspace(history_key) if history_key else None
        session = AgentSession(
            loop,
            events,
            session_id=f"echo-{len(holder) + 1}",
            workspace=root,
            model="echo",
            prompt_history=history,
            queue=queue,
        )
        holder.append(EchoRuntime(loop, session))
        return session

    return factory


def echo_app(root: Path, **config: Any) -> tuple[Any, list[EchoRuntime]]:
    """A ``FrontierApp`` on an echo session (what it was sent is in the runtime's loop)."""
    from frontier.app.config import Config
    from frontier.app.frontends.tui.app import FrontierApp

    holder: list[EchoRuntime] = []
    app = FrontierApp(
        Config(model="echo", **config),
        session_factory=echo_factory(root, holder),
        remember_theme=False,
    )
    return app, holder
