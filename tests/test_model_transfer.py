"""Tests for katas/model_transfer.py.

The cpu tier uses the `meta` device as a second device (tensors with a shape and no data), so
moves and mixed-device models can be seen without a GPU, and loads checkpoints tagged `cuda:0`
(built by tests/data/model_transfer/make_checkpoint.py) on a machine made to look GPU-less.
Machines with 0 to 8 simulated GPUs (tests.support.fake_gpus, never allocated on) are asked
for devices that do not exist. The cuda tier moves a model to a real GPU, trains it there and
brings it back.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import pickle
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from tests.data.model_transfer.make_checkpoint import (
    TRIPPED,
    code_running_checkpoint,
    cuda_tagged_checkpoint,
)
from tests.strategies import (
    cpu_spellings,
    device_spellings,
    gpu_counts,
    make_tensor,
    missing_devices,
)
from tests.support import (
    Say,
    describe,
    fake_gpus,
    names_the_device,
    plain_repr,
    quotes,
    real_world,
    same_device,
    tensors_of,
    where,
)

say = Say(__name__)
pytestmark = [
    pytest.mark.filterwarnings("error"),
    # `float(loss)` is a fine way to read the loss; torch warns about it once per process
    # (TORCH_WARN_ONCE), so whether it fails must not depend on which test ran first.
    pytest.mark.filterwarnings(
        "ignore:Converting a tensor with requires_grad=True to a scalar:UserWarning"
    ),
]

CUDA_ON_CPU_HOST = "Attempting to deserialize object on a CUDA device"


# --- models: parameters, buffers, submodules ---------------------------------------------------


class Scale(nn.Module):
    """A learned scale next to a plain registered buffer (an offset that is not trained)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(n))
        self.register_buffer("offset", torch.arange(n, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale + self.offset


class RunningMean(nn.Module):
    """Buffers only, no parameter: a running mean and a step counter (like BatchNorm's)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(n))
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x - self.mean


class Masked(nn.Module):
    """A linear layer whose weight is masked by a buffer registered with persistent=False, as
    attention layers keep their causal masks: the forward pass reads it and `Module.to` moves
    it, but the state_dict leaves it out."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.linear = nn.Linear(n, n)
        self.register_buffer("mask", torch.ones(n, n).tril(), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.linear(x, self.linear.weight * self.mask, self.linear.bias)


def build(kind: str, n_in: int, n_hidden: int, n_out: int) -> nn.Module:
    if kind == "linear":
        return nn.Linear(n_in, n_out)
    if kind == "mlp with batchnorm":
        return nn.Sequential(
            nn.Linear(n_in, n_hidden),
            nn.BatchNorm1d(n_hidden),
            nn.ReLU(),
            nn.Linear(n_hidden, n_out),
        )
    if kind == "linear then scale":
        return nn.Sequential(nn.Linear(n_in, n_hidden), Scale(n_hidden))
    if kind == "nested":
        return nn.Sequential(
            nn.Sequential(nn.Linear(n_in, n_hidden), nn.BatchNorm1d(n_hidden)),
            RunningMean(n_hidden),
        )
    if kind == "buffers only":
        return RunningMean(n_in)
    raise AssertionError(kind)


SPREADABLE = ("mlp with batchnorm", "linear then scale", "nested")
"""Kinds with two or more submodules that hold tensors, so one can sit on another device."""
KINDS = ("linear", *SPREADABLE, "buffers only")
BUFFERS_FIRST = ("buffers only", "linear", *SPREADABLE)
"""The same kinds, but hypothesis shrinks towards the first: a failure then shows a buffer."""
sizes = st.integers(1, 4)


@plain_repr
@dataclass(frozen=True)
class Arch:
    """A model architecture; `make()` builds a fresh model on the CPU."""

    kind: str
    n_in: int
    n_hidden: int
    n_out: int

    def __str__(self) -> str:
        return f"{self.kind} ({self.n_in}->{self.n_hidden}->{self.n_out})"

    def make(self) -> nn.Module:
        return build(self.kind, self.n_in, self.n_hidden, self.n_out)


def archs(kinds=KINDS):
    return st.builds(Arch, st.sampled_from(kinds), sizes, sizes, sizes)


def check_names_the_split(call: str, message: str, model: nn.Module) -> None:
    """A spread model's message names both devices, and lists every name on one of them (all
    names under each device, or just those left behind: either lets the reader find them)."""
    on: dict[str, list[str]] = {}
    for name, t in tensors_of(model):
        on.setdefault(t.device.type, []).append(name)
    unnamed = [d for d in on if d not in message]
    assert not unnamed, say(
        call,
        f"raised ValueError({message!r}), which does not name the device(s) "
        f"{', '.join(unnamed)}; say which names sit on which device ({where(model)})",
        hint=3,
    )
    sides = {d: [n for n in names if n not in message] for d, names in on.items()}
    assert any(not missing for missing in sides.values()), say(
        call,
        f"raised ValueError({message!r}), which leaves out "
        + " or ".join(f"{', '.join(missing)} (on {d})" for d, missing in sides.items())
        + f"; say which names sit on which device ({where(model)})",
        hint=3,
    )


SPREAD = (
    "A model's device is the device of all its tensors, its parameters and its buffers alike, "
    "and one tensor says nothing about the others: a model whose tensors sit on two devices has "
    "no one device"
)


def expect_spread(kata, call: str, model: nn.Module, lesson: str = SPREAD) -> str:
    """model_device(model) for a model on two devices: a ValueError; returns its message.
    `lesson` says why, when model_device returns instead."""
    with say.raises(ValueError, call, hint=1) as raised:
        got = kata.model_device(model)
        pytest.fail(
            say(
                call,
                f"returned {got!r}, but the model is on two devices ({where(model)}). {lesson}. "
                "Expected a ValueError",
                hint=1,
            ),
            pytrace=False,
        )
    return str(raised.value)


def scramble(model: nn.Module, seed: int) -> nn.Module:
    """Give every parameter and buffer fresh values, so two models can be told apart."""
    with torch.no_grad():
        for k, (_, t) in enumerate(tensors_of(model)):
            t.copy_(make_tensor(t.shape, t.dtype, seed + k))
    return model


# --- model_device -----------------------------------------------------------------------------


@given(arch=archs(), on=st.sampled_from(["cpu", "meta"]))
def test_model_device_names_the_device_of_a_model_on_one_device(kata, arch, on):
    model = arch.make()
    model.to(on)
    call = f"model_device({arch} on {on})"
    what = "buffers" if arch.kind == "buffers only" else "parameters and buffers"
    got = say.call(
        call, kata.model_device, model, hint=1, expected=f"{on}, where all its {what} are"
    )
    assert isinstance(got, torch.device), say(
        call, f"returned {got!r}, a {type(got).__name__}; expected a torch.device", hint=1
    )
    assert got == torch.device(on), say(call, f"returned {got}; expected {on}", hint=1)


@given(data=st.data(), arch=archs(SPREADABLE))
def test_model_device_refuses_a_model_spread_across_devices(kata, data, arch):
    model = arch.make()
    holders = [name for name, child in model.named_children() if tensors_of(child)]
    moved = data.draw(
        st.lists(st.sampled_from(holders), min_size=1, max_size=len(holders) - 1, unique=True),
        label="submodules on meta",
    )
    for name in moved:
        model.get_submodule(name).to("meta")
    call = f"model_device({arch} with submodule(s) {', '.join(moved)} on meta)"
    check_names_the_split(call, expect_spread(kata, call, model), model)


@given(data=st.data(), arch=archs(SPREADABLE))
def test_model_device_counts_buffers(kata, data, arch):
    model = arch.make()
    name = data.draw(st.sampled_from([n for n, _ in model.named_buffers()]), label="buffer")
    owner, _, leaf = name.rpartition(".")
    module = model.get_submodule(owner)
    setattr(module, leaf, getattr(module, leaf).to("meta"))  # replaces the registered buffer
    call = f"model_device({arch} with only the buffer {name} on meta)"
    lesson = (
        f"{name} is a buffer: a tensor the model keeps and does not learn (BatchNorm's running "
        "statistics, say). The model computes with it and saves it in its state_dict, so it is "
        "as much the model's as a parameter, and the model's device is the device of all of them"
    )
    check_names_the_split(call, expect_spread(kata, call, model, lesson), model)


@pytest.mark.parametrize("n", [1, 3])
def test_model_device_counts_buffers_the_state_dict_leaves_out(kata, n):
    model = Masked(n)
    model.mask = model.mask.to("meta")  # still the registered, non-persistent buffer
    assert "mask" not in model.state_dict()
    call = f"model_device(a Linear({n}, {n}) masked by a buffer, mask, on meta)"
    lesson = (
        "mask is a buffer registered with persistent=False (as attention layers keep their "
        "masks): the state_dict leaves it out, but the forward pass reads it and model.to() "
        "moves it, so it is as much the model's as a parameter, and the model's device is the "
        "device of all of them"
    )
    check_names_the_split(call, expect_spread(kata, call, model, lesson), model)


NO_TENSORS = {
    "nn.ReLU()": nn.ReLU,
    "nn.Sequential()": nn.Sequential,
    "nn.Sequential(nn.Flatten(), nn.Identity())": lambda: nn.Sequential(
        nn.Flatten(), nn.Identity()
    ),
}


@pytest.mark.parametrize("empty", NO_TENSORS)
def test_model_device_refuses_a_model_without_tensors(kata, empty):
    with say.raises(ValueError, f"model_device({empty})", hint=3):
        kata.model_device(NO_TENSORS[empty]())


# --- move_model -------------------------------------------------------------------------------


@given(data=st.data(), arch=archs(BUFFERS_FIRST))
def test_move_model_moves_parameters_and_buffers(kata, data, arch):
    model = arch.make()
    holders = [name for name, child in model.named_children() if tensors_of(child)]
    already = data.draw(
        st.lists(st.sampled_from(holders), unique=True) if holders else st.just([]),
        label="submodules already on meta",
    )
    for name in already:
        model.get_submodule(name).to("meta")
    requires_grad = {name: p.requires_grad for name, p in model.named_parameters()}
    call = f"move_model({arch}, 'meta')"
    got = say.call(
        call,
        lambda: kata.move_model(model, "meta"),
        expected="every parameter and buffer on meta",
        hint=1,
    )
    assert got is model, say(
        call, f"returned another {type(got).__name__} object; expected the model itself", hint=2
    )
    left = [name for name, t in tensors_of(model) if t.device.type != "meta"]
    assert not left, say(
        call,
        f"left {', '.join(left)} behind ({where(model)}); parameters and buffers must all move",
        hint=1,
    )
    for name, p in model.named_parameters():
        assert isinstance(p, nn.Parameter) and p.requires_grad == requires_grad[name], say(
            call,
            f"turned the parameter {name} into {describe(p)}, a {type(p).__name__} with "
            f"requires_grad={p.requires_grad}; expected the same nn.Parameter, "
            f"requires_grad={requires_grad[name]}",
            hint=2,
        )


@given(arch=archs(), spelling=cpu_spellings())
def test_move_model_keeps_the_module_and_every_parameter(kata, arch, spelling):
    model = arch.make()
    params = list(model.parameters())
    ids = [id(p) for p in params]
    optimizer = torch.optim.SGD(params, lr=0.1) if params else None
    call = f"move_model({arch}, {spelling!r})"
    got = kata.move_model(model, spelling)
    assert got is model, say(
        call,
        f"returned another {type(got).__name__} (a copy?); expected the very model it was given, "
        "moved in place",
        hint=2,
    )
    now = [id(p) for p in model.parameters()]
    assert now == ids, say(
        call,
        "replaced Parameter objects (ids before and after differ); an optimizer built before "
        "the move would now update Parameters the model no longer has",
        hint=2,
    )
    if optimizer is not None:
        held = optimizer.param_groups[0]["params"]
        assert all(a is b for a, b in zip(held, model.parameters(), strict=True)), say(
            call, "left the optimizer holding Parameters that are not the model's", hint=2
        )
    left = [name for name, t in tensors_of(model) if t.device.type != "cpu"]
    assert not left, say(call, f"left {', '.join(left)} off the CPU ({where(model)})", hint=1)


@contextlib.contextmanager
def swapping_parameters() -> Iterator[None]:
    """`torch.__future__.set_swap_module_params_on_conversion(True)` for the block: then
    `Module._apply` keeps every Parameter object even on `meta`, swapping its contents in place
    (`torch.utils.swap_tensors`), as it keeps them between devices with data by assigning
    `param.data`. A move to meta becomes a real move whose identity can be observed."""
    before = torch.__future__.get_swap_module_params_on_conversion()
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        yield
    finally:
        torch.__future__.set_swap_module_params_on_conversion(before)


@given(arch=archs(), spelling=st.sampled_from(["meta", torch.device("meta"), "meta:0"]))
def test_move_model_keeps_every_parameter_when_it_moves(kata, arch, spelling):
    """On a machine with a GPU, a move to cuda keeps each Parameter (`Module._apply` assigns
    `param.data`; the cuda tier checks it). Without a GPU, the move is to meta, with torch set to
    keep Parameters there too (`swapping_parameters`): a move_model that makes new Parameters
    whenever the device changes is seen here."""
    model = arch.make()
    params = list(model.parameters())
    optimizer = torch.optim.SGD(params, lr=0.1) if params else None
    call = (
        f"move_model({arch}, {spelling!r}) with "
        "torch.__future__.set_swap_module_params_on_conversion(True)"
    )
    with swapping_parameters():
        got = say.call(call, lambda: kata.move_model(model, spelling), hint=2)
    assert got is model, say(
        call, f"returned another {type(got).__name__}; expected the model itself", hint=2
    )
    now = list(model.parameters())
    replaced = [
        name
        for (name, p), old in zip(model.named_parameters(), params, strict=True)
        if p is not old
    ]
    assert len(now) == len(params) and not replaced, say(
        call,
        f"replaced the Parameter objects {', '.join(replaced) or '(a different number)'} while "
        "moving to meta; with that setting on, torch itself keeps them, so these were made "
        "anew, and an optimizer built before the move would update Parameters the model no "
        "longer has",
        hint=2,
    )
    left = [name for name, t in tensors_of(model) if t.device.type != "meta"]
    assert not left, say(call, f"left {', '.join(left)} behind ({where(model)})", hint=1)
    if optimizer is not None:
        held = optimizer.param_groups[0]["params"]
        assert all(a is b for a, b in zip(held, model.parameters(), strict=True)), say(
            call, "left the optimizer holding Parameters that are not the model's", hint=2
        )


def expect_value_error(call: str, run, named: str | torch.device, hint: int) -> str:
    """Run `run()`; expect a ValueError that names `named`. Returns the message."""
    try:
        got = run()
    except ValueError as err:
        message = str(err)
    except Exception as err:
        if say.unwritten(err):
            raise
        pytest.fail(
            say(
                call,
                f"raised {type(err).__name__}: {err}; expected a ValueError that names "
                f"{named}, which does not exist in this process",
                hint=hint,
            ),
            pytrace=False,
        )
    else:
        pytest.fail(
            say(
                call,
                f"returned {type(got).__name__}; {named} does not exist in this process, so "
                "expected a ValueError that names it",
                hint=hint,
            ),
            pytrace=False,
        )
    assert names_the_device(message, named), say(
        call, f"raised ValueError({message!r}), which does not name {named}", hint=hint
    )
    return message


@pytest.mark.given
@given(data=st.data(), arch=archs(), n=gpu_counts)
def test_move_model_refuses_a_device_that_does_not_exist(kata, data, arch, n):
    drawn = data.draw(missing_devices(n), label="device")
    # meta:1 always: a second meta is one torch itself moves to, so a move made before the
    # check shows whatever the draw.
    for missing in (drawn, "meta:1"):
        model = arch.make()
        before = {name: t.detach().clone() for name, t in tensors_of(model)}
        call = f"move_model({arch}, {missing!r}) with {n} GPU(s)"
        with fake_gpus(n):
            run = functools.partial(kata.move_model, model, missing)
            expect_value_error(call, run, missing, hint=1)
        moved = [name for name, t in tensors_of(model) if t.device.type != "cpu"]
        changed = (
            [] if moved else [nm for nm, t in tensors_of(model) if not torch.equal(t, before[nm])]
        )
        assert not moved and not changed, say(
            call,
            f"moved or changed {', '.join(moved or changed)} before refusing ({where(model)}); "
            "the contract refuses a device that does not exist before anything moves, so that "
            "a caller who catches the error still has the model as it was",
            hint=3,
        )


BAD_DEVICES = ["gpu", "GPU", "cuda:x", " cpu", "cpu0", "", "cpu:-1"]


@pytest.mark.given
@given(arch=archs(), text=st.sampled_from(BAD_DEVICES), function=st.sampled_from(["move", "load"]))
def test_move_model_and_load_checkpoint_reject_a_device_they_cannot_parse(
    kata, arch, text, function
):
    model = arch.make()
    if function == "move":
        call, run = f"move_model({arch}, {text!r})", lambda: kata.move_model(model, text)
    else:
        source = io.BytesIO(cuda_tagged_checkpoint(model.state_dict()))
        call = f"load_checkpoint(<checkpoint>, {arch}, {text!r})"
        run = lambda: kata.load_checkpoint(source, model, text)  # noqa: E731
    with say.raises(ValueError, call, hint=2) as raised:
        run()
    assert quotes(str(raised.value), text), say(
        call,
        f"raised ValueError({str(raised.value)!r}), which does not quote the device {text!r} "
        "(between quote marks, as {device!r} in an f-string does)",
        hint=2,
    )


WRONG_TYPES = {
    "model_device(a tensor)": lambda kata: kata.model_device(torch.zeros(2)),
    "model_device(a state_dict)": lambda kata: kata.model_device(nn.Linear(2, 2).state_dict()),
    "move_model(a state_dict, 'cpu')": lambda kata: kata.move_model(
        nn.Linear(2, 2).state_dict(), "cpu"
    ),
    "move_model(model, 1.5)": lambda kata: kata.move_model(nn.Linear(2, 2), 1.5),
    "move_model(model, None)": lambda kata: kata.move_model(nn.Linear(2, 2), None),
    # torch.device(0) would read an int as the current accelerator; the contract asks for a name
    "move_model(model, 0)": lambda kata: kata.move_model(nn.Linear(2, 2), 0),
    "load_checkpoint(f, model, 0)": lambda kata: kata.load_checkpoint(
        io.BytesIO(b""), nn.Linear(2, 2), 0
    ),
    "train_step(..., inputs=a list, targets)": lambda kata: kata.train_step(
        nn.Linear(2, 1),
        torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1),
        nn.MSELoss(),
        [[1.0, 2.0]],
        torch.zeros(1, 1),
    ),
    "train_step(..., inputs, targets=a float)": lambda kata: kata.train_step(
        nn.Linear(2, 1),
        torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1),
        nn.MSELoss(),
        torch.zeros(1, 2),
        0.5,
    ),
}


@pytest.mark.given
@pytest.mark.parametrize("call", WRONG_TYPES)
def test_refuses_arguments_of_the_wrong_type(kata, call):
    with say.raises(TypeError, call, hint=3):
        WRONG_TYPES[call](kata)


# --- train_step: one hand-computed SGD step ---------------------------------------------------


def linear_model(n_in: int, n_out: int, seed: int) -> nn.Linear:
    model = nn.Linear(n_in, n_out, dtype=torch.float64)
    with torch.no_grad():
        model.weight.copy_(make_tensor((n_out, n_in), torch.float64, seed))
        model.bias.copy_(make_tensor((n_out,), torch.float64, seed + 1))
    return model


def sgd_by_hand(weight, bias, x, y, lr, reduction):
    """Loss and updated (weight, bias) of one SGD step on MSE, with the gradient worked out."""
    residual = x @ weight.T + bias - y
    if reduction == "mean":
        loss, grad_out = (residual**2).mean(), 2 * residual / residual.numel()
    else:
        loss, grad_out = (residual**2).sum(), 2 * residual
    grad_weight, grad_bias = grad_out.T @ x, grad_out.sum(0)
    return loss.item(), weight - lr * grad_weight, bias - lr * grad_bias


@st.composite
def regression_problems(draw):
    n_in, n_out, batch = draw(sizes), draw(sizes), draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**31))
    x = make_tensor((batch, n_in), torch.float64, seed + 2)
    y = make_tensor((batch, n_out), torch.float64, seed + 3)
    return linear_model(n_in, n_out, seed), x, y


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.allclose(a, b, rtol=1e-9, atol=1e-12)


