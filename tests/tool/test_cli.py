"""`python -m katas`, driven as a learner would, on a temporary copy of the repository.

Each test copies the repository (without .git, .nox and caches), edits katas/ there as a learner
would, and runs the real command in a subprocess with this interpreter (which has torch).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dojo import catalogue as _catalogue
from dojo import source
from dojo.sandbox import copy_repo, solve


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return copy_repo(tmp_path / "repo")


def katas(
    repo: Path, *args: str, timeout: float = 120, **extra_env: str
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KATAS_", "PYTEST"))}
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-m", "katas", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def stray_pids(repo: Path) -> dict[int, str]:
    """Processes still running code from this copy (left behind by a check): pid -> command."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if os.readlink(proc / "cwd").startswith(str(repo)):
                command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                found[int(proc.name)] = command
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def strays(repo: Path) -> list[str]:
    return list(stray_pids(repo).values())


def settled_strays(repo: Path) -> list[str]:
    """`strays`, once those killed have had their chance to go: a process sent SIGKILL is
    gone when the kernel has torn it down, a moment later. Waits for that, not for a time: it
    returns as soon as none is left (after 30 s it returns those still there)."""
    for _ in range(300):
        left = strays(repo)
        if not left:
            return left
        time.sleep(0.1)
    return strays(repo)


@contextlib.contextmanager
def ctrl_c_reaches_children() -> Iterator[None]:
    """Start processes that Ctrl-C (SIGINT) can stop, as on a learner's terminal.

    A process started with SIGINT ignored passes that on through exec, and Python then never
    installs its KeyboardInterrupt handler. This test process may be such a one: a shell runs
    a background job (`cmd &`, without job control) with SIGINT and SIGQUIT ignored, and so a
    CI script started that way ran the watch where no Ctrl-C could stop it. A handler of our
    own, unlike "ignore", is reset to the default in an exec'd child."""
    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def test_check_goes_green_when_the_stub_becomes_a_solution(repo):
    before = katas(repo, "check", "device_selection", "--porcelain")
    assert before.returncode == 1, before.stderr
    verdict = json.loads(before.stdout.strip().splitlines()[-1])
    assert verdict["kata"] == "device_selection" and not verdict["solved"]
    assert verdict["not_written"] > 0 and verdict["passed"] == 0

    solve(repo, "device_selection")
    after = katas(repo, "check", "device")  # an unambiguous prefix will do
    assert after.returncode == 0, after.stdout + after.stderr
    lines = after.stdout.strip().splitlines()
    assert lines[-3].startswith("✓ 1. device_selection is done"), after.stdout
    assert "python -m katas docs device_selection --discussion" in lines[-2], after.stdout
    assert "Next: 2. copy_semantics" in lines[-1], after.stdout
    assert "python -m katas docs copy_semantics)" in lines[-1], "the page, served with output"
    assert "docs/katas/" not in after.stdout, "the raw page lacks its examples' output"


def test_check_in_a_spawned_interpreter_as_on_a_gpu_host(repo):
    """On a machine that may have a GPU, checks run in a spawned interpreter, never forked from
    one that could have touched CUDA. Same verdicts, same time limit."""
    result = katas(repo, "check", "device_selection", "--porcelain", KATAS_RUNNER="spawn")
    assert json.loads(result.stdout.strip().splitlines()[-1])["not_written"] > 0, result.stdout
    solve(repo, "device_selection")
    assert katas(repo, "check", "device_selection", KATAS_RUNNER="spawn").returncode == 0
    path = repo / "katas" / "copy_semantics.py"
    path.write_text(
        path.read_text().replace(
            'raise NotImplementedError("copy_semantics: shares_memory")',
            "while True:  # asleep, not busy: the other test worker keeps its core\n"
            "        __import__('time').sleep(0.1)",
        )
    )
    stopped = katas(repo, "check", "copy", "--time-limit", "6", KATAS_RUNNER="spawn")
    assert "stopped after 6 s" in stopped.stdout, stopped.stdout
    assert strays(repo) == []


