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
    """Credentials a base URL carries: its user-info password (a key-shaped user name
    too), credential-like values of its query, its fragment (``#access_token=…``) and its
    path parameters (``;token=…``), and key-shaped path segments — each as written and
    decoded, so they are scrubbed wherever they are echoed. Found by plain string
    handling (:func:`_url_pieces`): a URL ``urlsplit`` or httpx refuses (a broken IPv6
    host, a port out of range) is quoted in the error that refuses it."""
    if not url:
        return []
    _head, userinfo, _host, path, query, fragment = _url_pieces(url)
    found: list[str] = []
    user, colon, password = (userinfo or "").partition(":")
    if colon and password:
        found += [password, _unquote(password)]
    if _is_key_segment(user):
        found += [user, _unquote(user)]
    for value in _credential_values(path, query, fragment):
        found += [value, _unquote(value)]
    for segment in path.split("/"):
        if _is_key_segment(segment):
            found += [segment, _unquote(segment)]
    return found


def _url_pieces(url: str) -> tuple[str, str | None, str, str, str | None, str | None]:
    """``(scheme://, user-info, host, path, query, fragment)`` of ``url``, cut where
    ``urlsplit`` cuts (the fragment at the first ``#``, the query at the first ``?``, the
    host at the first ``/`` after ``://``, the user-info at the host's last ``@``) but
    checking nothing, so the cut never fails. ``None``: no ``@``, ``?`` or ``#`` at all
    (an empty one is kept, for the URL to be put back together as it was)."""
    rest, hash_, fragment = url.partition("#")
    rest, mark, query = rest.partition("?")
    head, netloc, path = "", "", rest
    scheme_end = rest.find("://")
    if scheme_end >= 0 and "/" not in rest[:scheme_end]:
        head, after = rest[: scheme_end + 3], rest[scheme_end + 3 :]
        slash = after.find("/")
        netloc, path = (after, "") if slash < 0 else (after[:slash], after[slash:])
    userinfo, at, host = netloc.rpartition("@")
    return (
        head,
        userinfo if at else None,
        host,
        path,
        query if mark else None,
        fragment if hash_ else None,
    )


def _credential_values(path: str, query: str | None, fragment: str | None) -> list[str]:
    """The value (as written) of each credential-named, non-empty parameter of the
    query, of the fragment (an OAuth implicit grant's ``#access_token=…``) and of each path
    segment (``/mcp;token=…``)."""
    pairs = [*_query_pairs(query or ""), *_query_pairs(fragment or "")]
    for segment in path.split("/"):
        pairs += _query_pairs(segment.partition(";")[2].replace(";", "&"))
    return [value for name, value in pairs if value and _is_credential(name)]


def _unquote(text: str) -> str:
    """``text`` percent-decoded; ``urllib.parse`` is imported only when there is a ``%``."""
    if "%" not in text:
        return text
    from urllib.parse import unquote

    return unquote(text)


def _is_key_segment(segment: str) -> bool:
    """A URL path segment shaped like a vendor's API key (:data:`KEY_PREFIXES`)."""
    return len(segment) >= KEY_SEGMENT_LEN and _unquote(segment).startswith(KEY_PREFIXES)


def redact_url(url: str | None, *, userinfo: str = URL_USERINFO_MASK) -> str | None:
    """``url`` without its credentials: user-info becomes ``userinfo@`` (``""`` drops
    it), credential-like values of the query, the fragment and path parameters and
    key-shaped path segments ``[REDACTED]``; anything else stays as written (a URL that
    does not parse as well: it is cut by :func:`_url_pieces`, which cannot fail)."""
    if not url:
        return url
    head, user, host, path, query, fragment = _url_pieces(url)
    shown = head
    if user is not None:
        shown += f"{userinfo}@" if userinfo else ""
    shown += host + "/".join(_redacted_segment(segment) for segment in path.split("/"))
    if query is not None:
        shown += "?" + _redacted_pairs(query)
    if fragment is not None:
        shown += "#" + _redacted_pairs(fragment)
    return url if shown == url else shown


def _redacted_segment(segment: str) -> str:
    """A path segment ``[REDACTED]`` when key-shaped, else its credential parameters'."""
    if _is_key_segment(segment):
        return REDACTED
    name, semi, params = segment.partition(";")
    if not semi:
        return segment
    return name + semi + ";".join(_redacted_pairs(param) for param in params.split(";"))


def _redacted_pairs(text: str) -> str:
    """``a=1&api_key=…``: each credential-named, non-empty value ``[REDACTED]``."""
    out = []
    for pair in text.split("&"):
        name, eq, value = pair.partition("=")
        decoded = _unquote(name.replace("+", " "))
        out.append(f"{name}={REDACTED}" if eq and value and _is_credential(decoded) else pair)
    return "&".join(out)


def _query_pairs(query: str) -> list[tuple[str, str]]:
    """``(name, value)`` of each ``&``-separated pair: the name decoded, the value as written."""
    if not query:
        return []
    pairs = []
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        pairs.append((_unquote(name.replace("+", " ")), value))
    return pairs


def _is_credential(name: str) -> bool:
    """A parameter named like a credential (:data:`CREDENTIAL_PARAMS`)."""
    lower = name.lower()
    return any(word in lower for word in CREDENTIAL_PARAMS)
