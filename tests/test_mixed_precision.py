"""Tests for katas/mixed_precision.py.

What is checked, and how:
- `autocast_dtype` and `make_scaler` on the CPU, and on simulated GPUs (`fake_gpus`) of three
  generations: a GPU's bfloat16 support is faked through every way to ask for it
  (`torch.cuda.is_bf16_supported`, `get_device_capability`, `get_device_properties`), and
  nothing is ever allocated on it. `torch.cuda.is_bf16_supported()` says True for a GPU that
  only emulates bfloat16 (`including_emulation=True` by default, torch/cuda/__init__.py): the
  simulated Turing GPU (sm_75) does, and must get float16.
- `amp_step` trains a small MLP whose `Linear` layers report, from forward hooks, the dtype
  of their output (the product's dtype) and of their parameters at that moment. The optimizer
  is a subclass of SGD or Adam that records the gradients it is asked to step on, and the
  scaler is a real `torch.amp.GradScaler("cpu")` (float16 autocast and an enabled scaler work
  on the CPU in torch 2.13).
- The gradients the optimizer steps on are compared with a twin: the same model, the same
  autocast forward, an unscaled backward. Clipping is judged by their total norm.
- An overflow is made by a loss function whose output's gradient is set to inf by a tensor
  hook; the loss itself stays finite, as in a real float16 overflow.
- Read-backs are counted by spies on the Tensor methods that hand a value to Python (`item`,
  `tolist`, `float()`, `bool()`, `print`, ...), except the scaler's inf check before it steps
  (`GradScaler._maybe_opt_step` reads it with `.item()`) and the optimizers' own reads
  (torch/optim/): those are torch's business. `scaler.get_scale()` is a read-back.
- The cuda tier runs the same step on a GPU, in the type `autocast_dtype` should give there;
  one cuda test trains float16 with an enabled scaler on the GPU's own kernels.
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn
from torch.cuda import _utils as _cuda_utils

from dojo import harness
from tests.strategies import cpu_spellings, make_tensor
from tests.support import (
    CUDA_CONTEXT,
    TO_HOST,
    Say,
    describe,
    fake_gpus,
    host_reads,
    plain_repr,
    quotes,
    real_world,
    recorded_warnings,
    refuse_tensors,
)

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

SOME = settings(max_examples=max(settings().max_examples // 4, 10))
FEW = settings(max_examples=max(settings().max_examples // 10, 5))

HALF = (torch.bfloat16, torch.float16)
TORCH_DIR = str(Path(torch.__file__).parent) + os.sep  # torch/, not torchvision/
OPTIM_DIR = TORCH_DIR + "optim" + os.sep


def name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


# --- the problems amp_step trains on ----------------------------------------------------------


class Recording:
    """An optimizer that records the gradients it steps on (in `.stepped`, one list per step)."""

    def step(self, closure=None):
        self.stepped.append(
            [None if p.grad is None else p.grad.detach().clone() for p in self.params]
        )
        return super().step(closure)


class RecordingSGD(Recording, torch.optim.SGD):
    pass


class RecordingAdam(Recording, torch.optim.Adam):
    pass


OPTIMIZERS = {
    "SGD": lambda params: RecordingSGD(params, lr=0.05),
    "SGD(momentum=0.9)": lambda params: RecordingSGD(params, lr=0.05, momentum=0.9),
    "Adam": lambda params: RecordingAdam(params, lr=0.01),
}


def mse(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A float32 loss under autocast (mse_loss runs in float32)."""
    return nn.functional.mse_loss(out, y)


