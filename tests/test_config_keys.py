"""A key with an invisible character (issue 21, item 13).

A key pasted with a trailing zero-width space crashed ``frontier run`` with a traceback
from httpx (a header must be ASCII). Keys are validated where they are resolved — from
``FRONTIER_API_KEY``, the host's variable, a provider's ``key_env``, ``key_command`` and
``key_file``: whitespace at either end and format characters (category Cf) anywhere are
removed; any other character that cannot be in a token is refused with an error naming
the variable or setting and the position, never the value.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

import pytest
from wire_scripts import Text, WireServer, script, serve_wire, stream

from frontier.app import config as config_module
from frontier.app.config import ConfigError, config_path, load_config, resolve_api_key, valid_key

KEY = "sk-proj-Q2xvc2VkX0tleV8wMTIz"
SECRET_PART = "Q2xvc2VkX0tleV8wMTIz"
"""The part of ``KEY`` that must never appear in a message."""

INVISIBLE = [
    pytest.param(KEY + "\u200b", id="trailing zero-width space"),
    pytest.param("\ufeff" + KEY, id="leading byte-order mark"),
    pytest.param(f"  {KEY}\u00a0\n", id="spaces, no-break space, newline"),
    pytest.param(KEY[:10] + "\u200d" + KEY[10:], id="zero-width joiner inside"),
    pytest.param(KEY + "\u2060\u200b\u200e", id="word joiner, zero-width space, LRM"),
]


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_module, "_RESOLVED", {})
    for var in ("FRONTIER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "FRONTIER_MAX_CALLS"):
        monkeypatch.delenv(var, raising=False)


def write_config(text: str) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(text, "utf-8")


def toml(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def command_printing(tmp_path: Path, value: str) -> str:
    """A shell command whose stdout is ``value`` (any characters, written as bytes)."""
    script_path = tmp_path / "print_key.py"
    script_path.write_text(f"import sys\nsys.stdout.buffer.write({value.encode()!r})\n")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script_path))}"


def resolved_from(source: str, value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The key resolved when ``value`` comes from ``source``."""
    if source == "FRONTIER_API_KEY":
        monkeypatch.setenv("FRONTIER_API_KEY", value)
        config = load_config(base_url="http://127.0.0.1:9/v1")
    elif source == "OPENAI_API_KEY":
        monkeypatch.setenv("OPENAI_API_KEY", value)
        config = load_config(base_url="http://127.0.0.1:9/v1")
    elif source == "key_env":
        monkeypatch.setenv("ANTHROPIC_API_KEY", value)
        config = load_config(provider="anthropic")
    elif source == "key_file":
        path = tmp_path / "key"
        path.write_bytes(value.encode())
        path.chmod(0o600)
        write_config(f"api_key_file = {toml(str(path))}\n")
        config = load_config()
    else:
        write_config(f"api_key_command = {toml(command_printing(tmp_path, value))}\n")
        config = load_config()
    key = resolve_api_key(config)[0].api_key
    assert key is not None
    return key


SOURCES = ["FRONTIER_API_KEY", "OPENAI_API_KEY", "key_env", "key_file", "key_command"]
NAMED = {
    "FRONTIER_API_KEY": "$FRONTIER_API_KEY",
    "OPENAI_API_KEY": "$OPENAI_API_KEY",
    "key_env": "$ANTHROPIC_API_KEY",
    "key_file": "api_key_file ",
    "key_command": "the output of api_key_command ",
}


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("value", INVISIBLE)
def test_invisible_characters_are_removed_wherever_the_key_comes_from(
    source: str, value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert resolved_from(source, value, tmp_path, monkeypatch) == KEY


BAD = [
    pytest.param(KEY[:7] + "\u00e9" + KEY[7:], 8, "U+00E9 LATIN SMALL LETTER E WITH ACUTE", id="é"),
    pytest.param(KEY[:12] + " " + KEY[12:], 13, "U+0020 SPACE", id="space inside"),
    pytest.param(KEY[:5] + "\x01" + KEY[5:], 6, "U+0001 a control character", id="control"),
    pytest.param(KEY + "\u2026", len(KEY) + 1, "U+2026 HORIZONTAL ELLIPSIS", id="ellipsis"),
    pytest.param(
        KEY[:9] + "\u0430" + KEY[10:], 10, "U+0430 CYRILLIC SMALL LETTER A", id="homoglyph"
    ),
]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize(("value", "position", "char"), BAD)
def test_any_other_character_is_refused_by_source_and_position(
    source: str,
    value: str,
    position: int,
    char: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ConfigError) as err:
        resolved_from(source, value, tmp_path, monkeypatch)
    message = str(err.value)
    assert NAMED[source] in message
    assert f"at position {position} of {len(value)} ({char})" in message
    assert SECRET_PART[:6] not in message and KEY[:12] not in message


@pytest.mark.parametrize("source", ["FRONTIER_API_KEY", "key_env", "key_command"])
def test_a_key_of_invisible_characters_only_is_refused(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigError, match="holds no API key: only spaces or invisible"):
        resolved_from(source, "\u200b\ufeff\u200b", tmp_path, monkeypatch)


def test_valid_keys_pass_unchanged() -> None:
    for key in (KEY, "sk-ant-api03-abc_DEF-123", "eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl", "a+b/c=="):
        assert valid_key(key, "$TEST") == key


# --------------------------------------------------------------------------- the whole path


async def _run(*argv: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "frontier.app.cli",
        *argv,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_run_sends_the_cleaned_key_and_refuses_a_bad_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``frontier run`` end to end: a trailing U+200B is dropped before the header is
    built (the server sees the clean key); an é is a one-line error, no traceback."""
    server = WireServer("openai-chat")
    server.answer(stream(script("openai-chat", [Text("Done.")])))
    common = ["run", "--base-url", "", "--model", "m", "--workspace", str(tmp_path)]
    async with serve_wire(server):
        common[2] = server.url
        monkeypatch.setenv("FRONTIER_API_KEY", KEY + "\u200b")
        code, _out, err = await _run(*common, "--prompt", "hi")
        assert code == 0, err
        assert server.requests[0].headers["Authorization"] == f"Bearer {KEY}"

        monkeypatch.setenv("FRONTIER_API_KEY", KEY[:7] + "\u00e9" + KEY[7:])
        code, _out, err = await _run(*common, "--prompt", "hi")
    assert code == 2
    assert "Traceback" not in err
    assert "$FRONTIER_API_KEY holds a character an API key cannot contain at position 8" in err
    assert SECRET_PART[:6] not in err
    assert len(server.requests) == 1  # the bad key never reached the server
