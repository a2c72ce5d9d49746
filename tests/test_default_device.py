"""Tests for katas/default_device.py.

Where a model was built is checked by what torch did, never by the clock. `Allocations`, a
`TorchDispatchMode`, sees every op the build runs: it records each tensor made on the CPU, so a
model built on the CPU and then moved is caught doing it, and it refuses a large CPU allocation
before it happens, so a wrong answer to the 10⁵ × 10⁵ `Linear` fails at once instead of filling
the RAM. Uninitialised memory is made visible with `torch.utils.deterministic`: with
deterministic algorithms on, `torch.empty` (and so `to_empty`) fills floats with NaN and
integers with their largest value.

Which modules `materialize` resets, and in what order, is read from the modules themselves:
`Noted` Linears log each `reset_parameters()` call, and the log must be a normal build's (each
module once, in build order; a block that holds no tensors is not reset). Tied weights are a
model whose `last.weight` is `first.weight`, compared with the same model built normally.
A device the machine lacks is simulated with `tests.support.fake_gpus` (0 or 2 GPUs): the
functions must refuse it with a ValueError before anything is made, so nothing is ever
allocated on a simulated GPU.

The cpu tier builds on `meta` (shapes without data) and materializes onto the CPU; the cuda tier
runs the same bodies building on the GPU and materializing onto it.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch.overrides import TorchFunctionMode
from torch.utils._device import _device_constructors
from torch.utils._pytree import tree_flatten

from tests.strategies import device_spellings
from tests.support import (
    Say,
    fake_gpus,
    names_the_device,
    real_world,
    same_device,
    tensors_of,
    where,
)

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

CREATORS = ("torch.zeros", "torch.tensor", "torch.from_numpy", "nn.Linear")
META = torch.device("meta")
HUGE = 10**5
"""`nn.Linear(HUGE, HUGE)` holds 10¹⁰ float32 weights: 40 GB, if it were ever allocated."""


# --- models: parameters, buffers, and modules with buffers only --------------------------------


def build(kind: str, a: int, h: int, b: int) -> nn.Module:
    """A fresh model; every module in it initialises itself in `modules()` order."""
    if kind == "linear":
        return nn.Linear(a, b)
    if kind == "mlp with batchnorm":
        return nn.Sequential(nn.Linear(a, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, b))
    if kind == "conv with batchnorm":
        return nn.Sequential(nn.Conv2d(a, h, 3), nn.BatchNorm2d(h))
    if kind == "linear with layernorm":
        return nn.Sequential(nn.Linear(a, h), nn.LayerNorm(h), nn.Linear(h, b))
    if kind == "linear then frozen batchnorm":  # affine=False: buffers, no parameters
        return nn.Sequential(nn.Linear(a, h), nn.BatchNorm1d(h, affine=False))
    if kind == "frozen batchnorm":
        return nn.BatchNorm1d(h, affine=False)
    raise AssertionError(kind)


WITH_BUFFERS = ("frozen batchnorm", "linear then frozen batchnorm", "mlp with batchnorm")
# No nn.Embedding: its normal_ on meta loads torch's Python meta kernels (seconds, once).
KINDS = ("linear", "conv with batchnorm", "linear with layernorm", *WITH_BUFFERS)
sizes = st.integers(1, 5)


@dataclass(frozen=True)
class Arch:
    kind: str
    a: int
    h: int
    b: int

    def __str__(self) -> str:
        return f"{self.kind} ({self.a}->{self.h}->{self.b})"

    def make(self) -> nn.Module:
        return build(self.kind, self.a, self.h, self.b)


def archs(kinds=KINDS):
    return st.builds(Arch, st.sampled_from(kinds), sizes, sizes, sizes)


def places(device: torch.device) -> list[torch.device]:
    """Devices a test body may use: the CPU and `meta`, and on the cuda tier the GPU too."""
    return [torch.device("cpu"), META, *([device] if device.type == "cuda" else [])]


def build_target(device: torch.device) -> torch.device:
    """Where build_on builds: `meta` on the cpu tier (building on the CPU proves nothing), the
    GPU on the cuda tier."""
    return META if device.type == "cpu" else device


# --- spies: allocations, uninitialised memory, the default device -----------------------------


class RefusedAllocation(Exception):
    """The test refused a CPU allocation that a correct build never makes."""


class Allocations(TorchFunctionMode):
    """Every torch function and tensor method called inside the block passes through here.

    Records `(function, shape)` for each tensor of more than one element that a call returns on
    the CPU, and refuses, before it runs, a factory call (`torch.empty`, `torch.zeros`, ...: the
    functions `with torch.device(...)` redirects) for more than `limit` elements on the CPU.
    """

    def __init__(self, limit: int = 10**7) -> None:
        super().__init__()
        self.limit = limit
        self.on_cpu: list[tuple[str, tuple[int, ...]]] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _device_constructors():
            # `set_default_device` puts its context below this mode, so `device` may still be
            # None here; the default device then says where the tensor will go.
            device = torch.device(kwargs.get("device") or torch.get_default_device())
            size = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
            if (
                device.type == "cpu"
                and all(isinstance(n, int) for n in size)
                and math.prod(size) > self.limit
            ):
                raise RefusedAllocation(
                    f"{func.__name__}{tuple(size)} asked for {math.prod(size):,} elements on "
                    "the CPU; the test refused to allocate them"
                )
        out = func(*args, **kwargs)
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor) and t.device.type == "cpu" and t.numel() > 1:
                self.on_cpu.append((getattr(func, "__name__", str(func)), tuple(t.shape)))
        return out

    def report(self) -> str:
        shown = ", ".join(f"{name} -> {shape}" for name, shape in self.on_cpu[:4])
        more = f" and {len(self.on_cpu) - 4} more" if len(self.on_cpu) > 4 else ""
        return shown + more


@contextlib.contextmanager
def uninitialised_memory_poisoned() -> Iterator[None]:
    """Inside, `torch.empty` and `torch.empty_like` fill floats with NaN and integers with their
    largest value (`torch.utils.deterministic.fill_uninitialized_memory`), so memory nobody
    initialised can never pass for a real value."""
    saved = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
        torch.utils.deterministic.fill_uninitialized_memory,
    )
    # The flag behind torch.use_deterministic_algorithms, set directly: the public function also
    # imports torch._inductor.config, which takes seconds, and only the flag matters here.
    torch._C._set_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        yield
    finally:
        torch._C._set_deterministic_algorithms(saved[0], warn_only=saved[1])
        torch.utils.deterministic.fill_uninitialized_memory = saved[2]


def looks_uninitialised(t: torch.Tensor) -> bool:
    if t.device.type == "meta" or t.numel() == 0:
        return False
    if t.is_floating_point():
        return bool(torch.isnan(t).any())
    return bool((t == torch.iinfo(t.dtype).max).any())


@contextlib.contextmanager
def defaults(device: torch.device, dtype: torch.dtype = torch.float32) -> Iterator[None]:
    """Run the block with this default device and dtype, then put the previous ones back."""
    saved = torch.get_default_device(), torch.get_default_dtype()
    torch.set_default_device(device)
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_device(None if saved[0].type == "cpu" else saved[0])
        torch.set_default_dtype(saved[1])


@contextlib.contextmanager
def seeded(seed: int, device: torch.device) -> Iterator[None]:
    """The global RNGs seeded with `seed` in the block, and as they were after it."""
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)
        yield


@contextlib.contextmanager
def every_warning() -> Iterator[None]:
    """Torch's C++ warnings repeat inside (`set_default_tensor_type` warns once per process
    otherwise), so every hypothesis example sees the same warnings."""
    saved = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        yield
    finally:
        torch.set_warn_always(saved)


class FactoryFailed(Exception):
    """Raised on purpose by a test's factory: build_on must let it through."""


