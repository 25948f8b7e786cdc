"""Assemble a working agent from a ``Config``: workspace, model client, store, tools, loop.

The client comes from the wire registry (``app/model/registry.py``: ``--wire``, a
provider entry, or ``auto`` by host and model), the window and the protocol from the
settings, the server and the model catalogue (``app/model/catalogue.py``); every
collaborator of the loop is given to it here, at construction.

The TUI and the headless commands both start here, so they run the same core;
they differ only in the observers they subscribe — one of which answers the
session's ``ApprovalRequested`` events (``interactive=True``) when a person can.
What comes out is an :class:`~frontier.app.agent.session.AgentSession`, the one
thing of the core a front end holds.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from frontier.app.agent.approvals import Answerer, ApprovalDesk, answer_with
from frontier.app.agent.budget import VENDOR_WINDOW, ContextBudget
from frontier.app.agent.compactor import Compactor
from frontier.app.agent.continuation import Prefill
from frontier.app.agent.environment import gather_soon, gathered, with_environment
from frontier.app.agent.instructions import NONE as NO_INSTRUCTIONS
from frontier.app.agent.instructions import load_instructions
from frontier.app.agent.loop import (
    SLICE_SECONDS,
    AgentLoop,
    Carried,
    RequestCounter,
    last_failure,
)
from frontier.app.agent.modes import Mode, get_mode
from frontier.app.agent.queue import MessageQueue
from frontier.app.agent.session import AgentSession, EventHub
from frontier.app.agent.session_ops import ModelSwitched
from frontier.app.agent.undo import UNDO_TOOL, split_undone
from frontier.app.config import (
    Config,
    config_dir,
    data_dir,
    key_file_path,
    load_approvals,
    resolve_api_key,
    save_approvals,
    secret_env_names,
)
from frontier.app.events import Event, ToolCall, ToolResult
from frontier.app.model.catalogue import (
    ModelInfo,
    host_has_tools,
    known,
    reasons_first,
    resolve_protocol,
    resolve_wire,
)
from frontier.app.model.client import Client
from frontier.app.model.conversation import Item
from frontier.app.model.demo_script import DEMO_BASE_URL, DEMO_MODEL, DEMO_TASK
from frontier.app.model.wires.base import WireCodec
from frontier.app.record import field, record, replace
from frontier.app.secrets import REDACTED, Scrubber, url_secrets
from frontier.app.session.prompt_history import DEMO_KEY, PromptHistory
from frontier.app.vocab import DEFAULT_MODE
from frontier.app.working_dir import resolved
from frontier.tools.approval_rules import AllowedRule, ApprovalRules, rules_from_data
from frontier.tools.beneath import pin_root
from frontier.tools.sandbox import Sandbox, SandboxSettings, make_sandbox, probe_soon
from frontier.tools.workspace_files import BeneathFiles

if TYPE_CHECKING:
    from frontier.app.agent.environment import Environment
    from frontier.app.agent.instructions import ProjectInstructions
    from frontier.app.model.transport import ModelClient, Timeouts
    from frontier.app.session.store import SessionInfo, SessionStore
    from frontier.tools.after_edit import AfterEditChecks
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.formatting import Formatters
    from frontier.tools.mcp_servers import McpHost
    from frontier.tools.registry import Registry
    from frontier.tools.sandbox import SandboxRecord


DEMO_WORKSPACES = "demo-workspaces"
"""Under the data dir: the demo's scratch copies, kept next to the sessions that use them."""


def demo_workspace() -> Path:
    """A scratch copy of the bundled sample project: the demo never touches user files.

    It lives in ``<data dir>/demo-workspaces/`` rather than ``$TMPDIR`` so a demo
    session can still be resumed (and inspected) after ``$TMPDIR`` is cleaned.
    """
    from frontier.app.config import data_dir
    from frontier.app.model.wires.demo import make_demo_workspace

    parent = data_dir() / DEMO_WORKSPACES
    parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S-")
    return make_demo_workspace(Path(tempfile.mkdtemp(prefix=stamp, dir=parent)))


def _new_session_root(config: Config, workspace: Path | None, demo: bool) -> Path:
    if workspace is None and demo:
        return demo_workspace()
    root = resolved(Path(workspace or config.workspace or "."))
    if not root.is_dir():
        raise ValueError(
            f"workspace {root} is not a directory: create it, or pass an existing one "
            "with --workspace DIR"
        )
    return _text_path(root)


def _text_path(root: Path) -> Path:
    """``root``, refused (``ValueError``) when its path is not UTF-8: the store keeps it
    as text, and the model's requests carry it; a name with such bytes used to fail deep
    in the store with a codec error that named neither the folder nor a way out."""
    try:
        str(root).encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(root).decode("utf-8", "backslashreplace")
        raise ValueError(
            f"the workspace's path is not valid UTF-8 ({shown}): Frontier keeps it as text "
            "in its session store and in what it sends the model. Rename the folder, or "
            "pass another with --workspace DIR"
        ) from None
    return root