def test_the_sites_forked_check_says_what_the_command_says(repo):
    """The site's build shows a real verdict through `sandbox.katas`, which forks the build's
    own process (torch already imported) instead of starting `python -m katas`. It must print
    what the command prints, and check the copy's code, not this checkout's."""
    mistake = _catalogue.ROOT / "tests" / "mistakes" / "device_selection" / "off_by_one.py"
    (repo / "katas" / "device_selection.py").write_text(mistake.read_text())
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "import torch\n"  # as in the build: torch is imported before the fork
        "from dojo import sandbox\n"
        "done = sandbox.katas(Path(sys.argv[1]), 'check', 'device_selection')\n"
        "print(json.dumps([done.returncode, done.stdout, done.stderr]))\n"
    )

    def forked() -> tuple[int, str, str]:
        done = subprocess.run(
            [sys.executable, "-c", script, str(repo)],
            cwd=_catalogue.ROOT,
            env={**os.environ, "KATAS_RUNNER": "fork"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return tuple(json.loads(done.stdout.strip().splitlines()[-1]))

    code, out, err = forked()
    real = katas(repo, "check", "device_selection")
    assert (code, err) == (real.returncode, real.stderr) == (1, ""), (out, err, real)
    assert out.splitlines()[0] == real.stdout.splitlines()[0], (out, real.stdout)
    assert "returned cuda:0; expected cpu" in out, out
    solve(repo, "device_selection")
    code, out, err = forked()
    assert code == 0 and "device_selection is done" in out, (out, err)


def test_ctrl_c_right_after_a_fork_leaves_no_child(monkeypatch):
    """A Ctrl-C that lands after the fork but before the runner has the child's pid in hand
    must still take the child down (it ignores Ctrl-C itself, in its own process group)."""
    from dojo import runner

    forked, real_fork, real_setpgid = [], os.fork, os.setpgid

    def fork() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    def setpgid(pid: int, pgid: int) -> None:
        if pid:  # the parent's call, right after the fork
            raise KeyboardInterrupt
        real_setpgid(pid, pgid)

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(os, "setpgid", setpgid)
    with pytest.raises(KeyboardInterrupt):
        runner.forked(lambda: time.sleep(60) or {}, time_limit=120)
    assert len(forked) == 1
    with pytest.raises(ChildProcessError):  # killed and reaped already
        os.waitpid(forked[0], os.WNOHANG)


def test_ctrl_c_as_the_child_is_handed_over_leaves_no_child(monkeypatch):
    """A Ctrl-C can land in any Python call, the one that wraps the new child's pid included:
    the child must still be taken down (a watch stopped mid-check left one running)."""
    from dojo import runner

    pids = []

    def wrap(self, pid: int, fd: int, wait) -> None:
        pids.append(pid)
        raise KeyboardInterrupt

    monkeypatch.setattr(runner._Child, "__init__", wrap)
    with pytest.raises(KeyboardInterrupt):
        runner.forked(lambda: time.sleep(60) or {}, time_limit=120)
    assert len(pids) == 1
    with pytest.raises(ChildProcessError):  # killed and reaped already
        os.waitpid(pids[0], os.WNOHANG)


def test_ctrl_c_during_the_fork_itself_is_not_lost():
    """A Ctrl-C raised inside os.fork's at-fork hooks is printed as "Exception ignored" and
    dropped by Python; the watch then went on checking. Here a hook sends the Ctrl-C."""
    script = (
        "import os, signal, time\n"
        "from dojo import runner\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)  # CI may start us ignoring it\n"
        "os.register_at_fork(after_in_parent=lambda: os.kill(os.getpid(), signal.SIGINT))\n"
        "try:\n"
        "    runner.forked(lambda: time.sleep(60) or {}, time_limit=120)\n"
        "except KeyboardInterrupt:\n"
        "    print('stopped')\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=_catalogue.ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("a Ctrl-C during the fork was lost: the check ran on for 30 s")
    assert done.stdout.strip() == "stopped", (done.stdout, done.stderr)


@pytest.mark.parametrize(("parallel", "threads"), [(1, 4), (2, 2), (3, 1)])
def test_forked_children_side_by_side_share_torchs_threads(four_threads, parallel, threads):
    """Children that run at once take torch's threads in shares: a thread per core in each,
    and their OpenMP threads spin waiting for each other (the corpus ran twice as long)."""
    import torch

    from dojo import runner

    works = [lambda: {"threads": torch.get_num_threads()}] * parallel
    outcomes = runner.forked_many(works, parallel=parallel, time_limit=60)
    seen = [out["threads"] for _, out in outcomes]
    assert seen == [threads] * parallel


def test_checks_side_by_side_say_how_many_run_at_once(monkeypatch, tmp_path):
    """`check_each` (list, check of several katas) tells each forked check how many run beside
    it; a single check runs alone."""
    from dojo import runner

    told = tmp_path / "told"

    def share_cores(side_by_side: int) -> None:  # runs in the forked child
        with told.open("a") as f:
            f.write(f"{side_by_side}\n")

    monkeypatch.setattr(runner, "share_cores", share_cores)
    monkeypatch.setattr(runner, "quiet_pytest", lambda args, plugins=(): (5, "no tests"))
    monkeypatch.setenv("KATAS_RUNNER", "fork")
    runner.check_each(["device_selection", "copy_semantics", "timing"], parallel=2)
    assert told.read_text().split() == ["2", "2", "2"]
    told.unlink()
    runner.check(["timing"])
    assert told.read_text().split() == ["1"]


def test_check_without_a_name_takes_the_first_kata_not_done(repo):
    solve(repo, "device_selection")
    assert katas(repo, "check", "device_selection").returncode == 0
    result = katas(repo, "check", "--porcelain")
    assert json.loads(result.stdout.strip().splitlines()[-1])["kata"] == "copy_semantics"


def test_a_syntax_error_is_reported_once_with_file_and_line(repo):
    path = repo / "katas" / "device_selection.py"
    path.write_text(path.read_text() + "\ndef broken(:\n    pass\n")
    result = katas(repo, "check", "device_selection")
    assert result.returncode == 1
    assert result.stdout.count("SyntaxError") == 1, result.stdout
    assert "katas/device_selection.py, line" in result.stdout, result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_an_endless_loop_is_stopped_and_leaves_no_process(repo):
    path = repo / "katas" / "device_selection.py"
    text = path.read_text().replace(
        'raise NotImplementedError("device_selection: try_gpu")', "while True:\n        pass", 1
    )
    path.write_text(text)
    result = katas(repo, "check", "device_selection", "--time-limit", "4")
    assert result.returncode == 1
    assert "stopped after 4 s" in result.stdout, result.stdout
    assert strays(repo) == []


def test_an_unknown_name_suggests_the_closest(repo):
    result = katas(repo, "check", "device_selction")
    assert result.returncode == 2
    assert "Did you mean 'device_selection'?" in result.stderr
    assert "Traceback" not in result.stderr


def test_solution_waits_until_the_kata_is_done(repo):
    reference = source.solution_text(_catalogue.get("device_selection"))
    before = katas(repo, "solution", "device_selection")
    assert before.returncode == 1
    assert reference not in before.stdout and "--force" in before.stderr
    assert katas(repo, "solution", "device_selection", "--force").returncode == 0

    solve(repo, "device_selection")
    after = katas(repo, "solution", "device_selection")
    assert after.returncode == 0
    assert reference in after.stdout


def test_reset_after_a_commit_restores_the_stub_and_keeps_a_backup(repo):
    kata = _catalogue.get("device_selection")
    solve(repo, kata.name)
    mine = (repo / "katas" / f"{kata.name}.py").read_text()
    git = ["git", "-c", "user.name=L", "-c", "user.email=l@example.invalid"]
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "my work"], cwd=repo, check=True)

    result = katas(repo, "reset", kata.name)
    assert result.returncode == 0, result.stderr
    assert (repo / "katas" / f"{kata.name}.py").read_text() == source.stub_text(kata)
    backups = list((repo / ".katas-backup").glob(f"{kata.name}-*.py"))
    assert len(backups) == 1 and backups[0].read_text() == mine
    assert str(backups[0].relative_to(repo)) in result.stdout
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True)
    assert b".katas-backup" not in status.stdout, "the backup folder must be git-ignored"


