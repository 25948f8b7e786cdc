"""``app/hashes.py`` gives ``hashlib``'s digests whichever implementation it takes."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.hashes import BIG, blake2b_digest, sha256_hex


@settings(max_examples=200)
@given(data=st.binary(max_size=4096), size=st.integers(1, 64))
def test_the_digests_are_hashlibs(data: bytes, size: int) -> None:
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert blake2b_digest(data, size) == hashlib.blake2b(data, digest_size=size).digest()


def test_without_hashlib_loaded_small_data_takes_the_builtin_and_big_data_hashlib() -> None:
    """In a fresh interpreter: the same digests, and ``hashlib`` is imported only for data
    of ``BIG`` bytes or more."""
    code = (
        "import sys\n"
        "from frontier.app.hashes import sha256_hex, BIG\n"
        "small = sha256_hex(b'abc' * 1000)\n"
        "after_small = 'hashlib' in sys.modules\n"
        "big = sha256_hex(b'x' * BIG)\n"
        "print(small, after_small, big, 'hashlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    small, after_small, big, after_big = out.stdout.split()
    assert small == hashlib.sha256(b"abc" * 1000).hexdigest()
    assert big == hashlib.sha256(b"x" * BIG).hexdigest()
    assert (after_small, after_big) == ("False", "True")