def check_step(call, model, got, want_loss, want_weight, want_bias, hint=3, piled=None):
    """`piled`: the (weight, bias) a step would leave if it took the gradients already in
    .grad along with this batch's; when the model holds those, the message says so."""
    assert type(got) is float, say(
        call,
        f"returned {got!r}, a {type(got).__name__}; expected the loss as a Python float, "
        "which holds no autograd graph and no device memory, whatever device the step ran on",
        hint=hint,
    )
    assert math.isclose(got, want_loss, rel_tol=1e-9, abs_tol=1e-12), say(
        call, f"returned {got}; the loss of this batch before the step is {want_loss}", hint=hint
    )
    ok = close(model.weight.detach(), want_weight) and close(model.bias.detach(), want_bias)
    if not ok and piled is not None:
        took_old = close(model.weight.detach(), piled[0]) and close(model.bias.detach(), piled[1])
        assert not took_old, say(
            call,
            "moved the weights by this batch's gradient plus the gradients .grad already held: "
            "backward() adds each gradient into .grad, it does not replace what is there, so a "
            "step takes whatever an earlier backward() left along with this batch's"
            f"\n got weight {model.weight.detach().tolist()}"
            f"\nwant weight {want_weight.tolist()}",
            hint=hint,
        )
    assert ok, say(
        call,
        "left the weights different from one SGD step, w - lr * grad, with the gradient of "
        f"this batch only:\n got weight {model.weight.detach().tolist()}"
        f"\nwant weight {want_weight.tolist()}",
        hint=hint,
    )


