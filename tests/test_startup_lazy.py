"""Commands a person waits for load only what they use (issue 24: the Python floor).

Each check runs the real entry point in a fresh interpreter and names the modules it must
not have loaded: a regression (an import moved back to the top of a module) shows here as
a module name, not as a slower benchmark nobody ran.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from regular_install import bare_env

from frontier.app.dirs import data_dir
from frontier.app.session.store import SessionStore

PROBE = """
import ast, sys
from frontier.app import cli
argv = ast.literal_eval(sys.argv[1])
try:
    code = cli.main(argv)
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
sys.stderr.write("@@" + repr(sorted(sys.modules)) + "\\n")
"""


def loaded(
    argv: list[str], xdg: Path | None = None, stdin: str | None = None, bare: Path | None = None
) -> tuple[set[str], str]:
    """The modules ``frontier ARGV`` has loaded when it returns, and what it printed;
    with ``xdg``, the data dir is found as a user's is (``XDG_DATA_HOME``), not by
    ``FRONTIER_DATA_DIR``; ``stdin`` is its standard input. With ``bare`` (a folder to
    lay the package out in), as a regular install runs it (``regular_install.py``)."""
    env = dict(os.environ) if bare is None else bare_env(bare)
    python = [sys.executable] if bare is None else [sys.executable, "-S"]
    if xdg is not None:
        env["XDG_DATA_HOME"] = str(xdg / "xdg-data")
        (xdg / "xdg-data").mkdir()
        os.symlink(data_dir(), xdg / "xdg-data" / "frontier")
        env.pop("FRONTIER_DATA_DIR", None)
    out = subprocess.run(
        [*python, "-c", PROBE, repr(argv)],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env=env,
    )
    line = next(x for x in out.stderr.splitlines() if x.startswith("@@"))
    return set(ast.literal_eval(line[2:])), out.stdout


HEAVY_STORE = {
    "frontier.app.session.store",
    "frontier.app.session.calls",
    "frontier.app.session.timeline",
    "frontier.app.events",
    "frontier.app.config",
    "frontier.app.secrets",
    "dataclasses",
    "platformdirs",
}
"""What listing sessions needs none of: the whole store façade, the event vocabulary, the
configuration module, the scrubbers (a reader writes nothing), ``dataclasses`` (with
``inspect``, ~5 ms) and platformdirs (found as it would find it: ``app/dirs.py``)."""


def test_help_builds_no_command_parser_and_skips_shutil() -> None:
    modules, shown = loaded(["--help"])
    assert not {"gettext", "locale", "textwrap"} & modules  # argparse_lean, _split_lines
    assert "apply-patch" in shown
    assert not {"shutil", "frontier.app.commands.run"} & modules


def test_sessions_loads_only_the_catalogue(tmp_path: Path) -> None:
    store = SessionStore.open()  # the data dir conftest points FRONTIER_DATA_DIR at
    session = store.create_session(str(tmp_path), "m", None, "ctl")
    store.close()
    modules, shown = loaded(["sessions"], xdg=tmp_path)
    assert session in shown
    assert "frontier.app.session.catalogue" in modules
    assert not HEAVY_STORE & modules, sorted(HEAVY_STORE & modules)


def test_apply_patch_does_not_load_the_configuration(tmp_path: Path) -> None:
    modules, _ = loaded(["apply-patch", "--root", str(tmp_path), "--dry-run"])
    assert not {"frontier.app.config", "tomllib", "subprocess"} & modules


def test_a_command_built_on_demand_parses_as_before() -> None:
    from frontier.app.cli import parse_args

    args = parse_args(["--model", "m", "run", "--prompt", "hi", "--max-turns", "3"])
    assert (args.command, args.model, args.prompt, args.max_turns) == ("run", "m", "hi", 3)
    args = parse_args(["-p", "fix it"])  # run's own flag before any command: run
    assert args.command == "run" and args.print_mode


def test_undo_list_needs_no_configuration_nor_wire(tmp_path: Path) -> None:
    store = SessionStore.open()
    session = store.create_session(str(tmp_path), "m", None, "ctl")
    store.close()
    modules, shown = loaded(["undo", session, "--list"])
    assert "changed no file" in shown
    # the configuration and a wire module (only sessions from before typed items need one)
    assert not {"frontier.app.config", "frontier.app.model.wires.openai_chat"} & modules


TUI_LATER = {
    "frontier.app.agent.explain",
    "frontier.app.frontends.tui.replay",
    "frontier.app.frontends.tui.screens.review",
    "frontier.app.frontends.tui.screens.inspector",
    "frontier.app.frontends.tui.screens.copy",
    "frontier.app.replay_player",
    "frontier.widgets.prose_render",
    "rich.markdown",
    "markdown_it",
}
"""What the TUI's first screen does not need: screens pushed later, replay, the
inspector's explanations and the reply renderer (loaded with the first reply)."""


