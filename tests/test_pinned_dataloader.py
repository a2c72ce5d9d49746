"""Tests for katas/pinned_dataloader.py.

Without a GPU, the cpu tier plays one: `forced_pin_path` makes the DataLoader believe there is a
CUDA accelerator and replaces `Tensor.pin_memory` with a recording fake (a plain clone that the
patched `Tensor.is_pinned` then reports as pinned); `spy_moves` records every call that puts a
tensor on a device (`Tensor.to`, `Tensor.cuda`, `copy_` into a tensor made there...) and only
pretends to move to an accelerator. Nothing is ever allocated on
CUDA there. The cuda tier checks real pinned batches and real copies.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections import namedtuple
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch.overrides import TorchFunctionMode
from torch.utils.data import DataLoader, Dataset, RandomSampler, SequentialSampler, TensorDataset

from dojo import harness
from tests.strategies import cpu_spellings, gpu_counts, shapes, tensors
from tests.support import (
    Say,
    describe,
    fake_gpus,
    names_the_device,
    plain_repr,
    quotes,
    real_world,
    recorded_warnings,
    same_device,
    torch_rejects,
)

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

# Ways to name an accelerator. None is allocated on: the cpu tier only pretends to move there.
ACCELERATORS = [
    "cuda",
    "cuda:0",
    "cuda:1",
    torch.device("cuda"),
    torch.device("cuda", 3),
    "xpu",
    "xpu:1",
]
METAS = ["meta", torch.device("meta")]


@st.composite
def existing_accelerators(draw) -> tuple[int, Any]:
    """(n, device): a machine with n simulated GPUs, and a spelling of one of them."""
    n = draw(st.integers(1, 8))
    index = draw(st.integers(0, n - 1))
    spellings = [f"cuda:{index}", torch.device("cuda", index)]
    if index == 0:
        spellings += ["cuda", torch.device("cuda")]
    return n, draw(st.sampled_from(spellings))


@st.composite
def missing_devices(draw) -> tuple[int, Any]:
    """(n, device): a machine with n simulated GPUs, and a device it does not have: a GPU
    index from n up, a bare "cuda" when n is 0, or another accelerator type."""
    n = draw(gpu_counts)
    index = draw(st.integers(n, 15))
    options = [f"cuda:{index}", torch.device("cuda", index), "xpu", "xpu:1", torch.device("mps")]
    if n == 0:
        options += ["cuda", torch.device("cuda")]
    return n, draw(st.sampled_from(options))


# The DataLoader's warning: "'pin_memory' argument is set as true but no accelerator is found..."
PIN_WARNING = "pin_memory"

Pair = namedtuple("Pair", "x y")
Sample = namedtuple("Sample", "image label meta")


class Marker:
    """A value that is not a tensor; to_device must hand back this very object."""

    def __repr__(self) -> str:
        return f"Marker@{id(self):x}"


# --- simulated machines -----------------------------------------------------------------------


@contextlib.contextmanager
def forced_pin_path() -> Iterator[list[tuple[torch.Tensor, torch.Tensor]]]:
    """A machine whose accelerator is CUDA as far as the DataLoader can tell.

    `Tensor.pin_memory` becomes a fake that returns a clone and records `(source, clone)`;
    the patched `Tensor.is_pinned` is True exactly for those clones. The DataLoader pins in the
    main process (in its pin thread when there are workers), so the patches reach it.
    """
    pinned: list[tuple[torch.Tensor, torch.Tensor]] = []
    lock = threading.Lock()
    real_clone = torch.Tensor.clone

    def fake_pin_memory(self, *args, **kwargs):
        out = real_clone(self)
        with lock:
            pinned.append((self, out))
        return out

    def fake_is_pinned(self, *args, **kwargs):
        with lock:
            return any(self is out for _, out in pinned)

    with contextlib.ExitStack() as stack:
        stack.enter_context(fake_gpus(1))
        for owner, attr, fake in (
            (torch.accelerator, "current_device_index", lambda: 0),
            (torch.accelerator, "set_device_index", lambda index: None),
            (torch.Tensor, "pin_memory", fake_pin_memory),
            (torch.Tensor, "is_pinned", fake_is_pinned),
        ):
            stack.enter_context(harness.patched(owner, attr, fake))
        yield pinned


@contextlib.contextmanager
def pretend_pinned(pinned: list[torch.Tensor]) -> Iterator[None]:
    """Make `is_pinned()` True for exactly these tensors (pinning needs an accelerator)."""

    def fake_is_pinned(self, *args, **kwargs):
        return any(self is t for t in pinned)

    with mock.patch.object(torch.Tensor, "is_pinned", fake_is_pinned):
        yield


@plain_repr
@dataclass
class Move:
    source: torch.Tensor
    target: torch.device | None  # None: a dtype-only conversion
    non_blocking: bool
    result: torch.Tensor

    def __str__(self) -> str:
        where = "a dtype change" if self.target is None else f"a move to {self.target}"
        return f"{where} of {describe(self.source)} (non_blocking={self.non_blocking})"


def _to_arguments(args: tuple, kwargs: dict, device_of: Callable) -> tuple[Any, bool]:
    """The device and non_blocking of a Tensor.to call, from any of its three signatures."""
    device = kwargs.get("device")
    non_blocking = kwargs.get("non_blocking", False)
    rest = list(args)
    if rest:
        first = rest.pop(0)
        if isinstance(first, torch.Tensor):  # to(other, non_blocking, copy)
            device, at = device_of(first), 0
        elif isinstance(first, torch.dtype):  # to(dtype, non_blocking, copy)
            at = 0
        else:  # to(device, dtype, non_blocking, copy)
            device, at = first, 1
        if len(rest) > at:
            non_blocking = rest[at]
    return device, bool(non_blocking)


class MoveSpy(TorchFunctionMode):
    """Sees every torch call the code under test makes (a TorchFunctionMode), and records each
    one that puts a tensor's values on a device: `Tensor.to`, `Tensor.cuda`, `dst.copy_(src)`,
    `torch.as_tensor(t, device=...)`, whichever the code chose.

    With `pretend`, nothing is allocated on an accelerator: a tensor made there (by a move, or
    by a factory such as `torch.empty_like(t, device="cuda")`) is made on the CPU instead and
    remembered as being on that device, which its `.device` then reports; a later
    `copy_` into it is a move to that device."""

    def __init__(self, pretend: bool) -> None:
        super().__init__()
        self.pretend = pretend
        self.moves: list[Move] = []
        self.simulated: dict[int, tuple[torch.Tensor, torch.device]] = {}  # id -> (t, device)

    def device_of(self, t: torch.Tensor) -> torch.device:
        held = self.simulated.get(id(t))
        return held[1] if held is not None and held[0] is t else t.device

    def _pretends(self, device) -> bool:
        return self.pretend and device is not None and is_accelerator(device)

    def _simulate(self, t: torch.Tensor, device) -> torch.Tensor:
        self.simulated[id(t)] = (t, torch.device(device))  # a strong reference: ids stay unique
        return t

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func == torch.Tensor.device.__get__:
            return self.device_of(args[0])
        if func is torch.Tensor.to:
            src, *rest = args
            device, non_blocking = _to_arguments(tuple(rest), kwargs, self.device_of)
            target = None if device is None else torch.device(device)
            if self._pretends(target):
                result = self._simulate(src.clone(), target)
            else:
                result = func(*args, **kwargs)
            self.moves.append(Move(src, target, non_blocking, result))
            return result
        if func is torch.Tensor.cuda:
            src, *rest = args
            device = rest[0] if rest else kwargs.get("device")
            non_blocking = bool(rest[1] if len(rest) > 1 else kwargs.get("non_blocking", False))
            index = device.index if isinstance(device, torch.device) else device
            target = torch.device("cuda", index) if index is not None else torch.device("cuda")
            if self._pretends(target):
                result = self._simulate(src.clone(), target)
            else:
                result = func(*args, **kwargs)
            self.moves.append(Move(src, target, non_blocking, result))
            return result
        if func is torch.Tensor.copy_:
            dst, src, *rest = args
            non_blocking = bool(rest[0] if rest else kwargs.get("non_blocking", False))
            result = func(*args, **kwargs)
            self.moves.append(Move(src, self.device_of(dst), non_blocking, dst))
            return result
        device = kwargs.get("device")
        if self._pretends(device):  # a factory asked for an accelerator: make it on the CPU
            kwargs["device"] = "cpu"
            kwargs.pop("pin_memory", None)
            result = func(*args, **kwargs)
            if not isinstance(result, torch.Tensor):
                return result
            if any(result is a for a in args):  # torch.as_tensor(t, ...) can hand back t
                result = result.clone()
            self._simulate(result, device)
            copies = func in (torch.as_tensor, torch.tensor)  # of their first argument
            if copies and args and isinstance(args[0], torch.Tensor):
                self.moves.append(Move(args[0], torch.device(device), False, result))
            return result
        return func(*args, **kwargs)


@contextlib.contextmanager
def spy_moves(*, pretend: bool = True) -> Iterator[list[Move]]:
    """Record every call that puts a tensor on a device (`MoveSpy`).

    With `pretend`, a move to an accelerator is not performed: its result is a CPU clone that
    reports the accelerator as its device. Moves to the CPU or to meta, and every move without
    `pretend`, really happen.
    """
    with MoveSpy(pretend) as spy:
        yield spy.moves


# --- batches ----------------------------------------------------------------------------------

small_tensors = shapes(max_dims=2, max_side=4).flatmap(lambda shape: tensors(shape=shape))
plain_values = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=4)
    | st.binary(max_size=3)
    | st.builds(Marker)
)


def containers(children):
    return (
        st.lists(children, max_size=3)
        | st.lists(children, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=3), children, max_size=3)
        | st.builds(Pair, children, children)
        | st.builds(Sample, children, children, children)
    )


batches = st.recursive(small_tensors | plain_values, containers, max_leaves=8)
"""Nested batches: tensors and plain values in lists, tuples, dicts and namedtuples."""


def walk(batch: Any, path: str = "batch") -> Iterator[tuple[str, Any]]:
    """(path, value) for every node of `batch`, containers before their items."""
    yield path, batch
    if isinstance(batch, dict):
        for key, value in batch.items():
            yield from walk(value, f"{path}[{key!r}]")
    elif isinstance(batch, tuple) and hasattr(batch, "_fields"):
        for name, value in zip(batch._fields, batch, strict=True):
            yield from walk(value, f"{path}.{name}")
    elif isinstance(batch, (list, tuple)):
        for i, value in enumerate(batch):
            yield from walk(value, f"{path}[{i}]")


def tensors_in(batch: Any) -> list[torch.Tensor]:
    return [v for _, v in walk(batch) if isinstance(v, torch.Tensor)]


def outline(batch: Any) -> str:
    """A short picture of a batch for messages: tensors by shape, the rest by repr."""
    if isinstance(batch, torch.Tensor):
        return f"<tensor of shape {tuple(batch.shape)}>"
    if isinstance(batch, dict):
        return "{" + ", ".join(f"{k!r}: {outline(v)}" for k, v in batch.items()) + "}"
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        inner = ", ".join(f"{n}={outline(v)}" for n, v in zip(batch._fields, batch, strict=True))
        return f"{type(batch).__name__}({inner})"
    if isinstance(batch, tuple):
        inner = ", ".join(outline(v) for v in batch)
        return f"({inner},)" if len(batch) == 1 else f"({inner})"
    if isinstance(batch, list):
        return "[" + ", ".join(outline(v) for v in batch) + "]"
    text = repr(batch)
    return text if len(text) <= 24 else text[:21] + "..."


@contextlib.contextmanager
def recursion_budget(frames: int = 1000) -> Iterator[None]:
    """Allow `frames` more nested calls than the caller has, so that a solution that recurses
    forever fails the same way whatever the caller's depth (hypothesis moves the limit)."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def call_to_device(kata, batch: Any, device, call: str) -> Any:
    """kata.to_device(batch, device), with a crash reported as a learner message.

    An AssertionError rather than pytest.fail, so that hypothesis shrinks the batch.
    """
    try:
        with recursion_budget():
            return kata.to_device(batch, device)
    except NotImplementedError:
        raise
    except Exception as err:
        raise AssertionError(
            say(
                call,
                f"raised {type(err).__name__}: {err}; expected the batch back, rebuilt "
                "container by container, with every tensor moved",
                hint=3,
            )
        ) from None