def _is_rewind(undo: object) -> bool:
    return isinstance(undo, dict) and isinstance(undo.get("rewind"), dict)


def _resumed_root(
    store: SessionStore, info: SessionInfo, workspace: Path | None, demo: bool, notes: list[str]
) -> Path:
    """The stored workspace, or ``workspace`` if the user moved the project (recorded)."""
    if workspace is not None:
        root = Path(workspace).expanduser().resolve()
        if not root.is_dir():
            raise ValueError(f"--workspace {root} is not a directory")
        _text_path(root)
        if str(root) != info.workspace:
            store.set_workspace(info.id, str(root))
            notes.append(f"workspace moved: {info.workspace} -> {root}")
        return root
    root = Path(info.workspace)
    if root.is_dir():
        return root
    if demo:
        from frontier.app.model.wires.demo import make_demo_workspace

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


def session_sandbox(
    config: Config, notes: list[str], *, demo: bool = False, root: Path | None = None
) -> Sandbox:
    """The session's command sandbox (issue 22; ``tools/sandbox.py``) from the settings,
    hiding Frontier's own data dir, config dir and key file from every command. When it
    was asked for but cannot start here, ``notes`` says so: every command is asked then
    (``tools/policy.py``)."""
    private = [str(data_dir()), str(config_dir())]
    key_file = key_file_path(config)
    if key_file is not None:
        private.append(str(key_file))
    settings = SandboxSettings(
        mode=config.sandbox,  # type: ignore[arg-type]  # checked against vocab.SANDBOXES
        network=config.sandbox_network,
        writable=tuple(config.sandbox_writable),
        readable=tuple(config.sandbox_readable),
        hidden=tuple(config.sandbox_hidden),
        private=tuple(private),
    )
    sandbox = make_sandbox(settings, root)
    if settings.mode != "off" and not sandbox.active and demo:
        notes.append(
            f"sandbox unavailable: {sandbox.unavailable} — the demo's own scripted commands "
            "run unconfined; a model's commands would each be asked first"
        )
    elif settings.mode != "off" and not sandbox.active:
        notes.append(
            f"sandbox unavailable: {sandbox.unavailable} — every command will be asked "
            "before it runs (--sandbox off runs them unconfined without asking)"
        )
    return sandbox


def _discard_if_empty(store: SessionStore, session_id: str) -> None:
    """Closing a new session nobody wrote in and the model never answered deletes it (a
    TUI opened and closed): nothing in it can be continued, and an empty ``failed`` row
    would head ``frontier sessions`` and be what ``frontier -c`` picks
    (docs/decisions-session.md). A session that holds a message the person wrote is
    kept even when the model never answered it (a first request that failed): its id
    was shown (the status bar, ``run --json``'s first line), and ``--session ID`` /
    ``frontier resume ID`` must find it. Best effort: a store that cannot delete keeps
    the row."""
    from frontier.app.session.store import StoreError

    with contextlib.suppress(StoreError):
        if store.catalogue.get_session(session_id).turns:
            return
        store.responses.release_all()  # stream bytes still held back count as an answer
        store.catalogue.discard_if_empty(session_id)


def session_prefill(
    config: Config, client: ModelClient, codec: WireCodec, info: ModelInfo | None, *, demo: bool
) -> Prefill | None:
    """How a CTL response cut by ``length`` goes on (``continuation.py``): detected from
    the endpoint on first need (``auto``), forced (``on``), or never (``off``). Only a
    wire that takes a trailing assistant message can continue; a model the catalogue
    says refuses one (Claude 4.6 and later) is resent unless ``prefill = on``. The demo
    model continues only when asked (``--prefill on``), so its story shows the resend."""
    from frontier.app.model.prefill import detect_prefill

    if config.prefill == "off" or (demo and config.prefill != "on") or not codec.can_prefill:
        return None
    if config.prefill == "auto" and info is not None and not info.can_prefill():
        return None
    return Prefill(config.prefill, functools.partial(detect_prefill, client))


DEMO_CONTEXT_WINDOW = 32768
"""The demo model's window: its whole story uses a few thousand tokens, so it never
compacts unless a test sets ``context_window`` lower."""


def context_budget(
    config: Config, client: ModelClient | None, info: ModelInfo | None, *, demo: bool
) -> ContextBudget:
    """The session's budget: ``config.context_window`` when set, the demo's own window,
    else the server is asked before the first request (``probe_context_window``), then
    the catalogue's figure, else the default — *assumed*, and said so."""
    budget = ContextBudget(threshold=config.compact_threshold)
    if config.context_window:
        budget.window, budget.source = config.context_window, "config"
    elif demo:
        budget.window, budget.source = DEMO_CONTEXT_WINDOW, "demo"
    elif client is not None:  # ``None``: a session opened without a model (undo)
        budget.probe = client.probe_context_window
        if info is not None and info.context_window > 0:
            budget.catalogue = (info.context_window, info.source)
        elif host_has_tools(client.url):
            budget.assumed_window = VENDOR_WINDOW
    return budget


