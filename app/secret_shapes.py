"""Where secrets are and what they look like, without the scrubbers: the environment
variables that hold keys, and the credentials in a URL — found (to scrub them wherever a
base URL is echoed) and redacted (to show or store a base URL).

Apart from ``secrets.py`` (its scrubbers compile a dozen patterns and build dataclasses at
import) so that ``frontier sessions``, which reads the store and shows each session's
endpoint, needs neither; ``secrets`` re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Sequence

# ``urllib.parse`` is imported where a URL is read: with the ``ipaddress`` it imports, ~3 ms
# that ``frontier sessions`` (which imports this module and lists URLs already redacted)
# would pay for nothing (issue 24).

SECRET_ENV = ("FRONTIER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY")
"""The environment variables whose values are masked wherever Frontier writes (the keys of
every API a wire speaks, and of the providers people point it at)."""
REDACTED = "[REDACTED]"
"""What a redacted credential reads as (``secrets.REDACTED`` is this)."""
CREDENTIAL_PARAMS = ("key", "token", "secret", "password", "sig", "auth")
"""A URL query parameter whose name contains one of these carries a credential."""
URL_USERINFO_MASK = "***"
KEY_PREFIXES = (
    "sk-",
    "sk_",
    "ghp_",
    "gho_",
    "github_pat_",
    "hf_",
    "gsk_",
    "xoxb-",
    "xoxp-",
    "AIza",
)
"""Prefixes of vendors' API keys (OpenAI, Anthropic, OpenRouter, GitHub, Hugging Face,
Groq, Slack, Google): a URL *path* segment that starts with one and is 20 characters or
more is a key put there by a proxy's URL scheme (``https://proxy/sk-ant-…/v1``)."""
KEY_SEGMENT_LEN = 20
SECRET_NAME_PARTS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL")
"""A name holding one of these (any case) names a secret: such a variable is kept from a
tool's process (a command the model writes must not read ``GITHUB_TOKEN`` or
``AWS_SECRET_ACCESS_KEY`` and print them into the conversation; Codex CLI's default
excludes are ``*KEY*``, ``*SECRET*``, ``*TOKEN*``), and the word after such a flag in a
command line is not shown (:func:`argv_secrets`)."""
ARG_SECRET_MIN = 4
"""A shorter value after a secret-named flag is not hidden (``--token-limit 10``)."""
ARG_NUMBER_MIN = 8
"""Nor a number of fewer digits: a count (``--max-tokens 4096``), not a credential."""
SCHEMES = ("bearer ", "basic ")


def secret_named(name: str) -> bool:
    """``name`` (a variable, a flag, a parameter) names a secret (:data:`SECRET_NAME_PARTS`)."""
    upper = name.upper()
    return any(part in upper for part in SECRET_NAME_PARTS)


def argv_secrets(args: Sequence[str]) -> list[str]:
    """The secrets a command line holds as written (an MCP server's ``args``), so that what
    shows it — ``frontier mcp``, the doctor, a server's log — hides them: the word after a
    flag named like a secret (``--api-key VALUE``), the value of ``--token=VALUE`` or
    ``API_KEY=VALUE``, a word shaped like a vendor's key (``sk-…``), a URL's credentials and
    the token of a ``Bearer``/``Basic`` header value. Longest first, so that one holding
    another is replaced whole."""
    found: set[str] = set()
    for at, word in enumerate(args):
        name, eq, value = word.partition("=")
        flag = name.lstrip("-")
        if eq and flag and secret_named(flag) and " " not in name:
            found.add(value)
        elif word.startswith("-") and flag and secret_named(flag) and at + 1 < len(args):
            following = args[at + 1]
            found.update(() if following.startswith("-") else (following,))
        if "://" in word:
            found.update(url_secrets(word))
        lower = word.lower()
        for scheme in SCHEMES:
            if scheme in lower:
                token = word[lower.index(scheme) + len(scheme) :].strip().split(" ", 1)[0]
                found.add(token)
        found.update(w for w in (word, value) if _is_key_segment(w))
    return sorted((v for v in found if _may_be_secret(v)), key=len, reverse=True)


def _may_be_secret(value: str) -> bool:
    return len(value) >= ARG_SECRET_MIN and not (value.isdigit() and len(value) < ARG_NUMBER_MIN)


def hidden_argv(args: Sequence[str]) -> list[str]:
    """``args`` with :func:`argv_secrets` each ``[REDACTED]``."""
    secrets = argv_secrets(args)
    shown = []
    for word in args:
        for secret in secrets:
            word = word.replace(secret, REDACTED)
        shown.append(word)
    return shown


def url_secrets(url: str | None) -> list[str]:
    """Credentials a base URL carries: its user-info password, credential-like query
    values and key-shaped path segments (so they are scrubbed wherever they are echoed)."""
    if not url:
        return []
    from urllib.parse import unquote, urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = []
    if parts.password:
        found += [parts.password, unquote(parts.password)]
    for name, value in _query_pairs(parts.query):
        if value and _is_credential(name):
            found += [value, unquote(value)]
    for segment in parts.path.split("/"):
        if _is_key_segment(segment):
            found += [segment, unquote(segment)]
    return found


def _is_key_segment(segment: str) -> bool:
    """A URL path segment shaped like a vendor's API key (:data:`KEY_PREFIXES`)."""
    from urllib.parse import unquote

    return len(segment) >= KEY_SEGMENT_LEN and unquote(segment).startswith(KEY_PREFIXES)


def redact_url(url: str | None, *, userinfo: str = URL_USERINFO_MASK) -> str | None:
    """``url`` without its credentials: user-info becomes ``userinfo@`` (``""`` drops
    it), credential-like query values and key-shaped path segments ``[REDACTED]``; any
    other URL is unchanged."""
    if not url:
        return url
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        host = netloc.rsplit("@", 1)[1]
        netloc = f"{userinfo}@{host}" if userinfo else host
    query = (
        "&".join(
            f"{name}={REDACTED}" if _is_credential(name) and value else pair
            for pair, (name, value) in zip(
                parts.query.split("&"), _query_pairs(parts.query), strict=True
            )
        )
        if parts.query
        else ""
    )
    path = "/".join(REDACTED if _is_key_segment(seg) else seg for seg in parts.path.split("/"))
    if netloc == parts.netloc and query == parts.query and path == parts.path:
        return url
    return urlunsplit((parts.scheme, netloc, path, query, parts.fragment))


def _query_pairs(query: str) -> list[tuple[str, str]]:
    if not query:
        return []
    from urllib.parse import unquote

    pairs = []
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        pairs.append((unquote(name.replace("+", " ")), value))
    return pairs


def _is_credential(name: str) -> bool:
    lower = name.lower()
    return any(word in lower for word in CREDENTIAL_PARAMS)
