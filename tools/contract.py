"""The contract between the agent loop and the tools (DESIGN §5).

Declarations, previews, approvals and the persistence interface are plain
values and Protocols here so the loop, the session store and the TUI can meet
without importing each other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple, Protocol, runtime_checkable

from frontier.app.events import Event, ToolCall, ToolResult
from frontier.app.record import field, record

if TYPE_CHECKING:
    from frontier.tools.base import CancelToken
    from frontier.tools.file_views import Views
    from frontier.tools.jobs import Jobs
    from frontier.tools.sandbox import Sandbox


@record
class ToolSpec:
    """One tool's declaration; the registry generates prompts and schemas from it."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    """JSON schema (``{"type": "object", "properties": ..., "required": [...]}``)."""
    sequential: bool = False
    """Must run alone (not concurrently with other calls of a batch)."""
    mutates: bool = False
    """Changes files or the world: needs the gate (approval) and pre/post hashes."""
    timeout: float = 60.0
    terminates: bool = False
    """A successful call ends the batch."""
    kind: Literal["read", "edit", "exec"] = "read"
    """Policy class: ``edit`` = file mutation (diff review), ``exec`` = shell/python."""
    enforces_timeout: bool = False
    """The tool kills its own work at the call's ``timeout`` argument (which may exceed
    ``timeout`` here: shell, python), so the boundary does not bound execute again."""
    internal: bool = False
    """Run for the user through the boundary (``undo``), never offered to the model: its
    review offers no "always allow" rule (the rule would approve the *model's* calls)."""
    source: str = "builtin"
    """Where the tool comes from: ``builtin``, or ``mcp`` (a server's tool, issue 26: asked
    under every policy but ``auto``)."""
    offered: bool = True
    """In the tool list every request sends. A tool not offered still runs when a model
    calls it by a name it was trained with (``plan``: Codex's ``update_plan``, Claude
    Code's ``TodoWrite``), costing no tokens in requests of models that never do."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Other names models send for a parameter (``file_path`` for ``path``: the names of
    the tools they were trained with), taken as that parameter (``tools/schema.py``)."""


MCP_SEPARATOR = "__"
"""An MCP tool is named ``SERVER__tool``: the server's name, then the tool's own."""
MCP_SERVER_NAME = r"[a-z0-9](?:[a-z0-9_-]{0,30}[a-z0-9-])?"
"""What a server's name may be (config tables, tool names, rules); never holding ``__``
nor ending in ``_``, so the first ``__`` of ``SERVER__tool`` is the separator: a server
``a_`` made ``a___echo``, which server ``a``'s ``a__*`` rule approved and whose refresh
dropped (and server ``a``'s tool ``_echo`` had the same name)."""
MCP_TOOL_NAME = r"[A-Za-z0-9_-]{1,64}"
"""The tool's part of ``SERVER__tool`` as the model sees it (and a rule names it); a
server's own name that does not fit is made to (``tools/mcp_names.py``)."""


class DiffLine(NamedTuple):
    """One line of a reviewed hunk, as the file has it (context) or will have it (added).

    A ``NamedTuple`` (immutable, like a frozen dataclass) because a large patch's preview
    holds tens of thousands of them and is built between the confirming byte and the tool
    starting: a tuple is built several times faster."""

    sign: Literal[" ", "-", "+"]
    text: str
    """The line without its line ending (a CRLF line's ``\\r`` is dropped for display)."""
    old_no: int | None
    """1-based line number in the old file (context and removed lines)."""
    new_no: int | None
    """1-based line number in the new file (context and added lines)."""
    no_newline: bool = False
    """The file's last line, with no newline after it (``\\ No newline at end of file``)."""