@record(frozen=False)
class _Plan:
    """What a new or resumed session starts from, before the client exists."""

    root: Path
    model: str
    base_url: str | None
    wire: str
    mode: str
    """A concrete mode, or ``auto`` (settled by the catalogue now or the server later)."""
    resumed: bool = False
    session_id: str | None = None
    history: list[Item] = field(default_factory=list)
    carried: list[Carried] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    recovered: list[ToolResult] = field(default_factory=list)
    recovery_notes: list[str] = field(default_factory=list)
    last_failure: str | None = None
    """Why the stored session's last turn failed, when the server's error ended it."""


def _new_plan(config: Config, *, workspace: Path | None, protocol: str | None, demo: bool) -> _Plan:
    root = _new_session_root(config, workspace, demo)
    if demo:
        # the demo, the tour and teaching show the text protocol unless told otherwise
        setting = protocol or config.protocol
        mode = "ctl-heredoc" if setting == "auto" else setting
        return _Plan(root, DEMO_MODEL, DEMO_BASE_URL, "openai-chat", mode)
    model = config.model or ""
    wire = resolve_wire(config.wire, config.base_url, known(model))
    return _Plan(root, model, config.base_url, wire, protocol or config.protocol)


def _timeouts(config: Config, info: ModelInfo | None, base_url: str) -> Timeouts:
    """The settings' timeouts; where none is set, the model's defaults: patient for a
    model that may reason silently before it answers (``catalogue.reasons_first``)."""
    from frontier.app.model import transport

    patient = reasons_first(info, base_url)
    first, idle = (
        (transport.PATIENT_TIMEOUT,) * 2
        if patient
        else (transport.FIRST_BYTE_TIMEOUT, transport.IDLE_TIMEOUT)
    )
    return transport.Timeouts(
        config.connect_timeout,
        config.first_byte_timeout or first,
        config.idle_timeout or idle,
    )


def _open_client(
    config: Config,
    plan: _Plan,
    info: ModelInfo | None,
    *,
    demo: bool,
    demo_rate: float,
    offline: bool,
    mode: str,
    scrubber: Scrubber,
    notes: list[str],
) -> tuple[Client, WireCodec, ModelClient | None]:
    """The session's model client (and its wire's adapter; the HTTP client itself when
    there is one, for probes and prefill detection)."""
    from frontier.app.model.registry import codec

    adapter = codec(plan.wire)
    if demo:
        from frontier.app.model.wires.demo import demo_client

        # --prefill on: the scripted model continues a cut response, as llama.cpp does
        made = demo_client(mode, demo_rate, prefill=config.prefill == "on")
        return made, made.codec, made
    if offline:
        from frontier.app.agent.undo import NoModel

        return NoModel(plan.model, plan.wire), adapter, None
    if not plan.base_url:
        raise ValueError(
            "no endpoint configured: pass --base-url URL (and --model M), "
            "--provider NAME, or run `frontier demo`"
        )
    if config.base_url_from and plan.base_url == config.base_url:
        # a variable set for other tools (config.SDK_BASE_URLS): easy to forget it is set
        notes.append(
            f"endpoint {plan.base_url} from {config.base_url_from} (--base-url names another)"
        )
    # the client redacts its requests with the session's scrubber, which it teaches the key
    # resolved here: one set of secrets for what is stored, shown and sent
    client, _ = model_client(
        config, plan.base_url, plan.model, adapter, info, notes, secrets=scrubber
    )
    return client, adapter, client


def model_client(
    config: Config,
    base_url: str,
    model: str,
    adapter: WireCodec,
    info: ModelInfo | None,
    notes: list[str],
    secrets: Scrubber | None = None,
) -> tuple[ModelClient, Config]:
    """The HTTP client a session (or ``frontier doctor``) talks to the model with, and
    ``config`` with its key resolved (``api_key_command`` runs here, once): the wire's
    required ``max_tokens`` within the model's, the model's timeouts, the effort asked.
    Raises ``ConfigError`` for a key that cannot be had; ``notes`` gets the key's
    warnings (a key file others can read). ``secrets``: the session's scrubber, which
    the client learns its key into and redacts every request with (``None``: its own)."""
    from frontier.app.model.transport import ModelClient

    config, key_notes = resolve_api_key(config)
    notes.extend(key_notes)
    from frontier.tools.process import withhold

    for name in secret_env_names(config):  # whatever their names: no command sees them
        withhold(name)
    max_tokens = config.max_tokens
    required = adapter.required_max_tokens
    if max_tokens is None and required is not None:
        limit = info.max_output_tokens if info is not None else None
        max_tokens = min(limit or required, required)
    client = ModelClient(
        adapter,
        base_url,
        model,
        api_key=config.api_key,
        timeouts=_timeouts(config, info, base_url),
        max_tokens=max_tokens,
        effort=None if config.reasoning_effort == "auto" else config.reasoning_effort,
        headers=dict(config.headers),
        secrets=secrets,
    )
    return client, config


