"""``frontier replay SOURCE`` — recorded responses through the same panes.

A recording file, a capture (raw SSE, raw HTTP, HAR, a chunk log; ``-`` for stdin; ``FILE#N``:
``app/session/capture.py``, what was detected printed first on stderr) or
``SESSION#N`` is one response; ``SESSION`` plays every
response of the stored session in order (a ``PlaylistPlayer``). The TUI by
default (space pause, +/- speed, . byte, , line, n event, e error);
``--headless`` prints the events as text, or as JSON lines with ``--json``
(the same ``event_to_json`` form as ``transduce`` and ``run --json``).
Exit status: 0, 1 when the recording has a contract error (headless), 2 on
usage errors (missing file, bad speed, unreadable recording).

A recording is untrusted input: before it plays, every known secret in it is
masked in place across events (``record.scrub_recording``: same-length, so the
offsets shown stay true), and every printed line is scrubbed as a whole — then
written through ``safe_print`` / ``dumps``, so what the model or the file name holds
(ESC, C1, bidi overrides) is shown as escapes, never obeyed by the terminal.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from frontier.app.events import (
    CallReady,
    Confirmed,
    ContractError,
    Event,
    StreamBytes,
    event_to_json,
)
from frontier.app.frontends.terminal_text import dumps, safe_print
from frontier.app.replay_player import (
    PlaylistPlayer,
    ReplayPlayer,
    ReplaySource,
    parse_speed,
    protocol_warning,
    source_from_recording,
)
from frontier.app.secrets import Scrubber
from frontier.app.session.record import scrub_recording


class ReplaySourceError(Exception):
    """The replay source could not be resolved; the message says what to do."""


def load_replay(
    arg: str,
    protocol: str | None = None,
    *,
    wire: str | None = None,
    detected: list[str] | None = None,
) -> list[ReplaySource]:
    """Resolve ``RECORDING|CAPTURE|-|SESSION|SESSION#N`` to replay sources, oldest
    response first, with known secrets (the environment's keys, and those the capture's
    own requests carried) masked in place. ``protocol`` ``None`` or
    ``auto``: each response in the protocol it was streamed in (a capture's: detected,
    ``app/session/capture.py``). What was detected in a capture is appended to
    ``detected``."""
    from frontier.app.commands.check import SourceError, load_sources
    from frontier.app.session.capture import is_capture_arg

    if protocol == "auto":
        protocol = None
    learned: list[str] = []  # a HAR's own Bearer token, which the model may echo
    try:
        found = load_sources(arg, wire=wire, protocol=protocol, detected=detected, learned=learned)
    except SourceError as exc:
        if is_capture_arg(arg):
            raise ReplaySourceError(f"cannot read the recording: {exc}") from exc
        raise ReplaySourceError(
            f"{exc} (recordings are .jsonl files; `frontier sessions` lists stored sessions)"
        ) from exc
    if is_capture_arg(arg):  # a file's responses are named by the file, not its folder
        found = [(Path(name).name, rec) for name, rec in found]
    scrubber = Scrubber.from_env(*learned)
    return [
        source_from_recording(scrub_recording(rec, scrubber), protocol, name) for name, rec in found
    ]


def make_player(sources: list[ReplaySource], name: str = "") -> ReplayPlayer | PlaylistPlayer:
    """One response plays alone; a session's responses play in order as one playlist."""
    if len(sources) == 1:
        return ReplayPlayer(sources[0])
    return PlaylistPlayer(sources, name=name)


def _keys_from_the_terminal() -> None:
    """``… | frontier replay -``: the capture came on stdin and is read whole; the TUI's
    keys come from the controlling terminal, as ``less`` and ``fzf`` take theirs (no
    terminal: stdin stays the pipe and the TUI refuses as before)."""
    if sys.stdin.isatty() or not sys.stdout.isatty():
        return
    try:
        tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return
    os.dup2(tty, sys.stdin.fileno())
    os.close(tty)


