"""Reads the clock through `from time import perf_counter`, and as a lap timer: one reading
between two timed calls ends one interval and starts the next, with the GPU waited for
(`torch.cuda.synchronize(device)`) before every reading. The statistics come from
`statistics.median`, `min` and `max`; speedup reuses one loop for both functions.
"""

from __future__ import annotations

import statistics
from time import perf_counter

import torch


def _target(call, device, warmup, repeats):
    if repeats < 1:
        raise ValueError(f"{call}: repeats={repeats} (at least 1)")
    if warmup < 0:
        raise ValueError(f"{call}: warmup={warmup} (0 or more)")
    try:
        target = torch.device(device)
    except RuntimeError as err:
        raise ValueError(f"{call}: device={device!r}: {err}") from None
    if target.type == "cuda":
        gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if (target.index or 0) >= gpus:
            raise ValueError(f"{call}: device={device!r}, but there are {gpus} GPU(s)")
        if target.index is None:
            target = torch.device("cuda", torch.cuda.current_device())
    elif target.type != "cpu":
        raise ValueError(f"{call}: device={device!r} is neither cpu nor cuda")
    return target


def _laps(fns, target, repeats):
    """Time `repeats` rounds of calling each of `fns` once; a list of times per function."""

    def wait():
        if target.type == "cuda":
            torch.cuda.synchronize(target)

    laps = [[] for _ in fns]
    wait()
    before = perf_counter()
    for _ in range(repeats):
        for lap, fn in zip(laps, fns, strict=True):
            fn()
            wait()
            after = perf_counter()
            lap.append(after - before)
            before = after
    return laps


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _target("time_op", device, warmup, repeats)
    for _ in range(warmup):
        fn()
    (times,) = _laps([fn], target, repeats)
    return {
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "repeats": repeats,
    }


def speedup(fn_a, fn_b, *, device, warmup=3, repeats=10):
    target = _target("speedup", device, warmup, repeats)
    for _ in range(warmup):
        fn_a()
        fn_b()
    times_a, times_b = _laps([fn_a, fn_b], target, repeats)
    median_a, median_b = statistics.median(times_a), statistics.median(times_b)
    if median_a == 0 or median_b == 0:
        which = "fn_a" if median_a == 0 else "fn_b"
        if median_a == median_b == 0:
            which = "fn_a and fn_b"
        raise ValueError(f"speedup: {which} ran in 0 s, below the clock's resolution")
    return median_a / median_b