@record
class PreviewHunk:
    """One hunk of the review: the unit a person can accept or decline (DESIGN §5).

    Computed by the core from the exact old and new bytes (3 lines of context, as
    ``diff -u``), so declining it writes exactly its old lines back.
    """

    index: int
    """1-based position among its file's hunks ("hunk 2/5")."""
    old_start: int
    """1-based first old line shown (``@@ -old_start,old_count``; 0 when ``old_count`` is 0)."""
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[DiffLine, ...]
    span: tuple[int, int, int, int]
    """0-based half-open line ranges ``(i1, i2, j1, j2)``: old ``[i1, i2)`` becomes new
    ``[j1, j2)``; what is outside every hunk is identical on both sides."""
    notes: tuple[str, ...] = ()
    """How the patch engine located the patch hunks shown here (moved, matched loosely)."""
    depends_on: tuple[int, ...] = ()
    """Indices of earlier hunks of this file whose changed lines this hunk's patch context
    was matched against: declining one of them declines this one too."""

    @property
    def header(self) -> str:
        old = _range(self.old_start, self.old_count)
        return f"@@ -{old} +{_range(self.new_start, self.new_count)} @@"

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.sign == "+")

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.sign == "-")


def _range(start: int, count: int) -> str:
    return str(start) if count == 1 else f"{start},{count}"


@record
class FilePreview:
    """One file as a mutation would change it; what the review widget shows."""

    path: str
    """Workspace-relative path (POSIX separators)."""
    old_text: str | None
    """The text the diff starts from (for a move, the source file's); ``None`` = absent."""
    new_text: str | None
    """``None`` when the mutation deletes the file."""
    diff: str
    """Unified diff (``--- a/path`` / ``+++ b/path``)."""
    old_hash: str | None
    """sha256 hex of the bytes at ``path`` as previewed (``None`` = absent)."""
    new_hash: str | None
    """sha256 hex of the bytes that will be written (``None`` = deleted)."""
    added: int = 0
    removed: int = 0
    hunks: tuple[PreviewHunk, ...] = ()
    old_mode: int | None = None
    """Permission bits before (``None`` = absent or unknown)."""
    new_mode: int | None = None
    """Permission bits after; differs from ``old_mode`` for a mode change."""
    moved_from: str | None = None
    """Set when the file is renamed here from another path (the diff is from that file)."""
    moved_to: str | None = None
    """Set on the source of a rename: the file leaves this path (its content is shown at
    ``moved_to``; this entry has no hunks)."""
    old_bytes: bytes | None = field(default=None, repr=False, compare=False)
    """The exact bytes ``old_hash`` hashes (``None``: absent, or not carried). The call row
    keeps them as the mutation's pre-image (``app/session/preimages.py``), what an undo
    puts back; never shown."""

    @property
    def action(self) -> Literal["create", "delete", "modify", "move"]:
        if self.moved_from is not None or self.moved_to is not None:
            return "move"
        if self.old_text is None:
            return "create"
        return "delete" if self.new_text is None else "modify"


@record
class Preview:
    """What the approver is shown: file diffs for mutations, the command for exec."""

    kind: Literal["diff", "command", "none"]
    files: tuple[FilePreview, ...] = ()
    command: str | None = None
    summary: str = ""
    sandbox: str | None = None
    """For a command: where it will run — the sandbox's label (``workspace-write · net
    off``) when inside, ``None`` when outside (sandbox off, unavailable, or escalated)."""
    escalation: str | None = None
    """Set when the person is asked to run a command *outside* the sandbox after the
    sandbox stopped it: what the sandbox refused (``tools/sandbox.py`` ``stopped_by``)."""
    destroys: str | None = None
    """For a command that destroys work no undo brings back (``tools/destructive.py``):
    what, said for the person (```rm -rf src` deletes files``); the review shows it and
    ``--approval auto-edit`` asks for it even inside the sandbox."""
    protected: tuple[str, ...] = ()
    """For a change: its files that are protected paths (``.git``, ``.frontier``: git runs
    what they say), each as shown, with the file it reaches through a link (``x (reaches
    .git/hooks/pre-commit)``; ``tools/policy.py``). Changed only after a person sees this:
    an approval given unseen (``frontier undo --yes``) never covers them."""
    runs_for: str = ""
    """For a command whose call sets how long it runs: ``as a background job, no time
    limit`` or ``for up to 3600 s (usually 120 s)``, said beside where it runs: the
    person approves how long it may run, not only its words."""


