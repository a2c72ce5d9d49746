"""Tests for katas/sync_points.py.

What is checked, and how:
- host transfers are counted by spies on the Tensor methods that hand a value to Python or to
  the CPU: `item`, `tolist`, `numpy`, `cpu`, `to` with a CPU target, and the conversions
  `float()`, `int()`, `bool()`, `format()`, `repr()` and numpy's `__array__`. A call made from
  inside another spied call is part of it (`print(loss)` is one transfer, not three), and
  reading a tensor that is already a host copy (`.cpu().tolist()`) is not another transfer.
  `torch.tensor` is watched too, because on a list of tensors it reads every element with
  `float()`: one transfer per loss.
- the graph: the loss function the tests hand in marks each step's graph with a sentinel
  object held by its last node. When a step starts, the graphs of all steps before the
  previous one must be gone (the previous one may still sit in a variable).
- `zero_grad`: that same node notes, when backward reaches it, whether the gradients were
  cleared for this step.
- the losses and the trained parameters are compared with a plain loop's (`loss.item()` every
  step) on a copy of the same model.
- a loss that is not finite: one target of batch k holds NaN, inf or -inf, so the loss of step
  k is not finite (and, once the weights are NaN, every later one): the ValueError must name
  step k. When it is raised (at step k, or after the pass) is not checked, nor the model after.
- the cuda tier runs the loop under `torch.cuda.set_sync_debug_mode("error")`, with which torch
  raises "called a synchronizing CUDA operation" at any call that makes the host wait for the
  GPU (`c10::cuda::warn_or_error_on_sync`, in c10/cuda/CUDAFunctions.cpp). The batches arrive
  from a generator that switches the mode on when the first batch is taken and off when the
  batches run out, so only the loop runs under it; the final transfer comes after. The test
  closes that generator when the call ends, however it ends (a wrong solution raises inside
  its loop), so the mode never outlives the call (tests/tool/test_sync_points_harness.py). The
  same body runs on the cpu tier, without the debug mode.
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import weakref
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from unittest import mock

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn

from tests.strategies import make_tensor
from tests.support import Say, host_reads, real_world, recorded_warnings

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

GIVEN = pytest.mark.given
"""The stub is the tutorial's loop, a program to fix: it already trains correctly, clears the
gradients, keeps no graph, returns [] for no batches and checks the batches' devices, so these
tests pass on it and must go on passing. The lesson's tests are the ones that count transfers."""

SYNCING = "called a synchronizing CUDA operation"  # c10/cuda/CUDAFunctions.cpp, debug mode "error"

