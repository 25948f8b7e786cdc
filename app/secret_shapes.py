"""Where secrets are and what they look like, without the scrubbers: the environment
variables that hold keys, and the credentials in a URL — found (to scrub them wherever a
base URL is echoed) and redacted (to show or store a base URL).

Apart from ``secrets.py`` (its scrubbers compile a dozen patterns and build dataclasses at
import) so that ``frontier sessions``, which reads the store and shows each session's
endpoint, needs neither; ``secrets`` re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

TYPE_CHECKING = False  # typing is not imported at run time
if TYPE_CHECKING:
    from typing import Any

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
KeyShape = tuple[str, str, int, int, bool]
"""``(prefix, the characters after it as a regex class's inside, at least, at most, a
digit required among them)``."""
KEY_SHAPES: tuple[KeyShape, ...] = (
    ("sk-", "A-Za-z0-9_-", 20, 256, True),  # OpenAI sk-proj-…, Anthropic sk-ant-api03-…,
    # OpenRouter sk-or-v1-…, DeepSeek; a digit: ``sk-learn-compatible-estimator`` is a word
    ("sk_", "A-Za-z0-9", 32, 256, True),  # ElevenLabs (hex: no ``_``, unlike a name)
    ("sk_live_", "A-Za-z0-9", 20, 256, False),  # Stripe
    ("sk_test_", "A-Za-z0-9", 20, 256, False),
    ("ghp_", "A-Za-z0-9", 30, 251, False),  # GitHub: personal, OAuth, user, server, refresh
    ("gho_", "A-Za-z0-9", 30, 251, False),
    ("ghu_", "A-Za-z0-9", 30, 251, False),
    ("ghs_", "A-Za-z0-9", 30, 251, False),
    ("ghr_", "A-Za-z0-9", 30, 251, False),
    ("github_pat_", "A-Za-z0-9_", 40, 251, False),  # GitHub fine-grained
    ("hf_", "A-Za-z0-9", 30, 256, False),  # Hugging Face
    ("gsk_", "A-Za-z0-9", 40, 256, False),  # Groq
    ("xoxb-", "A-Za-z0-9-", 20, 256, False),  # Slack
    ("xoxp-", "A-Za-z0-9-", 20, 256, False),
    ("AIza", "A-Za-z0-9_-", 35, 35, False),  # Google
    ("glpat-", "A-Za-z0-9_-", 20, 256, False),  # GitLab
    ("npm_", "A-Za-z0-9", 36, 256, False),  # npm
    ("pypi-", "A-Za-z0-9_-", 50, 256, False),  # PyPI
    ("AKIA", "A-Z0-9", 16, 16, False),  # AWS access key id (long-lived, temporary)
    ("ASIA", "A-Z0-9", 16, 16, False),
)
"""Vendors' API keys by their shape: the one list. A word of :data:`KEY_CHARS` that starts
with a prefix and whose rest fits — in any text, bare (``GH=ghp_…`` printed by ``cat
.env``, an MCP tool's answer) — is a key (:func:`key_spans`): scrubbed from what is shown,
stored and sent to the model. A word, never part of one (``my_sk_…``, a longer run), so
ordinary names are left alone; the lengths are each vendor's, the fewest a little under
(a key is never shorter), the most a bound on what a stream holds back for one."""
KEY_PREFIXES = tuple(dict.fromkeys(shape[0] for shape in KEY_SHAPES))
"""The prefixes of :data:`KEY_SHAPES`: a URL *path* segment that starts with one and is
20 characters or more is a key put there by a proxy's URL scheme
(``https://proxy/sk-ant-…/v1``), as is such a word of a command line."""
KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
"""What a key's word is made of: a key starts where a run of these does (or just after a
JSON escape, ``\\n`` or ``\\u001b``: a request body is JSON text) and ends where it ends."""
KEY_LONGEST = max(len(shape[0]) + shape[3] for shape in KEY_SHAPES)
KEY_SEGMENT_LEN = 20
SECRET_NAME_PARTS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL")
"""A name holding one of these (any case) names a secret: such a variable is kept from a
tool's process (a command the model writes must not read ``GITHUB_TOKEN`` or
``AWS_SECRET_ACCESS_KEY`` and print them into the conversation; Codex CLI's default
excludes are ``*KEY*``, ``*SECRET*``, ``*TOKEN*``), and the word after such a flag in a
command line is not shown (:func:`argv_secrets`)."""
ARG_SECRET_WORDS = frozenset(
    {"key", "apikey", "token", "secret", "password", "passwd", "pass", "pwd", "credential",
     "credentials", "auth", "authorization", "pat", "bearer", "cookie"}
)  # fmt: skip
"""The last word of a flag, variable or header name that says its value is a secret
(``--api-key``, ``GITHUB_TOKEN``, ``X-Api-Key:``), in a command line. Stricter than
:func:`secret_named` (which withholds a variable from tools, where a false alarm costs
nothing): ``--tokenizer``, ``--max-tokens``, ``--token-file`` or ``--monkey-patch`` name
no secret, and hiding their values hid ``gpt2`` in every word."""
NOT_SECRET_KEYS = frozenset(
    {"sort", "foreign", "public", "partition", "group", "cache", "hash", "map", "lookup",
     "index", "id", "shortcut", "row", "column", "unique", "idempotency", "dedup", "object",
     "cursor", "order", "hot", "short", "prefix"}
)  # fmt: skip
"""A word before ``key`` that makes it a name, not a credential (``--sort-key``; not
``primary``, ``routing``: Azure's primary keys and PagerDuty's routing keys are
credentials)."""
ARG_SECRET_MIN = 4
"""A shorter value is not hidden (``--auth no``)."""
ARG_NUMBER_MIN = 8
"""Nor a number of fewer digits: a port or a count, not a credential."""
SCRUB_MIN = 8
"""What a session's scrubber learns is at least this long (``Scrubber.add``'s bound)."""
SPLIT_MAX = 4096
"""A word longer than this is not read again as a script's words (``sh -c "…"``)."""
SPLIT_BUDGET = 1 << 16
"""Characters of a command line's words read again as scripts' words, in all: a
project's file is untrusted, and ``shlex`` is slow."""
SCHEMES = ("bearer ", "basic ", "token ")
"""An ``Authorization`` value's scheme, kept shown before its hidden token."""
_HEADER_RE = r"\s*([A-Za-z][\w-]{0,63})\s*:\s*(\S.*)"
"""A word that is a header (``X-Api-Key: VALUE``, ``Authorization: Bearer …``)."""
_ASSIGNED_RE = r"(?<![\w.])([A-Za-z][\w.-]{0,63})=([^;&\s'\"]+)"
"""``NAME=VALUE`` inside a word: ``--token=…``, ``API_KEY=…``, a URL's ``?api_key=…``, a
connection string's ``Password=…;`` (a name's length bounded: every ``-`` of a long run
began a scan to its end)."""
_URL_RE = r"(?<![\w+.-])[A-Za-z][\w+.-]*://[^\s'\"]+"
"""A URL inside a word; it starts where a scheme can (else each letter of a long run
began one)."""


def secret_named(name: str) -> bool:
    """``name`` (a variable, a flag, a parameter) names a secret (:data:`SECRET_NAME_PARTS`)."""
    upper = name.upper()
    return any(part in upper for part in SECRET_NAME_PARTS)


def names_a_secret(name: str) -> bool:
    """A flag, variable or header name whose last word says its value is a secret
    (:data:`ARG_SECRET_WORDS`; ``key`` after a word of :data:`NOT_SECRET_KEYS` does not)."""
    import re  # not at import: ``frontier sessions`` imports this module (issue 24)

    words = [w for w in re.split(r"[-_.\s]+", name.lower()) if w]
    if not words or words[-1] not in ARG_SECRET_WORDS:
        return False
    return not (words[-1] == "key" and len(words) > 1 and words[-2] in NOT_SECRET_KEYS)


def header_secrets(name: object, value: object) -> list[str]:
    """The secrets one header carries: the whole value of a credential's header, the token
    after an ``Authorization`` scheme (``Bearer``, ``Basic``), each cookie's value (and a
    ``Cookie`` header whole). The one reader of a header for what a scrubber learns: a
    HAR's and a raw HTTP capture's requests, an MCP server's ``headers``."""
    if not isinstance(name, str) or not isinstance(value, str):
        return []
    lower = name.lower()
    if lower == "set-cookie":
        return [value.split(";")[0].partition("=")[2].strip()]
    if lower == "cookie":
        return [value.strip(), *(pair.partition("=")[2].strip() for pair in value.split(";"))]
    if not names_a_secret(name):  # not ``x-ratelimit-limit-tokens``: a count
        return []
    scheme, _, token = value.strip().partition(" ")
    return [value.strip(), token.strip()] if token and scheme.isalpha() else [value.strip()]


_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=-")


def configured_header_secrets(name: str, value: str) -> list[str]:
    """The secrets a provider's configured ``headers`` entry holds: a credential's header
    (:func:`header_secrets`), or, whatever its header's name, a vendor's key or one word of
    16 or more token characters holding a digit (a gateway's token). Not a plain word or
    a setting: ``X-Title: Frontier``, ``HTTP-Referer: http://localhost:3000``,
    ``anthropic-version: 2023-06-01`` would take those words out of everything stored,
    shown and sent to the model."""
    if found := header_secrets(name, value):
        return found
    token = (
        len(value) >= 16
        and all(c in _TOKEN_CHARS for c in value)
        and any(c.isdigit() for c in value)
    )
    return [value] if token or key_shaped(value) else []


def argv_secrets(args: Sequence[str]) -> list[str]:
    """The secrets a command line holds as written (an MCP server's ``args``), longest
    first, so that what shows it — ``frontier mcp``, the doctor, a server's log and last
    words — hides them (:func:`hidden_argv`)."""
    return sorted(set().union(*_secrets_by_word(args)), key=len, reverse=True)


def hidden_argv(args: Sequence[str]) -> list[str]:
    """``args`` with the secrets each word holds ``[REDACTED]`` in that word only: the word
    after a flag that names a secret (``--api-key VALUE``), the value of ``--token=VALUE``,
    ``API_KEY=VALUE``, ``Password=…;`` or ``X-Api-Key: VALUE``, an ``Authorization`` token
    after its scheme, a word shaped like a vendor's key (``sk-…``), a URL's credentials, and
    the same inside a ``sh -c`` script's words. The flag stays, so the person sees which
    argument it was."""
    shown = []
    for word, secrets in zip(args, _secrets_by_word(args), strict=True):
        for secret in sorted(secrets, key=len, reverse=True):
            word = word.replace(secret, REDACTED)
        shown.append(word)
    return shown


LEARNED_MAX = 4096
"""A longer value is not learned by a scrubber from what a capture or a server's settings
hold: a credential is far shorter, and each value learned is a regex alternative every
later text is searched for (a 60 KB header once made ``frontier import`` take 12 s)."""


def learnable(value: str) -> bool:
    """A credential's value a scrubber may learn: not empty, not longer than
    :data:`LEARNED_MAX`."""
    return 0 < len(value) <= LEARNED_MAX


PATH_STARTS = ("/", "./", "../", "~")


FILE_SUFFIXES = (".json", ".pem", ".key", ".crt", ".p12", ".pfx", ".txt", ".env", ".yaml",
                 ".yml", ".toml", ".ini", ".cfg")  # fmt: skip
"""A value ending so names a file (``GOOGLE_APPLICATION_CREDENTIALS=service-account.json``)."""


def names_a_path(value: str) -> bool:
    """``value`` names a file or folder — one here, one written relative or from home, or a
    file by its suffix — not a secret itself, and blanked out of everything the model sees
    it was worse than useless. A token may start with ``/`` (base64): an absolute path is
    taken for one only if it exists."""
    import os

    if value.startswith(("./", "../", "~")) or value.lower().endswith(FILE_SUFFIXES):
        return True
    return value.startswith("/") and os.path.exists(value)


def worth_scrubbing(value: str) -> bool:
    """A value no name marks as a credential (a ``${NAME}`` an MCP server's ``env`` passes
    under another name) that is shaped like one, for a session's scrubber, which hides it
    from everything the model is sent and every sink: a vendor's key, or one word of
    :data:`SCRUB_MIN` characters or more holding a digit — not a path, a word or a name
    (``HOME=${HOME}`` would have blanked the home folder out of the conversation)."""
    if key_shaped(value):
        return learnable(value)
    if len(value) < SCRUB_MIN or not learnable(value) or value.startswith(PATH_STARTS):
        return False
    return not any(c.isspace() for c in value) and any(c.isdigit() for c in value)


def _secrets_by_word(args: Sequence[str]) -> list[set[str]]:
    """The secrets each word of ``args`` holds, a script's words read within a budget."""
    budget = [SPLIT_BUDGET]
    return [_word_secrets(args, at, budget) for at in range(len(args))]


def _word_secrets(args: Sequence[str], at: int, budget: list[int] | None = None) -> set[str]:
    """The secrets ``args[at]`` holds, read with the word before it; ``budget``: what is
    left to read again as a script's words (``None``: this is a script's word)."""
    import re

    word = args[at]
    before = args[at - 1] if at else ""
    found: set[str] = set()
    if before.startswith("-") and "=" not in before and names_a_secret(before) and word[:1] != "-":
        found.add(word.strip())
    header = re.fullmatch(_HEADER_RE, word)
    if header and names_a_secret(header[1]):
        value = header[2].strip()
        scheme, _, token = value.partition(" ")
        found.add(token.strip() if scheme.lower() + " " in SCHEMES and token.strip() else value)
    found.update(m[2] for m in re.finditer(_ASSIGNED_RE, word) if names_a_secret(m[1]))
    lower = word.lower()
    for scheme in SCHEMES[:2]:  # ``Bearer X`` / ``Basic X`` anywhere
        if scheme in lower:
            found.add(word[lower.index(scheme) + len(scheme) :].strip().split(" ", 1)[0])
    for url in re.findall(_URL_RE, word):
        found.update(url_secrets(url))
    found.update(p for p in re.split(r"[\s=:;,'\"]+", word) if key_shaped(p))
    if budget is not None and len(word) <= min(SPLIT_MAX, budget[0]) and " " in word.strip():
        budget[0] -= len(word)  # a script: ``sh -c "… --api-key X"``
        words = _script_words(word)
        for j in range(len(words)):
            found |= _word_secrets(words, j)
    return {v for v in found if _may_be_secret(v)}


def _script_words(script: str) -> list[str]:
    import shlex

    try:
        return shlex.split(script)
    except ValueError:
        return script.split()


def _may_be_secret(value: str) -> bool:
    """Not too short, not a small number, not a ``${NAME}`` the program expands itself
    (mcp-remote's ``--header Authorization:${AUTH_HEADER}``: worth seeing, holds nothing)."""
    if len(value) < ARG_SECRET_MIN or (value.isdigit() and len(value) < ARG_NUMBER_MIN):
        return False
    return not (value.startswith("$") and value.strip("${}").replace("_", "").isalnum())


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
    if key_shaped(user):
        found += [user, _unquote(user)]
    for value in _credential_values(path, query, fragment):
        found += [value, _unquote(value)]
    for segment in path.split("/"):
        if key_shaped(segment):
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


def key_shaped(segment: str) -> bool:
    """A word or URL path segment shaped like a vendor's API key (:data:`KEY_PREFIXES`,
    at least :data:`KEY_SEGMENT_LEN` characters, percent-decoded)."""
    return len(segment) >= KEY_SEGMENT_LEN and _unquote(segment).startswith(KEY_PREFIXES)


KEY_CONTEXT = 12
"""Characters before a text's start that tell whether a key may begin there: the run of
key characters it continues, a JSON escape (``\\u001b`` is six), or a terminal's colour
code (``\\x1b[01;31m`` is eight; up to eleven)."""
ESCAPE_PARAMS = 8
"""The most parameter characters of a colour code a key may follow (``01;38;5``)."""
_ESCAPE_LETTERS = frozenset("nrtbf")
_HEX = frozenset("0123456789abcdefABCDEF")
_key_patterns: list[Any] = []
"""``[finders, matcher]``, compiled on first use (``frontier sessions`` imports this module
and scrubs nothing)."""


def key_spans(text: str, start: int = 0) -> list[tuple[int, int]]:
    """Where ``text[start:]`` holds a vendor's key (:data:`KEY_SHAPES`), in order; what is
    before ``start`` is only read to tell where a word begins (a stream's earlier text).

    Linear: a finder per first letter (a literal first character, which the regex engine
    skips to) stops at each place a prefix occurs, where one anchored match, bounded by the
    shape's length, says whether a key starts there; a key starts only where a word does,
    so two never overlap."""
    finders, matcher = _compiled_keys()
    if len(text) - start <= SHORT_TEXT:
        first = finders[0].search(text, start)
        if first is None:  # the common case: one C call
            return []
        hits: Iterable[int] = (hit.start() for hit in finders[0].finditer(text, first.start()))
    else:  # one pass per first letter: each skips to its letter at C speed
        hits = sorted(hit.start() for finder in finders[1:] for hit in finder.finditer(text, start))
    spans: list[tuple[int, int]] = []
    for at in hits:
        if spans and at < spans[-1][1]:
            continue
        found = matcher.match(text, at)
        if found is not None:
            spans.append(found.span())
    return spans


SHORT_TEXT = 2048
"""Up to this many characters a text is searched with one finder of every prefix (one
call: a streamed piece, a message); beyond, with a finder per first letter (faster a MB:
3 ms, against 10 for the one, on Python source)."""


def key_undecided(text: str, start: int = 0) -> int:
    """Where the end of ``text`` that may still grow into a key begins (``len(text)``:
    none), never before ``start`` (what is before it was released): the start of its last
    run of :data:`KEY_CHARS` when a key may begin in that run and the run is not yet too
    long for one. A stream holds that back until the run ends."""
    end = len(text)
    if not end or text[-1] not in KEY_CHARS:
        return end
    floor = max(0, end - KEY_LONGEST - KEY_CONTEXT - 1)
    run = floor + len(text[floor:].rstrip(_KEY_CHARS_TEXT))  # at C speed: every piece asks
    if run == floor and floor > 0:
        return end  # a run longer than any key
    for at in _word_starts(text, run):
        if at >= start and _may_begin_key(text[at:end]):
            return max(run, start)
    return end


_KEY_CHARS_TEXT = "".join(sorted(KEY_CHARS))
_PREFIX_STARTS = frozenset(p[:k] for p in KEY_PREFIXES for k in range(len(p) + 1))
"""Every start of every prefix, the empty one and the whole ones too."""


def _word_starts(text: str, run: int) -> tuple[int, ...]:
    """Where a key may begin in the run of key characters starting at ``run``: its start,
    and past a JSON escape it begins with (``\\n``, ``\\u001b``; one still incomplete too)."""
    if run and text[run - 1] in "[;" and (after := _after_colour(text, run)) is not None:
        return (run, after)
    if run == 0 or text[run - 1] != "\\":
        return (run,)
    if text[run] in _ESCAPE_LETTERS:
        return (run, run + 1)
    if text[run] == "u" and all(c in _HEX for c in text[run + 1 : run + 5]):
        return (run, run + 5)
    return (run,)


def _after_colour(text: str, run: int) -> int | None:
    """Where a terminal's colour code ends, when the run of key characters at ``run``
    holds its last parameters and its letter (``\\x1b[01;31mghp_…``: the run is ``31mghp_…``):
    a key may begin there."""
    esc = text.rfind("\x1b[", max(0, run - ESCAPE_PARAMS - 2), run)
    if esc == -1 or any(c not in "0123456789;" for c in text[esc + 2 : run]):
        return None
    at = run
    while at < len(text) and at - esc - 2 < ESCAPE_PARAMS and text[at] in "0123456789":
        at += 1
    if (
        at < len(text)
        and at - esc - 2 <= ESCAPE_PARAMS
        and text[at].isascii()
        and text[at].isalpha()
    ):
        return at + 1
    return None


def _may_begin_key(word: str) -> bool:
    """``word`` (the end of a text) is, or may grow into, a key: the start of a prefix, or a
    prefix followed by no more characters than its shape takes."""
    if word in _PREFIX_STARTS:
        return True
    if not word.startswith(KEY_PREFIXES):  # the common case, one C call
        return False
    return any(
        word.startswith(prefix) and len(word) <= len(prefix) + most
        for prefix, _chars, _fewest, most, _digit in KEY_SHAPES
    )


def _compiled_keys() -> list[Any]:
    """``[finders, matcher]``: finders of the prefixes (one of them all, then one per first
    letter); the matcher, anchored where a prefix is found, of a whole key (a word's start
    before it, its shape, no word character after it)."""
    if _key_patterns:
        return _key_patterns
    import re

    shapes = sorted(KEY_SHAPES, key=lambda shape: len(shape[0]), reverse=True)
    by_letter: dict[str, list[str]] = {}
    for prefix in dict.fromkeys(shape[0] for shape in shapes):
        by_letter.setdefault(prefix[0], []).append(re.escape(prefix[1:]))
    every = "|".join(
        re.escape(letter) + f"(?:{'|'.join(rests)})" for letter, rests in by_letter.items()
    )
    finders = [re.compile(every)]
    finders += [
        re.compile(re.escape(letter) + f"(?:{'|'.join(rests)})")
        for letter, rests in by_letter.items()
    ]
    # a word starts where a run of key characters does, after a JSON escape (a request
    # body), or after a terminal's colour code (``git diff --color``: ``\x1b[32m``), each
    # look-behind of one width (Python's look-behinds are fixed)
    colour = "|".join(rf"(?<=\x1b\[[0-9;]{{{n}}}[A-Za-z])" for n in range(ESCAPE_PARAMS + 1))
    word_start = rf"(?:(?<![A-Za-z0-9_-])|(?<=\\[nrtbf])|(?<=\\u[0-9a-fA-F]{{4}})|{colour})"
    branches = "|".join(_key_branch(shape) for shape in shapes)
    matcher = re.compile(f"{word_start}(?:{branches})(?![A-Za-z0-9_-])")
    _key_patterns[:] = [finders, matcher]
    return _key_patterns


def _key_branch(shape: KeyShape) -> str:
    """One shape as a regex: its prefix, then its characters, possessively (each taken once:
    a run longer than the shape's most is no key, told at once)."""
    import re

    prefix, chars, fewest, most, digit = shape
    needs_digit = f"(?=[{chars}]{{0,{most}}}?[0-9])" if digit else ""
    return f"{re.escape(prefix)}{needs_digit}[{chars}]{{{fewest},{most}}}+"


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
    if key_shaped(segment):
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
