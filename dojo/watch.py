"""`python -m katas watch`: re-check a kata every time you save a file under katas/.

A save is acknowledged at once ("checking NAME…"), and a long check says how far it is. A quick
run with few examples answers first; the full run confirms, and only the full run can say
"done"; the two share one time limit. A save while a check is running cancels it and starts
again. When a kata is done, the watch moves on to the next one not done; when every kata is
done, it says so, and goes on watching. Ctrl-C stops it; your files are never touched.
`--porcelain` prints one JSON verdict per line, and nothing else.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from pathlib import Path

from dojo import catalogue as _catalogue
from dojo import runner, state
from dojo.render import Ticker, all_done_words, page_command, render

KATAS = _catalogue.ROOT / "katas"


def is_kata_file(path: str) -> bool:
    """A save worth a check: a .py file right in katas/, not an editor's swap or backup file,
    a cache, or anything under .hypothesis/."""
    p = Path(path)
    return (
        p.parent == KATAS
        and p.suffix == ".py"
        and not p.name.startswith((".", "#", "_"))
        and not p.name.endswith("~")
    )


def _watch_files(events: queue.Queue, stop: threading.Event) -> None:
    from watchfiles import watch

    for changes in watch(
        KATAS,
        watch_filter=lambda _change, path: is_kata_file(path),
        stop_event=stop,
        debounce=150,
        step=30,
        recursive=False,
    ):
        events.put({Path(path).stem for _change, path in changes})


class _Human:
    def start(self, kata: _catalogue.Kata | None) -> None:
        print("Watching katas/ (Ctrl-C to stop). Save a file to check it again.\n", flush=True)
        if kata is None:
            print(all_done_words(), flush=True)

    def checking(self, kata: _catalogue.Kata):
        """A check starts: a rule, a line that says so at once, then its progress."""
        print(f"\n─── {kata.number}. {kata.name} · {time.strftime('%H:%M:%S')} " + "─" * 40)
        return Ticker(kata)

    def verdict(self, v, kata: _catalogue.Kata, ticker) -> None:
        ticker.clear()
        print(render(v, kata), flush=True)

    def moving_on(self, kata: _catalogue.Kata, following: _catalogue.Kata | None) -> None:
        if following is None:
            print(f"\n{all_done_words()}\nStill watching: save a file to check it again.")
        else:
            print(
                f"\nOn to {following.number}. {following.name} ({following.title}): open "
                f"katas/{following.name}.py and read its page ({page_command(following)}).",
            )
        sys.stdout.flush()

    def stopped(self) -> None:
        print("\nStopped watching. Your files are as you saved them.", flush=True)


class _Porcelain:
    def start(self, kata) -> None:
        pass

    def checking(self, kata) -> None:
        return None

    def verdict(self, v, kata, ticker) -> None:
        print(v.to_json(), flush=True)

    def moving_on(self, kata, following) -> None:
        pass

    def stopped(self) -> None:
        pass


def main(args, kata: _catalogue.Kata | None) -> int:
    """Watch, starting with `kata` (None: every kata is done, so wait for a save)."""
    out = _Porcelain() if args.porcelain else _Human()
    runner.warm_up()
    events: queue.Queue = queue.Queue()
    stop = threading.Event()
    watcher = threading.Thread(target=_watch_files, args=(events, stop), daemon=True)
    watcher.start()
    out.start(kata)
    current, pending = kata, kata is not None
    try:
        while True:
            if pending:
                pending = False
                outcome = _check(current, args, events, out)
                if outcome is None:  # a save came in: check again, maybe another kata
                    current, pending = _saved(events.get(), current), True
                    continue
                if outcome:
                    following = state.next_not_done(current)
                    out.moving_on(current, following)
                    if following is not None:
                        current, pending = following, True
                        continue
            try:
                current, pending = _saved(events.get(timeout=0.2), current), True
            except queue.Empty:
                continue
    except KeyboardInterrupt:
        out.stopped()
        return 0
    finally:
        stop.set()


def _saved(names: set[str], current: _catalogue.Kata | None) -> _catalogue.Kata:
    """The kata to check after a save: the one saved, if it is a kata; else the current one."""
    katas = [k for k in _catalogue.katas() if k.name in names]
    if len(katas) == 1 or current is None:
        return katas[0] if katas else _catalogue.katas()[-1]
    return current


def _check(kata, args, events: queue.Queue, out) -> bool | None:
    """Quick run, then full run, within one time limit. True when done, False when not, None
    when a save cut it."""

    def saved() -> bool:
        return not events.empty()

    ticker = out.checking(kata)
    limit = runner.limit_for(kata, args.time_limit)
    deadline = time.monotonic() + limit
    common = {
        "time_limit": limit,
        "deadline": deadline,
        "cancel": saved,
        "on_progress": ticker,
        "then": True,  # the next check (the full run, or the next save's) starts warm
    }
    quick = runner.check([kata.name], quick=True, **common)
    if quick is None:
        if ticker:
            ticker.clear()
        return None
    out.verdict(quick[kata.name], kata, ticker)
    if quick[kata.name].state != "done" or quick[kata.name].problem:
        state.remember(quick)
        return False
    full = runner.check([kata.name], **common)
    if full is None:
        if ticker:
            ticker.clear()
        return None
    out.verdict(full[kata.name], kata, ticker)
    state.remember(full)
    return full[kata.name].solved
