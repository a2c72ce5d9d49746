"""python -m katas: your katas, one at a time.

  list              every kata with its status, and your progress
  check [NAME]      check one kata (default: the first one not done); exit 0 when done
  watch [NAME]      re-check on every save under katas/; moves on when a kata is done
  hint NAME [N]     the lowest-numbered hint you have not seen, or hint N
  solution NAME     the reference solution, once your kata is done (or --force)
  reset NAME        put the original stub back (your file is backed up first)
  explain TEXT      what a PyTorch error message means, and which kata teaches it
  doctor            what this machine can run (GPUs, CUDA, pinned memory)
  docs [NAME]       the site, served on this machine (a kata's page with NAME; its
                    discussion, to read once it is done, with NAME --discussion)

NAME may be any unambiguous start of a kata's name (`view` for view_vs_reshape).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import math
import os
import shutil
import stat
import sys
import time
from pathlib import Path

from dojo import _toml, requirements, state
from dojo import catalogue as _catalogue
from dojo.render import (
    Ticker,
    all_done_words,
    discussion_command,
    next_words,
    page_command,
    plural,
    render,
)

ROOT = _catalogue.ROOT
BACKUPS = ROOT / ".katas-backup"  # what `reset` saved; git-ignored
LEARN_PYTHON = ROOT / ".nox" / "learn" / "bin" / "python"
NEEDS_TORCH = {"list", "check", "watch", "solution", "docs"}


class Refusal(Exception):
    """A plain message for the learner and a non-zero exit, never a traceback."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


# --- what the commands share ------------------------------------------------------------------


def _kata(name: str | None) -> _catalogue.Kata:
    if name is None:
        return state.next_not_done() or _catalogue.katas()[-1]
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


# --- commands ---------------------------------------------------------------------------------


