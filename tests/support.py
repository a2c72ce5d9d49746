"""Helpers for kata tests: failure messages for learners, and simulated GPUs.

Messages follow one shape: what was called, what came back, what was expected, and which hint
helps. Use `Say(__name__)` at the top of tests/test_<name>.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from types import FrameType
from unittest import mock

import pytest
import torch
from torch.cuda import _utils as _cuda_utils
from torch.overrides import TorchFunctionMode

from dojo import catalogue as _catalogue
from dojo import cuda_env, harness


@contextlib.contextmanager
def recorded_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning the block raises, each time it is raised, except torch's warnings
    about the machine (`dojo.cuda_env.HOST_WARNINGS`: a GPU too old for the wheel, NVML, more
    DataLoader workers than CPUs), which are no learner's doing."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cuda_env.ignore_host_warnings()  # filters added later are matched first
        yield caught


class Raised:
    """What `Say.raises` caught."""

    value: BaseException | None = None


class Say:
    """Builds learner-facing failure messages for one kata."""

    def __init__(self, test_module: str) -> None:
        kata = _catalogue.of_test(test_module)
        if kata is None:
            raise ValueError(f"Say({test_module!r}): not the tests of a catalogued kata")
        self.kata = kata
        self.unwritten = kata.unwritten  # the stub's "not written yet", not torch's own

    def call(self, call: str, function, *args, hint: int, expected: str = "it to work", **kwargs):
        """Call the kata, and turn an exception or a warning into a message for the learner.

        The stub's own NotImplementedError passes through, so an unwritten stub reads as such.
        """
        with recorded_warnings() as caught:
            try:
                result = function(*args, **kwargs)
            except Exception as err:
                if self.unwritten(err):
                    raise
                raised = f"raised {type(err).__name__}: {err}"
                problem = f"{raised}; expected {expected}"
                # An error no test explains is one problem wherever it is raised: said once.
                pytest.fail(self(call, problem, hint=hint, same=raised), pytrace=False)
        if caught:
            w = caught[0]
            problem = f"warned {w.category.__name__}: {w.message}; expected no warning"
            pytest.fail(self(call, problem, hint=hint), pytrace=False)
        return result

    def __call__(self, call: str, problem: str, *, hint: int, same: str | None = None) -> str:
        """`{kata}.{call} {problem} ({hint})`, e.g. say("try_gpu(0)", "returned 'cuda:0' ...").
        A check lists messages that say the same `problem` of their calls once, or, given
        `same`, the messages with the same `same` (`harness.said`)."""
        if not 1 <= hint <= len(self.kata.hints):
            raise ValueError(f"{self.kata.name} has no hint {hint}")
        message = f"{self.kata.name}.{call} {problem} ({self.kata.hint_ref(hint)})"
        harness.said(message, f"{self.kata.name}.{call}", same)
        return message

    @contextlib.contextmanager
    def raises(
        self, exc: type[BaseException], call: str, *, hint: int, match: str | None = None
    ) -> Iterator[Raised]:
        """Expect `exc` (with `match` in its message) from the block, and explain anything else.

        Yields a `Raised` whose `.value` is the exception, for checks on its message.
        The stub's NotImplementedError passes through, so an unwritten stub reads as unwritten.
        """
        raised = Raised()
        try:
            yield raised
        except Exception as err:
            if self.unwritten(err):
                raise
            if not isinstance(err, exc):
                pytest.fail(
                    self(
                        call,
                        f"raised {type(err).__name__}: {err}; expected {exc.__name__}",
                        hint=hint,
                    ),
                    pytrace=False,
                )
            if match is not None and not re.search(match, str(err)):
                pytest.fail(
                    self(
                        call,
                        f"raised {type(err).__name__}({str(err)!r}), but the message should "
                        f"mention {match!r}",
                        hint=hint,
                    ),
                    pytrace=False,
                )
            raised.value = err
            return
        pytest.fail(
            self(call, f"returned normally; expected it to raise {exc.__name__}", hint=hint),
            pytrace=False,
        )


QUOTE_MARKS = ("''", '""', "``", "\u2018\u2019", "\u201c\u201d", "\u00ab\u00bb")


def quotes(message: str, text: str) -> bool:
    """Does `message` quote `text`: its repr (`{text!r}`), or the text between quote marks?"""
    return repr(text) in message or any(f"{a}{text}{b}" in message for a, b in QUOTE_MARKS)


def describe(x: object) -> str:
    """A tensor (or anything) in plain words for a message: "a float32 tensor of shape (2, 3)
    on cpu", with "that requires grad" when it does; anything else by its repr."""
    if not isinstance(x, torch.Tensor):
        return repr(x)
    shape = "(" + ", ".join(str(s) for s in x.shape) + ("," if x.dim() == 1 else "") + ")"
    dtype = str(x.dtype).removeprefix("torch.")
    grad = " that requires grad" if x.requires_grad else ""
    return f"a {dtype} tensor of shape {shape} on {x.device}{grad}"