def main(args: argparse.Namespace) -> int:
    if getattr(args, "last", False) or not args.source:
        from frontier.app.commands.session_pick import chosen

        if not args.source and not args.last:
            safe_print(
                "frontier replay: what to replay? give a recording, a capture or a session "
                "id (`frontier sessions` lists them), or --last for this directory's "
                "session used last",
                file=sys.stderr,
            )
            return 2
        picked = chosen("replay", args.source, True, Path("."))
        if picked is None:
            return 2
        args.source = picked
    try:
        speed = parse_speed(str(getattr(args, "speed", "1")))
        detected: list[str] = []
        sources = load_replay(
            args.source,
            getattr(args, "protocol", None),
            wire=getattr(args, "wire", None),
            detected=detected,
        )
    except (ReplaySourceError, ValueError) as exc:
        safe_print(f"frontier replay: {exc}", file=sys.stderr)
        return 2
    from frontier.app.commands.check import say_detected

    say_detected(detected)  # said first, on stderr: --json stays clean
    warning = protocol_warning(sources)
    if getattr(args, "headless", False):
        if warning is not None:  # stderr: --json keeps stdout one event per line
            safe_print(f"frontier replay: warning: {warning}", file=sys.stderr)
        as_json = bool(getattr(args, "json", False))
        status = 0
        scrubber = Scrubber.from_env()
        for source in sources:
            if len(sources) > 1 and not as_json:
                safe_print(f"── {source.name}")
            one = ReplayPlayer(source)
            status = max(status, print_events(one, as_json=as_json, scrubber=scrubber))
        return status
    from frontier.app.commands._agent_args import config_from_args, terminal_problem

    if args.source.partition("#")[0] == "-":
        _keys_from_the_terminal()
    problem = terminal_problem()
    if problem is not None:
        safe_print(
            f"frontier replay: the TUI needs a terminal ({problem}); print the events with "
            f"`frontier replay {args.source} --headless` (--json for JSON lines)",
            file=sys.stderr,
        )
        return 2
    player = make_player(sources, sources[0].name.rpartition("#")[0] or args.source)
    from frontier.app.frontends.tui.app import FrontierApp

    config = config_from_args(args)
    if config is None:
        return 2
    app = FrontierApp(config, player=player, speed=speed, detected=detected)
    return int(app.run() or 0)


def print_events(
    player: ReplayPlayer,
    *,
    as_json: bool,
    out: TextIO | None = None,
    scrubber: Scrubber | None = None,
) -> int:
    """Play the whole recording and print its events; 1 if it had a contract error.

    Each event is scrubbed before it is shortened for display (no partial key)."""
    out = out or sys.stdout
    scrubber = scrubber if scrubber is not None else Scrubber.from_env()
    failed = False
    for event in player.run_all():
        failed = failed or isinstance(event, ContractError)
        if as_json:
            safe_print(dumps(scrubber.scrub_obj(event_to_json(event))), file=out)
        elif not isinstance(event, StreamBytes):
            safe_print(describe(scrubber.scrub_obj(event)), file=out)
    return 1 if failed else 0


def describe(event: Event) -> str:
    """One readable line per event for ``--headless`` without ``--json``."""
    data = event_to_json(event)
    offset = data.pop("offset", None)
    kind = data.pop("type")
    where = f"{offset:>8,}" if isinstance(offset, int) else " " * 8
    if isinstance(event, Confirmed):
        return f"{where}  confirmed {event.kind:<5} {len(event.data):,} B {_short(event.data)}"
    if isinstance(event, CallReady):
        args = dumps(event.call.json_args())
        return f"{where}  call {event.call.id} {event.call.name} {_clip(args)}"
    if isinstance(event, ContractError):
        return f"{where}  ERROR {event.kind}: {event.message}"
    rest = " ".join(f"{k}={_clip(dumps(v))}" for k, v in data.items())
    return f"{where}  {kind} {rest}".rstrip()


def _short(data: bytes) -> str:
    return _clip(dumps(data.decode("utf-8", "replace")))


def _clip(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
