"""Run katas' tests for a learner: fast, isolated, and stopped when they run away.

A warm parent imports torch, pytest and hypothesis once (`warm_up`). Every check then runs in a
fresh child forked from it, so the learner's module is imported anew, nothing leaks from one
check to the next, and the child pays none of the imports. The child leads its own process
group: a check that runs past its time limit (an endless loop, a huge allocation) is killed with
everything it started, and Ctrl-C in the terminal reaches only the parent, which then kills it.

The parent never touches CUDA, since forking a process that has initialised CUDA is unsafe. On
a machine that may have a GPU (a CUDA build of torch and an NVIDIA device), checks run in a
spawned interpreter instead: it pays the imports every time, but is always safe.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from dojo import catalogue as _catalogue

ROOT = _catalogue.ROOT
TIME_LIMIT = 60.0  # seconds one check may take before it is stopped
PROFILE_VAR = "KATAS_HYPOTHESIS_PROFILE"


@dataclass
class Verdict:
    """One kata's result, as `check`, `watch --porcelain` and `list` report it."""

    kata: str
    solved: bool = False
    passed: int = 0
    failed: int = 0
    not_written: int = 0
    skipped: int = 0  # cuda tests, on a machine without a GPU
    seconds: float = 0.0
    quick: bool = False  # few hypothesis examples: a first answer, never "done"
    state: str = "not checked"  # done, in progress, not started, does not import, ...
    problem: str = ""  # why no verdict could be reached (import error, time limit, crash)
    messages: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)  # functions still raising the stub's error

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.not_written

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def cuda_host() -> bool:
    """Could this machine have a GPU? Asked without touching CUDA (that would spoil forking)."""
    import torch

    return torch.version.cuda is not None and (
        os.path.exists("/dev/nvidiactl") or shutil.which("nvidia-smi") is not None
    )


def use_fork() -> bool:
    """Fork from the warm parent (Linux, no GPU in sight), else spawn a fresh interpreter.
    KATAS_RUNNER=spawn or =fork overrides, for tests and for a machine where one misbehaves."""
    choice = os.environ.get("KATAS_RUNNER", "")
    if choice in ("spawn", "fork"):
        return choice == "fork"
    return sys.platform == "linux" and not cuda_host()


def warm_up() -> None:
    """Import what every check needs, once, in the parent. Never the learner's code."""
    import _hypothesis_pytestplugin  # noqa: F401
    import hypothesis.strategies  # noqa: F401
    import numpy  # noqa: F401
    import pytest  # noqa: F401
    import torch  # noqa: F401

    import tests.strategies
    import tests.support  # noqa: F401

    warm_hypothesis()
    # Hypothesis harvests constants from every "local" module it finds in sys.modules, once
    # per new module: about a second for torch's thousands. Do it here, once, not per check.
    with contextlib.suppress(Exception), warnings.catch_warnings():  # a private helper: if it
        warnings.simplefilter("ignore")  # moves, checks only slow down; its warning is no news
        from hypothesis.internal.conjecture.providers import _get_local_constants

        _get_local_constants()
    # Move everything imported so far out of the garbage collector's sight: pytest collects
    # garbage at exit, and with torch loaded a full collection costs about a second. It also
    # keeps forked children from copying those pages.
    gc.freeze()


def warm_hypothesis() -> None:
    """Load Hypothesis's Unicode tables into this process, so that forked children share them.

    `st.text()` draws from the characters UTF-8 can encode; Hypothesis works out which those
    are, and each character's category, by testing all 1.1 million code points (about 1.5 s),
    then caches the answer under `.hypothesis/unicode_data/` in the directory it was imported
    from. A check in a fresh clone, or in a copy of the repository, would pay it in the child.
    """
    # The plugin first, as pytest would import it: Hypothesis warns when it has touched its
    # storage before its plugin was loaded (HypothesisSideeffectWarning, in every check).
    import _hypothesis_pytestplugin  # noqa: F401

    with contextlib.suppress(Exception), warnings.catch_warnings():  # private helpers: if
        warnings.simplefilter("ignore")  # they move, the first check is only slower
        from hypothesis.internal.charmap import charmap, intervals_from_codec

        charmap()
        intervals_from_codec("utf-8")