def mse_in_out_dtype(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A loss in the output's own dtype: under autocast, a 16-bit loss."""
    return (out - y.to(out.dtype)).square().mean()


LOSSES = {"mse_loss": mse, "a loss in the output's dtype": mse_in_out_dtype}


@plain_repr
@dataclass(frozen=True)
class Problem:
    """A seeded MLP n_in -> 8 -> n_out, one batch, an optimizer and a loss function."""

    n_in: int
    n_out: int
    batch: int
    seed: int
    optimizer: str
    loss: str

    def __str__(self) -> str:
        return (
            f"MLP {self.n_in}->8->{self.n_out}, batch of {self.batch}, {self.optimizer}, "
            f"loss {self.loss} (seed {self.seed})"
        )

    def model(self, device: torch.device) -> nn.Module:
        model = nn.Sequential(nn.Linear(self.n_in, 8), nn.Tanh(), nn.Linear(8, self.n_out))
        with torch.no_grad():
            for k, p in enumerate(model.parameters()):
                p.copy_(make_tensor(p.shape, p.dtype, self.seed + 50 + k) / 2)
        return model.to(device)

    def batch_on(self, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        x = make_tensor((self.batch, self.n_in), torch.float32, self.seed, device)
        y = make_tensor((self.batch, self.n_out), torch.float32, self.seed + 1, device)
        return x, y

    def optimizer_for(self, model: nn.Module) -> torch.optim.Optimizer:
        optimizer = OPTIMIZERS[self.optimizer](model.parameters())
        optimizer.params = list(model.parameters())
        optimizer.stepped = []
        return optimizer

    @property
    def loss_fn(self):
        return LOSSES[self.loss]


@st.composite
def problems(draw, optimizers=tuple(OPTIMIZERS), losses=tuple(LOSSES)) -> Problem:
    return Problem(
        n_in=draw(st.integers(1, 5)),
        n_out=draw(st.integers(1, 3)),
        batch=draw(st.integers(1, 6)),
        seed=draw(st.integers(0, 2**31)),
        optimizer=draw(st.sampled_from(optimizers)),
        loss=draw(st.sampled_from(losses)),
    )


def scaler_for(device: torch.device, dtype: torch.dtype, **kwargs) -> torch.amp.GradScaler:
    """The scaler a float16 step needs (enabled), or a disabled one for bfloat16."""
    return torch.amp.GradScaler(device.type, enabled=dtype == torch.float16, **kwargs)


def scale_of(scaler: torch.amp.GradScaler) -> float:
    return scaler.get_scale() if scaler.is_enabled() else 1.0


# --- watching a step --------------------------------------------------------------------------


class Watch:
    """Forward hooks on the model's Linear layers: what each product ran in, and where the
    parameters were, while the forward pass ran."""

    def __init__(self, model: nn.Module, device: torch.device) -> None:
        self.products: list[torch.dtype] = []  # each Linear's output dtype
        self.params_seen: list[torch.dtype] = []  # each Linear's weight dtype during forward
        self.handles = []

        def hook(module, args, output):
            self.products.append(output.dtype)
            self.params_seen += [p.dtype for p in module.parameters(recurse=False)]

        for module in model.modules():
            if isinstance(module, nn.Linear):
                self.handles.append(module.register_forward_hook(hook))

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


# The reads of a value into Python that read_backs() records: the host transfers less the
# copies to a CPU tensor (`cpu`, `to`), which this kata's tests do not count as reads.
READ_BACKS = tuple(m for m in TO_HOST if m not in ("cpu", "to"))


@contextlib.contextmanager
def read_backs() -> Iterator[list[str]]:
    """Record each read of a tensor's value into Python (`item`, `float()`, `print`, ...); a
    read made inside another one counts once. Two reads are torch's business and not counted:
    the scaler's check for inf before it steps (`GradScaler._maybe_opt_step`, which must read
    it to decide), and the optimizers' own (torch/optim/, e.g. Adam's step count, a CPU
    tensor). Any other read counts, in your code or in a torch function you called, such as
    `scaler.get_scale()`."""
    made: list[str] = []

    def torchs_business(name: str, tensor: torch.Tensor, caller) -> bool:
        where = caller.f_code.co_filename
        if where.startswith(OPTIM_DIR):
            return True
        return (
            where.startswith(TORCH_DIR)
            and "GradScaler._maybe_opt_step" in caller.f_code.co_qualname
        )

    def note(name: str, caller) -> None:
        where = caller.f_code.co_filename
        if where.startswith(TORCH_DIR):
            path = where.removeprefix(TORCH_DIR).replace(os.sep, "/")
            made.append(f"Tensor.{name} in torch/{path} ({caller.f_code.co_name})")
        else:
            made.append(f"Tensor.{name}")

    with host_reads(note, methods=READ_BACKS, skip=torchs_business):
        yield made


@dataclass
class Step:
    """One amp_step call and what was seen during it."""

    call: str
    loss: object
    model: nn.Module
    optimizer: torch.optim.Optimizer
    scaler: torch.amp.GradScaler
    watch: Watch
    read_backs: list[str]
    params_before: list[nn.Parameter]


def run_step(
    kata,
    problem: Problem,
    device: torch.device,
    dtype: torch.dtype,
    *,
    hint: int,
    scaler: torch.amp.GradScaler | None = None,
    loss_fn=None,
    max_norm: float | None = None,
    model: nn.Module | None = None,
    optimizer: torch.optim.Optimizer | None = None,
    what: str = "",
) -> Step:
    """Call amp_step on `problem` and watch it; any exception or warning is a learner message."""
    model = problem.model(device) if model is None else model
    optimizer = problem.optimizer_for(model) if optimizer is None else optimizer
    scaler = scaler_for(device, dtype) if scaler is None else scaler
    loss_fn = problem.loss_fn if loss_fn is None else loss_fn
    x, y = problem.batch_on(device)
    params_before = list(model.parameters())
    clip = "" if max_norm is None else f", max_norm={max_norm:.4g}"
    kind = (
        f"an enabled scaler (scale {scaler.get_scale():g})"
        if scaler.is_enabled()
        else ("a disabled scaler")
    )
    call = (
        f"amp_step(model, optimizer, scaler, loss_fn, x, y, dtype=torch.{name(dtype)}{clip}) "
        f"with {problem}, {kind}{what}, on {device}"
    )
    watch = Watch(model, device)
    try:
        with real_world(device), read_backs() as made, recorded_warnings() as caught:
            try:
                loss = kata.amp_step(
                    model, optimizer, scaler, loss_fn, x, y, dtype=dtype, max_norm=max_norm
                )
            except Exception as err:
                if say.unwritten(err):
                    raise
                problem_ = f"raised {type(err).__name__}: {err}"
                for phrase, why, rung in SCALER_ERRORS:
                    if phrase in str(err):
                        problem_, hint = f"{problem_}; {why}", rung
                pytest.fail(say(call, problem_, hint=hint), pytrace=False)
    finally:
        watch.remove()
    if caught:
        w = caught[0]
        problem_ = f"warned {w.category.__name__}: {w.message}; expected no warning"
        if "autocast" in str(w.message).lower():
            problem_ += (
                f"; autocast needs the type of the device the tensors are on, here {device.type!r}"
            )
            hint = 2
        pytest.fail(say(call, problem_, hint=hint), pytrace=False)
    return Step(call, loss, model, optimizer, scaler, watch, made, params_before)


ORDER = (
    "the scaler keeps, for each optimizer, where it is in a step: unscale_() (at most once), "
    "step(), then update(), which ends the step; this call came out of that order"
)
SCALER_ERRORS = (  # torch's words (torch/amp/grad_scaler.py), what they mean here, which hint
    (
        "Attempting to unscale FP16 gradients",
        "the gradients are float16 because the parameters are: the model must stay float32",
        1,
    ),
    (
        "step() has already been called since the last update()",
        ORDER,
        4,
    ),
    (
        "unscale_() has already been called on this optimizer",
        ORDER,
        4,
    ),
    (
        "is being called after step()",
        ORDER,
        4,
    ),
    (
        "No inf checks were recorded for this optimizer",
        "the scaler found no gradient to check: no parameter of the optimizer had a .grad "
        "when it unscaled them",
        4,
    ),
    (
        "No inf checks were recorded prior to update",
        "the scaler was told a step was over, but it never saw the gradients",
        3,
    ),
)


class Training:
    """One model, optimizer and scaler, trained by successive amp_step calls on `problem`."""

    def __init__(
        self,
        kata,
        problem: Problem,
        dtype: torch.dtype,
        scaler: torch.amp.GradScaler,
        *,
        max_norm: float | None = None,
        device: torch.device | None = None,
    ) -> None:
        self.kata, self.problem, self.dtype, self.scaler = kata, problem, dtype, scaler
        self.max_norm, self.device = max_norm, device or torch.device("cpu")
        self.model = problem.model(device)
        self.optimizer = problem.optimizer_for(self.model)

    def step(self, *, hint: int = 3, overflow: bool = False, what: str = "") -> Step:
        """One amp_step call; with `overflow`, every gradient of the step is inf."""
        loss_fn = overflowing(self.problem.loss_fn) if overflow else None
        what += f", with {INF_GRAD}" if overflow else ""
        return run_step(
            self.kata,
            self.problem,
            self.device,
            self.dtype,
            hint=hint,
            scaler=self.scaler,
            model=self.model,
            optimizer=self.optimizer,
            loss_fn=loss_fn,
            max_norm=self.max_norm,
            what=what,
        )


def twin_grads(problem: Problem, device: torch.device, dtype: torch.dtype, loss_fn=None):
    """The true, unscaled gradients of one autocast forward in `dtype` on a fresh model, and
    their total norm."""
    model = problem.model(device)
    x, y = problem.batch_on(device)
    autocast = (
        contextlib.nullcontext()
        if dtype == torch.float32
        else torch.autocast(device.type, dtype=dtype)
    )
    with autocast:
        loss = (problem.loss_fn if loss_fn is None else loss_fn)(model(x), y)
    loss.float().backward()
    grads = [p.grad.detach().clone() for p in model.parameters()]
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    return grads, float(norm), loss.detach().float()


def norm_of(grads: list[torch.Tensor]) -> float:
    return float(
        torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    )


def the_steps(step: Step, *, hint: int) -> list[torch.Tensor]:
    """The gradients of the one optimizer step the call made."""
    n = len(step.optimizer.stepped)
    assert n == 1, say(
        step.call,
        f"stepped the optimizer {n} times; expected exactly once"
        + ("; no step means no training" if n == 0 else ""),
        hint=hint,
    )
    grads = step.optimizer.stepped[0]
    assert all(g is not None for g in grads), say(
        step.call, "stepped the optimizer with a parameter that had no gradient", hint=hint
    )
    return grads


def check_cleared(step: Step, *, after: str = "the step") -> None:
    left = [
        name
        for name, p in step.model.named_parameters()
        if p.grad is not None and bool(p.grad.detach().ne(0).any())
    ]
    assert not left, say(
        step.call,
        f"left gradients in .grad of {', '.join(left)} after {after}; the next backward() "
        "would add to them, and the next step would use old and new gradients together",
        hint=3,
    )


INF_GRAD = "an overflowing gradient"
NORMS = [None, 0.5, 1e-3]  # no clipping, and max_norm of two sizes


def overflowing(loss_fn):
    """`loss_fn`, whose output gradient becomes inf: the loss stays finite, the gradients of
    every parameter overflow, as a float16 backward does when the scale is too large."""

    def loss_with_inf_grad(out, y):
        if out.requires_grad:
            out.register_hook(lambda g: torch.full_like(g, math.inf))
        return loss_fn(out, y)

    return loss_with_inf_grad


# --- autocast_dtype and make_scaler: the machine --------------------------------------------


@dataclass(frozen=True)
class Generation:
    name: str
    capability: tuple[int, int]

    @property
    def native_bf16(self) -> bool:
        return self.capability >= (8, 0)

    @property
    def want(self) -> torch.dtype:
        return torch.bfloat16 if self.native_bf16 else torch.float16


GENERATIONS = (
    Generation("Turing, sm_75 (bfloat16 emulated only)", (7, 5)),
    Generation("Ampere, sm_80", (8, 0)),
    Generation("Hopper, sm_90", (9, 0)),
)


class Machine:
    """Simulated GPUs, one `Generation` each, and the current device (torch.cuda's, which
    `torch.cuda.device(...)` and `set_device` change and `current_device` reports)."""

    def __init__(self, gens: tuple[Generation, ...], current: int = 0) -> None:
        self.gens = gens
        self.current = current
        self.asked: list[tuple[int, bool | None]] = []
        """Each question about one GPU's bfloat16 support, as (the GPU, including_emulation):
        None for its capability or properties, which count no emulation."""

    def index(self, device=None) -> int:
        """The GPU `device` names (an int, "cuda:1", a torch.device), or the current one."""
        return _cuda_utils._get_device_index(device, optional=True)

    def current_device(self) -> int:
        return self.current

    def set_device(self, device) -> None:
        index = _cuda_utils._get_device_index(device)
        if index >= 0:
            self.current = index

    def exchange_device(self, index: int) -> int:  # torch.cuda.device(...).__enter__, __exit__
        previous = self.current
        if index >= 0:
            self.current = index
        return previous

    def properties(self, device=None):
        index = self.index(device)
        if not 0 <= index < len(self.gens):
            raise AssertionError("Invalid device id")  # torch's own words
        self.asked.append((index, None))
        gen = self.gens[index]
        major, minor = gen.capability
        return SimpleNamespace(major=major, minor=minor, name=f"simulated {gen.name}")

    def capability(self, device=None) -> tuple[int, int]:
        properties = self.properties(device)
        return properties.major, properties.minor

    def is_bf16_supported(self, including_emulation: bool = True) -> bool:
        """As torch's: about the current GPU, and True for one that only emulates bfloat16
        unless asked with `including_emulation=False`."""
        if not self.gens:
            return False
        self.asked.append((self.current, including_emulation))
        return self.gens[self.current].native_bf16 or including_emulation

    def __str__(self) -> str:
        gpus = ", ".join(f"cuda:{k} is a simulated {g.name}" for k, g in enumerate(self.gens))
        return (gpus or "no GPU") + (f"; the current GPU is cuda:{self.current}" if gpus else "")


probed = refuse_tensors(
    say,
    ("autocast_dtype",),
    "to find out what that GPU supports. Every GPU this torch runs on can hold a bfloat16 "
    "tensor, whether it computes in bfloat16 natively or not, so making one says nothing about "
    f"native support. On a real machine it also costs: {CUDA_CONTEXT}",
    hint=2,
)
"""What `fake_machine` says when autocast_dtype puts a tensor on a GPU to ask it."""


@contextlib.contextmanager
def fake_machine(gens: tuple[Generation, ...], current: int = 0) -> Iterator[Machine]:
    """Simulated GPUs of the generations `gens`, each answering for itself whichever way its
    bfloat16 support is asked for: `get_device_capability`, `get_device_properties`,
    `is_bf16_supported` (about the current GPU, as torch's), with the current device kept as
    torch.cuda keeps it.

    (tests/support.py's `fake_gpus` answers the device count; the per-GPU answers are patched
    here.) A tensor put on one of them, to ask it, fails the test with `probed`'s message."""
    machine = Machine(gens, current)
    with contextlib.ExitStack() as stack:
        stack.enter_context(fake_gpus(len(gens), on_tensor=probed))
        for attr, fake in (
            ("is_bf16_supported", machine.is_bf16_supported),
            ("get_device_capability", machine.capability),
            ("get_device_properties", machine.properties),
            ("current_device", machine.current_device),
            ("set_device", machine.set_device),
            ("_exchange_device", machine.exchange_device),
            ("_maybe_exchange_device", machine.exchange_device),
        ):
            stack.enter_context(harness.patched(torch.cuda, attr, fake))
        yield machine


def fake_generation(n: int, gen: Generation) -> contextlib.AbstractContextManager[Machine]:
    """`n` simulated GPUs, all of generation `gen`."""
    return fake_machine((gen,) * n)


def scaler_type(scaler: torch.amp.GradScaler) -> str:
    """The device type a scaler was made for (GradScaler keeps its `device` argument, a device
    type such as "cuda", in `_device`; torch/amp/grad_scaler.py)."""
    try:
        return torch.device(scaler._device).type
    except (RuntimeError, TypeError):
        return repr(scaler._device)


BAD_DEVICES = ("gpu", "cuda:x", "", " cuda", "CPU", "cuda:-1")
NO_AUTOCAST = ("meta", "mps", "xpu", torch.device("meta"))


@pytest.mark.given
@SOME
@given(spelling=cpu_spellings())
def test_autocast_dtype_is_bfloat16_on_the_cpu(kata, spelling):
    call = f"autocast_dtype({spelling!r})"
    with fake_gpus(0):
        got = say.call(call, kata.autocast_dtype, spelling, hint=1)
    assert got == torch.bfloat16, say(
        call,
        f"returned {got!r}; expected torch.bfloat16: CPU autocast computes in it, and it has "
        "float32's range, so no scaler is needed",
        hint=1,
    )


@st.composite
def machines(draw) -> tuple[tuple[Generation, ...], int, str | torch.device, int]:
    """GPUs of drawn generations (mixed, often), the current one, a spelling of a GPU, and the
    index of the GPU that spelling means (a bare `cuda` is the current GPU)."""
    gens = tuple(draw(st.lists(st.sampled_from(GENERATIONS), min_size=1, max_size=4)))
    current = draw(st.integers(0, len(gens) - 1))
    k = draw(st.integers(0, len(gens) - 1))
    spelling = draw(
        st.sampled_from(["cuda", torch.device("cuda"), f"cuda:{k}", torch.device("cuda", k)])
    )
    return gens, current, spelling, k if torch.device(spelling).index is not None else current


@SOME
@given(machine=machines())
@example(machine=((GENERATIONS[1], GENERATIONS[0]), 0, "cuda:1", 1))
@example(machine=((GENERATIONS[0], GENERATIONS[2]), 1, "cuda:0", 0))
@example(machine=((GENERATIONS[2], GENERATIONS[0]), 1, "cuda", 1))
@example(machine=((GENERATIONS[0],), 0, "cuda", 0))
def test_autocast_dtype_follows_the_bfloat16_support_of_the_gpu_it_is_given(kata, machine):
    gens, current, spelling, k = machine
    with fake_machine(gens, current) as fake:
        call = f"autocast_dtype({spelling!r}) with {fake}"
        got = say.call(call, kata.autocast_dtype, spelling, hint=2)
    gen = gens[k]
    bare = torch.device(spelling).index is None
    asked = sorted({j for j, _ in fake.asked})
    emulation = any(j == k and including for j, including in fake.asked)
    native = "computes in bfloat16 natively" if gen.native_bf16 else "only emulates bfloat16"
    about = f"cuda:{k} {native}"
    if got == gen.want:
        why = about
    elif asked and k not in asked:  # observed: every question was about another GPU
        which = ", ".join(
            f"the current GPU, cuda:{j}" if j == fake.current else f"cuda:{j}" for j in asked
        )
        why = (
            f"{about}; the call asked about the bfloat16 support of {which} "
            f"({gens[asked[0]].name}), never of cuda:{k}"
        )
        if asked == [fake.current]:
            why += f": {got!r} is the answer for the current GPU, cuda:{fake.current}"
        if bare:
            why += f"; a bare 'cuda' is the current GPU, cuda:{current}"
    elif emulation and not gen.native_bf16:  # observed: asked it, counting emulation
        why = (
            f"{about} (slowly), so float16 with a scaler is the fast choice; the call asked "
            f"torch.cuda.is_bf16_supported() while cuda:{k} was current, which counts emulated "
            "bfloat16 unless told including_emulation=False"
        )
    elif not gen.native_bf16:
        why = f"{about} (slowly), so float16 with a scaler is the fast choice"
    else:
        why = about
    assert got == gen.want, say(
        call, f"returned {got!r}; expected {gen.want!r}: cuda:{k} is {gen.name}; {why}", hint=2
    )


@pytest.mark.given
@pytest.mark.parametrize("text", BAD_DEVICES + NO_AUTOCAST, ids=repr)
def test_autocast_dtype_refuses_other_devices(kata, text):
    call = f"autocast_dtype({text!r})"
    with fake_generation(1, GENERATIONS[1]), say.raises(ValueError, call, hint=1) as raised:
        kata.autocast_dtype(text)
    message = str(raised.value)
    assert quotes(message, str(text)), say(
        call,
        f"raised ValueError({message!r}), which does not quote the device {str(text)!r}",
        hint=1,
    )


@pytest.mark.given
@pytest.mark.parametrize("n", [0, 1, 2])
def test_autocast_dtype_refuses_a_missing_gpu(kata, n):
    text = f"cuda:{n}"
    call = f"autocast_dtype({text!r}) with {n} simulated GPU(s)"
    with fake_generation(n, GENERATIONS[2]), say.raises(ValueError, call, hint=1) as raised:
        kata.autocast_dtype(text)
    message = str(raised.value)
    assert quotes(message, text), say(
        call, f"raised ValueError({message!r}), which does not quote the device {text!r}", hint=1
    )


@SOME
@given(dtype=st.sampled_from([*HALF, torch.float32]), spelling=cpu_spellings())
def test_make_scaler_scales_only_float16(kata, dtype, spelling):
    call = f"make_scaler({spelling!r}, torch.{name(dtype)})"
    with fake_gpus(0):
        scaler = say.call(call, kata.make_scaler, spelling, dtype, hint=2)
    assert isinstance(scaler, torch.amp.GradScaler), say(
        call, f"returned {scaler!r}; expected a torch.amp.GradScaler", hint=2
    )
    want = dtype == torch.float16
    why = (
        "float16 gradients underflow to zero without scaling"
        if want
        else f"{name(dtype)} has float32's range and needs no scaling"
    )
    assert scaler.is_enabled() == want, say(
        call,
        f"returned a scaler with is_enabled() {scaler.is_enabled()}; expected {want}: {why}",
        hint=2,
    )
    assert scaler_type(scaler) == "cpu", say(
        call, f"returned a scaler for {scaler._device!r}; expected one for 'cpu'", hint=2
    )


@SOME
@given(dtype=st.sampled_from(HALF), n=st.integers(1, 3), data=st.data())
def test_make_scaler_for_a_gpu(kata, dtype, n, data):
    spelling = data.draw(st.sampled_from(["cuda", torch.device("cuda", n - 1), f"cuda:{n - 1}"]))
    call = f"make_scaler({spelling!r}, torch.{name(dtype)}) with {n} simulated GPU(s)"
    with fake_generation(n, GENERATIONS[2]):
        scaler = say.call(call, kata.make_scaler, spelling, dtype, hint=2)
    assert isinstance(scaler, torch.amp.GradScaler) and scaler_type(scaler) == "cuda", say(
        call,
        f"returned {scaler!r} for {getattr(scaler, '_device', None)!r}; expected a "
        "torch.amp.GradScaler for 'cuda'",
        hint=2,
    )
    assert scaler.is_enabled() == (dtype == torch.float16), say(
        call,
        f"returned a scaler with is_enabled() {scaler.is_enabled()}; expected "
        f"{dtype == torch.float16}",
        hint=2,
    )


@pytest.mark.given
@pytest.mark.parametrize("text", ["gpu", "meta", "cuda", "cuda:1"])
def test_make_scaler_refuses_what_autocast_dtype_refuses(kata, text):
    call = f"make_scaler({text!r}, torch.float16) with one simulated GPU"
    if text == "cuda":
        call = "make_scaler('cuda', torch.float16) on a machine without a GPU"
    with (
        fake_generation(0 if text == "cuda" else 1, GENERATIONS[2]),
        say.raises(ValueError, call, hint=1) as raised,
    ):
        kata.make_scaler(text, torch.float16)
    message = str(raised.value)
    assert quotes(message, text), say(
        call, f"raised ValueError({message!r}), which does not quote the device {text!r}", hint=1
    )


# --- amp_step ---------------------------------------------------------------------------------


CPU = torch.device("cpu")


@SOME
@given(problem=problems(), dtype=st.sampled_from(HALF))
def test_amp_step_runs_the_products_in_dtype(kata, problem, dtype):
    step = run_step(kata, problem, CPU, dtype, hint=2)
    got = step.watch.products
    assert got, say(step.call, "never ran the model's forward pass", hint=2)
    wrong = [name(d) for d in got if d != dtype]
    assert not wrong, say(
        step.call,
        f"ran the model's Linear layers with {wrong[0]} outputs; expected {name(dtype)}: "
        "autocast chooses the type of the products only on the device type it was entered "
        f"for, and x is on {CPU.type!r}",
        hint=2,
    )


@SOME
@given(problem=problems(), dtype=st.sampled_from(HALF))
def test_amp_step_never_converts_the_model(kata, problem, dtype):
    step = run_step(kata, problem, CPU, dtype, hint=1)
    seen = {name(d) for d in step.watch.params_seen}
    assert seen <= {"float32"}, say(
        step.call,
        f"ran the forward pass with {', '.join(sorted(seen))} parameters; they must stay "
        "float32, the master copy: autocast casts each product's inputs, the model is never "
        "converted",
        hint=1,
    )
    now = list(step.model.parameters())
    same = len(now) == len(step.params_before) and all(
        a is b for a, b in zip(now, step.params_before, strict=False)
    )
    assert same, say(step.call, "replaced the model's Parameter objects", hint=1)
    bad = [
        f"{n} is {name(p.dtype)}"
        for n, p in step.model.named_parameters()
        if p.dtype != torch.float32
    ]
    assert not bad, say(step.call, f"left {', '.join(bad)}; expected float32", hint=1)
    for grads in step.optimizer.stepped:
        bad = [name(g.dtype) for g in grads if g is not None and g.dtype != torch.float32]
        assert not bad, say(
            step.call, f"stepped the optimizer on {bad[0]} gradients; expected float32", hint=1
        )
    for state in step.optimizer.state.values():
        bad = [
            f"{key} ({name(v.dtype)})"
            for key, v in state.items()
            if isinstance(v, torch.Tensor) and v.is_floating_point() and v.dtype != torch.float32
        ]
        assert not bad, say(
            step.call, f"left optimizer state {', '.join(bad)}; expected float32", hint=1
        )


@SOME
@given(problem=problems(), dtype=st.sampled_from(HALF))
@example(problem=Problem(3, 2, 4, 0, "SGD", "a loss in the output's dtype"), dtype=torch.bfloat16)
def test_amp_step_returns_the_loss_as_a_float32_tensor(kata, problem, dtype):
    _, _, want = twin_grads(problem, CPU, dtype)
    scaler = scaler_for(CPU, dtype)
    scale = scale_of(scaler)  # before the step, which lowers it after an overflow
    step = run_step(kata, problem, CPU, dtype, hint=4, scaler=scaler)
    loss = step.loss
    assert isinstance(loss, torch.Tensor), say(
        step.call,
        f"returned {loss!r}; expected the loss as a tensor on the device (a Python number is "
        "a read-back: the host waits for the GPU)",
        hint=4,
    )
    assert loss.dtype == torch.float32, say(
        step.call,
        f"returned {describe(loss)}; expected float32 (under autocast the loss can come out "
        f"in {name(dtype)}, which keeps only {'3' if dtype == torch.float16 else '2'} "
        "significant digits)",
        hint=4,
    )
    assert loss.device == CPU, say(step.call, f"returned {describe(loss)}; expected on cpu", hint=4)
    assert loss.grad_fn is None and not loss.requires_grad, say(
        step.call,
        f"returned {describe(loss)}, still attached to its graph; expected it detached",
        hint=4,
    )
    if loss.numel() == 1 and torch.allclose(loss.reshape(()), want, rtol=1e-3, atol=1e-6):
        return
    converted = sorted({name(p.dtype) for p in step.model.parameters()} - {"float32"})
    if scale != 1 and loss.numel() == 1 and torch.allclose(loss.reshape(()), want * scale, 1e-3):
        why = f": it is that loss times the scale, {scale:g}"
    elif converted:
        why = f", with the model's float32 parameters; they were left {', '.join(converted)}"
    else:
        why = ""
    pytest.fail(
        say(
            step.call,
            f"returned {loss.tolist()}; the step's loss, computed with the same autocast "
            f"forward, is {want.item():.6g}{why}",
            hint=4,
        ),
        pytrace=False,
    )


def clipped_scaled(got, expected: float, scale: float, max_norm: float | None) -> str | None:
    """What a test says when `got`, the gradients stepped on, were clipped while still
    multiplied by the scale (their norm is max_norm / scale); None when they were not. One
    message wherever a test sees it: one problem, said once."""
    if max_norm is None or not math.isclose(norm_of(got), max_norm / scale, rel_tol=5e-2):
        return None
    return (
        f"stepped the optimizer on gradients of norm {norm_of(got):.4g}; expected "
        f"{expected:.4g}, the true (unscaled) gradients' norm, at most max_norm: "
        f"{norm_of(got):.4g} is max_norm divided by the scale, {scale:g}: they were clipped while "
        "still multiplied by it, and clipping reads their norm"
    )


def read_back(step) -> str:
    """What a test says of a step that read values back (one message: one problem, said once)."""
    return (
        f"read values back to the host ({', '.join(step.read_backs)}); on a GPU each one makes "
        "the host wait for the device, so a step that reads nothing back keeps every value it "
        "uses (the loss, the scale) on the device"
    )


@SOME
@given(problem=problems(), dtype=st.sampled_from(HALF), max_norm=st.sampled_from([None, 0.5]))
@example(problem=Problem(3, 2, 4, 0, "Adam", "mse_loss"), dtype=torch.float16, max_norm=0.5)
def test_amp_step_reads_nothing_back(kata, problem, dtype, max_norm):
    step = run_step(kata, problem, CPU, dtype, hint=4, max_norm=max_norm)
    assert not step.read_backs, say(step.call, read_back(step), hint=4)


@SOME
@given(
    problem=problems(), dtype=st.sampled_from(HALF), init_scale=st.sampled_from([2.0**4, 2.0**8])
)
def test_amp_step_steps_on_the_true_gradients(kata, problem, dtype, init_scale):
    _, norm, _ = twin_grads(problem, CPU, dtype)
    scaler = scaler_for(CPU, dtype, init_scale=init_scale)
    step = run_step(kata, problem, CPU, dtype, hint=3, scaler=scaler)
    got = the_steps(step, hint=3)
    got_norm = norm_of(got)
    scale = init_scale if scaler.is_enabled() else 1.0
    assert math.isclose(got_norm, norm, rel_tol=2e-2, abs_tol=1e-6), say(
        step.call,
        f"stepped the optimizer on gradients of norm {got_norm:.4g}; the true gradients' norm "
        f"is {norm:.4g}"
        + (
            f" (the scaled ones' is {norm * scale:.4g}: the optimizer stepped on gradients "
            "still multiplied by the scale)"
            if scale != 1 and math.isclose(got_norm, norm * scale, rel_tol=2e-2)
            else ""
        ),
        hint=3,
    )


@SOME
@given(
    problem=problems(),
    init_scale=st.sampled_from([2.0**4, 2.0**8]),
    fraction=st.sampled_from([0.1, 0.5, 0.9, 2.0]),
)
@example(problem=Problem(3, 2, 4, 0, "SGD", "mse_loss"), init_scale=2.0**8, fraction=0.5)
def test_amp_step_clips_in_true_units(kata, problem, init_scale, fraction):
    dtype = torch.float16
    want, norm, _ = twin_grads(problem, CPU, dtype)
    max_norm = fraction * norm
    scaler = scaler_for(CPU, dtype, init_scale=init_scale)
    step = run_step(kata, problem, CPU, dtype, hint=3, scaler=scaler, max_norm=max_norm)
    got = the_steps(step, hint=3)
    got_norm = norm_of(got)
    expected = min(norm, max_norm)
    if not math.isclose(got_norm, expected, rel_tol=2e-2, abs_tol=1e-6):
        if seen := clipped_scaled(got, expected, init_scale, max_norm):
            pytest.fail(say(step.call, seen, hint=3))
        pytest.fail(
            say(
                step.call,
                f"stepped the optimizer on gradients of norm {got_norm:.4g}; expected "
                f"{expected:.4g}: the true, unscaled gradients have norm {norm:.4g}"
                + (", clipped to max_norm" if norm > max_norm else ", within max_norm"),
                hint=3,
            )
        )
    cosine = float(
        sum((a * b).sum() for a, b in zip(got, want, strict=True)) / max(got_norm * norm, 1e-30)
    )
    assert cosine > 0.99, say(
        step.call,
        f"stepped on gradients that point elsewhere than the true ones (cosine {cosine:.3f}); "
        "clipping scales all gradients by one factor",
        hint=3,
    )


@SOME
@given(problem=problems(), growth_interval=st.integers(1, 3), max_norm=st.sampled_from(NORMS))
@example(problem=Problem(3, 2, 4, 0, "SGD", "mse_loss"), growth_interval=1, max_norm=0.5)
def test_amp_step_skips_an_overflow(kata, problem, growth_interval, max_norm):
    scaler = scaler_for(CPU, torch.float16, init_scale=2.0**8, growth_interval=growth_interval)
    training = Training(kata, problem, torch.float16, scaler, max_norm=max_norm)
    model, optimizer = training.model, training.optimizer
    # A good step first, so that the optimizer has state (momentum, Adam's moments) to keep.
    training.step()
    before = [p.detach().clone() for p in model.parameters()]
    state_before = copy.deepcopy(optimizer.state_dict()["state"])
    scale_before = scaler.get_scale()
    step = training.step(overflow=True, what=", after one good step")
    moved = [
        n
        for (n, p), b in zip(model.named_parameters(), before, strict=True)
        if not torch.equal(p, b)
    ]
    assert not moved, say(
        step.call,
        f"changed {', '.join(moved)}; a step whose gradients overflow must leave the "
        "parameters as they were (the scaler skips the optimizer's step)",
        hint=3,
    )
    state_after = optimizer.state_dict()["state"]
    same_state = state_before.keys() == state_after.keys() and all(
        torch.equal(v, state_after[k][key])
        if isinstance(v, torch.Tensor)
        else v == state_after[k][key]
        for k, s in state_before.items()
        for key, v in s.items()
    )
    assert same_state, say(
        step.call, "changed the optimizer's state; the overflowing step must be skipped", hint=2
    )
    want = scale_before * 0.5
    got = scaler.get_scale()
    assert got == want, say(
        step.call,
        f"left the scale at {got:g} (it was {scale_before:g}); after an overflow the scaler "
        f"lowers it, to {want:g}, when it is told the step is over",
        hint=3,
    )
    check_cleared(step, after="an overflowing step")


@SOME
@given(
    problem=problems(),
    growth_interval=st.integers(1, 3),
    dtype=st.sampled_from(HALF),
    max_norm=st.sampled_from(NORMS),
)
def test_amp_step_updates_the_scale(kata, problem, growth_interval, dtype, max_norm):
    scaler = scaler_for(CPU, dtype, init_scale=2.0**4, growth_interval=growth_interval)
    training = Training(kata, problem, dtype, scaler, max_norm=max_norm)
    optimizer = training.optimizer
    scales = []
    for k in range(growth_interval + 1):
        step = training.step(what=f", step {k + 1} with growth_interval={growth_interval}")
        scales.append(scale_of(scaler))
    if not scaler.is_enabled():
        assert len(optimizer.stepped) == growth_interval + 1, say(
            step.call,
            f"stepped the optimizer {len(optimizer.stepped)} times in {growth_interval + 1} "
            "steps; a disabled scaler's step() is the optimizer's step",
            hint=3,
        )
        return
    want = [16.0 * 2 ** ((k + 1) // growth_interval) for k in range(growth_interval + 1)]
    assert scales == want, say(
        step.call,
        f"left the scale at {scales} after each step; a scaler with growth_interval="
        f"{growth_interval} doubles it after that many good steps in a row: {want}. It "
        "decides only when it is told the step is over",
        hint=3,
    )


@SOME
@given(
    problem=problems(),
    dtype=st.sampled_from(HALF),
    max_norm=st.sampled_from(NORMS),
    overflow=st.booleans(),
)
def test_amp_step_clears_the_gradients(kata, problem, dtype, max_norm, overflow):
    scaler = scaler_for(CPU, dtype, init_scale=2.0**4)
    training = Training(kata, problem, dtype, scaler, max_norm=max_norm)
    for k in range(2):
        # With float16, the first call may overflow: the step is skipped, the gradients go.
        skipped = overflow and k == 0 and scaler.is_enabled()
        step = training.step(overflow=skipped, what=f", call {k + 1} of 2")
        check_cleared(step, after="an overflowing step" if skipped else "the step")
    want = 1 if overflow and scaler.is_enabled() else 2
    stepped = len(training.optimizer.stepped)
    assert stepped == want, say(
        step.call,
        f"stepped the optimizer {stepped} times in 2 calls; expected {want}"
        + (", the overflowing call's step skipped" if want == 1 else ""),
        hint=3,
    )


@FEW
@given(problem=problems(optimizers=("SGD",)), max_norm=st.sampled_from(NORMS))
def test_amp_step_recovers_after_an_overflow(kata, problem, max_norm):
    """After an overflow (inf gradients), the next step trains on its own gradients only."""
    scaler = scaler_for(CPU, torch.float16, init_scale=2.0**8)
    training = Training(kata, problem, torch.float16, scaler, max_norm=max_norm)
    training.step(overflow=True)
    _, norm, _ = twin_grads(problem, CPU, torch.float16)
    norm = norm if max_norm is None else min(norm, max_norm)
    scale = scaler.get_scale()  # lowered by the overflow, and what this step scales by
    step = training.step(what=", the call after an overflowing step")
    got = the_steps(step, hint=3)
    finite = all(bool(torch.isfinite(g).all()) for g in got)
    if finite and math.isclose(norm_of(got), norm, rel_tol=2e-2):
        return
    if seen := clipped_scaled(got, norm, scale, max_norm):
        pytest.fail(say(step.call, seen, hint=3))
    pytest.fail(
        say(
            step.call,
            f"stepped on gradients of norm {norm_of(got):.4g}; expected the step's own, "
            f"{norm:.4g}: the overflowing step's gradients must not reach the next one",
            hint=3,
        )
    )


# --- the cuda tier, whose body also runs on the cpu ------------------------------------------


def dtype_for(device: torch.device) -> torch.dtype:
    """What the machine trains in (the test's own answer, not the kata's)."""
    if device.type == "cpu":
        return torch.bfloat16
    return torch.bfloat16 if torch.cuda.get_device_capability(device) >= (8, 0) else torch.float16


def test_autocast_dtype_on_this_machine(kata, device):
    want = dtype_for(device)
    call = f"autocast_dtype({str(device)!r}) on this machine"
    with real_world(device):
        got = say.call(call, kata.autocast_dtype, str(device), hint=2)
        scaler = say.call(call, kata.make_scaler, str(device), got, hint=2)
    assert got == want, say(call, f"returned {got!r}; expected {want!r}", hint=2)
    assert scaler.is_enabled() == (want == torch.float16), say(
        f"make_scaler({str(device)!r}, {got!r})",
        f"returned a scaler with is_enabled() {scaler.is_enabled()}",
        hint=2,
    )


@FEW
@given(problem=problems(), max_norm=st.sampled_from([None, 0.5]))
def test_amp_step_on_the_device(kata, device, problem, max_norm):
    dtype = dtype_for(device)
    scaler = scaler_for(device, dtype, init_scale=2.0**8)
    step = run_step(kata, problem, device, dtype, hint=2, scaler=scaler, max_norm=max_norm)
    wrong = [name(d) for d in step.watch.products if d != dtype]
    assert step.watch.products and not wrong, say(
        step.call,
        f"ran the Linear layers with {wrong or 'no'} outputs; expected {name(dtype)}",
        hint=2,
    )
    assert {name(d) for d in step.watch.params_seen} == {"float32"}, say(
        step.call, "converted the model's parameters; they must stay float32", hint=1
    )
    loss = step.loss
    assert isinstance(loss, torch.Tensor) and loss.device.type == device.type, say(
        step.call, f"returned {describe(loss)}; expected a float32 tensor on {device}", hint=4
    )
    assert loss.dtype == torch.float32 and loss.grad_fn is None, say(
        step.call, f"returned {describe(loss)}; expected a detached float32 tensor", hint=4
    )
    assert not step.read_backs, say(step.call, read_back(step), hint=4)
    the_steps(step, hint=3)
    check_cleared(step)


@pytest.mark.cuda
def test_float16_with_a_scaler_trains_on_a_gpu(kata):
    """No CPU twin: the cpu tier runs float16 on the CPU's kernels, and this checks the GPU's
    own: float16 tensor-core products, a GradScaler("cuda") whose inf check and unscale are CUDA
    kernels (`_amp_foreach_non_finite_check_and_unscale_`), and gradients so small that float16
    flushes them to zero unless the loss is scaled."""
    device = torch.device("cuda")
    problem = Problem(4, 2, 8, 3, "SGD", "mse_loss")
    tiny = 2.0**-28  # below float16's smallest subnormal (2**-24): unscaled, every gradient is 0

    def small_loss(out, y):
        return mse(out, y) * tiny

    _, norm, _ = twin_grads(problem, device, torch.float32, loss_fn=small_loss)
    scaler = torch.amp.GradScaler("cuda", init_scale=2.0**24)
    step = run_step(
        kata,
        problem,
        device,
        torch.float16,
        hint=2,
        scaler=scaler,
        loss_fn=small_loss,
        what=", with a loss of about 2**-28",
    )
    got = the_steps(step, hint=2)
    assert all(bool(g.ne(0).any()) for g in got), say(
        step.call,
        "stepped on gradients of which some are all zero, where float32 gives gradients of "
        "about 2**-28: below float16's smallest number (2**-24, about 6e-8), a gradient "
        "computed in float16 at its true size is zero",
        hint=2,
    )
    assert math.isclose(norm_of(got), norm, rel_tol=5e-2), say(
        step.call,
        f"stepped on gradients of norm {norm_of(got):.4g}; float32 gives {norm:.4g}",
        hint=3,
    )
