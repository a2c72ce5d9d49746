"""Run katas' tests for a learner: fast, isolated, and stopped when they run away.

A warm parent imports torch, pytest and hypothesis once (`warm_up`). Every check then runs in a
fresh child forked from it, so the learner's module is imported anew, nothing leaks from one
check to the next, and the child pays none of the imports. The child leads its own process
group, and is stopped with everything it started (also what left that group) when it runs past
its time limit (an endless loop, a huge allocation). Ctrl-C in the terminal reaches only the
parent, which then stops it. The child sends its progress as it goes, so a long check can show
how far it is, and a stop can say which test was running.

The parent never touches CUDA, since forking a process that has initialised CUDA is unsafe. On
a machine that may have a GPU (a CUDA build of torch and an NVIDIA device), checks run in a
spawned interpreter instead. It is started ahead of time and warms up as the parent would
(`_Standby`), so a check rarely waits for its imports, and it never serves a second check.
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
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from dojo import catalogue as _catalogue

ROOT = _catalogue.ROOT
TIME_LIMIT = 60.0  # seconds one check may take before it is stopped
PROFILE_VAR = "KATAS_HYPOTHESIS_PROFILE"
STANDBY_VAR = "KATAS_STANDBY"  # set in a spawned check's interpreter


@dataclass
class Verdict:
    """One kata's result, as `check`, `watch --porcelain` and `list` report it."""

    kata: str
    solved: bool = False
    passed: int = 0
    failed: int = 0
    not_written: int = 0
    blocked: int = 0  # could not run: the kata's file does not import
    skipped: int = 0  # cuda tests, on a machine without a GPU (or with one GPU, for multi-GPU)
    given: int = 0  # tests of the stub's given code that pass: in no other count, nor the total
    seconds: float = 0.0
    quick: bool = False  # few hypothesis examples: a first answer, never "done"
    state: str = "not checked"  # done, in progress, not started, does not import, ...
    problem: str = ""  # why no verdict could be reached (import error, time limit, crash)
    messages: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)  # functions still raising the stub's error

    @property
    def total(self) -> int:
        """The tests this machine can run (skipped cuda tests come on top), less the tests of
        the given code that pass: those pass on the stub, and are no progress of the learner's."""
        return self.passed + self.failed + self.not_written + self.blocked

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def limit_for(kata: _catalogue.Kata, given: float | None = None) -> float:
    """The seconds one check of `kata` may take: `given` (--time-limit) when said, else the
    catalogue's `time_limit` for the kata (one whose ranks are processes needs more), else
    TIME_LIMIT."""
    if given is not None:
        return given
    return kata.time_limit if kata.time_limit is not None else TIME_LIMIT


def cuda_host() -> bool:
    """Could this machine have a GPU? Asked without touching CUDA (that would spoil forking),
    and without importing torch where no NVIDIA driver is in sight."""
    if not (os.path.exists("/dev/nvidiactl") or shutil.which("nvidia-smi") is not None):
        return False
    import torch

    return torch.version.cuda is not None


def use_fork() -> bool:
    """Fork from the warm parent (Linux, no GPU in sight), else spawn a fresh interpreter.
    KATAS_RUNNER=spawn or =fork overrides, for tests and for a machine where one misbehaves."""
    choice = os.environ.get("KATAS_RUNNER", "")
    if choice in ("spawn", "fork"):
        return choice == "fork"
    return sys.platform == "linux" and not cuda_host()


def warm_up() -> None:
    """Import what every check needs, once, in the parent. Never the learner's code.
    Where checks are spawned, start the first check's interpreter instead (see `_Standby`)."""
    if not use_fork() and not os.environ.get(STANDBY_VAR):
        _stand_by()
        return
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


