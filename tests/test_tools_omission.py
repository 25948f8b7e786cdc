"""An edit whose new text holds ``// ... existing code ...`` where the file had code is
refused before the review: written, the placeholder deletes that code."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_tools_fakes import call, make_boundary, model_has_read

from frontier.tools.omission import placeholder

CLASS = "class A:\n    def one(self):\n        return 1\n\n    def two(self):\n        return 2\n"


@pytest.mark.parametrize(
    "line",
    [
        "// ... existing code ...",
        "    # ... rest of the methods unchanged ...",
        "{/* ... existing code ... */}",
        "(rest of methods ...)",
        "  // ... (keep the existing interfaces)",
        "<!-- ... other components ... -->",
        "// (...rest of implementations)",
        "# rest of the file remains the same…",
        "-- ... remaining columns ...",
    ],
)
def test_the_placeholders_models_write_are_known(line: str) -> None:
    assert placeholder(line) is not None


@pytest.mark.parametrize(
    "line",
    [
        "    ...",  # Python's Ellipsis: a stub's body
        "def f(*args): ...",
        "return {...state, existing: true}",
        "const all = [...rest, ...existing];",
        "print('... rest of output ...')",
        "// Note: ... existing callers are unchanged",  # an ellipsis inside prose
        "# TODO ...",
        "# ... " + "rest of " * 20,  # too long for a stand-in
    ],
)
def test_code_and_prose_with_an_ellipsis_are_not(line: str) -> None:
    assert placeholder(line) is None


@pytest.mark.parametrize(
    ("name", "args"),
    [
        (
            "write",
            {
                "content": "class A:\n    def one(self):\n        return 10\n\n"
                "    # ... rest unchanged ...\n"
            },
        ),
        (
            "replace",
            {
                "old": "    def two(self):\n        return 2\n",
                "new": "    # ... existing code ...\n",
            },
        ),
        (
            "multi",
            {
                "edits": [
                    {"old": "return 1", "new": "return 11"},
                    {
                        "old": "    def two(self):\n        return 2\n",
                        "new": "    # ... other methods ...\n",
                    },
                ]
            },
        ),
    ],
)
async def test_an_edit_leaving_a_placeholder_where_code_was_writes_nothing(
    tmp_path: Path, name: str, args: dict[str, object]
) -> None:
    (tmp_path / "a.py").write_text(CLASS)
    r = await make_boundary(tmp_path).run(call(name, path="a.py", **args))
    assert r.kind == "arg", r.output
    assert "stands for code left out" in r.output and "nothing was written" in r.output
    assert (tmp_path / "a.py").read_text() == CLASS


async def test_a_patch_adding_a_placeholder_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(CLASS)
    patch = (
        "*** Begin Patch\n*** Update File: a.py\n@@\n     def one(self):\n-        return 1\n"
        "-\n-    def two(self):\n-        return 2\n+        return 1\n"
        "+    # ... rest of the class ...\n"
        "*** End Patch\n"
    )
    r = await make_boundary(tmp_path).run(call("apply_patch", patch=patch))
    assert r.kind == "arg" and "line 4 as the edit leaves it" in r.output, r.output
    assert (tmp_path / "a.py").read_text() == CLASS


async def test_a_placeholder_the_file_had_a_new_file_and_prose_are_written(tmp_path: Path) -> None:
    """Nothing is deleted behind them: editing around a placeholder already there, a new
    file (nothing to lose), a README that shows one."""
    (tmp_path / "a.py").write_text("x = 1\n# ... rest of the file unchanged ...\n")
    b = make_boundary(tmp_path)
    kept = await b.run(call("replace", 1, path="a.py", old="x = 1", new="x = 2"))
    assert kept.kind == "ok", kept.output
    made = await b.run(call("write", 2, path="new.py", content="# ... existing code ...\n"))
    assert made.kind == "ok", made.output
    (tmp_path / "README.md").write_text("old\n")
    model_has_read(b, "README.md")
    shown = await b.run(call("write", 3, path="README.md", content="// ... existing code ...\n"))
    assert shown.kind == "ok", shown.output
    twice = await b.run(
        call("write", 4, path="a.py", content="x = 3\n# ... rest of the file unchanged ...\n" * 2)
    )
    assert twice.kind == "arg", twice.output  # one more than the file had


PIECES = ["// ", "# ", "... ", "…", "rest of the code", "existing", "x = [...a]", " ", "\n"]


@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_the_lines_looked_at_are_every_line_with_an_ellipsis(pieces: list[str]) -> None:
    """Only lines holding an ellipsis are looked at (a 4 MB file costs its ellipses): the
    same placeholders, on the same line numbers, as looking at every line."""
    from frontier.tools.omission import _placeholders

    text = "".join(pieces)
    every = [
        (n, found, line.strip())
        for n, line in enumerate(text.split("\n"), 1)
        if (found := placeholder(line)) is not None
    ]
    assert list(_placeholders(text)) == every