def check_structure(
    call: str, src: Any, out: Any, check_tensor: Callable[[str, torch.Tensor, Any], None]
) -> None:
    """`out` has the structure of `src`: same container types, keys and lengths, the very same
    non-tensor values; each tensor pair goes to `check_tensor(path, source, result)`."""

    def visit(path: str, s: Any, o: Any) -> None:
        if isinstance(s, torch.Tensor):
            check_tensor(path, s, o)
            return
        if not isinstance(s, (dict, list, tuple)):
            assert o is s, say(
                call,
                f"returned {outline(o)} at {path}, where the batch held {outline(s)}; values "
                "that are not tensors must come back as the very same objects",
                hint=3,
            )
            return
        assert type(o) is type(s), say(
            call,
            f"turned {path}, a {type(s).__name__}, into {outline(o)}, a {type(o).__name__}; "
            "every container must keep its type",
            hint=3,
        )
        if isinstance(s, dict):
            assert list(o) == list(s), say(
                call, f"returned {path} with keys {list(o)}; expected {list(s)}", hint=3
            )
            for key in s:
                visit(f"{path}[{key!r}]", s[key], o[key])
            return
        assert len(o) == len(s), say(
            call,
            f"returned {path} with {len(o)} item(s): {outline(o)}; expected {len(s)}: {outline(s)}",
            hint=3,
        )
        names = s._fields if hasattr(s, "_fields") else None
        for i, (si, oi) in enumerate(zip(s, o, strict=True)):
            visit(f"{path}.{names[i]}" if names else f"{path}[{i}]", si, oi)

    visit("batch", src, out)