# --- build_on ----------------------------------------------------------------------------------


@given(arch=archs(), data=st.data())
def test_build_on_builds_straight_on_the_device(kata, device, arch, data):
    target = build_target(device)
    metas = st.sampled_from(["meta", META])
    spelling = data.draw(device_spellings(target) if target.type == "cuda" else metas)
    call = f"build_on({spelling!r}, lambda: <{arch}>)"
    spy = Allocations()
    with real_world(device), every_warning(), spy:
        model = say.call(
            call,
            lambda: kata.build_on(spelling, arch.make),
            expected=f"the model built on {target}",
            hint=1,
        )
    assert isinstance(model, nn.Module), say(
        call, f"returned {type(model).__name__}; expected the model factory() built", hint=1
    )
    off = [name for name, t in tensors_of(model) if not same_device(t.device, target)]
    assert not off, say(call, f"left {', '.join(off)} off {target} ({where(model)})", hint=1)
    assert not spy.on_cpu, say(
        call,
        f"made tensors on the CPU while building ({spy.report()}), for a model that ended on "
        f"{target}: a model born on {target} makes nothing in host memory and copies nothing",
        hint=2,
    )


def test_build_on_meta_allocates_nothing(kata):
    call = f"build_on('meta', lambda: nn.Linear({HUGE}, {HUGE}))"
    spy = Allocations(limit=10**6)
    with every_warning(), spy:
        model = say.call(
            call,
            lambda: kata.build_on("meta", lambda: nn.Linear(HUGE, HUGE)),
            expected="a model on meta, with no memory allocated",
            hint=2,
        )
    assert isinstance(model, nn.Linear), say(
        call, f"returned {type(model).__name__}; expected the nn.Linear", hint=1
    )
    assert model.weight.device == META and model.weight.shape == (HUGE, HUGE), say(
        call,
        f"returned a weight of shape {tuple(model.weight.shape)} on {model.weight.device}; "
        f"expected ({HUGE}, {HUGE}) on meta",
        hint=1,
    )
    assert not spy.on_cpu, say(
        call, f"made tensors on the CPU ({spy.report()}); on meta nothing is allocated", hint=2
    )


