"""``patch_format``: which patch dialect apply_patch teaches, and where it is taught.

The engine accepts both dialects whatever the setting; the setting only chooses
what the tool schema, the tool list and the system prompt teach.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from frontier.app import cli
from frontier.app.agent.modes import get_mode
from frontier.app.agent.prompts import CTL_HEREDOC, ctl_heredoc, system_prompt
from frontier.app.agent.runtime import create_runtime
from frontier.app.commands._agent_args import config_from_args
from frontier.app.config import PATCH_FORMATS as CONFIG_FORMATS
from frontier.app.config import Config, ConfigError, config_path, load_config
from frontier.tools.patch_docs import (
    PATCH_FORMATS,
    apply_patch_spec,
    codex_model,
    patch_example,
    patch_prompt,
    resolve_patch_format,
    spec_dialect,
    taught_dialect,
)
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

CODEX_MODELS = [
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-2025-04-14",
    "GPT-4.1",
    "gpt-4.5-preview",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-codex",
    "gpt-5.1-codex-max",
    "o1",
    "o1-mini",
    "o3",
    "o3-mini",
    "o4-mini",
    "codex-mini-latest",
    "openai/gpt-oss-20b",
    "gpt-oss:120b",
    "azure/GPT-5",
    "ft:gpt-4.1-mini:acme::abc123",
]
UNIFIED_MODELS = [
    "qwen2.5-coder",
    "Qwen/Qwen3-Coder-30B-A3B-Instruct",
    "gpt-4o",
    "gpt-4o-mini",
    "chatgpt-4o-latest",
    "gpt-4",
    "gpt-4-turbo",
    "gpt-3.5-turbo",
    "gpt2",
    "gpt-j-6b",
    "olmo-2-7b",
    "llama3.1:8b",
    "deepseek-coder-v2",
    "codestral-latest",
    "smollm2",
    "frontier-demo",
    "",
    None,
]


@pytest.mark.parametrize("model", CODEX_MODELS)
def test_auto_picks_the_codex_envelope_for_openai_families_trained_on_it(model: str) -> None:
    assert codex_model(model)
    assert resolve_patch_format("auto", model) == "codex"


@pytest.mark.parametrize("model", UNIFIED_MODELS)
def test_auto_picks_a_unified_diff_for_every_other_model(model: str | None) -> None:
    assert resolve_patch_format("auto", model) == "unified"


@pytest.mark.parametrize(
    ("setting", "model", "expected"),
    [
        ("unified", "gpt-4.1", "unified"),
        ("unified", "gpt-5-codex", "unified"),
        ("codex", "qwen2.5-coder", "codex"),
        ("codex", None, "codex"),
    ],
)
def test_an_explicit_setting_wins_over_the_model(setting: str, model: str, expected: str) -> None:
    assert resolve_patch_format(setting, model) == expected


@pytest.mark.parametrize("setting", ["", "diff", "Codex", "udiff"])
def test_an_unknown_setting_is_an_error_naming_the_choices(setting: str) -> None:
    with pytest.raises(ValueError, match=r"unknown patch_format .*auto, unified, codex"):
        resolve_patch_format(setting, "gpt-4.1")


def test_the_choices_are_the_same_everywhere() -> None:
    assert PATCH_FORMATS == CONFIG_FORMATS == cli.PATCH_FORMATS == ("auto", "unified", "codex")


# ----------------------------------------------------------------------------- the spec


@pytest.mark.parametrize("dialect", ["unified", "codex"])
def test_the_spec_keeps_the_tool_contract(dialect: str) -> None:
    spec = apply_patch_spec(dialect)  # type: ignore[arg-type]
    assert spec.name == "apply_patch"
    params = spec.parameters
    assert params["type"] == "object" and params["required"] == ["patch"]
    assert list(params["properties"]) == ["patch"]
    assert params["properties"]["patch"]["type"] == "string"
    assert (spec.sequential, spec.mutates, spec.kind, spec.timeout) == (True, True, "edit", 60.0)
    assert "all or nothing" in spec.description
    assert "accepted too" in spec.description  # both dialects always work
    assert patch_example(dialect).rstrip("\n") in spec.description  # type: ignore[arg-type]
    assert spec_dialect(spec) == dialect


def test_the_unified_spec_says_line_numbers_are_only_hints() -> None:
    text = apply_patch_spec("unified").description
    assert "--- /dev/null" in text and "+++ /dev/null" in text
    assert "only hints" in text and "copy the context" in text
    assert "*** Update File:" not in text


def test_the_codex_spec_teaches_the_envelope() -> None:
    text = apply_patch_spec("codex").description
    for marker in (
        "*** Begin Patch",
        "*** Add File:",
        "*** Delete File:",
        "*** Update File:",
        "*** Move to:",
        "*** End of File",
        "*** End Patch",
    ):
        assert marker in text
    assert "@@ -" not in patch_example("codex")


def test_an_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown patch dialect 'auto'"):
        apply_patch_spec("auto")  # type: ignore[arg-type]


def _apply(root: Path, patch: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "apply-patch", "--root", str(root)],
        input=patch,
        capture_output=True,
        text=True,
        timeout=60,
    )


CLI_PY = (
    "import argparse\n"
    "\n"
    "\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    '    parser.add_argument("name")\n'
    "    args = parser.parse_args()\n"
    '    print(f"hello, {args.name}")\n'
)


@pytest.mark.parametrize("dialect", ["unified", "codex"])
def test_the_taught_example_applies_with_the_engine(tmp_path: Path, dialect: str) -> None:
    """What we teach must itself apply (through `frontier apply-patch`, the engine's CLI)."""
    if dialect == "codex":
        probe = tmp_path / "probe"
        probe.mkdir()
        if _apply(probe, "*** Begin Patch\n*** Add File: x\n+x\n*** End Patch\n").returncode:
            pytest.skip("this engine does not read the Codex envelope yet")
    root = tmp_path / "ws"
    (root / "greet").mkdir(parents=True)
    (root / "greet" / "cli.py").write_text(CLI_PY)
    proc = _apply(root, patch_example(dialect))  # type: ignore[arg-type]
    assert proc.returncode == 0, proc.stderr
    name = '    parser.add_argument("name")\n'
    shout = '    parser.add_argument("--shout", action="store_true")\n'
    assert (root / "greet" / "cli.py").read_text() == CLI_PY.replace(name, name + shout)
    if dialect == "codex":
        assert (root / "NOTES.md").read_text() == "# Notes\n"


# ----------------------------------------------------------------------------- where it is taught


def _native_description(model: str | None) -> str:
    registry = default_registry(resolve_patch_format("auto", model))
    tools = get_mode("native-inc").tools(registry)
    (patch,) = [t for t in tools if t.name == "apply_patch"]
    return patch.description + patch.parameters["properties"]["patch"]["description"]


def test_native_tools_teach_the_codex_envelope_to_a_gpt_model() -> None:
    text = _native_description("gpt-4.1")
    assert "*** Update File:" in text and "Move to" in text


def test_native_tools_teach_a_unified_diff_otherwise() -> None:
    text = _native_description("qwen2.5-coder")
    assert "only hints" in text and "*** Update File:" not in text


@pytest.mark.parametrize("mode", ["ctl-heredoc", "ctl", "xml"])
@pytest.mark.parametrize(("model", "dialect"), [("gpt-4.1", "codex"), ("qwen2.5-coder", "unified")])
def test_the_text_prompt_teaches_the_dialect_of_the_model(
    mode: str, model: str, dialect: str
) -> None:
    registry = default_registry(resolve_patch_format("auto", model))
    assert taught_dialect(registry.specs()) == dialect
    prompt = get_mode(mode).system_prompt(registry)
    other = "unified" if dialect == "codex" else "codex"
    assert patch_prompt(dialect) in prompt  # type: ignore[arg-type]
    assert patch_prompt(other) not in prompt  # type: ignore[arg-type]
    assert apply_patch_spec(dialect).description in prompt  # type: ignore[arg-type]
    if mode == "ctl-heredoc":  # the framing example patches in the same dialect
        assert ctl_heredoc(dialect) in prompt  # type: ignore[arg-type]
    if dialect == "codex":
        assert "--- a/" not in prompt.replace("'--- a/PATH'", "")


def test_native_prompts_stay_short() -> None:
    for mode in ("native-eos", "native-inc"):
        prompt = get_mode(mode).system_prompt(default_registry("codex"))
        assert "Editing files" not in prompt and "Begin Patch" not in prompt


def test_a_registry_without_our_apply_patch_gets_no_patch_paragraph() -> None:
    prompt = system_prompt("ctl-heredoc", [])
    assert "Editing files" not in prompt
    assert CTL_HEREDOC in prompt  # the unified example, as before


@pytest.mark.parametrize("dialect", ["unified", "codex"])
def test_the_heredoc_example_is_valid_ctl_carrying_the_patch(dialect: str) -> None:
    from frontier.app.cst.factory import make_transducer

    teach = ctl_heredoc(dialect)  # type: ignore[arg-type]
    text = teach[teach.index("Example:\n") + len("Example:\n") :]
    transducer = make_transducer("ctl-heredoc")
    events = transducer.feed(text.encode()) + transducer.finish(True)
    assert [e.type for e in events if e.type in ("call", "error")] == ["call"]
    (call,) = [e.call for e in events if e.type == "call"]
    patch = call.args["patch"]
    assert (patch.decode() if isinstance(patch, bytes) else patch) == patch_example(dialect)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- settings


def _write_config(text: str) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_default_is_auto() -> None:
    assert load_config().patch_format == "auto"
    assert Config().patch_format == "auto"


def test_config_file_then_env_then_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    _write_config('patch_format = "codex"\n')
    assert load_config().patch_format == "codex"
    monkeypatch.setenv("FRONTIER_PATCH_FORMAT", "unified")
    assert load_config().patch_format == "unified"
    assert load_config(patch_format="auto").patch_format == "auto"
    assert load_config(patch_format=None).patch_format == "unified"  # an absent flag


@pytest.mark.parametrize("where", ["file", "env", "flag"])
def test_an_invalid_value_is_a_clear_config_error(
    monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    overrides = {}
    if where == "file":
        _write_config("patch_format = 3\n")
    elif where == "env":
        monkeypatch.setenv("FRONTIER_PATCH_FORMAT", "diff")
    else:
        overrides["patch_format"] = "git"
    with pytest.raises(ConfigError) as info:
        load_config(**overrides)
    message = str(info.value)
    assert "unknown patch_format" in message and "auto, unified, codex" in message
    assert "--patch-format" in message and "FRONTIER_PATCH_FORMAT" in message


@pytest.mark.parametrize(
    "argv",
    [
        ["--patch-format", "codex"],
        ["run", "--patch-format", "codex", "--prompt", "x"],
        ["--patch-format", "codex", "run", "--prompt", "x"],
        ["resume", "abc", "--patch-format", "codex"],
    ],
)
def test_the_flag_reaches_the_config(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    monkeypatch.setenv("FRONTIER_PATCH_FORMAT", "unified")
    args = cli.build_parser().parse_args(argv)
    config = config_from_args(args)
    assert config is not None and config.patch_format == "codex"


def test_without_the_flag_the_env_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTIER_PATCH_FORMAT", "codex")
    for argv in ([], ["run", "--prompt", "x"], ["resume", "abc"]):
        config = config_from_args(cli.build_parser().parse_args(argv))
        assert config is not None and config.patch_format == "codex"


def test_a_bad_flag_value_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.build_parser().parse_args(["run", "--patch-format", "git", "--prompt", "x"])
    assert info.value.code == 2
    assert "invalid choice: 'git'" in capsys.readouterr().err


def test_a_bad_env_value_is_reported_not_raised(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FRONTIER_PATCH_FORMAT", "git")
    assert config_from_args(cli.build_parser().parse_args(["run", "--prompt", "x"])) is None
    assert "unknown patch_format 'git'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["resume", "--help"]])
def test_help_shows_the_flag(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(argv)
    out = " ".join(capsys.readouterr().out.split())
    assert "--patch-format {auto,unified,codex}" in out
    assert "Codex" in out


# ----------------------------------------------------------------------------- the runtime


@pytest.mark.parametrize(
    ("model", "setting", "dialect"),
    [
        ("gpt-4.1-mini", "auto", "codex"),
        ("qwen2.5-coder", "auto", "unified"),
        ("gpt-4.1-mini", "unified", "unified"),
        ("qwen2.5-coder", "codex", "codex"),
    ],
)
async def test_the_runtime_registry_teaches_the_resolved_dialect(
    tmp_path: Path, model: str, setting: str, dialect: str
) -> None:
    config = Config(base_url="http://127.0.0.1:9/v1", model=model, patch_format=setting)
    runtime = create_runtime(config, approver=PolicyApprover("auto"), workspace=tmp_path)
    try:
        assert runtime.patch_dialect == dialect
        spec = next((s for s in runtime.tools if s.name == "apply_patch"), None)
        assert spec is not None and spec == apply_patch_spec(dialect)  # type: ignore[arg-type]
    finally:
        await runtime.aclose()


async def test_a_demo_runtime_teaches_unified(tmp_path: Path) -> None:
    runtime = create_runtime(Config(), approver=PolicyApprover("auto"), demo=True)
    try:
        assert runtime.patch_dialect == "unified"
    finally:
        await runtime.aclose()
