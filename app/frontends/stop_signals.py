"""SIGTERM and SIGHUP stop Frontier the way a person's own stop does.

Left to their default, either signal ends the process where it stands (``kill PID``,
``timeout``, a CI job cancelled, a terminal window closed, a logout): a command that ran
has no result committed, so the session reads it as a crash ("outcome unknown") and the
model is told it was interrupted; the TUI leaves the terminal in the alternate screen with
mouse reporting on and the cursor hidden, so the shell it hands back prints escape codes
at every click until ``reset``.

Here the first signal starts the stop ctrl+c starts in ``frontier run`` and ctrl+q in the
TUI: the running commands are stopped and their ``cancelled`` results committed, the
store closed, the terminal restored. A second signal, or an orderly stop still not done
after :data:`DEADLINE` seconds, ends the process at once (:func:`os._exit`, after putting
the terminal's modes back): whoever sends it twice means it, and a stop that hangs on a
terminal that is gone must not leave a process behind holding the session's lock. That
end is the crash path ``frontier resume`` already reconciles.

A terminal that hung up (the window closed) can take no more output: writing to it fails,
which would break the stop halfway. So when a signal finds the terminal gone, standard
output and error are pointed at ``/dev/null`` first. A SIGHUP ignored when Frontier
started (``nohup``) stays ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import sys
import termios
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

from frontier.app.std_streams import silence

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
DEADLINE = 10.0
"""Seconds an orderly stop may take before the process ends without it. A running
command is killed within ``tools.process.KILL_GRACE`` and its output drained within
``DRAIN_AFTER_EXIT``; closing the store takes milliseconds."""

TERMINAL_RESET = (
    "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1015l\x1b[?1006l"  # mouse reporting off
    "\x1b[?2004l"  # bracketed paste off
    "\x1b[?1004l"  # focus reporting off
    "\x1b[?2048l"  # in-band resize reports off
    "\x1b[?7h"  # line wrap back on
    "\x1b[<u"  # the kitty keyboard protocol popped (before leaving the alternate screen)
    "\x1b[?1049l"  # the main screen back
    "\x1b[?25h"  # the cursor shown
)
"""What Textual's driver undoes when it stops, written whole and at once: the forced end
cannot wait for the driver's writer thread."""


_ACTIVE: list[StopSignals] = []
"""The front ends installed now, oldest first: each is told of a signal. More than one
runs at once only in tests (two headless runs on one loop)."""
_PREVIOUS: dict[int, Any] = {}
"""The handlers before the first of them, put back when the last is uninstalled."""


def _dispatch(signum: int, frame: FrameType | None) -> None:
    """Runs in the main thread between two bytecodes, even while the loop is busy."""
    for stop in tuple(_ACTIVE):
        stop.signalled(signum)


def signal_name(signum: int) -> str:
    return signal.Signals(signum).name


class StopSignals:
    """The process's SIGTERM and SIGHUP handlers while a front end runs.

    Construct it before the terminal changes mode (the TUI's modes are read then, to be
    put back by a forced end); :meth:`install` once the event loop runs, with what an
    orderly stop does; :meth:`uninstall` when the front end is done (the previous
    handlers come back)."""

    def __init__(self, *, terminal: bool = False) -> None:
        self.received: int | None = None
        """The first stop signal, once one came."""
        self._modes: tuple[int, list[Any]] | None = None
        if terminal:
            self._modes = _terminal_modes()
        self._timer: threading.Timer | None = None
        self._on_stop: Callable[[], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def why(self) -> str:
        """``stopped by SIGTERM`` once a signal came (the turn's end and the last line on
        stderr say it), else ``""``."""
        return "" if self.received is None else f"stopped by {signal_name(self.received)}"

    @property
    def exit_status(self) -> int | None:
        """128 + the signal, as a shell reports a process it ended; ``None`` without one."""
        return None if self.received is None else 128 + self.received

    def install(self, on_stop: Callable[[], None]) -> None:
        """From the running event loop's thread (the main one): ``on_stop`` is called on
        that loop when the first signal comes."""
        if threading.current_thread() is not threading.main_thread():
            return  # only the main thread may set handlers (a front end run by a test's thread)
        self._loop = asyncio.get_running_loop()
        self._on_stop = on_stop
        if not _ACTIVE:
            for signum in STOP_SIGNALS:
                if signal.getsignal(signum) is signal.SIG_IGN:
                    continue  # nohup: the person asked for it to be ignored
                _PREVIOUS[signum] = signal.signal(signum, _dispatch)
        _ACTIVE.append(self)

    def uninstall(self) -> None:
        """The previous handlers back. The deadline is called off only when no signal
        came: after one the process is ending, and nothing (a thread still reading a
        terminal that is gone) may keep it alive past :data:`DEADLINE`."""
        if self._timer is not None and self.received is None:
            self._timer.cancel()
            self._timer = None
        if self in _ACTIVE:
            _ACTIVE.remove(self)
            if not _ACTIVE:
                for signum, handler in _PREVIOUS.items():
                    signal.signal(signum, handler)
                _PREVIOUS.clear()

    def signalled(self, signum: int) -> None:
        """A stop signal came: the first starts the orderly stop, a second ends at once.

        Called in a signal handler, which may have interrupted the main thread anywhere,
        inside ``threading``'s or the import system's own locks included: so nothing
        here takes a Python lock (no thread started, no import); the rest is done on the
        loop (:meth:`_begin`)."""
        if self.received is not None:
            self._end(signum)
        self.received = signum
        _quiet_if_terminal_gone()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._begin, signum)

    def _begin(self, signum: int) -> None:
        """On the loop: the deadline armed, then the orderly stop."""
        self._timer = threading.Timer(DEADLINE, self._end, (signum,))
        self._timer.daemon = True
        self._timer.start()
        if self._on_stop is not None:
            self._on_stop()

    def _end(self, signum: int) -> None:
        """The forced end: the terminal's modes back, then exit without cleaning up."""
        if self._modes is not None:
            _restore_terminal(self._modes)
        with contextlib.suppress(OSError):  # nowhere left to say it
            os.write(2, f"\nfrontier: stopped at once by {signal_name(signum)}\n".encode())
        os._exit(128 + signum)


def _terminal_modes() -> tuple[int, list[Any]] | None:
    """The controlling terminal's settings before the TUI changes them, or ``None``."""
    stdin = sys.__stdin__
    if stdin is None or not stdin.isatty():
        return None
    fd = stdin.fileno()
    try:
        return fd, termios.tcgetattr(fd)
    except termios.error:
        return None


def _restore_terminal(modes: tuple[int, list[Any]]) -> None:
    fd, attrs = modes
    with contextlib.suppress(termios.error):  # a terminal that hung up takes no settings
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    stderr = sys.__stderr__
    if stderr is not None:
        with contextlib.suppress(OSError, ValueError):  # gone, or closed: nothing to restore
            os.write(stderr.fileno(), TERMINAL_RESET.encode())


def _quiet_if_terminal_gone() -> None:
    """Point standard output and error at ``/dev/null`` when their terminal hung up, so
    the orderly stop's writes (the text form's lines, Textual's frames) cannot fail."""
    for fd in (1, 2):
        try:
            termios.tcgetattr(fd)
        except termios.error as exc:
            if exc.args[0] == errno.EIO:  # a terminal that hung up; else not a terminal
                silence(fd)
