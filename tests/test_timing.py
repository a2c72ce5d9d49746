"""Tests for katas/timing.py.

The cpu tier times functions on a scripted machine, `World`, so every answer is known exactly:
- its host clock moves only when the host works or waits;
- on simulated CUDA devices (one or two), a call only queues its work on its GPU: the GPU runs
  it later, and the host clock catches up only when the host waits for that GPU. A timer read
  without waiting therefore sees the launch (zero seconds here), as on a real GPU, and a clock
  read while the timed GPU still has work queued is reported;
- every honest clock reads this machine, however the code under test reaches it:
  `time.perf_counter`, `time.perf_counter_ns`, `timeit.default_timer`, `torch.cuda.Event`,
  `torch.Event`, as a module attribute or through a `from` import (see `World.installed`);
  the wrong clocks (`time.time`, `time.monotonic`, `time.process_time`, ...) report their use;
- the fake events behave as torch 2.13's do (c10/cuda/CUDAEvent.h, `CUDAEvent::elapsed_time`,
  and c10/core/impl/InlineEvent.h for `torch.Event`): ValueError for events not created with
  `enable_timing=True` or not recorded, RuntimeError for events not yet completed; an event
  records on the stream it is given, by default the current stream of the *current* GPU
  (torch/csrc/Event.cpp: `torch.Event(device)` keeps only the device's type).
- a tensor the code under test makes on a simulated GPU (a factory with `device="cuda"`, a copy
  `.to("cuda")`) is a CPU tensor that reports that GPU (`GPUValue`): reading its value back
  (`.item()`, `.cpu()`, `float()`, ...) waits for that GPU's queue, as a copy from the host
  does, so a wait written as a read is answered as on a real GPU.
Nothing is ever allocated on CUDA in the cpu tier.

The device tests time real work: on the cpu case a few matrix products, on the cuda case
`torch.cuda._sleep` (a kernel that spins the GPU for a number of cycles and returns at once on
the host). An honest timer sees four times the work take about four times as long; a timer that
does not wait for the GPU sees two launches that take the same time.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import os
import statistics
import sys
import sysconfig
import time
import timeit
import types
from collections.abc import Callable, Iterator
from unittest import mock

import pytest
import torch
from hypothesis import example, given
from hypothesis import strategies as st
from torch.overrides import TorchFunctionMode

from dojo import catalogue as _catalogue
from tests.support import TO_HOST, Say, asked_cuda, fake_gpus, real_world

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

TICK = 2.0**-20
"""About a microsecond. Scripted durations are whole ticks, so sums and differences of clock
readings are exact in floating point, and statistics can be compared exactly."""
START = 1000.0
SLOW_FIRST = st.integers(20_000, 60_000)
"""Warm-up calls are scripted slow (CUDA start-up, cuBLAS handles, caches), so timing them
shows in the statistics."""
RESOLUTION = 2e-9
"""How far apart two honest readings of one interval may be: `perf_counter_ns` rounds each
reading to a nanosecond."""

WRONG_CLOCKS = {
    "time": "wall-clock time: it jumps when the system clock is set, and is coarse on some systems",
    "time_ns": "wall-clock time: it jumps when the system clock is set",
    "monotonic": "steady, but before Python 3.13 it ticks only every 15.6 ms on Windows",
    "monotonic_ns": "steady, but before Python 3.13 it ticks only every 15.6 ms on Windows",
    "process_time": "the CPU time of this process, not elapsed time (time blocked is left out)",
    "process_time_ns": "the CPU time of this process, not elapsed time",
    "thread_time": "the CPU time of this thread, not elapsed time",
    "thread_time_ns": "the CPU time of this thread, not elapsed time",
}


# --- the scripted machine ---------------------------------------------------------------------


FACTORIES = {
    torch.zeros,
    torch.ones,
    torch.empty,
    torch.full,
    torch.rand,
    torch.randn,
    torch.randint,
    torch.arange,
    torch.linspace,
    torch.eye,
    torch.zeros_like,
    torch.ones_like,
    torch.empty_like,
    torch.full_like,
    torch.rand_like,
    torch.randn_like,
}
"""torch's factories: on a GPU each one only queues its work (a fill, a random draw)."""
COPIES_IN = {torch.tensor, torch.as_tensor, torch.Tensor.to, torch.Tensor.cuda}
"""Copies from host memory to a GPU: without non_blocking=True the host waits for the copy,
and so for everything queued before it on that GPU (torch's copy ends in a stream
synchronize, at::cuda::memcpy_and_sync)."""
READS = {getattr(torch.Tensor, name) for name in TO_HOST if name != "to"}
"""What hands a value on a GPU to the host (`support.TO_HOST`): it waits for the GPU, and so
does `to` a CPU device, told apart by its target."""


class GPUValue(torch.Tensor):
    """A tensor on a simulated GPU: its data is on the CPU, but it reports `cuda:index`, and a
    read of its value waits for that GPU's queue, as on a real one. Each GPU has a subclass
    (`World.on`), so what is computed from it stays on it."""

    world: World
    index: int

    @property
    def device(self) -> torch.device:
        return torch.device("cuda", type(self).index)

    @property
    def is_cuda(self) -> bool:
        return True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        read = func in READS
        if func is torch.Tensor.to:
            target = torch._C._nn._parse_to(*args[1:], **kwargs)[0]
            read = target is not None and target.type == "cpu"
        if read:
            cls.world.wait_for(cls.index)
            plain = [a.as_subclass(torch.Tensor) if isinstance(a, GPUValue) else a for a in args]
            return func(*plain, **kwargs)
        return super().__torch_function__(func, types, args, kwargs)


