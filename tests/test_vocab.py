"""One home per vocabulary (``app/vocab.py``): every layer that names a mode, a policy or a
finish reason accepts exactly the vocabulary's list — no copy can drift."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import ModuleType

import pytest

from frontier.app import cli, events, stream_events, vocab
from frontier.app.agent.modes import get_mode
from frontier.app.config import Config, ConfigError, load_config
from frontier.app.cst.factory import make_transducer
from frontier.app.events import OK_KINDS, RESULT_KINDS
from frontier.app.model.demo_script import script
from frontier.app.model.registry import codec
from frontier.tools.policy import PolicyApprover


def _choices(parser: argparse.ArgumentParser, flag: str) -> tuple[str, ...]:
    action = next(a for a in parser._actions if flag in a.option_strings)
    return tuple(action.choices or ())


def test_the_cli_offers_exactly_the_vocabulary() -> None:
    parser = cli.build_parser()
    # the protocol setting is a mode or "auto" (resolved per model/server; issue 20)
    assert _choices(parser, "--protocol") == vocab.PROTOCOL_SETTINGS
    assert ("auto", *vocab.AGENT_MODES) == vocab.PROTOCOL_SETTINGS
    assert _choices(parser, "--wire") == vocab.WIRE_SETTINGS
    assert _choices(parser, "--approval") == vocab.APPROVALS


def test_every_mode_has_a_mode_a_transducer_and_a_demo_script() -> None:
    for name in vocab.AGENT_MODES:
        mode = get_mode(name)
        assert mode.native == (name in vocab.NATIVE_MODES)
        assert mode.eager == (name in vocab.EAGER_MODES)
        assert script(name)
    for name in vocab.PROTOCOLS:
        # the native transducers read a wire's SSE body: they need the wire's adapter
        wire = codec("openai-chat") if name in vocab.NATIVE_MODES else None
        assert make_transducer(name, wire=wire).frontier == 0
    for name in vocab.NATIVE_MODES:
        with pytest.raises(ValueError, match="wire"):
            make_transducer(name)
    assert set(vocab.PROTOCOLS) == {*vocab.AGENT_MODES, *vocab.BASELINES}
    with pytest.raises(ValueError, match="unknown protocol"):
        get_mode("json-whole")  # a baseline, not a session mode


def test_policies_and_config_accept_the_vocabulary_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    for name in vocab.APPROVALS:
        assert PolicyApprover(name).policy == name
    with pytest.raises(ValueError, match="unknown approval policy"):
        PolicyApprover("yolo")
    monkeypatch.setenv("FRONTIER_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("FRONTIER_APPROVAL", "yolo")
    with pytest.raises(ConfigError, match="choose one of ask, auto-edit, auto, read-only"):
        load_config()
    monkeypatch.setenv("FRONTIER_APPROVAL", "auto")
    monkeypatch.setenv("FRONTIER_PROTOCOL", "native-json")
    with pytest.raises(ConfigError, match="auto, native-eos, native-inc, ctl, ctl-heredoc, xml"):
        load_config()
    for name in vocab.PROTOCOL_SETTINGS:
        monkeypatch.setenv("FRONTIER_PROTOCOL", name)
        assert load_config().protocol == name
    # the default is "auto" now (issue 20): a session stores the mode it resolves to
    assert (Config().protocol, Config().approval) == (
        vocab.DEFAULT_PROTOCOL_SETTING,
        vocab.DEFAULT_APPROVAL,
    )
    assert vocab.DEFAULT_PROTOCOL_SETTING == "auto" and vocab.DEFAULT_MODE in vocab.AGENT_MODES


def test_finish_reasons_and_result_kinds() -> None:
    assert [r for r in vocab.FINISH_REASONS if vocab.is_clean(r)] == list(vocab.CLEAN_FINISH)
    assert not any(vocab.is_clean(r) for r in vocab.TRUNCATED_FINISH)
    assert not vocab.is_clean(None)
    assert set(OK_KINDS) <= set(RESULT_KINDS)


@pytest.mark.parametrize("module", [vocab, events, stream_events], ids=lambda m: m.__name__)
def test_each_literal_type_holds_exactly_its_tuples_values(module: ModuleType) -> None:
    """``vocab`` (and the event vocabulary) writes each ``Literal`` for the type checker and
    its values as a tuple for run time (no ``typing`` import on ``frontier --help``, nor on
    ``check``): the two must agree, and a module naming the type at run time gets the same
    values."""
    import ast
    from typing import get_args

    tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
    written: dict[str, tuple[str, ...]] = {}
    checked = [
        node
        for block in tree.body
        if isinstance(block, ast.If)
        and isinstance(block.test, ast.Name)
        and block.test.id == "TYPE_CHECKING"
        for node in block.body
    ]
    for node in checked:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Subscript)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "Literal"
        ):
            (target,) = node.targets
            assert isinstance(target, ast.Name)
            values = ast.literal_eval(node.value.slice)
            written[target.id] = values if isinstance(values, tuple) else (values,)
    assert written.keys() == module._LITERALS.keys()
    for name, values in written.items():
        assert module._LITERALS[name] == values, name
        assert get_args(getattr(module, name)) == values, name


def test_the_vocabulary_loads_without_typing() -> None:
    """`frontier --help` (the CLI parses its choices from here) never imports `typing`."""
    import subprocess
    import sys

    code = "import sys; from frontier.app import vocab; print('typing' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
