"""The learner loop's speed: `python -m benchmarks.loop [--rounds N] [--out FILE]`.

Every figure is measured side by side in one run, on a throwaway copy of the repository, with
the interpreter that runs this script (the learn venv: `.nox/learn/bin/python`):

- cold check: `python -m katas check device_selection` on the unwritten stub, as a ratio to a
  bare `python -c "import torch"`, the two alternated, medians (goal: at most 1.3);
- watch, unwritten stub: seconds from a save to the verdict, median of N saves (goal: 0.5);
- watch, correct solution (view_vs_reshape, the slowest kata): seconds from a save to the first
  verdict (the quick run) and to "done" (the full run), medians (goal for the first: 1.0);
- distributed check: `python -m katas check distributed` on a correct solution, quick and full
  run, seconds, median of --distributed-rounds (goal: at most 15 s on 2 cores at a load of 2 or
  less), as forked here and as spawned on a GPU host (KATAS_RUNNER=spawn), alternated. Skip it
  with --distributed-rounds 0;
- mistake corpus: the whole `python -m dojo.verify mistakes`, as a ratio to (number of
  mistakes × a bare import) (goal: at most 0.5). Skip it with --no-mistakes.

The machine's load average is recorded before and after: on a busy machine every figure grows.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dojo import catalogue as _catalogue
from dojo.sandbox import copy_repo, solve

PY = sys.executable


def _timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def cold_check(repo: Path, rounds: int) -> dict:
    bare, check = [], []
    for _ in range(rounds):  # alternate, so drift in the machine's load hits both
        bare.append(_timed([PY, "-c", "import torch"], repo))
        check.append(_timed([PY, "-m", "katas", "check", "device_selection"], repo))
    return {
        "bare_import_s": statistics.median(bare),
        "check_s": statistics.median(check),
        "ratio": statistics.median(check) / statistics.median(bare),
        "goal": 1.3,
    }


class _Watch:
    """`python -m katas watch NAME --porcelain` in the background, read line by line."""

    def __init__(self, repo: Path, name: str) -> None:
        self.proc = subprocess.Popen(
            [PY, "-m", "katas", "watch", name, "--porcelain"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)

    def verdict(self, timeout: float = 300) -> dict:
        if not self.sel.select(timeout):
            raise TimeoutError("no verdict from watch")
        return json.loads(self.proc.stdout.readline())

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=30)


def _save(path: Path, n: int) -> float:
    """Save the file as an editor would (same code, a new comment); return when."""
    text = path.read_text().split("\n# saved ")[0]
    path.write_text(f"{text}\n# saved {n}\n")
    return time.perf_counter()


def watch_stub(repo: Path, rounds: int) -> dict:
    watch = _Watch(repo, "device_selection")
    watch.verdict()
    seconds = []
    for n in range(rounds):
        saved = _save(repo / "katas" / "device_selection.py", n)
        watch.verdict()
        seconds.append(time.perf_counter() - saved)
        time.sleep(0.3)
    watch.stop()
    return {"save_to_verdict_s": statistics.median(seconds), "all_s": seconds, "goal": 0.5}


def watch_solution(repo: Path, rounds: int) -> dict:
    solve(repo, "view_vs_reshape")
    watch = _Watch(repo, "view_vs_reshape")
    while not watch.verdict()["solved"]:
        pass
    watch.verdict()  # it moved on to the next kata; come back to this one on each save
    first, done = [], []
    for n in range(rounds):
        saved = _save(repo / "katas" / "view_vs_reshape.py", n)
        v = watch.verdict()
        first.append(time.perf_counter() - saved)
        while not v["solved"]:
            v = watch.verdict()
        done.append(time.perf_counter() - saved)
        watch.verdict()  # and on to the next kata again
    watch.stop()
    return {
        "save_to_first_verdict_s": statistics.median(first),
        "save_to_done_s": statistics.median(done),
        "goal_first": 1.0,
    }


def distributed_check(repo: Path, rounds: int) -> dict:
    """A correct `distributed`, checked as a learner would, forked and spawned in turn."""
    solve(repo, "distributed")
    seconds: dict[str, list[float]] = {"fork": [], "spawn": []}
    loads = []
    for n in range(rounds):
        for how in ("fork", "spawn") if n % 2 == 0 else ("spawn", "fork"):
            loads.append(os.getloadavg()[0])
            start = time.perf_counter()
            done = subprocess.run(
                [PY, "-m", "katas", "check", "distributed", "--porcelain"],
                cwd=repo,
                env={**os.environ, "KATAS_RUNNER": how},
                capture_output=True,
                text=True,
            )
            seconds[how].append(time.perf_counter() - start)
            verdict = json.loads(done.stdout.strip().splitlines()[-1])
            if not verdict.get("solved"):
                raise RuntimeError(f"distributed, {how}: not done: {verdict}")
    return {
        "fork_s": statistics.median(seconds["fork"]),
        "spawn_s": statistics.median(seconds["spawn"]),
        "all_s": seconds,
        "load_during": loads,
        "goal": 15.0,
    }


def mistakes(repo: Path, bare_import_s: float) -> dict:
    n = sum(len(list(k.mistakes.glob("*.py"))) for k in _catalogue.katas())
    seconds = _timed([PY, "-m", "dojo.verify", "mistakes"], repo)
    return {
        "mistakes": n,
        "seconds": seconds,
        "ratio_to_n_imports": seconds / (n * bare_import_s),
        "goal": 0.5,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.loop", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5, help="measurements per figure")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--no-mistakes", action="store_true", help="skip the mistake corpus")
    parser.add_argument(
        "--distributed-rounds",
        type=int,
        default=3,
        metavar="N",
        help="checks of a correct distributed, each way (default 3; 0 skips them)",
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, not {args.rounds}")
    results: dict = {"cpus": os.cpu_count(), "load": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        repo = copy_repo(Path(tmp) / "repo")
        results["cold_check"] = cold_check(repo, args.rounds)
        print(
            f"cold check: {results['cold_check']['ratio']:.2f} × a bare import of torch "
            f"({results['cold_check']['check_s']:.2f} s against "
            f"{results['cold_check']['bare_import_s']:.2f} s; goal ≤ 1.3)",
            flush=True,
        )
        results["watch_stub"] = watch_stub(repo, args.rounds)
        print(
            f"watch, unwritten stub: {results['watch_stub']['save_to_verdict_s']:.2f} s from "
            "a save to the verdict (goal ≤ 0.5)",
            flush=True,
        )
        results["watch_solution"] = watch_solution(repo, args.rounds)
        w = results["watch_solution"]
        print(
            f"watch, correct view_vs_reshape: first verdict {w['save_to_first_verdict_s']:.2f}"
            f" s after a save (goal ≤ 1.0), done after {w['save_to_done_s']:.2f} s",
            flush=True,
        )
        if args.distributed_rounds > 0:
            results["distributed_check"] = distributed_check(repo, args.distributed_rounds)
            d = results["distributed_check"]
            print(
                f"distributed check, correct solution: {d['fork_s']:.1f} s forked, "
                f"{d['spawn_s']:.1f} s spawned (goal ≤ {d['goal']:g} s)",
                flush=True,
            )
        if not args.no_mistakes:
            results["mistakes"] = mistakes(repo, results["cold_check"]["bare_import_s"])
            m = results["mistakes"]
            print(
                f"mistake corpus: {m['mistakes']} mistakes in {m['seconds']:.0f} s = "
                f"{m['ratio_to_n_imports']:.2f} × (mistakes × a bare import) (goal ≤ 0.5)"
            )
    results["load_after"] = os.getloadavg()
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
