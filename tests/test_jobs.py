"""Background jobs: ``shell`` with ``background: true`` keeps a server running after its
call, the ``job`` tool reads what it printed (waiting for a line) and stops it, and the
session's end stops whatever still runs. Waits are for states (a line, an exit), bounded
only against a hang."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from async_wait import gone, until
from test_tools_fakes import call, make_boundary

from frontier.tools import jobs as jobs_module
from frontier.tools.boundary import ToolBoundary
from frontier.tools.jobs import Jobs

HANG = 60
"""The longest a test lets a read wait: reached only if the line never comes."""


@pytest.fixture(autouse=True)
def _short_first_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """A start looks at its job's first output for a second; these tests wait for states
    (a line, an exit) whatever that look saw, so a short one only makes them quicker."""
    monkeypatch.setattr(jobs_module, "FIRST_LOOK", 0.05)


def boundary(tmp_path: Path, jobs: Jobs | None = None) -> ToolBoundary:
    return make_boundary(tmp_path, jobs=jobs if jobs is not None else Jobs())


async def test_a_server_keeps_running_after_its_call_and_is_read_and_stopped(
    tmp_path: Path,
) -> None:
    jobs = Jobs()
    b = boundary(tmp_path, jobs)
    script = "echo $$ > pid; echo 'listening on 8000'; while :; do sleep 0.2; echo tick; done"
    started = await b.run(call("shell", 1, command=script, background=True))
    assert started.kind == "ok", started.output
    assert "job c1" in started.output and "still running" in started.output
    job = jobs.get("c1")
    assert job is not None and job.running
    # the first read finds the line whether it came in the start's first second or after
    read = await b.run(call("job", 2, id="c1", wait=HANG, until="listening"))
    assert read.kind == "ok" and "still running" in read.output, read.output
    more = await b.run(call("job", 3, id="c1", wait=HANG, until="tick"))
    assert "tick" in more.output and "listening" not in more.output  # only what is new
    pid = int((tmp_path / "pid").read_text())
    stopped = await b.run(call("job", 4, id="c1", stop=True))
    assert stopped.kind == "ok" and "stopped after" in stopped.output
    assert not job.running
    await until(lambda: gone(pid), "the job's process gone")  # a signal lands in its time
    again = await b.run(call("job", 5, id="c1"))  # an ended job still answers
    assert again.kind == "ok" and "stopped after" in again.output


async def test_a_job_that_fails_says_its_exit_code(tmp_path: Path) -> None:
    jobs = Jobs()
    b = boundary(tmp_path, jobs)
    started = await b.run(call("shell", 1, command="echo 'port in use'; exit 3", background=True))
    job = jobs.get("c1")
    assert job is not None
    await until(lambda: not job.running, "the job's exit")
    if "still running" in started.output:  # a loaded machine: the first second passed first
        read = await b.run(call("job", 2, id="c1"))
        assert read.kind == "error" and "exited 3" in read.output
    else:
        assert started.kind == "error" and "exited 3" in started.output
        assert "port in use" in started.output


async def test_an_exit_reaped_by_asyncio_first_waits_for_the_code_it_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under load asyncio's child watcher can reap a job before the thread that waits for
    its exit looks (``waitid``: ChildProcessError), and the watcher's callback, which sets
    ``returncode``, can run after the job's output has closed: its `exit 3` was then read
    as "exited 129", unknown (seen once in CI). ``exit_of`` now resolves only once asyncio
    has the code."""
    import asyncio
    import os

    from frontier.tools.process import exit_of

    def reaped_already(*args: object) -> object:
        raise ChildProcessError(10, "No child processes")

    monkeypatch.setattr(os, "waitid", reaped_already)

    class Reaped:
        pid = 1
        returncode: int | None = None

    proc = Reaped()
    loop = asyncio.get_running_loop()

    def record(turns: int) -> None:  # the watcher's callback, a few turns of the loop later
        if turns:
            loop.call_soon(record, turns - 1)
        else:
            proc.returncode = 3

    loop.call_soon(record, 5)
    status = await asyncio.wait_for(exit_of(proc), 10)  # type: ignore[arg-type]
    assert status is None and proc.returncode == 3  # resolved after asyncio recorded it


async def test_the_session_closing_stops_every_job_with_what_it_started(
    tmp_path: Path,
) -> None:
    jobs = Jobs()
    b = boundary(tmp_path, jobs)
    await b.run(call("shell", 1, command="sleep 300 & echo $! > child; wait", background=True))
    await until(lambda: (tmp_path / "child").exists(), "the job's child")
    child = int((tmp_path / "child").read_text())
    await jobs.close()
    assert jobs.running() == []
    # the kill is sent; the child dies when the kernel delivers it (a loaded machine: later)
    await until(lambda: gone(child), "the job's child gone")


