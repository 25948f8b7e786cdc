"""``pathlib``, imported without ``urllib.parse`` (and the ``ipaddress`` it imports).

pathlib imports ``urllib.parse`` for one function, ``quote_from_bytes``, which only
``PurePath.as_uri()`` calls; and since Python 3.11.4 ``urllib.parse`` imports
``ipaddress``. Together that is ~3 ms of every command's start-up in a regular install,
more than ``frontier sessions`` spends on its own work (issue 24; ``bench/startup.py
--installed``). Every command but ``--help`` needs pathlib, none of them ``urllib``.

So pathlib is imported with a stand-in ``urllib.parse`` whose ``quote_from_bytes`` imports
the real one on its first call and hands over: ``as_uri`` gives what it gave before. The
stand-in is in ``sys.modules`` only while pathlib is imported, so a later ``import
urllib.parse`` anywhere (httpx) gets the real module. Where pathlib or ``urllib.parse`` is
loaded already (an editable install's finder loads both at start-up), nothing is done.
``app/argparse_lean.py`` does the same for argparse's ``gettext``.
"""

from __future__ import annotations

import sys


def load() -> None:
    """Import pathlib (see above); once it is imported, calling this costs a lookup."""
    if "pathlib" in sys.modules or "urllib.parse" in sys.modules:
        return
    stand_in = type(sys)("urllib.parse")

    def quote_from_bytes(bs: bytes, safe: str = "/") -> str:
        import urllib.parse  # the real one: the stand-in left sys.modules with pathlib's import

        return urllib.parse.quote_from_bytes(bs, safe)

    stand_in.quote_from_bytes = quote_from_bytes  # type: ignore[attr-defined]
    sys.modules["urllib.parse"] = stand_in
    try:
        import pathlib  # kept in sys.modules for every later import
    except ImportError:  # a Python whose pathlib wants more of urllib.parse: the real one
        sys.modules.pop("pathlib", None)
        del sys.modules["urllib.parse"]
        import pathlib  # noqa: F401
    finally:
        if sys.modules.get("urllib.parse") is stand_in:
            del sys.modules["urllib.parse"]
