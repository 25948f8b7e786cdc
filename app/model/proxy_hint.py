"""Which proxy the environment sends a request through, for the message when it fails.

httpx honours ``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and ``NO_PROXY``, as curl
does. A shell that sets a company proxy sends a request for a model on this machine
(``http://127.0.0.1:8080/v1``) to that proxy, which cannot reach it, and the failure
read "cannot connect … Is the server running and is --base-url right?" while the server
was running and the URL right. The message now names the proxy and the way around it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from frontier.app.secrets import redact_url


def proxy_for(url: str, env: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """The proxy (credentials removed) and the variable naming it that ``url`` is sent
    through, as httpx chooses them from ``env`` (the process's environment); ``None``
    when it goes direct."""
    env = os.environ if env is None else env
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    for name in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY", "all_proxy", "ALL_PROXY"):
        proxy = env.get(name, "").strip()
        if proxy:
            break
    else:
        return None
    if _bypassed(host, parts.port, env.get("no_proxy") or env.get("NO_PROXY") or ""):
        return None
    shown = redact_url(proxy if "://" in proxy else f"http://{proxy}") or proxy
    return shown, name


def _bypassed(host: str, port: int | None, no_proxy: str) -> bool:
    """Whether ``NO_PROXY`` sends ``host`` direct (curl's reading, as httpx's: ``*``, a
    host, a domain suffix with or without its dot, ``host:port``)."""
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        name, _, entry_port = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        if entry_port and port is not None and entry_port != str(port):
            continue
        name = name.strip("[]").lstrip(".")
        if host.strip("[]") == name or host.endswith("." + name):
            return True
    return False


def proxy_advice(url: str, env: Mapping[str, str] | None = None) -> str:
    """A sentence for a failed request's message, or ``""`` when no proxy is in the way."""
    found = proxy_for(url, env)
    if found is None:
        return ""
    proxy, name = found
    host = urlsplit(url).hostname or ""
    return (
        f" The request went through the proxy {proxy} (${name}): if the server is not "
        f"reached that way, add {host} to NO_PROXY."
    )