def test_hint_shows_the_next_hint_then_any_one(repo):
    kata = _catalogue.get("view_vs_reshape")
    first, second = katas(repo, "hint", kata.name), katas(repo, "hint", kata.name)
    one, two = kata.hints[0].text, kata.hints[1].text
    assert one in first.stdout and kata.hints[0].about in first.stdout and two not in first.stdout
    assert two in second.stdout
    assert one in katas(repo, "hint", kata.name, "1").stdout
    assert katas(repo, "hint", kata.name, "99").returncode == 2


def test_a_hint_asked_for_by_number_skips_none_before_it(repo):
    kata = _catalogue.get("view_vs_reshape")
    third = katas(repo, "hint", kata.name, "3")
    assert kata.hints[2].text in third.stdout and "gives hint 1" in third.stdout, third.stdout
    assert "one you skipped" in third.stdout and f"{kata.name} 4 gives hint 4" in third.stdout
    for n in (1, 2, 4):  # then the lowest hint not seen, each time
        shown = katas(repo, "hint", kata.name)
        assert f"hint {n} of 4" in shown.stdout and kata.hints[n - 1].text in shown.stdout, (
            n,
            shown.stdout,
        )
    assert "seen all 4 hints" in katas(repo, "hint", kata.name).stdout


def test_hints_seen_as_the_older_state_counted_them_still_count(repo):
    """An older .katas-state/hints.json kept the highest hint shown: 2 means 1 and 2 seen."""
    (repo / ".katas-state").mkdir()
    (repo / ".katas-state" / "hints.json").write_text('{"view_vs_reshape": 2}')
    assert "hint 3 of 4" in katas(repo, "hint", "view_vs_reshape").stdout


