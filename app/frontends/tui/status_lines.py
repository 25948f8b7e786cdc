"""The text of ``/status`` and ``/context``: the session's facts on one screen.

``/status`` (Codex's) answers "what am I running": the session, model, wire, protocol,
approval, sandbox, how full the context is and the tokens spent, the instruction files,
the MCP servers and jobs, where the session is stored. ``/context`` (Claude Code's)
answers "what fills the window": the next request part by part
(``agent/context_report.py``), each with its tokens and its share of the window, the
largest tool results by name. Lines, not widgets: the Transcript keeps them (copyable).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from frontier.app.agent.budget import ASSUMED
from frontier.app.listing import listing
from frontier.app.vocab import APPROVAL_MEANINGS
from frontier.widgets.progress import count_text

if TYPE_CHECKING:
    from frontier.app.agent.context_report import ContextReport
    from frontier.app.agent.session import AgentSession
    from frontier.tools.after_edit import CheckSettings
    from frontier.widgets.progress import TurnProgress

LABEL_WIDTH = 22
"""Columns of a ``/context`` part's label (the longest built-in label fits)."""
RULES_SHOWN = 3
""""Always allow" rules named by ``/status`` (the palette lists every one)."""
WORTH_NAMING = 500
"""Tokens from which a tool result is named among the largest (smaller ones are noise)."""


def context_lines(report: ContextReport) -> list[str]:
    """``/context``: a head with the total, one line per part, the window's rest."""
    window = report.window
    head = f"/context · ≈ {count_text(report.used)} tokens in the next request"
    if window:
        head += f" of a {window:,}-token window ({_share(report.used, window)})"
        if report.threshold is not None:
            limit = int(window * report.threshold)
            head += (
                f" · compacted before a request passes {report.threshold:.0%} ({count_text(limit)})"
            )
    lines = [head]
    rows = [(p.label, p.tokens, p.detail) for p in report.parts]
    free = report.free
    if free is not None:
        rows.append(("free", free, "for the answer and what comes next"))
    for label, tokens, detail in rows:
        share = f"{_share(tokens, window):>5}" if window else ""
        text = f"  {label:<{LABEL_WIDTH}} {count_text(tokens):>6} {share}".rstrip()
        lines.append(f"{text}  {detail}" if detail else text)
    worth = [r for r in report.largest if r.tokens >= WORTH_NAMING]
    if worth:
        named = ", ".join(f"{r.call_id} {r.name} ({count_text(r.tokens)})" for r in worth)
        lines.append(f"largest tool results: {named} — /compact stubs old results")
    if window and report.source == ASSUMED:
        lines.append("the window's size is assumed (nobody said): --context-window N sets it")
    elif window:
        lines.append(f"the window's size: from {_source(report.source)}")
    else:
        lines.append("the window's size is not known yet: it is asked before the first request")
    if report.counted is not None:
        lines.append(
            f"the server counted {report.counted:,} prompt tokens for the last request; "
            "the parts are estimated from their bytes and scaled to the total"
        )
    else:
        lines.append(
            "estimated from bytes: the server has not counted a request yet (or the history "
            "was compacted since)"
        )
    return lines


