"""Reads integer nanoseconds from `time.perf_counter_ns()` and waits with
`torch.accelerator.synchronize(device)`; the statistics are taken in nanoseconds with
`statistics.median_low`/`median_high` and converted to seconds at the end. speedup interleaves
in a b b a order (each pair mirrors the previous one), which is as fair to a drift as a b a b.
"""

from __future__ import annotations

import statistics
import time

import torch

from reference.timing import _check


def _ns(fn, device):
    if device.type == "cuda":
        torch.accelerator.synchronize(device)
    start = time.perf_counter_ns()
    fn()
    if device.type == "cuda":
        torch.accelerator.synchronize(device)
    return time.perf_counter_ns() - start


def _median_ns(samples):
    return (statistics.median_low(samples) + statistics.median_high(samples)) / 2


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    samples = [_ns(fn, target) for _ in range(repeats)]
    return {
        "median_s": _median_ns(samples) / 1e9,
        "min_s": min(samples) / 1e9,
        "max_s": max(samples) / 1e9,
        "repeats": repeats,
    }


def speedup(fn_a, fn_b, *, device, warmup=3, repeats=10):
    target = _check("speedup", (fn_a, fn_b), device, warmup, repeats)
    for _ in range(warmup):
        fn_a()
        fn_b()
    samples = {fn_a: [], fn_b: []}
    for k in range(repeats):
        for fn in (fn_a, fn_b) if k % 2 == 0 else (fn_b, fn_a):
            samples[fn].append(_ns(fn, target))
    median_a, median_b = _median_ns(samples[fn_a]), _median_ns(samples[fn_b])
    zero = [name for name, m in (("fn_a", median_a), ("fn_b", median_b)) if m == 0]
    if zero:
        raise ValueError(
            f"speedup: {' and '.join(zero)}: median 0 ns, under the clock's resolution"
        )
    return median_a / median_b
