"""Timing: measure GPU code honestly, with a warm-up, a clock that waits for the GPU, and
medians.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs timing

Check it:  python -m katas check timing
Stuck?     python -m katas hint timing   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import torch


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
    """How many times faster `fn_b` is than `fn_a`: median(a) / median(b), so 2.0 means `fn_b`
    takes half the time.

    Timed calls alternate (a, b, a, b, ...) in one run, so a machine that drifts during the
    run slows both down alike.
    """
    # TODO(timing): write speedup; the docstring above is the contract.
    raise NotImplementedError("timing: speedup")
