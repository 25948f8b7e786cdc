"""Start-up: every command that does not open the TUI, against the same venv's ``python -c pass``.

    .venv/bin/python bench/startup.py                         # the commands, 15 runs each
    .venv/bin/python bench/startup.py --baseline /tmp/base24  # + an older tree, alternating
    .venv/bin/python bench/startup.py --importtime 12         # + a -X importtime breakdown
    .venv/bin/python bench/startup.py --installed             # + as a regular install runs them
                                      # (with --baseline: the older tree installed beside it)
    .venv/bin/python bench/startup.py --inprocess --profile   # the patch engine in-process
    .venv/bin/python bench/startup.py --tui                   # TUI first paint (a pty)
    .venv/bin/python bench/startup.py --no-commands --quit    # TUI ctrl+q to exit (a pty)
    .venv/bin/python bench/startup.py --no-commands --resume 1000  # resume, to the last reply
    .venv/bin/python bench/startup.py --first                 # = bench/wires.py --only first

Issue 24's goal: each command within 1.3x of ``python -c pass`` of the same interpreter,
whole process, in the same run. Printed side by side with that reference (the machine is
shared and noisy: ratios, nothing asserted; the load average is printed with each table).

**Commands** (whole process, spawn to exit, stdout to a pipe that is drained): ``--help``;
``apply-patch`` on the largest model-style case (below); ``sessions``; ``check``,
``undo --list`` and ``export`` of a small stored session (one ``frontier run`` against a
loopback server — ``bench/wires.py``'s — that reads a file and answers). Each run of each
command alternates with a ``python -c pass``; p50 and min of ``--runs`` each, and the
ratio of the p50s (and of the mins). Every process gets compiled bytecode in a private
``PYTHONPYCACHEPREFIX`` and one untimed warm-up, as an installed package would
(``bench/wires.py`` does the same, for the same reason); data and config dirs are temporary.

**The largest model-style case**: issue 24's comparison applied a model-style Codex patch to a
111 KB file; that file is not in the repository (nor in ``../shared/conformance``, whose
Codex scenarios are all under 1 KB), so this builds one of the same shape, the same bytes
every run: ``src/handlers.py``, 111 KB of Python (1,060 small functions), and a
``*** Begin Patch`` envelope updating it in 12 hunks spread over the file, each under an
``@@ def ...`` header (the function's whole ``def`` line) with 3 lines of context, the way
models write them. The file is put back (untimed) before each run so every run applies the patch.

**As installed** (``--installed``): the same commands as a regular (non-editable) install
runs them, beside two references. The development venv that README's ``pip install -e .``
makes is not what a user of ``pip install``/``pipx`` has: its editable finder (needed for
pyproject's ``package-dir`` mapping) runs from a ``.pth`` at every start, importing
``pathlib``, ``re``, ``urllib.parse``, ``importlib.util`` and more, ~15 ms in *every*
process of that venv, ``python -c pass`` included. That inflates the reference and
pre-loads modules a command would otherwise pay for, so ratios in the development venv
flatter Frontier. ``--installed`` builds, without network, the layout pip would install: a
fresh venv (``--without-pip``) whose site-packages holds ``frontier/{app,tools,widgets,
themes}`` (links to this tree) and a path line to the development venv's site-packages
for the dependencies (a path line adds a directory; none of that directory's ``.pth``
files run), and console scripts written from pip's own template (distlib's: ``import re``,
``re.sub`` on ``argv[0]``, then the entry point). The references, each alternating with
every run: that venv's ``python -c pass``, and **the launcher floor**, pip's template
calling a function that returns 0 (what any pip-installed Python command costs before
its own code runs).

**In-process** (``--inprocess``): ``apply_patch`` on the same case (plan, then write: the
engine the CLI and the agent share), and the plan alone (``dry_run``); ``--profile`` adds a
cProfile of the plan's hot functions.

**TUI quit** (``--quit``): plain ``frontier`` (an endpoint configured, never asked) on a
pty; once its screen is up and 0.5 s has passed, ctrl+q, timed to the process's end; one
untimed warm-up each; with ``--baseline``, the older tree alternating.

**TUI first paint** (``--tui``): ``frontier demo`` on a pseudo-terminal (120x40); from just
before the spawn to the first output holding the demo's first screen text (``--tui-marker``),
beside ``python -c "print('ready')"`` on a pty of its own, spawn to its output; alternating.

**Resume** (``--resume N``): a session of ``N`` tool calls and a closing answer (made once
by ``frontier run`` against the loopback server), then ``frontier resume ID`` on a pty,
from just before the spawn to the closing answer's text on the screen; one untimed warm-up;
with ``--baseline``, the older tree alternating (its own copy of the data directory, so
neither resume changes what the other reads).

**First model request** (``--first``): ``bench/wires.py``'s part (b), called as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wires  # bench/wires.py: its loopback server, argv, importtime parsing, part (b)

PYTHON = sys.executable
now = time.perf_counter

HUNKS = 12
FUNCTIONS = 1060


# --------------------------------------------------------------------------- the patch case


def handlers_source() -> str:
    """``src/handlers.py``: ~111 KB of plain Python, the same bytes every run."""
    rng = random.Random(24)
    words = ("value", "count", "name", "path", "items", "limit", "offset", "flag", "token")
    out = ['"""Request handlers (generated for bench/startup.py)."""\n', "\n"]
    for i in range(FUNCTIONS):
        a, b = rng.sample(words, 2)
        out.append(f"def handler_{i:04d}({a}: int, {b}: int = {i % 7}) -> int:\n")
        out.append(f"    total = {a} * {rng.randint(2, 9)} + {b}\n")
        out.append(f"    return total - {rng.randint(1, 99)}\n")
        out.append("\n")
    return "".join(out)


def handlers_patch(source: str) -> str:
    """A Codex envelope changing ``HUNKS`` functions spread over the file, model-style."""
    lines = source.splitlines()
    out = ["*** Begin Patch", "*** Update File: src/handlers.py"]
    step = FUNCTIONS // HUNKS
    for h in range(HUNKS):
        i = h * step + step // 2
        head = lines.index(next(x for x in lines if x.startswith(f"def handler_{i:04d}(")))
        out.append("@@ " + lines[head])  # the whole def line, as models copy it
        body = lines[head + 1 : head + 4]  # total = ..., return ..., blank
        out.append(" " + body[0])
        out.append("-" + body[1])
        out.append(f"+    if total < 0:  # clamp {h}")
        out.append("+        return 0")
        out.append("+" + body[1])
        out.append(" " + body[2])
        nxt = lines[head + 4]
        out.append(" " + nxt)
        out.append(" " + lines[head + 5])
    out.append("*** End Patch")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- processes


@dataclass(frozen=True)
class Case:
    name: str
    argv: list[str]
    env: dict[str, str]
    stdin: bytes | None = None
    reset: Path | None = None
    """The workspace whose ``src/handlers.py`` is put back before each run."""


def run_once(case: Case, source: str) -> float:
    if case.reset is not None:
        (case.reset / "src" / "handlers.py").write_text(source)
    t0 = now()
    done = subprocess.run(
        case.argv,
        input=case.stdin,
        stdin=None if case.stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        env=case.env,
        check=False,
    )
    took = now() - t0
    if done.returncode != 0:
        raise SystemExit(
            f"{case.name}: exit {done.returncode}\n{done.stderr.decode(errors='replace')[-2000:]}"
        )
    return took


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def base_env(root: Path) -> dict[str, str]:
    """The environment a user's shell gives a command: without this machine's
    ``PYTHONUNBUFFERED`` (set here for the tools, not by users; with it every ``print`` is
    a system call of its own), nor bytecode, profiling or path settings, nor Frontier's own
    overrides."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "PYTHONDONTWRITEBYTECODE",
            "PYTHONPROFILEIMPORTTIME",
            "PYTHONPATH",
            "PYTHONUNBUFFERED",
        )
        and not k.startswith("FRONTIER_")
    }
    return env | {
        "PYTHONPYCACHEPREFIX": str(root / "pycache"),
        # found as a user's are (``app/dirs.py``), not by Frontier's own overrides
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "FRONTIER_API_KEY": "bench-key",
    }