def plain_repr(cls):
    """Class decorator for a test's helper objects: their repr, and the "Failing test case" that
    hypothesis prints, read `str(obj)` (plain words) rather than a dataclass's fields.

    (Hypothesis's printer shows a dataclass field by field unless it has `_repr_pretty_`.)
    """
    cls.__repr__ = lambda self: str(self)
    cls._repr_pretty_ = lambda self, printer, cycle: printer.text(str(self))
    return cls


def torch_rejects(text: str) -> bool:
    """Does `torch.device(text)` refuse this text? (Drawn device strings are filtered by it.)"""
    try:
        torch.device(text)
    except RuntimeError:
        return True
    return False


def same_device(a: torch.device, b: torch.device) -> bool:
    """Equal type and index, with a missing index read as 0 (`cuda` is `cuda:0` here)."""
    return a.type == b.type and (a.index or 0) == (b.index or 0)


def names_the_device(message: str, device: str | torch.device) -> bool:
    """Does `message` name `device`: its type, and its index if it has one, in any words
    ("cuda:3", "cuda device 3", "index=3")?"""
    device = torch.device(device)
    return device.type in message and (
        device.index is None or re.search(rf"(?<!\d){device.index}(?!\d)", message) is not None
    )


class SimulationLimit(BaseException):
    """A call that the simulated GPUs (`fake_gpus`) cannot answer: a limit of the tests'
    simulation, not a mistake in the code under test.

    A BaseException, so that code which catches `Exception` to fall back (a fair thing to do on
    a real machine) does not hide it: the test stops and says which call it was."""


@dataclasses.dataclass(frozen=True)
class SimulatedGPU:
    """What `torch.cuda.get_device_properties` answers for one simulated GPU."""

    name: str = "Simulated GPU"
    major: int = 8
    minor: int = 0
    total_memory: int = 16 * 2**30
    multi_processor_count: int = 108

    def __getattr__(self, attr: str):
        # Only reached for attributes the dataclass lacks (a real _CudaDeviceProperties has more).
        if attr.startswith("_"):  # Python's and printers' probes (`_repr_pretty_`)
            raise AttributeError(attr)
        raise SimulationLimit(
            f"get_device_properties(...).{attr} asks the tests' simulated GPUs for a property "
            f"they do not have (they have name, major, minor, total_memory and "
            f"multi_processor_count). This is a limit of the tests' simulation, not a mistake "
            f"in your code."
        )


SIMULATED = (
    "torch.cuda's is_available, device_count, current_device, set_device, device(...), "
    "get_device_properties, get_device_capability, get_device_name and is_bf16_supported, and "
    "torch.accelerator's is_available, current_accelerator, device_count, current_device_index, "
    "set_device_index and device_index(...)"
)


def _unanswered(fallback: str, *, name_the_call: bool = True) -> SimulationLimit:
    """The error for a call the simulated GPUs cannot answer, naming the call (the outermost
    torch function on the stack, else `fallback`) and the code that called it."""
    torch_dir = os.path.dirname(torch.__file__) + os.sep
    frame = sys._getframe(2)
    entry = None
    while frame is not None and (
        frame.f_code.co_filename.startswith(torch_dir) or frame.f_code.co_filename == __file__
    ):
        if frame.f_code.co_filename.startswith(torch_dir):
            entry = frame
        frame = frame.f_back
    what = fallback
    if entry is not None and name_the_call:
        what = f"{entry.f_globals.get('__name__', 'torch')}.{entry.f_code.co_qualname}()"
    where = ""
    if frame is not None:
        where = f" (called from {frame.f_code.co_filename}, line {frame.f_lineno})"
    return SimulationLimit(
        f"{what}{where} needs a real GPU: the tests' simulated GPUs cannot answer it. This is a "
        f"limit of the tests' simulation, not a mistake in your code; they answer {SIMULATED}."
    )


