"""The workload of experiment C: the tool calls every framing renders and is cut on.

A workload is a tuple of :class:`WorkCall` — a tool name and its arguments as the
model means them (JSON values: strings, numbers, booleans, lists, objects), in the
shapes of the real tools (``tools/registry.py``). It comes from one of three places:

* :func:`builtin_workload` — a realistic mix: reads, a grep, small edits (``replace``,
  ``multi``), a 5 KB ``write``, a multi-file ``apply_patch`` and a ``shell`` call;
* :func:`load_calls` — a JSON file holding a list of ``{"name": …, "args": {…}}``;
* :func:`session_calls` — the calls of a stored session, in the order they were made.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from frontier.app.events import json_value
from frontier.app.record import record
from frontier.app.wire import safejson


class WorkloadError(ValueError):
    """A workload cannot be read; the message says what is wrong and where."""


@record
class WorkCall:
    """One tool call of a workload: what the model means, before any framing."""

    name: str
    args: Mapping[str, Any]

    def payload(self) -> int:
        """The call's size in bytes, the same whatever the framing: its argument values
        as UTF-8 (strings as they are, anything else as compact JSON)."""
        return sum(len(value_text(v).encode("utf-8")) for v in self.args.values())


def value_text(value: Any) -> str:
    """An argument value as the text a text framing carries: a string as it is,
    anything else as compact JSON (``200``, ``true``, ``[{"old": …}]``)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- built in

_USAGE_LINE = (
    "| `greet {flag}` | prints the greeting {what}; combine it with other flags freely |\n"
)


def _usage_doc(size: int = 5 * 1024) -> str:
    """A Markdown page of about ``size`` bytes (a few non-ASCII characters, so byte and
    character counts differ, as they do in real files)."""
    head = (
        "# Using greet\n\n"
        "`greet` prints a friendly greeting — « Hello, Ada! » — and exits 0.\n\n"
        "## Flags\n\n| flag | effect |\n|---|---|\n"
    )
    parts = [head]
    total = len(head.encode())
    i = 0
    while total < size - 200:
        line = _USAGE_LINE.format(flag=f"--style-{i}", what=f"in style n°{i}")
        parts.append(line)
        total += len(line.encode())
        i += 1
    tail = "\n## Exit status\n\n0 on success, 2 for a usage error (argparse's own).\n"
    parts.append(tail)
    return "".join(parts)


_PATCH = """\
--- a/greet/cli.py
+++ b/greet/cli.py
@@ -6,6 +6,7 @@
 def build_parser() -> argparse.ArgumentParser:
     parser = argparse.ArgumentParser(prog="greet", description="Print a friendly greeting.")
     parser.add_argument("name", help="who to greet")
+    parser.add_argument("--shout", action="store_true", help="greet in capitals")
     return parser


@@ -15,7 +16,8 @@

 def main(argv: list[str] | None = None) -> int:
     args = build_parser().parse_args(argv)
-    print(greeting(args.name))
+    text = greeting(args.name)
+    print(text.upper() if args.shout else text)
     return 0


--- a/tests/test_cli.py
+++ b/tests/test_cli.py
@@ -15,3 +15,6 @@
 class GreetTest(unittest.TestCase):
     def test_greets_by_name(self) -> None:
         self.assertEqual(run("Ada"), (0, "Hello, Ada!\\n"))
+
+    def test_shout_prints_capitals(self) -> None:
+        self.assertEqual(run("--shout", "Ada"), (0, "HELLO, ADA!\\n"))
--- /dev/null
+++ b/CHANGELOG.md
@@ -0,0 +1,3 @@
+# Changelog
+
+- `greet --shout NAME` prints the greeting in capitals.
"""