def pytest_args(names: list[str]) -> list[str]:
    """Quiet, no cache, and only the plugins a check needs (no xdist: one kata, one process)."""
    files = [str(_catalogue.get(n).tests.relative_to(ROOT)) for n in names]
    return [
        "-p",
        "_hypothesis_pytestplugin",
        "-q",
        "-p",
        "no:cacheprovider",
        "--impl",
        "katas",
        "--tb=short",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        *files,
    ]


def quiet_pytest(args: list[str], plugins: tuple = ()) -> tuple[int, str]:
    """In a child: run pytest from the repository's root with its output in a file (nobody reads
    the child's terminal); return the exit code and the output's tail."""
    import pytest

    os.chdir(ROOT)
    log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the child
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    code = int(pytest.main(args, plugins=list(plugins)))
    log.seek(0)
    return code, log.read()[-4000:].decode()


def _child(names: list[str], quick: bool) -> dict:
    """In the child: run pytest on the katas' tests; return the counts per kata."""
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # entry points: see pytest_args
    if quick:
        os.environ[PROFILE_VAR] = "quick"
    from dojo import progress

    code, output = quiet_pytest(pytest_args(names))
    return {"code": code, "stats": progress.snapshot(), "output": output}


def _verdicts(names: list[str], quick: bool, outcome: dict, seconds: float) -> dict[str, Verdict]:
    verdicts = {}
    for name in names:
        v = Verdict(kata=name, quick=quick, seconds=round(seconds, 3))
        if "problem" in outcome:
            v.problem, v.state = outcome["problem"], "stopped"
        elif name not in outcome["stats"]:
            v.state = "no test ran"
            v.problem = (
                f"pytest could not run tests/test_{name}.py (exit code {outcome['code']}):\n"
                + outcome["output"].strip()[-1500:]
            )
        else:
            from dojo.progress import state

            counts = outcome["stats"][name]
            for key in ("passed", "failed", "not_written", "skipped", "messages", "unwritten"):
                setattr(v, key, counts[key])
            v.problem, v.state = counts["problem"], state(counts)
            v.solved = v.state == "done" and not quick
        verdicts[name] = v
    return verdicts


def check(
    names: list[str],
    *,
    quick: bool = False,
    time_limit: float = TIME_LIMIT,
    cancel: Callable[[], bool] = lambda: False,
) -> dict[str, Verdict] | None:
    """Run the named katas' tests against katas/ in one child; None if `cancel()` said stop."""
    start = time.perf_counter()
    if use_fork():
        outcome = _forked(lambda: _child(names, quick), time_limit, cancel)
    else:
        outcome = _spawned(names, quick, time_limit, cancel)
    if outcome is None:
        return None
    return _verdicts(names, quick, outcome, time.perf_counter() - start)


def _stopped(time_limit: float) -> dict:
    return {
        "problem": f"stopped after {time_limit:g} s: does your code loop forever, or build "
        "something huge? (the time limit is `--time-limit SECONDS`)"
    }


def _kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
            break
        except (ProcessLookupError, PermissionError):
            continue