def status_lines(
    session: AgentSession,
    progress: TurnProgress,
    report: ContextReport | None,
    *,
    config: Path,
) -> list[str]:
    """``/status``: the session's facts, one subject a line."""
    resumed = " (resumed)" if session.resumed else ""
    lines = [
        "/status",
        f"session {session.session_id}{resumed} · workspace {session.workspace}",
        f"model {session.model or '—'} · provider {session.provider or '—'} · wire "
        f"{session.wire} · protocol {session.mode} · effort {session.effort}",
        f"approval {session.approval}: {APPROVAL_MEANINGS.get(session.approval, '')}",  # type: ignore[call-overload]
        f"sandbox {session.sandbox_label}",
    ]
    rules = session.approval_rules
    if rules:
        from frontier.widgets.display import rule_text

        shown = listing(
            [rule_text(r.rule) for r in rules[:RULES_SHOWN]],
            RULES_SHOWN,
            sep="; ",
            total=len(rules),
        )
        lines.append(f"always allowed ({len(rules)}): {shown} — revoked from the palette (ctrl+p)")
    if report is not None:
        lines.append(status_line_context(report))
    if progress.usage_seen:
        cached = f" ({count_text(progress.tokens_cached)} cached)" if progress.tokens_cached else ""
        lines.append(
            f"tokens this run: {count_text(progress.tokens_in)} in{cached} · "
            f"{count_text(progress.tokens_out)} out"
        )
    else:
        lines.append("tokens this run: the server has reported no counts yet")
    sent = [f for f in session.instructions if f.in_prompt]
    lines.append(
        "instructions: "
        + ", ".join(f"{f.path} ({'whole' if f.status == 'full' else f.status})" for f in sent)
        if sent
        else "instructions: none in the system prompt (/memory writes AGENTS.md)"
    )
    lines.append(_mcp_line(session))
    lines.append(_checks_line(session))
    if session.formatters:
        lines.append(_formatters_line(session))
    jobs = session.running_jobs()
    lines.append(f"jobs: {len(jobs)} running (/jobs)" if jobs else "jobs: none running")
    store = session.store_path
    where = f"stored in {store}" if store is not None else "not stored"
    lines.append(f"{where} · settings {config}")
    return lines


def status_line_context(report: ContextReport) -> str:
    """``/status``'s line on the context: how full, of what window, and where it came from."""
    window = report.window
    of = f" of {window:,} ({_share(report.used, window)})" if window else ""
    if not window:
        source = ", the window not known yet (asked before the first request)"
    elif report.source == ASSUMED:
        source = ", window assumed (nobody said)"
    else:
        source = f", window from {_source(report.source)}"
    return f"context ≈ {count_text(report.used)} tokens{of}{source} — /context shows what fills it"


def _checks_line(session: AgentSession) -> str:
    """The after-edit checks (config.toml's ``[checks.NAME]``, the project's trusted)."""
    if not session.checks:
        return "after-edit checks: none ([checks.NAME] in config.toml; docs/checks.md)"
    said = [_one(c) for c in session.checks]
    state = "paused (/checks on)" if session.checks_paused else "run read-only after each edit"
    return "after-edit checks: " + "; ".join(said) + f" · {state}"


def _formatters_line(session: AgentSession) -> str:
    """The person's formatters (config.toml's ``[formatters.NAME]``)."""
    said = [_one(f) for f in session.formatters]
    state = "paused (/checks on)" if session.checks_paused else "run before each review"
    return "formatters: " + "; ".join(said) + f" · {state}"


def _one(c: CheckSettings) -> str:
    """A check or formatter: its name, its files, and the project's marked."""
    return f"{c.name} ({', '.join(c.files) or 'every file'}{', the project' if c.project else ''})"


def _mcp_line(session: AgentSession) -> str:
    host = session.mcp
    states = host.states() if host is not None else []
    if not states:
        return "MCP: no servers (/mcp)"
    said = [f"{st.name} {st.state} ({len(st.tools)} tools)" for st in states]
    return "MCP: " + "; ".join(said) + " (/mcp)"


def _source(source: str) -> str:
    """Where the window figure came from, in words (``ContextBudget.source``)."""
    return {
        "": "the settings",
        "config": "the settings (--context-window, FRONTIER_CONTEXT_WINDOW, config.toml)",
        "overflow": "the server's own error when a request was too long",
        "demo": "the demo's script",
    }.get(source, source)


def _share(tokens: int, window: int | None) -> str:
    if not window:
        return ""
    share = tokens / window
    return "<1%" if 0 < share < 0.01 else f"{share:.0%}"


__all__ = ["context_lines", "status_line_context", "status_lines"]
