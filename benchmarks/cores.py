"""Checks side by side, with torch's threads shared or not: `python -m benchmarks.cores`.

The solution corpus of the named katas (`--kata`, default: mixed_precision and memory, whose
tests compute the most) runs as `python -m dojo.verify solutions` runs it: each file in a child
forked from one warm parent, one child per core at a time. In one arm every child keeps torch's
default of a thread per core; in the other it takes its share (`dojo.runner.share_cores`, what
the checks do). Rounds alternate the arms (A B, B A, ...) and report medians of the corpus's
wall time, so a busy machine slows both alike. Prints a table and writes JSON (`--out`, default
docs/benchmarks/cores.json). Run it with a Python that has torch, pytest and Hypothesis, and
with bytecode caching on (unset PYTHONDONTWRITEBYTECODE): recompiling would swamp the figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "benchmarks" / "cores.json"
KATAS = ("mixed_precision", "memory")


def corpus_seconds(jobs: list[list[str]], parallel: int, threads: int) -> float:
    """Wall time of the corpus, `parallel` children at a time, each with `threads` threads."""
    import torch

    from dojo import runner, verify

    def work(args: list[str]) -> dict:
        torch.set_num_threads(threads)  # after forked_many's share: this arm's count
        return verify._run(args)

    start = time.perf_counter()
    works = [lambda args=args: work(args) for args in jobs]
    for index, outcome in runner.forked_many(works, parallel=parallel, time_limit=300):
        if outcome.get("code") != 0:
            raise SystemExit(f"{jobs[index][0]}: did not pass: {outcome}")
    return time.perf_counter() - start


def table(data: dict) -> str:
    """The committed figures as a markdown table (for the Maintainers page)."""
    t = data["threads"]
    rows = [
        "| each child's torch threads | corpus wall time |",
        "| --- | --- |",
        f"| {t['default']} (torch's default: one per core) | {data['median']['default']:.1f} s |",
        f"| {t['shared']} (its share: `share_cores`) | {data['median']['shared']:.1f} s |",
    ]
    note = (
        f"\n\n{data['files']} solution files of {', '.join(data['katas'])}, "
        f"{data['parallel']} children at a time on {data['cores']} cores; medians of "
        f"{data['rounds']} alternated rounds (load {data['load_1min']} at the end)."
    )
    return "\n".join(rows) + note


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cores", description=__doc__)
    parser.add_argument("--kata", action="append", help="a kata whose corpus runs (repeatable)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    import torch

    from dojo import catalogue, runner

    katas = [catalogue.get(name) for name in args.kata or KATAS]
    jobs = [
        [f"--impl-file={f.relative_to(ROOT)}", str(k.tests.relative_to(ROOT))]
        for k in katas
        for f in sorted(k.solutions.glob("*.py"))
    ]
    runner.warm_up()
    parallel = os.cpu_count() or 2  # as dojo.verify runs a corpus
    threads = {"default": torch.get_num_threads()}
    threads["shared"] = max(1, threads["default"] // parallel)
    if threads["shared"] == threads["default"]:
        print(f"torch uses {threads['default']} thread here: sharing changes nothing to measure")
        return 0
    runs: dict[str, list[float]] = {"default": [], "shared": []}
    for r in range(args.rounds):
        for arm in ("default", "shared") if r % 2 == 0 else ("shared", "default"):
            runs[arm].append(round(corpus_seconds(jobs, parallel, threads[arm]), 2))
            print(f"round {r + 1}, {threads[arm]} threads each: {runs[arm][-1]} s", flush=True)
    data = {
        "katas": [k.name for k in katas],
        "files": len(jobs),
        "parallel": parallel,
        "cores": os.cpu_count(),
        "threads": threads,
        "rounds": args.rounds,
        "load_1min": round(os.getloadavg()[0], 1),
        "median": {arm: statistics.median(times) for arm, times in runs.items()},
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print("\n" + table(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