def _start(work: Callable[[], dict]) -> tuple[int, int]:
    """Fork a child that runs `work()` in its own process group; return its pid and the pipe
    its JSON result comes down."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        status = 0
        try:
            os.setpgid(0, 0)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            os.close(read_end)
            try:
                payload = json.dumps(work())
            except BaseException as err:
                payload = json.dumps({"problem": f"the check crashed: {type(err).__name__}: {err}"})
            with os.fdopen(write_end, "w") as pipe:
                pipe.write(payload)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    try:
        os.close(write_end)
        with contextlib.suppress(OSError):  # also here, so a kill right after fork reaches it
            os.setpgid(pid, pid)
    except BaseException:  # Ctrl-C before the caller knows the child: take it down here
        _kill(pid)
        _reap(pid)
        os.close(read_end)
        raise
    return pid, read_end


def forked_many(works: list[Callable[[], dict]], *, parallel: int, time_limit: float):
    """Run each work in its own forked child, `parallel` at a time; yield (index, result) as
    they finish. A child past `time_limit` is killed and yields a "stopped" result."""
    waiting = list(enumerate(works))[::-1]
    running: dict[int, tuple[int, int, list[bytes], float]] = {}  # fd -> index, pid, chunks, end
    try:
        while waiting or running:
            while waiting and len(running) < parallel:
                index, work = waiting.pop()
                pid, fd = _start(work)
                running[fd] = (index, pid, [], time.monotonic() + time_limit)
            ready, _, _ = select.select(list(running), [], [], 0.05)
            for fd in ready:
                index, pid, chunks, _end = running[fd]
                chunk = os.read(fd, 1 << 16)
                if chunk:
                    chunks.append(chunk)
                    continue
                del running[fd]
                os.close(fd)
                _reap(pid)
                yield index, _result(chunks)
            for fd, (index, pid, _chunks, end) in list(running.items()):
                if time.monotonic() > end:
                    del running[fd]
                    _kill(pid)
                    os.close(fd)
                    _reap(pid)
                    yield index, _stopped(time_limit)
    finally:  # Ctrl-C, or the caller stopped early: take every child down
        for fd, (_index, pid, _chunks, _end) in running.items():
            _kill(pid)
            os.close(fd)
            _reap(pid)


def forked(work: Callable[[], dict], *, time_limit: float = TIME_LIMIT) -> dict:
    """`work()`'s JSON-able result, computed in a child forked from this process, in its own
    process group, and killed with that group after `time_limit` seconds. The child starts with
    everything this process has imported (torch: no 2.5 s import) and leaves nothing behind in
    it. Call it only where `use_fork()` is true: forking a process that has initialised CUDA
    is unsafe."""
    return _forked(work, time_limit, lambda: False)


def _result(chunks: list[bytes]) -> dict:
    if not chunks:
        return {"problem": "the check died without a result (killed by the system: out of memory?)"}
    return json.loads(b"".join(chunks))


def _forked(work: Callable[[], dict], time_limit: float, cancel) -> dict | None:
    chunks, deadline = [], time.monotonic() + time_limit
    pid, fd = _start(work)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                _kill(pid)
                return _stopped(time_limit)
            if cancel():
                _kill(pid)
                return None
            ready, _, _ = select.select([fd], [], [], min(left, 0.05))
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    except BaseException:  # Ctrl-C: take the child down with us
        _kill(pid)
        raise
    finally:
        os.close(fd)
        _reap(pid)
    return _result(chunks)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    # and whatever the child left running in its group (DataLoader workers, ranks)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _spawned(names: list[str], quick: bool, time_limit: float, cancel) -> dict | None:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "outcome.json")
        args = [sys.executable, "-m", "dojo.runner", out, *(["--quick"] if quick else []), *names]
        proc = subprocess.Popen(
            args,
            cwd=ROOT,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + time_limit
        try:
            while proc.poll() is None:
                if time.monotonic() > deadline:
                    _kill(proc.pid)
                    proc.wait()
                    return _stopped(time_limit)
                if cancel():
                    _kill(proc.pid)
                    proc.wait()
                    return None
                time.sleep(0.05)
        except BaseException:
            _kill(proc.pid)
            raise
        if not os.path.exists(out):
            return {"problem": f"the check died without a result (exit code {proc.returncode})"}
        with open(out) as f:
            return json.load(f)


def _spawned_main(argv: list[str]) -> None:
    """`python -m dojo.runner OUT [--quick] NAME...`: one check, its outcome as JSON in OUT."""
    out, rest = argv[0], argv[1:]
    quick = "--quick" in rest
    names = [a for a in rest if a != "--quick"]
    try:
        outcome = _child(names, quick)
    except BaseException as err:
        outcome = {"problem": f"the check crashed: {type(err).__name__}: {err}"}
    with open(out, "w") as f:
        json.dump(outcome, f)


if __name__ == "__main__":
    _spawned_main(sys.argv[1:])
