"""Git run on an untrusted repository: settings that keep it from running the
repository's programs.

A workspace's ``.git/config`` is the repository's to write (a tarball, a model's
command): it can name programs git runs on a status (``core.fsmonitor``), a filter's
``clean``/``smudge``, a pager, hooks. Every git Frontier runs itself — the environment
note's ``git status`` (``app/agent/environment.py``), a ``git checkout -- FILE`` read as
the patch it makes (``tools/restore_via_shell.py``) — runs with :data:`HARDENED` and
:func:`driver_overrides` on its command line, where they win over the repository's
config, and with only :data:`GIT_ENV` of Frontier's environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

from frontier.app.programs import find_program
from frontier.tools.bounded_run import Deadline, run_bounded

HARDENED = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "pager.status=false",
    "core.virtualFilesystem=",
    "protocol.allow=never",
    "submodule.recurse=false",
    "status.submoduleSummary=false",
    "diff.ignoreSubmodules=all",
    "safe.bareRepository=explicit",
)
"""``-c`` settings of every git run here: on the command line they win over the
repository's config. ``core.fsmonitor`` and ``core.virtualFilesystem`` (Microsoft's git)
name programs git runs on every status; ``protocol.allow=never`` stops the fetches a
partial clone makes for missing objects (and so ``core.sshCommand``, ``core.gitProxy``
and credential helpers); ``safe.bareRepository=explicit`` keeps git from taking a
workspace that looks like a bare repository, with its own ``config``, as one.
``diff.ignoreSubmodules=all``: ``status`` does not run git in a submodule to see whether
it changed — a command can write a nested repository's config, whose filters
:func:`driver_overrides` (which reads the top one's) never names; a low-level diff
(``diff-files``) ignores the setting and is given :data:`NO_SUBMODULES` as well."""
NO_SUBMODULES = "--ignore-submodules=all"
"""The option of every ``status`` and ``diff-files`` run here (:data:`HARDENED`)."""
GIT_ENV = ("PATH", "HOME", "USER", "LOGNAME", "XDG_CONFIG_HOME")
"""The only variables git gets from Frontier's environment: to be found and to read the
user's own settings; no token, no key."""
_DRIVERS = re.compile(
    r"(filter|diff)\.(.+)\.(clean|smudge|process|required|textconv|command)", re.DOTALL
)
CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Controls, bidi marks and lone surrogates (no request body can encode one): never in a
``-c`` name, nor in a name shown in the prompt (``environment.clean``)."""


def driver_overrides(names: bytes) -> list[str] | None:
    """``-c`` options emptying every filter and diff driver ``git config --list
    --name-only -z`` names (a filter's ``clean`` runs on ``git status`` for any file whose
    timestamps changed), and making no filter ``required``; ``None`` when a driver's name
    cannot be written as ``-c NAME=`` (it holds ``=`` or a control character)."""
    subsections: dict[str, set[str]] = {"filter": set(), "diff": set()}
    for raw in names.split(b"\0"):
        name = raw.decode("utf-8", "surrogateescape")
        match = _DRIVERS.fullmatch(name)
        if match is not None:
            subsections[match[1]].add(match[2])
    out: list[str] = []
    for section, keys in (
        ("filter", ("clean=", "smudge=", "process=", "required=false")),
        ("diff", ("textconv=", "command=")),
    ):
        for sub in sorted(subsections[section]):
            if "=" in sub or CONTROL.search(sub):
                return None
            out += [arg for key in keys for arg in ("-c", f"{section}.{sub}.{key}")]
    return out


def index_stat(path: str) -> tuple[int, int, int] | None:
    """A git index file's ``(inode, size, mtime)``, ``None`` when absent: git replaces the
    index by rename whenever it writes it, so an equal triple is the same index (what a
    command changed, and the submodules a sandbox binds, are read again only when not)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def settings() -> list[str]:
    """:data:`HARDENED` as ``-c`` options."""
    return [arg for setting in HARDENED for arg in ("-c", setting)]


def git_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment of a git run: :data:`GIT_ENV` from ``env``, no prompt, no optional
    lock, C messages, no pager."""
    out = {k: env[k] for k in GIT_ENV if k in env}
    out.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C", GIT_PAGER="cat")
    return out


def run_git(
    root: str,
    args: Sequence[str],
    limit: int = 1 << 20,
    timeout: float = 2.0,
    given: bytes = b"",
    overrides: Sequence[str] = (),
) -> tuple[int, bytes] | None:
    """``(exit status, stdout)`` of ``git -c HARDENED… OVERRIDES… --no-optional-locks
    ARGS`` in ``root``, ``given`` on its stdin (``overrides``: more ``-c`` options, such as
    :func:`driver_overrides`'); ``None`` when git is missing, cannot start, writes more
    than ``limit`` bytes or runs past ``timeout`` (``tools/bounded_run.py``)."""
    git = find_program("git", root)
    if git is None:
        return None
    return run_bounded(
        [git, *settings(), *overrides, "--no-optional-locks", *args],
        limit=limit,
        seconds=timeout,
        given=given,
        cwd=root,
        env=git_env(os.environ),
    )


def any_filtered(root: str, given: bytes, deadline: Deadline) -> bool:
    """Whether any of the files (``given``: NUL-ended names) has a ``filter`` attribute, so
    that checkout would run the filter's program (Git LFS): one ``git check-attr`` run;
    ``True`` when git cannot say."""
    said = run_git(
        root, ["check-attr", "-z", "--stdin", "filter"], given=given, timeout=deadline.left()
    )
    if said is None or said[0] != 0:
        return True
    fields = said[1].split(b"\0")
    return any(value not in (b"unspecified", b"unset") for value in fields[2:-1:3])


def blobs_within(root: str, blobs: Sequence[str], cap: int, deadline: Deadline) -> bool:
    """Whether each blob is at most ``cap`` bytes (one ``git cat-file --batch-check`` run: a
    repository's blob is its own to size, and checkout writes it whole)."""
    sized = run_git(
        root,
        ["cat-file", "--batch-check=%(objectsize)"],
        given="".join(b + "\n" for b in blobs).encode(),
        timeout=deadline.left(),
    )
    if sized is None or sized[0] != 0:
        return False
    sizes = sized[1].split()
    return len(sizes) == len(blobs) and all(s.isdigit() and int(s) <= cap for s in sizes)
