"""The small vocabularies every layer names: protocol modes, approval policies, finish reasons.

One home each, so a mode added here is accepted by the CLI, the config, the agent
loop, the transducer factory and the demo alike, and a reader finds the list in
one place. The CLI parses its ``choices`` from here before any command runs, so
this module imports nothing but ``typing`` (``frontier --help`` stays fast) and
belongs to the bottom layer with ``events.py`` and ``wire/``: anything may import
it, it imports nothing of Frontier.

Result kinds are the event vocabulary's (``frontier.app.events.ResultKind``): a
``ToolResult`` carries them.
"""

from __future__ import annotations

TYPE_CHECKING = False
"""``typing`` is not imported at run time (~3 ms, a tenth of ``frontier --help``): the
``Literal`` types below exist for the type checker, and for code that names one at run
time :func:`__getattr__` builds it from its tuple."""
if TYPE_CHECKING:
    from typing import Literal

# --------------------------------------------------------------------- protocol modes

if TYPE_CHECKING:
    AgentMode = Literal["native-eos", "native-inc", "ctl", "ctl-heredoc", "xml"]
"""The five protocol modes an agent session runs in (DESIGN §4, ``--protocol``)."""
AGENT_MODES: tuple[AgentMode, ...] = (
    "native-eos",
    "native-inc",
    "ctl",
    "ctl-heredoc",
    "xml",
)
"""In the order the CLI and the error messages list them."""
DEFAULT_MODE: AgentMode = "ctl-heredoc"
"""The mode a session runs in when nothing says the model has native tools (and the
demo's, the tour's and teaching's mode)."""

PROTOCOL_SETTINGS: tuple[str, ...] = ("auto", *AGENT_MODES)
"""Values of the ``protocol`` setting (``--protocol``, ``FRONTIER_PROTOCOL``, config):
a mode, or ``auto`` — native-inc where the model catalogue or the server says the model
has native tools, :data:`DEFAULT_MODE` otherwise (``app/model/catalogue.py``
``resolve_protocol``). A session stores the concrete mode, never ``auto``."""
DEFAULT_PROTOCOL_SETTING = "auto"

if TYPE_CHECKING:
    ProtocolName = Literal[
        "ctl", "ctl-heredoc", "native-eos", "native-inc", "json-whole", "json-object", "xml"
    ]
"""What a transducer can read (``frontier transduce --protocol``, ``check``): the five
modes plus the two JSON baselines, which exist for experiments, never for a session."""
PROTOCOLS: tuple[ProtocolName, ...] = (
    "ctl",
    "ctl-heredoc",
    "native-eos",
    "native-inc",
    "json-whole",
    "json-object",
    "xml",
)
BASELINES: tuple[ProtocolName, ...] = ("json-whole", "json-object")

NATIVE_MODES: tuple[AgentMode, ...] = ("native-eos", "native-inc")
"""Calls arrive as SSE ``delta.tool_calls`` (the request sends ``tools[]``); the
transducer reads the SSE body rather than assistant text."""
CTL_MODES: tuple[AgentMode, ...] = ("ctl", "ctl-heredoc")
"""Calls are CTL frames in the assistant text; the two differ only in what the
system prompt teaches."""
EAGER_MODES: tuple[AgentMode, ...] = ("ctl", "ctl-heredoc", "native-inc")
"""A call runs the moment it is confirmed, while the stream is still read; in the
others (native-eos, xml) every call of a response waits for the stream to end."""

# --------------------------------------------------------------------- wires

if TYPE_CHECKING:
    Wire = Literal["openai-chat", "openai-responses", "anthropic-messages"]
"""The model APIs Frontier speaks (DESIGN §4a, ``--wire``): each has one adapter in
``app/model/wires/``."""
WIRES: tuple[Wire, ...] = (
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
)
DEFAULT_WIRE: Wire = "openai-chat"
"""What a recording or session from before wires were named was spoken over."""
WIRE_SETTINGS: tuple[str, ...] = ("auto", *WIRES)
"""Values of the ``wire`` setting (``--wire``, ``FRONTIER_WIRE``, config, a provider's
``wire``): a wire, or ``auto`` — by the base URL's host, then the model catalogue
(``app/model/catalogue.py`` ``resolve_wire``)."""
DEFAULT_WIRE_SETTING = "auto"
WIRE_ALIASES: dict[str, str] = {
    "chat": "openai-chat",
    "openai": "openai-chat",
    "responses": "openai-responses",
    "anthropic": "anthropic-messages",
    "messages": "anthropic-messages",
}
"""Short names a person types for a wire (``--wire anthropic``), read as the wire's own."""


