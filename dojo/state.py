"""What `python -m katas` remembers between runs, in .katas-state/ (git-ignored): each kata's
last verdict, with a digest of what it was reached on, and the hints seen.

Every read-change-write holds a lock, so that two commands at once lose no update, and every
write goes through a temporary file and a rename, so that an interrupt never leaves half a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

from dojo import catalogue as _catalogue

STATE = _catalogue.ROOT / ".katas-state"  # verdicts and hints seen; git-ignored
VERDICTS_FORMAT = b"3"  # change it when remembered verdicts must be found again (3: tests of
# the given code that pass are counted apart, not as passed)


def read(name: str) -> dict:
    try:
        return json.loads((STATE / f"{name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def write_atomic(path: Path, data: str | bytes, mode: int | None = None) -> None:
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
def lock():
    """Hold .katas-state/ for one read-change-write: two commands at once lose no update."""
    STATE.mkdir(exist_ok=True)
    with open(STATE / ".lock", "a") as held:
        try:
            import fcntl

            fcntl.flock(held, fcntl.LOCK_EX)
        except ImportError:  # not on Windows: there, the last write wins
            pass
        yield


_warned: list[str] = []


def update(name: str, change) -> None:
    """Apply `change(data)` to the state file `name`, under the lock. Where .katas-state/
    cannot be written, say so once and go on: a verdict is still a verdict."""
    try:
        with lock():
            data = read(name)
            change(data)
            (STATE / ".gitignore").write_text("*\n")
            write_atomic(STATE / f"{name}.json", json.dumps(data, indent=1))
    except OSError as err:
        if not _warned:
            _warned.append(name)
            reason = err.strerror or type(err).__name__
            print(
                f"(could not save this in {STATE.name}/: {reason}. The verdict stands; "
                "it is only not remembered.)",
                file=sys.stderr,
            )


# --- verdicts ---------------------------------------------------------------------------------


def digest(kata: _catalogue.Kata) -> str:
    """What a verdict depends on: your file and the kata's tests (and how the tool checks:
    a verdict from before each kata had a process of its own in `list` is not trusted)."""
    h = hashlib.sha256(VERDICTS_FORMAT)
    for path in (kata.stub, kata.tests):
        try:
            h.update(path.read_bytes())
        except OSError:  # missing, a directory, unreadable: none of these is a solution
            h.update(b"")
    return h.hexdigest()


def remember(verdicts) -> None:
    """Save these verdicts. A quick run can say "not done" for sure, but only the full run can
    say "done"; a stopped check says nothing about the code, and leaves what was saved."""

    def change(saved: dict) -> None:
        for v in verdicts.values():
            if not (v.quick and v.state == "done") and v.state != "stopped":
                kata = _catalogue.get(v.kata)
                saved[v.kata] = {"digest": digest(kata), **json.loads(v.to_json())}

    update("verdicts", change)


def known_done(kata: _catalogue.Kata, saved: dict | None = None) -> bool:
    """Is the kata done, as far as a verdict on the file as it is now says?"""
    saved = (read("verdicts") if saved is None else saved).get(kata.name)
    return bool(saved and saved.get("solved") and saved.get("digest") == digest(kata))


def unknown(kata: _catalogue.Kata, saved: dict | None = None) -> bool:
    """Has the kata no verdict on its file as it is now (never checked, changed since, or a
    check stopped before it could say)?"""
    saved = (read("verdicts") if saved is None else saved).get(kata.name)
    return not saved or saved.get("digest") != digest(kata)


def next_not_done(after: _catalogue.Kata | None = None) -> _catalogue.Kata | None:
    """The first kata not known to be done, counting from the one after `after` and coming
    round; None when every kata is done."""
    katas = _catalogue.katas()
    start = after.number if after is not None else 0
    saved = read("verdicts")
    for kata in katas[start:] + katas[:start]:
        if not known_done(kata, saved):
            return kata
    return None


def cuda_tests_skipped() -> int:
    """The cuda tests that did not run here, over every kata's saved verdict."""
    saved = read("verdicts")
    return sum(saved.get(k.name, {}).get("skipped", 0) for k in _catalogue.katas())


# --- hints --------------------------------------------------------------------------------------


def hints_seen(kata: _catalogue.Kata) -> set[int]:
    """The numbers of the hints shown for `kata`. (An older state kept only the highest one
    shown, as a number: then every hint up to it counts as seen.)"""
    seen = read("hints").get(kata.name, [])
    if isinstance(seen, int):
        return set(range(1, seen + 1))
    return {n for n in seen if isinstance(n, int)}


def saw_hint(kata: _catalogue.Kata, n: int) -> None:
    def change(data: dict) -> None:
        before = data.get(kata.name, [])
        seen = set(range(1, before + 1)) if isinstance(before, int) else set(before)
        data[kata.name] = sorted(seen | {n})

    update("hints", change)