def _asked_device(func, args: tuple, kwargs: dict):
    """The device a torch call asks for (None when it names none): the `device` argument of a
    factory, the target of `Tensor.to` (a device, a string or an int, not another tensor's) or
    of `Tensor.cuda`."""
    if func is torch.Tensor.cuda:
        device = args[1] if len(args) > 1 else kwargs.get("device")
        return torch.device("cuda") if device is None else device
    if func is torch.Tensor.to:
        if "device" in kwargs:
            return kwargs["device"]
        first = args[1] if len(args) > 1 else None
        return first if isinstance(first, (str, int, torch.device)) else None
    return kwargs.get("device")


def asked_cuda(func, args: tuple, kwargs: dict) -> torch.device | None:
    """The CUDA device a torch call asks for (`_asked_device`, an int read as an index of the
    accelerator, here CUDA), or None when it asks for none, or for another type."""
    asked = _asked_device(func, args, kwargs)
    if asked is None or isinstance(asked, bool):
        return None
    try:
        device = torch.device("cuda", asked) if isinstance(asked, int) else torch.device(asked)
    except RuntimeError:
        return None
    return device if device.type == "cuda" else None


class _SimulatedDevices(TorchFunctionMode):
    """Sees each torch call that asks for a device: one the simulated machine lacks fails as it
    would on a real machine (a RuntimeError), and one it has fails as a limit of the simulation,
    since nothing can be put on a simulated GPU."""

    def __init__(self, machine: SimulatedMachine, on_tensor=None) -> None:
        super().__init__()
        self.machine = machine
        self.on_tensor = on_tensor

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        device = asked_cuda(func, args, kwargs)
        if device is not None:
            index = self.machine.current if device.index is None else device.index
            self.machine._check(index)  # the real errors, for a GPU that is not there
            if self.on_tensor is not None:
                self.on_tensor(func.__name__, index)
            raise _unanswered(
                f"putting a tensor on the simulated GPU cuda:{index} ({func.__name__})"
            )
        return func(*args, **kwargs)


class SimulatedMachine:
    """The state of the simulated GPUs: each GPU's properties, and the current device, which
    CUDA keeps per host thread (it starts at 0 in every thread)."""

    def __init__(self, gpus: list[SimulatedGPU]) -> None:
        self.gpus = gpus
        self._local = threading.local()

    @property
    def current(self) -> int:
        return getattr(self._local, "current", 0)

    @current.setter
    def current(self, index: int) -> None:
        self._local.current = index

    def _no_gpu(self) -> None:
        if not self.gpus:  # what a CUDA build on a machine without a GPU says
            raise RuntimeError("No CUDA GPUs are available")

    def _check(self, index: int) -> int:
        self._no_gpu()
        if not 0 <= index < len(self.gpus):
            raise RuntimeError(
                f"CUDA error: invalid device ordinal (device {index}; this simulated machine "
                f"has {len(self.gpus)} GPU(s))"
            )
        return index

    # torch.cuda
    def current_device(self) -> int:
        self._no_gpu()
        return self.current

    def set_device(self, device) -> None:
        index = _cuda_utils._get_device_index(device)  # refuses an index-less device, as torch
        if index >= 0:
            self.current = self._check(index)

    def exchange_device(self, index: int) -> int:  # torch.cuda.device(...).__enter__
        if index < 0:
            return -1
        previous, self.current = self.current, self._check(index)
        return previous

    def get_device_properties(self, device=None) -> SimulatedGPU:
        self._no_gpu()
        index = _cuda_utils._get_device_index(device, optional=True)
        if index < 0 or index >= len(self.gpus):
            raise AssertionError("Invalid device id")  # torch's own words
        return self.gpus[index]

    def get_device_capability(self, device=None) -> tuple[int, int]:
        properties = self.get_device_properties(device)
        return properties.major, properties.minor

    def get_device_name(self, device=None) -> str:
        return self.get_device_properties(device).name

    def is_bf16_supported(self, including_emulation: bool = True) -> bool:
        """As torch answers for the current GPU: natively from sm_80 on; with emulation, on any
        GPU where a bfloat16 tensor can be made (every GPU the 2.13 wheel supports)."""
        if not self.gpus:
            return False
        return self.gpus[self.current].major >= 8 or including_emulation

    def lazy_init(self) -> None:
        self._no_gpu()
        # Called by torch's Python functions, or by its C++ side before a tensor goes to a GPU.
        raise _unanswered("a tensor operation on a simulated GPU (allocating, or copying to it)")

    # torch._C._accelerator_*: what torch.accelerator's functions call
    def accelerator_index(self) -> int:
        if not self.gpus:
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return self.current

    def accelerator_set_index(self, index: int) -> None:
        if index >= 0:
            if not self.gpus:
                raise RuntimeError("Cannot access accelerator device when none is available.")
            self.current = self._check(index)