def wire_setting(text: str) -> str:
    """``text`` as a wire setting: a short name (:data:`WIRE_ALIASES`, any case) as its
    wire's, anything else as written (``--wire`` and the config check it then)."""
    word = text.strip()
    return WIRE_ALIASES.get(word.lower(), word.lower() if word.lower() in WIRE_SETTINGS else word)


# --------------------------------------------------------------------- approvals

if TYPE_CHECKING:
    Approval = Literal["ask", "auto-edit", "auto", "read-only"]
"""Who says yes before a mutation or a command runs (``--approval``;
``tools/policy.py`` says what each means)."""
APPROVALS: tuple[Approval, ...] = (
    "ask",
    "auto-edit",
    "auto",
    "read-only",
)
"""In the order shift+Tab cycles and the help lists them."""
DEFAULT_APPROVAL: Approval = "ask"
APPROVAL_MEANINGS: dict[str, str] = {
    "ask": "every edit and command is reviewed first",
    "auto-edit": "file edits run without asking; commands run without asking inside the "
    "sandbox (unless they destroy work no undo brings back: rm -rf, git clean), else "
    "they are reviewed",
    "auto": "everything runs without asking",
    "read-only": "edits and commands are refused; reads still run",
}
"""What each policy means, in one place: the help screen, ``--help``, the status bar's
toast when shift+Tab cycles, the ``/approval`` menu (``tools/policy.py`` enforces it)."""
assert set(APPROVAL_MEANINGS) == set(APPROVALS), "every approval policy says what it means"

if TYPE_CHECKING:
    ApprovalChoice = Literal["approve", "deny", "hunks", "always", "outside-sandbox"]
"""The answers an ``ApprovalRequested`` event may offer (``app/agent/approvals.py``)."""
APPROVAL_CHOICES: tuple[ApprovalChoice, ...] = (
    "approve",
    "deny",
    "hunks",
    "always",
    "outside-sandbox",
)

# --------------------------------------------------------------------- sandbox

if TYPE_CHECKING:
    Sandbox = Literal["workspace-write", "read-only", "off"]
"""Where ``shell`` and ``python`` run (``--sandbox``, issue 22; ``tools/sandbox.py`` builds
it, ``docs/sandbox.md`` says what each allows): ``workspace-write`` — inside an OS sandbox
that may write only the workspace; ``read-only`` — inside one that may write nothing;
``off`` — unconfined, as before the sandbox."""
SANDBOXES: tuple[Sandbox, ...] = (
    "workspace-write",
    "read-only",
    "off",
)
"""In the order the CLI and the error messages list them (``tools/sandbox.py``
``SANDBOX_MODES`` is the same list; a test keeps them equal)."""
DEFAULT_SANDBOX: Sandbox = "workspace-write"

# --------------------------------------------------------------------- finish reasons

CLEAN_FINISH: tuple[str, ...] = ("stop", "tool_calls", "pause")
"""The stream ended normally: CTL's EOF sufficiency rules apply (DESIGN §3). ``pause``:
the server paused a long turn (Anthropic ``pause_turn``), nothing was cut."""
TRUNCATED_FINISH: tuple[str, ...] = ("length", "disconnect")
"""The stream was cut off (token limit, dropped or stalled connection): never EOF-sufficient;
unfinished calls are reported ``truncated`` (DESIGN §4)."""
FINISH_REASONS: tuple[str, ...] = (*CLEAN_FINISH, *TRUNCATED_FINISH, "content_filter", "error")
"""Every normalised ``finish_reason`` a response can end with (``app/model/stream.py``
says what each wire's words become); ``error`` is an error the server reported in the
stream, ``content_filter`` a refusal or the provider's filter."""