# A training run takes about 10 ms here (most of it in Optimizer.step's wrappers): these keep
# the file near 5 s. They scale with the profile: 25 and 10 examples under `dev`.
SOME = settings(max_examples=max(settings().max_examples // 4, 10))
FEW = settings(max_examples=max(settings().max_examples // 10, 5))


# --- models, batches and a plain loop ---------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """A small regression: a seeded model, `steps` batches and an SGD configuration."""

    steps: int
    n_in: int
    n_out: int
    batch: int
    seed: int
    lr: float
    momentum: float

    def __str__(self) -> str:
        return (
            f"{self.steps} batch(es) of {self.batch}, MLP {self.n_in}->4->{self.n_out}, "
            f"SGD(lr={self.lr}, momentum={self.momentum})"
        )

    def model(self, device: torch.device) -> nn.Module:
        """The same model for the same seed (values from tests.strategies.make_tensor)."""
        model = nn.Sequential(nn.Linear(self.n_in, 4), nn.Tanh(), nn.Linear(4, self.n_out))
        with torch.no_grad():
            for k, p in enumerate(model.parameters()):
                p.copy_(make_tensor(p.shape, p.dtype, self.seed + 50 + k) / 2)
        return model.to(device)

    def batches(self, device: torch.device) -> list[tuple[torch.Tensor, torch.Tensor]]:
        return [
            (
                make_tensor((self.batch, self.n_in), torch.float32, self.seed + 2 * k, device),
                make_tensor((self.batch, self.n_out), torch.float32, self.seed + 2 * k + 1, device),
            )
            for k in range(self.steps)
        ]

    def optimizer(self, model: nn.Module) -> torch.optim.Optimizer:
        return Steps(model.parameters(), lr=self.lr, momentum=self.momentum)


@st.composite
def problems(draw, min_steps: int = 0, max_steps: int = 8) -> Problem:
    return Problem(
        steps=draw(st.integers(min_steps, max_steps)),
        n_in=draw(st.integers(1, 4)),
        n_out=draw(st.integers(1, 3)),
        batch=draw(st.integers(1, 5)),
        seed=draw(st.integers(0, 2**31)),
        lr=draw(st.sampled_from([0.05, 0.2])),
        momentum=draw(st.sampled_from([0.0, 0.9])),
    )


def stale_grads(model: nn.Module, seed: int) -> None:
    """Leave gradients in `.grad`, as an earlier backward() would."""
    for k, p in enumerate(model.parameters()):
        p.grad = make_tensor(p.shape, p.dtype, seed + 100 + k, p.device)


def plain_loop(model, batches, optimizer) -> list[float]:
    """The loop from the tutorials: correct, and waiting for the GPU every step."""
    losses = []
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


# --- what the kata is handed: an optimizer, a loss function and batches that all report -------

EVENTS: list[str] = []
"""What happened during the call under test, in order: "batch", "batches done", "step",
"transfer Tensor.item" and so on. Cleared by `Watch`."""


class Steps(torch.optim.SGD):
    """SGD that notes each step (and, on CUDA, whether the sync debug mode was on)."""

    def step(self, closure=None):
        on_cuda = any(p.is_cuda for g in self.param_groups for p in g["params"])
        mode = torch.cuda.get_sync_debug_mode() if on_cuda else None
        EVENTS.append("step" if mode in (None, 2) else "step outside the debug mode")
        return super().step(closure)


class Sentinel:
    """Held by the last node of one step's graph: alive exactly as long as that graph is."""


class Tag(torch.autograd.Function):
    """The identity, as the last node of the loss: it holds a Sentinel, and when backward
    reaches it (first of all), it notes whether the model's gradients were cleared."""

    @staticmethod
    def forward(ctx, loss, watch):
        ctx.sentinel = Sentinel()
        ctx.watch = watch
        watch.graphs.append(weakref.ref(ctx.sentinel))
        return loss.clone()

    @staticmethod
    def backward(ctx, grad):
        ctx.watch.grads_at_backward.append(
            [None if p.grad is None else p.grad.detach().clone() for p in ctx.watch.params]
        )
        return grad, None


class Watch:
    """The loss function handed to the kata (MSE, with the step's graph marked), and the
    batches, handed out one at a time."""

    def __init__(self, model: nn.Module) -> None:
        EVENTS.clear()
        self.params = list(model.parameters())
        self.graphs: list[weakref.ref] = []
        self.kept_alive: list[tuple[int, int]] = []  # (step, older step whose graph lives)
        self.grads_at_backward: list[list[torch.Tensor | None]] = []

    def loss_fn(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        step = len(self.graphs)
        if not self.kept_alive:  # one kept graph is enough to say so
            older = [k for k, ref in enumerate(self.graphs[:-1]) if ref() is not None]
            if older:
                gc.collect(1)  # a young reference cycle is not a kept graph: look again
                older = [k for k, ref in enumerate(self.graphs[:-1]) if ref() is not None]
            self.kept_alive += [(step, k) for k in older]
        return Tag.apply(nn.functional.mse_loss(output, target), self)

    def batches(self, batches, debug: bool) -> Iterator[tuple]:
        """Hand out the batches; with `debug` (on CUDA), under the sync debug mode while they
        are handed out. The caller closes this generator when the call ends, however it ends:
        left suspended (the kata raised inside its loop, or stopped early), it would leave the
        mode on for every later test."""
        with sync_debug(debug):
            for batch in batches:
                EVENTS.append("batch")
                yield batch
        EVENTS.append("batches done")


@contextlib.contextmanager
def sync_debug(on: bool) -> Iterator[None]:
    """With `on` (on CUDA), make every synchronizing call raise
    (torch.cuda.set_sync_debug_mode("error"), torch/cuda/__init__.py); otherwise, nothing."""
    if not on:
        yield
        return
    before = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("error")
    try:
        yield
    finally:
        torch.cuda.set_sync_debug_mode(before)


# --- counting host transfers ------------------------------------------------------------------


@contextlib.contextmanager
def host_transfers() -> Iterator[None]:
    """Note each transfer of a tensor's value to the host in EVENTS, as "transfer Tensor.name"
    (or "transfer Tensor.name in torch.tensor")."""
    inside_tensor = [0]
    host_storages: set[int] = set()  # storages of host copies made during the call
    kept: list[torch.Tensor] = []  # keep those copies alive, so their addresses stay theirs

    def storage(t: torch.Tensor) -> int | None:
        try:
            return t.untyped_storage().data_ptr()
        except (RuntimeError, NotImplementedError):
            return None

    def note(name: str, caller) -> None:
        where = " in torch.tensor" if inside_tensor[0] else ""
        EVENTS.append(f"transfer Tensor.{name}{where}")

    def after(name: str, result) -> None:
        if name in ("cpu", "to") and isinstance(result, torch.Tensor):
            host_storages.add(storage(result))
            kept.append(result)

    real_tensor = torch.tensor

    def tensor(*args, **kwargs):
        inside_tensor[0] += 1
        try:
            return real_tensor(*args, **kwargs)
        finally:
            inside_tensor[0] -= 1

    with (
        host_reads(note, skip=lambda name, t, caller: storage(t) in host_storages, after=after),
        mock.patch.object(torch, "tensor", tensor),
    ):
        yield


def transfers(events: list[str] | None = None) -> list[str]:
    """The transfers among `events` (all of EVENTS by default), by name."""
    return [
        e.removeprefix("transfer ")
        for e in (EVENTS if events is None else events)
        if e.startswith("transfer ")
    ]


def tally(names: list[str]) -> str:
    return ", ".join(f"{name} x{n}" for name, n in Counter(names).items())


def what_calls(names: list[str]) -> str:
    """For the conversions among `names` that Python's syntax calls, without a name in the
    code, what calls them (a sentence to append to a message, or "")."""
    if "Tensor.__bool__" not in names:
        return ""
    return (
        ". Tensor.__bool__ is how Python asks a tensor for True or False: an `if`, `while`, "
        "`not`, `and` or `or` on a tensor calls it, and it reads the tensor's value"
    )


# --- running the kata -------------------------------------------------------------------------


def train(
    kata,
    problem: Problem,
    device: torch.device,
    *,
    hint: int,
    debug: bool | None = None,
    why: str = "",
):
    """Run train_and_log on a fresh model that has stale gradients in .grad; return
    (call, losses, model, watch). `debug`: run the loop under the sync debug mode (by default,
    on CUDA). `why`: what the case is, said after an exception the call raised."""
    model = problem.model(device)
    stale_grads(model, problem.seed)
    optimizer = problem.optimizer(model)
    watch = Watch(model)
    batches = watch.batches(
        problem.batches(device), device.type == "cuda" if debug is None else debug
    )
    call = f"train_and_log(model, batches, optimizer, loss_fn) with {problem} on {device}"
    with (
        real_world(device),
        host_transfers(),
        recorded_warnings() as caught,
        contextlib.closing(batches),  # however the call ends, the debug mode ends with it
    ):
        try:
            got = kata.train_and_log(model, batches, optimizer, watch.loss_fn)
        except Exception as err:
            if say.unwritten(err):
                raise
            problem_ = f"raised {type(err).__name__}: {err}{why}"
            if SYNCING in str(err):
                problem_ += (
                    "; the loop ran under torch.cuda.set_sync_debug_mode('error'), so this call "
                    "made the host wait for the GPU"
                )
                hint = 2
            pytest.fail(say(call, problem_, hint=hint), pytrace=False)
    if caught:
        made = transfers()
        also = f"; it also made {len(made)} host transfers ({tally(made)})" if made else ""
        pytest.fail(
            say(
                call,
                f"warned {caught[0].category.__name__}: {caught[0].message}{also}",
                hint=2 if len(made) > 1 else hint,
            ),
            pytrace=False,
        )
    return call, got, model, watch


def check_floats(call: str, got, steps: int) -> None:
    ok = isinstance(got, list) and all(type(v) is float for v in got)
    assert ok, say(call, f"returned {got!r}; expected a list of Python floats", hint=3)
    assert len(got) == steps, say(
        call, f"returned {len(got)} loss(es); expected one per batch, {steps}", hint=3
    )


# --- the cpu tier -----------------------------------------------------------------------------


@SOME
@given(problem=problems(min_steps=1))
@example(problem=Problem(6, 2, 1, 3, 0, 0.05, 0.0))
def test_train_and_log_transfers_once_at_the_end(kata, problem):
    cpu = torch.device("cpu")
    call, got, _, _ = train(kata, problem, cpu, hint=3)
    check_floats(call, got, problem.steps)
    made = transfers()
    if len(made) != 1:
        last_step = max((i for i, e in enumerate(EVENTS) if e.startswith("step")), default=-1)
        ran_out = EVENTS.index("batches done") if "batches done" in EVENTS else len(EVENTS)
        if ran_out > last_step:  # the loop took its batches as it went: it ended when they did
            end, where = ran_out, "during the loop"
        else:  # the batches were all taken first: the loop is what came before the last step
            end, where = last_step, "before the last optimizer step"
        seen = transfers(EVENTS[:end])
        during = len(seen)
        hint = 1
        if any(name.endswith("in torch.tensor") for name in made):
            extra = (
                "; torch.tensor(list of tensors) reads every element with float(), one "
                "transfer per loss, and on a GPU each one makes the host wait"
            )
            hint = 2
        elif during:
            if all(name.startswith("Tensor.to(non_blocking=True)") for name in seen):
                why = (
                    ". A copy to the host with non_blocking=True does not wait as it is made, "
                    "but its values are there only once the host has waited for the GPU, and "
                    "each one is a transfer of its own: the log needs one, after the last step"
                )
            else:
                why = (
                    f"{what_calls(seen)}. Each one hands a value that lives on the device to "
                    "the host, so on a GPU the host stops and waits for the GPU to finish "
                    "everything queued so far, every step"
                )
            extra = f"; {'all' if during == len(made) else during} of them {where}{why}"
        elif made:
            extra = (
                "; all after the loop, but one per loss. Each read of a value on the device "
                "is a copy to the host that the host waits for, so on a GPU that is one wait "
                "per loss, not one for the log"
            )
            hint = 2
        else:
            extra = "; the losses must come back to the host as Python floats, once"
            hint = 2
        pytest.fail(
            say(
                call,
                f"made {len(made)} host transfers ({tally(made)}) for {problem.steps} step(s); "
                f"expected exactly one, after the last step{extra}",
                hint=hint,
            ),
            pytrace=False,
        )
    last_step = max((i for i, e in enumerate(EVENTS) if e.startswith("step")), default=-1)
    first = next(i for i, e in enumerate(EVENTS) if e.startswith("transfer"))
    assert first > last_step, say(
        call,
        f"made its one transfer ({made[0]}) before the last optimizer step; the log moves to "
        "the host once, after the loop",
        hint=3,
    )


@GIVEN
def test_train_and_log_of_no_batches_is_an_empty_list(kata):
    empty = (
        "; no batches is a pass of no steps: its log is the empty list, and there is no loss on "
        "the device to read back"
    )
    cpu = torch.device("cpu")
    call, got, _, _ = train(kata, Problem(0, 3, 1, 2, 7, 0.05, 0.0), cpu, hint=3, why=empty)
    assert got == [] and isinstance(got, list), say(
        call, f"returned {got!r}; expected []{empty}", hint=3
    )
    assert not transfers(), say(
        call, f"made host transfers ({tally(transfers())}) with nothing to log", hint=3
    )


@GIVEN
@SOME
@given(problem=problems(min_steps=1, max_steps=6))
def test_train_and_log_matches_a_plain_loop(kata, problem):
    cpu = torch.device("cpu")
    twin = problem.model(cpu)
    stale_grads(twin, problem.seed)
    want = plain_loop(twin, problem.batches(cpu), problem.optimizer(twin))
    before = [p.detach().clone() for p in problem.model(cpu).parameters()]
    call, got, model, _ = train(kata, problem, cpu, hint=3)
    check_floats(call, got, problem.steps)
    wrong = [
        k
        for k, (a, b) in enumerate(zip(got, want, strict=True))
        if not math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-7)
    ]
    assert not wrong, say(
        call,
        f"returned losses {got}; a plain loop (loss.item() every step) on the same model logs "
        f"{want}, which differ from step {wrong[0]} on",
        hint=3,
    )
    params = [p.detach() for p in model.parameters()]
    assert any(not torch.equal(a, b) for a, b in zip(params, before, strict=True)), say(
        call,
        "left every parameter as it was; it must train the model, as the given loop does",
        hint=3,
    )
    same = all(
        torch.allclose(a, b.detach(), rtol=1e-5, atol=1e-6)
        for a, b in zip(params, twin.parameters(), strict=True)
    )
    assert same, say(
        call, "trained the parameters to other values than a plain loop on the same model", hint=3
    )


@GIVEN
@SOME
@given(problem=problems(min_steps=1, max_steps=6))
def test_train_and_log_clears_gradients_every_step(kata, problem):
    call, _, _, watch = train(kata, problem, torch.device("cpu"), hint=3)
    for step, grads in enumerate(watch.grads_at_backward):
        leftover = [g for g in grads if g is not None and bool(g.any())]
        assert not leftover, say(
            call,
            f"started backward() at step {step} with gradients still in .grad from before; "
            "backward() adds to .grad, so that step's gradients were summed with older ones "
            "and its update used them all",
            hint=3,
        )
    assert len(watch.grads_at_backward) == problem.steps, say(
        call,
        f"called backward() {len(watch.grads_at_backward)} time(s); expected once per batch",
        hint=3,
    )


@GIVEN
@SOME
@given(problem=problems(min_steps=3, max_steps=8))
def test_train_and_log_keeps_no_graph_alive(kata, problem):
    call, _, _, watch = train(kata, problem, torch.device("cpu"), hint=2)
    if watch.kept_alive:
        step, older = watch.kept_alive[0]
        pytest.fail(
            say(
                call,
                f"still held the autograd graph of step {older} when step {step} began. A "
                "loss tensor holds, through its grad_fn, the whole graph of its step (every "
                "activation saved for backward()), so whatever keeps the tensor keeps the "
                "graph: memory grows by a whole step's graph per step, not by one number",
                hint=2,
            ),
            pytrace=False,
        )


NOT_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


@st.composite
def bad_passes(draw) -> tuple[Problem, int, str]:
    """A problem, the step whose target holds a value that is not finite, and that value."""
    problem = draw(problems(min_steps=1, max_steps=6))
    step = draw(st.integers(0, problem.steps - 1))
    return problem, step, draw(st.sampled_from(sorted(NOT_FINITE)))


@GIVEN
@SOME
@given(case=bad_passes())
@example(case=(Problem(4, 2, 1, 3, 0, 0.05, 0.0), 2, "nan"))
def test_train_and_log_names_the_first_step_whose_loss_is_not_finite(kata, case):
    problem, step, bad = case
    cpu = torch.device("cpu")
    model = problem.model(cpu)
    batches = problem.batches(cpu)
    batches[step][1][0, 0] = NOT_FINITE[bad]  # one target: the loss of that step is not finite
    call = (
        f"train_and_log(model, batches, optimizer, nn.MSELoss()) with {problem}, where batch "
        f"{step}'s y holds {bad}"
    )
    with say.raises(ValueError, call, hint=3) as raised:
        kata.train_and_log(model, iter(batches), problem.optimizer(model), nn.MSELoss())
    message = str(raised.value)
    assert re.search(rf"\bstep {step}\b", message), say(
        call,
        f"raised ValueError({message!r}); expected a message that names step {step}, the first "
        "step whose loss is not finite",
        hint=3,
    )


BATCHES_ELSEWHERE = {
    "x on meta": lambda x, y: (x.to("meta"), y),
    "y on meta": lambda x, y: (x, y.to("meta")),
}


@GIVEN
@pytest.mark.parametrize("where", BATCHES_ELSEWHERE)
def test_train_and_log_refuses_a_batch_on_another_device(kata, where):
    problem = Problem(3, 2, 1, 2, 5, 0.05, 0.0)
    model = problem.model(torch.device("cpu"))
    batches = problem.batches(torch.device("cpu"))
    batches[1] = BATCHES_ELSEWHERE[where](*batches[1])
    call = f"train_and_log(model on cpu, batches with batch 1's {where}, optimizer, loss_fn)"
    with say.raises(ValueError, call, hint=3) as raised:
        kata.train_and_log(model, iter(batches), problem.optimizer(model), nn.MSELoss())
    message = str(raised.value)
    assert "meta" in message and "cpu" in message, say(
        call, f"raised ValueError({message!r}), which does not name both devices", hint=3
    )


# --- the cuda tier, whose body also runs on cpu -----------------------------------------------


@FEW
@given(problem=problems(min_steps=1, max_steps=6))
def test_the_loop_never_waits_for_the_device(kata, device, problem):
    call, got, _, _ = train(kata, problem, device, hint=2)
    check_floats(call, got, problem.steps)
    steps = [i for i, e in enumerate(EVENTS) if e.startswith("step")]
    done = EVENTS.index("batches done") if "batches done" in EVENTS else len(EVENTS)
    assert len(steps) == problem.steps and all(i < done for i in steps), say(
        call,
        "trained after reading every batch; train on each batch as it arrives (a DataLoader "
        "may not hold the whole dataset in memory)",
        hint=3,
    )
    assert "step outside the debug mode" not in EVENTS, say(
        call, "stepped the optimizer outside the loop over the batches", hint=3
    )
    made = transfers()
    assert len(made) == 1, say(
        call,
        f"made {len(made)} host transfers ({tally(made)}); expected exactly one{what_calls(made)}",
        hint=1,
    )