def snapshot(batch: Any) -> list[tuple[str, int]]:
    return [(path, id(value)) for path, value in walk(batch)]


def check_batch_untouched(call: str, batch: Any, before: list[tuple[str, int]]) -> None:
    assert snapshot(batch) == before, say(
        call,
        "changed the caller's batch in place; the caller still holds that batch, and the "
        "contract leaves it as it was",
        hint=3,
    )


def is_accelerator(device) -> bool:
    return torch.device(device).type not in ("cpu", "meta")


def moved_by(call: str, moves: list[Move], device, pinned) -> Callable:
    """A check_structure callback: each tensor went through Tensor.to (or .cuda) to `device`,
    with non_blocking exactly when its source is in `pinned` and `device` is an accelerator."""
    target = torch.device(device)
    accelerator = is_accelerator(target)

    def check(path: str, src: torch.Tensor, out: Any) -> None:
        move = next((m for m in moves if m.result is out and m.source is src), None)
        if move is None and target.type == "cpu" and out is src:
            return  # already on the CPU: nothing to move
        assert move is not None, say(
            call,
            f"returned {outline(out)} at {path}, which is not a copy of that tensor made on "
            f"{target} (by Tensor.to, Tensor.cuda, copy_ or any other call)",
            hint=2,
        )
        assert move.target is not None and same_device(move.target, target), say(
            call, f"moved {path} to {move.target}; expected {target}", hint=2
        )
        is_pinned = any(src is p for p in pinned)
        want = accelerator and is_pinned
        kind = "pinned" if is_pinned else "pageable (not pinned)"
        if want:
            why = (
                "a copy from pinned memory to an accelerator can overlap with the device's work, "
                "so it must not block"
            )
        elif accelerator:
            why = (
                "from pageable memory the host waits anyway while the driver stages the data, "
                "so the copy cannot overlap with anything"
            )
        elif target.type == "meta":
            why = "meta holds no data, so there is no copy to overlap with anything"
        else:
            why = (
                f"nothing on {target.type} can overlap with the copy, and a non-blocking copy to "
                "the host may return before its data has arrived"
            )
        # What is moved where belongs to the call: one problem met by several calls reads once.
        assert move.non_blocking == want, say(
            f"{call}, moving {path} to {target},",
            f"copied a {kind} tensor with non_blocking={move.non_blocking}; "
            f"expected non_blocking={want}: {why}",
            hint=1,
        )

    return check