CUDA_CONTEXT = (
    "the first tensor a process puts on a GPU creates a CUDA context for it there, which holds "
    "some of that GPU's memory (a hundred MiB or more, by GPU and driver) until the process ends"
)
"""What a tensor put on a GPU costs beyond its bytes, for messages (`refuse_tensors`). Sizes
seen: 287,047,680 bytes with the lazy module loading torch turns on, 666,632,192 without
(pytorch/pytorch#86509); 128-256 MiB per GPU (invoke-ai/InvokeAI#9447)."""


def refuse_tensors(
    say: Say, functions: tuple[str, ...], why: str, *, hint: int
) -> Callable[[str, int], None]:
    """An `on_tensor` for `fake_gpus`, for a kata whose contract puts nothing on a GPU: it fails
    the test with a message naming the outermost of the kata's `functions` on the stack (else
    the kata), the call and the GPU, then `why`."""

    def refuse(func: str, index: int) -> None:
        frame, who = sys._getframe(1), say.kata.name
        while frame is not None:
            who = frame.f_code.co_name if frame.f_code.co_name in functions else who
            frame = frame.f_back
        problem = f"put a tensor on cuda:{index} ({func}) {why}"
        pytest.fail(say(who, problem, hint=hint), pytrace=False)

    return refuse


@contextlib.contextmanager
def fake_gpus(
    n: int,
    *,
    gpus: list[SimulatedGPU] | None = None,
    on_tensor: Callable[[str, int], None] | None = None,
) -> Iterator[SimulatedMachine]:
    """Make torch believe there are `n` CUDA GPUs (0 to 8). Never allocate on them.

    They answer what code may ask the machine: `torch.cuda`'s is_available, device_count,
    current_device, set_device, device(...), get_device_properties, get_device_capability,
    get_device_name and is_bf16_supported, and `torch.accelerator`'s is_available,
    current_accelerator, device_count, current_device_index, set_device_index and
    device_index(...). Each GPU's properties are `gpus[i]` (default: `SimulatedGPU()`, an
    sm_80). A torch call that asks for a GPU the machine lacks fails as on a real machine (a
    RuntimeError: "invalid device ordinal", or "No CUDA GPUs are available" without GPUs); any
    other call that would need the CUDA runtime (a tensor put on a GPU that exists,
    `torch.cuda.synchronize()`...) raises `SimulationLimit`, naming the call as a limit of the
    simulation, not a mistake of the code under test; a test whose contract forbids putting a
    tensor on a GPU passes `on_tensor(call, index)`, which fails the test with its own message
    before a tensor would be put on GPU `index` that exists.

    Patches torch's functions however the code under test imported them
    (`from torch.cuda import device_count`: `harness.patched`). Yields the machine, whose
    `current` is the current device.
    """
    gpus = list(gpus) if gpus is not None else [SimulatedGPU() for _ in range(n)]
    if len(gpus) != n:
        raise ValueError(f"fake_gpus({n}): {len(gpus)} GPU descriptions given")
    machine = SimulatedMachine(gpus)
    accelerator = torch.device("cuda") if n else None
    patches = {
        (torch.cuda, "is_available"): lambda: n > 0,
        (torch.cuda, "device_count"): lambda: n,
        (torch.cuda, "current_device"): machine.current_device,
        (torch.cuda, "set_device"): machine.set_device,
        (torch.cuda, "get_device_properties"): machine.get_device_properties,
        (torch.cuda, "get_device_capability"): machine.get_device_capability,
        (torch.cuda, "get_device_name"): machine.get_device_name,
        (torch.cuda, "is_bf16_supported"): machine.is_bf16_supported,
        (torch.cuda, "_exchange_device"): machine.exchange_device,
        (torch.cuda, "_maybe_exchange_device"): machine.exchange_device,
        (torch.cuda, "_lazy_init"): machine.lazy_init,
        (torch.accelerator, "is_available"): lambda: n > 0,
        (torch.accelerator, "device_count"): lambda: n,
        (torch.accelerator, "current_accelerator"): lambda check_available=False: accelerator,
    }
    c_patches = {
        "_accelerator_getAccelerator": lambda: accelerator,
        "_accelerator_getDeviceIndex": machine.accelerator_index,
        "_accelerator_setDeviceIndex": machine.accelerator_set_index,
        "_accelerator_exchangeDevice": lambda i: (
            machine.accelerator_index(),
            machine.accelerator_set_index(i),
        )[0],
        "_accelerator_maybeExchangeDevice": lambda i: (
            machine.accelerator_index(),
            machine.accelerator_set_index(i),
        )[0],
    }

    def unanswerable(name: str, real):
        def call(*args, **kwargs):
            if not n:  # a machine without an accelerator: torch's own answer
                return real(*args, **kwargs)
            raise _unanswered(f"torch._C.{name}()")

        return call

    with contextlib.ExitStack() as stack:
        for (owner, attr), fake in patches.items():
            stack.enter_context(harness.patched(owner, attr, fake))
        for name in dir(torch._C):
            if name.startswith("_accelerator_") and not name.startswith("_accelerator_hooks"):
                fake = c_patches.get(name) or unanswerable(name, getattr(torch._C, name))
                stack.enter_context(mock.patch.object(torch._C, name, fake))
        stack.enter_context(_SimulatedDevices(machine, on_tensor))
        yield machine


