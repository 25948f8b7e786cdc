"""A sandboxed MCP server started by a launcher that fetches it (``npx``, ``uvx``…).

Most servers' own instructions start them so: ``npx -y @modelcontextprotocol/server-
filesystem``, ``uvx mcp-server-git``, ``uv --directory PROJECT run server.py`` (the MCP
quickstart's). The launcher writes its cache on every run (npm
``~/.npm/_cacache`` and ``_npx``, uv ``~/.cache/uv``), which the sandbox mounts read-only:
such a server could not start sandboxed at all, network or not ("EROFS: read-only file
system, open '/root/.npm/_cacache/tmp/…'"). Making the person's own cache writable would
let a server poison what their own unsandboxed ``npx`` runs later, so each server gets a
cache of its own under Frontier's data folder, writable in its sandbox only, named to the
launcher by its own variable. Its first start downloads the server there (it needs
``network = true``); with the network off, the launcher is told to use what it has
without asking the registry (npm would retry for a minute before falling back).
"""

from __future__ import annotations

from pathlib import Path

DOWNLOADERS = frozenset({"npx", "uvx", "bunx", "pipx", "pnpx", "dlx"})
"""Launchers that fetch the server on its first run (a start then takes far longer)."""

CACHE_VARIABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "npx": (("npm_config_cache", "npm"),),
    "bunx": (("BUN_INSTALL_CACHE_DIR", "bun"),),
    "uvx": (
        ("UV_CACHE_DIR", "uv-cache"),
        ("UV_TOOL_DIR", "uv-tools"),  # uvx makes ~/.local/share/uv/tools even to run
        ("UV_PYTHON_INSTALL_DIR", "uv-python"),  # a Python it downloads
    ),
    "pipx": (("PIPX_HOME", "pipx"),),
    # ``uv --directory PROJECT run server.py``: the MCP quickstart's own way to start one
    "uv": (("UV_CACHE_DIR", "uv-cache"), ("UV_PYTHON_INSTALL_DIR", "uv-python")),
}
"""Launcher → the variables that move what it writes, each to a subfolder of the cache."""

OFFLINE = {
    "npx": {"npm_config_prefer_offline": "true", "npm_config_fetch_retries": "0"},
    "uvx": {"UV_OFFLINE": "1"},
    "uv": {"UV_OFFLINE": "1"},
}
"""Launcher → what makes it run from its cache without the registry (network off)."""

OFFLINE_WORDS = {
    "uvx": ("network was disabled", "network is disabled"),
    "uv": ("network was disabled", "network is disabled"),
    "npx": ("ENOTCACHED",),
}
"""What a launcher told to stay offline says when its cache lacks the server."""


CONTAINER_ENGINES = frozenset({"docker", "podman", "nerdctl"})
"""Commands that run the server in a container of their own, through a socket the sandbox
hides (reaching it would let a sandboxed process start anything, unconfined): they are
told apart only to say so when one cannot start."""


def container_engine(command: str | None) -> bool:
    """``command`` is a container engine (by its file name)."""
    return Path(command or "").name in CONTAINER_ENGINES


def launcher(command: str | None) -> str | None:
    """The launcher ``command`` names (by its file name), if it is one this module knows."""
    name = Path(command or "").name
    return name if name in CACHE_VARIABLES else None


def private_cache(
    command: str | None, network: bool, folder: Path
) -> tuple[dict[str, str], Path | None]:
    """The environment a sandboxed server started by ``command`` gets, and the folder
    (``folder``, made here) its sandbox must let it write; ``({}, None)`` for a command
    that is not a known launcher."""
    name = launcher(command)
    if name is None:
        return {}, None
    folder.mkdir(parents=True, exist_ok=True)
    env = {variable: str(folder / sub) for variable, sub in CACHE_VARIABLES[name]}
    if not network:
        env.update(OFFLINE.get(name, {}))
    return env, folder


def offline_refusal(command: str | None, lines: list[str]) -> str | None:
    """What the sandbox refused, said as :func:`~frontier.tools.sandbox.stopped_by` says it,
    when a launcher kept offline (:data:`OFFLINE`) says the server was not in its cache:
    uv then names no failed lookup, only that the network was disabled."""
    from frontier.tools.sandbox import NO_DOWNLOAD

    words = OFFLINE_WORDS.get(launcher(command) or "", ())
    for line in lines:
        if any(word in line for word in words):
            return f"{NO_DOWNLOAD}: {line[:200]}"
    return None
