"""Assemble a working agent from a ``Config``: workspace, provider, store, tools, loop.

The TUI and the headless commands both start here, so they run the same core;
they differ only in the approver they pass in and the observer they subscribe.
What comes out is an :class:`~frontier.app.agent.session.AgentSession`, the one
thing of the core a front end holds.
"""

from __future__ import annotations

import contextlib
import functools
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from frontier.app.agent.budget import ContextBudget
from frontier.app.agent.compactor import Compactor
from frontier.app.agent.continuation import Prefill
from frontier.app.agent.instructions import NONE as NO_INSTRUCTIONS
from frontier.app.agent.instructions import load_instructions
from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.agent.session import AgentSession, EventHub
from frontier.app.config import Config, load_approvals, resolve_api_key, save_approvals
from frontier.app.events import ToolResult
from frontier.app.providers.demo_script import DEMO_MODEL, DEMO_TASK
from frontier.app.secrets import REDACTED, Scrubber, url_secrets
from frontier.app.session.prompt_history import DEMO_KEY, PromptHistory
from frontier.tools.approval_rules import AllowedRule, ApprovalRules, rules_from_data
from frontier.tools.contract import Approver
from frontier.tools.workspace_files import BeneathFiles

if TYPE_CHECKING:
    from frontier.app.providers.openai import OpenAIProvider
    from frontier.app.session.store import SessionInfo, SessionStore


DEMO_WORKSPACES = "demo-workspaces"
"""Under the data dir: the demo's scratch copies, kept next to the sessions that use them."""


def demo_workspace() -> Path:
    """A scratch copy of the bundled sample project: the demo never touches user files.

    It lives in ``<data dir>/demo-workspaces/`` rather than ``$TMPDIR`` so a demo
    session can still be resumed (and inspected) after ``$TMPDIR`` is cleaned.
    """
    from frontier.app.config import data_dir
    from frontier.app.providers.demo import make_demo_workspace

    parent = data_dir() / DEMO_WORKSPACES
    parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S-")
    return make_demo_workspace(Path(tempfile.mkdtemp(prefix=stamp, dir=parent)))


def _new_session_root(config: Config, workspace: Path | None, demo: bool) -> Path:
    if workspace is None and demo:
        return demo_workspace()
    root = Path(workspace or config.workspace or ".").expanduser().resolve()
    if not root.is_dir():
        raise ValueError(
            f"workspace {root} is not a directory: create it, or pass an existing one "
            "with --workspace DIR"
        )
    return root


def _resumed_root(
    store: SessionStore, info: SessionInfo, workspace: Path | None, demo: bool, notes: list[str]
) -> Path:
    """The stored workspace, or ``workspace`` if the user moved the project (recorded)."""
    if workspace is not None:
        root = Path(workspace).expanduser().resolve()
        if not root.is_dir():
            raise ValueError(f"--workspace {root} is not a directory")
        if str(root) != info.workspace:
            store.set_workspace(info.id, str(root))
            notes.append(f"workspace moved: {info.workspace} -> {root}")
        return root
    root = Path(info.workspace)
    if root.is_dir():
        return root
    if demo:
        from frontier.app.providers.demo import make_demo_workspace

        make_demo_workspace(root)
        notes.append(f"the demo's scratch copy {root} was gone; made a fresh one")
        return root
    raise ValueError(
        f"session {info.id}'s workspace {root} no longer exists (moved or deleted?); "
        f"resume it in another directory with `frontier resume {info.id} --workspace DIR`"
    )


def _workspace_rules(root: Path, notes: list[str]) -> ApprovalRules:
    """The "always allow" rules remembered for ``root`` (``approvals.toml`` beside the
    config); a rule that cannot be kept (a folder outside the workspace) becomes a note."""
    data, file_notes = load_approvals(root)
    rules, refused = rules_from_data(root, data)
    notes.extend(file_notes)
    notes.extend(f"remembered approvals: {note}" for note in refused)
    return ApprovalRules(root, (AllowedRule(rule, True) for rule in rules))