INTERACTIVE_MAX_TURNS = 100
"""Model requests a message may lead to in the TUI: a person watches and stops it with
Esc, and a real task takes more than 20 (stop 52: it stopped halfway through them)."""
HEADLESS_MAX_TURNS = 20
"""The same for ``frontier run``: nobody watches, so a loop stops sooner."""


def turn_limit(*, interactive: bool) -> int:
    """``max_turns`` when nothing sets it: a person watching allows more."""
    return INTERACTIVE_MAX_TURNS if interactive else HEADLESS_MAX_TURNS


def _settle_mode(
    client: ModelClient | None, info: ModelInfo | None
) -> Callable[[], Awaitable[Mode | None]] | None:
    """``--protocol auto`` for a model the catalogue does not know: before the first
    request, ask the server whether the model takes tools (llama.cpp's ``/props``, the
    answer the window probe reads; Ollama's ``/api/show``); native-inc if so (the loop
    stores it)."""
    if client is None or info is not None:
        return None
    http = client

    async def settle() -> Mode | None:
        mode = resolve_protocol("auto", None, await http.probe_tools())
        return None if mode == "ctl-heredoc" else get_mode(mode)

    return settle


def create_runtime(
    config: Config,
    *,
    interactive: bool = False,
    approver: Answerer | None = None,
    demo: bool = False,
    demo_rate: float = 60.0,
    session_id: str | None = None,
    max_turns: int | None = None,
    workspace: Path | None = None,
    protocol: str | None = None,
    scrubber: Scrubber | None = None,
    offline: bool = False,
    on_wait: Callable[[str], object] | None = None,
    mcp_in_background: bool = False,
) -> AgentSession:
    """Build the session; ``session_id`` resumes a stored one (reconciling open calls).

    Nothing is emitted while building: a front end subscribes its observer to the
    returned session before its first ``send`` and sees every event.

    ``protocol`` is the mode the user asked for explicitly; without it a resumed
    session keeps its own mode and a new one uses ``config.protocol`` (``auto``: the
    catalogue, else the server before the first request, says whether the model has
    native tools). ``workspace`` is the directory the user named explicitly: a new
    session's root, or where a resumed session's project now lives. ``scrubber`` is the
    caller's (its printer then scrubs the key resolved here too). ``offline`` builds no
    client and resolves no key (``frontier undo``: a stored session opened only to
    change its files). Raises ``ValueError`` (``ConfigError`` for a failing
    ``api_key_command`` or an unset provider key) / ``StoreError`` with a message for
    the user; nothing is left open then.

    ``interactive``: a person answers the session's ``ApprovalRequested`` events (the
    caller subscribes and calls ``AgentSession.answer``); otherwise what needs a person
    is refused, saying how to allow it. ``approver`` is a convenience for scripts and
    tests: it answers through that same event path (``approvals.answer_with``).

    ``on_wait`` is told, on the building thread, before a wait a person would notice
    (the MCP servers starting, up to their ``startup_timeout``): nothing is emitted yet,
    so this is how a front end says what it is waiting for.

    ``mcp_in_background`` (a person's session): the MCP servers start without the build
    waiting for them; the first request waits a short grace for those still starting
    (``app/agent/mcp_wait.py``) and their notes come as ``Notice`` events. Without it (a
    script's session) the build waits for every server, so the first request has every
    tool that could start.
    """
    from frontier.app.session.store import SessionStore
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.jobs import Jobs
    from frontier.tools.patch_docs import resolve_patch_format
    from frontier.tools.policy import PolicyApprover
    from frontier.tools.registry import default_registry

    scrubber = scrubber if scrubber is not None else Scrubber()
    scrubber.add(config.api_key, *url_secrets(config.base_url), *(v for _, v in config.headers))
    # the sandbox's probe runs a bwrap while the store, the catalogue and the client are made
    probe_soon(config.sandbox, config.workspace)
    with contextlib.ExitStack() as on_error:
        store = SessionStore.open(secrets=scrubber)
        on_error.callback(store.close)  # until the runtime owns it
        events = EventHub()
        notes: list[str] = []
        new = session_id is None
        if session_id is not None:
            info = store.get_session(session_id)
            lock = store.lock_session(info.id)  # before recovery touches its calls
            on_error.callback(lock.release)
            plan, demo = _resumed(store, info, config, workspace, protocol, demo, offline, notes)
        else:
            plan = _new_plan(config, workspace=workspace, protocol=protocol, demo=demo)
        if not (demo or offline):  # git status beside the rest of the build (below)
            gather_soon(plan.root)
        model_info = None if demo else known(plan.model)
        # a vendor's own API says for a model the catalogue does not know (its entry wins:
        # o1-mini takes no tools on api.openai.com either)
        vendor = None if demo or model_info is not None else host_has_tools(plan.base_url)
        mode_name = resolve_protocol(plan.mode, model_info, vendor)
        client, adapter, http = _open_client(
            config,
            plan,
            model_info,
            demo=demo,
            demo_rate=demo_rate,
            offline=offline,
            mode=mode_name,
            scrubber=scrubber,
            notes=notes,
        )
        if plan.session_id is None:
            plan.session_id = store.create_session(
                str(plan.root), plan.model, plan.base_url, mode_name, wire=plan.wire
            )
            lock = store.lock_session(plan.session_id)
            on_error.callback(lock.release)
        session_id = plan.session_id
        # Issue 21, item 9: the workspace is pinned here, once per session — a descriptor
        # every tool walks from (tools/beneath.py) — so swapping the folder for a symlink
        # mid-session redirects nothing; every tool refuses ("the workspace folder was
        # replaced"). Released when the session closes.
        try:
            root = pin_root(plan.root)
        except OSError as exc:
            raise ValueError(f"workspace {plan.root} cannot be opened: {exc.strerror}") from exc
        on_error.callback(root.unpin)
        # the project's AGENTS.md…, read again on every start and resume (never stored)
        project = load_instructions(root) if config.instructions else NO_INSTRUCTIONS
        notes.extend(scrubber.scrub(note) for note in project.notes())
        # the OS, date, shell, git status and top level (app/agent/environment.py): its
        # note goes here, among the notes; it is waited for when the loop is made
        environment_at = len(notes)
        # apply_patch teaches the dialect this model writes best (config.patch_format)
        dialect = resolve_patch_format(config.patch_format, plan.model)
        registry = default_registry(dialect)
        rules = _workspace_rules(root, notes)
        # issue 22: shell and python run in an OS sandbox; the policy knows whether it runs
        sandbox = session_sandbox(config, [] if offline else notes, demo=demo, root=root)
        on_error.callback(sandbox.close)
        # issue 26: MCP servers' tools join the one registry (none for demo and offline);
        # a local server runs in the sandbox too
        mcp = (
            None
            if demo or offline
            else _start_mcp(registry, root, sandbox, notes, scrubber, on_wait, mcp_in_background)
        )
        if mcp is not None:
            on_error.callback(mcp.close)
        # The demo's commands are its own script's (the bundled sample's tests), never a
        # model's: where no sandbox can start they run unconfined, said in a note, rather
        # than the first command of `frontier demo` on a fresh machine being refused.
        asks_for = None if demo and not sandbox.active else sandbox
        # issue 23: the person is asked through the session's events (ApprovalRequested
        # out, AgentSession.answer in); no front-end object reaches the gate
        answered = interactive or approver is not None
        desk = ApprovalDesk(events.emit, interactive=answered, rules_possible=lambda: True)
        policy = PolicyApprover(config.approval, desk, rules, sandbox=asks_for)
        jobs = Jobs()  # background commands: they end with the session (tools/jobs.py)
        boundary = ToolBoundary(
            registry,
            root,
            policy,
            store.persistence(session_id),
            emit=events.emit,
            sandbox=sandbox,
            jobs=jobs,
        )
        # the person's after-edit checks and formatters (tools/after_edit.py, formatting.py)
        checks = None
        if not demo and not offline:
            checks, _ = _edit_hooks(boundary, sandbox, events.emit, notes)
        if plan.resumed:  # what the model saw of each file before (tools/file_views.py)
            boundary.views.replay(store.ledger.file_views(session_id))
        # A resumed session's responses continue its numbering: SESSION#N names one.
        requests = RequestCounter(store.next_request_index(session_id))
        # the context budget (docs/context-budget.md): the window from the settings, the
        # server (asked before the first request), the catalogue, or assumed; compaction
        budget = context_budget(config, http, model_info, demo=demo)
        compactor = None
        if not offline:
            compactor = Compactor(
                budget,
                client=client,
                requests=requests,
                store=store,
                session_id=session_id,
                emit=events.emit,
            )
        queue = MessageQueue(root, boundary.views)
        settle = None
        if plan.mode == "auto" and not demo and not offline and vendor is None:
            settle = _settle_mode(http, model_info)
        mode_pending = settle is not None
        if mcp is not None and mcp_in_background:
            from frontier.app.agent.mcp_wait import waiting_first

            settle = waiting_first(mcp, events.emit, settle)
        environment = None if demo or offline else gathered(root)
        if environment is not None:
            notes.insert(environment_at, scrubber.scrub(environment.note()))
        loop = AgentLoop(
            client=client,
            boundary=boundary,
            registry=registry,
            mode=get_mode(mode_name),
            emit=events.emit,
            store=store,
            session_id=session_id,
            max_turns=max_turns or config.max_turns or turn_limit(interactive=interactive),
            history=plan.history,
            instructions=with_environment(project.prompt(), environment, sandbox.record),
            signals_call_done=adapter.signals_call_done,
            can_prefill=adapter.can_prefill,
            compactor=compactor,
            prefill=None
            if offline or http is None
            else session_prefill(config, http, adapter, model_info, demo=demo),
            inbox=queue,
            carried=plan.carried,
            requests=requests,
            settle=settle,
            mode_pending=mode_pending,
            # a new session on auto whose server refuses tools[] goes on in the text
            fallback=get_mode(DEFAULT_MODE)
            if plan.mode == "auto" and new and not (demo or offline)
            else None,
            max_calls=config.max_calls,
            # the demo at full speed is one scripted burst whose story (and the tour's
            # recording) must be the same every run: read whole, never sliced
            slice_seconds=None if demo and demo_rate == 0 else SLICE_SECONDS,
            root=str(root),
        )
        if interactive:  # built off the screen's loop: the first request's imports too
            loop.mode.warm()
            if http is not None:
                http.warm()
        session = AgentSession(
            loop,
            events,
            session_id=session_id,
            workspace=root,
            model=plan.model,
            wire=plan.wire,
            resumed=plan.resumed,
            notes=notes,
            recovered=plan.recovered,
            recovery_notes=plan.recovery_notes,
            last_failure=plan.last_failure,
            instructions=project.files,
            reload_instructions=functools.partial(
                _reload_instructions, loop, root, config, environment, sandbox.record
            ),
            demo_prompts=[DEMO_TASK] if demo and not plan.history else [],
            patch_dialect=dialect,
            registry=registry,
            mcp=mcp,
            jobs=jobs,
            views=boundary.views,
            policy=policy,
            store=store,
            scrubber=scrubber,
            closers=[
                client.aclose,
                *(
                    []
                    if plan.resumed
                    else [functools.partial(_discard_if_empty, store, session_id)]
                ),
                store.close,
                lock.release,
                root.unpin,  # issue 21, item 9: the workspace pin
                # issue 26: the MCP servers, off the loop (a stuck one takes seconds to
                # stop), before the sandbox they run in
                *([] if mcp is None else [mcp.aclose]),
                jobs.close,  # before the sandbox whose files they use
                sandbox.close,  # issue 22: the sandbox's private temp folder
            ],
            rules_saver=lambda data: save_approvals(root, data),
            budget=budget,
            # ↑/↓ recall per workspace; every demo run is a fresh scratch copy, so one key
            prompt_history=PromptHistory.for_workspace(
                DEMO_KEY if demo else str(root), scrubber=scrubber
            ),
            queue=queue,
            notices=plan.notices,
            sandbox_label=sandbox.label,
            sandbox_active=sandbox.active,
            approvals=desk,
            after_edit=checks,
            formatters=boundary.formatters,
        )
        if approver is not None and answered:
            answer_with(session, approver)
        session.provider = config.provider
        session.settings = config
        if not demo and not offline:  # /checks trust (the project's checks)
            session.edit_hooks_loader = functools.partial(
                _edit_hooks, boundary, sandbox, events.emit
            )
        if not demo and not offline:  # /model (issue 23); the demo's model is scripted
            session.model_switcher = functools.partial(
                _switch_model, session, store, session_id, loop, compactor, scrubber
            )
            session.model_lister = functools.partial(_served_models, loop)
        on_error.pop_all()
        return session


