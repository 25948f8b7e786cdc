"""A workspace's own settings files (``.frontier/mcp.toml``, ``.frontier/checks.toml``) and
the trust the person gave what they declare.

A repository is untrusted input: what its files ask Frontier to run runs only once the
person approved exactly *that* entry for *this* workspace. The approval is a fingerprint of
what decides what runs, kept as ``"NAME sha256:HEX"`` rows in a list of the workspace's
entry in ``approvals.toml`` beside config.toml — outside every workspace, for the reason
the "always allow" rules are: the agent writes the workspace, and a trust record there
would let a model trust what it wrote. A changed entry has another fingerprint and waits
for the person again.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from frontier.app import toml_text
from frontier.app.config import load_approvals, save_approvals
from frontier.app.hashes import sha256_hex
from frontier.tools.beneath import PathError, read_capped

TrustState = Literal["trusted", "new", "changed"]


def read_project_toml(
    root: Path, name: str, cap: int, shown: str, unused: str
) -> tuple[dict[str, Any] | None, list[str]]:
    """The project file ``name`` parsed (``None``: absent or unusable) and notes for a file
    that cannot be used, each ending with ``unused`` (what that costs). Read beneath the
    root, at most ``cap`` bytes: a hostile gigabyte costs nothing."""
    try:
        data, size = read_capped(root, name, cap)
    except (PathError, OSError) as exc:
        return None, [f"{shown}: cannot be read ({exc}); {unused}"]
    if data is None:
        if size is None:
            return None, []
        return None, [f"{shown}: {size:,} bytes, more than {cap:,}; {unused}"]
    try:
        return toml_text.loads(data.decode("utf-8")), []
    except UnicodeDecodeError:
        return None, [f"{shown}: not UTF-8 text; {unused}"]
    except tomllib.TOMLDecodeError as exc:
        return None, [f"{shown}: invalid TOML ({exc}); {unused}"]


def fingerprint(fields: Mapping[str, object]) -> str:
    """``sha256:HEX`` of the settings that decide what runs."""
    text = json.dumps(dict(fields), sort_keys=True, default=str, ensure_ascii=False)
    return "sha256:" + sha256_hex(text.encode())


def trusted_rows(root: Path, key: str) -> tuple[dict[str, str], list[str]]:
    """``NAME -> fingerprint`` the person trusted in ``root``'s ``key`` list (malformed rows
    trust nothing), and notes for an approvals file that cannot be read."""
    entry, notes = load_approvals(root)
    values = entry.get(key, [])
    out: dict[str, str] = {}
    if isinstance(values, list):
        for value in values:
            if isinstance(value, str) and value.count(" ") == 1:
                name, print_ = value.split(" ")
                out[name] = print_
    return out, notes


def state(rows: Mapping[str, str], name: str, print_: str) -> TrustState:
    """Whether ``name`` as it is now (``print_``) is trusted, new, or changed since."""
    if rows.get(name) == print_:
        return "trusted"
    return "changed" if name in rows else "new"


def remember(
    root: Path, key: str, add: Mapping[str, str] | None = None, drop: Iterable[str] = ()
) -> Path:
    """Trust ``add`` (``NAME -> fingerprint``) and withdraw ``drop`` in ``root``'s ``key``
    list; the file written."""
    rows, _ = trusted_rows(root, key)
    rows.update(add or {})
    for name in drop:
        rows.pop(name, None)
    return save_approvals(root, {key: [f"{n} {p}" for n, p in sorted(rows.items())]})