# --- loader_kwargs ----------------------------------------------------------------------------


@given(
    n=gpu_counts,
    device=st.sampled_from(ACCELERATORS),
    num_workers=st.none() | st.integers(0, 8),
)
def test_loader_kwargs_pins_for_an_accelerator(kata, n, device, num_workers):
    with fake_gpus(n):
        if num_workers is None:
            got = kata.loader_kwargs(device)
            call, num_workers = f"loader_kwargs({device!r})", 1
        else:
            got = kata.loader_kwargs(device, num_workers=num_workers)
            call = f"loader_kwargs({device!r}, num_workers={num_workers})"
    want = {"num_workers": num_workers, "pin_memory": True}
    assert isinstance(got, dict) and got == want, say(
        f"{call} on a machine with {n} GPU(s)",
        f"returned {got!r}; expected {want!r}: {str(device)!r} names an accelerator, and a "
        "batch headed to an accelerator gains from pinned memory. The answer depends on the "
        "device asked for, not on the machine",
        hint=1,
    )


@given(n=gpu_counts, device=cpu_spellings(), num_workers=st.none() | st.integers(0, 8))
def test_loader_kwargs_is_empty_for_the_cpu(kata, n, device, num_workers):
    with fake_gpus(n):
        if num_workers is None:
            got, call = kata.loader_kwargs(device), f"loader_kwargs({device!r})"
        else:
            got = kata.loader_kwargs(device, num_workers=num_workers)
            call = f"loader_kwargs({device!r}, num_workers={num_workers})"
    assert isinstance(got, dict) and got == {}, say(
        f"{call} on a machine with {n} GPU(s)",
        f"returned {got!r}; expected {{}}: batches for the CPU gain nothing from pinned memory, "
        "and the DataLoader warns when asked to pin without an accelerator",
        hint=1,
    )


