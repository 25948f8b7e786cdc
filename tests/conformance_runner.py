"""Run a shared conformance runner with ``frontier transduce`` answered in this process.

The runners in ``../shared/conformance/`` start one ``frontier transduce`` process per
case x protocol x chunk size (831 for the two wire suites): on a 2-core CI machine that
was the suite's longest tail, all of it interpreter start-up. Here the runner's own code
(its case list, its comparison, its summary line) runs unchanged, imported as a module;
only its ``subprocess.run`` of the sentinel executable :data:`IN_PROCESS` is answered by
``frontier.app.cli.main`` in this process, with the same argv, stdin bytes, stdout bytes and
exit status a child would have had. Every other command goes to the real ``subprocess``.
Each suite's test also runs one case through a real ``frontier`` process, so the installed
entry point stays covered.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from frontier.app.cli import main as frontier_main

IN_PROCESS = "frontier-in-this-process"


def load_runner(path: Path) -> ModuleType:
    """The runner at ``path`` as a fresh module (never registered in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(f"conformance_{path.stem}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_in_process(argv: Sequence[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    """``frontier ARGV`` with ``stdin``, as a finished child process would report it."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = [
        io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", write_through=True),
    ]
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        try:
            code = frontier_main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors and --help
            code = exit_.code if isinstance(exit_.code, int) else 2
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for stream in streams:
            stream.flush()
            stream.detach()  # a collected wrapper would close the buffer it wraps
    return subprocess.CompletedProcess(list(argv), code, out.getvalue(), err.getvalue())


def _run(cmd: Sequence[str], *args: Any, **kwargs: Any) -> Any:
    if not cmd or cmd[0] != IN_PROCESS:
        return subprocess.run(cmd, *args, **kwargs)
    data = kwargs.get("input") or b""
    done = run_in_process(cmd[1:], data if isinstance(data, bytes) else data.encode())
    if kwargs.get("text"):
        return subprocess.CompletedProcess(
            done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
        )
    return done


@contextlib.contextmanager
def answered_in_process(runner: ModuleType) -> Iterator[None]:
    """While inside, ``runner``'s ``subprocess.run([IN_PROCESS, ...])`` runs in this process."""
    real = runner.subprocess
    runner.subprocess = SimpleNamespace(
        run=_run, TimeoutExpired=subprocess.TimeoutExpired, PIPE=subprocess.PIPE
    )
    try:
        yield
    finally:
        runner.subprocess = real


def run_main(runner: ModuleType, argv: Sequence[str], capsys: Any) -> tuple[int, str]:
    """``runner.main()`` with ``argv`` as its command line: (exit status, what it printed).
    The runner's own thread pool is kept to one worker (``-j 1``): ``sys.stdin`` and
    ``sys.stdout`` are this process's, swapped for each in-process run."""
    saved = sys.argv
    sys.argv = [runner.__file__ or "runner", *argv, "-j", "1"]
    try:
        with answered_in_process(runner):
            code = runner.main()
    finally:
        sys.argv = saved
    return int(code), capsys.readouterr().out