def cmd_check(args) -> int:
    from dojo import runner

    if args.name is None and state.next_not_done() is None:  # nothing left to check
        print(json.dumps({"all_done": True}) if args.porcelain else all_done_words())
        if not args.porcelain:
            print("(`python -m katas check NAME` checks one of them again.)")
        return 0
    kata = _kata(args.name)
    _must_be_a_file(kata)
    runner.warm_up()
    limit = runner.limit_for(kata, args.time_limit)
    deadline = time.monotonic() + limit  # one limit for the quick and the full run
    # progress only on a terminal: a log or a page that shows this output gets the verdict
    ticker = None if args.porcelain else Ticker(kata, say_start=False, every=math.inf)

    def run(quick: bool):
        verdict = runner.check(
            [kata.name],
            quick=quick,
            time_limit=limit,
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
        state.remember({kata.name: quick})
        return 1
    if not args.porcelain:
        print(render(quick, kata), flush=True)
    verdict = run(quick=False)
    if args.porcelain:
        print(verdict.to_json(), flush=True)
        state.remember({kata.name: verdict})
    else:
        print(render(verdict, kata), flush=True)
        state.remember({kata.name: verdict})
        if verdict.solved:
            print(next_words(_next_checked(kata, args.time_limit)))
    return 0 if verdict.solved else 1


def _next_checked(after: _catalogue.Kata, time_limit: float | None) -> _catalogue.Kata | None:
    """The next kata not done, never named on a verdict about an older file: a kata changed
    since its last verdict (a check stopped half-way, by Ctrl-C or a save in `watch`) is
    checked again before it is named, and skipped if it turns out done."""
    from dojo import runner, source

    checked: set[str] = set()
    while True:
        nxt = state.next_not_done(after)
        if nxt is None or nxt.name in checked or not state.unknown(nxt):
            return nxt
        saved = state.read("verdicts").get(nxt.name)
        try:
            untouched = not saved and nxt.stub.read_text(encoding="utf-8") == source.stub_text(nxt)
        except (OSError, UnicodeDecodeError):
            untouched = not nxt.stub.exists()
        if untouched or (nxt.stub.exists() and not nxt.stub.is_file()):
            return nxt  # nothing written yet (or not a file): nothing to check
        checked.add(nxt.name)
        why = "changed since its last check" if saved else "written, never checked"
        print(f"checking {nxt.name} ({why}) before naming the next kata…")
        limit = runner.limit_for(nxt, time_limit)
        verdict = runner.check([nxt.name], time_limit=limit)[nxt.name]
        state.remember({nxt.name: verdict})
        if not verdict.solved:
            return nxt


def cmd_list(args) -> int:
    from dojo import runner

    katas = _catalogue.katas()
    saved = state.read("verdicts")
    not_files = {k.name for k in katas if k.stub.exists() and not k.stub.is_file()}
    stale = [
        k.name
        for k in katas
        if k.name not in not_files and saved.get(k.name, {}).get("digest") != state.digest(k)
    ]
    if stale:
        runner.warm_up()
        fresh = runner.check_each(stale, time_limit=args.time_limit)
        state.remember(fresh)
        for name, v in fresh.items():  # what was just found, remembered or not (a stop)
            saved[name] = json.loads(v.to_json())
    done = passed = total = 0
    rows, problems, states = [], [], {}
    for kata in katas:
        v = saved.get(kata.name, {}) if kata.name not in not_files else {}
        status = v.get("state", "not checked") if kata.name not in not_files else "not a file"
        if v.get("problem"):
            first = v["problem"].splitlines()[0]
            problems.append(f"{kata.number:>2}. {kata.name}: {first}")
        states[kata.name] = status
        n_total = sum(v.get(k, 0) for k in ("passed", "failed", "not_written", "blocked"))
        done += status == "done"
        passed += v.get("passed", 0)
        total += n_total
        gpu = f"  + {plural(v['skipped'], 'cuda test')} for a GPU" if v.get("skipped") else ""
        score = f"{v.get('passed', 0):>3}/{n_total:<3}"
        rows.append(f"{kata.number:>2}. {kata.name:<18} {status:<16} {score}{gpu}")
    print(f"PyTorch GPU Katas: {done} of {len(katas)} done, {passed} of {total} tests passing\n")
    print("\n".join(rows))
    if problems:
        print("\n" + "\n".join(problems))
    nxt = next((k for k in katas if states[k.name] != "done"), None)
    print()
    if nxt is None:
        print(all_done_words())
        return 0
    print(
        f"Next: {nxt.number}. {nxt.name}: python -m katas check {nxt.name} "
        f"(its page: {page_command(nxt)})"
    )
    finished = [k for k in katas if states[k.name] == "done"]
    if finished:
        print(
            "Each kata done has a discussion to read (the ideas, the mistakes the tests "
            f"catch, other solutions): {discussion_command(finished[-1])}"
        )
    return 0


def cmd_hint(args) -> int:
    """Hint N, or the lowest-numbered hint not seen yet: one asked for by number skips none."""
    kata = _kata(args.name)
    hints = kata.hints
    seen = state.hints_seen(kata)
    unseen = [n for n in range(1, len(hints) + 1) if n not in seen]
    if args.number is not None:
        if not 1 <= args.number <= len(hints):
            raise Refusal(f"{kata.name} has hints 1 to {len(hints)}, not {args.number}", code=2)
        n = args.number
    elif not unseen:
        print(
            f"You have seen all {len(hints)} hints for {kata.name}. "
            f"`python -m katas hint {kata.name} N` shows hint N again; its page "
            f"(python -m katas docs {kata.name}) explains the kata."
        )
        return 0
    else:
        n = unseen[0]
    print(f"{kata.name}, hint {n} of {len(hints)}: {hints[n - 1].about}\n{hints[n - 1].text}")
    if n not in seen:
        state.saw_hint(kata, n)
    left = [m for m in unseen if m != n]
    if left:  # the plain command gives the lowest not seen, which may be one skipped
        more = f"python -m katas hint {kata.name} gives hint {left[0]}"
        if left[0] < n:
            more += ", one you skipped"
            higher = [m for m in left if m > n]
            if higher:
                more += f"; python -m katas hint {kata.name} {higher[0]} gives hint {higher[0]}"
        print(f"(More: {more}.)")
    return 0


def cmd_solution(args) -> int:
    kata = _kata(args.name)
    if not (args.force or state.known_done(kata)):
        from dojo import runner

        _must_be_a_file(kata)
        runner.warm_up()
        limit = runner.limit_for(kata, args.time_limit)
        verdict = runner.check([kata.name], time_limit=limit)[kata.name]
        state.remember({kata.name: verdict})
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
        state.write_atomic(kata.stub, pristine, mode)
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
    state.write_atomic(backup, current, mode)
    return backup


def cmd_explain(args) -> int:
    try:
        from dojo import errors
    except ImportError:
        raise Refusal("the error index is not part of this checkout yet") from None
    if args.list:
        return errors.main(["--list"])
    fix = ["--fix"] if args.fix else []
    return errors.main(fix + args.text)  # no text: errors.main reads stdin, whatever its encoding


def cmd_doctor(args) -> int:
    try:
        from dojo import doctor
    except ImportError:
        raise Refusal("doctor is not part of this checkout yet") from None
    return doctor.main(args.rest)


class _Signalled(Exception):
    """SIGTERM or SIGHUP reached `python -m katas docs`: stop its server, then exit."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _port_refusal(port: int) -> Refusal | None:
    """Why the site cannot be served on 127.0.0.1:`port`, in a sentence; None if it can.
    Asked before the build (tens of seconds) that `mkdocs serve` makes before it binds: the
    server binds as this does, so a port free here is free for it, unless another program
    takes it meanwhile."""
    import errno
    import socket

    def free(p: int) -> bool:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as mkdocs serve does
            try:
                sock.bind(("127.0.0.1", p))
            except OSError as err:
                if err.errno in (errno.EADDRINUSE, errno.EACCES):
                    return False
                raise
        return True

    if not 1 <= port <= 65535:
        return Refusal(f"--port {port} is no port: pick one from 1024 to 65535", code=2)
    try:
        if free(port):
            return None
    except OSError as err:
        return Refusal(f"cannot serve on 127.0.0.1:{port}: {err.strerror or err}")
    other = next((p for p in range(max(port + 1, 1024), 65536) if p != port and free(p)), None)
    pick = f"; pick another with --port, e.g. --port {other}" if other else ""
    if port < 1024 and os.geteuid() != 0:
        return Refusal(f"port {port} is reserved for the administrator here{pick}")
    return Refusal(
        f"port {port} is taken on 127.0.0.1 (another program serves on it, maybe a "
        f"`python -m katas docs` still running){pick}"
    )


def _die_with_this_process():
    """For a child: be sent SIGTERM when this process ends, however it ends (Linux; even a
    SIGKILL, which no handler sees). None elsewhere."""
    if sys.platform != "linux":
        return None
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    parent = os.getpid()

    def in_child() -> None:
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # this process ended before the line above
            os._exit(1)

    return in_child


def _serve_command(address: str) -> list[str]:
    return [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", address]


def cmd_docs(args) -> int:
    """Serve the site from this venv: the pages run their examples with the torch already
    here, so reading them costs no second torch install. The server is a child process: it is
    stopped with this one, whether by Ctrl-C, SIGTERM, SIGHUP (a closed terminal) or a kill."""
    import signal
    import subprocess

    if importlib.util.find_spec("mkdocs") is None:
        raise Refusal(
            "the site's tools (mkdocs) are not in this venv yet; run `nox -s learn` once to "
            "add them, then `python -m katas docs` again"
        )
    if args.discussion and not args.name:
        raise Refusal("--discussion needs a kata: python -m katas docs NAME --discussion", 2)
    kata = _kata(args.name) if args.name else None
    page = ""
    if kata is not None:
        page = f"discussions/{kata.name}/" if args.discussion else f"katas/{kata.name}/"
        source = ROOT / "docs" / f"{page.rstrip('/')}.md"
        if not source.is_file():
            raise Refusal(f"this checkout has no page docs/{page.rstrip('/')}.md to serve")
    refusal = _port_refusal(args.port)
    if refusal is not None:
        raise refusal
    address = f"127.0.0.1:{args.port}"
    print(
        "Building the site first: its examples run now, which takes tens of seconds (more the "
        "first time, and on a busy machine).\n"
        f'Once it says "Serving on", read http://{address}/{page} until Ctrl-C. '
        "Nothing leaves this machine.",
        flush=True,
    )
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}

    def stop(signum, _frame) -> None:
        raise _Signalled(signum)

    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    server = None
    try:
        server = subprocess.Popen(
            _serve_command(address), cwd=ROOT, env=env, preexec_fn=_die_with_this_process()
        )
        return server.wait()
    except _Signalled as signalled:
        print(f"\nStopped serving the site ({signal.Signals(signalled.signum).name}).")
        return 128 + signalled.signum
    finally:
        if server is not None and server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        for sig, handler in before.items():
            signal.signal(sig, handler)


def cmd_watch(args) -> int:
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        raise Refusal("watch needs watchfiles: run `nox -s learn` to install it") from None
    from dojo import watch

    if args.name is None and state.next_not_done() is None:
        return watch.main(args, None)  # every kata is done: say so, then wait for a save
    kata = _kata(args.name)
    _must_be_a_file(kata)
    return watch.main(args, kata)


def _limits() -> str:
    """Each kata's time limit, in words: "60 s, or 180 s for distributed"."""
    from dojo.runner import TIME_LIMIT

    own = [f"{k.time_limit:g} s for {k.name}" for k in _catalogue.katas() if k.time_limit]
    return ", or ".join([f"{TIME_LIMIT:g} s", ", ".join(own)] if own else [f"{TIME_LIMIT:g} s"])


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
        default=None,
        metavar="SECONDS",
        help="stop a check (quick and full run together; in `list`, each kata's) that runs "
        f"longer (default: the kata's own limit: {_limits()})",
    )
    sub.add_parser("list", parents=[limit], help="every kata with its status")
    c = sub.add_parser("check", parents=[limit], help="check one kata")
    c.add_argument("name", nargs="?", help="the kata (default: the first one not done)")
    c.add_argument("--porcelain", action="store_true", help="one JSON line, for scripts")
    w = sub.add_parser("watch", parents=[limit], help="re-check on every save")
    w.add_argument("name", nargs="?", help="the kata to start with")
    w.add_argument("--porcelain", action="store_true", help="JSON lines only, for scripts")
    h = sub.add_parser("hint", help="the lowest hint not seen, or hint N")
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
    e.add_argument(
        "--fix",
        action="store_true",
        help="show the fix even when it is the lesson of a kata not done yet",
    )
    d = sub.add_parser("doctor", help="what this machine can run")
    d.add_argument("rest", nargs=argparse.REMAINDER)
    s = sub.add_parser("docs", help="the site, served on this machine")
    s.add_argument("name", nargs="?", help="open at this kata's page")
    s.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    s.add_argument(
        "--discussion",
        action="store_true",
        help="open at the kata's discussion, the page to read once it is done",
    )
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
    try:
        args = parser().parse_args(argv)  # its help names each kata's time limit
    except _toml.NoReader as err:  # Python 3.10 without tomli: the catalogue cannot be read
        print(f"python -m katas: {err}", file=sys.stderr)
        return 1
    try:
        if args.command in NEEDS_TORCH:
            _ensure_torch(argv)
        elif args.command == "doctor":  # works without torch, but the learn venv's is the news
            _use_learn_venv(argv)
        return COMMANDS[args.command](args)
    except (Refusal, _toml.NoReader) as refusal:
        print(f"python -m katas {args.command}: {refusal}", file=sys.stderr)
        return getattr(refusal, "code", 1)
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