def share_cores(side_by_side: int) -> None:
    """In one of `side_by_side` processes that run at once: take its share of torch's threads.

    torch gives every process one CPU thread per core. Two processes on two cores then run
    four OpenMP threads that spin while they wait for each other: the solution corpus of
    mixed_precision and memory took 11.3 s on two cores, against 6.6 s with a thread each
    (`python -m benchmarks.cores`, docs/benchmarks/cores.json)."""
    torch = sys.modules.get("torch")
    if side_by_side > 1 and torch is not None:
        torch.set_num_threads(max(1, torch.get_num_threads() // side_by_side))


def _child(
    names: list[str], quick: bool, emit: Callable[[dict], None], side_by_side: int = 1
) -> dict:
    """In the child: run pytest on the katas' tests; return the counts per kata. `emit` sends
    a progress line to the parent after each test; `side_by_side` checks run at once."""
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # entry points: see pytest_args
    share_cores(side_by_side)
    if quick:
        os.environ[PROFILE_VAR] = "quick"
    from dojo import progress

    progress.listener = emit
    code, output = quiet_pytest(pytest_args(names))
    progress.listener = None
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
            from dojo.source import untouched

            counts = outcome["stats"][name]
            for key in (
                "passed",
                "failed",
                "not_written",
                "blocked",
                "skipped",
                "given",
                "messages",
                "unwritten",
            ):
                setattr(v, key, counts.get(key, getattr(v, key)))
            v.problem = counts["problem"]
            v.state = state(counts, untouched(_catalogue.get(name)))
            v.solved = v.state == "done" and not quick
        verdicts[name] = v
    return verdicts


def check(
    names: list[str],
    *,
    quick: bool = False,
    time_limit: float | None = None,
    deadline: float | None = None,
    cancel: Callable[[], bool] = lambda: False,
    on_progress: Callable[[dict], None] | None = None,
    then: bool = False,
) -> dict[str, Verdict] | None:
    """Run the named katas' tests against katas/ in one child; None if `cancel()` said stop.

    The check is stopped `time_limit` seconds (default: the katas' own) after it starts, or
    at `deadline` (a `time.monotonic()` value) when given: a quick and a full run share one
    limit that way.
    `on_progress` gets the child's progress (tests done, passed, failed, the one running).
    `then`: another check follows at once, so a spawned interpreter is made ready for it now.
    """
    start = time.perf_counter()
    if time_limit is None:
        time_limit = max(limit_for(_catalogue.get(n)) for n in names)
    if deadline is None:
        deadline = time.monotonic() + time_limit
    job = _Job(lambda: _launch(names, quick, then), deadline, time_limit)
    outcome = _run([job], parallel=1, cancel=cancel, on_progress=on_progress)[0]
    if outcome is None:
        return None
    return _verdicts(names, quick, outcome, time.perf_counter() - start)


def check_each(
    names: list[str], *, time_limit: float | None = None, parallel: int | None = None
) -> dict[str, Verdict]:
    """Full runs of each kata in a child of its own, `parallel` at a time (default: one per
    core, at most 4, or 2 where checks are spawned), each with its own time limit
    (`time_limit`, else the kata's: `limit_for`): one kata's import-time side effects cannot
    touch another's verdict, and one that hangs costs one time limit, not one per kata."""
    # a few at a time: on a GPU host each child holds a CUDA context and its own torch
    parallel = parallel or min(os.cpu_count() or 2, 4 if use_fork() else 2)
    starts: dict[int, float] = {}
    jobs = []
    for i, name in enumerate(names):
        more = i + parallel < len(names)

        def launch(i=i, name=name, more=more) -> _Child:
            starts[i] = time.perf_counter()
            return _launch([name], False, more, side_by_side=parallel)

        jobs.append(_Job(launch, None, limit_for(_catalogue.get(name), time_limit)))
    outcomes = _run(jobs, parallel=parallel)
    verdicts = {}
    for i, (name, outcome) in enumerate(zip(names, outcomes, strict=True)):
        seconds = time.perf_counter() - starts.get(i, time.perf_counter())
        verdicts.update(_verdicts([name], False, outcome, seconds))
    return verdicts


# --- children: started, watched, stopped with everything they started -----------------------
#
# A child writes JSON lines down a pipe: any number of {"progress": {...}}, then one
# {"result": {...}}. The result line ends the check, even where something the child started
# still holds the pipe open. Each child is a "child subreaper" (Linux): whatever its processes
# leave behind becomes its own child, not init's, so that the child's process tree holds
# everything the check started, also what left the process group (`start_new_session=True`).
# The child kills that tree before it exits; the parent walks it (/proc) while the check runs
# and kills what it saw, and the child's group, when the child is stopped or dies.


PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> None:
    if sys.platform != "linux":
        return
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _processes() -> dict[int, tuple[int, str]]:
    """Every process this user can see: pid -> (parent pid, start time), from /proc."""
    found = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()  # after "(command name)"
            found[int(entry.name)] = (int(fields[1]), fields[19].decode())
    return found


def _tree(pid: int) -> dict[int, str]:
    """`pid`'s descendants (not `pid` itself): pid -> start time, so a reused pid is not hit."""
    procs = _processes()
    children: dict[int, list[int]] = {}
    for p, (parent, _start) in procs.items():
        children.setdefault(parent, []).append(p)
    found, todo = {}, list(children.get(pid, []))
    while todo:
        p = todo.pop()
        if p not in found and p != pid:
            found[p] = procs[p][1]
            todo.extend(children.get(p, []))
    return found


def _kill_all(pids: dict[int, str]) -> None:
    """Stop, then kill, each process of `pids` that is still the one seen (same start time)."""
    if not pids:
        return
    now = _processes()
    alive = [p for p, start in pids.items() if p in now and now[p][1] == start]
    for sig in (signal.SIGSTOP, signal.SIGKILL):  # stopped first, so none forks meanwhile
        for p in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, sig)


def _kill_descendants(pid: int) -> None:
    """Kill every process under `pid`, also those that have left its group or session."""
    for _ in range(3):  # one that forked while the tree was read is found next time
        found = _tree(pid)
        if not found:
            return
        _kill_all(found)


def _kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
            break
        except (ProcessLookupError, PermissionError):
            continue


class _Child:
    """A running check: its pid, the pipe its lines come down, what it has said so far."""

    def __init__(self, pid: int, fd: int, wait: Callable[[], int]) -> None:
        self.pid, self.fd, self._wait = pid, fd, wait
        self.buffer = b""
        self.progress: dict = {}
        self.since = time.monotonic()  # when the test now running started
        self.result: dict | None = None
        self.seen: dict[int, str] = {}  # every descendant seen while it ran
        self.started = time.monotonic()
        self.killed = False
        self.code: int | None = None

    def read(self) -> bool:
        """Read what the pipe has; False at its end or once the result is in."""
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            return False
        lines = (self.buffer + chunk).split(b"\n")
        self.buffer = lines.pop()
        for line in lines:
            message = json.loads(line)
            if "progress" in message:
                if message["progress"].get("running") != self.progress.get("running"):
                    self.since = time.monotonic()
                self.progress = message["progress"]
            else:
                self.result = message["result"]
                return False
        return True

    def look(self) -> None:
        self.seen.update(_tree(self.pid))

    def stop(self) -> None:
        """Kill it and everything it started."""
        self.killed = True
        self.seen.update(_tree(self.pid))
        _kill_all(self.seen)
        _kill(self.pid)

    def close(self) -> None:
        """Close the pipe, reap the child, and kill whatever it left running."""
        with contextlib.suppress(OSError):
            os.close(self.fd)
        self.code = self._wait()
        _kill_all(self.seen)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)  # DataLoader workers, ranks, in its group

    def outcome(self) -> dict:
        if self.result is not None:
            return self.result
        return {"problem": _died(self.code, self.progress)}