def builtin_workload() -> tuple[WorkCall, ...]:
    """Twelve calls of one coding task, in the argument shapes of the real tools."""
    return (
        WorkCall("read", {"path": "greet/cli.py"}),
        WorkCall("grep", {"pattern": "def main", "path": ".", "glob": "*.py"}),
        WorkCall("read", {"path": "tests/test_cli.py", "offset": 1, "limit": 40}),
        WorkCall("glob", {"pattern": "docs/**/*.md"}),
        WorkCall(
            "replace",
            {
                "path": "greet/core.py",
                "old": 'def greeting(name: str) -> str:\n    return f"Hello, {name}!"\n',
                "new": 'def greeting(name: str, punct: str = "!") -> str:\n'
                '    """The greeting for ``name``."""\n'
                '    return f"Hello, {name}{punct}"\n',
            },
        ),
        WorkCall("apply_patch", {"patch": _PATCH}),
        WorkCall("write", {"path": "docs/USAGE.md", "content": _usage_doc()}),
        WorkCall(
            "multi",
            {
                "path": "README.md",
                "edits": [
                    {"old": "    python3 -m greet.cli Ada\n", "new": "    greet Ada\n"},
                    {"old": "## Install", "new": "## Installing"},
                ],
            },
        ),
        WorkCall(
            "replace",
            {"path": "pyproject.toml", "old": 'version = "0.1.0"', "new": 'version = "0.2.0"'},
        ),
        WorkCall("read", {"path": "README.md", "limit": 20}),
        WorkCall("shell", {"command": "python3 -m unittest -v", "timeout": 60}),
        WorkCall("shell", {"command": "git diff --stat"}),
    )


# --------------------------------------------------------------------------- from outside


def calls_from_json(value: Any, source: str = "<calls>") -> tuple[WorkCall, ...]:
    """A workload from a parsed JSON list of ``{"name": str, "args": object}``
    (``arguments`` is accepted for ``args``, as the OpenAI shape names it)."""
    if not isinstance(value, list):
        raise WorkloadError(f"{source}: expected a JSON list of {{name, args}} objects")
    out: list[WorkCall] = []
    for i, item in enumerate(value):
        where = f"{source}: call #{i + 1}"
        if not isinstance(item, dict):
            raise WorkloadError(f"{where} is a JSON {type(item).__name__}, not an object")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise WorkloadError(f'{where} has no "name" string')
        args = item.get("args", item.get("arguments", {}))
        if isinstance(args, str):
            try:
                args = safejson.loads(args) if args.strip() else {}
            except safejson.JsonLimitError as exc:
                raise WorkloadError(f'{where} ({name}): "args" is {exc}') from exc
            except json.JSONDecodeError as exc:
                raise WorkloadError(f'{where} ({name}): "args" is not JSON: {exc.msg}') from exc
        if not isinstance(args, dict):
            raise WorkloadError(f'{where} ({name}): "args" must be an object')
        out.append(WorkCall(name, dict(args)))
    if not out:
        raise WorkloadError(f"{source}: the list has no calls")
    return tuple(out)


def load_calls(path: str | Path) -> tuple[WorkCall, ...]:
    """The workload in a JSON file (``--calls FILE``)."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except OSError as exc:
        raise WorkloadError(f"{p}: cannot read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise WorkloadError(f"{p}: not UTF-8 text at byte {exc.start}") from exc
    try:
        value = safejson.loads(text)
    except safejson.JsonLimitError as exc:
        raise WorkloadError(f"{p}: the JSON is {exc}") from exc
    except json.JSONDecodeError as exc:
        raise WorkloadError(f"{p}: not JSON: {exc.msg} (line {exc.lineno})") from exc
    return calls_from_json(value, str(p))


def session_calls(id_or_prefix: str, path: Path | None = None) -> tuple[WorkCall, ...]:
    """The calls a stored session made, oldest first (``--session ID``); bytes values
    (a non-UTF-8 CTL body) come as their JSON form (``{"base64": …}``)."""
    from frontier.app.session.store import SessionStore, StoreError, existing_store

    try:
        where = existing_store(path)
        if where is None:
            raise WorkloadError(f"no session store yet, so no session {id_or_prefix!r}")
        store = SessionStore.open_readonly(where)
    except StoreError as exc:
        raise WorkloadError(str(exc)) from exc
    try:
        info = store.get_session(id_or_prefix)
        records = store.calls(info.id)
    except StoreError as exc:
        raise WorkloadError(str(exc)) from exc
    finally:
        store.close()
    calls = tuple(WorkCall(r.name, {k: json_value(v) for k, v in r.args.items()}) for r in records)
    if not calls:
        raise WorkloadError(f"session {info.id} made no tool calls")
    return calls


def describe(calls: Sequence[WorkCall]) -> str:
    """``12 calls, 9,870 payload bytes (largest: write 5,102)``."""
    biggest = max(calls, key=WorkCall.payload)
    total = sum(c.payload() for c in calls)
    return (
        f"{len(calls)} calls, {total:,} payload bytes "
        f"(largest: {biggest.name} {biggest.payload():,})"
    )
