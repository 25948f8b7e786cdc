"""``app/fastjson.py`` gives what ``json`` gives: the same value, the same text, the same error."""

from __future__ import annotations

import json
import math
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app import fastjson

VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)


def same(a: object, b: object) -> bool:
    """Equal as JSON values, NaN equal to itself."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def outcome(f: object, *args: object, **kwargs: object) -> tuple[str, object]:
    try:
        return "value", f(*args, **kwargs)  # type: ignore[operator]
    except (ValueError, TypeError, RecursionError, UnicodeDecodeError) as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=300)
@given(VALUES, st.booleans(), st.sampled_from([None, (",", ":"), (", ", ": ")]), st.booleans())
def test_dumps_writes_what_json_writes(value, ascii_only, separators, sort_keys) -> None:
    kwargs = {"ensure_ascii": ascii_only, "separators": separators, "sort_keys": sort_keys}
    assert fastjson.dumps(value, **kwargs) == json.dumps(value, **kwargs)  # type: ignore[arg-type]


def test_dumps_with_indent_and_refusals_are_jsons() -> None:
    assert fastjson.dumps({"a": [1, 2]}, indent=2) == json.dumps({"a": [1, 2]}, indent=2)
    for bad in ({1, 2}, {"k": object()}, {(1, 2): 3}):
        assert outcome(fastjson.dumps, bad)[0] == "TypeError"
        assert outcome(fastjson.dumps, bad) == outcome(json.dumps, bad)
    circular: list[object] = []
    circular.append(circular)
    assert outcome(fastjson.dumps, circular) == outcome(json.dumps, circular)


JUNK = st.text(alphabet=' \t\n\r{}[]",:0123456789.eE+-truefalsnNIaiy\\u\ufeff\x00x', max_size=40)


# slow in the full suite (10.4 s there under load, 3.4 s alone): 600 examples, each read
# four ways by both parsers
@settings(max_examples=600)
@given(VALUES | JUNK)
def test_loads_reads_what_json_reads_and_fails_as_it_fails(value) -> None:
    texts = [value] if isinstance(value, str) else []
    texts += [json.dumps(value), " \n" + json.dumps(value) + "\t ", json.dumps(value) + " x"]
    for text in texts:
        mine, theirs = outcome(fastjson.loads, text), outcome(json.loads, text)
        assert mine[0] == theirs[0], text
        assert same(mine[1], theirs[1]) if mine[0] == "value" else mine == theirs, text
        raw = text.encode("utf-8", "surrogatepass")
        mine, theirs = outcome(fastjson.loads, raw), outcome(json.loads, raw)
        assert mine[0] == theirs[0], raw
        assert same(mine[1], theirs[1]) if mine[0] == "value" else mine == theirs, raw


def test_loads_refuses_what_json_refuses() -> None:
    for bad in (None, 3, ["[]"], object()):
        assert outcome(fastjson.loads, bad) == outcome(json.loads, bad)
        assert outcome(fastjson.loads, bad)[0] == "TypeError"


def test_loads_takes_every_encoding_json_takes() -> None:
    for codec in ("utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"):
        data = '{"a": ["é", 1]}'.encode(codec)
        assert fastjson.loads(data) == json.loads(data) == {"a": ["é", 1]}
    deep = "[" * 100_000 + "]" * 100_000
    assert outcome(fastjson.loads, deep)[0] == outcome(json.loads, deep)[0] == "RecursionError"


def test_importing_it_does_not_import_json() -> None:
    code = (
        "import sys; from frontier.app import fastjson;"
        "v = fastjson.loads(fastjson.dumps({'a': [1, 'x']})); assert v == {'a': [1, 'x']};"
        "print('json' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_an_invalid_text_fails_as_json_fails_in_a_process_without_json() -> None:
    """In Python 3.11 the C scanner raises its error class as ``sys.modules`` holds it;
    with ``json`` never imported it failed with ``SystemError`` ("returned NULL without
    setting an exception"), where every reader of the store or a journal expects a
    ``ValueError``. The property test above runs where json is imported and cannot see it."""
    code = (
        "import sys; from frontier.app import fastjson\n"
        "for text in ('{\"a\": \"b', '[1, 2', '{\"a\" 1}', '\"\\\\x\"'):\n"
        "    try:\n"
        "        fastjson.loads(text)\n"
        "    except ValueError as exc:\n"
        "        print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    expected = []
    for text in ('{"a": "b', "[1, 2", '{"a" 1}', '"\\x"'):
        try:
            json.loads(text)
        except ValueError as exc:
            expected.append(f"{type(exc).__name__} {exc}")
    assert done.stdout.splitlines() == expected


def test_its_decode_error_is_jsons_and_a_native_call_reads_without_json() -> None:
    """``except fastjson.JSONDecodeError`` catches what ``loads`` raises, and names ``json``
    only once an error reaches the clause: the native transducer (``frontier check``'s
    path) reads good arguments without importing ``json`` (~1 ms), and bad ones as before."""
    assert fastjson.JSONDecodeError is json.JSONDecodeError
    code = (
        "import sys\n"
        "from frontier.app.cst.native import NativeAccumulator\n"
        "from frontier.app.wire import safejson\n"
        "from frontier.app import fastjson\n"
        'safejson.loads(\'{"path": "a.txt"}\')\n'
        "print('json' in sys.modules)\n"
        "try:\n"
        "    safejson.loads('{\"path\": ')\n"
        "except fastjson.JSONDecodeError as exc:\n"
        "    print(type(exc).__module__, exc.pos)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["False", "json.decoder 9"]