def _short(nodeid: str) -> str:
    return nodeid.rpartition("::")[2] if nodeid else ""


def _died(code: int | None, progress: dict) -> str:
    """Why a child ended without a result, from its exit status."""
    running = _short(progress.get("running", ""))
    where = f" while {running} ran" if running else ""
    if (
        not progress and code is not None and code > 0
    ):  # before pytest started: the interpreter's own trouble
        return f"the check's process ended before any test started (exit code {code})"
    if code is not None and code < 0:
        if -code == signal.SIGKILL:
            return f"the check was killed{where} (by the system: out of memory?)"
        name = signal.Signals(-code).name if -code in signal.valid_signals() else f"{-code}"
        return f"the check crashed{where}: its process died of {name}"
    return (
        f"the check's process ended{where} (exit code {code}) before the tests were done: "
        "does your code call os._exit() or kill its own process?"
    )


def _stopped(time_limit: float, progress: dict, test_s: float) -> dict:
    """The verdict on a check stopped at its time limit: it names the test that was running,
    and blames the code only when that test, or nothing, has used most of the time."""
    limit = f"stopped after {time_limit:g} s (the time limit)"
    done, failed = progress.get("done", 0), progress.get("failed", 0)
    total = progress.get("total", 0)
    running = _short(progress.get("running", ""))
    more = f"`--time-limit {2 * time_limit:g}`"
    if done and test_s < time_limit / 2:
        tally = f"{done} of {total} tests done" if total else f"{_plural(done, 'test')} done"
        tally += ", all passing" if not failed else f", {failed} not passing"
        return {
            "problem": f"{limit} ({tally}): this machine needs more time for this kata. "
            f"Give it more with {more}."
        }
    where = f" in {running}, which had run {test_s:.0f} s" if running else ""
    return {
        "problem": f"{limit}{where}. Does your code loop forever, or build something huge? "
        f"If not, give it more time with {more}."
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _start(work: Callable[[Callable[[dict], None]], dict]) -> _Child:
    """Fork a child that runs `work(emit)` in its own process group and sends its JSON result;
    `emit(progress)` sends progress on the way."""
    read_end, write_end = os.pipe()
    pid, interrupted = _fork()
    if pid == 0:  # the child
        status = 0
        try:
            os.setpgid(0, 0)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            os.close(read_end)
            _serve(write_end, work)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    try:
        os.close(write_end)
        with contextlib.suppress(OSError):  # also here, so a kill right after fork reaches it
            os.setpgid(pid, pid)
        if interrupted:
            raise KeyboardInterrupt
        # Made here, inside the try: a Ctrl-C may land in any Python call, this one included.
        return _Child(pid, read_end, lambda: _reap(pid))
    except BaseException:  # Ctrl-C before the caller knows the child: take it down here
        _kill(pid)
        _reap(pid)
        os.close(read_end)
        raise


def _fork() -> tuple[int, bool]:
    """os.fork(), and whether a Ctrl-C came during it.

    A KeyboardInterrupt raised inside os.fork's at-fork hooks (logging registers some) is
    printed as "Exception ignored" and lost: a watch went on checking after Ctrl-C. So a
    Ctrl-C during the fork is only recorded, and the caller raises it once it holds the pid.
    """
    caught: list[int] = []
    swap = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if swap:
        signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        pid = os.fork()
    finally:
        if swap:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    return pid, bool(caught)


def _serve(fd: int, work: Callable[[Callable[[dict], None]], dict]) -> None:
    """In a child: run `work`, send its progress and result down `fd`, then kill everything
    the work left running (it is ours: see `_become_subreaper`)."""
    _become_subreaper()
    pipe = os.fdopen(fd, "w")

    def emit(progress: dict) -> None:
        pipe.write(json.dumps({"progress": progress}) + "\n")
        pipe.flush()

    try:
        try:
            result = work(emit)
        except BaseException as err:
            result = {"problem": f"the check crashed: {type(err).__name__}: {err}"}
        _kill_descendants(os.getpid())
        pipe.write(json.dumps({"result": result}) + "\n")
        pipe.flush()
    finally:
        _kill_descendants(os.getpid())
        with contextlib.suppress(OSError):
            pipe.close()


def _reap(pid: int) -> int:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return 0
    return os.waitstatus_to_exitcode(status)


class _Job:
    def __init__(self, launch: Callable[[], _Child], deadline: float | None, limit: float):
        self.launch, self.deadline, self.limit = launch, deadline, limit


LOOK_EVERY = 0.5  # seconds between two walks of a running child's process tree


class _Cancelled(Exception):
    pass


def _run(
    jobs: list[_Job],
    *,
    parallel: int,
    cancel: Callable[[], bool] = lambda: False,
    on_progress: Callable[[dict], None] | None = None,
) -> list[dict | None]:
    """Run the jobs, `parallel` at a time; each one's outcome (None for all if cancelled)."""
    outcomes: list[dict | None] = [None] * len(jobs)
    try:
        for index, outcome in _each(jobs, parallel, cancel, on_progress):
            outcomes[index] = outcome
    except _Cancelled:
        return [None] * len(jobs)
    return outcomes


def _each(jobs: list[_Job], parallel: int, cancel, on_progress):
    """Run the jobs, `parallel` at a time; yield (index, outcome) as each ends. Raises
    _Cancelled, with every child stopped, when `cancel()` says so."""
    waiting = list(range(len(jobs)))[::-1]
    running: dict[int, tuple[int, _Child, float]] = {}  # fd -> index, child, deadline
    looked = time.monotonic()
    try:
        while waiting or running:
            while waiting and len(running) < parallel:
                index = waiting.pop()
                job = jobs[index]
                deadline = job.deadline or (time.monotonic() + job.limit)
                child = job.launch()
                # No call between the launch and this line: a Ctrl-C lands only in a call,
                # and one here would leave the child out of `running`, never stopped.
                running[child.fd] = (index, child, deadline)
            now = time.monotonic()
            if cancel():
                raise _Cancelled
            timeout = max(0.0, min(0.05, *(d - now for _, _, d in running.values())))
            ready, _, _ = select.select(list(running), [], [], timeout)
            for fd in ready:
                index, child, _deadline = running[fd]
                before = child.progress
                going = child.read()
                if child.progress is not before and on_progress is not None:
                    on_progress(child.progress)
                if not going:
                    del running[fd]
                    child.close()
                    yield index, child.outcome()
            now = time.monotonic()
            for fd, (index, child, deadline) in list(running.items()):
                if now >= deadline:
                    del running[fd]
                    child.stop()
                    child.close()
                    yield index, _stopped(jobs[index].limit, child.progress, now - child.since)
            if running and now - looked > LOOK_EVERY:
                looked = now
                for _index, child, _deadline in running.values():
                    child.look()
    finally:  # Ctrl-C, cancel, or the caller stopped early: take every child down
        for _index, child, _deadline in running.values():
            child.stop()
            child.close()


def forked_many(works: list[Callable[[], dict]], *, parallel: int, time_limit: float):
    """Run each work in its own forked child, `parallel` at a time; yield (index, result) as
    they finish. A child past `time_limit` is killed and yields a "stopped" result."""

    def shared(work: Callable[[], dict]) -> dict:
        share_cores(parallel)
        return work()

    jobs = [_Job(lambda w=w: _start(lambda _emit: shared(w)), None, time_limit) for w in works]
    yield from _each(jobs, parallel, lambda: False, None)


def _forked(work: Callable[[], dict], time_limit: float, cancel: Callable[[], bool]):
    """`forked`, stopped early (None) when `cancel()` says so."""
    job = _Job(lambda: _start(lambda _emit: work()), None, time_limit)
    return _run([job], parallel=1, cancel=cancel)[0]


def forked(work: Callable[[], dict], *, time_limit: float = TIME_LIMIT) -> dict:
    """`work()`'s JSON-able result, computed in a child forked from this process, in its own
    process group, and killed with everything it started after `time_limit` seconds. The child
    starts with everything this process has imported (torch: no 2.5 s import) and leaves
    nothing behind in it. Call it only where `use_fork()` is true: forking a process that has
    initialised CUDA is unsafe."""
    job = _Job(lambda: _start(lambda _emit: work()), None, time_limit)
    return _run([job], parallel=1)[0]


# --- a spawned interpreter, started warm -----------------------------------------------------
#
# Where forking is not used (a machine that may have a GPU), each check runs in a new
# interpreter. It is started ahead of time (`warm_up`, or while the check before it runs): it
# imports torch, pytest and Hypothesis as the warm parent does, then waits for its one check.
# It never imports the learner's code before the check, and never serves a second one, so it is
# as fresh as a cold start, without its wait.


class _Standby:
    def __init__(self) -> None:
        read_end, write_end = os.pipe()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dojo.runner", "--standby", str(write_end)],
            cwd=ROOT,
            env={**os.environ, STANDBY_VAR: "1"},
            start_new_session=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_end,),
        )
        os.close(write_end)
        self.fd = read_end

    def start(self, names: list[str], quick: bool, side_by_side: int = 1) -> _Child:
        request = {"names": names, "quick": quick, "side_by_side": side_by_side}
        with contextlib.suppress(OSError):  # it died warming up: its outcome will say so
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.close()
        return _Child(self.proc.pid, self.fd, self.proc.wait)

    def discard(self) -> None:
        _kill(self.proc.pid)
        self.proc.wait()
        with contextlib.suppress(OSError):
            os.close(self.fd)