@given(n=gpu_counts, device=st.sampled_from(METAS))
def test_loader_kwargs_is_empty_for_meta(kata, n, device):
    with fake_gpus(n):
        got = kata.loader_kwargs(device)
    assert isinstance(got, dict) and got == {}, say(
        f"loader_kwargs({device!r})",
        f"returned {got!r}; expected {{}}: meta tensors hold no data, so no copy is ever "
        "staged for them",
        hint=1,
    )


BAD_DEVICE_STRINGS = ["gpu", "GPU", "CUDA", "cuda:x", " cuda", "cuda0", "", "nvidia:0", "cpu:-1"]


def check_quoted(call: str, err: BaseException, text: str, hint: int) -> None:
    message = str(err)
    assert quotes(message, text), say(
        call,
        f"raised ValueError({message!r}), which does not quote the input {text!r} "
        "(between quote marks, as {device!r} in an f-string does)",
        hint=hint,
    )


@pytest.mark.given
@given(text=st.sampled_from(BAD_DEVICE_STRINGS) | st.text(max_size=8))
def test_loader_kwargs_quotes_a_bad_device(kata, text):
    assume(torch_rejects(text))
    call = f"loader_kwargs({text!r})"
    with say.raises(ValueError, call, hint=3) as raised:
        kata.loader_kwargs(text)
    check_quoted(call, raised.value, text, hint=3)


@pytest.mark.given
@given(
    device=st.sampled_from(ACCELERATORS) | cpu_spellings(), num_workers=st.integers(max_value=-1)
)
def test_loader_kwargs_rejects_a_negative_worker_count(kata, device, num_workers):
    call = f"loader_kwargs({device!r}, num_workers={num_workers})"
    with say.raises(ValueError, call, hint=3):
        kata.loader_kwargs(device, num_workers=num_workers)


# --- make_loader ------------------------------------------------------------------------------


def numbered_dataset(size: int) -> TensorDataset:
    """Sample i is (features, i): the labels say which samples a loader produced."""
    features = torch.arange(size * 3, dtype=torch.float32).reshape(size, 3)
    return TensorDataset(features, torch.arange(size))


class NamedSamples(Dataset):
    """Samples like {"image": tensor, "label": i, "name": "s<i>"}; batches are dicts whose
    "name" is a list of strings, which to_device must keep."""

    def __init__(self, size: int) -> None:
        self.images = torch.arange(size * 6, dtype=torch.float32).reshape(size, 2, 3)
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> dict:
        return {"image": self.images[i], "label": i, "name": f"s{i}"}


@given(
    n=gpu_counts,
    device=st.sampled_from(ACCELERATORS) | cpu_spellings(),
    batch_size=st.integers(1, 8),
    shuffle=st.none() | st.booleans(),
)
def test_make_loader_uses_loader_kwargs(kata, n, device, batch_size, shuffle):
    dataset = numbered_dataset(10)
    with fake_gpus(n):
        if shuffle is None:
            loader = kata.make_loader(dataset, batch_size, device)
            call, shuffle = f"make_loader(dataset, {batch_size}, {device!r})", True
        else:
            loader = kata.make_loader(dataset, batch_size, device, shuffle=shuffle)
            call = f"make_loader(dataset, {batch_size}, {device!r}, shuffle={shuffle})"
    assert isinstance(loader, DataLoader), say(
        call, f"returned a {type(loader).__name__}; expected a torch DataLoader", hint=2
    )
    assert loader.dataset is dataset, say(
        call,
        "built its DataLoader over a new dataset, not the caller's; expected a loader over "
        "the dataset as it was given",
        hint=3,
    )
    pin = is_accelerator(device)
    got = {
        "batch_size": loader.batch_size,
        "pin_memory": loader.pin_memory,
        "num_workers": loader.num_workers,
    }
    want = {"batch_size": batch_size, "pin_memory": pin, "num_workers": 1 if pin else 0}
    assert got == want, say(
        call,
        f"built a DataLoader with {got}; expected {want}, the options loader_kwargs({device!r}) "
        "gives",
        hint=3,
    )
    sampler = RandomSampler if shuffle else SequentialSampler
    assert isinstance(loader.sampler, sampler), say(
        call,
        f"built a DataLoader with a {type(loader.sampler).__name__}; shuffle={shuffle} means a "
        f"{sampler.__name__}",
        hint=3,
    )