@given(data=st.data(), fails=st.booleans())
def test_build_on_restores_the_default_device(kata, device, data, fails):
    before = data.draw(st.sampled_from(places(device)), label="default device before")
    dtype = data.draw(st.sampled_from([torch.float32, torch.float64]), label="default dtype")
    target = data.draw(st.sampled_from(places(device)), label="build on")
    seen: list[tuple[torch.device, torch.dtype]] = []

    def factory() -> nn.Module:
        seen.append((torch.get_default_device(), torch.get_default_dtype()))
        model = nn.Linear(2, 3)
        if fails:
            raise FactoryFailed("this factory fails on purpose")
        return model

    story = "a factory that raises" if fails else "a factory"
    call = f"build_on({str(target)!r}, <{story}>) with the default device {before} and {dtype}"
    with real_world(device), every_warning(), defaults(before, dtype):
        if fails:
            with say.raises(FactoryFailed, call, hint=1):
                kata.build_on(str(target), factory)
            model = None
        else:
            model = say.call(call, lambda: kata.build_on(str(target), factory), hint=1)
        after = torch.get_default_device(), torch.get_default_dtype()
    assert seen, say(call, "never called factory()", hint=1)
    assert same_device(seen[0][0], target), say(
        call, f"ran factory() with the default device {seen[0][0]}; expected {target}", hint=1
    )
    assert same_device(after[0], before), say(
        call,
        f"left the default device at {after[0]}; it must be back at {before}, what it was "
        f"before the call{', even though factory() raised' if fails else ''}. The default "
        "device is the whole program's: every tensor the caller makes afterwards without "
        f"naming a device would land on {after[0]}",
        hint=1,
    )
    assert after[1] == dtype and seen[0][1] == dtype, say(
        call,
        f"changed the default dtype (to {seen[0][1]} inside, {after[1]} after); it must stay "
        f"{dtype}: the default dtype is the caller's too",
        hint=1,
    )
    if model is not None:
        weight = model.weight
        assert same_device(weight.device, target) and weight.dtype == dtype, say(
            call, f"returned a weight on {weight.device} of {weight.dtype}", hint=1
        )


@pytest.mark.given
@pytest.mark.parametrize("bad", ["gpu", "cuda:x", ""])
def test_build_on_names_a_device_it_cannot_parse(kata, bad):
    call = f"build_on({bad!r}, factory)"
    with say.raises(ValueError, call, hint=3) as raised:
        kata.build_on(bad, lambda: nn.Linear(2, 2))
    assert repr(bad) in str(raised.value) or (bad and bad in str(raised.value)), say(
        call, f"raised ValueError({str(raised.value)!r}), which does not quote {bad!r}", hint=3
    )


# --- materialize -------------------------------------------------------------------------------


def on_meta(arch: Arch) -> nn.Module:
    with torch.device("meta"):
        return arch.make()