class _GPUValues(TorchFunctionMode):
    """Lets the code under test make tensors on the simulated GPUs and read them back: a
    factory queues, a copy from the host waits, and so does a read (`GPUValue`). Other calls
    that name a GPU go on to `fake_gpus`, which says it cannot answer them."""

    def __init__(self, world: World) -> None:
        super().__init__()
        self.world = world

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in FACTORIES or func in COPIES_IN:
            device = asked_cuda(func, args, kwargs)
            if device is not None:
                index = self.world.index(device, f"{func.__name__}(device='cuda')")
                return self.make(func, args, kwargs, index)
        return func(*args, **kwargs)

    def make(self, func, args: tuple, kwargs: dict, index: int) -> GPUValue:
        """What `func` makes on GPU `index`: a factory's tensor; a copy of a host tensor,
        for which the host waits unless non_blocking=True; a tensor already on a GPU moved
        there, which the host does not wait for (and `x` itself when it is already there)."""
        on = self.world.on(index)
        if func is torch.Tensor.to or func is torch.Tensor.cuda:
            source = args[0]
            plain = source.as_subclass(torch.Tensor) if isinstance(source, GPUValue) else source
            made = plain
            if func is torch.Tensor.to:
                rest = [a for a in args[1:] if not isinstance(a, (str, int, torch.device))]
                made = plain.to(*rest, **{k: v for k, v in kwargs.items() if k != "device"})
            if isinstance(source, GPUValue):
                if type(source).index == index and made is plain:
                    return source
                return made.clone().as_subclass(on)
        elif func in FACTORIES:
            return func(*args, **{**kwargs, "device": "cpu"}).as_subclass(on)
        else:
            made = func(*args, **{**kwargs, "device": "cpu"})
        if not kwargs.get("non_blocking", False):
            self.world.wait_for(index)
        return made.clone().as_subclass(on)  # a copy: the host tensor's memory stays its own