async def _served_models(loop: AgentLoop) -> tuple[str, ...]:
    """What the loop's endpoint lists now (``/models``, asked once per client: the answer
    the window probe reads); a switch to another provider asks its own."""
    from frontier.app.model.served_models import listed_models
    from frontier.app.model.transport import ModelClient

    client = loop.client
    if not isinstance(client, ModelClient):
        return ()
    return tuple(listed_models(await client.probe_json("models")))


def _edit_hooks(
    boundary: ToolBoundary, sandbox: Sandbox, emit: Callable[[Event], None], notes: list[str]
) -> tuple[AfterEditChecks | None, Formatters | None]:
    """The enabled checks and formatters of config.toml (``[checks.NAME]``,
    ``[formatters.NAME]``) for this workspace and the project's trusted ones
    (``.frontier/checks.toml``), given to ``boundary`` as its after-hook and formatting
    step (``None``: none); ``notes``: the project file's problems and those waiting."""
    from frontier.app.checks_config import load_edit_settings
    from frontier.app.checks_project import session_edit_settings

    checks, formatters = session_edit_settings(
        Path(boundary.root), load_edit_settings(only_enabled=False), notes
    )
    hook = formatting = None
    if checks:
        from frontier.tools.after_edit import AfterEditChecks

        hook = AfterEditChecks(checks, boundary.root, sandbox, emit)
    if formatters:
        from frontier.tools.formatting import Formatters

        formatting = Formatters(formatters, boundary.root, sandbox)
    boundary.after_hook, boundary.formatters = hook, formatting
    return hook, formatting


