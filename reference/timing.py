"""Timing: measure GPU code honestly.

A CUDA call returns as soon as its work is queued, long before the GPU has run it, so a timer
that does not wait for the GPU measures the launch, not the work. And the first calls of
anything are slow (CUDA start-up, library handles, caches), so they must not be timed at all.
Here you write the timer you will trust for the rest of the katas: one that reports what the
GPU really spent, and a comparison of two functions that a drifting machine cannot fool.
"""

from __future__ import annotations

# BEGIN SOLUTION
import statistics
import time

# END SOLUTION
from collections.abc import Callable

import torch


def _check(
    call: str, fns: tuple[object, ...], device: object, warmup: object, repeats: object
) -> torch.device:
    """Refuse bad arguments before anything runs; return the parsed device, with a bare
    "cuda" pinned to the current GPU's index (given: argument checks, not the lesson)."""
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
        if parsed.index is None:  # a bare "cuda" means the current GPU: pin its index
            parsed = torch.device("cuda", torch.cuda.current_device())
    return parsed


# BEGIN SOLUTION
def _time_one_call(fn: Callable[[], object], device: torch.device) -> float:
    """Seconds taken by one call of `fn`, including the GPU work it queued on `device`."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)  # nothing queued earlier may run inside our interval
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize(device)  # wait for the work fn queued, not just its launch
        return time.perf_counter() - start
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


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
    """Time `fn()` on `device`; return `{"median_s": ..., "min_s": ..., "max_s": ...,
    "repeats": repeats}`, the three times as Python floats in seconds.

    `fn` is called `warmup` times untimed, then `repeats` times, each timed on its own. Each
    time is what that one call cost, and nothing else: on a GPU, the work the call queued on
    `device`. Times are elapsed time, read from a steady clock of the highest resolution, or
    from the GPU's own timing events.

    Written for you: the argument checks (`_check` refuses bad arguments before `fn` runs),
    which also give the device to time on, with its index.
    """
    target = _check("time_op", (fn,), device, warmup, repeats)
    # BEGIN SOLUTION: warm up, then time each call on target, and summarise the times
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
    """How many times faster `fn_b` is than `fn_a`: the median time of `fn_a` over the median
    time of `fn_b`, as a Python float (2.0: `fn_b` takes half the time).

    Both functions get `warmup` untimed calls before any timed one, then `repeats` timed calls
    each, every one timed as `time_op` times it. A machine that speeds up or slows down
    steadily during the run (another job starting, a GPU warming up) tilts neither. A median
    of 0 s (faster than the clock can tell) would make the ratio measure the clock: that
    raises ValueError naming the function (`fn_a` or `fn_b`).

    Written for you: the argument checks (`_check`, as in `time_op`).
    """
    target = _check("speedup", (fn_a, fn_b), device, warmup, repeats)
    # BEGIN SOLUTION: warm both up, time them in a way a drifting machine cannot tilt, compare
    for _ in range(warmup):
        fn_a()
        fn_b()
    times_a, times_b = [], []
    for _ in range(repeats):
        times_a.append(_time_one_call(fn_a, target))
        times_b.append(_time_one_call(fn_b, target))
    median_a, median_b = statistics.median(times_a), statistics.median(times_b)
    zero = [name for name, median in (("fn_a", median_a), ("fn_b", median_b)) if median == 0]
    if zero:
        raise ValueError(
            f"speedup: the median time of {' and '.join(zero)} is 0 s, below the resolution "
            f"of the clock; time more work per call"
        )
    return float(median_a / median_b)
    # END SOLUTION
