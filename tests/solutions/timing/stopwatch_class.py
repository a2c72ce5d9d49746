"""Wraps the timing in a small class whose clock is a default argument
(`clock=default_timer`, from `from timeit import default_timer`), and waits for the GPU through
its default stream (`torch.cuda.default_stream(device).synchronize()`). speedup starts each
round with `fn_b` (b, a, b, a, ...), which is as fair to a drift as starting with `fn_a`.
"""

from __future__ import annotations

import statistics
from timeit import default_timer

import torch

from reference.timing import _check


class _Stopwatch:
    def __init__(self, device, clock=default_timer):
        self.device, self.clock = device, clock

    def _wait(self):
        if self.device.type == "cuda":
            torch.cuda.default_stream(self.device).synchronize()

    def seconds(self, fn):
        self._wait()
        start = self.clock()
        fn()
        self._wait()
        return self.clock() - start


def _report(times):
    return {
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "repeats": len(times),
    }


def time_op(fn, *, device, warmup=3, repeats=10):
    watch = _Stopwatch(_check("time_op", (fn,), device, warmup, repeats))
    for _ in range(warmup):
        fn()
    return _report([watch.seconds(fn) for _ in range(repeats)])


def speedup(fn_a, fn_b, *, device, warmup=3, repeats=10):
    watch = _Stopwatch(_check("speedup", (fn_a, fn_b), device, warmup, repeats))
    for _ in range(warmup):
        fn_b()
        fn_a()
    a, b = [], []
    for _ in range(repeats):
        b.append(watch.seconds(fn_b))
        a.append(watch.seconds(fn_a))
    median_a, median_b = statistics.median(a), statistics.median(b)
    if median_b == 0:
        raise ValueError("speedup: fn_b's median time is 0 s, below the clock's resolution")
    if median_a == 0:
        raise ValueError("speedup: fn_a's median time is 0 s, below the clock's resolution")
    return median_a / median_b