def _start_mcp(
    registry: Registry,
    root: Path,
    sandbox: Sandbox,
    notes: list[str],
    scrubber: Scrubber,
    on_wait: Callable[[str], object] | None = None,
    background: bool = False,
) -> McpHost | None:
    """Start config.toml's enabled MCP servers and the project's trusted ones
    (``app/mcp_project.py``), their tools added to ``registry`` and kept current on
    ``list_changed`` (``None``: no server). Notes made later (a changed tool list) are
    kept on the host: ``/mcp`` shows them. ``background``: return at once, each server's
    tools joining ``registry`` as it starts, its notes told as ``Notice`` events. The
    servers' secrets join ``scrubber`` first (``server_secrets``): none of their tools'
    answers is stored, shown or sent with them — the model client redacts its requests
    with this same scrubber, however late its servers start."""
    from frontier.app.mcp_config import load_mcp_servers
    from frontier.app.mcp_project import session_servers
    from frontier.tools.mcp_servers import McpHost, server_secrets

    servers = session_servers(root, load_mcp_servers(), notes)
    if not servers:
        return None
    for server in servers:
        if server.enabled:
            scrubber.add(*server_secrets(server))
    host = McpHost(data_dir() / "mcp-logs", sandbox=sandbox, root=root)
    if background:
        host.launch(servers, registry)
        return host
    if on_wait is not None:
        enabled = [s for s in servers if s.enabled]
        if enabled:
            from frontier.app.mcp_status import servers_named

            names = servers_named([s.name for s in enabled])
            limit = max(s.startup_timeout for s in enabled)
            on_wait(f"waiting for {names} to start (up to {limit:g} s)")
    host.start(servers, registry)
    notes.extend(host.notes)
    return host


