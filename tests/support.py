"""Helpers for kata tests: failure messages for learners, and simulated GPUs.

Messages follow one shape: what was called, what came back, what was expected, and which hint
helps. Use `Say(__name__)` at the top of tests/test_<name>.py.
"""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from types import FrameType
from unittest import mock

import pytest
import torch

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
                problem = f"raised {type(err).__name__}: {err}; expected {expected}"
                pytest.fail(self(call, problem, hint=hint), pytrace=False)
        if caught:
            w = caught[0]
            problem = f"warned {w.category.__name__}: {w.message}; expected no warning"
            pytest.fail(self(call, problem, hint=hint), pytrace=False)
        return result

    def __call__(self, call: str, problem: str, *, hint: int) -> str:
        """`{kata}.{call} {problem} ({hint})`, e.g. say("try_gpu(0)", "returned 'cuda:0' ...")."""
        if not 1 <= hint <= len(self.kata.hints):
            raise ValueError(f"{self.kata.name} has no hint {hint}")
        return f"{self.kata.name}.{call} {problem} ({self.kata.hint_ref(hint)})"

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


@contextlib.contextmanager
def fake_gpus(n: int) -> Iterator[None]:
    """Make torch believe there are `n` CUDA GPUs (0 to 8). Never allocate on them.

    Patches both `torch.cuda.*` and `torch.accelerator.*`, since code may ask either, and
    however it imported them (`from torch.cuda import device_count`: `harness.patched`).
    """
    accelerator = torch.device("cuda") if n else None
    patches = {
        (torch.cuda, "is_available"): lambda: n > 0,
        (torch.cuda, "device_count"): lambda: n,
        (torch.accelerator, "is_available"): lambda: n > 0,
        (torch.accelerator, "device_count"): lambda: n,
        (torch.accelerator, "current_accelerator"): lambda check_available=False: accelerator,
    }
    with contextlib.ExitStack() as stack:
        for (owner, attr), fake in patches.items():
            stack.enter_context(harness.patched(owner, attr, fake))
        yield


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

    Each call is handed to `note(name, caller_frame)`, except a read made inside another one
    (`tolist` inside `__repr__`: one read), a `to` that does not target the CPU, and what
    `skip(name, tensor, caller_frame)` says is not a read. `after(name, result)` sees the
    result of each call, e.g. to recognise host copies the block makes.
    """
    depth = [0]

    def spy(name: str):
        real = getattr(torch.Tensor, name)

        def method(self, *args, **kwargs):
            if name == "to":
                target = torch._C._nn._parse_to(*args, **kwargs)[0]
                if target is None or target.type != "cpu":
                    return real(self, *args, **kwargs)
            if depth[0] == 0:
                caller = sys._getframe(1)
                if skip is None or not skip(name, self, caller):
                    note(name, caller)
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