_standing: list[_Standby] = []


def _stand_by() -> None:
    """Start an interpreter for the next check, unless one is waiting already."""
    if not _standing:
        if not hasattr(_stand_by, "registered"):
            import atexit

            atexit.register(_discard_standbys)
            _stand_by.registered = True
        _standing.append(_Standby())


def _discard_standbys() -> None:
    while _standing:
        _standing.pop().discard()


def _launch(names: list[str], quick: bool, then: bool, side_by_side: int = 1) -> _Child:
    """Start a check: forked from this process, or in a spawned interpreter made ready ahead.
    `then`: another check follows, so have the next interpreter warm up meanwhile."""
    if use_fork():
        return _start(lambda emit: _child(names, quick, emit, side_by_side))
    standby = _standing.pop() if _standing else _Standby()
    child = standby.start(names, quick, side_by_side)
    if then:
        try:
            _stand_by()
        except BaseException:  # Ctrl-C before the caller knows the child
            child.stop()
            child.close()
            raise
    return child


def _standby_main(fd: int) -> None:
    """`python -m dojo.runner --standby FD`: warm up, wait for one check on stdin, run it and
    send its lines down FD."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        warm_up()
        line = sys.stdin.readline()
    except BaseException:
        os._exit(1)
    if not line:  # nobody needs it any more
        os._exit(0)
    request = json.loads(line)
    status = 0
    try:
        _serve(
            fd,
            lambda emit: _child(request["names"], request["quick"], emit, request["side_by_side"]),
        )
    except BaseException:
        status = 1
    finally:
        os._exit(status)  # no interpreter teardown: nothing is left to clean up


if __name__ == "__main__":
    _standby_main(int(sys.argv[2]))