@given(
    problem=regression_problems(),
    lr=st.floats(0.001, 1.0),
    reduction=st.sampled_from(["mean", "sum"]),
)
def test_train_step_is_one_sgd_step(kata, problem, lr, reduction):
    model, x, y = problem
    want = sgd_by_hand(model.weight.detach(), model.bias.detach(), x, y, lr, reduction)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    call = f"train_step(Linear, SGD(lr={lr}), MSELoss(reduction={reduction!r}), x, y)"
    got = kata.train_step(model, optimizer, nn.MSELoss(reduction=reduction), x, y)
    check_step(call, model, got, *want)


@given(data=st.data(), problem=regression_problems(), lr=st.floats(0.001, 0.5))
def test_train_step_twice_uses_fresh_gradients(kata, data, problem, lr):
    model, x1, y1 = problem
    seed = data.draw(st.integers(0, 2**31), label="second batch seed")
    x2 = make_tensor(x1.shape, torch.float64, seed)
    y2 = make_tensor(y1.shape, torch.float64, seed + 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    w0, b0 = model.weight.detach().clone(), model.bias.detach().clone()
    _, w1, b1 = sgd_by_hand(w0, b0, x1, y1, lr, "mean")
    want = sgd_by_hand(w1, b1, x2, y2, lr, "mean")
    piled = (want[1] - (w0 - w1), want[2] - (b0 - b1))  # the first batch's step taken again
    kata.train_step(model, optimizer, loss_fn, x1, y1)
    got = kata.train_step(model, optimizer, loss_fn, x2, y2)
    call = "train_step(...) called a second time, on a new batch,"
    check_step(call, model, got, *want, hint=1, piled=piled)


@given(problem=regression_problems(), lr=st.floats(0.001, 1.0), seed=st.integers(0, 2**31))
def test_train_step_ignores_stale_gradients(kata, problem, lr, seed):
    model, x, y = problem
    want = sgd_by_hand(model.weight.detach(), model.bias.detach(), x, y, lr, "mean")
    for k, p in enumerate(model.parameters()):  # left over from, say, an earlier backward()
        p.grad = make_tensor(p.shape, p.dtype, seed + k)
    piled = (want[1] - lr * model.weight.grad, want[2] - lr * model.bias.grad)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    call = "train_step(...) on a model whose .grad already held old gradients"
    got = kata.train_step(model, optimizer, nn.MSELoss(), x, y)
    check_step(call, model, got, *want, hint=1, piled=piled)


@given(problem=regression_problems(), lr=st.floats(0.001, 1.0))
def test_train_step_refuses_a_loss_that_is_not_one_number(kata, problem, lr):
    model, x, y = problem
    if x.shape[0] * y.shape[1] < 2:  # one element is one number, whatever its shape
        x, y = torch.cat([x, x]), torch.cat([y, y])
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    call = "train_step(Linear, SGD, MSELoss(reduction='none'), x, y)"
    with say.raises(ValueError, call, hint=3):
        try:
            kata.train_step(model, optimizer, nn.MSELoss(reduction="none"), x, y)
        except RuntimeError as err:  # backward() of a tensor: "grad can be implicitly created..."
            pytest.fail(
                say(
                    call,
                    f"let torch's RuntimeError escape ({err}); a loss of shape "
                    f"{tuple(y.shape)} is not one number: expected your own ValueError",
                    hint=3,
                ),
                pytrace=False,
            )
    changed = [
        name
        for (name, p), b in zip(model.named_parameters(), before, strict=True)
        if not torch.equal(p.detach(), b)
    ]
    assert not changed, say(call, f"changed {', '.join(changed)} before refusing", hint=3)


# --- load_checkpoint --------------------------------------------------------------------------


def same_state(model: nn.Module, state: dict[str, torch.Tensor]) -> list[str]:
    """Names whose values in `model` differ from `state`."""
    mine = model.state_dict()
    return [k for k, v in state.items() if not torch.equal(mine[k].cpu(), v.cpu())]


def check_loaded(call, got, model, ids, state, device) -> None:
    assert got is model, say(
        call, f"returned another {type(got).__name__}; expected the model it was given", hint=2
    )
    off = [name for name, t in tensors_of(model) if not same_device(t.device, device)]
    assert not off, say(call, f"left {', '.join(off)} off {device} ({where(model)})", hint=3)
    differ = same_state(model, state)
    assert not differ, say(
        call, f"left {', '.join(differ)} different from the checkpoint's values", hint=3
    )
    assert [id(p) for p in model.parameters()] == ids, say(
        call,
        "replaced the model's Parameter objects; an optimizer built before the load holds the "
        "old ones, and would go on updating Parameters the model no longer has",
        hint=2,
    )


@given(
    arch=archs(),
    seed=st.integers(0, 2**31),
    source_kind=st.sampled_from(["open file", "str path", "pathlib.Path", "BytesIO"]),
)
@settings(max_examples=40)
def test_load_checkpoint_loads_into_the_same_model(kata, arch, seed, source_kind):
    state = scramble(arch.make(), seed).state_dict()
    model = arch.make()
    ids = [id(p) for p in model.parameters()]
    call = f"load_checkpoint(<{source_kind}>, {arch}, 'cpu')"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "checkpoint.pt"
        torch.save(state, path)
        if source_kind == "BytesIO":
            got = kata.load_checkpoint(io.BytesIO(path.read_bytes()), model, "cpu")
        elif source_kind == "open file":
            with path.open("rb") as f:
                got = kata.load_checkpoint(f, model, "cpu")
        else:
            source = str(path) if source_kind == "str path" else path
            got = kata.load_checkpoint(source, model, "cpu")
    check_loaded(call, got, model, ids, state, torch.device("cpu"))


@given(arch=archs(), seed=st.integers(0, 2**31), spelling=cpu_spellings())
@settings(max_examples=40)
def test_load_checkpoint_reads_a_gpu_checkpoint_on_a_cpu_host(kata, arch, seed, spelling):
    state = scramble(arch.make(), seed).state_dict()
    saved_on_gpu = cuda_tagged_checkpoint(state)
    model = arch.make()
    ids = [id(p) for p in model.parameters()]
    call = f"load_checkpoint(<checkpoint saved on cuda:0>, {arch}, {spelling!r}) on a CPU-only host"
    with fake_gpus(0):
        # The checkpoint really is one from a GPU: torch.load without map_location refuses it.
        with pytest.raises(RuntimeError, match=CUDA_ON_CPU_HOST):
            torch.load(io.BytesIO(saved_on_gpu), weights_only=True)
        got = say.call(
            call,
            lambda: kata.load_checkpoint(io.BytesIO(saved_on_gpu), model, spelling),
            expected=f"the checkpoint's values on {spelling!r}: each tensor in it remembers the "
            "GPU it was saved on, which this host does not have",
            hint=2,
        )
    check_loaded(call, got, model, ids, state, torch.device("cpu"))


@given(arch=archs(), seed=st.integers(0, 2**31))
@settings(max_examples=20)
def test_load_checkpoint_refuses_a_checkpoint_that_runs_code(kata, arch, seed):
    state = scramble(arch.make(), seed).state_dict()
    rigged = code_running_checkpoint(state)
    model = arch.make()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    tripped = len(TRIPPED)
    call = f"load_checkpoint(<checkpoint whose unpickling calls a function>, {arch}, 'cpu')"
    try:
        kata.load_checkpoint(io.BytesIO(rigged), model, "cpu")
    except NotImplementedError:
        raise
    except pickle.UnpicklingError:
        refused = True
    except Exception as err:
        pytest.fail(
            say(
                call,
                f"raised {type(err).__name__}: {err}; the contract's refusal is the error "
                "torch.load itself raises for a file that would run code, "
                "pickle.UnpicklingError, so that a caller can tell this refusal from other "
                "failures",
                hint=2,
            ),
            pytrace=False,
        )
    else:
        refused = False
    assert len(TRIPPED) == tripped, say(
        call,
        "ran code stored in the checkpoint while loading it: unpickling a file runs whatever "
        "code it names, so a checkpoint that may come from elsewhere is read as tensors and "
        "plain containers only",
        hint=2,
    )
    assert refused, say(
        call,
        "returned normally, so its caller cannot tell the checkpoint was refused; expected the "
        "error torch.load itself raises for a file that would run code, pickle.UnpicklingError",
        hint=2,
    )
    changed = same_state(model, before)
    assert not changed, say(call, f"changed {', '.join(changed)} before refusing", hint=2)


@pytest.mark.given
@given(data=st.data(), arch=archs(), n=gpu_counts)
@settings(max_examples=20)
def test_load_checkpoint_checks_the_device_before_reading(kata, data, arch, n):
    missing = data.draw(missing_devices(n), label="device")
    source = io.BytesIO(cuda_tagged_checkpoint(scramble(arch.make(), 1).state_dict()))
    model = arch.make()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    call = f"load_checkpoint(<checkpoint>, {arch}, {missing!r}) with {n} GPU(s)"
    with fake_gpus(n):
        expect_value_error(
            call, lambda: kata.load_checkpoint(source, model, missing), missing, hint=1
        )
    assert source.tell() == 0, say(
        call, f"read {source.tell()} bytes of the checkpoint before refusing the device", hint=3
    )
    moved = [name for name, t in tensors_of(model) if t.device.type != "cpu"]
    changed = [] if moved else same_state(model, before)
    assert not changed and not moved, say(
        call, f"moved or changed {', '.join(moved or changed)} before refusing the device", hint=3
    )


# --- on the real machine: the cuda tier, whose bodies also run on cpu -------------------------


def test_move_train_on_the_device_and_come_back(kata, device):
    """The seeds' story: model and data on the device, a step there, results back on the CPU.

    On CUDA, `Module.to` "modifies the module in-place" (torch/nn/modules/module.py) and its
    `_apply` assigns `param.data`, so the Parameter objects, and the optimizer built before the
    move, stay the same.
    """
    with torch.random.fork_rng(devices=[]):  # a fixed model, without touching the global seed
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.BatchNorm1d(8), nn.Linear(8, 2))
    params = list(model.parameters())
    optimizer = torch.optim.SGD(params, lr=0.1, momentum=0.9)  # built before the move
    inputs = make_tensor((16, 4), torch.float32, 1)  # a batch, on the CPU as from a DataLoader
    targets = make_tensor((16, 2), torch.float32, 2)
    with real_world(device):
        call = f"move_model(model, {device.type!r})"
        got = kata.move_model(model, device)
        assert got is model and [id(p) for p in model.parameters()] == [id(p) for p in params], say(
            call, "did not keep the model and its Parameter objects", hint=2
        )
        off = [name for name, t in tensors_of(model) if not same_device(t.device, device)]
        assert not off, say(call, f"left {', '.join(off)} behind ({where(model)})", hint=1)
        here = kata.model_device(model)
        assert same_device(here, device), say(
            "model_device(model)", f"returned {here}; expected {device}", hint=1
        )
        assert same_device(model[0].weight.device, device), say(  # conv1's, in the seeds
            call, f"left model[0].weight on {model[0].weight.device}; expected {device}", hint=1
        )

        before = [p.detach().cpu().clone() for p in params]
        losses = [kata.train_step(model, optimizer, nn.MSELoss(), inputs, targets) for _ in "ab"]
        assert all(type(loss) is float and math.isfinite(loss) for loss in losses), say(
            "train_step(...)", f"returned {losses}; expected finite Python floats", hint=3
        )
        moved = [not torch.equal(b, p.detach().cpu()) for b, p in zip(before, params, strict=True)]
        assert all(moved), say(
            "train_step(...)", "did not update every parameter the optimizer holds", hint=3
        )
        back = kata.move_model(model, "cpu")
        assert back is model, say(
            "move_model(model, 'cpu')", f"returned another {type(back).__name__}", hint=2
        )
        say.call("model(inputs) after move_model(model, 'cpu')", back, inputs, hint=1)
    off = [name for name, t in tensors_of(model) if t.device.type != "cpu"]
    assert not off, say("move_model(model, 'cpu')", f"left {', '.join(off)} behind", hint=1)


@given(arch=archs(), seed=st.integers(0, 2**31), data=st.data())
@settings(max_examples=20)
def test_gpu_checkpoint_loads_onto_the_device(kata, device, arch, seed, data):
    """On CUDA, `torch.load(f, map_location=device)` restores storages tagged cuda:0 onto `device`
    (torch/serialization.py, map_location), and `load_state_dict` copies into the existing
    Parameters, which keep their identity."""
    spelling = data.draw(device_spellings(device), label="device")
    state = scramble(arch.make(), seed).state_dict()
    model = arch.make()  # on the CPU; load_checkpoint must bring it to the device
    ids = [id(p) for p in model.parameters()]
    call = f"load_checkpoint(<checkpoint saved on cuda:0>, {arch}, {spelling!r})"
    with real_world(device):
        got = say.call(
            call,
            lambda: kata.load_checkpoint(
                io.BytesIO(cuda_tagged_checkpoint(state)), model, spelling
            ),
            expected=f"the model loaded onto {device}",
            hint=2,
        )
    check_loaded(call, got, model, ids, state, device)
