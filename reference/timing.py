"""Timing: measure GPU code honestly, with a warm-up, a clock that waits for the GPU, and
medians."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import torch


# BEGIN SOLUTION
def _check(
    call: str, fns: tuple[object, ...], device: object, warmup: object, repeats: object
) -> torch.device:
    """Refuse bad arguments before anything runs; return the parsed device."""
    for name, value in (("warmup", warmup), ("repeats", repeats)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{call}: {name} must be an int, not {type(value).__name__}")
    if repeats < 1:
        raise ValueError(f"{call}: repeats={repeats}; it must be at least 1 (one timed call)")
    if warmup < 0:
        raise ValueError(f"{call}: warmup={warmup}; it must be 0 or more")
    for fn in fns:
        if not callable(fn):
            raise TypeError(f"{call}: expected a function to time, got {type(fn).__name__}")
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"{call}: device must be a str or a torch.device, not {device!r}")
    try:
        parsed = torch.device(device)
    except RuntimeError:
        raise ValueError(
            f"{call}: device={device!r} is not a device torch understands; try 'cpu' or 'cuda'"
        ) from None
    if parsed.type not in ("cpu", "cuda"):
        raise ValueError(f"{call}: device={device!r}; this times on 'cpu' or 'cuda' only")
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"{call}: device={device!r}, but torch.cuda.is_available() is False")
        count = torch.cuda.device_count()
        if parsed.index is not None and parsed.index >= count:
            raise ValueError(f"{call}: device={device!r}, but this machine has {count} GPU(s)")
    return parsed


# END SOLUTION


# BEGIN SOLUTION
def _time_one_call(fn: Callable[[], object], device: torch.device) -> float:
    """Seconds taken by one call of `fn`, including the GPU work it queued."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)  # nothing queued earlier may run inside our interval
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize(device)  # wait for the work fn queued, not just its launch
        return time.perf_counter() - start
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# END SOLUTION


# BEGIN SOLUTION
def _summary(samples: list[float]) -> dict:
    return {
        "median_s": float(statistics.median(samples)),
        "min_s": float(min(samples)),
        "max_s": float(max(samples)),
        "repeats": len(samples),
    }


# END SOLUTION


def time_op(
    fn: Callable[[], object],
    *,
    device: str | torch.device,
    warmup: int = 3,
    repeats: int = 10,
) -> dict:
    """Median, min and max seconds of `repeats` calls of `fn` on `device`, after `warmup`
    untimed calls.

    On CUDA every timed call sits between two `torch.cuda.synchronize` calls, so the interval
    holds all the GPU work of that call and nothing else. The median is robust to the odd slow
    sample (another process, a page fault) that would drag a mean up.
    """
    # BEGIN SOLUTION
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    samples = [_time_one_call(fn, target) for _ in range(repeats)]
    return _summary(samples)
    # END SOLUTION


def speedup(
    fn_a: Callable[[], object],
    fn_b: Callable[[], object],
    *,
    device: str | torch.device,
    warmup: int = 3,
    repeats: int = 10,
) -> float:
    """How many times faster `fn_b` is than `fn_a`: median(a) / median(b), so 2.0 means `fn_b`
    takes half the time.

    Timed calls alternate (a, b, a, b, ...) in one run, so a machine that drifts during the
    run slows both down alike.
    """
    # BEGIN SOLUTION
    target = _check("speedup", (fn_a, fn_b), device, warmup, repeats)
    for _ in range(warmup):
        fn_a()
        fn_b()
    times_a, times_b = [], []
    for _ in range(repeats):
        times_a.append(_time_one_call(fn_a, target))
        times_b.append(_time_one_call(fn_b, target))
    return float(statistics.median(times_a) / statistics.median(times_b))
    # END SOLUTION
