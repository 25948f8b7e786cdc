"""Where the API key comes from: the environment, ``api_key_file`` or ``api_key_command``.

A key in Frontier's environment can be read by every approved shell command
through ``/proc/$PPID/environ``; the file and command forms keep it out of it.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from frontier.app import config as config_module
from frontier.app.config import ConfigError, config_path, load_config, resolve_api_key
from frontier.tools.process import child_env

KEY = "sk-from-a-file-7c1d2e3f4a5b"


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_module, "_RESOLVED", {})


def write_config(text: str) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def key_file(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "key"
    path.write_text(text, "utf-8")
    path.chmod(mode)
    return path


def toml(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_the_environment_still_works_and_frontier_key_wins(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-1234567")
    assert resolve_api_key(load_config())[0].api_key == "sk-openai-1234567"
    monkeypatch.setenv("FRONTIER_API_KEY", "sk-frontier-1234567")
    write_config('api_key_command = "exit 1"\n')  # never run: the environment has the key
    config, notes = resolve_api_key(load_config())
    assert config.api_key == "sk-frontier-1234567" and notes == []


def test_api_key_file_is_read_once_and_beats_openai_api_key(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-1234567")
    path = key_file(tmp_path, f"\n{KEY}\nsecond line ignored\n")
    write_config(f"api_key_file = {toml(str(path))}\n")
    config = load_config()
    assert config.api_key is None  # nothing read until an endpoint needs it
    resolved, notes = resolve_api_key(config)
    assert resolved.api_key == KEY and notes == []
    assert KEY not in repr(resolved)
    path.write_text("sk-changed-0000000000\n")
    assert resolve_api_key(load_config())[0].api_key == KEY  # read once per process


def test_api_key_file_relative_to_the_config_dir_and_from_the_environment(monkeypatch) -> None:
    (config_path().parent).mkdir(parents=True, exist_ok=True)
    (config_path().parent / "key.txt").write_text(KEY + "\n")
    (config_path().parent / "key.txt").chmod(0o600)
    monkeypatch.setenv("FRONTIER_API_KEY_FILE", "key.txt")
    assert resolve_api_key(load_config())[0].api_key == KEY


def test_a_key_file_others_can_read_is_used_with_a_warning(tmp_path) -> None:
    path = key_file(tmp_path, KEY, mode=0o644)
    write_config(f"api_key_file = {toml(str(path))}\n")
    config, notes = resolve_api_key(load_config())
    assert config.api_key == KEY
    assert notes == [
        f"api_key_file {path} can be read by other users (mode 0644); run chmod 600 {path}"
    ]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "api_key_file {path}: cannot read it (No such file or directory)"),
        ("empty", "api_key_file {path} is empty"),
    ],
)
def test_a_bad_key_file_names_the_setting(tmp_path, setup: str, message: str) -> None:
    path = tmp_path / "key"
    if setup == "empty":
        key_file(tmp_path, "\n  \n")
    write_config(f"api_key_file = {toml(str(path))}\n")
    with pytest.raises(ConfigError) as err:
        resolve_api_key(load_config())
    assert message.format(path=path) in str(err.value)


def test_api_key_command_runs_once_and_its_first_line_is_the_key(tmp_path) -> None:
    counter = tmp_path / "runs"
    script = f"echo run >> {shlex.quote(str(counter))}; printf '  {KEY}  \\nmeta: x\\n'"
    write_config(f"api_key_command = {toml(script)}\n")
    for _ in range(3):
        assert resolve_api_key(load_config())[0].api_key == KEY
    assert counter.read_text().count("run") == 1


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("echo nope >&2; exit 3", "api_key_command 'echo nope >&2; exit 3' failed (exit 3): nope"),
        ("true", "api_key_command 'true' printed nothing"),
    ],
)
def test_a_failing_key_command_names_the_setting(command: str, message: str) -> None:
    write_config(f"api_key_command = {toml(command)}\n")
    with pytest.raises(ConfigError, match="api_key_command") as err:
        resolve_api_key(load_config())
    assert message in str(err.value)


def test_a_key_command_that_hangs_is_stopped(monkeypatch) -> None:
    monkeypatch.setattr(config_module, "API_KEY_COMMAND_TIMEOUT", 0.2)
    write_config(f"api_key_command = \"{sys.executable} -c 'import time; time.sleep(30)'\"\n")
    with pytest.raises(ConfigError, match=r"did not finish within 0\.2 s; it runs without"):
        resolve_api_key(load_config())


def test_conflicting_or_inline_keys_are_config_errors(tmp_path) -> None:
    write_config('api_key_command = "echo a"\napi_key_file = "/k"\n')
    with pytest.raises(ConfigError, match="both api_key_command and api_key_file"):
        load_config()
    write_config(f'api_key = "{KEY}"\n')
    with pytest.raises(ConfigError, match=r"does not read a key from config\.toml") as err:
        load_config()
    assert KEY not in str(err.value)


def test_run_reports_a_failing_key_command_and_demo_never_runs_it(capsys, tmp_path) -> None:
    from frontier.app.cli import main

    write_config('api_key_command = "exit 7"\n')
    code = main(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--workspace", str(tmp_path), "--prompt", "hi"])  # fmt: skip
    assert code == 2
    assert "frontier: api_key_command 'exit 7' failed (exit 7)" in capsys.readouterr().err
    assert main(["demo", "--headless", "--rate", "0", "--protocol", "ctl"]) == 0


def test_tool_processes_never_get_a_key_variable(monkeypatch) -> None:
    """What Frontier can strip (its children's environment) it does; its own environ
    stays readable in /proc, which is why the README points at the file/command forms."""
    monkeypatch.setenv("FRONTIER_API_KEY", "sk-frontier-1234567")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-1234567")
    monkeypatch.setenv("MISTRAL_API_KEY", "sk-mistral-1234567")
    env = child_env({"EXTRA_API_KEY": "x" * 12})
    assert not [k for k in env if k.upper().endswith("_API_KEY")]
    assert os.environ["FRONTIER_API_KEY"]  # the parent still has it: see README "Secrets"
