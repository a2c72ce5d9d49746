"""The sync_points tests' own machinery, checked on a CPU (issue 19).

The cuda tier runs the learner's loop under `torch.cuda.set_sync_debug_mode("error")`, switched
on by the generator that hands out the batches. When the code under test raises inside its
loop (what a wrong solution does under that mode), or stops taking batches early, that
generator is left suspended with the mode on, and every later cuda test in the process would
run under it. Here the mode's get and set are faked, so the same path runs without a GPU.
"""

from __future__ import annotations

import types
from unittest import mock

import pytest
import torch

from tests import test_sync_points as t

MODES = {"default": 0, "warn": 1, "error": 2}


class FakeMode:
    """torch.cuda.get_sync_debug_mode / set_sync_debug_mode, on a plain attribute."""

    def __init__(self) -> None:
        self.mode = 0

    def get(self) -> int:
        return self.mode

    def set(self, mode) -> None:
        self.mode = MODES.get(mode, mode)


def fails_at_step_2(model, batches, optimizer, loss_fn):
    for step, (x, y) in enumerate(batches):
        if step == 2:
            raise RuntimeError("called a synchronizing CUDA operation (a stand-in)")
        loss_fn(model(x), y).backward()
    return []


KEPT = []


def takes_one_batch(model, batches, optimizer, loss_fn):
    KEPT.append(batches)  # alive after the call, as an exception's traceback would keep it
    x, y = next(iter(batches))
    return [float(loss_fn(model(x), y))]


@pytest.mark.parametrize("solution", [fails_at_step_2, takes_one_batch])
def test_the_debug_mode_ends_with_the_call_however_it_ends(solution):
    fake = FakeMode()
    kata = types.SimpleNamespace(train_and_log=solution)
    problem = t.Problem(4, 2, 1, 3, 0, 0.05, 0.0)
    with (
        mock.patch.object(torch.cuda, "get_sync_debug_mode", fake.get),
        mock.patch.object(torch.cuda, "set_sync_debug_mode", fake.set),
    ):
        failed = None
        try:
            t.train(kata, problem, torch.device("cpu"), hint=1, debug=True)
        except pytest.fail.Exception as err:  # kept, as pytest keeps a failed test's traceback
            failed = err
        assert fake.mode == 0, (
            f"{solution.__name__}: the sync debug mode was left at {fake.mode} after the test's "
            "call; later cuda tests would run under it"
        )
    del failed
    KEPT.clear()


def test_the_fake_mode_is_switched_on_while_the_loop_runs():
    """The check above can fail: inside the loop the (faked) mode is on."""
    fake = FakeMode()
    seen = []

    def looks(model, batches, optimizer, loss_fn):
        for _ in batches:
            seen.append(fake.mode)
        return []

    with (
        mock.patch.object(torch.cuda, "get_sync_debug_mode", fake.get),
        mock.patch.object(torch.cuda, "set_sync_debug_mode", fake.set),
    ):
        t.train(
            types.SimpleNamespace(train_and_log=looks),
            t.Problem(2, 2, 1, 3, 0, 0.05, 0.0),
            torch.device("cpu"),
            hint=1,
            debug=True,
        )
    assert seen == [2, 2] and fake.mode == 0