@record
class Decision:
    approved: bool
    reason: str = ""
    by: str = "the user"
    """Who decided, for the message the model reads (``the user``, ``policy read-only``)."""
    declined: tuple[tuple[str, int], ...] = ()
    """With ``approved``: the ``(path, hunk index)`` pairs the person declined in the review
    (``PreviewHunk.index``); only the other hunks are written, and ``reason`` says why."""
    edited: tuple[tuple[str, bytes], ...] = field(default=(), repr=False)
    """With ``approved``: ``(path, content)`` of each file the person rewrote in the
    review's editor (``tools/review_edit.py``): written instead of the model's version;
    ``declined`` then counts the hunks of the diff to *their* version."""
    unanswered: str | None = None
    """Set when refused only because it needed a person and nobody could be asked
    (headless without a terminal): the setting that would allow it (``--approval
    auto-edit``, ``--sandbox off``), ``""`` when none can. The boundary keeps it in the
    denied result's ``meta["unanswered"]``, so a front end need not parse the reason."""


@record
class ApprovalRequested(Event):
    """A call needs a person's answer before it may run (issue 23: approvals are session
    events). Every front end gets it like any other event and answers with
    ``AgentSession.answer(request_id, ...)``; the call waits, the stream goes on.

    ``choices`` say which answers apply (``app/vocab.py`` ``APPROVAL_CHOICES``): always
    ``approve`` and ``deny``; ``hunks`` for a diff (some hunks declined), ``always`` when
    an "always allow" rule may be made, ``outside-sandbox`` when the sandbox stopped the
    command and the question is whether to run it once unconfined. It lives here, beside
    ``Preview`` and ``Decision``, because the vocabulary module imports nothing."""

    type: ClassVar[str] = "approval_requested"
    request_id: str
    call: ToolCall
    spec: ToolSpec
    preview: Preview
    choices: tuple[str, ...]

    def json_fields(self) -> dict[str, Any]:
        call, preview = self.call, self.preview
        return {
            "request_id": self.request_id,
            "id": call.id,
            "name": call.name,
            "args": call.json_args(),
            "tool_kind": self.spec.kind,
            "preview": preview.kind,
            "command": preview.command,
            "files": [f.path for f in preview.files],
            "sandbox": preview.sandbox,
            "escalation": preview.escalation,
            "destroys": preview.destroys,
            "choices": list(self.choices),
        }


@record
class ApprovalResolved(Event):
    """The question ``request_id`` is closed: answered, or withdrawn because the turn
    stopped (``withdrawn``; the call never runs). Front ends close what they showed."""

    type: ClassVar[str] = "approval_resolved"
    request_id: str
    call_id: str
    approved: bool
    reason: str = ""
    by: str = "the user"
    declined: tuple[tuple[str, int], ...] = ()
    withdrawn: bool = False
    edited: tuple[str, ...] = ()
    """The files the person rewrote in the review (``Decision.edited``'s paths)."""

    def json_fields(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "id": self.call_id,
            "approved": self.approved,
            "reason": self.reason,
            "by": self.by,
            "declined": [list(pair) for pair in self.declined],
            "withdrawn": self.withdrawn,
            "edited": list(self.edited),
        }


class Approver(Protocol):
    """Asked before every mutation and exec call (the TUI, a tty prompt, a policy)."""

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision: ...


