"""Timing: measure GPU code honestly.

A CUDA call returns as soon as its kernel is queued, long before the GPU has run it, so a timer
read without waiting for the GPU measures the launch, not the work. And the first calls of
anything are slow (CUDA start-up, cuBLAS handles, caches), so they must not be timed at all.
Read docs/katas/timing.md, then fill in each function.

Check it:  python -m katas check timing
Stuck?     python -m katas hint timing
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Callable

import torch


def time_op(
    fn: Callable[[], object],
    *,
    device: str | torch.device,
    warmup: int = 3,
    repeats: int = 10,
) -> dict:
    """Time `fn()` on `device` and return `{"median_s", "min_s", "max_s", "repeats"}`.

    1. Check the arguments before calling `fn` at all, and raise ValueError naming the one
       that is wrong: `repeats` below 1, `warmup` below 0, or `device` when torch cannot parse
       it (catch torch's RuntimeError), when its type is neither "cpu" nor "cuda", or when it
       is a CUDA device this machine does not have (`torch.cuda.is_available()` is False, or
       the index is not below `torch.cuda.device_count()`).
    2. Warm up: call `fn()` `warmup` times, untimed, before reading any clock.
    3. Then time `repeats` calls, one at a time. Each call gives one sample, in seconds:
       - on the CPU: read `time.perf_counter()` exactly once right before the call and once
         right after it; the sample is the difference. Read no other clock: `time.time()`
         is wall-clock time, which can jump and may be coarse.
       - on CUDA, either
         (a) call `torch.cuda.synchronize(device)` before each start reading and again before
             each stop reading, so that the GPU has finished everything queued, then read
             `time.perf_counter()` as on the CPU; or
         (b) use `torch.cuda.Event(enable_timing=True)`: `start.record()`, the call,
             `end.record()`, then wait for the end event (`end.synchronize()` or
             `torch.cuda.synchronize(device)`) before `start.elapsed_time(end)`, which is in
             milliseconds.
         Use nothing else to wait for the GPU (no `.item()`, no `.cpu()` on fn's result).
    4. Return the median (`statistics.median` of the samples: for an even count, the mean of
       the two middle ones), the smallest and the largest sample, as floats in seconds, and
       `repeats`. The median ignores the odd slow sample that the mean would let in.

    For real work, `torch.utils.benchmark.Timer` does all of this for you (see the page).
    """
    # TODO(timing): check the arguments, warm up, then time each call with a clock the GPU
    # cannot outrun.
    raise NotImplementedError("timing: time_op")


def speedup(
    fn_a: Callable[[], object],
    fn_b: Callable[[], object],
    *,
    device: str | torch.device,
    warmup: int = 3,
    repeats: int = 10,
) -> float:
    """How many times faster `fn_b` is than `fn_a`: median time of `fn_a` / median time of `fn_b`.

    So 2.0 means `fn_b` takes half the time of `fn_a`, and 0.5 means it takes twice as long.

    - Check the arguments as `time_op` does (ValueError naming the argument).
    - Warm up both: `warmup` untimed calls of each, before any timed call.
    - Then take `repeats` samples of each in one run, alternating: a, b, a, b, ... (one timed
      call of `fn_a`, then one of `fn_b`, and so on). A machine that slows down or speeds up
      during the run (another job, a GPU clocking down as it warms) then hits both equally;
      timing all of `fn_a` first and then all of `fn_b` would credit the drift to one of them.
    - Time each call exactly as `time_op` does, and divide the two medians.
    """
    # TODO(timing): warm up both, alternate timed calls of a and b, then divide the medians.
    raise NotImplementedError("timing: speedup")