def is_clean(finish_reason: str | None) -> bool:
    """True when a response that ended this way may use the EOF sufficiency rules."""
    return finish_reason in CLEAN_FINISH


# --------------------------------------------------------------------- patch dialects

if TYPE_CHECKING:
    Dialect = Literal["unified", "codex"]
"""The two patch dialects apply_patch reads (both, always) and can teach."""
DIALECTS: tuple[Dialect, ...] = ("unified", "codex")
PATCH_FORMATS: tuple[str, ...] = ("auto", *DIALECTS)
"""Values of the ``patch_format`` setting: a dialect to teach, or ``auto`` (by model name).
Here, not in ``tools/``, because the CLI and the config name it before any tool loads."""

# --------------------------------------------------------------------- reasoning effort

REASONING_EFFORTS: tuple[str, ...] = ("auto", "low", "medium", "high")
"""Values of the ``reasoning_effort`` setting: how hard a reasoning model thinks before
it answers (``auto``: nothing is asked, the model's own default). Each wire says it in its
API's words (``model/wires``): Responses ``reasoning.effort``, Chat ``reasoning_effort``,
Messages a ``thinking`` budget."""

# --------------------------------------------------------------------- themes

THEME_NAMES: tuple[str, ...] = ("frontier-dark", "frontier-light", "frontier-contrast")
"""The TUI's themes (``--theme``, ``theme`` in config.toml). Named here because the CLI
and the config check a name before Textual loads; ``themes/palette.py`` defines them
and a test keeps the two lists equal. Only these are offered: each passes the contrast
check in ``tests/test_themes_contrast.py``."""
DEFAULT_THEME = "frontier-dark"

# --------------------------------------------------------------------- layouts

if TYPE_CHECKING:
    Layout = Literal["conversation", "split", "lab"]
"""How the TUI's main screen shares its room (``layout`` in config.toml,
``FRONTIER_LAYOUT``; docs/tui-layouts.md): ``conversation`` — the Transcript at full width
with a one-line CST strip; ``split`` — the Transcript beside the lab panes; ``lab`` —
every CST pane, for watching the boundary."""
LAYOUTS: tuple[Layout, ...] = (
    "conversation",
    "split",
    "lab",
)
"""In the order the layout key cycles them."""
DEFAULT_LAYOUT: Layout = "conversation"
"""A live session's layout until the user picks another (demo, tour, replay and serve
open in ``lab`` whatever is remembered)."""

# --------------------------------------------------------------------- notifications

NOTIFY_SETTINGS: tuple[str, ...] = ("auto", "osc9", "bell", "off")
"""How the TUI calls a person back from another window when a review waits or a turn
ends (``notify`` in config.toml, ``FRONTIER_NOTIFY``; ``app/frontends/tui/attention.py``):
``auto`` — a desktop notification (OSC 9) where the terminal is known to show one, else
the bell; ``osc9``; ``bell``; ``off``."""
DEFAULT_NOTIFY = "auto"

# --------------------------------------------------------------------- reply markers

FAILED_CUT = "[Reply failed: "
"""How the marker of a reply that failed begins (``conversation.failed_cut``, what the model
is told): the store finds a failed turn by it (``Timeline.failures``) without decoding the
history, and without importing it (``frontier export`` starts fast)."""


_LITERALS: dict[str, tuple[str, ...]] = {
    "AgentMode": AGENT_MODES,
    "ProtocolName": PROTOCOLS,
    "Wire": WIRES,
    "Approval": APPROVALS,
    "ApprovalChoice": APPROVAL_CHOICES,
    "Sandbox": SANDBOXES,
    "Dialect": DIALECTS,
    "Layout": LAYOUTS,
}
"""Each ``Literal`` type's values, for :func:`__getattr__` (``tests/test_vocab.py`` checks
that each tuple holds exactly its type's values, as written for the type checker)."""


def __getattr__(name: str) -> object:
    """A ``Literal`` type named at run time (``get_args(Approval)``, a record field's
    type): built from its values on first use, then kept."""
    values = _LITERALS.get(name)
    if values is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Literal

    made = Literal[values]  # type: ignore[valid-type]  # values known at run time only
    globals()[name] = made
    return made