def real_world(device: torch.device) -> contextlib.AbstractContextManager[None]:
    """The machine a device-parametrized test body sees.

    On the cuda case, the real machine; on the cpu case, a machine with no GPU, so the same body
    exercises the CPU path even on a GPU host.
    """
    return contextlib.nullcontext() if device.type == "cuda" else fake_gpus(0)


def tensors_of(model: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    """Every tensor a module owns, by name: its parameters, then its buffers."""
    return [*model.named_parameters(), *model.named_buffers()]


def where(model: torch.nn.Module) -> str:
    """Where each of a module's tensors lives, for a message: `weight on cpu, bias on meta`."""
    return ", ".join(f"{name} on {t.device}" for name, t in tensors_of(model))


TO_HOST = (
    "item",
    "tolist",
    "numpy",
    "cpu",
    "to",
    "__float__",
    "__int__",
    "__index__",
    "__bool__",
    "__format__",
    "__repr__",
    "__array__",
)
"""The Tensor methods that hand a tensor's value to the host: to Python (`item`, `float()`,
`bool()`, `print`, f-strings), to NumPy, or to a CPU tensor (`cpu`, `to` a CPU device)."""


@contextlib.contextmanager
def host_reads(
    note: Callable[[str, FrameType], None],
    *,
    methods: tuple[str, ...] = TO_HOST,
    skip: Callable[[str, torch.Tensor, FrameType], bool] | None = None,
    after: Callable[[str, object], None] | None = None,
) -> Iterator[None]:
    """Spy on the Tensor `methods` that read a value back to the host, for the block.

    Each call is handed to `note(name, caller_frame)` (a `to` with non_blocking=True as
    `to(non_blocking=True)`), except a read made inside another one (`tolist` inside
    `__repr__`: one read), a `to` that does not target the CPU, and what
    `skip(name, tensor, caller_frame)` says is not a read. `after(name, result)` sees the
    result of each call, e.g. to recognise host copies the block makes.
    """
    depth = [0]

    def spy(name: str):
        real = getattr(torch.Tensor, name)

        def method(self, *args, **kwargs):
            seen = name
            if name == "to":
                target, _, non_blocking, _ = torch._C._nn._parse_to(*args, **kwargs)
                if target is None or target.type != "cpu":
                    return real(self, *args, **kwargs)
                if non_blocking:  # a copy that the host does not wait for as it is made
                    seen = "to(non_blocking=True)"
            if depth[0] == 0:
                caller = sys._getframe(1)
                if skip is None or not skip(name, self, caller):
                    note(seen, caller)
            depth[0] += 1
            try:
                result = real(self, *args, **kwargs)
            finally:
                depth[0] -= 1
            if after is not None:
                after(name, result)
            return result

        return method

    with mock.patch.multiple(torch.Tensor, **{name: spy(name) for name in methods}):
        yield
