"""Which lexer highlights a file in a review (``widgets/lexer_for.py``): chosen from the
name, the way pygments would, without importing every lexer pygments has."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pygments.lexers import find_lexer_class_for_filename, get_lexer_by_name

from frontier.widgets.lexer_for import COMMON, lexer_for


@pytest.mark.parametrize("suffix", sorted(set(COMMON) - {".tcss"}))
def test_every_common_extension_is_a_pattern_of_the_lexer_it_names(suffix: str) -> None:
    lexer = get_lexer_by_name(COMMON[suffix])
    assert f"*{suffix}" in lexer.filenames, (suffix, type(lexer).__name__, lexer.filenames)


def test_names_resolve_as_pygments_would_and_unknown_ones_are_plain() -> None:
    assert lexer_for("src/app/main.py") == "python"
    assert lexer_for("README.MD") == "markdown"  # the extension's case does not matter
    assert lexer_for("Makefile") == "make"  # no extension: pygments' own patterns
    assert lexer_for("build/Dockerfile") == "docker"
    assert lexer_for("notes.txt") is None  # pygments' plain-text lexer colours nothing
    assert lexer_for("data.zzz-unknown") is None
    assert lexer_for("x.patch") == find_lexer_class_for_filename("x.patch").aliases[0]


def test_choosing_a_lexer_loads_only_the_lexers_it_needs() -> None:
    code = (
        "import sys\n"
        "from frontier.widgets.lexer_for import lexer_for\n"
        "from rich.syntax import Syntax\n"
        "for name in ('a.py', 'b.ts', 'Makefile', 'c.unknown'):\n"
        "    alias = lexer_for(name)\n"
        "    if alias: Syntax('x = 1', alias).highlight('x = 1')\n"
        "print(sum(m.startswith('pygments.lexers.') for m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = int(done.stdout.strip())
    assert loaded <= 12, loaded  # guessing from the text imported all ~230