def compare_with_normal_build(call, got, expected, target, hint):
    """The materialized model against one built on `target` with the same seed."""
    mine = dict(tensors_of(got))
    for name, want in tensors_of(expected):
        have = mine.get(name)
        assert have is not None, say(call, f"lost {name}", hint=hint)
        assert same_device(have.device, target), say(
            call, f"left {name} on {have.device}; expected {target} ({where(got)})", hint=hint
        )
        if looks_uninitialised(have):
            pytest.fail(
                say(
                    call,
                    f"left {name} uninitialised ({have.flatten()[:4].tolist()}...): to_empty "
                    "only allocates; the module's reset_parameters() fills it",
                    hint=hint,
                ),
                pytrace=False,
            )
        holders = [n for n, t in got.named_parameters(remove_duplicate=False) if t is have]
        tied = (
            f" ({name} is one tensor held as {', '.join(holders)}; a model that ties it after "
            f"building holds the values of the first, {holders[0]})"
            if len(holders) > 1
            else ""
        )
        assert have.dtype == want.dtype and torch.equal(have, want), say(
            call,
            f"gave {name} the values {have.flatten()[:4].tolist()}...; a model built on "
            f"{target} with the same seed has {want.flatten()[:4].tolist()}...{tied}",
            hint=hint,
        )


