"""Provider failures that end a request (after any retries).

Failures that are part of a response (a disconnect, a read stall, an ``{"error": ...}``
object inside a 200 stream) are *not* exceptions: they end the stream with a
``StreamEnd`` so the loop can treat them as truncation (DESIGN §4). This module
holds only what stops the request from producing a response at all.
"""

from __future__ import annotations

from typing import Literal

ProviderErrorKind = Literal["auth", "not_found", "http", "connect", "timeout", "protocol"]


class ProviderError(Exception):
    """The endpoint could not produce a response; the message says what to do next.

    ``kind`` lets the caller pick a reaction without parsing text: ``auth``
    (401/403: key missing or rejected), ``not_found`` (404: wrong base URL or model),
    ``http`` (other status, or retryable statuses after the last retry), ``connect``
    (no connection, or the connection closed, after the last retry), ``timeout`` (the
    server accepted the request but sent no first byte within ``first_byte_timeout``,
    after the last retry), ``protocol`` (the server answered 200 with something that
    is not a chat-completions stream: a web page, plain text, foreign JSON).
    """

    def __init__(
        self,
        kind: ProviderErrorKind,
        message: str,
        *,
        url: str = "",
        model: str = "",
        status: int | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.kind: ProviderErrorKind = kind
        self.message = message
        self.url = url
        self.model = model
        self.status = status
        self.attempts = attempts

    def __repr__(self) -> str:
        return (
            f"ProviderError(kind={self.kind!r}, status={self.status!r}, message={self.message!r})"
        )


__all__ = ["ProviderError", "ProviderErrorKind"]