def _discard_if_empty(store: SessionStore, session_id: str) -> None:
    """Closing a new session the model never answered deletes it (a first connection that
    failed, a TUI opened and closed): nothing in it can be continued, and an empty
    ``failed`` row would head ``frontier sessions`` and be what ``frontier -c`` picks
    (docs/decisions-session.md). Best effort: a store that cannot delete keeps the row."""
    from frontier.app.session.store import StoreError

    with contextlib.suppress(StoreError):
        store.responses.release_all()  # stream bytes still held back count as an answer
        store.catalogue.discard_if_empty(session_id)


def _prefill(config: Config, provider: OpenAIProvider, *, demo: bool) -> Prefill | None:
    """How a CTL response cut by ``length`` goes on (``continuation.py``): detected from
    the endpoint on first need (``auto``), forced (``on``), or never (``off``). The demo
    model continues only when asked (``--prefill on``), so its story shows the resend."""
    from frontier.app.providers.prefill import detect_prefill

    if config.prefill == "off" or (demo and config.prefill != "on"):
        return None
    return Prefill(config.prefill, functools.partial(detect_prefill, provider))


DEMO_CONTEXT_WINDOW = 32768
"""The demo model's window: its whole story uses a few thousand tokens, so it never
compacts unless a test sets ``context_window`` lower."""


def _context_budget(
    config: Config, provider: OpenAIProvider | None, *, demo: bool
) -> ContextBudget:
    """The session's budget: ``config.context_window`` when set, the demo's own window,
    else the server is asked before the first request (``probe_context_window``)."""
    budget = ContextBudget(threshold=config.compact_threshold)
    if config.context_window:
        budget.window, budget.source = config.context_window, "config"
    elif demo:
        budget.window, budget.source = DEMO_CONTEXT_WINDOW, "demo"
    elif provider is not None:  # ``None``: a session opened without a model (undo)
        budget.probe = provider.probe_context_window
    return budget