@given(arch=archs(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_materialize_equals_a_normal_build(kata, device, arch, seed, data):
    spelling = data.draw(device_spellings(device), label="device")
    model = on_meta(arch)
    call = f"materialize(<{arch} built on meta>, {spelling!r})"
    with real_world(device):
        with seeded(seed, device), torch.device(device):
            expected = arch.make()
        with seeded(seed, device), uninitialised_memory_poisoned():
            got = say.call(
                call,
                lambda: kata.materialize(model, spelling),
                expected=f"the model with real, initialised tensors on {device}",
                hint=3,
            )
    assert got is model, say(
        call, f"returned another {type(got).__name__}; expected the model itself", hint=3
    )
    compare_with_normal_build(call, got, expected, device, hint=3)


@given(arch=archs(WITH_BUFFERS), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_materialize_initialises_buffers(kata, device, arch, seed):
    model = on_meta(arch)
    call = f"materialize(<{arch} built on meta>, {device.type!r})"
    with real_world(device):
        with seeded(seed, device), torch.device(device):
            expected = arch.make()
        with seeded(seed, device), uninitialised_memory_poisoned():
            got = say.call(call, lambda: kata.materialize(model, device.type), hint=3)
    buffers = dict(got.named_buffers())
    for name, want in expected.named_buffers():
        have = buffers.get(name)
        assert have is not None and same_device(have.device, device), say(
            call,
            f"left the buffer {name} on {None if have is None else have.device}; buffers must "
            f"be materialized too ({where(got)})",
            hint=3,
        )
        assert not looks_uninitialised(have) and torch.equal(have, want), say(
            call,
            f"left the buffer {name} at {have.flatten()[:4].tolist()}; a fresh model has "
            f"{want.flatten()[:4].tolist()}. BatchNorm's reset_parameters() resets its running "
            "statistics, even with affine=False (no parameters, only buffers)",
            hint=3,
        )
    compare_with_normal_build(call, got, expected, device, hint=3)


class Offset(nn.Module):
    """A buffer and no reset_parameters(): nothing could fill it in after to_empty."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.register_buffer("offset", torch.arange(n, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.offset


def real_buffer() -> nn.Module:
    model = nn.Sequential(nn.BatchNorm1d(3), nn.Linear(3, 1)).to("meta")
    model[0].running_mean = torch.zeros(3)
    return model


def half_real() -> nn.Module:
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    model[1].to("meta")
    return model


REFUSED = {
    "a model whose 0.weight holds real data": (half_real, "cpu", [r"0\.weight"]),
    "a model with an Offset module (a buffer, no reset_parameters)": (
        lambda: nn.Sequential(nn.Linear(2, 3), Offset(3)).to("meta"),
        "cpu",
        [r"Offset|\b1\b"],  # its class, or its name in the model
    ),
    "a model built on meta, to 'meta'": (lambda: on_meta(Arch("linear", 2, 2, 2)), "meta", []),
    "a model built on meta, to 'meta:0'": (lambda: on_meta(Arch("linear", 2, 2, 2)), "meta:0", []),
    "a model built on meta, to torch.device('meta')": (
        lambda: on_meta(Arch("linear", 2, 2, 2)),
        torch.device("meta"),
        [],
    ),
    "a model whose 0.running_mean (a buffer) holds real data": (
        real_buffer,
        "cpu",
        [r"0\.running_mean"],
    ),
    "a model built on meta, to 'gpu'": (lambda: on_meta(Arch("linear", 2, 2, 2)), "gpu", []),
}


@pytest.mark.given
@pytest.mark.parametrize("case", REFUSED)
def test_materialize_refuses_what_it_cannot_initialise(kata, case):
    make, to, names = REFUSED[case]
    model = make()
    before = {name: (t.device, t.clone()) for name, t in tensors_of(model)}
    call = f"materialize(<{case}>, {to!r})"
    with say.raises(ValueError, call, hint=3) as raised:
        kata.materialize(model, to)
    message = str(raised.value)
    missing = [
        name.replace(r"|\b1\b", " (or its name in the model, 1)")
        for name in names
        if not re.search(name, message)
    ]
    assert not missing, say(
        call, f"raised ValueError({message!r}), which does not name {', '.join(missing)}", hint=3
    )
    for name, t in tensors_of(model):
        device, value = before[name]
        same = t.device == device and (device.type == "meta" or torch.equal(t, value))
        assert same, say(call, f"changed {name} before refusing", hint=3)


RESETS: list[str] = []
"""The names of the modules whose reset_parameters() ran, in order (see `Noted`)."""


class Noted(nn.Linear):
    """A Linear that notes each call of its reset_parameters() in RESETS, by its name."""

    def __init__(self, note: str, n_in: int, n_out: int) -> None:
        object.__setattr__(self, "note", note)
        super().__init__(n_in, n_out)

    def reset_parameters(self) -> None:
        RESETS.append(self.note)
        super().reset_parameters()


class Block(nn.Module):
    """Holds no tensors itself; its reset_parameters() resets its children, as some blocks'
    do. A normal build never calls it: each child initialises itself as it is built."""

    def __init__(self) -> None:
        super().__init__()
        self.a = Noted("block.a", 3, 4)
        self.b = Noted("block.b", 4, 3)

    def reset_parameters(self) -> None:
        RESETS.append("block")
        self.a.reset_parameters()
        self.b.reset_parameters()


def noted_model() -> nn.Module:
    return nn.Sequential(Noted("0", 2, 3), Block(), nn.BatchNorm1d(3), Noted("3", 3, 1))


def test_materialize_resets_each_module_once_in_build_order(kata, device):
    RESETS.clear()
    with real_world(device), seeded(0, device), torch.device(device):
        expected = noted_model()
    built = list(RESETS)
    model = on_meta_noted()
    call = "materialize(<Sequential(Noted '0', Block(Noted 'block.a', 'block.b'), BatchNorm1d, "
    call += f"Noted '3') built on meta>, {device.type!r})"
    RESETS.clear()
    with real_world(device), seeded(0, device), uninitialised_memory_poisoned():
        got = say.call(call, lambda: kata.materialize(model, device.type), hint=3)
    why = (
        ". The Block holds no tensor of its own, and its reset_parameters() resets its "
        "children, a second time"
        if "block" in RESETS
        else ""
    )
    assert built == RESETS, say(
        call,
        f"ran reset_parameters() of {RESETS or 'no module'}, in that order; a normal build "
        f"initialises {built}, each once, in the order they are built (model.modules() order)"
        + why,
        hint=3,
    )
    compare_with_normal_build(call, got, expected, device, hint=3)


def on_meta_noted() -> nn.Module:
    with torch.device("meta"):
        return noted_model()


class Tied(nn.Module):
    """`last.weight` is `first.weight`, tied after both are built, as language models tie their
    output layer to their embedding: built normally, the tied weight keeps `first`'s values."""

    def __init__(self, a: int, b: int) -> None:
        super().__init__()
        self.first = nn.Linear(a, b)
        self.mid = nn.Linear(b, b)
        self.last = nn.Linear(a, b)
        self.last.weight = self.first.weight


@given(a=sizes, b=sizes, seed=st.integers(0, 2**32 - 1))
@settings(max_examples=10)
def test_materialize_keeps_tied_weights_tied(kata, device, a, b, seed):
    with torch.device("meta"):
        model = Tied(a, b)
    call = f"materialize(<a model whose last.weight is first.weight ({b}x{a}), built on meta>, "
    call += f"{device.type!r})"
    with real_world(device):
        with seeded(seed, device), torch.device(device):
            expected = Tied(a, b)
        with seeded(seed, device), uninitialised_memory_poisoned():
            got = say.call(call, lambda: kata.materialize(model, device.type), hint=3)
    assert got.last.weight is got.first.weight, say(
        call,
        "was given last.weight and first.weight as one Parameter, held by both modules, and "
        f"returned them as two tensors ({len(list(got.parameters()))} parameters; built on "
        f"{device.type}, the model has {len(list(expected.parameters()))}). The "
        "allocation gave each module's slot a tensor of its own, and a tie is one tensor held "
        "by two modules: two tensors start apart and train apart",
        hint=3,
    )
    compare_with_normal_build(call, got, expected, device, hint=3)


# --- a device this machine does not have --------------------------------------------------------


ABSENT = [(0, "cuda"), (0, "cuda:7"), (2, "cuda:2")]
"""(GPUs simulated, a device they do not include). Nothing is ever allocated on them."""


def refused_build_on(kata, spelling, notes: list[str]) -> None:
    def factory():
        notes.append("called factory()")
        return nn.Linear(2, 2)

    kata.build_on(spelling, factory)


def refused_materialize(kata, spelling, notes: list[str]) -> None:
    model = on_meta(Arch("linear", 2, 3, 2))
    try:
        kata.materialize(model, spelling)
    finally:
        off = [name for name, t in tensors_of(model) if t.device != META]
        if off:
            notes.append(f"moved {', '.join(off)} off meta")


ABSENT_CALLS = {
    "build_on": ("build_on({!r}, factory)", refused_build_on),
    "materialize": ("materialize(<Linear built on meta>, {!r})", refused_materialize),
    "creates_on": ("creates_on({!r})", lambda kata, spelling, notes: kata.creates_on(spelling)),
}


@pytest.mark.given
@pytest.mark.parametrize("func", ABSENT_CALLS)
@pytest.mark.parametrize(("gpus", "spelling"), ABSENT)
def test_a_device_this_machine_lacks_is_a_value_error(kata, func, gpus, spelling):
    template, attempt = ABSENT_CALLS[func]
    call = template.format(spelling) + f" on a machine with {gpus} GPU(s)"
    lesson = (
        f"there is no {spelling} on a machine with {gpus} GPU(s), and torch, asked to use it, "
        "fails deep inside without naming it. Ask the machine what it has before anything is "
        f"made or changed, and raise ValueError naming {spelling!r}"
    )
    notes: list[str] = []
    with fake_gpus(gpus), defaults(torch.device("cpu")):
        try:
            attempt(kata, spelling, notes)
            outcome = "returned"
        except ValueError as err:
            outcome = f"raised ValueError({str(err)!r})"
            if not notes:
                assert names_the_device(str(err), spelling), say(
                    call, f"{outcome}, which does not name {spelling!r}", hint=2
                )
                return
        except Exception as err:
            if say.unwritten(err):
                raise
            outcome = f"raised {type(err).__name__}: {err}"
    before = f", but {' and '.join(notes)} before it" if notes else ""
    pytest.fail(
        say(call, f"{outcome}{before}; expected ValueError: {lesson}", hint=2), pytrace=False
    )


# --- creates_on --------------------------------------------------------------------------------


@given(data=st.data())
def test_creates_on_reports_where_each_tensor_lands(kata, device, data):
    before = data.draw(st.sampled_from(places(device)), label="default device before")
    asked = data.draw(st.sampled_from(places(device)), label="asked")
    call = f"creates_on({str(asked)!r}) with the default device {before}"
    with real_world(device), defaults(before):
        got = say.call(call, lambda: kata.creates_on(str(asked)), hint=2)
        after = torch.get_default_device()
    assert isinstance(got, dict) and sorted(got) == sorted(CREATORS), say(
        call,
        f"returned {got!r}; expected a dict with exactly the keys {', '.join(CREATORS)}",
        hint=2,
    )
    wrong_type = [k for k, v in got.items() if not isinstance(v, torch.device)]
    assert not wrong_type, say(
        call, f"gave {', '.join(wrong_type)} a value that is not a torch.device", hint=2
    )
    expected = {name: asked for name in CREATORS} | {"torch.from_numpy": torch.device("cpu")}
    wrong = [f"{k}: {got[k]}, not {v}" for k, v in expected.items() if not same_device(got[k], v)]
    assert not wrong, say(
        call,
        f"got {'; '.join(wrong)}. A factory follows the default device, but "
        "torch.from_numpy shares the array's memory, on the CPU",
        hint=2,
    )
    assert same_device(after, before), say(
        call, f"left the default device at {after}; it was {before}", hint=1
    )
