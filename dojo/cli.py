"""python -m katas: your katas, one at a time.

  list              every kata with its status, and your progress
  check [NAME]      check one kata (default: the first one not done); exit 0 when done
  watch [NAME]      re-check on every save under katas/; moves on when a kata is done
  hint NAME [N]     the next hint you have not seen, or hint N
  solution NAME     the reference solution, once your kata is done (or --force)
  reset NAME        put the original stub back (your file is backed up first)
  explain TEXT      what a PyTorch error message means, and which kata teaches it
  doctor            what this machine can run (GPUs, CUDA, pinned memory)
  docs [NAME]       the site, served on this machine (a kata's page with NAME)

NAME may be any unambiguous start of a kata's name (`view` for view_vs_reshape).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import hashlib
import importlib.util
import json
import math
import os
import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path

from dojo import catalogue as _catalogue
from dojo import requirements

ROOT = _catalogue.ROOT
STATE = ROOT / ".katas-state"  # verdicts and hints seen; git-ignored
BACKUPS = ROOT / ".katas-backup"  # what `reset` saved; git-ignored
LEARN_PYTHON = ROOT / ".nox" / "learn" / "bin" / "python"
VERDICTS_FORMAT = b"2"  # change it when remembered verdicts must be found again
NEEDS_TORCH = {"list", "check", "watch", "solution", "docs"}


class Refusal(Exception):
    """A plain message for the learner and a non-zero exit, never a traceback."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


# --- small state kept between runs -----------------------------------------------------------


