"""The CLI cannot forget the terminal-safety rule: one character class, one way out.

``tests/test_cli_hostile_output.py`` walks every command over a hostile session; this file
holds the rule itself: ``dumps`` keeps JSON exact while escaping the class, ``safe_print``
is ``print`` made safe, and no command module (nor the headless front end) writes to a
stream any other way — so a new command, or a new line in an old one, is refused here
before it can print a model's escape sequence raw.
"""

from __future__ import annotations

import ast
import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.frontends.terminal_text import (
    UNSAFE,
    dumps,
    json_safe,
    safe_print,
    terminal_safe,
)

APP = Path(__file__).resolve().parent.parent / "app"
PRINTING_MODULES = [*sorted((APP / "commands").glob("*.py")), APP / "frontends" / "headless.py"]
"""Every module that writes what a person reads on the CLI."""
SAFE_CALLS = frozenset({"terminal_safe", "json_safe", "dumps", "safe_print"})
NOT_A_TERMINAL = "# not a terminal"
"""The comment that marks a ``.write`` to a file (its text made safe where it was built)."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values, st.sampled_from([None, 2]))
def test_json_output_is_exact_and_holds_no_raw_control(value: object, indent: int | None) -> None:
    text = dumps(value, indent=indent)
    assert json.loads(text) == value
    assert not UNSAFE.search(text)


def test_json_escapes_what_ensure_ascii_false_leaves_raw() -> None:
    value = {"prompt": "a\x7fb\x9b31m\u202ec\u2066d\u200e", "ok": "é ✓ 日本"}
    text = dumps(value)
    assert text == ('{"prompt": "a\\u007fb\\u009b31m\\u202ec\\u2066d\\u200e", "ok": "é ✓ 日本"}')
    assert json_safe(json.dumps(value, ensure_ascii=False)) == text


@given(st.lists(st.text(), max_size=4), st.text(max_size=3), st.text(max_size=3))
def test_safe_print_is_print_made_safe(values: list[str], sep: str, end: str) -> None:
    out, expected = io.StringIO(), io.StringIO()
    safe_print(*values, sep=sep, end=end, file=out)
    print(*values, sep=sep, end=end, file=expected)
    assert out.getvalue() == terminal_safe(expected.getvalue())
    assert not UNSAFE.search(out.getvalue())


@given(st.text(st.characters(exclude_categories=())))
def test_only_valid_utf8_leaves_even_from_undecodable_bytes(text: str) -> None:
    """Lone surrogates (a byte that is not UTF-8, as Python holds it) are escaped too:
    written to a ``surrogateescape`` stream (stdout under C.UTF-8) they were the raw bytes."""
    assert not UNSAFE.search(terminal_safe(text))
    terminal_safe(text).encode("utf-8")  # strict: nothing left to write raw
    assert json.loads(dumps(text)) == text  # JSON still exact
    dumps(text).encode("utf-8")


def test_an_undecodable_byte_is_shown_as_that_byte() -> None:
    name = b"n\x9b31m\xff.txt".decode("utf-8", "surrogateescape")
    out = io.BytesIO()
    stream = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape")
    safe_print(name, file=stream)
    stream.flush()
    assert out.getvalue() == b"n\\x9b31m\\xff.txt\n"
    assert dumps(name) == '"n\\udc9b31m\\udcff.txt"'


def test_safe_print_goes_to_stdout_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    safe_print("a\x1b[2J", 3, flush=True)
    assert capsys.readouterr().out == "a\\x1b[2J 3\n"


def _callee(call: ast.Call) -> str:
    """``print``, ``json.dumps``, ``sys.stdout.buffer.write``: what the call names."""
    return ast.unparse(call.func)


def _made_safe(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call) and _callee(n) in SAFE_CALLS  # json.dumps is not dumps
        for n in ast.walk(node)
    )


def unsafe_writes(source: str, name: str) -> list[str]:
    """``print``, ``json.dump(s)`` and stream writes in ``source`` that bypass the helpers,
    as ``name:line: call``."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        callee = _callee(node)
        bad = callee in ("print", "json.dumps", "json.dump")
        if callee.endswith((".write", ".writelines")):
            marked = NOT_A_TERMINAL in lines[node.lineno - 1]
            bad = not marked and not any(_made_safe(arg) for arg in node.args)
        if bad:
            found.append(f"{name}:{node.lineno}: {callee}(...)")
    return found


def test_the_rule_finds_a_bare_print() -> None:
    source = (
        "import json, sys\n"
        "print('x')\n"
        "sys.stdout.write(json.dumps({}))\n"
        "sys.stdout.write(dumps({}))\n"
        "out.write(line + '\\n')\n"
        "fh.write(text)  # not a terminal: a file\n"
    )
    assert sorted(unsafe_writes(source, "probe")) == [
        "probe:2: print(...)",
        "probe:3: json.dumps(...)",
        "probe:3: sys.stdout.write(...)",
        "probe:5: out.write(...)",
    ]


@pytest.mark.parametrize("path", PRINTING_MODULES, ids=lambda p: p.name)
def test_every_command_prints_through_the_helpers(path: Path) -> None:
    """A command writes text with ``safe_print`` and JSON with ``dumps`` (or a ``.write``
    of something one of them made); a file write says so with ``# not a terminal``."""
    assert unsafe_writes(path.read_text(encoding="utf-8"), path.name) == []