@given(n=gpu_counts, device=st.sampled_from(ACCELERATORS) | cpu_spellings())
def test_make_loader_leaves_the_dataset_where_it_is(kata, n, device):
    dataset = numbered_dataset(6)
    originals = list(dataset.tensors)
    pointers = [t.untyped_storage().data_ptr() for t in originals]
    call = f"make_loader(dataset, 2, {device!r})"
    pins = []

    def record_pin(self, *args, **kwargs):
        pins.append(self)
        return self

    with (
        fake_gpus(n),
        spy_moves() as moves,
        mock.patch.object(torch.Tensor, "pin_memory", record_pin),
    ):
        kata.make_loader(dataset, 2, device)
    assert not moves and not pins, say(
        call,
        f"moved or pinned {len(moves) + len(pins)} tensor(s) of the dataset up front; a loader "
        "only describes how batches will be made, and each batch moves on its own",
        hint=2,
    )
    same = all(a is b for a, b in zip(dataset.tensors, originals, strict=True))
    unchanged = [t.untyped_storage().data_ptr() for t in dataset.tensors] == pointers
    assert same and unchanged and all(t.device.type == "cpu" for t in dataset.tensors), say(
        call, "replaced the dataset's tensors; the dataset must stay where it is", hint=2
    )


@settings(max_examples=25)
@given(
    device=cpu_spellings(),
    size=st.integers(1, 20),
    batch_size=st.integers(1, 8),
    shuffle=st.booleans(),
)
def test_cpu_loader_does_not_warn(kata, device, size, batch_size, shuffle):
    call = f"make_loader(dataset of {size}, {batch_size}, {device!r}, shuffle={shuffle})"
    with fake_gpus(0), recorded_warnings() as caught:
        batches = list(
            kata.make_loader(numbered_dataset(size), batch_size, device, shuffle=shuffle)
        )
    pin_warnings = [str(w.message) for w in caught if PIN_WARNING in str(w.message)]
    assert not pin_warnings, say(
        call,
        f"made the DataLoader warn: {pin_warnings}; a CPU loader must not ask for pinned memory",
        hint=1,
    )
    labels = [int(i) for _, label in batches for i in label]
    want = list(range(size))
    assert sorted(labels) == want and (shuffle or labels == want), say(
        call,
        f"gave the samples {labels}; expected each of 0..{size - 1} once"
        + ("" if shuffle else ", in order"),
        hint=3,
    )


def test_gpu_loader_warns_without_a_gpu(kata):
    call = "make_loader(dataset, 4, 'cuda') on a machine without an accelerator"
    with fake_gpus(0), recorded_warnings() as caught:
        list(kata.make_loader(numbered_dataset(10), 4, "cuda"))
    pin_warnings = [w for w in caught if PIN_WARNING in str(w.message)]
    assert pin_warnings, say(
        call,
        "loaded without the DataLoader's warning that pin_memory=True needs an accelerator; a "
        "loader for an accelerator must ask for pinned memory",
        hint=1,
    )


def test_forced_pin_path_pins_every_batch(kata):
    size, batch_size = 10, 4
    call = f"make_loader(dataset of {size} samples, {batch_size}, 'cuda', shuffle=False)"
    with forced_pin_path() as pinned, recorded_warnings() as caught:
        batches = list(kata.make_loader(NamedSamples(size), batch_size, "cuda", shuffle=False))
        stray = [str(w.message) for w in caught if PIN_WARNING in str(w.message)]
        assert not stray, say(call, f"warned: {stray}", hint=1)
        assert pinned, say(
            call,
            "gave batches that never went through Tensor.pin_memory(); a loader for an "
            "accelerator stages each batch in pinned memory (pin_memory=True)",
            hint=1,
        )
        labels = [int(i) for b in batches for i in b["label"]]
        assert labels == list(range(size)), say(call, f"gave the samples {labels}", hint=3)
        staged = [out for _, out in pinned]
        for k, batch in enumerate(batches):
            for t in tensors_in(batch):
                assert any(t is s for s in staged), say(
                    call, f"gave batch {k} with a tensor that was not pinned", hint=1
                )
        expected = sum(len(tensors_in(b)) for b in batches)
        assert len(pinned) == expected, say(
            call,
            f"pinned {len(pinned)} tensors for {len(batches)} batches holding {expected}; "
            "the DataLoader pins each batch once, as it hands it out",
            hint=2,
        )

        for k, batch in enumerate(batches):
            move_call = f"to_device(batch {k} of that loader, 'cuda')"
            before = snapshot(batch)
            with spy_moves() as moves:
                out = call_to_device(kata, batch, "cuda", move_call)
            check_batch_untouched(move_call, batch, before)
            check_structure(move_call, batch, out, moved_by(move_call, moves, "cuda", staged))


