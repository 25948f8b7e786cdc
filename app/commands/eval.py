"""``frontier eval``: experiments C (framings under truncation) and D (byte counts).

``frontier eval`` and ``frontier eval framings`` render one workload in every framing,
cut each rendering at the same relative points and compare what each framing leaves
executable, pending and changed (``frontier.app.evaluation.framings``).
``frontier eval counts SOURCE...`` judges every length-prefixed CTL argument of
recordings or stored sessions: declared vs arrived bytes, the signed miss, and
whether the next response repaired it (``frontier.app.evaluation.counts``).

Output: an aligned table (default) or ``--json``; ``--plot FILE`` writes the chart as
SVG/PNG and ``--tui`` shows it in the terminal (both need the ``plots`` extra).
Both forms are written through ``safe_print`` / ``dumps``: a workload's file name, a
session's call arguments and a recording's name are untrusted and reach the terminal as
escapes. Exit status: 0; 1 when a framing broke S1/S2 or its chunk sizes disagreed; 2 for a
usage error, an unreadable source or a missing optional library.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from frontier.app.evaluation.counts import CountsReport
from frontier.app.evaluation.framings import FramingsReport
from frontier.app.frontends.terminal_text import dumps, safe_print

if TYPE_CHECKING:
    from frontier.app.evaluation.workload import WorkCall

FRAMINGS_ONLY = ("calls", "session", "framings", "cuts", "every_byte", "chunk", "token")


class UsageError(Exception):
    """A bad combination or value of options; the message says which."""


class SourceProblem(Exception):
    """A source (workload file, session, recording) cannot be used; the message says why."""


def _int_list(text: str, flag: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UsageError(f"{flag} takes comma-separated whole numbers, e.g. 1,7,64") from None
    if not values or any(v < 1 for v in values):
        raise UsageError(f"{flag} takes whole numbers of at least 1 (got {text!r})")
    return values


def _framings_report(args: argparse.Namespace) -> FramingsReport:
    from frontier.app.evaluation import workload
    from frontier.app.evaluation.framings import DEFAULT_CHUNKS, DEFAULT_CUTS, run_framings
    from frontier.app.evaluation.render import FRAMINGS, TOKEN_CHARS

    if args.calls and args.session:
        raise UsageError("give the workload as --calls FILE or --session ID, not both")
    cuts = DEFAULT_CUTS if args.cuts is None else args.cuts
    token = TOKEN_CHARS if args.token is None else args.token
    if cuts < 1:
        raise UsageError(f"--cuts must be at least 1 (got {cuts})")
    if token < 1:
        raise UsageError(f"--token must be at least 1 (got {token})")
    chunks = DEFAULT_CHUNKS if args.chunk is None else _int_list(args.chunk, "--chunk")
    framings: tuple[str, ...] = FRAMINGS
    if args.framings:
        framings = tuple(f.strip() for f in args.framings.split(",") if f.strip())
        unknown = [f for f in framings if f not in FRAMINGS]
        if unknown or not framings:
            raise UsageError(
                f"--framings: unknown {', '.join(unknown) or 'empty list'}; "
                f"choose from {', '.join(FRAMINGS)}"
            )
    if (args.wire or args.protocol) and not (args.session and _is_file_source(args.session)):
        raise UsageError("--wire and --protocol are for a capture given as --session FILE")
    try:
        if args.calls:
            calls = workload.load_calls(args.calls)
            source = f"{args.calls}: "
        elif args.session and _is_file_source(args.session):
            calls = _capture_calls(args.session, args.wire, args.protocol)
            source = f"{args.session}: "
        elif args.session:
            calls = workload.session_calls(args.session)
            source = f"session {args.session}: "
        else:
            calls = workload.builtin_workload()
            source = "built-in workload, "
    except workload.WorkloadError as exc:
        raise SourceProblem(str(exc)) from exc
    from frontier.app.evaluation.render import RenderError

    try:
        return run_framings(
            calls,
            framings,
            cuts=cuts,
            every_byte=bool(args.every_byte),
            chunks=chunks,
            token=token,
            description=source + workload.describe(calls),
        )
    except RenderError as exc:
        raise SourceProblem(str(exc)) from exc


def _is_file_source(arg: str) -> bool:
    from frontier.app.session.capture import is_capture_arg

    return is_capture_arg(arg)


def _capture_calls(arg: str, wire: str | None, protocol: str | None) -> tuple[WorkCall, ...]:
    """``--session FILE``: the calls a recording or a capture's responses make, each
    read in its protocol (``wire``/``protocol`` override what is detected), oldest
    first — a real model's calls as the workload. What was detected is said first."""
    from frontier.app.commands.check import SourceError, load_sources, say_detected
    from frontier.app.cst.base import calls_of
    from frontier.app.cst.factory import make_transducer
    from frontier.app.evaluation.workload import WorkCall, WorkloadError
    from frontier.app.model.registry import codec

    detected: list[str] = []
    try:
        found = load_sources(arg, wire=wire, protocol=protocol, detected=detected)
    except SourceError as exc:
        raise WorkloadError(str(exc)) from exc
    say_detected(detected)
    calls: list[WorkCall] = []
    for _, rec in found:
        t = make_transducer(rec.mode, wire=codec(rec.wire))
        events = [*t.feed(rec.transducer_input()), *t.finish(rec.clean)]
        calls += [WorkCall(c.name, c.json_args()) for c in calls_of(events)]
    if not calls:
        raise WorkloadError(f"{arg}: its responses make no tool call")
    return tuple(calls)


