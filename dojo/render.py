"""What `python -m katas check`, `watch` and `list` print for people: verdicts, the way on, and
a check's progress while it runs."""

from __future__ import annotations

import sys
import time

from dojo import catalogue as _catalogue
from dojo import state


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def page_command(kata: _catalogue.Kata) -> str:
    """How to read a kata's page: served with its examples' output (the raw .md lacks it)."""
    return f"python -m katas docs {kata.name}"


def discussion_command(kata: _catalogue.Kata) -> str:
    """How to read a kata's discussion, the page to read once the kata is done."""
    return f"python -m katas docs {kata.name} --discussion"


def _gpu_note(skipped: int) -> str:
    """The cuda tests that did not run here: they come on top of the ones counted."""
    if not skipped:
        return ""
    return f"{plural(skipped, 'more cuda test')} {'needs' if skipped == 1 else 'need'} a GPU"


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
        return (
            f"✓ {head} is done: all {v.passed} tests pass{cuda}.\n"
            f"Now read its discussion (the ideas, the mistakes the tests catch, other "
            f"solutions): {discussion_command(kata)}"
        )
    lines = []
    if v.state == "not started" and kata.fix and v.failed:
        failing = f"{plural(v.failed, 'test')} {'fails' if v.failed == 1 else 'fail'}"
        holes = (  # a stub may hold holes beside the program to fix (inplace_autograd)
            f" It also has {plural(len(v.unwritten), 'function')} to write." if v.unwritten else ""
        )
        lines.append(
            f"○ {head}: not started; katas/{kata.name}.py is a program to fix, and {failing} "
            f"on it as it is.{holes}\nRead its page ({page_command(kata)}) and what the tests "
            "say below, then change the code until they pass."
        )
    elif v.state == "not started":
        lines.append(
            f"○ {head}: not started; {plural(len(v.unwritten), 'function')} to write.\n"
            f"Open katas/{kata.name}.py, read its page ({page_command(kata)}), and replace "
            "each `raise NotImplementedError(...)` with your code (the code around it is "
            "written for you)."
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


def next_words(nxt: _catalogue.Kata | None) -> str:
    """The way on: the kata to do next, or, with None, that every kata is done."""
    if nxt is None:
        return all_done_words()
    return (
        f"Next: {nxt.number}. {nxt.name} ({nxt.title}). Open katas/{nxt.name}.py and read its "
        f"page ({page_command(nxt)}), then: python -m katas check {nxt.name}"
    )


def all_done_words() -> str:
    """Every kata is done: say so, and what is left to do."""
    n = len(_catalogue.katas())
    lines = [f"Every kata is done: {n} of {n}. Well done!"]
    gpu = state.cuda_tests_skipped()
    if gpu:
        lines.append(
            f"- {plural(gpu, 'cuda test')} did not run here: they need an NVIDIA GPU. On a "
            "machine with one, `python -m katas check NAME` runs them too, against your katas, "
            "in the env that holds its CUDA torch; `nox -s tests-cuda -- --impl katas` runs "
            "the whole cuda tier against them (plain `nox -s tests-cuda` checks the machine "
            "with the reference solutions; docs/gpu-hosts.md). No GPU? "
            "notebooks/gpu-katas.ipynb runs them on a free one (Colab, Kaggle)."
        )
    lines.append(
        "- Compare your code with the reference solutions: `python -m katas solution NAME`, "
        "and read each kata's discussion: `python -m katas docs NAME --discussion`."
    )
    return "\n".join(lines)


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