def test_watch_porcelain_reports_each_save_and_moves_on(repo):
    with ctrl_c_reaches_children():
        proc = subprocess.Popen(
            [sys.executable, "-m", "katas", "watch", "device_selection", "--porcelain"],
            cwd=repo,
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},  # SIGABRT prints every thread's stack
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    try:
        read = _Lines(proc)
        first = json.loads(read())
        assert first["kata"] == "device_selection" and not first["solved"]
        assert {"passed", "failed", "not_written", "seconds"} <= first.keys()
        solve(repo, "device_selection")  # the learner saves a solution
        seen = [json.loads(read())]
        while not seen[-1]["solved"]:
            seen.append(json.loads(read()))
        assert seen[-1]["kata"] == "device_selection"
        moved_on = json.loads(read())
        assert moved_on["kata"] == "copy_semantics"
    finally:
        proc.send_signal(signal.SIGINT)
        err = _stopped_within(proc, repo, 30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert settled_strays(repo) == []


def _stopped_within(proc: subprocess.Popen, repo: Path, seconds: float) -> str:
    """`proc`'s stderr once it has exited; if it has not within `seconds`, fail with what is
    still running and where the watch is stuck (its stack, from Python's faulthandler)."""
    try:
        return proc.communicate(timeout=seconds)[1]
    except subprocess.TimeoutExpired:
        running = proc.poll() is None
        left = stray_pids(repo)
        signals = _signal_state(proc.pid) if running else ""
        if running:
            proc.send_signal(signal.SIGABRT)
        for pid in set(left) - {proc.pid}:  # the watch's own children: it aborts itself
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        pytest.fail(
            f"not stopped {seconds:g} s after Ctrl-C (the watch itself "
            f"{'still running' if running else 'had exited'}); still running from the copy: "
            f"{left}\nsignal masks per thread:\n{signals}\nstdout's end:\n{out[-2000:]}"
            f"\nstderr:\n{err}"
        )


def _signal_state(pid: int) -> str:
    """Each thread's pending, blocked, ignored and caught signals (hex masks; SIGINT is 0x2)."""
    lines = []
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
        with contextlib.suppress(OSError):
            status = (task / "status").read_text().splitlines()
            keep = ("Name", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
            lines.append(" ".join(x.split(":", 1)[1].strip() for x in status if x.startswith(keep)))
    return "\n".join(lines)


class _Lines:
    """`proc`'s stdout, line by line, read by a thread: several lines written at once are not
    stuck in a buffer that a select() on the pipe cannot see (a reader that selected, then read
    one line, could wait for ever on a line it had already buffered)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        import queue
        import threading

        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        self.proc = proc

        def pump() -> None:
            # The test ends with proc.communicate(), which reads and closes the same pipe.
            with contextlib.suppress(ValueError, OSError):
                for line in proc.stdout:
                    self.lines.put(line)
            self.lines.put(None)  # the end of its output

        threading.Thread(target=pump, daemon=True).start()

    def __call__(self, timeout: float = 120) -> str:
        import queue

        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"nothing printed within {timeout} s after:\n{''.join(self.seen)}")
        if line is None:
            self.lines.put(None)
            pytest.fail(f"it ended (exit code {self.proc.wait(10)}) after:\n{''.join(self.seen)}")
        self.seen.append(line)
        return line

    def said(self, n: int) -> list[str]:
        """The next `n` lines that are not blank."""
        lines: list[str] = []
        while len(lines) < n:
            line = self().strip()
            if line:
                lines.append(line)
        return lines


def test_the_checks_of_nox_pass_on_a_clone_where_every_kata_is_solved(repo):
    for kata in _catalogue.katas():
        solve(repo, kata.name)
    selfcheck = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_selfcheck.py"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert selfcheck.returncode == 0, selfcheck.stdout[-2000:]
    stubs = subprocess.run(
        [sys.executable, "-m", "dojo.verify", "stubs", "--kata", "device_selection"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert stubs.returncode == 0, stubs.stdout + stubs.stderr
