"""The one timing helper every benchmark uses: cases measured side by side, medians and spread.

Why not `torch.utils.benchmark.Timer`? It times one statement at a time. On a shared, noisy
machine the load changes from second to second, so a figure that compares A with B must time
them in the same stretch of time: `compare` interleaves them (A B, then B A, ...) and each case
gets the same number of samples.

One sample is the wall time of `number` back-to-back calls, divided by `number`, between two
calls to `sync` (`torch.cuda.synchronize` on a GPU: without it a CUDA call returns when its work
is queued, not done, and the clock would measure the queueing). `number` is calibrated per case
so that a sample lasts at least `min_time`, which keeps the clock's own resolution and the
sync's cost out of the figure. Warm-up calls run first and are not timed.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass

Clock = Callable[[], float]


def _no_sync() -> None:
    return None


@dataclass(frozen=True)
class Stats:
    """Seconds per call over the samples: median and spread (min, max, quartiles)."""

    median: float
    min: float
    max: float
    q1: float
    q3: float
    n: int
    number: int = 1  # calls per sample

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def summarize(samples: Sequence[float], number: int = 1) -> Stats:
    """Median, min, max and quartiles (the inclusive method: the quartiles lie between samples)."""
    if not samples:
        raise ValueError("summarize: no samples")
    xs = sorted(samples)
    if len(xs) == 1:
        q1 = q3 = xs[0]
    else:
        q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return Stats(
        median=statistics.median(xs), min=xs[0], max=xs[-1], q1=q1, q3=q3, n=len(xs), number=number
    )


@dataclass(frozen=True)
class Plan:
    """How hard to measure: samples per case, warm-up calls, and how long one sample lasts."""

    smoke: bool = False
    repeats: int = 7
    warmup: int = 2
    min_time: float = 0.02
    max_number: int = 100_000

    def pick(self, smoke, full):
        """`smoke` in smoke mode, `full` otherwise (sizes, epochs, ...)."""
        return smoke if self.smoke else full


SMOKE = Plan(smoke=True, repeats=3, warmup=1, min_time=0.001)
FULL = Plan()


def calibrate(
    fn: Callable[[], object],
    *,
    min_time: float,
    max_number: int,
    sync: Callable[[], None] = _no_sync,
    clock: Clock = time.perf_counter,
) -> int:
    """How many back-to-back calls of `fn` last at least `min_time` (1, 2, 5, 10, 20, ...)."""
    number = 1
    while True:
        sync()
        start = clock()
        for _ in range(number):
            fn()
        sync()
        elapsed = clock() - start
        if elapsed >= min_time or number >= max_number:
            return number
        # Jump close to the target in one step, then round up to 1-2-5 so numbers stay readable.
        want = number * min_time / elapsed if elapsed > 0 else number * 10
        number = min(max_number, _one_two_five(max(want, number + 1)))


def _one_two_five(x: float) -> int:
    decade = 10 ** math.floor(math.log10(x))
    for step in (1, 2, 5, 10):
        if step * decade >= x:
            return int(step * decade)
    raise AssertionError("unreachable")


def compare(
    cases: Mapping[str, Callable[[], object]],
    plan: Plan,
    *,
    sync: Callable[[], None] = _no_sync,
    clock: Clock = time.perf_counter,
) -> dict[str, Stats]:
    """Time each case `plan.repeats` times, interleaved, and summarize seconds per call.

    Round r runs the cases in the order rotated by r (A B C, B C A, C A B, ...), so no case
    always goes first or last and slow drifts in the machine's load hit every case alike.
    """
    if not cases:
        raise ValueError("compare: no cases")
    names = list(cases)
    for name in names:
        for _ in range(plan.warmup):
            cases[name]()
        sync()
    number = {
        name: calibrate(
            cases[name], min_time=plan.min_time, max_number=plan.max_number, sync=sync, clock=clock
        )
        for name in names
    }
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(plan.repeats):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn, n = cases[name], number[name]
            sync()
            start = clock()
            for _ in range(n):
                fn()
            sync()
            samples[name].append((clock() - start) / n)
    return {name: summarize(samples[name], number[name]) for name in names}


def ratio(slow: Stats, fast: Stats) -> float:
    """How many times slower `slow` is than `fast`, median against median."""
    return slow.median / fast.median if fast.median > 0 else math.inf


def faster(speedup: float) -> str:
    """Say a ratio of times as a reader would: 2.5 -> '2.5x faster', 0.25 -> '4.0x slower'."""
    if speedup >= 1:
        return f"{speedup:.2g}x faster" if speedup < 10 else f"{speedup:.0f}x faster"
    return f"{1 / speedup:.2g}x slower" if speedup > 0.1 else f"{1 / speedup:.0f}x slower"


def log_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of log(y) against log(x): ~0 for O(1), ~1 for O(n)."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    den = sum((a - mx) ** 2 for a in lx)
    if den == 0:
        raise ValueError("log_slope: needs at least two different x")
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / den


def cuda_sync(device) -> Callable[[], None]:
    """`torch.cuda.synchronize(device)` for a CUDA device, nothing for the CPU."""
    import torch

    device = torch.device(device)
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return _no_sync


def human_bytes(n: float) -> str:
    """4096 -> '4 KiB'."""
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:g} {unit}"
        n /= 1024
    return f"{n:g} GiB"