def create_runtime(
    config: Config,
    *,
    approver: Approver,
    demo: bool = False,
    demo_rate: float = 60.0,
    session_id: str | None = None,
    max_turns: int = 20,
    workspace: Path | None = None,
    protocol: str | None = None,
    scrubber: Scrubber | None = None,
    offline: bool = False,
) -> AgentSession:
    """Build the session; ``session_id`` resumes a stored one (reconciling open calls).

    Nothing is emitted while building: a front end subscribes its observer to the
    returned session before its first ``send`` and sees every event.

    ``protocol`` is the mode the user asked for explicitly; without it a resumed
    session keeps its own mode and a new one uses ``config.protocol``. ``workspace``
    is the directory the user named explicitly: a new session's root, or where a
    resumed session's project now lives. ``scrubber`` is the caller's (its printer
    then scrubs the key resolved here too). ``offline`` builds no provider and resolves
    no key (``frontier undo``: a stored session opened only to change its files). Raises
    ``ValueError`` (``ConfigError`` for a failing ``api_key_command``) / ``StoreError``
    with a message for the user; nothing is left open then.
    """
    from frontier.app.providers.demo import DEMO_BASE_URL
    from frontier.app.providers.openai import OpenAIProvider
    from frontier.app.session.store import SessionStore
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.patch_docs import resolve_patch_format
    from frontier.tools.policy import PolicyApprover
    from frontier.tools.registry import default_registry

    scrubber = scrubber if scrubber is not None else Scrubber()
    scrubber.add(config.api_key, *url_secrets(config.base_url))
    with contextlib.ExitStack() as on_error:
        store = SessionStore.open(secrets=scrubber)
        on_error.callback(store.close)  # until the runtime owns it
        events = EventHub()
        mode_name = protocol or config.protocol
        notes: list[str] = []
        messages: list[dict[str, Any]] = []
        recovered: list[ToolResult] = []
        resumed = session_id is not None
        undelivered: list[ToolResult] = []
        if session_id is not None:
            info = store.get_session(session_id)
            session_id = info.id
            lock = store.lock_session(session_id)  # before recovery touches its calls
            on_error.callback(lock.release)
            mode_name = protocol or info.mode
            model = config.model or info.model
            base_url = config.base_url or info.base_url
            if not offline and not config.base_url and base_url and REDACTED in base_url:
                raise ValueError(
                    f"session {info.id}'s base URL carried credentials, which are never "
                    f"stored ({base_url}); resume it with --base-url URL again"
                )
            demo = demo or base_url == DEMO_BASE_URL
            root = _resumed_root(store, info, workspace, demo, notes)
            recovered = store.recover(session_id, root, files=BeneathFiles)
            undelivered = store.undelivered_results(session_id)
            messages = store.load_messages(session_id)
        else:
            root = _new_session_root(config, workspace, demo)
            model = DEMO_MODEL if demo else (config.model or "")
            base_url = DEMO_BASE_URL if demo else config.base_url
        mode = get_mode(mode_name)
        if demo:
            from frontier.app.providers.demo import demo_provider

            # --prefill on: the scripted model continues a cut response, as llama.cpp does
            provider = demo_provider(mode.name, demo_rate, prefill=config.prefill == "on")
        elif offline:
            from frontier.app.agent.undo import NoModel

            provider = NoModel()  # type: ignore[assignment]
        else:
            if not base_url:
                raise ValueError(
                    "no endpoint configured: pass --base-url URL (and --model M), "
                    "or run `frontier demo`"
                )
            config, key_notes = resolve_api_key(config)  # api_key_command runs here, once
            notes.extend(key_notes)
            scrubber.add(config.api_key, *url_secrets(base_url))
            provider = OpenAIProvider(
                base_url,
                model,
                api_key=config.api_key,
                connect_timeout=config.connect_timeout,
                first_byte_timeout=config.first_byte_timeout,
                idle_timeout=config.idle_timeout,
                max_tokens=config.max_tokens,
            )
        if session_id is None:
            session_id = store.create_session(str(root), model, base_url, mode.name)
            lock = store.lock_session(session_id)
            on_error.callback(lock.release)
        # the project's AGENTS.md…, read again on every start and resume (never stored)
        project = load_instructions(root) if config.instructions else NO_INSTRUCTIONS
        notes.extend(scrubber.scrub(note) for note in project.notes())
        # apply_patch teaches the dialect this model writes best (config.patch_format)
        dialect = resolve_patch_format(config.patch_format, model)
        registry = default_registry(dialect)
        rules = _workspace_rules(root, notes)
        policy = PolicyApprover(config.approval, approver, rules)
        boundary = ToolBoundary(
            registry, root, policy, store.persistence(session_id), emit=events.emit
        )
        loop = AgentLoop(
            provider=provider,
            boundary=boundary,
            registry=registry,
            mode=mode,
            emit=events.emit,
            store=store,
            session_id=session_id,
            model=model,
            max_turns=max_turns,
            messages=messages,
            instructions=project.prompt(),
        )
        loop.carried = undelivered
        loop.prefill = None if offline else _prefill(config, provider, demo=demo)
        # A resumed session's responses continue its numbering: SESSION#N names one.
        loop.request_index = store.next_request_index(session_id)
        # the context budget (docs/context-budget.md): the window from the settings, the
        # server (asked before the first request) or the default; compaction before overflow
        budget = _context_budget(config, None if offline else provider, demo=demo)
        if not offline:
            loop.compactor = Compactor(budget, store=store, session_id=session_id, emit=events.emit)
        session = AgentSession(
            loop,
            events,
            session_id=session_id,
            workspace=root,
            model=model,
            mode=mode.name,
            resumed=resumed,
            notes=notes,
            recovered=recovered,
            instructions=project.files,
            demo_prompts=[DEMO_TASK] if demo and not messages else [],
            patch_dialect=dialect,
            tools=registry.specs(),
            policy=policy,
            store=store,
            scrubber=scrubber,
            closers=[
                provider.aclose,
                *([] if resumed else [functools.partial(_discard_if_empty, store, session_id)]),
                store.close,
                lock.release,
            ],
            rules_saver=lambda data: save_approvals(root, data),
            budget=budget,
            # ↑/↓ recall per workspace; every demo run is a fresh scratch copy, so one key
            prompt_history=PromptHistory.for_workspace(
                DEMO_KEY if demo else str(root), scrubber=scrubber
            ),
        )
        on_error.pop_all()
        return session