# --- to_device --------------------------------------------------------------------------------


@given(batch=batches, machine=existing_accelerators())
def test_to_device_keeps_the_structure(kata, batch, machine):
    n, device = machine
    call = f"to_device({outline(batch)}, {device!r}) on a machine with {n} GPU(s)"
    before = snapshot(batch)
    with fake_gpus(n), spy_moves() as moves:
        out = call_to_device(kata, batch, device, call)
    check_batch_untouched(call, batch, before)
    check_structure(call, batch, out, moved_by(call, moves, device, pinned=[]))


TARGET_KINDS = {
    "accelerator": existing_accelerators(),
    "cpu": st.tuples(gpu_counts, cpu_spellings()),
    "meta": st.tuples(gpu_counts, st.sampled_from(METAS)),
}


# One case per kind of target, so every kind meets pinned sources under any seed.
@pytest.mark.parametrize("kind", TARGET_KINDS)
@given(data=st.data(), batch=batches)
def test_to_device_non_blocking_only_when_pinned(kata, kind, data, batch):
    n, device = data.draw(TARGET_KINDS[kind], label="machine and device")
    found = tensors_in(batch)
    flags = data.draw(st.lists(st.booleans(), min_size=len(found), max_size=len(found)), "pinned")
    pinned = [t for t, flag in zip(found, flags, strict=True) if flag]
    call = (
        f"to_device({outline(batch)}, {device!r}) with {len(pinned)} pinned tensor(s), on a "
        f"machine with {n} GPU(s)"
    )
    with fake_gpus(n), pretend_pinned(pinned), spy_moves() as moves:
        out = call_to_device(kata, batch, device, call)
    check_structure(call, batch, out, moved_by(call, moves, device, pinned))


@pytest.mark.given
@given(
    value=st.sampled_from(
        [{"x": torch.zeros(2)}, [torch.zeros(2), 1], torch.zeros(3), "no tensor at all"]
    ),
    text=st.sampled_from(BAD_DEVICE_STRINGS),
)
def test_to_device_quotes_a_bad_device(kata, value, text):
    assume(torch_rejects(text))
    call = f"to_device({outline(value)}, {text!r})"
    with say.raises(ValueError, call, hint=3) as raised:
        kata.to_device(value, text)
    check_quoted(call, raised.value, text, hint=3)


@pytest.mark.given
@given(batch=batches, machine=missing_devices())
def test_to_device_refuses_a_device_that_does_not_exist(kata, batch, machine):
    n, device = machine
    name = str(torch.device(device))
    gpus = (
        "no GPU" if n == 0 else "one GPU, cuda:0" if n == 1 else f"{n} GPUs, cuda:0 to cuda:{n - 1}"
    )
    call = f"to_device({outline(batch)}, {device!r}) on a machine with {gpus},"
    before = snapshot(batch)
    expect = say.raises(ValueError, call, hint=3)
    with fake_gpus(n), spy_moves() as moves, expect as raised, recursion_budget():
        kata.to_device(batch, device)
    assert names_the_device(str(raised.value), device), say(
        call,
        f"raised ValueError({str(raised.value)!r}), which does not name the device {name!r}",
        hint=3,
    )
    assert not moves, say(
        call,
        f"moved {len(moves)} tensor(s) before it raised; the contract refuses a device this "
        "machine does not have before anything moves",
        hint=3,
    )
    check_batch_untouched(call, batch, before)


NOT_DEVICES = [0, 1, None, 1.5, b"cuda", ["cuda"]]


@pytest.mark.given
@given(value=st.sampled_from(NOT_DEVICES))
def test_a_device_that_is_not_a_str_is_a_type_error(kata, value):
    for call, fn in (
        (f"loader_kwargs({value!r})", lambda: kata.loader_kwargs(value)),
        (
            f"to_device([torch.zeros(2)], {value!r})",
            lambda: kata.to_device([torch.zeros(2)], value),
        ),
    ):
        with fake_gpus(2), spy_moves(), say.raises(TypeError, call, hint=3):
            fn()