async def test_an_unknown_job_is_an_error_that_says_why(tmp_path: Path) -> None:
    r = await boundary(tmp_path).run(call("job", 1, id="c9"))
    assert r.kind == "error"
    assert "no job 'c9'" in r.output and "start it again" in r.output
    long = await boundary(tmp_path).run(call("job", 3, id="x" * 10_000))
    assert long.kind == "error" and len(long.output) < 600  # the model's id, quoted short
    plain = await make_boundary(tmp_path).run(call("shell", 2, command="true", background=True))
    assert plain.kind == "error" and "not available" in plain.output  # a boundary without jobs


async def test_too_many_jobs_are_refused_until_one_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs_module, "MAX_JOBS", 2)
    jobs = Jobs()
    b = boundary(tmp_path, jobs)
    for n in (1, 2):
        assert (await b.run(call("shell", n, command="sleep 300", background=True))).kind == "ok"
    third = await b.run(call("shell", 3, command="sleep 300", background=True))
    assert third.kind == "error" and "2 background jobs are running already" in third.output
    await b.run(call("job", 4, id="c1", stop=True))
    assert (await b.run(call("shell", 5, command="sleep 300", background=True))).kind == "ok"
    await jobs.close()


async def test_a_read_waits_no_longer_than_asked_and_a_chatty_job_is_capped(
    tmp_path: Path,
) -> None:
    jobs = Jobs()
    b = boundary(tmp_path, jobs)
    chatty = "head -c 300000 /dev/zero | tr '\\0' x; echo; echo done; sleep 300"
    started = await b.run(call("shell", 1, command=chatty, background=True))
    read = await b.run(call("job", 2, id="c1", wait=HANG, until="done"))
    both = started.output + read.output
    assert "bytes of output omitted" in both and "done" in both
    assert max(len(started.output.encode()), len(read.output.encode())) <= 33 * 1024
    quiet = await b.run(call("job", 3, id="c1", wait=0))  # nothing new, at once
    assert "(no new output)" in quiet.output
    await jobs.close()


async def test_a_headless_run_stops_the_jobs_it_leaves_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`frontier run "start the dev server"` ends with its turn: the server goes too, on
    stderr by name (stdout stays the run's own)."""
    from aiohttp import web
    from sse_server import serve, sse, start_sse

    from frontier.app.config import Config
    from frontier.app.frontends.headless import run_headless

    served: list[int] = []
    start = {"command": "echo $$ > pid; exec sleep 300", "background": True}

    async def dispatch(request: web.Request) -> web.StreamResponse:
        served.append(len(served))
        resp = await start_sse(request)
        if len(served) == 1:
            piece = {"index": 0, "id": "call_1", "type": "function"}
            piece["function"] = {"name": "shell", "arguments": json.dumps(start)}
            await resp.write(sse({"choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]}))
            finish = "tool_calls"
        else:
            await resp.write(sse({"choices": [{"index": 0, "delta": {"content": "Up."}}]}))
            finish = "stop"
        await resp.write(sse({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}))
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    async with serve(dispatch) as url:
        config = Config(
            base_url=url, model="m", protocol="native-inc", approval="auto",
            instructions=False, sandbox="off", context_window=100_000,
        )  # fmt: skip
        status = await run_headless(config, prompts=["serve it"], workspace=tmp_path)
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "frontier: stopping background job call_1 (" in captured.err
    assert "stopping background job" not in captured.out
    pid = int((tmp_path / "pid").read_text())
    await until(lambda: gone(pid), "the job's process gone")


async def test_esc_stops_a_wait_on_a_job_not_the_job(tmp_path: Path) -> None:
    jobs = Jobs()
    b = boundary(tmp_path, jobs)
    await b.run(call("shell", 1, command="echo up; exec sleep 300", background=True))
    try:
        waiting = asyncio.create_task(b.run(call("job", 2, id="c1", wait=HANG, until="never")))
        await until(lambda: bool(b.running), "the read to start")
        assert b.cancel_running()
        r = await asyncio.wait_for(waiting, HANG)
        assert r.kind == "cancelled" and "the job keeps running" in r.output
        job = jobs.get("c1")
        assert job is not None and job.running
    finally:
        await jobs.close()