# pip's console-script template (distlib's SCRIPT_TEMPLATE), as pip writes every entry point
PIP_LAUNCHER = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from {module} import {name}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({name}())
"""


def _printed(python: Path, code: str) -> str:
    """What ``python -c code`` prints (one line)."""
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def installed_venv(root: Path, tree: Path | None = None, name: str = "installed") -> Path:
    """A venv laid out as ``pip install .`` of ``tree`` (default: this one) would leave it
    (see the module's docstring), made without network in ``root/name``; returns its
    ``bin``."""
    import sysconfig

    venv = root / name
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = _printed(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    package = Path(site) / "frontier"
    package.mkdir()
    tree = tree or Path(__file__).resolve().parent.parent
    for part in ("app", "tools", "widgets", "themes"):  # pyproject's package-dir
        (package / part).symlink_to(tree / part, target_is_directory=True)
    (Path(site) / "frontier_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (Path(site) / "launcher_floor.py").write_text("def main() -> int:\n    return 0\n")
    for script, module, name in (
        ("frontier", "frontier.app.cli", "entry"),
        ("launcher-floor", "launcher_floor", "main"),
    ):
        path = venv / "bin" / script
        path.write_text(PIP_LAUNCHER.format(python=python, module=module, name=name))
        path.chmod(0o755)
    where = _printed(python, "import frontier.app.cli as c; print(c.__file__)")
    if not Path(where).resolve().is_relative_to(tree):
        raise SystemExit(f"--installed: frontier.app.cli came from {where}, not {tree}")
    return venv / "bin"


def make_session(root: Path, env: dict[str, str]) -> str:
    """One small stored session: ``frontier run`` reads a file and answers (wires' server)."""
    return wires.make_session(root, env)


def commands(root: Path, env: dict[str, str], session: str, patch: bytes) -> list[Case]:
    f = wires.frontier_argv()
    ws = root / "ws"
    return [
        Case("--help", [*f, "--help"], env),
        Case("apply-patch (111 KB)", [*f, "apply-patch", "--root", str(ws)], env, patch, ws),
        Case("sessions", [*f, "sessions"], env),
        Case("check SESSION", [*f, "check", session], env),
        Case("undo SESSION --list", [*f, "undo", session, "--list"], env),
        Case("export SESSION", [*f, "export", session], env),
    ]


def _p50_min(values: Sequence[float]) -> str:
    return f"{statistics.median(values):7.3f} {min(values):6.3f}"


def measure(args: argparse.Namespace, root: Path, source: str) -> list[Case]:
    env = base_env(root)
    ws = root / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "handlers.py").write_text(source)
    session = make_session(root, env)
    patch = handlers_patch(source).encode()
    cases = commands(root, env, session, patch)
    if args.only:
        cases = [c for c in cases if any(o in c.name for o in args.only)]
    if args.baseline:
        old_env = {**env, "PYTHONPATH": str(Path(args.baseline).resolve())}
        old_env["PYTHONPYCACHEPREFIX"] = str(root / "pycache-baseline")
        old = wires.baseline_script(root)
        cases += [
            Case(f"{c.name}, baseline", [*old, *c.argv[1:]], old_env, c.stdin, c.reset)
            for c in cases
        ]
    reference = Case("python -c pass", [PYTHON, "-c", "pass"], env)
    print(
        "\ncommands in this venv (README's editable install: its finder's imports are in every "
        "process, the reference's too)"
    )
    table(cases, [reference], args.runs, source)
    if args.installed:
        bin_dir = installed_venv(root)
        mine = [
            Case(c.name, [str(bin_dir / "frontier"), *c.argv[1:]], env, c.stdin, c.reset)
            for c in cases
            if not c.name.endswith("baseline")
        ]
        if args.baseline:
            old_bin = installed_venv(root, Path(args.baseline).resolve() / "frontier", "old")
            mine += [
                Case(
                    f"{c.name}, baseline",
                    [str(old_bin / "frontier"), *c.argv[1:]],
                    env,
                    c.stdin,
                    c.reset,
                )
                for c in mine
            ]
        refs = [
            Case("python -c pass", [str(bin_dir / "python"), "-c", "pass"], env),
            Case("launcher floor", [str(bin_dir / "launcher-floor")], env),
        ]
        print("\ncommands as a regular install runs them (pip's launcher; no editable finder)")
        table(mine, refs, args.runs, source)
    if args.importtime:
        importtime(cases, source, args.importtime)
    return cases


def table(cases: Sequence[Case], references: Sequence[Case], runs: int, source: str) -> None:
    """Each run of each command alternates with one run of each reference; p50 and min of
    each, and the ratios of the mins (steadier than p50s on a shared machine) and p50s."""
    for case in [*references, *cases]:  # warm-up: bytecode written, files cached
        run_once(case, source)
    times: dict[str, list[float]] = {c.name: [] for c in cases}
    refs: dict[tuple[str, str], list[float]] = {
        (c.name, r.name): [] for c in cases for r in references
    }
    load_before = loadavg()
    for _ in range(runs):
        for case in cases:
            for ref in references:
                refs[case.name, ref.name].append(run_once(ref, source))
            times[case.name].append(run_once(case, source))
    print(
        f"whole process (spawn to exit), {runs} runs each, each run alternating with "
        f"{' and '.join(f'`{r.name}`' for r in references)}; seconds; "
        f"load {load_before} → {loadavg()}"
    )
    head = f"{'command':<24} {'p50    min':>14}"
    for ref in references:
        head += f" | {ref.name[:16]:>16}: p50 min  ratio p50 min"
    print(head)
    for ref in references:
        every = [t for (_, r), ts in refs.items() if r == ref.name for t in ts]
        print(f"{ref.name + ' (all runs)':<24} {_p50_min(every):>14}")
    for case in cases:
        mine = times[case.name]
        row = f"{case.name:<24} {_p50_min(mine):>14}"
        for ref in references:
            theirs = refs[case.name, ref.name]
            row += (
                f" | {_p50_min(theirs):>22} "
                f"{statistics.median(mine) / statistics.median(theirs):5.2f}x "
                f"{min(mine) / min(theirs):5.2f}x"
            )
        print(row)
    print("goal: every ratio to `python -c pass` ≤ 1.30x (issue 24)")


def importtime(cases: Sequence[Case], source: str, top: int) -> None:
    """One run of each command under ``-X importtime``: what it imports, heaviest first."""
    print("\n-X importtime, one run of each (profiling inflates the figures: they say where)")
    for case in cases:
        if case.name.endswith("baseline"):
            continue
        if case.reset is not None:
            (case.reset / "src" / "handlers.py").write_text(source)
        env = {**case.env, "PYTHONPROFILEIMPORTTIME": "1"}
        argv = [PYTHON, *case.argv[1:]] if case.argv[0] != PYTHON else case.argv
        if Path(case.argv[0]).name == "frontier":
            argv = [PYTHON, "-m", "frontier.app.cli", *case.argv[1:]]
        done = subprocess.run(argv, input=case.stdin, capture_output=True, env=env, check=False)
        rows, _ = wires.importtime_rows(done.stderr.decode(errors="replace"))
        frontier = sum(1 for _, _, n in rows if n.strip().startswith("frontier"))
        total = sum(cum for _, cum, n in rows if not n.startswith("  "))
        print(f"\n{case.name}: {len(rows)} modules ({frontier} of Frontier), {total / 1e6:.3f} s")
        print("\n".join(wires.importtime_table(rows, top)))


# --------------------------------------------------------------------------- in-process


def inprocess(args: argparse.Namespace, root: Path, source: str) -> None:
    from frontier.tools.patch_engine import apply_patch

    ws = root / "inproc"
    (ws / "src").mkdir(parents=True)
    target = ws / "src" / "handlers.py"
    patch = handlers_patch(source).encode()
    applied: list[float] = []
    planned: list[float] = []
    for _ in range(args.runs + 1):  # the first of each is a warm-up
        target.write_text(source)
        t0 = now()
        apply_patch(ws, patch, dry_run=True)
        planned.append(now() - t0)
        t0 = now()
        apply_patch(ws, patch)
        applied.append(now() - t0)
    ms = [1000 * t for t in applied[1:]]
    plan_ms = [1000 * t for t in planned[1:]]
    print(
        f"\nin-process: apply_patch on the 111 KB case ({len(source):,} bytes, {HUNKS} hunks), "
        f"{args.runs} runs; ms; load {loadavg()}"
    )
    print(f"  plan only (dry_run)  p50 {statistics.median(plan_ms):6.2f}  min {min(plan_ms):6.2f}")
    print(f"  plan + write         p50 {statistics.median(ms):6.2f}  min {min(ms):6.2f}")
    print("goal: applying ≤ 10 ms (issue 24)")
    if args.profile:
        prof = cProfile.Profile()
        for _ in range(20):
            target.write_text(source)
            prof.enable()
            apply_patch(ws, patch, dry_run=True)
            prof.disable()
        print("\ncProfile of 20 plans (dry_run), top by own time:")
        stats = pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime")
        stats.print_stats(15)


# --------------------------------------------------------------------------- the TUI


def pty_first(argv: list[str], env: dict[str, str], marker: bytes, timeout: float) -> float:
    """Seconds from just before the spawn to ``marker`` in what the process writes to a
    pseudo-terminal (120x40); the process is then ended (its group, which it leads)."""
    import fcntl
    import pty
    import signal
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    t0 = now()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    seen = b""
    found = None
    try:
        while found is None and now() - t0 < timeout:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen = seen[-4096:] + chunk
            if marker in seen:
                found = now() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        os.close(master)
    if found is None:
        raise SystemExit(f"{argv}: {marker!r} not seen within {timeout} s; last: {seen[-300:]!r}")
    return found


def tui(args: argparse.Namespace, root: Path) -> None:
    env = base_env(root) | {"TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    marker = args.tui_marker.encode()
    cases = [
        ("python -c print", [PYTHON, "-c", "print('ready')"], b"ready", env),
        ("frontier demo", [*wires.frontier_argv(), "demo"], marker, env),
    ]
    if args.baseline:
        old = {**env, "PYTHONPATH": str(Path(args.baseline).resolve())}
        old["PYTHONPYCACHEPREFIX"] = str(root / "pycache-baseline")
        argv = [*wires.baseline_script(root), "demo"]
        cases.append(("frontier demo, baseline", argv, marker, old))
    for _, argv, mark, case_env in cases:
        pty_first(argv, case_env, mark, args.timeout)
    times: dict[str, list[float]] = {name: [] for name, _, _, _ in cases}
    load = loadavg()
    for _ in range(args.runs):
        for name, argv, mark, case_env in cases:
            times[name].append(pty_first(argv, case_env, mark, args.timeout))
    ref = statistics.median(times["python -c print"])
    print(
        f"\nTUI first paint: spawn → {args.tui_marker!r} on a 120x40 pty, {args.runs} runs, "
        f"alternating; seconds; load {load} → {loadavg()}"
    )
    print(f"{'process':<28} {'p50    min':>14} {'p50 ÷ python':>13}")
    for name, values in times.items():
        print(f"{name:<28} {_p50_min(values):>14} {statistics.median(values) / ref:12.2f}x")
    print("goal: first paint ≤ 0.5 s on a quiet machine (issue 24)")


def pty_quit(argv: list[str], env: dict[str, str], marker: bytes, timeout: float) -> float:
    """Seconds from ctrl+q to the process's end: the TUI is started on a 120x40 pty, its
    screen waited for (``marker``) and left 0.5 s to settle (the session is built after the
    first paint), then ctrl+q is written and the exit timed (the pty's end, or the exit)."""
    import fcntl
    import pty
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its terminal
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    try:
        seen, deadline = b"", now() + timeout
        while marker not in seen[-65536:]:
            if now() > deadline:
                raise SystemExit(f"{argv}: {marker!r} not seen within {timeout} s")
            if select.select([fd], [], [], 0.05)[0]:
                seen += os.read(fd, 65536)
        settle = now() + 0.5
        while now() < settle:  # read what it paints meanwhile, so it never blocks
            if select.select([fd], [], [], max(0.0, settle - now()))[0]:
                os.read(fd, 65536)
        t0 = now()
        os.write(fd, b"\x11")
        while True:
            if select.select([fd], [], [], 0.01)[0]:
                try:
                    if not os.read(fd, 65536):
                        break
                except OSError:  # the child closed the terminal: it has ended
                    break
            if os.waitpid(pid, os.WNOHANG)[0]:
                pid = 0
                break
            if now() - t0 > timeout:
                raise SystemExit(f"{argv}: still running {timeout} s after ctrl+q")
        return now() - t0
    finally:
        if pid:
            os.waitpid(pid, 0)
        os.close(fd)


def quit_tui(args: argparse.Namespace, root: Path) -> None:
    """``--quit``: ctrl+q to the end of the process, a plain ``frontier`` TUI (a
    configured endpoint that is never asked: the session is built, nothing is sent)."""
    env = base_env(root) | {"TERM": "xterm-256color"}
    (root / "quit-ws").mkdir(exist_ok=True)
    tail = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--workspace"]
    tail.append(str(root / "quit-ws"))
    marker = args.tui_marker.encode()
    cases = [("frontier", [*wires.frontier_argv(), *tail], env)]
    if args.baseline:
        old = {**env, "PYTHONPATH": str(Path(args.baseline).resolve())}
        old["PYTHONPYCACHEPREFIX"] = str(root / "pycache-baseline")
        cases.append(("frontier, baseline", [*wires.baseline_script(root), *tail], old))
    title = f"TUI quit: ctrl+q → the process's end on a 120x40 pty, {args.runs} runs"
    alternate(title, cases, lambda a, e: pty_quit(a, e, marker, args.timeout), args.runs)


def alternate(
    title: str,
    cases: Sequence[tuple[str, list[str], dict[str, str]]],
    timed: Callable[[list[str], dict[str, str]], float],
    runs: int,
) -> None:
    """One untimed warm-up of each case (its modules compiled), then ``runs`` rounds of
    each in turn; p50, min and max of each printed under ``title``."""
    for _, argv, case_env in cases:
        timed(argv, case_env)
    times: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    load = loadavg()
    for _ in range(runs):
        for name, argv, case_env in cases:
            times[name].append(timed(argv, case_env))
    print(f"\n{title}, alternating; seconds; load {load} → {loadavg()}")
    print(f"{'process':<28} {'p50    min':>14}   max")
    for name, values in times.items():
        print(f"{name:<28} {_p50_min(values):>14} {max(values):6.3f}")


def resume_tui(args: argparse.Namespace, root: Path) -> None:
    """``--resume N``: spawn → the closing answer of an ``N``-call session on the screen."""
    env = base_env(root) | {"TERM": "xterm-256color"}
    session = wires.make_session(root / "resume", env, args.resume, native=True)
    marker = wires.CLOSING.rsplit(";", 1)[-1].strip().encode()  # one run of plain text
    cases = [("frontier resume", [*wires.frontier_argv(), "resume", session], env)]
    if args.baseline:
        old = {**env, "PYTHONPATH": str(Path(args.baseline).resolve())}
        old["PYTHONPYCACHEPREFIX"] = str(root / "pycache-baseline")
        old["XDG_DATA_HOME"] = str(root / "data-baseline")
        shutil.copytree(env["XDG_DATA_HOME"], old["XDG_DATA_HOME"])
        argv = [*wires.baseline_script(root), "resume", session]
        cases.append(("frontier resume, baseline", argv, old))
    title = (
        f"TUI resume: spawn → the last answer of a {args.resume}-call session on a 120x40 "
        f"pty, {args.runs} runs"
    )
    alternate(title, cases, lambda a, e: pty_first(a, e, marker, args.timeout), args.runs)


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=15, help="runs of each (default 15)")
    ap.add_argument("--only", nargs="*", help="commands whose name contains one of these")
    ap.add_argument(
        "--baseline", metavar="DIR", help="an older tree: `git archive` in DIR/frontier"
    )
    ap.add_argument("--installed", action="store_true", help="also as a regular install runs them")
    ap.add_argument("--importtime", type=int, default=0, metavar="TOP", help="-X importtime rows")
    ap.add_argument("--no-commands", action="store_true", help="skip the commands table")
    ap.add_argument("--inprocess", action="store_true", help="apply the largest case in-process")
    ap.add_argument("--profile", action="store_true", help="with --inprocess: a cProfile")
    ap.add_argument("--tui", action="store_true", help="TUI first paint on a pty")
    ap.add_argument("--tui-marker", default="Help", help="first screen text (the footer's f1 Help)")
    ap.add_argument("--quit", action="store_true", help="TUI ctrl+q to exit on a pty")
    ap.add_argument("--first", action="store_true", help="bench/wires.py part (b)")
    ap.add_argument("--resume", type=int, default=0, metavar="N", help="resume an N-call session")
    ap.add_argument("--timeout", type=float, default=30.0)
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]} ({PYTHON}), {os.cpu_count()} CPUs, load {loadavg()}")
    source = handlers_source()
    with tempfile.TemporaryDirectory(prefix="frontier-startup-") as tmp:
        root = Path(tmp)
        (root / "config").mkdir()
        if not args.no_commands:
            measure(args, root, source)
        if args.inprocess:
            inprocess(args, root, source)
        if args.tui:
            tui(args, root)
        if args.quit:
            quit_tui(args, root)
        if args.resume:
            resume_tui(args, root)
    if args.first:
        first = argparse.Namespace(
            wires=["openai-chat"],
            starts=args.runs,
            baseline=args.baseline,
            breakdown=3 if args.importtime else 0,
            importtime=args.importtime or 12,
            timeout=args.timeout,
            repo_files=0,
        )
        asyncio.run(wires.first_request(first))
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