def _read_state(name: str) -> dict:
    try:
        return json.loads((STATE / f"{name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_atomic(path: Path, data: str | bytes, mode: int | None = None) -> None:
    """Write via a temporary file and a rename: an interrupt never leaves half a file. `mode`:
    the file's permissions (a temporary file starts as 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _state_lock():
    """Hold .katas-state/ for one read-change-write: two commands at once lose no update."""
    STATE.mkdir(exist_ok=True)
    with open(STATE / ".lock", "a") as lock:
        try:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        except ImportError:  # not on Windows: there, the last write wins
            pass
        yield


_warned: list[str] = []


def _update_state(name: str, change) -> None:
    """Apply `change(data)` to the state file `name`, under the lock. Where .katas-state/
    cannot be written, say so once and go on: a verdict is still a verdict."""
    try:
        with _state_lock():
            data = _read_state(name)
            change(data)
            (STATE / ".gitignore").write_text("*\n")
            _write_atomic(STATE / f"{name}.json", json.dumps(data, indent=1))
    except OSError as err:
        if not _warned:
            _warned.append(name)
            reason = err.strerror or type(err).__name__
            print(
                f"(could not save this in {STATE.name}/: {reason}. The verdict stands; "
                "it is only not remembered.)",
                file=sys.stderr,
            )


def _digest(kata: _catalogue.Kata) -> str:
    """What a verdict depends on: your file and the kata's tests (and how the tool checks:
    a verdict from before each kata had a process of its own in `list` is not trusted)."""
    h = hashlib.sha256(VERDICTS_FORMAT)
    for path in (kata.stub, kata.tests):
        try:
            h.update(path.read_bytes())
        except OSError:  # missing, a directory, unreadable: none of these is a solution
            h.update(b"")
    return h.hexdigest()


def _remember(verdicts) -> None:
    def change(saved: dict) -> None:
        for v in verdicts.values():
            # A quick run can say "not done" for sure, but only the full run can say "done".
            if not (v.quick and v.state == "done") and v.state != "stopped":
                kata = _catalogue.get(v.kata)
                saved[v.kata] = {"digest": _digest(kata), **json.loads(v.to_json())}

    _update_state("verdicts", change)


def _known_done(kata: _catalogue.Kata, saved: dict | None = None) -> bool:
    saved = (_read_state("verdicts") if saved is None else saved).get(kata.name)
    return bool(saved and saved.get("solved") and saved.get("digest") == _digest(kata))


def _next_not_done(after: _catalogue.Kata | None = None) -> _catalogue.Kata | None:
    """The first kata not done, counting from the one after `after` and coming round; None
    when every kata is done."""
    katas = _catalogue.katas()
    start = after.number if after is not None else 0
    saved = _read_state("verdicts")
    for kata in katas[start:] + katas[:start]:
        if not _known_done(kata, saved):
            return kata
    return None


def _all_done_words() -> str:
    """Every kata is done: say so, and what is left to do."""
    saved = _read_state("verdicts")
    gpu = sum(saved.get(k.name, {}).get("skipped", 0) for k in _catalogue.katas())
    lines = [
        f"Every kata is done: {len(_catalogue.katas())} of {len(_catalogue.katas())}. Well done!"
    ]
    if gpu:
        lines.append(
            f"- {_plural(gpu, 'cuda test')} did not run here: they need an NVIDIA GPU. On a "
            "machine with one, `python -m katas check NAME` runs them too, against your katas, "
            "in the env that holds its CUDA torch; `nox -s tests-cuda -- --impl katas` runs "
            "the whole cuda tier against them (plain `nox -s tests-cuda` checks the machine "
            "with the reference solutions; docs/gpu-hosts.md). No GPU? "
            "notebooks/gpu-katas.ipynb runs them on a free one (Colab, Kaggle)."
        )
    lines.append(
        "- Compare your code with the reference solutions: `python -m katas solution NAME`."
    )
    return "\n".join(lines)


def _kata(name: str | None) -> _catalogue.Kata:
    if name is None:
        return _next_not_done() or _catalogue.katas()[-1]
    try:
        kata = _catalogue.get(name)
    except ValueError as err:
        raise Refusal(str(err), code=2) from None
    return kata


def _must_be_a_file(kata: _catalogue.Kata) -> None:
    """katas/NAME.py must be a file (or missing, for reset): say so, in a sentence, if not."""
    if kata.stub.exists() and not kata.stub.is_file():
        raise Refusal(
            f"katas/{kata.name}.py is not a file (a directory?). Move it away; "
            f"`python -m katas reset {kata.name}` then puts the stub back."
        )


# --- torch lives in the venv that `nox -s learn` builds --------------------------------------


def _requirements_stamp() -> str:
    """The learn venv's requirements, as `nox -s learn` records them after installing."""
    return (ROOT / ".nox" / "learn" / requirements.STAMP).read_text()


def _ensure_torch(argv: list[str]) -> None:
    """Commands that run tests need torch: without it, re-run them in the learn venv."""
    if importlib.util.find_spec("torch") is not None:
        return
    if os.environ.get("KATAS_REEXEC"):  # already tried: do not loop
        raise Refusal(f"{sys.executable} has no torch, even in the learn venv; run `nox -s learn`")
    _use_learn_venv(argv)
    env = {**os.environ, "KATAS_REEXEC": "1"}
    if shutil.which("nox"):
        print("Building the venv with torch first (`nox -s learn`; only the first time)...")
        sys.stdout.flush()
        os.execvpe("nox", ["nox", "-s", "learn", "--", *argv], env)
    raise Refusal(
        "this needs torch, which lives in the venv that nox builds. Install nox "
        "(`python -m pip install nox`), then run `nox -s learn` once."
    )


def _use_learn_venv(argv: list[str]) -> None:
    """Re-run in the learn venv when this Python has no torch and that venv is ready."""
    ready = LEARN_PYTHON.exists() and _stamp_is_current()
    if ready and importlib.util.find_spec("torch") is None and not os.environ.get("KATAS_REEXEC"):
        env = {**os.environ, "KATAS_REEXEC": "1"}
        os.execve(LEARN_PYTHON, [str(LEARN_PYTHON), "-m", "katas", *argv], env)


def _stamp_is_current() -> bool:
    """Does the learn venv hold what pyproject.toml asks for today (after a `git pull`)?"""
    try:
        return _requirements_stamp() == requirements.stamp()
    except OSError:
        return False


# --- rendering --------------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _gpu_note(skipped: int) -> str:
    """The cuda tests that did not run here: they come on top of the ones counted."""
    if not skipped:
        return ""
    return f"{_plural(skipped, 'more cuda test')} {'needs' if skipped == 1 else 'need'} a GPU"


def render(v, kata: _catalogue.Kata) -> str:
    """A verdict for people: the verdict first, then the messages."""
    head = f"{kata.number}. {kata.name}"
    gpu = _gpu_note(v.skipped)
    if v.problem:
        return f"✗ {head}: {v.problem}"
    if v.state == "done":
        if v.quick:
            return f"… {head}: all {v.passed} tests pass a quick run; confirming with the full run"
        cuda = f" ({gpu}: none here)" if gpu else ""
        return f"✓ {head} is done: all {v.passed} tests pass{cuda}."
    lines = []
    if v.state == "not started":
        lines.append(
            f"○ {head}: not started; {_plural(len(v.unwritten), 'function')} to write.\n"
            f"Open katas/{kata.name}.py, read docs/katas/{kata.name}.md, and replace each "
            "`raise NotImplementedError(...)` with your code."
        )
    else:
        one = v.total == 1
        parts = [f"{v.passed} of {v.total} {'test passes' if one else 'tests pass'}"]
        if v.failed:
            parts.append(f"{v.failed} fail")
        if v.not_written:
            parts.append(
                f"{v.not_written} {'waits' if v.not_written == 1 else 'wait'} for unwritten "
                f"{'functions' if len(v.unwritten) != 1 else 'function'}"
            )
        notes = "; ".join(filter(None, ["a quick run" if v.quick else "", gpu]))
        lines.append(f"✗ {head}: {', '.join(parts)}" + (f" ({notes})." if notes else "."))
    for i, message in enumerate(v.messages, start=1):
        indented = message.replace("\n", "\n   ")
        lines.append(f"\n{i}) {indented}")
    if v.unwritten:
        lines.append("\nNot written yet: " + ", ".join(f.split(": ", 1)[-1] for f in v.unwritten))
    if not v.quick:
        lines.append(f"\nStuck? python -m katas hint {kata.name}")
    return "\n".join(lines)


def _next_words(kata: _catalogue.Kata) -> str:
    nxt = _next_not_done(kata)
    if nxt is None:
        return _all_done_words()
    return (
        f"Next: {nxt.number}. {nxt.name} ({nxt.title}). Open katas/{nxt.name}.py and read "
        f"docs/katas/{nxt.name}.md, then: python -m katas check {nxt.name}"
    )


# --- commands ---------------------------------------------------------------------------------


class Ticker:
    """Says at once that a check started, and how far it is while it runs.

    On a terminal, one line that updates in place and is wiped before the verdict; elsewhere
    (a pipe, a log), a line every `every` seconds of a long check."""

    def __init__(self, kata: _catalogue.Kata, *, say_start: bool = True, every: float = 10.0):
        self.kata, self.every = kata, every
        self.tty = sys.stdout.isatty()
        self.start = self.last = time.monotonic()
        self.shown = False
        if say_start or self.tty:
            self._say(f"checking {kata.name}…")

    def _say(self, text: str) -> None:
        if self.tty:
            sys.stdout.write(f"\r\033[K{text}")
        else:
            sys.stdout.write(f"{text}\n")
        sys.stdout.flush()
        self.shown = True

    def __call__(self, progress: dict) -> None:
        now = time.monotonic()
        if now - self.last < (0.25 if self.tty else self.every):
            return
        self.last = now
        done, total, failed = (progress.get(k, 0) for k in ("done", "total", "failed"))
        tally = f"{done} of {total} tests done" + (f", {failed} not passing" if failed else "")
        self._say(f"checking {self.kata.name}… {tally} ({now - self.start:.0f} s)")

    def clear(self) -> None:
        """Wipe the updating line (on a terminal), so that the verdict starts on a clean one."""
        if self.tty and self.shown:
            sys.stdout.write("\r\033[K")
            sys.stdout.flush()
        self.shown = False


def cmd_check(args) -> int:
    from dojo import runner

    if args.name is None and _next_not_done() is None:  # nothing left to check
        print(json.dumps({"all_done": True}) if args.porcelain else _all_done_words())
        if not args.porcelain:
            print("(`python -m katas check NAME` checks one of them again.)")
        return 0
    kata = _kata(args.name)
    _must_be_a_file(kata)
    runner.warm_up()
    deadline = time.monotonic() + args.time_limit  # one limit for the quick and the full run
    # progress only on a terminal: a log or a page that shows this output gets the verdict
    ticker = None if args.porcelain else Ticker(kata, say_start=False, every=math.inf)

    def run(quick: bool):
        verdict = runner.check(
            [kata.name],
            quick=quick,
            time_limit=args.time_limit,
            deadline=deadline,
            on_progress=ticker,
            then=quick,
        )[kata.name]
        if ticker:
            ticker.clear()
        return verdict

    quick = run(quick=True)
    if quick.state != "done" or quick.problem:
        print(quick.to_json() if args.porcelain else render(quick, kata), flush=True)
        _remember({kata.name: quick})
        return 1
    if not args.porcelain:
        print(render(quick, kata), flush=True)
    verdict = run(quick=False)
    if args.porcelain:
        print(verdict.to_json(), flush=True)
        _remember({kata.name: verdict})
    else:
        print(render(verdict, kata), flush=True)
        _remember({kata.name: verdict})
        if verdict.solved:
            print(_next_words(kata))
    return 0 if verdict.solved else 1


def cmd_list(args) -> int:
    from dojo import runner

    katas = _catalogue.katas()
    saved = _read_state("verdicts")
    not_files = {k.name for k in katas if k.stub.exists() and not k.stub.is_file()}
    stale = [
        k.name
        for k in katas
        if k.name not in not_files and saved.get(k.name, {}).get("digest") != _digest(k)
    ]
    if stale:
        runner.warm_up()
        fresh = runner.check_each(stale, time_limit=args.time_limit)
        _remember(fresh)
        for name, v in fresh.items():  # what was just found, remembered or not (a stop)
            saved[name] = json.loads(v.to_json())
    done = passed = total = 0
    rows, problems, states = [], [], {}
    for kata in katas:
        v = saved.get(kata.name, {}) if kata.name not in not_files else {}
        state = v.get("state", "not checked") if kata.name not in not_files else "not a file"
        if v.get("problem"):
            first = v["problem"].splitlines()[0]
            problems.append(f"{kata.number:>2}. {kata.name}: {first}")
        states[kata.name] = state
        n_total = sum(v.get(k, 0) for k in ("passed", "failed", "not_written", "blocked"))
        done += state == "done"
        passed += v.get("passed", 0)
        total += n_total
        gpu = f"  + {_plural(v['skipped'], 'cuda test')} for a GPU" if v.get("skipped") else ""
        score = f"{v.get('passed', 0):>3}/{n_total:<3}"
        rows.append(f"{kata.number:>2}. {kata.name:<18} {state:<16} {score}{gpu}")
    print(f"PyTorch GPU Katas: {done} of {len(katas)} done, {passed} of {total} tests passing\n")
    print("\n".join(rows))
    if problems:
        print("\n" + "\n".join(problems))
    nxt = next((k for k in katas if states[k.name] != "done"), None)
    print()
    if nxt is None:
        print(_all_done_words())
    else:
        print(f"Next: {nxt.number}. {nxt.name}: python -m katas check {nxt.name}")
    return 0


def cmd_hint(args) -> int:
    kata = _kata(args.name)
    hints = kata.hints
    seen = _read_state("hints")
    shown = seen.get(kata.name, 0)
    if args.number is not None:
        if not 1 <= args.number <= len(hints):
            raise Refusal(f"{kata.name} has hints 1 to {len(hints)}, not {args.number}", code=2)
        n = args.number
    elif shown >= len(hints):
        print(
            f"You have seen all {len(hints)} hints for {kata.name}. "
            f"`python -m katas hint {kata.name} N` shows hint N again; "
            f"docs/katas/{kata.name}.md explains the kata."
        )
        return 0
    else:
        n = shown + 1
    print(f"{kata.name}, hint {n} of {len(hints)}: {hints[n - 1].about}\n{hints[n - 1].text}")
    if n > shown:
        _update_state(
            "hints", lambda data: data.update({kata.name: max(n, data.get(kata.name, 0))})
        )
    if n < len(hints):
        print(f"(More: python -m katas hint {kata.name})")
    return 0


def cmd_solution(args) -> int:
    kata = _kata(args.name)
    if not (args.force or _known_done(kata)):
        from dojo import runner

        _must_be_a_file(kata)
        runner.warm_up()
        verdict = runner.check([kata.name], time_limit=args.time_limit)[kata.name]
        _remember({kata.name: verdict})
        if not verdict.solved:
            raise Refusal(
                f"{kata.name} is not done yet ({verdict.state}), so its solution stays hidden. "
                f"`python -m katas check {kata.name}` says what is left; "
                f"`python -m katas solution {kata.name} --force` shows it anyway."
            )
    from dojo import source

    print(f"# reference/{kata.name}.py\n")
    print(source.solution_text(kata))
    return 0


def cmd_reset(args) -> int:
    from dojo import source

    kata = _kata(args.name)
    original = source.stub_text(kata)
    _must_be_a_file(kata)
    pristine = original.encode("utf-8")  # the file's bytes: your file may be in any encoding
    try:
        current = kata.stub.read_bytes() if kata.stub.exists() else None
        mode = stat.S_IMODE(kata.stub.stat().st_mode) if current is not None else _new_file_mode()
    except OSError as err:
        raise Refusal(
            f"could not read katas/{kata.name}.py ({_why(err)}); nothing changed"
        ) from None
    if current == pristine:
        print(f"katas/{kata.name}.py is already the original stub; nothing to do.")
        return 0
    saved = ""
    if current is not None:
        try:
            backup = _backup(kata, current, mode)
        except OSError as err:
            raise Refusal(
                f"could not save your katas/{kata.name}.py in {BACKUPS.name}/ ({_why(err)}), "
                f"so it is left as it was. Make {BACKUPS.name}/ a folder you can write to, "
                "or move it away, and reset again."
            ) from None
        saved = f" Your file is saved as {backup.relative_to(ROOT)}."
        print(f"Your katas/{kata.name}.py is saved as {backup.relative_to(ROOT)}")
    try:
        _write_atomic(kata.stub, pristine, mode)
    except OSError as err:
        raise Refusal(
            f"could not write katas/{kata.name}.py ({_why(err)}): is katas/ read-only? "
            f"The file is as it was.{saved}"
        ) from None
    print(f"katas/{kata.name}.py is the original stub again.")
    return 0


def _why(err: OSError) -> str:
    """An OSError in a few words: "Permission denied: .katas-backup"."""
    where = f": {Path(err.filename).name}" if err.filename else ""
    return f"{err.strerror or type(err).__name__}{where}"


def _new_file_mode() -> int:
    """The mode a new file gets here (0666 less the umask), as an editor would create it."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _backup(kata: _catalogue.Kata, current: bytes, mode: int) -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    backup = BACKUPS / f"{kata.name}-{stamp}.py"
    n = 1
    while backup.exists():
        n += 1
        backup = BACKUPS / f"{kata.name}-{stamp}-{n}.py"
    BACKUPS.mkdir(exist_ok=True)
    (BACKUPS / ".gitignore").write_text("*\n")
    _write_atomic(backup, current, mode)
    return backup


def cmd_explain(args) -> int:
    try:
        from dojo import errors
    except ImportError:
        raise Refusal("the error index is not part of this checkout yet") from None
    if args.list:
        return errors.main(["--list"])
    return errors.main(args.text)  # no text: errors.main reads stdin, whatever its encoding


def cmd_doctor(args) -> int:
    try:
        from dojo import doctor
    except ImportError:
        raise Refusal("doctor is not part of this checkout yet") from None
    return doctor.main(args.rest)


def cmd_docs(args) -> int:
    """Serve the site from this venv: the pages run their examples with the torch already
    here, so reading them costs no second torch install."""
    import subprocess

    if importlib.util.find_spec("mkdocs") is None:
        raise Refusal(
            "the site's tools (mkdocs) are not in this venv yet; run `nox -s learn` once to "
            "add them, then `python -m katas docs` again"
        )
    page = f"katas/{_kata(args.name).name}/" if args.name else ""
    address = f"127.0.0.1:{args.port}"
    print(
        f"Building the site (its examples run now, about 10 s), then serving it at "
        f"http://{address}/{page} until Ctrl-C. Nothing leaves this machine.",
        flush=True,
    )
    command = [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", address]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.call(command, cwd=ROOT, env=env)


def cmd_watch(args) -> int:
    from dojo import watch

    if args.name is None and _next_not_done() is None:
        return watch.main(args, None)  # every kata is done: say so, then wait for a save
    kata = _kata(args.name)
    _must_be_a_file(kata)
    return watch.main(args, kata)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m katas",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    limit = argparse.ArgumentParser(add_help=False)
    limit.add_argument(
        "--time-limit",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="stop a check (quick and full run together; in `list`, each kata's) that runs "
        "longer (default 60)",
    )
    sub.add_parser("list", parents=[limit], help="every kata with its status")
    c = sub.add_parser("check", parents=[limit], help="check one kata")
    c.add_argument("name", nargs="?", help="the kata (default: the first one not done)")
    c.add_argument("--porcelain", action="store_true", help="one JSON line, for scripts")
    w = sub.add_parser("watch", parents=[limit], help="re-check on every save")
    w.add_argument("name", nargs="?", help="the kata to start with")
    w.add_argument("--porcelain", action="store_true", help="JSON lines only, for scripts")
    h = sub.add_parser("hint", help="the next hint, or hint N")
    h.add_argument("name")
    h.add_argument("number", nargs="?", type=int)
    s = sub.add_parser("solution", parents=[limit], help="the reference, once you are done")
    s.add_argument("name")
    s.add_argument("--force", action="store_true", help="show it even before you are done")
    r = sub.add_parser("reset", help="the original stub again (yours is backed up)")
    r.add_argument("name")
    e = sub.add_parser("explain", help="what an error message means")
    e.add_argument("text", nargs="*", help="the message (or paste it on standard input)")
    e.add_argument("--list", action="store_true", help="every message the index explains")
    d = sub.add_parser("doctor", help="what this machine can run")
    d.add_argument("rest", nargs=argparse.REMAINDER)
    s = sub.add_parser("docs", help="the site, served on this machine")
    s.add_argument("name", nargs="?", help="open at this kata's page")
    s.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    return p


COMMANDS = {
    "list": cmd_list,
    "check": cmd_check,
    "watch": cmd_watch,
    "hint": cmd_hint,
    "solution": cmd_solution,
    "reset": cmd_reset,
    "explain": cmd_explain,
    "doctor": cmd_doctor,
    "docs": cmd_docs,
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parser().parse_args(argv)
    try:
        if args.command in NEEDS_TORCH:
            _ensure_torch(argv)
        elif args.command == "doctor":  # works without torch, but the learn venv's is the news
            _use_learn_venv(argv)
        return COMMANDS[args.command](args)
    except Refusal as refusal:
        print(f"python -m katas {args.command}: {refusal}", file=sys.stderr)
        return refusal.code
    except KeyboardInterrupt:
        print("\nStopped. Your files are as you saved them.", file=sys.stderr)
        return 130


def run() -> None:
    try:
        code = main()
        sys.stdout.flush()  # a reader that has gone away is noticed here, not at exit
    except BrokenPipeError:
        # `python -m katas list | head`: the reader stopped reading, which is no error. Send
        # what is left of stdout nowhere, so that the interpreter's last flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)


if __name__ == "__main__":
    run()
