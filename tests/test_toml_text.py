"""TOML nested deeper than ``tomllib``'s recursion can follow is refused as invalid TOML,
never a traceback: a cloned repository's ``.frontier/mcp.toml`` is untrusted, and the
person's own files get the same clear message (``app/toml_text.py``)."""

from __future__ import annotations

import tomllib

import pytest

from frontier.app import toml_text
from frontier.app.config import ConfigError, config_path, load_config

DEEP = "x = " + "[" * 5000 + "]" * 5000 + "\n"
"""10 KB: tomllib recurses a few frames a level and raised RecursionError."""


def test_too_deep_is_a_decode_error_and_what_is_not_reads_as_before() -> None:
    with pytest.raises(tomllib.TOMLDecodeError, match="nested too deeply"):
        toml_text.loads(DEEP)
    with pytest.raises(tomllib.TOMLDecodeError, match="nested too deeply"):
        toml_text.loads("t = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n")
    nested = "x = " + "[" * 50 + "1" + "]" * 50 + "\n"
    assert toml_text.loads(nested) == tomllib.loads(nested)


def test_a_config_toml_too_deep_says_what_to_do() -> None:
    path = config_path()  # beneath FRONTIER_CONFIG_DIR (the suite's own)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DEEP, "utf-8")
    try:
        with pytest.raises(ConfigError, match=r"invalid TOML \(arrays or inline tables nested"):
            load_config()
    finally:
        path.unlink()


def test_a_config_toml_saved_with_a_byte_order_mark_reads_and_keeps_it() -> None:
    """Windows editors and PowerShell's ``Out-File`` start UTF-8 with one: tomllib refused
    the file as "Invalid statement (at line 1, column 1)"."""
    from frontier.app.config import save_setting

    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'\xef\xbb\xbfmodel = "qwen"\r\ntheme = "frontier-dark"\r\n')
    try:
        assert load_config().model == "qwen"
        save_setting(
            "theme", "frontier-light"
        )  # the palette's theme choice edits the file in place
        assert load_config().theme == "frontier-light" and load_config().model == "qwen"
        assert path.read_bytes().startswith(b"\xef\xbb\xbf")  # the person's file, as it was
    finally:
        path.unlink()
