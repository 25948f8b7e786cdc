"""Where Frontier keeps its files on Linux is platformdirs' answer, found without it."""

from __future__ import annotations

import sys

import platformdirs
import pytest

from frontier.app.dirs import config_dir, data_dir

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux path")

CASES = [
    {"HOME": "/home/ada"},
    {"HOME": "/home/ada/"},
    {"HOME": "/"},
    {"HOME": "/home/ada", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/conf"},
    {"HOME": "/home/ada", "XDG_DATA_HOME": "", "XDG_CONFIG_HOME": ""},
    {"HOME": "/home/ada", "XDG_DATA_HOME": "relative/x", "XDG_CONFIG_HOME": "rel"},
    {"HOME": "/home/ada", "XDG_DATA_HOME": "/a b/é", "XDG_CONFIG_HOME": "/c/"},
]


@pytest.mark.parametrize("env", CASES, ids=lambda env: ",".join(f"{k}={v}" for k, v in env.items()))
def test_the_data_and_config_dirs_are_platformdirs_answer(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("FRONTIER_DATA_DIR", "FRONTIER_CONFIG_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert str(data_dir()) == str(platformdirs.user_data_dir("frontier")).rstrip("/")
    assert str(config_dir()) == str(platformdirs.user_config_dir("frontier")).rstrip("/")


def test_a_relative_home_is_left_to_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FRONTIER_DATA_DIR", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "not/absolute")
    try:
        expected = platformdirs.user_data_dir("frontier")
    except RuntimeError as exc:  # platformdirs refuses it: so does Frontier
        with pytest.raises(RuntimeError, match=str(exc)[:20]):
            data_dir()
    else:
        assert str(data_dir()) == expected.rstrip("/")