def _resumed(
    store: SessionStore,
    info: SessionInfo,
    config: Config,
    workspace: Path | None,
    protocol: str | None,
    demo: bool,
    offline: bool,
    notes: list[str],
) -> tuple[_Plan, bool]:
    """A stored session (already locked), reconciled: its history, what the model never
    saw (with the calls they answer; undo notices apart), its wire unless ``--wire``
    names another (the history is typed, so any wire can continue it)."""
    model = config.model or info.model
    base_url = config.base_url or info.base_url
    if not offline and not config.base_url and base_url and REDACTED in base_url:
        raise ValueError(
            f"session {info.id}'s base URL carried credentials, which are never "
            f"stored ({base_url}); resume it with --base-url URL again"
        )
    demo = demo or base_url == DEMO_BASE_URL
    root = _resumed_root(store, info, workspace, demo, notes)
    from frontier.app.session.recover import recover

    # reconciled results go to the model; what no result reports (a journal row refused or
    # acted on for a call awaiting none) is told to the person, as a session note
    recovery = recover(store.ledger, info.id, BeneathFiles(root))
    notes.extend(recovery.notes)
    pairs: list[tuple[ToolCall | None, ToolResult]] = store.undelivered(info.id)
    results = [result for _, result in pairs]
    if any(r.name == UNDO_TOOL and _is_rewind(r.meta.get("undo")) for r in results):
        from frontier.app.agent.rewind import conversation_stored  # a /rewind's files

        rest, notices = split_undone(results, conversation_stored(store, info.id))
    else:
        rest, notices = split_undone(results)
    kept = {id(result) for result in rest}
    carried = [Carried(call, result) for call, result in pairs if id(result) in kept]
    wire = config.wire if config.wire != "auto" and not demo else info.wire
    plan = _Plan(
        root,
        model,
        base_url,
        wire,
        protocol or info.mode,
        resumed=True,
        session_id=info.id,
        history=store.load_items(info.id),
        carried=carried,
        notices=notices,
        recovered=list(recovery.results),
        recovery_notes=list(recovery.notes),
    )
    from frontier.app.agent.job_notice import ended_jobs_notice
    from frontier.app.agent.rewind import undelivered_notice

    if (rewound := undelivered_notice(store, info.id)) is not None:
        plan.notices.append(rewound)  # a "conversation only" /rewind's, not yet told
    if (ended := ended_jobs_notice(plan.history)) is not None:  # none runs after a resume
        plan.notices.append(ended)
    if info.state == "failed":  # said live, and gone with the process unless said again
        plan.last_failure = last_failure(plan.history)
        if plan.last_failure is None:  # no marker: a limit ended it, which nothing keeps
            notes.append(
                "the last turn stopped before the model finished: it reached its limit of "
                "requests or of repairs"
            )
    return plan, demo


