"""`python -m katas watch`: re-check a kata every time you save a file under katas/.

A quick run with few examples answers first; the full run confirms, and only the full run can
say "done". A save while a check is running cancels it and starts again. When a kata is done,
the watch moves on to the next one. Ctrl-C stops it; your files are never touched.
"""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

from dojo import catalogue as _catalogue
from dojo import runner

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
    def start(self, kata: _catalogue.Kata) -> None:
        print("Watching katas/ (Ctrl-C to stop). Save a file to check it again.\n", flush=True)

    def verdict(self, v, kata: _catalogue.Kata) -> None:
        from dojo.cli import render

        if v.quick:  # a new check starts with a quick run: a rule, then its verdict
            print(f"\n─── {kata.number}. {kata.name} · {time.strftime('%H:%M:%S')} " + "─" * 40)
        print(render(v, kata), flush=True)

    def moving_on(self, kata: _catalogue.Kata) -> None:
        following = _catalogue.after(kata.name)
        if following is None:
            print("\nThat was the last kata. Well done!", flush=True)
        else:
            print(
                f"\nOn to {following.number}. {following.name} ({following.title}): open "
                f"katas/{following.name}.py and read docs/katas/{following.name}.md.",
                flush=True,
            )

    def stopped(self) -> None:
        print("\nStopped watching. Your files are as you saved them.", flush=True)


class _Porcelain:
    def start(self, kata) -> None:
        pass

    def verdict(self, v, kata) -> None:
        print(v.to_json(), flush=True)

    def moving_on(self, kata) -> None:
        pass

    def stopped(self) -> None:
        pass


def main(args, kata: _catalogue.Kata) -> int:
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        from dojo.cli import Refusal

        raise Refusal("watch needs watchfiles: run `nox -s learn` to install it") from None
    out = _Porcelain() if args.porcelain else _Human()
    runner.warm_up()
    events: queue.Queue = queue.Queue()
    stop = threading.Event()
    watcher = threading.Thread(target=_watch_files, args=(events, stop), daemon=True)
    watcher.start()
    out.start(kata)
    current, pending = kata, True
    try:
        while True:
            if pending:
                pending = False
                outcome = _check(current, args, events, out)
                if outcome is None:  # a save came in: check again, maybe another kata
                    current, pending = _saved(events.get(), current), True
                    continue
                if outcome:
                    out.moving_on(current)
                    following = _catalogue.after(current.name)
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


def _saved(names: set[str], current: _catalogue.Kata) -> _catalogue.Kata:
    """The kata to check after a save: the one saved, if it is a kata; else the current one."""
    katas = [k for k in _catalogue.katas() if k.name in names]
    return katas[0] if len(katas) == 1 else current


def _check(kata, args, events: queue.Queue, out) -> bool | None:
    """Quick run, then full run. True when done, False when not, None when a save cut it."""
    from dojo.cli import _remember

    def saved() -> bool:
        return not events.empty()

    quick = runner.check([kata.name], quick=True, time_limit=args.time_limit, cancel=saved)
    if quick is None:
        return None
    out.verdict(quick[kata.name], kata)
    if quick[kata.name].state != "done" or quick[kata.name].problem:
        return False
    full = runner.check([kata.name], time_limit=args.time_limit, cancel=saved)
    if full is None:
        return None
    _remember(full)
    out.verdict(full[kata.name], kata)
    return full[kata.name].solved