@pytest.mark.given
@given(
    device=st.sampled_from(ACCELERATORS) | cpu_spellings(),
    num_workers=st.sampled_from([True, False, 1.0, "2", None]),
)
def test_loader_kwargs_rejects_a_worker_count_that_is_not_an_int(kata, device, num_workers):
    call = f"loader_kwargs({device!r}, num_workers={num_workers!r})"
    with say.raises(TypeError, call, hint=3):
        kata.loader_kwargs(device, num_workers=num_workers)


# --- on the real machine: the cuda tier, whose bodies also run on cpu -------------------------


def test_loader_batches_are_pinned_and_move_to_the_device(kata, device):
    """On CUDA, `DataLoader(pin_memory=True)` copies each batch into page-locked memory in its pin
    thread (`_pin_memory_loop`, torch/utils/data/_utils/pin_memory.py), so every tensor of a
    batch `is_pinned()`; a copy from pinned memory with non_blocking=True can overlap with
    computation (docs/source/notes/cuda.rst, "Use pinned memory buffers")."""
    size = 10
    call = f"make_loader(dataset of {size}, 4, {device!r}, shuffle=False)"
    with real_world(device), recorded_warnings() as caught:
        batches = list(kata.make_loader(numbered_dataset(size), 4, device, shuffle=False))
        stray = [str(w.message) for w in caught if PIN_WARNING in str(w.message)]
        assert not stray, say(call, f"warned: {stray}", hint=1)
        staged = device.type != "cpu"
        for k, batch in enumerate(batches):
            for t in tensors_in(batch):
                assert t.is_pinned() == staged, say(
                    call,
                    f"gave batch {k} with is_pinned()={t.is_pinned()}; expected {staged} for "
                    f"batches headed to {device}",
                    hint=1,
                )
            move_call = f"to_device(batch {k}, {device!r})"
            with spy_moves(pretend=False) as moves:
                out = call_to_device(kata, batch, device, move_call)
            check_structure(
                move_call, batch, out, moved_by(move_call, moves, device, tensors_in(batch))
            )
            for src, got in zip(tensors_in(batch), tensors_in(out), strict=True):
                assert same_device(got.device, device) and torch.equal(got.cpu(), src), say(
                    move_call, f"returned {got} on {got.device}; expected {src} on {device}", hint=2
                )
    labels = [int(i) for _, label in batches for i in label]
    assert labels == list(range(size)), say(call, f"gave the samples {labels}", hint=3)


@settings(max_examples=30)
@given(data=st.data(), batch=batches)
def test_to_device_on_the_device_equals_the_source(kata, device, data, batch):
    """On CUDA, `t.pin_memory()` returns a copy in pinned memory (docs/source/notes/cuda.rst, "Use
    pinned memory buffers"), so some sources are pinned for real and some are not."""
    with real_world(device):
        found = tensors_in(batch)
        if device.type != "cpu":  # pin some sources for real
            flags = data.draw(st.lists(st.booleans(), min_size=len(found), max_size=len(found)))
            pinned = {id(t): t.pin_memory() for t, f in zip(found, flags, strict=True) if f}
            batch = rebuild(batch, lambda t: pinned.get(id(t), t))
        pinned = [t for t in tensors_in(batch) if t.is_pinned()]
        call = f"to_device({outline(batch)}, {device!r}) with {len(pinned)} pinned tensor(s)"
        with spy_moves(pretend=False) as moves:
            out = call_to_device(kata, batch, device, call)
        check_move = moved_by(call, moves, device, pinned)

        def check(path: str, src: torch.Tensor, got: Any) -> None:
            check_move(path, src, got)
            assert isinstance(got, torch.Tensor) and same_device(got.device, device), say(
                call, f"returned {outline(got)} at {path}; expected a tensor on {device}", hint=2
            )
            assert got.dtype == src.dtype and torch.equal(got.cpu(), src), say(
                call, f"returned {got} at {path}; expected the values {src}", hint=2
            )

        check_structure(call, batch, out, check)


def rebuild(batch: Any, leaf: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    """The test's own plain copy of `batch`, with each tensor replaced by `leaf(tensor)`."""
    if isinstance(batch, torch.Tensor):
        return leaf(batch)
    if isinstance(batch, dict):
        return {k: rebuild(v, leaf) for k, v in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(rebuild(v, leaf) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(rebuild(v, leaf) for v in batch)
    return batch
