"""``app/percent.py`` escapes as ``urllib.parse.quote`` does (it stands in for it on the
commands' start-up path), and ``app/pathlib_lean.py`` leaves pathlib whole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, unquote_to_bytes

from hypothesis import given
from hypothesis import strategies as st
from regular_install import bare_env

from frontier.app.percent import percent_encode


@given(st.text(), st.sampled_from(["", "/", "/:@"]))
def test_percent_encode_is_quote(text: str, safe: str) -> None:
    raw = text.encode("utf-8", "surrogatepass")
    assert percent_encode(raw, safe.encode()) == quote(raw, safe=safe)


@given(st.binary())
def test_percent_encode_round_trips_any_bytes(raw: bytes) -> None:
    """A file name that is not UTF-8 (the store's path) comes back byte for byte."""
    assert unquote_to_bytes(percent_encode(raw, b"/")) == raw


LEAN = """
import sys
from frontier.app import pathlib_lean
pathlib_lean.load()
loaded = "urllib.parse" in sys.modules
import pathlib
uri = pathlib.PurePosixPath("/tmp/a b/ü?#%").as_uri()
import urllib.parse
print(loaded, uri, urllib.parse.quote is not None, hasattr(urllib.parse, "urlsplit"))
"""


def test_pathlib_without_urllib_still_makes_uris_and_leaves_the_real_module(
    tmp_path: Path,
) -> None:
    out = subprocess.run(
        [sys.executable, "-S", "-c", LEAN],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env=bare_env(tmp_path),
    )
    assert out.stdout.split() == [
        "False",
        "file:///tmp/a%20b/%C3%BC%3F%23%25",
        "True",
        "True",
    ]
