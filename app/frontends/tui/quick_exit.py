"""Textual's terminal driver, with an input thread that stops at once when the app exits.

Why: ``LinuxDriver`` reads the terminal on a thread that waits in ``select`` with a 0.1 s
timeout, and on exit (``disable_input``) sets an event and joins it. The thread sees the
event only when its wait ends, then waits 0.1 s more on an empty selector before it
returns: every quit spent up to 0.2 s there (0.21 s measured from ``App.exit`` to the
app's unmount, of a 0.39 s quit). Here the thread also watches a pipe that
``stop_application_mode`` writes to first, so its wait ends at once; it then waits for the
exit event itself (set a moment later, in the same call), and returns without the extra
0.1 s. Everything else is Textual's: the same parser, the same messages, the same join, so
no key typed after the exit is taken from the shell — but for a bracketed paste, found
whole before the parser reads a character of it (``paste_split.py``: a 1.4 MB paste took
the parser 1.3 s).

Used only where Textual would use ``LinuxDriver`` (``FrontierApp.get_driver_class``); the
web driver of ``frontier serve`` and the tests' headless one are unchanged.
"""

from __future__ import annotations

import contextlib
import os
import selectors
from codecs import getincrementaldecoder

from textual import events
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver

from frontier.app.frontends.tui.paste_split import PasteSplitter

POLL = 0.1
"""Seconds of each wait for input, as Textual's: the parser's ``tick`` then turns a lone
Escape held that long into the Escape key."""
WAKE_WAIT = 1.0
"""Seconds the woken thread waits for the exit event (set microseconds after the wake)."""


class QuickExitDriver(LinuxDriver):
    """``LinuxDriver`` whose input thread is woken, not waited out, at exit."""

    _wake: int | None = None
    """The write end of the running input thread's wake pipe."""

    def stop_application_mode(self) -> None:
        wake, self._wake = self._wake, None
        if wake is not None:
            # the thread may have ended on an error and closed its end: then there is
            # nothing to wake, and the join below returns at once
            with contextlib.suppress(OSError):
                os.write(wake, b"!")
            os.close(wake)  # this end is ours: the thread never closes it
        super().stop_application_mode()

    def _sigcont_application(self, *_: object) -> None:
        """SIGCONT resumes application mode only after this driver's own suspend (ctrl+z,
        SIGTSTP). A terminal that hangs up sends SIGCONT right after SIGHUP: Textual's
        handler then restarted the mode on the dead terminal, an input thread with it,
        which read end-of-file forever and kept the quitting process alive."""
        if self._must_signal_resume:
            super()._sigcont_application()

    def run_input_thread(self) -> None:
        """Read the terminal and post what it says (as Textual's thread does) until the
        exit event; the wake pipe ends a wait at once."""
        wake_read, self._wake = os.pipe()
        fileno = self.fileno
        parser = XTermParser(self._debug)
        pastes = PasteSplitter()  # a paste is found whole, not parsed a character at a time
        # a byte that is not UTF-8 (a Latin-1 terminal's é, a binary paste) is U+FFFD:
        # Textual's strict decoder raised in this thread, and the app panicked, the
        # message being typed lost with it
        decode = getincrementaldecoder("utf-8")(errors="replace").decode
        selector = selectors.SelectSelector()
        selector.register(fileno, selectors.EVENT_READ)
        selector.register(wake_read, selectors.EVENT_READ)
        try:
            while not self.exit_event.is_set():
                woken = read = False
                for key, _ in selector.select(POLL):
                    if key.fd == wake_read:
                        woken = True
                        continue
                    read = True
                    data = os.read(fileno, 4096)
                    if not data:  # the terminal hung up: nothing more will come (no spin)
                        selector.unregister(fileno)
                        continue
                    text = decode(data)
                    for pasted, part in pastes.feed(text):
                        if pasted:
                            self.process_message(events.Paste(part))
                        else:
                            for message in parser.feed(part):
                                self.process_message(message)
                held = "" if read else pastes.flush()  # a poll with nothing read: release
                for message in parser.feed(held) if held else ():
                    self.process_message(message)
                for message in parser.tick():
                    self.process_message(message)
                if woken:  # the exit event is set next, in the same call
                    self.exit_event.wait(WAKE_WAIT)
        finally:
            selector.close()
            os.close(wake_read)
            # the parser's last partial sequence is dropped, as Textual drops it
            with contextlib.suppress(EOFError, ParseError):
                for _ in parser.feed(""):
                    continue


def quicker(found: type[Driver]) -> type[Driver]:
    """The driver to use where Textual chose ``found``: this one in place of its Linux
    driver, any other (the web driver of ``frontier serve``, Windows') as it is."""
    return QuickExitDriver if found is LinuxDriver else found