class World:
    """A machine whose functions take scripted times, with a host clock and, for "cuda", one
    queue of work per GPU. The functions it makes run on GPU `target`; `current` is what
    `torch.cuda.current_device()` says. `problems` collects what the code under test did
    wrong, as learner messages."""

    def __init__(self, device_type: str, *, gpus: int = 1, target: int = 0, current: int = 0):
        self.cuda = device_type == "cuda"
        self.gpus = gpus if self.cuda else 0
        self.target, self.current = target, current
        self.now = START  # the host clock, in seconds
        self.queues = [START] * max(self.gpus, 1)  # when each GPU finishes what is queued on it
        self.log: list[str] = []  # "call a", "clock", "sync", "record", "elapsed"
        self.waited: list[int] = []  # the GPUs the host waited for, in order
        self.calls: dict[str, int] = {}
        self.taken: list[tuple[str, float]] = []  # (name, seconds) of every call, in order
        self.problems: list[tuple[str, int]] = []  # (message, hint)
        self._values: dict[int, type[GPUValue]] = {}

    # what the code under test sees

    def op(self, name: str, duration: Callable[[int, int], float]) -> Callable[[], None]:
        """A function called `name` whose call takes `duration(k, i)` seconds: k counts this
        function's calls, i all calls on the machine."""

        def fn() -> None:
            k, i = self.calls.get(name, 0), len(self.taken)
            self.calls[name] = k + 1
            seconds = duration(k, i)
            self.log.append(f"call {name}")
            self.taken.append((name, seconds))
            if self.cuda:  # queued: the call returns at once and the GPU runs it later
                queue = self.queues[self.target]
                self.queues[self.target] = max(self.now, queue) + seconds
            else:
                self.now += seconds

        fn.__name__ = fn.__qualname__ = name
        return fn

    def problem(self, message: str, hint: int) -> None:
        if not self.problems:
            where = f" (seen after {len(self.taken)} call(s) of the function(s) it was given)"
            self.problems.append((message + where, hint))

    def perf_counter(self) -> float:
        self.log.append("clock")
        queued = self.queues[self.target] - self.now if self.cuda else 0.0
        if queued > 0:
            gpu = f"cuda:{self.target}"
            if self.waited and self.waited[-1] != self.target:
                self.problem(
                    f"read the clock after waiting for cuda:{self.waited[-1]}, but the work of "
                    f"the function runs on {gpu}, which still had {queued:.6f} s of it queued; "
                    f"the host must wait for the GPU being timed",
                    hint=4,
                )
            else:
                self.problem(
                    f"read the clock while {gpu} still had {queued:.6f} s of queued work: a CUDA "
                    "call returns as soon as its work is queued, so the interval holds the launch "
                    "of the work, or work queued before it, instead of the call's own work",
                    hint=1,
                )
        return self.now

    def perf_counter_ns(self) -> int:
        return round(self.perf_counter() * 1e9)

    def wrong_clock(self, name: str) -> Callable[[], float]:
        def read() -> float:
            self.log.append(f"time.{name}")
            self.problem(
                f"read time.{name}(), {WRONG_CLOCKS[name]}; time elapsed intervals with a steady "
                "clock of the highest resolution",
                hint=2,
            )
            seconds = self.now + 1.7e9  # something like the wall clock
            return round(seconds * 1e9) if name.endswith("_ns") else seconds

        return read

    def index(self, device: object, api: str) -> int:
        """The GPU that `device` names, read as torch reads a device argument: None, "cuda"
        and torch.device("cuda") are the current GPU."""
        if not self.cuda:
            self.problem(
                f"called {api} while timing on the CPU; there is no GPU to wait for or time "
                "with (and on a machine without CUDA that call raises)",
                hint=2,
            )
            raise AssertionError("Torch not compiled with CUDA enabled")
        if device is None:
            return self.current
        if isinstance(device, int) and not isinstance(device, bool):
            index = device
        else:
            parsed = torch.device(device)
            if parsed.type != "cuda":
                raise ValueError(f"Expected a cuda device, but got: {parsed}")
            index = self.current if parsed.index is None else parsed.index
        if not 0 <= index < self.gpus:
            raise RuntimeError("CUDA error: invalid device ordinal")
        return index

    def wait_for(self, index: int) -> None:
        self.log.append("sync")
        self.waited.append(index)
        self.now = max(self.now, self.queues[index])

    def on(self, index: int) -> type[GPUValue]:
        """The GPUValue class of GPU `index` of this machine."""
        if index not in self._values:
            self._values[index] = type(
                f"GPUValue{index}", (GPUValue,), {"world": self, "index": index}
            )
        return self._values[index]

    def synchronize(self, api: str) -> Callable[..., None]:
        def synchronize(device: object = None) -> None:
            self.wait_for(self.index(device, api))

        return synchronize

    def classes(self) -> dict[str, type]:
        """Fakes of torch's stream, event and device-context classes, on this machine."""
        world = self

        class Stream:
            def __init__(self, device: object = None, priority: int = 0, **_) -> None:
                self.device_index = world.index(device, "torch.cuda.Stream")

            @property
            def device(self) -> torch.device:
                return torch.device("cuda", self.device_index)

            def synchronize(self) -> None:
                world.wait_for(self.device_index)

            def query(self) -> bool:
                return world.now >= world.queues[self.device_index]

            def wait_stream(self, stream: object) -> None:
                pass

            def wait_event(self, event: object) -> None:
                pass

            def record_event(self, event: object = None):
                event = event if event is not None else CudaEvent()
                event.record(self)
                return event

        class CudaEvent:  # torch.cuda.Event
            def __init__(self, enable_timing=False, blocking=False, interprocess=False, **_):
                self.enable_timing = enable_timing
                self.device_index: int | None = None
                self.stamp: float | None = None

            def record(self, stream: Stream | None = None) -> None:
                world.log.append("record")
                if stream is None:
                    index = world.index(None, "Event.record()")
                else:
                    index = stream.device_index
                if index != world.target:
                    world.problem(
                        f"recorded an event on cuda:{index}, but the function's work runs on "
                        f"cuda:{world.target}; an event records on the stream it is given, by "
                        "default the current stream of the current GPU",
                        hint=4,
                    )
                self.device_index = index
                self.stamp = max(world.now, world.queues[index])  # reached after the queue
                world.queues[index] = self.stamp

            def synchronize(self) -> None:
                if self.stamp is not None:
                    world.wait_for(self.device_index)
                    world.now = max(world.now, self.stamp)

            def query(self) -> bool:
                return self.stamp is None or world.now >= self.stamp

            def wait(self, stream: object = None) -> None:
                pass

            def elapsed_time(self, end: CudaEvent) -> float:
                world.log.append("elapsed")
                if not (self.enable_timing and end.enable_timing):
                    world.problem("timed with events created without enable_timing=True", hint=2)
                    raise ValueError(
                        "Both events must be created with argument 'enable_timing=True'."
                    )
                if self.stamp is None or end.stamp is None:
                    raise ValueError(
                        "Both events must be recorded before calculating elapsed time."
                    )
                if not (self.query() and end.query()):
                    world.problem(
                        "asked start.elapsed_time(end) before the GPU had reached the end "
                        "event; the host must wait for the end event first",
                        hint=2,
                    )
                    raise RuntimeError(
                        "Both events must be completed before calculating elapsed time."
                    )
                return (end.stamp - self.stamp) * 1000.0

        class Event(CudaEvent):  # torch.Event(device=None, *, enable_timing=False, ...)
            def __init__(self, device=None, *, enable_timing=False, **kwargs):
                if device is not None and torch.device(device).type != "cuda":
                    world.problem(f"created torch.Event(device={device!r})", hint=2)
                super().__init__(enable_timing=enable_timing, **kwargs)

        class Device:  # torch.cuda.device and torch.accelerator.device_index: a context
            def __init__(self, device: object) -> None:
                self.index = None if device in (None, -1) else world.index(device, "device")

            def __enter__(self) -> None:
                self.before = world.current
                if self.index is not None:
                    world.current = self.index

            def __exit__(self, *exc: object) -> None:
                world.current = self.before

        return {"Stream": Stream, "CudaEvent": CudaEvent, "Event": Event, "Device": Device}

    def set_device(self, device: object) -> None:
        self.current = self.index(device, "set_device")

    @contextlib.contextmanager
    def installed(self, kata) -> Iterator[None]:
        """Make this machine the one torch and `time` report, for the code of `kata`.

        torch's and time's functions are replaced where they live, and so is every name bound to
        one of them in the code under test (`from time import perf_counter`, `CLOCK =
        time.perf_counter_ns`): a clock is judged by what it is, not by how it was reached.
        """
        fake = self.classes()
        stream = fake["Stream"]
        fakes = {
            (time, "perf_counter"): self.perf_counter,
            (time, "perf_counter_ns"): self.perf_counter_ns,
            (timeit, "default_timer"): self.perf_counter,
            **{(time, name): self.wrong_clock(name) for name in WRONG_CLOCKS},
            (torch.cuda, "synchronize"): self.synchronize("torch.cuda.synchronize()"),
            (torch.accelerator, "synchronize"): self.synchronize("torch.accelerator.synchronize()"),
            (torch.cuda, "Event"): fake["CudaEvent"],
            (torch, "Event"): fake["Event"],
            (torch.cuda, "Stream"): stream,
            (torch.cuda, "current_stream"): lambda device=None: stream(device),
            (torch.cuda, "default_stream"): lambda device=None: stream(device),
            (torch.accelerator, "current_stream"): lambda device=None: stream(device),
            (torch.cuda, "current_device"): lambda: self.current,
            (torch.accelerator, "current_device_index"): lambda: self.current,
            (torch.accelerator, "current_device_idx"): lambda: self.current,
            (torch.cuda, "set_device"): self.set_device,
            (torch.accelerator, "set_device_index"): self.set_device,
            (torch.accelerator, "set_device_idx"): self.set_device,
            (torch.cuda, "device"): fake["Device"],
            (torch.accelerator, "device_index"): fake["Device"],
        }
        originals = {id(getattr(owner, attr)): fake for (owner, attr), fake in fakes.items()}
        with contextlib.ExitStack() as stack:
            stack.enter_context(fake_gpus(self.gpus))
            if self.cuda:
                stack.enter_context(_GPUValues(self))
            for (owner, attr), replacement in fakes.items():
                stack.enter_context(mock.patch.object(owner, attr, replacement))
            rebind(kata, originals, stack)
            yield

    # what the tests read

    def readings_between_timed_calls(self, warmup_calls: int) -> list[int]:
        """After the warm-up: how many readings of a clock (or event records) come before the
        first timed call, between each two, and after the last."""
        counts, seen = [0], 0
        for entry in self.log:
            if entry.startswith("call"):
                seen += 1
                if seen > warmup_calls:
                    counts.append(0)
            elif entry in ("clock", "record") and seen >= warmup_calls:
                counts[-1] += 1
        return counts


