"""The TUI's terminal driver stops its input thread at once at exit (``quick_exit.py``):
Textual's waited out the thread's 0.1 s select and 0.1 s more, 0.2 s of every quit.

A real app on a pseudo-terminal, the driver's wait for input made endless: the app still
exits the moment ctrl+q is read, and leaves the terminal as it found it. Waits are for
states (a screen, an exit), bounded only against a hang."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pty_screen import on_a_pty, quit_with_ctrl_q, read_until

DEADLINE = 120.0
"""Seconds before the test gives up: far beyond a start on a loaded box."""


def app_argv(tmp_path: Path, source: str, columns: int = 80) -> tuple[list[str], dict[str, str]]:
    """``source`` as a script, and the environment of a terminal ``columns`` wide that
    leaves Textual to choose its driver (so the app's choice is what runs)."""
    script = tmp_path / "app.py"
    script.write_text(source)
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": "24"}
    env.pop("TEXTUAL_DRIVER", None)
    return [sys.executable, str(script)], env


APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static

    from frontier.app.frontends.tui import quick_exit

    quick_exit.POLL = 3600.0  # without the wake, the exit would wait an hour


    class Tiny(App[int]):
        BINDINGS = [("ctrl+q", "quit", "Quit")]
        def get_driver_class(self):  # as FrontierApp chooses it
            return quick_exit.quicker(super().get_driver_class())

        def compose(self):
            yield Static("ready-to-quit")

        def on_mount(self) -> None:
            assert isinstance(self._driver, quick_exit.QuickExitDriver), self._driver


    raise SystemExit(Tiny().run() or 0)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pseudo-terminal")
def test_ctrl_q_ends_the_app_without_waiting_out_its_input_thread(tmp_path: Path) -> None:
    with on_a_pty(*app_argv(tmp_path, APP)) as (pid, fd):
        deadline = time.monotonic() + DEADLINE
        read_until(fd, b"ready-to-quit", deadline)
        left = quit_with_ctrl_q(fd, deadline)
        left += read_until(fd, b"\x1b[?25h", deadline)  # the rest, to the terminal's end
        _, status = os.waitpid(pid, 0)  # an hour, were the thread waited out
        assert os.waitstatus_to_exitcode(status) == 0
        assert b"\x1b[?25h" in left  # the cursor shown again: the terminal restored


PASTE_APP = textwrap.dedent(
    """
    from textual import events
    from textual.app import App
    from textual.widgets import Static

    from frontier.app.frontends.tui import quick_exit


    class Pasted(App[int]):
        BINDINGS = [("ctrl+q", "quit", "Quit")]
        def get_driver_class(self):  # as FrontierApp chooses it
            return quick_exit.quicker(super().get_driver_class())

        def compose(self):
            self.seen = []
            yield Static("ready-to-paste", id="said")

        def on_key(self, event: events.Key) -> None:
            self.seen.append(f"key {event.key}")
            self.say()

        def on_paste(self, event: events.Paste) -> None:
            lines = event.text.split("\\n")
            self.seen.append(f"paste {len(lines)} lines ending {lines[-1]}")
            self.say()

        def say(self) -> None:
            self.query_one("#said", Static).update(" / ".join(self.seen) + " /end")


    raise SystemExit(Pasted().run() or 0)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pseudo-terminal")
def test_a_bracketed_paste_reaches_the_app_whole_between_the_keys_around_it(
    tmp_path: Path,
) -> None:
    """The driver takes a bracketed paste out whole before Textual's parser
    (``paste_split.py``), its markers cut across writes: the app gets the keys before and
    after it, and the paste between them, as Textual's parser posts them."""
    log = "\n".join(f"{n:04d} ERROR" for n in range(3_000))
    stream = f"a\x1b[200~{log}\x1b[201~b".encode()
    with on_a_pty(*app_argv(tmp_path, PASTE_APP, 100)) as (pid, fd):
        deadline = time.monotonic() + DEADLINE
        read_until(fd, b"ready-to-paste", deadline)
        end = stream.index(b"\x1b[201~")
        for part in (stream[:4], stream[4 : end + 3], stream[end + 3 :]):  # markers cut
            os.write(fd, part)
        said = b"key a / paste 3000 lines ending 2999 ERROR / key b /end"
        read_until(fd, said, deadline)
        quit_with_ctrl_q(fd, deadline)
        os.waitpid(pid, 0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pseudo-terminal")
def test_a_byte_that_is_not_utf8_is_a_replacement_character_not_a_crash(
    tmp_path: Path,
) -> None:
    """A Latin-1 terminal's ``é`` (``\\xe9``) or a binary paste: Textual's strict decoder
    raised in the input thread and the app panicked, a message being typed lost with it."""
    with on_a_pty(*app_argv(tmp_path, PASTE_APP, 100)) as (pid, fd):
        deadline = time.monotonic() + DEADLINE
        read_until(fd, b"ready-to-paste", deadline)
        os.write(fd, b"\xe9\x1b[200~caf\xe9\x1b[201~z")
        said = "key replacement_character / paste 1 lines ending caf\ufffd / key z /end"
        # (``read_until`` returns at the terminal's end too: a crashed app closes it)
        assert said.encode() in read_until(fd, said.encode(), deadline)
        quit_with_ctrl_q(fd, deadline)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
