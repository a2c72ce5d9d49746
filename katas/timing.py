"""Timing: measure GPU code honestly.

A CUDA call returns as soon as its work is queued, long before the GPU has run it, so a timer
that does not wait for the GPU measures the launch, not the work. And the first calls of
anything are slow (CUDA start-up, library handles, caches), so they must not be timed at all.
Here you write the timer you will trust for the rest of the katas: one that reports what the
GPU really spent, and a comparison of two functions that a drifting machine cannot fool.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs timing

Check it:  python -m katas check timing
Stuck?     python -m katas hint timing   (one rung of the hint ladder at a time)
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
    """Time `fn()` on `device`; return `{"median_s": ..., "min_s": ..., "max_s": ...,
    "repeats": repeats}`, the three times as Python floats in seconds.

    `fn` is called `warmup` times untimed, then `repeats` times, each timed on its own; with an
    even number of times, the median is the mean of the two middle ones. Each time is what
    that one call cost: on a CUDA device, all the work the call queued on that device (which
    may finish long after `fn` returns) and none of the work queued before it, the warm-up
    included. Times are elapsed time, read from a steady clock of the highest resolution, or
    from the GPU's own timing events.

    `device` is "cpu" or a CUDA device this machine has ("cuda" is the current one). Raises
    ValueError naming the argument, before `fn` is called at all, for `repeats` below 1,
    `warmup` below 0, or any other device.
    """
    # TODO(timing): write time_op; the docstring above is the contract.
    raise NotImplementedError("timing: time_op")


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

    Both functions get `warmup` untimed calls before any timed one; then `repeats` timed calls
    of each, every time taken as `time_op` takes it. The timed calls of the two are
    interleaved, so that a machine that speeds up or slows down steadily during the run
    (another job starting, a GPU warming up) affects both alike.

    Arguments are checked as in `time_op`. If either median is 0 s (the function ran faster
    than the clock can tell), raises ValueError naming that function (`fn_a` or `fn_b`):
    a ratio with a zero in it measures the clock, not the functions.
    """
    # TODO(timing): write speedup; the docstring above is the contract.
    raise NotImplementedError("timing: speedup")