LIBRARIES = tuple(
    {os.path.realpath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib", "purelib")}
)
# The repository's own code (the kata under test, a mistake, a solution, a helper it imports),
# and never a venv or an overlay of tools inside it: on a GPU host, tests-cuda puts numpy and
# pytest in .nox/tests-cuda-tools/, and torch may come from PYTHONPATH or a .pth file, none of
# which is a `site-packages` the paths above name.
REPOSITORY = os.path.realpath(_catalogue.ROOT) + os.sep
NOT_REPOSITORY = (".nox", ".venv", "venv", "site-packages", "dist-packages")


def _library(where: str | None) -> bool:
    """Is the module at `where` someone else's code (not a kata file the learner wrote)?"""
    if where is None:
        return True
    path = os.path.realpath(where)
    if path.startswith(LIBRARIES) or not path.startswith(REPOSITORY):
        return True
    return any(part in NOT_REPOSITORY for part in path[len(REPOSITORY) :].split(os.sep))


def learner_namespaces(kata: types.ModuleType) -> list[dict]:
    """The global namespaces the kata's code reads names from: the module under test, and the
    modules its functions (and the modules it imported) were written in, except the standard
    library and installed packages. A file that imports a helper from another file of its own,
    or overrides one function of another kata file, is read through all of them."""
    found: list[dict] = []
    seen: set[int] = set()
    todo = [vars(kata)]
    if kata.__name__ in sys.modules:
        todo.append(vars(sys.modules[kata.__name__]))
    while todo:
        namespace = todo.pop()
        if id(namespace) in seen:
            continue
        seen.add(id(namespace))
        where = namespace.get("__file__")
        library = _library(where)
        if library and namespace is not vars(kata):
            continue
        found.append(namespace)
        for value in list(namespace.values()):
            if isinstance(value, types.ModuleType):
                todo.append(vars(value))
            elif callable(value) and not isinstance(value, type):
                code = inspect.unwrap(value)
                if isinstance(getattr(code, "__globals__", None), dict):
                    todo.append(code.__globals__)
    return found


def rebind(kata: types.ModuleType, replacements: dict[int, object], stack) -> None:
    """Wherever the code under test holds one of the replaced objects (keyed by id), make it hold
    the replacement until `stack` closes: a name in a module (`from time import perf_counter`,
    `CLOCK = time.perf_counter_ns`), a class attribute (plain or staticmethod), a default
    argument (`def timed(fn, clock=time.perf_counter)`) or a closure's cell. So is the default
    clock of `timeit.Timer`, which the standard library binds when it is imported."""

    def swap_attr(owner: object, attr: str, value: object) -> None:
        setattr(owner, attr, value)

    def fake(value: object) -> object | None:
        if isinstance(value, types.ModuleType):
            return None
        return replacements.get(id(value))

    def swap_function(function: object) -> None:
        if not isinstance(function, types.FunctionType):
            return
        for attr in ("__defaults__", "__kwdefaults__"):
            old = getattr(function, attr)
            if isinstance(old, tuple) and any(fake(v) is not None for v in old):
                swap_attr(function, attr, tuple(fake(v) or v for v in old))
                stack.callback(swap_attr, function, attr, old)
            elif isinstance(old, dict) and any(fake(v) is not None for v in old.values()):
                swap_attr(function, attr, {k: fake(v) or v for k, v in old.items()})
                stack.callback(swap_attr, function, attr, old)
        for cell in function.__closure__ or ():
            try:
                held = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if fake(held) is not None:
                cell.cell_contents = fake(held)
                stack.callback(setattr, cell, "cell_contents", held)

    swap_function(timeit.Timer.__init__)
    for namespace in learner_namespaces(kata):
        home = namespace.get("__name__")
        for name, value in list(namespace.items()):
            if fake(value) is not None:
                namespace[name] = fake(value)
                stack.callback(namespace.__setitem__, name, value)
            elif getattr(value, "__module__", None) == home and isinstance(value, type):
                for attr, member in list(vars(value).items()):
                    inner = getattr(member, "__func__", member)
                    if fake(inner) is not None:
                        wrapped = staticmethod(fake(inner)) if inner is not member else fake(inner)
                        swap_attr(value, attr, wrapped)
                        stack.callback(swap_attr, value, attr, member)
                    else:
                        swap_function(inner)
            elif getattr(value, "__module__", None) == home:
                swap_function(value)


def scripted(seconds: list[float]) -> Callable[[int, int], float]:
    """The k-th call takes seconds[k]; any extra call takes one tick."""
    return lambda k, i: seconds[k] if k < len(seconds) else TICK


def run(world: World, kata, call: str, function, *args, hint: int, **kwargs):
    """Call the kata on `world`; what it did wrong there is reported before anything else."""
    try:
        with world.installed(kata):
            result = function(*args, **kwargs)
    except Exception as err:
        if say.unwritten(err):
            raise
        if world.problems:
            message, problem_hint = world.problems[0]
            pytest.fail(say(call, message, hint=problem_hint), pytrace=False)
        pytest.fail(say(call, f"raised {type(err).__name__}: {err}", hint=hint), pytrace=False)
    if world.problems:
        message, problem_hint = world.problems[0]
        pytest.fail(say(call, message, hint=problem_hint), pytrace=False)
    return result


def close(a: float, b: float) -> bool:
    """Equal up to the resolution of the finest honest clock (a nanosecond); scripted durations
    differ by half a tick at least, about 5e-7 s."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=RESOLUTION)


def seconds(ticks: list[int]) -> list[float]:
    return [t * TICK for t in ticks]


def other_median(got: float, timed: list[float]) -> str:
    """Which other summary of `timed` `got` is, in words ("" if none): the mean, or, for an
    even count, one of the two middle times alone."""
    ordered = sorted(timed)
    low, high = ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]
    if close(got, statistics.median(timed)):
        return ""
    if close(got, statistics.fmean(timed)):
        return "the mean, which one slow call drags up"
    for name, middle in (("lower", low), ("higher", high)):
        if close(got, middle):
            return (
                f"the {name} of the two middle times alone; with an even number of times, the "
                "median is the mean of the two middle ones"
            )
    return ""


def check_summary(call: str, got, repeats: int, timed: list[float], hint: int) -> None:
    """`got` is time_op's answer for calls that took `timed` seconds."""
    keys = ("median_s", "min_s", "max_s", "repeats")
    assert isinstance(got, dict) and all(k in got for k in keys), say(
        call, f"returned {got!r}; expected a dict with the keys {', '.join(keys)}", hint=hint
    )
    assert got["repeats"] == repeats and type(got["repeats"]) is int, say(
        call, f"returned repeats={got['repeats']!r}; expected {repeats}", hint=hint
    )
    want = {"median_s": statistics.median(timed), "min_s": min(timed), "max_s": max(timed)}
    for key in want:
        assert type(got[key]) is float, say(
            call, f"returned {key}={got[key]!r}; expected a Python float", hint=hint
        )
    wrong = {k: got[k] for k, v in want.items() if not close(got[k], v)}
    if wrong:
        shown = ", ".join(f"{s:.9f}" for s in timed)
        extra = ""
        if set(wrong) == {"median_s"} and (rule := other_median(got["median_s"], timed)):
            # The times themselves were right; only the summary's rule differs: which summary
            # (hint 1) for the mean, how a median is taken (hint 2) for one middle time.
            extra, hint = f"; that median is {rule}", 1 if rule.startswith("the mean") else 2
        elif got["median_s"] == 0:
            extra = (
                "; a median of 0 s means no time passed between the readings around a timed call"
            )
        pytest.fail(
            say(
                call,
                f"returned {', '.join(f'{k}={v!r}' for k, v in wrong.items())}; the timed calls "
                f"took [{shown}] s, so expected "
                f"{', '.join(f'{k}={want[k]!r}' for k in wrong)}{extra}",
                hint=hint,
            ),
            pytrace=False,
        )


# --- time_op on the scripted machine ----------------------------------------------------------

durations = st.lists(st.integers(1, 5000), min_size=1, max_size=9)
"""Timed calls, in ticks."""


@given(warmup=st.integers(0, 4), timed=durations, first=SLOW_FIRST)
@example(warmup=2, timed=[100, 100, 100, 100, 9000], first=30_000)  # an outlier: mean != median
@example(warmup=1, timed=[100, 300, 200, 900], first=30_000)  # an even count
def test_time_op_statistics_match_the_clock(kata, warmup, timed, first):
    world = World("cpu")
    script = seconds([first] * warmup + timed)
    fn = world.op("fn", scripted(script))
    call = f"time_op(fn, device='cpu', warmup={warmup}, repeats={len(timed)})"
    got = run(
        world, kata, call, kata.time_op, fn, device="cpu", warmup=warmup, repeats=len(timed), hint=1
    )
    check_summary(call, got, len(timed), seconds(timed), hint=1)


@given(
    device_type=st.sampled_from(["cpu", "cuda"]),
    warmup=st.integers(0, 4),
    repeats=st.integers(1, 6),
)
def test_time_op_warms_up_before_timing(kata, device_type, warmup, repeats):
    world = World(device_type)
    fn = world.op("fn", lambda k, i: (30_000 if k == 0 else 100) * TICK)
    call = f"time_op(fn, device={device_type!r}, warmup={warmup}, repeats={repeats})"
    run(
        world,
        kata,
        call,
        kata.time_op,
        fn,
        device=device_type,
        warmup=warmup,
        repeats=repeats,
        hint=1,
    )
    calls = world.calls.get("fn", 0)
    assert calls == warmup + repeats, say(
        call,
        f"called fn {calls} time(s); expected {warmup} untimed warm-up call(s), then "
        f"{repeats} timed one(s)",
        hint=1,
    )
    first_reading = next(
        (n for n, entry in enumerate(world.log) if entry in ("clock", "record")), len(world.log)
    )
    before = sum(entry.startswith("call") for entry in world.log[:first_reading])
    assert before >= warmup, say(
        call,
        f"started timing after {before} call(s) of fn; the first {warmup} must be untimed "
        "warm-ups (the first call of anything pays for start-up and fills caches)",
        hint=1,
    )


@given(
    device_type=st.sampled_from(["cpu", "cuda"]),
    warmup=st.integers(0, 3),
    repeats=st.integers(1, 6),
)
def test_time_op_times_each_call_on_its_own(kata, device_type, warmup, repeats):
    world = World(device_type)
    fn = world.op("fn", lambda k, i: (k + 1) * 64 * TICK)
    call = f"time_op(fn, device={device_type!r}, warmup={warmup}, repeats={repeats})"
    run(
        world,
        kata,
        call,
        kata.time_op,
        fn,
        device=device_type,
        warmup=warmup,
        repeats=repeats,
        hint=3,
    )
    counts = world.readings_between_timed_calls(warmup)
    if 0 in counts:
        gap = counts.index(0)
        where = (
            "before the first timed call"
            if gap == 0
            else "after the last timed call"
            if gap == len(counts) - 1
            else f"between timed calls {gap} and {gap + 1}"
        )
        pytest.fail(
            say(
                call,
                f"read no clock (and recorded no event) {where}; each of the {repeats} timed "
                "calls must be timed on its own, between a reading before it and one after it",
                hint=3,
            ),
            pytrace=False,
        )


@given(
    warmup=st.integers(0, 4),
    timed=durations,
    first=SLOW_FIRST,
    spelling=st.sampled_from(["cuda", "cuda:0", torch.device("cuda", 0)]),
)
@example(warmup=1, timed=[100, 100, 100, 100, 100], first=30_000, spelling="cuda")
def test_time_op_waits_for_the_gpu(kata, warmup, timed, first, spelling):
    world = World("cuda")
    fn = world.op("fn", scripted(seconds([first] * warmup + timed)))
    call = f"time_op(fn, device={spelling!r}, warmup={warmup}, repeats={len(timed)}) on a GPU"
    got = run(
        world,
        kata,
        call,
        kata.time_op,
        fn,
        device=spelling,
        warmup=warmup,
        repeats=len(timed),
        hint=1,
    )
    check_summary(call, got, len(timed), seconds(timed), hint=1)


@st.composite
def two_gpus(draw) -> tuple[int, int, object]:
    """(the current GPU, the GPU timed, how the timed one is spelt)."""
    current, target = draw(st.integers(0, 1)), draw(st.integers(0, 1))
    spellings = [f"cuda:{target}", torch.device("cuda", target)]
    if target == current:
        spellings.append("cuda")
    return current, target, draw(st.sampled_from(spellings))


@given(gpus=two_gpus(), warmup=st.integers(0, 3), timed=durations, first=SLOW_FIRST)
@example(gpus=(0, 1, "cuda:1"), warmup=1, timed=[100, 200, 300], first=30_000)
@example(gpus=(1, 0, "cuda:0"), warmup=1, timed=[100, 200, 300], first=30_000)
@example(gpus=(1, 1, "cuda"), warmup=1, timed=[100, 200, 300], first=30_000)
def test_time_op_waits_for_the_gpu_it_times(kata, gpus, warmup, timed, first):
    current, target, spelling = gpus
    world = World("cuda", gpus=2, target=target, current=current)
    fn = world.op("fn", scripted(seconds([first] * warmup + timed)))
    call = (
        f"time_op(fn, device={spelling!r}, warmup={warmup}, repeats={len(timed)}) on a machine "
        f"with 2 GPUs, where cuda:{current} is the current one and fn's work runs on "
        f"cuda:{target}"
    )
    got = run(
        world,
        kata,
        call,
        kata.time_op,
        fn,
        device=spelling,
        warmup=warmup,
        repeats=len(timed),
        hint=4,
    )
    check_summary(call, got, len(timed), seconds(timed), hint=4)


# --- bad arguments ----------------------------------------------------------------------------

BAD = [
    # (keyword arguments, GPUs on the machine, the argument the error must name)
    ({"repeats": 0}, 0, "repeats"),
    ({"repeats": -3}, 0, "repeats"),
    ({"warmup": -1}, 0, "warmup"),
    ({"device": "gpu"}, 0, "device"),
    ({"device": "cuda:x"}, 0, "device"),
    ({"device": ""}, 0, "device"),
    ({"device": "meta"}, 0, "device"),
    ({"device": "cuda"}, 0, "device"),
    ({"device": torch.device("cuda", 0)}, 0, "device"),
    ({"device": "cuda:1"}, 1, "device"),
]


@pytest.mark.given
@pytest.mark.parametrize("function", ["time_op", "speedup"])
@pytest.mark.parametrize(("kwargs", "gpus", "name"), BAD, ids=[repr(b[0]) for b in BAD])
def test_bad_arguments_raise_value_error_naming_them(kata, function, kwargs, gpus, name):
    ran: list[str] = []
    args = {"device": "cpu", "warmup": 1, "repeats": 2, **kwargs}
    shown = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    fns = [lambda: ran.append("a"), lambda: ran.append("b")][: 1 if function == "time_op" else 2]
    call = f"{function}({'fn' if len(fns) == 1 else 'fn_a, fn_b'}, {shown})"
    if gpus:
        call += f" on a machine with {gpus} GPU"
    with fake_gpus(gpus), say.raises(ValueError, call, hint=3) as raised:
        getattr(kata, function)(*fns, **args)
    message = str(raised.value)
    assert name in message, say(
        call, f"raised ValueError({message!r}), which does not name the argument {name}", hint=3
    )
    assert not ran, say(call, f"called the function(s) {len(ran)} time(s) before refusing", hint=3)


# --- speedup ----------------------------------------------------------------------------------


def interleaving(timed: list[str]) -> float:
    """How many calls later fn_b's timed calls came than fn_a's, on average: 0.5 for a b a b,
    0 for a b b a, `repeats` for all of fn_a and then all of fn_b."""
    where = {n: [i for i, name in enumerate(timed) if name == n] for n in ("fn_a", "fn_b")}
    return statistics.fmean(where["fn_b"]) - statistics.fmean(where["fn_a"])


def ratio_close(got: float, want: float, med_a: float, med_b: float) -> bool:
    """Equal, up to what a clock of RESOLUTION can change in the ratio of two medians."""
    slack = RESOLUTION / med_a + RESOLUTION / med_b
    return math.isclose(got, want, rel_tol=max(1e-9, 1.01 * slack))


@given(
    device_type=st.sampled_from(["cpu", "cuda"]),
    warmup=st.integers(0, 3),
    repeats=st.integers(1, 7),
    base_a=st.integers(50, 4000),
    base_b=st.integers(50, 4000),
    drift=st.sampled_from([0, 1, 8, 40]),
    jitter=st.lists(st.integers(0, 30), min_size=32, max_size=32),
)
@example(device_type="cpu", warmup=1, repeats=5, base_a=800, base_b=200, drift=40, jitter=[0] * 32)
def test_speedup_interleaves_and_divides_the_medians(
    kata, device_type, warmup, repeats, base_a, base_b, drift, jitter
):
    """The machine slows down as it runs (`drift` ticks per call), so timing all of fn_a and
    then all of fn_b gives another answer than interleaving them."""
    world = World(device_type)
    base = {"fn_a": base_a, "fn_b": base_b}

    def duration(name):
        return lambda k, i: (base[name] + drift * i + jitter[i % 32]) * TICK

    fn_a, fn_b = world.op("fn_a", duration("fn_a")), world.op("fn_b", duration("fn_b"))
    call = f"speedup(fn_a, fn_b, device={device_type!r}, warmup={warmup}, repeats={repeats})"
    got = run(
        world,
        kata,
        call,
        kata.speedup,
        fn_a,
        fn_b,
        device=device_type,
        warmup=warmup,
        repeats=repeats,
        hint=3,
    )
    order = [name for name, _ in world.taken]
    warm, timed = order[: 2 * warmup], order[2 * warmup :]
    assert warm.count("fn_a") == warm.count("fn_b") == warmup, say(
        call,
        f"began with the calls {' '.join(warm)}; expected {warmup} untimed warm-up call(s) of "
        "each function before any timed one",
        hint=3,
    )
    assert timed.count("fn_a") == timed.count("fn_b") == repeats, say(
        call,
        f"made the timed calls {' '.join(timed)}; expected {repeats} of each",
        hint=3,
    )
    lag = interleaving(timed)
    assert abs(lag) <= 1, say(
        call,
        f"made the timed calls {' '.join(timed)}: on average, one function's calls came "
        f"{abs(lag):g} calls after the other's, so a machine that slows down during the run "
        "(here by a little on every call) makes that one look slower: a steady drift reaches "
        "both alike only when their calls alternate",
        hint=3,
    )
    took = world.taken[2 * warmup :]
    med = {n: statistics.median([s for name, s in took if name == n]) for n in base}
    want = med["fn_a"] / med["fn_b"]
    assert type(got) is float, say(call, f"returned {got!r}; expected a Python float", hint=3)
    if not ratio_close(got, want, med["fn_a"], med["fn_b"]):
        extra, hint = "", 3
        times = {n: sorted(s for name, s in took if name == n) for n in base}
        others = {
            "means": statistics.fmean,
            "lower middle times": lambda t: t[(len(t) - 1) // 2],
            "higher middle times": lambda t: t[len(t) // 2],
        }
        if ratio_close(got, 1 / want, med["fn_a"], med["fn_b"]):
            extra = (
                " (the inverse: speedup is median(fn_a) / median(fn_b), how many times faster "
                "fn_b is)"
            )
        for rule, summary in others.items():
            ratio = summary(times["fn_a"]) / summary(times["fn_b"])
            if not extra and ratio_close(got, ratio, med["fn_a"], med["fn_b"]):
                extra = f" (that is the ratio of the two functions' {rule}"
                if rule != "means":
                    extra += (
                        "; with an even number of times, the median is the mean of the two "
                        "middle ones"
                    )
                extra += ")"
                hint = 1 if rule == "means" else 2
        pytest.fail(
            say(
                call,
                f"returned {got!r}; the medians of the timed calls are fn_a {med['fn_a']:.9f} s "
                f"and fn_b {med['fn_b']:.9f} s, so expected {want!r}{extra}",
                hint=hint,
            ),
            pytrace=False,
        )


@given(
    device_type=st.sampled_from(["cpu", "cuda"]),
    zero=st.sampled_from([("fn_b",), ("fn_a",), ("fn_a", "fn_b")]),
    warmup=st.integers(0, 2),
    repeats=st.integers(1, 5),
)
@example(device_type="cuda", zero=("fn_b",), warmup=1, repeats=3)
def test_speedup_refuses_a_zero_median(kata, device_type, zero, warmup, repeats):
    world = World(device_type)
    fns = {
        name: world.op(name, lambda k, i, name=name: 0.0 if name in zero else 300 * TICK)
        for name in ("fn_a", "fn_b")
    }
    call = (
        f"speedup(fn_a, fn_b, device={device_type!r}, warmup={warmup}, repeats={repeats}), "
        f"where {' and '.join(zero)} take{'s' if len(zero) == 1 else ''} 0 s on the clock"
    )
    raised: Exception | None = None
    try:
        with world.installed(kata):
            got = kata.speedup(*fns.values(), device=device_type, warmup=warmup, repeats=repeats)
    except Exception as err:
        if say.unwritten(err):
            raise
        raised = err
    if world.problems:  # what it did wrong on the way is the first thing to fix
        message, problem_hint = world.problems[0]
        pytest.fail(say(call, message, hint=problem_hint), pytrace=False)
    if raised is None:
        pytest.fail(
            say(
                call,
                f"returned {got!r}; expected a ValueError: a median of 0 s means the function ran "
                "faster than the clock can tell, so a ratio with it measures the clock",
                hint=3,
            ),
            pytrace=False,
        )
    if not isinstance(raised, ValueError):
        pytest.fail(
            say(
                call,
                f"raised {type(raised).__name__}: {raised}; expected a ValueError that names the "
                "function too fast for the clock",
                hint=3,
            ),
            pytrace=False,
        )
    message = str(raised)
    named = [name for name in ("fn_a", "fn_b") if name in message]
    wrongly = [name for name in named if name not in zero]
    assert named and not wrongly, say(
        call,
        f"raised ValueError({message!r}), which names {' and '.join(named) or 'neither'}; it "
        f"must name the function whose median is 0 s ({' or '.join(zero)}), and not one whose "
        "median is not",
        hint=3,
    )


# --- real work: the cuda tier, whose bodies also run on cpu -----------------------------------


def real_work(device: torch.device, units: int, log: list[str], name: str) -> Callable[[], None]:
    """A function doing `units` units of work on `device`, logging its calls under `name`."""
    if device.type == "cuda":

        def fn() -> None:
            log.append(name)
            torch.cuda._sleep(1_000_000 * units)  # queues a kernel that spins; returns at once

    else:  # a sleep: it never ends early, so its length bounds any interval that holds it

        def fn() -> None:
            log.append(name)
            time.sleep(CPU_UNIT_S * units)

    return fn


CPU_UNIT_S = 0.005
"""One unit of real work on the CPU: a sleep of 5 ms. On the CPU the tests below assert only
what holds at any load (each timed interval holds at least its call's sleep); a ratio of two
times read on a busy machine depends on the load, so it is asserted on a GPU only."""


@contextlib.contextmanager
def on(device: torch.device) -> Iterator[None]:
    """The real machine for `device` (see real_world); on the CPU with one intra-op thread,
    because on a busy machine two threads wait for each other far longer than they compute."""
    threads = torch.get_num_threads()
    with real_world(device):
        if device.type == "cpu":
            torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(threads)


@contextlib.contextmanager
def wrong_clock_spies(kata, used: list[str]) -> Iterator[None]:
    """Let the wrong clocks run, and note each use, however the code under test reaches them."""

    def spy(name: str):
        real = getattr(time, name)

        def read():
            used.append(f"time.{name}()")
            return real()

        return read

    spies = {id(getattr(time, name)): spy(name) for name in WRONG_CLOCKS}
    with contextlib.ExitStack() as stack:
        for name in WRONG_CLOCKS:
            stack.enter_context(mock.patch.object(time, name, spies[id(getattr(time, name))]))
        rebind(kata, spies, stack)
        yield


def test_time_op_measures_the_work_not_its_launch(kata, device):
    log: list[str] = []
    heavy, light = real_work(device, 8, log, "heavy"), real_work(device, 2, log, "light")
    used: list[str] = []
    with on(device), wrong_clock_spies(kata, used):
        call = f"time_op(work, device={str(device)!r})"
        got_heavy = say.call(call, kata.time_op, heavy, device=device, hint=1)
        got_light = say.call(call, kata.time_op, light, device=device, hint=1)
    assert not used, say(
        call, f"read {used[0]}; time elapsed intervals with a steady, fine clock", hint=2
    )
    assert log.count("heavy") == log.count("light") == 13, say(
        call, f"called fn {log.count('heavy')} time(s); expected 3 warm-ups and 10 timed", hint=1
    )
    for got in (got_heavy, got_light):
        ok = isinstance(got, dict) and 0 < got["min_s"] <= got["median_s"] <= got["max_s"]
        assert ok, say(call, f"returned {got!r}; expected 0 < min_s <= median_s <= max_s", hint=1)
    if device.type == "cpu":
        for got, units in ((got_heavy, 8), (got_light, 2)):
            assert got["min_s"] >= CPU_UNIT_S * units, say(
                call,
                f"returned min_s={got['min_s']:.6f} s for a call that sleeps "
                f"{CPU_UNIT_S * units:.3f} s: the interval must hold the whole call",
                hint=1,
            )
        return
    ratio = got_heavy["median_s"] / got_light["median_s"]
    assert ratio > 2, say(
        call,
        f"measured 4 times the work at {ratio:.2f} times the time (median "
        f"{got_heavy['median_s']:.6f} s against {got_light['median_s']:.6f} s); a timer that "
        "does not wait for the device measures launches, which all cost about the same",
        hint=1,
    )


def test_speedup_on_real_work(kata, device):
    log: list[str] = []
    heavy, light = real_work(device, 8, log, "fn_a"), real_work(device, 2, log, "fn_b")
    call = f"speedup(work_x8, work_x2, device={str(device)!r}, warmup=2, repeats=7)"
    with on(device):
        got = say.call(call, kata.speedup, heavy, light, device=device, warmup=2, repeats=7, hint=3)
    warm, timed = log[:4], log[4:]
    fair = sorted(warm) == ["fn_a", "fn_a", "fn_b", "fn_b"] and sorted(timed) == sorted(
        ["fn_a", "fn_b"] * 7
    )
    assert fair and abs(interleaving(timed)) <= 1, say(
        call,
        f"called the functions in the order {' '.join(log)}; expected 2 warm-ups of each, then "
        "7 timed calls of each, interleaved",
        hint=3,
    )
    assert isinstance(got, float) and got > 0, say(
        call, f"returned {got!r}; expected a positive float", hint=3
    )
    if device.type == "cpu":
        return  # a ratio of times read on a busy CPU depends on the load (CPU_UNIT_S)
    assert got > 2, say(
        call,
        f"returned {got!r}; fn_b does a quarter of fn_a's work, so it should be about 4 times "
        "faster (speedup is median(fn_a) / median(fn_b))",
        hint=3,
    )