def _reload_instructions(
    loop: AgentLoop,
    root: Path,
    config: Config,
    environment: Environment | None,
    sandbox: SandboxRecord,
) -> ProjectInstructions:
    """``/memory``: the project's instruction files read again into the loop's system
    prompt, with the environment's facts as the session started with them."""
    project = load_instructions(root) if config.instructions else NO_INSTRUCTIONS
    loop.instructions = with_environment(project.prompt(), environment, sandbox)
    return project


# --------------------------------------------------------------------------- /model


async def _switch_model(
    session: AgentSession,
    store: SessionStore,
    session_id: str,
    loop: AgentLoop,
    compactor: Compactor | None,
    scrubber: Scrubber,
    model: str,
    provider: str | None,
) -> ModelSwitched:
    """``AgentSession.switch_model``: a client for ``model`` (at ``provider``'s endpoint
    when named, else the session's) through the wire registry, given to the loop with
    the new model's context budget, and recorded in the session so a resume uses it.
    Nothing changes when the client cannot be made (an unset key, an unknown provider).
    Without a provider the endpoint is the one the session speaks to *now*
    (``session.settings``): after ``/model M --provider P``, ``/model M2`` stays at P's."""
    assert session.settings is not None  # set by create_runtime with the switcher
    switched = _switched_config(session.settings, model, provider)
    info = known(model)
    wire = resolve_wire(switched.wire, switched.base_url, info)
    plan = _Plan(Path(), model, switched.base_url, wire, loop.mode.name)
    notes: list[str] = []
    client, adapter, http = _open_client(
        switched,
        plan,
        info,
        demo=False,
        demo_rate=0.0,
        offline=False,
        mode=loop.mode.name,
        scrubber=scrubber,
        notes=notes,
    )
    budget = context_budget(switched, http, info, demo=False)
    prefill = None if http is None else session_prefill(switched, http, adapter, info, demo=False)
    try:
        store.catalogue.set_model(session_id, model, switched.base_url, wire)
    except Exception:
        await client.aclose()
        raise
    old = loop.client
    loop.use_client(
        client,
        signals_call_done=adapter.signals_call_done,
        can_prefill=adapter.can_prefill,
        prefill=prefill,
    )
    if compactor is not None:
        compactor.budget = budget
    with contextlib.suppress(Exception):  # closing the old pool is tidying, not the switch
        await old.aclose()
    from frontier.app.session.catalogue import sanitize_url

    return ModelSwitched(
        model,
        wire,
        switched.provider,
        sanitize_url(switched.base_url),
        budget,
        client.aclose,
        tuple(notes),
        switched,  # its wire as asked (``auto`` re-resolved for the next switch's model)
    )


def _switched_config(config: Config, model: str, provider: str | None) -> Config:
    """The settings for the new client: the session's own with ``model``, or — with a
    provider named — that provider's endpoint, wire, key source and limits (config.toml's
    ``[providers.NAME]`` or a built-in). The old model's window is not kept: the server
    or the catalogue says the new one's."""
    import os

    from frontier.app.config import expand_headers, load_providers, sdk_base_url

    if provider is None:
        return replace(config, model=model, context_window=None)
    providers = load_providers()
    chosen = providers.get(provider)
    if chosen is None:
        raise ValueError(
            f"unknown provider {provider!r}; known: {', '.join(sorted(providers))} "
            "(define others as [providers.NAME] in config.toml)"
        )
    key_env = chosen.key_env
    api_key = os.environ.get(key_env) if key_env else None
    from_sdk = sdk_base_url(chosen)
    return replace(
        config,
        model=model,
        provider=chosen.name,
        base_url=from_sdk[0] if from_sdk else chosen.base_url,
        base_url_from=from_sdk[1] if from_sdk else "",
        headers=expand_headers(chosen.name, chosen.headers),
        wire=chosen.wire or "auto",
        key_env=key_env,
        api_key_command=chosen.key_command,
        api_key_file=chosen.key_file,
        api_key=api_key or None,
        api_key_from=f"${key_env}" if api_key else "",
        connect_timeout=chosen.connect_timeout or config.connect_timeout,
        first_byte_timeout=chosen.first_byte_timeout or config.first_byte_timeout,
        idle_timeout=chosen.idle_timeout or config.idle_timeout,
        max_tokens=chosen.max_tokens,
        context_window=chosen.context_window,
    )