def _counts_report(args: argparse.Namespace) -> CountsReport:
    from frontier.app.commands.check import SourceError, load_sources, say_detected
    from frontier.app.evaluation.counts import run_counts

    given = [
        f"--{name.replace('_', '-')}" for name in FRAMINGS_ONLY if getattr(args, name) is not None
    ]
    if given:
        raise UsageError(f"{given[0]} is for `frontier eval framings`, not counts")
    files: list[Any] = []
    sequences: list[tuple[str, list[Any]]] = []
    detected: list[str] = []
    try:
        for arg in args.sources:
            found = load_sources(arg, wire=args.wire, protocol=args.protocol, detected=detected)
            if Path(arg).is_file():  # recording files given together are one sequence
                files += found
            else:
                sequences.append((arg, found))
    except SourceError as exc:
        raise SourceProblem(str(exc)) from exc
    say_detected(detected)
    if files:
        name = files[0][0] if len(files) == 1 else f"{len(files)} recording files"
        sequences.insert(0, (name, files))
    return run_counts(sequences)


def main(args: argparse.Namespace) -> int:
    from frontier.app.evaluation.plot import MissingExtra, PlotError, plot_format, require
    from frontier.app.evaluation.report import (
        counts_json,
        counts_text,
        framings_json,
        framings_text,
    )

    try:
        if args.plot:
            plot_format(args.plot)
            require()  # say what to install before the experiment runs
        if args.tui:
            from frontier.app.frontends.eval_view import plot_widget_class

            plot_widget_class()
        counts = args.experiment == "counts"  # none given: framings
        report: FramingsReport | CountsReport = (
            _counts_report(args) if counts else _framings_report(args)
        )
    except (UsageError, SourceProblem, PlotError, MissingExtra) as exc:
        safe_print(f"frontier eval: {exc}", file=sys.stderr)
        return 2
    if args.json:
        value = framings_json(report) if isinstance(report, FramingsReport) else counts_json(report)
        safe_print(dumps(value, indent=2))
    else:
        text = framings_text(report) if isinstance(report, FramingsReport) else counts_text(report)
        safe_print(text, end="")
    sys.stdout.flush()
    if args.plot:
        from frontier.app.evaluation.plot import write_plot

        try:
            path = write_plot(report, args.plot)
        except (PlotError, MissingExtra) as exc:
            safe_print(f"frontier eval: {exc}", file=sys.stderr)
            return 2
        safe_print(f"chart written to {path}", file=sys.stderr)
    if args.tui:
        from frontier.app.frontends.eval_view import EvalApp

        EvalApp(report).run()
    failed = isinstance(report, FramingsReport) and not report.ok
    return 1 if failed else 0