def test_the_tui_module_leaves_later_screens_and_the_core_unloaded() -> None:
    code = "import sys, frontier.app.frontends.tui.app; print(sorted(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    modules = set(ast.literal_eval(out.stdout))
    assert not TUI_LATER & modules, sorted(TUI_LATER & modules)


ONE_HUNK = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+three\n*** End Patch\n"
"""A Codex envelope changing ``a.txt`` from ``one two`` to ``one three``."""

NEVER_AT_START = {"dataclasses", "inspect", "hashlib", "_hashlib"}
"""What no store or patch command loads: ``dataclasses`` with ``inspect`` (~15 ms; the
core's classes are records, ``app/record.py``) and ``hashlib``, whose OpenSSL start-up is
~6 ms (``app/hashes.py`` uses the built-in sha256 for data under 1 MiB)."""


def test_patch_and_store_commands_load_neither_dataclasses_nor_openssl(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    modules, _ = loaded(["apply-patch", "--root", str(tmp_path)], stdin=ONE_HUNK)
    assert (tmp_path / "a.txt").read_text() == "one\nthree\n"
    assert not NEVER_AT_START & modules
    store = SessionStore.open()
    session = store.create_session(str(tmp_path), "m", None, "ctl")
    store.close()
    for argv in (
        ["sessions"],
        ["undo", session, "--list"],
        ["export", session],
        ["check", session],
    ):
        modules, _ = loaded(argv)
        assert not NEVER_AT_START & modules, (argv, sorted(NEVER_AT_START & modules))


NO_URLLIB = {"urllib.parse", "ipaddress"}
"""What no store or patch command loads (stop 37): ``urllib.parse`` imports ``ipaddress``,
~3 ms together, and pathlib imports it for ``as_uri`` alone (``app/pathlib_lean.py``);
the store's ``file:`` URI and the scrubbers' URL-quoted secrets are ``app/percent.py``."""


def test_patch_and_store_commands_load_no_urllib_in_a_regular_install(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("one\ntwo\n")
    modules, _ = loaded(
        ["apply-patch", "--root", str(tmp_path / "ws")], stdin=ONE_HUNK, bare=tmp_path / "a"
    )
    assert (tmp_path / "ws" / "a.txt").read_text() == "one\nthree\n"
    assert "pathlib" in modules and not NO_URLLIB & modules, sorted(NO_URLLIB & modules)
    store = SessionStore.open()
    session = store.create_session(str(tmp_path), "m", None, "ctl")
    store.close()
    for n, argv in enumerate(
        (["sessions"], ["undo", session, "--list"], ["export", session], ["check", session])
    ):
        modules, shown = loaded(argv, bare=tmp_path / f"b{n}")
        assert argv[0] == "check" or shown.strip(), argv  # check: nothing to say of no turn
        assert not NO_URLLIB & modules, (argv, sorted(NO_URLLIB & modules))


NO_TYPING = {"typing", "_typing"}
"""What reading a stored session never loads: ``typing`` (~3 ms of a ~28 ms floor).
Annotations are strings; the ``Literal`` types and ``Protocol`` classes exist for the type
checker (``if TYPE_CHECKING:``), with a plain tuple where run-time code needs the values."""

NO_STDLIB_EXTRAS = {"gettext", "locale", "textwrap", "datetime", "threading", "sqlite3"}
"""Nor what stop 34 took off every command: argparse's ``gettext`` and ``locale``
(``app/argparse_lean.py``), ``textwrap`` (the help formatter wraps itself), ``datetime``
(the ``sqlite3`` package imports it: the store uses ``_sqlite3``, ``app/session/sqlite.py``;
times are written from ``time``) and ``threading`` (the store's lock is ``_thread``'s)."""


# slow in the full suite (15.6 s there under load, 3.7 s alone): two headless demos make
# the sessions, then nine real command processes each report what they imported
def test_reading_a_session_does_not_import_typing(tmp_path: Path) -> None:
    """On stored demo sessions (a text and a native mode: responses, calls, file changes,
    contract errors), so that each command takes its whole path."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # the demo's workspace
    for protocol in ("ctl-heredoc", "native-inc"):
        demo = [sys.executable, "-m", "frontier.app.cli", "demo", "--headless", "--rate", "0"]
        subprocess.run(
            [*demo, "--protocol", protocol],
            capture_output=True,
            check=True,
            timeout=120,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    never = NO_TYPING | NO_STDLIB_EXTRAS
    modules, shown = loaded(["sessions", "--json"])
    assert not never & modules, sorted(never & modules)
    sessions = [s["id"] for s in json.loads(shown)]
    assert len(sessions) == 2
    modules, _ = loaded(["sessions"])
    assert not (never | {"json"}) & modules, sorted((never | {"json"}) & modules)
    native_loaded = []
    for session in sessions:
        for argv in (["check", session], ["undo", session, "--list"], ["export", session]):
            modules, shown = loaded(argv)
            assert shown.strip(), argv
            assert not never & modules, (argv, sorted(never & modules))
            if argv[0] == "check":  # the catalogue names interrupted calls, not the ledger
                assert "frontier.app.session.calls" not in modules
                native_loaded.append("frontier.app.cst.native" in modules)
            if argv[0] == "export":  # a failed reply is found by its marker's prefix alone
                assert "frontier.app.model.conversation" not in modules
        modules, _ = loaded(["undo", session, "--list"])
        assert "json" not in modules  # the store's readers use app/fastjson.py
    assert sorted(native_loaded) == [False, True]  # the text mode's check never loads it


WIRE_CAPTURES = {
    "anthropic-messages": [
        ("message_start", {"type": "message_start", "message": {"id": "m", "role": "assistant"}}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "hi"},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
        ("message_stop", {"type": "message_stop"}),
    ],
    "openai-responses": [
        (
            "response.output_text.delta",
            {"type": "response.output_text.delta", "output_index": 0, "delta": "hi"},
        ),
        ("response.completed", {"type": "response.completed", "response": {"status": "completed"}}),
    ],
}
"""One short response of each wire whose module is not the demo's, as ``curl -N`` saves it."""


@pytest.mark.parametrize("wire", list(WIRE_CAPTURES))
def test_checking_a_capture_of_any_wire_does_not_import_typing(tmp_path: Path, wire: str) -> None:
    """The demo's sessions are Chat Completions: the Anthropic and Responses adapters
    imported ``typing`` at their top (``check`` of a stored Claude session: ~2 ms)."""
    capture = tmp_path / "reply.sse"
    events = WIRE_CAPTURES[wire]
    capture.write_text("".join(f"event: {n}\ndata: {json.dumps(e)}\n\n" for n, e in events))
    modules, shown = loaded(["check", str(capture)])
    assert (
        shown.startswith("ok ") and f"frontier.app.model.wires.{wire.replace('-', '_')}" in modules
    )
    assert not NO_TYPING & modules, sorted(NO_TYPING & modules)


APPLY_PATCH_LATER = {
    "json",
    "threading",
    "contextvars",
    "bisect",
    "frontier.tools.patch_unified",
}
"""What ``frontier apply-patch`` writing one file from a Codex envelope does not load (~4 ms
of its start-up, issue 24): ``json`` (only a write of several files keeps an intent journal;
a recovery reads one), ``threading`` (a pinned root, a stop), ``contextvars`` (the tool
boundary's ``CALL_STOP``), ``bisect`` (the planner bisects in Python) and the unified-diff
reader."""


def test_apply_patch_of_one_file_loads_only_what_it_uses(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    modules, _ = loaded(["apply-patch", "--root", str(tmp_path)], stdin=ONE_HUNK)
    assert (tmp_path / "a.txt").read_text() == "one\nthree\n"
    assert "frontier.tools.atomic" in modules  # it did write, through the writer
    assert not APPLY_PATCH_LATER & modules, sorted(APPLY_PATCH_LATER & modules)


def test_closing_a_model_client_that_never_sent_loads_no_event_loop_backend() -> None:
    """Quitting the TUI before any message: closing httpx's pool anyway imported anyio's
    asyncio backend just to close no connection (28 ms of the quit)."""
    probe = (
        "import asyncio, sys\n"
        "from frontier.app.model.registry import codec\n"
        "from frontier.app.model.transport import ModelClient\n"
        "async def main():\n"
        "    client = ModelClient(codec('openai-chat'), 'http://127.0.0.1:9/v1', 'm')\n"
        "    await client.aclose()\n"
        "asyncio.run(main())\n"
        "print('anyio._backends._asyncio' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "False", out.stderr