class Persistence(Protocol):
    """The session store as the tool boundary sees it (DESIGN §7).

    Each method raises on failure; the boundary turns that into a
    ``session_persistence_failed`` result and ends the turn.
    """

    def persist_call(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        """Commit the call row (with pre/post hashes of target files) before any side effect."""
        ...

    def persist_and_start(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        """``persist_call`` and ``mark_started`` in one commit (one fsync less between
        confirmation and the tool starting): the boundary's path when execution follows
        at once. A store that cannot combine them may simply make both commits."""
        ...

    def mark_started(self, call_id: str) -> None:
        """Commit that execution is about to begin (distinguishes interrupted from not_executed)."""
        ...

    def commit_result(self, result: ToolResult) -> None:
        """Commit the result row before the model can see it."""
        ...

    def commit_rejected(self, call: ToolCall, result: ToolResult) -> None:
        """Commit the result of a call that never got a call row (rejected at prepare or
        gate, or left unrun by a stopped batch), keeping the call's arguments with it."""
        ...

    def journal(self, call_id: str) -> IntentJournal | None:
        """Where this call's multi-file writes record their intent before the first rename
        (``None``: this store keeps no journal)."""
        ...


@runtime_checkable
class KeepsPreimages(Protocol):
    """A store that keeps a mutation's pre-images off the confirm → start path (issue 24):
    the boundary calls this on a worker thread while the tool runs and awaits it before
    the result commits. A store without it keeps them in ``commit_result``."""

    def keep_preimages(self, call_id: str) -> None: ...


@runtime_checkable
class KeepsFound(Protocol):
    """A store that keeps the earlier content of files a tool found it changed only as it
    ran (a command's: ``Outcome.kept``, ``tools/command_changes.py``); the boundary calls it
    on a worker thread before the result commits. A store without it keeps none, and an
    undo of those changes says their content was not kept."""

    def keep_found(self, bodies: Mapping[str, bytes]) -> None: ...


class IntentJournal(Protocol):
    """Where a multi-file write records its intent durably before its first rename (DESIGN
    §5): after a crash, recovery finishes or undoes the write from these entries."""

    def begin(self, entries: Sequence[Mapping[str, Any]]) -> None:
        """Commit the plan durably: per target its path, temp, pre-image and both hashes.
        Raising aborts the write (nothing is renamed)."""
        ...

    def end(self, outcome: str) -> None:
        """Record that the write is over (``done``, ``rolled back``)."""
        ...


@runtime_checkable
class HoldsWatch(Protocol):
    """An intent journal that also keeps what a command's watch held before it ran
    (``tools/command_changes.py``: ``Watch.held``), so that after a crash while it ran
    recovery can still tell — and ``/undo`` put back — what it had changed. Closed with the
    call's result row."""

    def hold(self, record: Mapping[str, Any], bodies: Mapping[str, bytes]) -> None:
        """Commit ``record`` durably with ``bodies`` (sha256 → bytes) kept as pre-images
        are (scanned, capped, deduplicated), in one transaction. Raises when the store
        fails."""
        ...


OutputSink = Callable[[str, str], None]
"""``sink(call_id, text)``: live output of a running tool, for observers."""

BeforeHook = Callable[[ToolCall, ToolSpec], Awaitable[Decision | None]]
AfterHook = Callable[[ToolCall, ToolResult, "CancelToken"], Awaitable[ToolResult | None]]
"""Rewrites a finished call's result before it is committed (``tools/after_edit.py``); the
token is the call's: Esc stops what the hook runs."""


@record
class ToolContext:
    """Everything a tool may use: the workspace root and live-output sink."""

    root: str
    output: OutputSink | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra environment for child processes (API keys are never passed)."""
    journal: IntentJournal | None = None
    """The session's intent journal for this call's multi-file writes (``None``: none kept)."""
    sandbox: Sandbox | None = None
    """Where ``shell`` and ``python`` run (``tools/sandbox.py``): ``None`` — unconfined
    (``--sandbox off``, or one command the person approved to run outside)."""
    jobs: Jobs | None = None
    """The session's background jobs (``tools/jobs.py``): ``None`` where there are none
    (``frontier undo``, a tool run outside a session)."""
    views: Views | None = None
    """What the model last read or wrote of each file this session (``tools/file_views.py``):
    ``write`` refuses to overwrite a file changed since; ``None``: nothing is judged."""
