"""The sandbox settings (issue 22): ``sandbox``, ``sandbox_network`` and the config-only
path lists — defaults, config < env < flag, errors that name where a bad value was set,
the CLI flags and their help."""

from __future__ import annotations

import pytest

from frontier.app.cli import build_parser, parse_args
from frontier.app.commands._agent_args import config_from_args
from frontier.app.config import Config, ConfigError, config_path, load_config
from frontier.app.vocab import DEFAULT_SANDBOX, SANDBOXES
from frontier.tools.sandbox import DEFAULT_SANDBOX as TOOLS_DEFAULT
from frontier.tools.sandbox import SANDBOX_MODES


@pytest.fixture(autouse=True)
def _no_sandbox_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FRONTIER_SANDBOX", raising=False)
    monkeypatch.delenv("FRONTIER_SANDBOX_NETWORK", raising=False)


def write_config(text: str) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(text)


def test_the_vocabulary_is_the_sandboxs() -> None:
    assert SANDBOXES == SANDBOX_MODES == ("workspace-write", "read-only", "off")
    assert DEFAULT_SANDBOX == TOOLS_DEFAULT == "workspace-write"


def test_defaults() -> None:
    config = load_config()
    assert config.sandbox == "workspace-write" == Config().sandbox
    assert config.sandbox_network is False
    assert (config.sandbox_writable, config.sandbox_readable, config.sandbox_hidden) == (
        (),
        (),
        (),
    )


def test_config_then_env_then_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    write_config('sandbox = "read-only"\nsandbox_network = true\n')
    assert (load_config().sandbox, load_config().sandbox_network) == ("read-only", True)
    monkeypatch.setenv("FRONTIER_SANDBOX", "off")
    monkeypatch.setenv("FRONTIER_SANDBOX_NETWORK", "off")
    assert (load_config().sandbox, load_config().sandbox_network) == ("off", False)
    flagged = load_config(sandbox="workspace-write", sandbox_network="on")
    assert (flagged.sandbox, flagged.sandbox_network) == ("workspace-write", True)


def test_the_lists_come_from_config_toml() -> None:
    write_config(
        'sandbox_writable = ["~/.cache/pip", "/srv/build"]\n'
        'sandbox_readable = ["~/.ssh/known_hosts"]\n'
        'sandbox_hidden = ["~/secrets"]\n'
    )
    config = load_config()
    assert config.sandbox_writable == ("~/.cache/pip", "/srv/build")
    assert config.sandbox_readable == ("~/.ssh/known_hosts",)
    assert config.sandbox_hidden == ("~/secrets",)


@pytest.mark.parametrize(
    ("where", "value", "source"),
    [
        ("config", '"none"', "config.toml"),
        ("env", "sandboxed", "FRONTIER_SANDBOX"),
        ("flag", "on", "--sandbox"),
    ],
)
def test_a_bad_mode_names_its_source(
    monkeypatch: pytest.MonkeyPatch, where: str, value: str, source: str
) -> None:
    flags: dict[str, str] = {}
    if where == "config":
        write_config(f"sandbox = {value}\n")
    elif where == "env":
        monkeypatch.setenv("FRONTIER_SANDBOX", value)
    else:
        flags["sandbox"] = value
    with pytest.raises(
        ConfigError,
        match=rf"unknown sandbox .*one of workspace-write, read-only, off \(set by .*{source}",
    ):
        load_config(**flags)


@pytest.mark.parametrize(
    ("where", "value", "source"),
    [
        ("config", '"sometimes"', "config.toml"),
        ("env", "maybe", "FRONTIER_SANDBOX_NETWORK"),
    ],
)
def test_a_bad_network_switch_names_its_source(
    monkeypatch: pytest.MonkeyPatch, where: str, value: str, source: str
) -> None:
    if where == "config":
        write_config(f"sandbox_network = {value}\n")
    else:
        monkeypatch.setenv("FRONTIER_SANDBOX_NETWORK", value)
    with pytest.raises(ConfigError, match=rf"sandbox_network must be true or false.*{source}"):
        load_config()


@pytest.mark.parametrize(
    "value", ['"~/.cache"', "[1]", '[""]', "true"], ids=["string", "number", "empty", "bool"]
)
def test_a_list_that_is_not_paths_is_refused(value: str) -> None:
    write_config(f"sandbox_writable = {value}\n")
    with pytest.raises(ConfigError, match=r"sandbox_writable must be a list of paths.*config.toml"):
        load_config()


def test_the_flags_reach_the_config() -> None:
    args = parse_args(["run", "--prompt", "x", "--sandbox", "off", "--sandbox-network", "on"])
    config = config_from_args(args)
    assert config is not None
    assert (config.sandbox, config.sandbox_network) == ("off", True)
    top = config_from_args(parse_args(["--sandbox", "read-only"]))
    assert top is not None and top.sandbox == "read-only"
    demo = config_from_args(parse_args(["demo", "--sandbox", "off"]))
    assert demo is not None and demo.sandbox == "off"


def test_the_flags_refuse_other_values(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["run", "--prompt", "x", "--sandbox", "none"])
    assert "invalid choice: 'none'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_args(["run", "--prompt", "x", "--sandbox-network", "yes"])
    with pytest.raises(SystemExit):  # a replay runs no command
        parse_args(["replay", "x.jsonl", "--sandbox", "off"])


def test_the_help_says_what_each_does() -> None:
    text = " ".join(build_parser().format_help().split())
    assert "--sandbox {workspace-write,read-only,off}" in text
    assert "workspace-write (default" in text and "off (unconfined" in text
    assert "--sandbox-network {off,on}" in text and "network (default off)" in text
