"""The TLS trust of model requests, loaded off the path to the first request.

httpx reads the CA bundle when a client is made (certifi's, or ``SSL_CERT_FILE``: 50–60 ms
of parsing PEM), whether or not the server speaks TLS: a local model on
``http://127.0.0.1`` paid it before every first request, a tenth of `frontier run`'s start.
:func:`trust_for` gives the client a context that verifies exactly as httpx's default does
(the same locations, chosen by the same environment variables, hostname checked, a
certificate required), but reads them on a thread of their own when the base URL is
``https`` (OpenSSL lets go of the GIL while it parses, so the build goes on beside it), and
never for ``http`` unless a handshake comes (a proxy or a redirect to ``https``), which
then waits for them.

A location that cannot be read fails the handshake that needed it, with a message naming
it, rather than the whole session's start. :func:`tls_refusal` says what to change when a
connection fails for a TLS reason no retry can mend.
"""

from __future__ import annotations

import os
import ssl
import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def trust_locations() -> tuple[str | None, str | None]:
    """``(cafile, capath)`` as httpx chooses them (``SSL_CERT_FILE``, then
    ``SSL_CERT_DIR``, else certifi's bundle)."""
    if os.environ.get("SSL_CERT_FILE"):
        return os.environ["SSL_CERT_FILE"], None
    if os.environ.get("SSL_CERT_DIR"):
        return None, os.environ["SSL_CERT_DIR"]
    import certifi

    return certifi.where(), None


NOT_TLS = frozenset(
    {"WRONG_VERSION_NUMBER", "HTTP_REQUEST", "PACKET_LENGTH_TOO_LONG", "RECORD_LAYER_FAILURE"}
)
"""OpenSSL's reasons when what answered the handshake was not TLS (a plain-HTTP server)."""


NAME_MISMATCH = frozenset({62, 64})
"""OpenSSL's verify codes for a certificate issued for another host name or IP address."""


class TrustUnreadable(ssl.SSLError):
    """The CA locations could not be read (the message names them)."""

    def __str__(self) -> str:  # SSLError's own shows a one-argument error as a tuple
        return str(self.args[0]) if self.args else "the CA certificates could not be read"


def tls_refusal(exc: BaseException) -> str | None:
    """What to change when ``exc`` (a failed connection) comes from TLS that no retry can
    mend: a certificate not trusted, a server that speaks no TLS, an unreadable bundle;
    ``None`` for anything else (retried as any failed connection is)."""
    cause: BaseException | None = exc
    for _ in range(16):  # the chain httpx and httpcore build is three deep
        if cause is None:
            return None
        if isinstance(cause, TrustUnreadable):
            return (
                f"{cause}: point SSL_CERT_FILE at a readable file of CA certificates, or unset it"
            )
        if isinstance(cause, ssl.SSLCertVerificationError):
            why = cause.verify_message or cause.reason or "certificate verify failed"
            if cause.verify_code in NAME_MISMATCH:
                return (
                    f"its TLS certificate is for another host ({why}); use the name it was "
                    "issued for in --base-url"
                )
            return (
                f"its TLS certificate is not trusted ({why}); if your own or your company's "
                "authority signed it, set SSL_CERT_FILE to that authority's certificate"
            )
        if isinstance(cause, ssl.SSLError) and cause.reason in NOT_TLS:
            return (
                f"it does not speak TLS (SSL: {cause.reason}); a server on plain HTTP (a local "
                "llama.cpp, Ollama or LM Studio) needs http:// in --base-url"
            )
        cause = cause.__cause__ or cause.__context__
    return None


PLAIN_TO_TLS = (
    "it speaks TLS on that port (it closed the connection on a plain HTTP request); "
    "use https:// in --base-url"
)
"""What to change when an ``http://`` base URL reaches a server that speaks only TLS."""


async def speaks_tls(host: str, port: int, timeout: float) -> bool:
    """Whether ``host:port`` completes a TLS handshake (nothing else is sent, nothing
    verified: only the answer's kind matters). Asked once, when a plain-HTTP request's
    connection closed twice before any response, as a TLS-only server built on Python's
    ``ssl`` closes it (Go's and nginx's answer ``400`` in plain HTTP, which is shown as
    the server's own words): without it such a mistake was retried for the whole window,
    8 s, and ended as "is the server running?"."""
    import asyncio

    probe = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    probe.check_hostname = False
    probe.verify_mode = ssl.CERT_NONE
    try:
        async with asyncio.timeout(timeout):
            _, writer = await asyncio.open_connection(host, port, ssl=probe)
    except (OSError, TimeoutError, ssl.SSLError):
        return False
    writer.transport.abort()  # the answer is known: no close_notify to wait for
    return True


class TrustOnFirstHandshake(ssl.SSLContext):
    """``ssl.create_default_context()`` whose CA locations are read once, before the
    first handshake that needs them (``wrap_bio``: asyncio's and anyio's TLS;
    ``wrap_socket``: blocking sockets), or sooner by :meth:`warm`."""

    def __new__(cls, *args: Any, **kwargs: Any) -> TrustOnFirstHandshake:
        return super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)

    def __init__(self, cafile: str | None = None, capath: str | None = None) -> None:
        self.verify_mode = ssl.CERT_REQUIRED
        self.check_hostname = True
        keylog = os.environ.get("SSLKEYLOGFILE")  # as create_default_context does
        if keylog and not sys.flags.ignore_environment:
            self.keylog_filename = keylog
        self._where = (cafile, capath)
        self._lock = threading.Lock()
        self._loaded = False
        self._failure: str | None = None

    def warm(self) -> None:
        """Read the locations now, on a daemon thread (the handshake waits for it)."""
        threading.Thread(target=self._load, name="tls-trust", daemon=True).start()

    def _load(self) -> None:
        with self._lock:
            if self._loaded:
                return
            cafile, capath = self._where
            try:
                self.load_verify_locations(cafile, capath)
            except (OSError, ValueError) as exc:
                where = cafile or capath
                self._failure = f"the CA certificates in {where} could not be read ({exc})"
            self._loaded = True

    def trusted(self) -> None:
        """Wait until the locations are read; raise :class:`TrustUnreadable` if they could
        not be."""
        if not self._loaded:
            self._load()
        if self._failure is not None:
            raise TrustUnreadable(self._failure)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.trusted()
        return super().wrap_bio(*args, **kwargs)

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.trusted()
        return super().wrap_socket(*args, **kwargs)


def trust_for(base_url: str) -> TrustOnFirstHandshake:
    """The context a client of ``base_url`` verifies servers with: its locations read
    now on a thread for ``https``, at a handshake that needs them for anything else."""
    context = TrustOnFirstHandshake(*trust_locations())
    if base_url.lower().startswith("https:"):
        context.warm()
    return context
