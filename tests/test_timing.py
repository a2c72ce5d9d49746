"""Tests for katas/timing.py.

The cpu tier times functions on a scripted machine, `World`, so every answer is known exactly:
- its host clock (`time.perf_counter`) moves only when the host works or waits;
- on a simulated CUDA device, a call only queues its work: the GPU runs it later, and the host
  clock catches up only when the host waits (`torch.cuda.synchronize`, `Event.synchronize`).
  A timer read without waiting therefore sees the launch (zero seconds here), as on a real GPU,
  and a clock read while the GPU still has work queued is reported;
- `time.time`, `time.monotonic` and `time.process_time` are spies that report their use;
- `torch.cuda.Event` is a fake that refuses `elapsed_time` before the end event has completed,
  as torch does ("Both events must be completed before calculating elapsed time", in
  ATen/cuda/CUDAEvent.h).
Nothing is ever allocated on CUDA in the cpu tier.

The device tests time real work: on the cpu case a few matrix products, on the cuda case
`torch.cuda._sleep` (a kernel that spins the GPU for a number of cycles and returns at once on
the host). An honest timer sees four times the work take about four times as long; a timer that
does not wait for the GPU sees two launches that take the same time.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import statistics
import time
import timeit
from collections.abc import Callable, Iterator
from unittest import mock

import pytest
import torch
from hypothesis import example, given
from hypothesis import strategies as st

from tests.support import Say, fake_gpus, real_world

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

TICK = 2.0**-20
"""About a microsecond. Scripted durations are whole ticks, so sums and differences of clock
readings are exact in floating point, and statistics can be compared exactly."""
START = 1000.0
SLOW_FIRST = st.integers(20_000, 60_000)
"""Warm-up calls are scripted slow (CUDA start-up, cuBLAS handles, caches), so timing them
shows in the statistics."""

WRONG_CLOCKS = {
    "time": "wall-clock time: it jumps when the system clock is set, and is coarse on some systems",
    "time_ns": "wall-clock time: it jumps when the system clock is set",
    "monotonic": "steady, but Python's clock for short intervals is the higher-resolution one",
    "process_time": "the CPU time of this process, not elapsed time (time blocked is left out)",
}


# --- the scripted machine ---------------------------------------------------------------------


class World:
    """A machine whose functions take scripted times, with a host clock and, for "cuda", a GPU
    queue. `problems` collects what the code under test did wrong, as learner messages."""

    def __init__(self, device_type: str) -> None:
        self.cuda = device_type == "cuda"
        self.now = START  # the host clock, in seconds
        self.gpu_done = START  # when the simulated GPU finishes what is queued on it
        self.log: list[str] = []  # "call a", "clock", "sync", "record", "elapsed"
        self.calls: dict[str, int] = {}
        self.taken: list[tuple[str, float]] = []  # (name, seconds) of every call, in order
        self.problems: list[tuple[str, int]] = []  # (message, hint)

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
                self.gpu_done = max(self.now, self.gpu_done) + seconds
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
        if self.cuda and self.gpu_done > self.now:
            self.problem(
                "read time.perf_counter() while the GPU still had queued work; without "
                "torch.cuda.synchronize() right before each clock reading, the interval holds "
                "the launch of the work, or work queued earlier, instead of the work itself",
                hint=3,
            )
        return self.now

    def perf_counter_ns(self) -> int:
        return round(self.perf_counter() * 1e9)

    def wrong_clock(self, name: str) -> Callable[[], float]:
        def read() -> float:
            self.log.append(f"time.{name}")
            self.problem(f"read time.{name}(), {WRONG_CLOCKS[name]}; use time.perf_counter()", 2)
            seconds = self.now + 1.7e9  # something like the wall clock
            return round(seconds * 1e9) if name.endswith("_ns") else seconds

        return read

    def synchronize(self, device: object = None) -> None:
        self.log.append("sync")
        if not self.cuda:
            self.problem(
                "called torch.cuda.synchronize() while timing on the CPU; there is no GPU to "
                "wait for (and on a machine without CUDA that call raises)",
                hint=3,
            )
        self.now = max(self.now, self.gpu_done)

    def event_classes(self) -> tuple[type, type]:
        """Fakes of torch.cuda.Event and torch.Event, stamped on this machine's GPU queue."""
        world = self

        class CudaEvent:
            def __init__(self, enable_timing=False, blocking=False, interprocess=False, **_):
                if not world.cuda:
                    world.problem("created a CUDA event while timing on the CPU", hint=3)
                self.enable_timing = enable_timing
                self.stamp: float | None = None

            def record(self, stream: object = None) -> None:
                world.log.append("record")
                self.stamp = max(world.now, world.gpu_done)  # the GPU reaches it after the queue
                world.gpu_done = self.stamp

            def synchronize(self) -> None:
                world.log.append("sync")
                if self.stamp is not None:
                    world.now = max(world.now, self.stamp)

            def query(self) -> bool:
                return self.stamp is None or world.now >= self.stamp

            def wait(self, stream: object = None) -> None:
                pass

            def elapsed_time(self, end: CudaEvent) -> float:
                world.log.append("elapsed")
                if self.stamp is None or end.stamp is None:
                    raise RuntimeError(
                        "Both events must be recorded before calculating elapsed time."
                    )
                if not (self.enable_timing and end.enable_timing):
                    world.problem("timed with events made without enable_timing=True", hint=3)
                    raise RuntimeError("Both events must be created with enable_timing=True.")
                if not (self.query() and end.query()):
                    world.problem(
                        "called start.elapsed_time(end) before the end event had completed; wait "
                        "for it first (end.synchronize() or torch.cuda.synchronize())",
                        hint=3,
                    )
                    raise RuntimeError(
                        "Both events must be completed before calculating elapsed time."
                    )
                return (end.stamp - self.stamp) * 1000.0

        class Event(CudaEvent):  # torch.Event(device=None, *, enable_timing=False, ...)
            def __init__(self, device=None, *, enable_timing=False, **kwargs):
                super().__init__(enable_timing=enable_timing, **kwargs)

        return CudaEvent, Event

    @contextlib.contextmanager
    def installed(self, kata) -> Iterator[None]:
        """Make this machine the one torch and `time` report, for the code of `kata`."""
        world = self

        class Stream:
            def synchronize(self) -> None:
                world.synchronize()

        cuda_event, event = self.event_classes()
        fakes = {
            (time, "perf_counter"): self.perf_counter,
            (time, "perf_counter_ns"): self.perf_counter_ns,
            (timeit, "default_timer"): self.perf_counter,
            **{(time, name): self.wrong_clock(name) for name in WRONG_CLOCKS},
            (torch.cuda, "synchronize"): self.synchronize,
            (torch.accelerator, "synchronize"): self.synchronize,
            (torch.cuda, "Event"): cuda_event,
            (torch, "Event"): event,
            (torch.cuda, "current_stream"): lambda device=None: Stream(),
            (torch.cuda, "default_stream"): lambda device=None: Stream(),
            (torch.cuda, "current_device"): lambda: 0,
        }
        originals = {id(getattr(owner, attr)): fake for (owner, attr), fake in fakes.items()}
        with contextlib.ExitStack() as stack:
            stack.enter_context(fake_gpus(1 if self.cuda else 0))
            for (owner, attr), fake in fakes.items():
                stack.enter_context(mock.patch.object(owner, attr, fake))
            for name, value in list(vars(kata).items()):  # `from time import perf_counter`
                if id(value) in originals and not isinstance(value, type(time)):
                    stack.enter_context(mock.patch.object(kata, name, originals[id(value)]))
            yield

    # what the tests read

    def timed_log(self, warmup_calls: int) -> list[str]:
        """The log after the warm-up calls, keeping only calls and readings of time."""
        seen, out = 0, []
        for entry in self.log:
            if entry.startswith("call"):
                seen += 1
            is_call = entry.startswith("call")
            after_warmup = seen > warmup_calls or (seen == warmup_calls and not is_call)
            if after_warmup and (is_call or entry in ("clock", "record")):
                out.append("call" if is_call else entry)
        return out


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
    """Equal up to a nanosecond (the resolution of time.perf_counter_ns); scripted durations
    differ by half a tick at least, about 5e-7 s."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=2e-9)


def seconds(ticks: list[int]) -> list[float]:
    return [t * TICK for t in ticks]


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
        mean = statistics.fmean(timed)
        extra = ""
        if "median_s" in wrong and close(got["median_s"], mean):
            extra = "; that median is the mean, which one slow call drags up"
        elif got["median_s"] == 0:
            extra = "; 0 s is what queueing work on a GPU takes, not running it"
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
        world, kata, call, kata.time_op, fn, device="cpu", warmup=warmup, repeats=len(timed), hint=2
    )
    check_summary(call, got, len(timed), seconds(timed), hint=2)


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
        hint=2,
    )
    calls = world.calls.get("fn", 0)
    assert calls == warmup + repeats, say(
        call,
        f"called fn {calls} time(s); expected {warmup} untimed warm-up call(s), then "
        f"{repeats} timed one(s)",
        hint=2,
    )
    first_reading = next(
        (n for n, entry in enumerate(world.log) if entry in ("clock", "record")), len(world.log)
    )
    before = sum(entry.startswith("call") for entry in world.log[:first_reading])
    assert before >= warmup, say(
        call,
        f"started timing after {before} call(s) of fn; the first {warmup} must be untimed "
        "warm-ups (the first call of anything pays for start-up and fills caches)",
        hint=2,
    )


@given(
    device_type=st.sampled_from(["cpu", "cuda"]),
    warmup=st.integers(0, 3),
    repeats=st.integers(1, 6),
)
def test_time_op_reads_perf_counter_around_each_call(kata, device_type, warmup, repeats):
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
        hint=2,
    )
    timed = world.timed_log(warmup)
    reading = "record" if device_type == "cuda" and "clock" not in timed else "clock"
    want = [reading, "call", reading] * repeats
    got = [entry for entry in timed if entry in (reading, "call")]
    what = "time.perf_counter()" if reading == "clock" else "Event.record()"
    assert got == want, say(
        call,
        f"after the warm-up, read the clock and called fn in this order: {' '.join(got)}; "
        f"expected each timed call between exactly one {what} before it and one after it "
        f"({' '.join(want[:3])} ... {repeats} times)",
        hint=2,
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
        hint=3,
    )
    check_summary(call, got, len(timed), seconds(timed), hint=3)


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
    with fake_gpus(gpus), say.raises(ValueError, call, hint=1) as raised:
        getattr(kata, function)(*fns, **args)
    message = str(raised.value)
    assert name in message, say(
        call, f"raised ValueError({message!r}), which does not name the argument {name}", hint=1
    )
    assert not ran, say(call, f"called the function(s) {len(ran)} time(s) before refusing", hint=1)


# --- speedup ----------------------------------------------------------------------------------


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
def test_speedup_alternates_and_divides_the_medians(
    kata, device_type, warmup, repeats, base_a, base_b, drift, jitter
):
    """The machine slows down as it runs (`drift` ticks per call), so timing all of fn_a and
    then all of fn_b gives another answer than alternating."""
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
        hint=4,
    )
    order = [name for name, _ in world.taken]
    warm, timed = order[: 2 * warmup], order[2 * warmup :]
    assert warm.count("fn_a") == warm.count("fn_b") == warmup, say(
        call,
        f"began with the calls {' '.join(warm)}; expected {warmup} untimed warm-up call(s) of "
        "each function before any timed one",
        hint=4,
    )
    alternating = len(timed) == 2 * repeats and all(a != b for a, b in itertools.pairwise(timed))
    assert alternating, say(
        call,
        f"made the timed calls {' '.join(timed)}; expected {repeats} of each, alternating "
        "(fn_a fn_b fn_a fn_b ...), so that a machine drifting during the run hits both alike",
        hint=4,
    )
    took = world.taken[2 * warmup :]
    med = {n: statistics.median([s for name, s in took if name == n]) for n in base}
    want = med["fn_a"] / med["fn_b"]
    assert isinstance(got, float), say(call, f"returned {got!r}; expected a Python float", hint=4)
    if not math.isclose(got, want, rel_tol=1e-9):
        extra = ""
        if math.isclose(got, 1 / want, rel_tol=1e-9):
            extra = (
                " (the inverse: speedup is median(fn_a) / median(fn_b), how many times faster "
                "fn_b is)"
            )
        pytest.fail(
            say(
                call,
                f"returned {got!r}; the medians of the timed calls are fn_a {med['fn_a']:.9f} s "
                f"and fn_b {med['fn_b']:.9f} s, so expected {want!r}{extra}",
                hint=4,
            ),
            pytrace=False,
        )


# --- real work: the cuda tier, whose bodies also run on cpu -----------------------------------


def real_work(device: torch.device, units: int, log: list[str], name: str) -> Callable[[], None]:
    """A function doing `units` units of work on `device`, logging its calls under `name`."""
    if device.type == "cuda":

        def fn() -> None:
            log.append(name)
            torch.cuda._sleep(1_000_000 * units)  # queues a kernel that spins; returns at once

    else:
        x = torch.randn(32, 32, generator=torch.Generator().manual_seed(0))

        def fn() -> None:
            log.append(name)
            for _ in range(25 * units):
                torch.mm(x, x)

    return fn


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
def wrong_clock_spies(used: list[str]) -> Iterator[None]:
    """Let the wrong clocks run, and note each use."""

    def spy(name: str):
        real = getattr(time, name)

        def read():
            used.append(f"time.{name}()")
            return real()

        return read

    with contextlib.ExitStack() as stack:
        for name in WRONG_CLOCKS:
            stack.enter_context(mock.patch.object(time, name, spy(name)))
        yield


def test_time_op_measures_the_work_not_its_launch(kata, device):
    log: list[str] = []
    heavy, light = real_work(device, 8, log, "heavy"), real_work(device, 2, log, "light")
    used: list[str] = []
    with on(device), wrong_clock_spies(used):
        call = f"time_op(work, device={str(device)!r})"
        got_heavy = say.call(call, kata.time_op, heavy, device=device, hint=3)
        got_light = say.call(call, kata.time_op, light, device=device, hint=3)
    assert not used, say(call, f"read {used[0]}; use time.perf_counter()", hint=2)
    assert log.count("heavy") == log.count("light") == 13, say(
        call, f"called fn {log.count('heavy')} time(s); expected 3 warm-ups and 10 timed", hint=2
    )
    for got in (got_heavy, got_light):
        ok = isinstance(got, dict) and 0 < got["min_s"] <= got["median_s"] <= got["max_s"]
        assert ok, say(call, f"returned {got!r}; expected 0 < min_s <= median_s <= max_s", hint=2)
    ratio = got_heavy["median_s"] / got_light["median_s"]
    assert ratio > 2, say(
        call,
        f"measured 4 times the work at {ratio:.2f} times the time (median "
        f"{got_heavy['median_s']:.6f} s against {got_light['median_s']:.6f} s); a timer that "
        "does not wait for the device measures launches, which all cost about the same",
        hint=3,
    )


def test_speedup_on_real_work(kata, device):
    log: list[str] = []
    heavy, light = real_work(device, 8, log, "a"), real_work(device, 2, log, "b")
    call = f"speedup(work_x8, work_x2, device={str(device)!r}, warmup=2, repeats=7)"
    with on(device):
        got = say.call(call, kata.speedup, heavy, light, device=device, warmup=2, repeats=7, hint=4)
    warm, timed = log[:4], log[4:]
    alternating = timed in (["a", "b"] * 7, ["b", "a"] * 7)
    assert sorted(warm) == ["a", "a", "b", "b"] and alternating, say(
        call,
        f"called the functions in the order {' '.join(log)}; expected 2 warm-ups of each, then "
        "7 timed calls of each, alternating",
        hint=4,
    )
    assert isinstance(got, float) and got > 2, say(
        call,
        f"returned {got!r}; fn_b does a quarter of fn_a's work, so it should be about 4 times "
        "faster (speedup is median(fn_a) / median(fn_b))",
        hint=4,
    )
