"""Where secrets are and what they look like, without the scrubbers: the environment
variables that hold keys, and the credentials in a URL — found (to scrub them wherever a
base URL is echoed) and redacted (to show or store a base URL).

Apart from ``secrets.py`` (its scrubbers compile a dozen patterns and build dataclasses at
import) so that ``frontier sessions``, which reads the store and shows each session's
endpoint, needs neither; ``secrets`` re-exports every name here.
"""

from __future__ import annotations

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
