"""Tests for katas/distributed.py.

Three kinds of test, from cheap to real:

- **One rank, in this process** (`world_size=1`, a real process group on a file store): its
  weights must be those of plain one-process SGD reading the data in DistributedSampler's order;
  spies check that the model is moved before DDP wraps it, that the group is destroyed, that
  bad counts are refused before joining (the test's `rendezvous` refuses to join), and that
  the DDP wrapper is freed while the group is still initialised (a `weakref.finalize` on it).
- **Simulated ranks, in this process**: `simulated_rank(r, n)` gives `init_process_group` a
  one-process group while `dist.get_rank()` / `dist.get_world_size()` report rank r of n, so
  the samples each rank trains on can be read off its model: `Recorded` notes every batch its
  forward is given (so a DataLoader with worker processes is judged like one without). Alone in
  its group, DDP's average is the rank's own gradient: its steps must be plain SGD on its shard.
- **Real ranks**: `run` spawns two processes (gloo on the CPU; on the cuda tier nccl with one GPU
  each, marked multi_gpu). That one run is shared by the tests that read it: the same weights
  on every rank, equal to one process training on the full batch, state dicts in rank order,
  and ranks that are fresh interpreters, not forks of this process. Two more runs check that a
  failing rank makes `run` raise its error, and that `run`'s timeout stops a stuck rank; their
  ranks never train, so there "spawn" is served by fork (`forked_ranks`), which spares a fresh
  interpreter per rank. `run`'s argument checks are tested with process starts refused: nothing
  may start before a bad argument is refused. A watchdog thread fails a test whose `run` never
  returns, and kills the processes it left.

Every spawned rank imports torch, and DDP imports more (seconds of CPU each), so this file
spawns as few processes as it can: two. The models the ranks build come from
tests/data/distributed/models.py: spawned processes can only receive importable functions.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import sys
import sysconfig
import tempfile
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import pytest
import torch
import torch.distributed as dist
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn
from torch.distributed import distributed_c10d
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DistributedSampler, TensorDataset

from dojo import harness
from tests.data.distributed import models
from tests.strategies import make_tensor
from tests.support import Say, fake_gpus, real_world, same_device

say = Say(__name__)
ALONE = "alone, in a group the test simulates"  # a rank run in this process (train_simulated)
LEFT_INITIALISED = (  # one message wherever a rank is left in the group: one mistake, said once
    "left the process group initialised: the group is this process's until it is destroyed, "
    "whichever way the rank ends"
)
pytestmark = pytest.mark.filterwarnings("error")

FEW = max(settings().max_examples // 10, 3)
"""Examples for the property tests, each of which builds a process group and DDP per rank
(tens of ms each): 10 under the `dev` profile, 3 under `quick`."""

TORCH_DIR = str(Path(torch.__file__).parent) + os.sep
STDLIB_DIR = sysconfig.get_paths()["stdlib"] + os.sep

UNWRITTEN = "NotImplementedError: distributed: "
"""How a stub's NotImplementedError reads inside a spawned rank's traceback."""


# --- the problem every test trains on ----------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """A regression problem: `n` samples of `n_in` features and `n_out` targets, float64."""

    n: int
    n_in: int
    n_out: int
    batch_size: int
    epochs: int
    lr: float
    seed: int

    def __str__(self) -> str:
        return (
            f"{self.n} samples, Linear({self.n_in}, {self.n_out}), epochs={self.epochs}, "
            f"batch_size={self.batch_size}, lr={self.lr}, seed={self.seed}"
        )

    def data(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The samples; no two share their inputs, so a batch a model sees names its samples."""
        x = make_tensor((self.n, self.n_in), torch.float64, self.seed + 1)
        if len(torch.unique(x, dim=0)) < self.n:
            x[:, 0] += torch.arange(self.n, dtype=torch.float64) / 64
        y = make_tensor((self.n, self.n_out), torch.float64, self.seed + 2)
        return x, y

    def training(self) -> dict:
        return {
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "lr": self.lr,
            "seed": self.seed,
        }


@st.composite
def problems(draw, *, world_size: int = 1, min_epochs: int = 1):
    """Problems whose size is a multiple of `world_size`, so the shards are equal."""
    per_rank = draw(st.integers(1, 5))
    return Problem(
        n=per_rank * world_size,
        n_in=draw(st.integers(1, 3)),
        n_out=draw(st.integers(1, 2)),
        batch_size=draw(st.integers(1, 3)),
        epochs=draw(st.integers(min_epochs, 3)),
        lr=draw(st.sampled_from([0.01, 0.1, 0.3])),
        seed=draw(st.integers(0, 2**31)),
    )


def shard_orders(problem: Problem, world_size: int, rank: int) -> list[list[int]]:
    """The samples rank `rank` must read in each epoch, in order: DistributedSampler's answer."""
    sampler = DistributedSampler(
        range(problem.n), num_replicas=world_size, rank=rank, shuffle=True, seed=problem.seed
    )
    orders = []
    for epoch in range(problem.epochs):
        sampler.set_epoch(epoch)
        orders.append(list(sampler))
    return orders


def batches(order: list[int], size: int) -> list[list[int]]:
    return [order[i : i + size] for i in range(0, len(order), size)]


def steps_alone(problem: Problem, world_size: int, rank: int) -> list[list[int]]:
    """The batches one rank trains on, epoch after epoch."""
    return [
        batch
        for order in shard_orders(problem, world_size, rank)
        for batch in batches(order, problem.batch_size)
    ]


def steps_together(problem: Problem, world_size: int, alone=steps_alone) -> list[list[int]]:
    """What one process must read to match `world_size` ranks, each reading `alone(problem,
    world_size, rank)`: at each step, the union of the ranks' batches (with a mean loss, DDP's
    average of the ranks' gradients is its gradient)."""
    per_rank = [alone(problem, world_size, rank) for rank in range(world_size)]
    return [[i for batch in step for i in batch] for step in zip(*per_rank, strict=True)]


def stale_alone(problem: Problem, world_size: int, rank: int) -> list[list[int]]:
    """`steps_alone` of a sampler never told a new epoch: epoch 0's batches, every epoch."""
    first = batches(shard_orders(problem, world_size, rank)[0], problem.batch_size)
    return first * problem.epochs


def stale(problem: Problem) -> str:
    """What a test says when the weights are those of every epoch reading epoch 0's order."""
    return (
        f"ended with the weights of {problem.epochs} epochs that all read epoch 0's order: "
        "DistributedSampler shuffles with seed + epoch, and its epoch is whatever it was last "
        "told. Unlike a DataLoader with shuffle=True, it never reshuffles by itself"
    )


def plain_sgd(problem, model_fn, steps, *, lr=None) -> dict[str, torch.Tensor]:
    """One process, no DDP: seed, build, and one SGD step on the mean squared error per batch."""
    x, y = problem.data()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(problem.seed)
        model = model_fn()
    optimizer = torch.optim.SGD(model.parameters(), lr=problem.lr if lr is None else lr)
    for step in steps:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x[step]), y[step]).backward()
        optimizer.step()
    return {name: t.detach() for name, t in model.state_dict().items()}


def linear_fn(problem: Problem):
    return functools.partial(models.linear, problem.n_in, problem.n_out)


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a.cpu(), b.cpu(), rtol=1e-9, atol=1e-12)


def check_state(call: str, got, want: dict[str, torch.Tensor], *, hint: int) -> None:
    """`got` is a state dict with `want`'s names, CPU tensors of its shapes."""
    assert isinstance(got, dict), say(
        call, f"returned {type(got).__name__}; expected the model's state dict", hint=hint
    )
    wrapped = bool(got) and all(str(k).startswith("module.") for k in got)
    assert sorted(got) == sorted(want), say(
        call,
        f"returned the keys {sorted(got)}; the model's own are {sorted(want)}"
        + (
            ": every key starts with 'module.', as in the DistributedDataParallel wrapper's "
            "state dict, which a plain model refuses to load"
            if wrapped
            else ""
        ),
        hint=hint,
    )
    off = [k for k, t in got.items() if not isinstance(t, torch.Tensor) or t.device.type != "cpu"]
    assert not off, say(call, f"returned {', '.join(off)} off the CPU", hint=hint)


def differences(got: dict, want: dict) -> list[str]:
    return [k for k, v in want.items() if k in got and not close(got[k], v)]


# --- in-process ranks: the group guard and the simulated world ---------------------------------


@dataclass
class Group:
    """What a block left behind: was a process group still initialised when it ended?"""

    left_initialised: bool = False


@contextlib.contextmanager
def process_group_guard() -> Iterator[Group]:
    """Run the block; afterwards record whether a process group is still initialised, and
    destroy it, so the next example starts clean. init_process_group also chains
    `sys.excepthook` (to prefix tracebacks with the rank); put it back.

    Inside, torch's per-backward `_stash_obj_in_tls` is a no-op (see `models.no_tls_stash`):
    otherwise a train_rank that keeps its DDP wrapper until after destroy_process_group can
    deadlock in torch 2.13, now and then, and the tests would hang instead of judging it.
    """
    group = Group()
    hook = sys.excepthook
    if torch.get_default_device().type == "cpu":
        torch.set_default_device(None)  # no DeviceContext mode either: it would be in the TLS
    try:
        with models.no_tls_stash():
            yield group
    finally:
        group.left_initialised = dist.is_initialized()
        if group.left_initialised:
            dist.destroy_process_group()
        sys.excepthook = hook


def file_store(tmp: str) -> str:
    return (Path(tmp) / "rendezvous").as_uri()


@contextlib.contextmanager
def simulated_rank(rank: int, world_size: int) -> Iterator[list[tuple]]:
    """Make this process rank `rank` of `world_size`, as far as the kata can ask.

    `init_process_group` finds its peers through `distributed_c10d.rendezvous`; here that hands
    back an in-memory store for a group of one (and records what it was asked for), while
    `dist.get_rank()` and `dist.get_world_size()` about the default group answer `rank` and
    `world_size`, so DistributedSampler picks that rank's shard. DDP's all-reduce then runs in
    a group of one: each rank's average gradient is its own.
    """
    asked: list[tuple] = []
    real_rank, real_size = dist.get_rank, dist.get_world_size

    def rendezvous(url, rank=-1, world_size=-1, **kwargs):
        asked.append((url, rank, world_size))
        yield dist.HashStore(), 0, 1

    def get_rank(group=None):
        return rank if group is None else real_rank(group)

    def get_world_size(group=None):
        return world_size if group is None else real_size(group)

    with (
        mock.patch.object(distributed_c10d, "rendezvous", rendezvous),
        harness.patched(dist, "get_rank", get_rank),
        harness.patched(dist, "get_world_size", get_world_size),
        fake_gpus(0),
    ):
        yield asked


class Recorded(nn.Linear):
    """The float64 Linear of `models.linear` (the same weights for the same seed), noting every
    batch its forward is given. Training happens in the rank's own process, so this sees what
    the rank trains on however its DataLoader reads (with worker processes or without)."""

    def __init__(self, n_in: int, n_out: int, seen: list[torch.Tensor]) -> None:
        super().__init__(n_in, n_out, dtype=torch.float64)
        object.__setattr__(self, "seen", seen)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.seen.append(x.detach().cpu().clone())
        return super().forward(x)


def samples_read(x: torch.Tensor, seen: list[torch.Tensor]) -> list[int]:
    """Which samples of `x` (by index) the batches in `seen` hold, in order."""
    index = {tuple(row.tolist()): i for i, row in enumerate(x)}
    return [
        index.get(tuple(row.tolist()), -1)
        for batch in seen
        for row in batch.reshape(-1, x.shape[1])
    ]


@dataclass
class SimulatedRank:
    rank: int
    reads: list[int]
    state: dict
    asked: list[tuple]
    init_method: str
    left_initialised: bool


def train_simulated(kata, problem: Problem, world_size: int) -> list[SimulatedRank]:
    """Run train_rank once for each rank of a simulated world, one after the other."""
    ranks = []
    x, y = problem.data()
    for rank in range(world_size):
        seen: list[torch.Tensor] = []
        call = f"train_rank({rank}, {world_size}, {problem})"
        with (
            tempfile.TemporaryDirectory() as tmp,
            process_group_guard() as group,
            simulated_rank(rank, world_size) as asked,
            torch.random.fork_rng(devices=[]),
        ):
            state = say.call(
                call,
                lambda r=rank, t=tmp, seen=seen: kata.train_rank(
                    r,
                    world_size,
                    init_method=file_store(t),
                    model_fn=functools.partial(Recorded, problem.n_in, problem.n_out, seen),
                    dataset=TensorDataset(x, y),
                    **problem.training(),
                ),
                hint=1,
            )
            init_method = file_store(tmp)
        reads = samples_read(x, seen)
        ranks.append(SimulatedRank(rank, reads, state, asked, init_method, group.left_initialised))
    return ranks


# --- one rank, in this process -----------------------------------------------------------------


@given(problem=problems())
@settings(max_examples=FEW)
def test_one_rank_trains_like_one_process(kata, device, problem):
    model_fn = linear_fn(problem)
    x, y = problem.data()
    call = f"train_rank(0, 1, {problem})"
    gpus = [0] if device.type == "cuda" else []
    with (
        real_world(device),
        tempfile.TemporaryDirectory() as tmp,
        process_group_guard() as group,
        torch.random.fork_rng(devices=gpus),
    ):
        got = say.call(
            call,
            lambda: kata.train_rank(
                0,
                1,
                init_method=file_store(tmp),
                model_fn=model_fn,
                dataset=TensorDataset(x, y),
                **problem.training(),
            ),
            expected="it to train",
            hint=1,
        )
    assert not group.left_initialised, say(call, LEFT_INITIALISED, hint=1)
    want = plain_sgd(problem, model_fn, steps_alone(problem, 1, 0))
    check_state(call, got, want, hint=3)
    wrong = differences(got, want)
    if wrong and problem.epochs > 1:
        repeated = plain_sgd(problem, model_fn, stale_alone(problem, 1, 0))
        assert differences(got, repeated), say(call, stale(problem), hint=2)
    assert not wrong, say(
        call,
        f"ended with {', '.join(wrong)} different from one process that seeds with seed, "
        "builds the model and takes SGD steps on the mean squared error, reading the data in "
        "the order DistributedSampler(shuffle=True, seed=seed) gives each epoch",
        hint=2,
    )


class ModelBroken(Exception):
    """Raised on purpose by a test's model_fn, after the process group was joined."""


def broken_model() -> nn.Module:
    raise ModelBroken("model_fn fails on purpose")


@pytest.mark.parametrize("outcome", ["returns", "raises"])
def test_train_rank_destroys_the_process_group(kata, outcome):
    problem = Problem(n=4, n_in=2, n_out=1, batch_size=2, epochs=1, lr=0.1, seed=3)
    model_fn = broken_model if outcome == "raises" else linear_fn(problem)
    story = "a model_fn that raises" if outcome == "raises" else "a working model_fn"
    call = f"train_rank(0, 1, ...) with {story}"
    with (
        fake_gpus(0),
        tempfile.TemporaryDirectory() as tmp,
        process_group_guard() as group,
        torch.random.fork_rng(devices=[]),
    ):

        def train():
            return kata.train_rank(
                0,
                1,
                init_method=file_store(tmp),
                model_fn=model_fn,
                dataset=TensorDataset(*problem.data()),
                **problem.training(),
            )

        if outcome == "raises":
            with say.raises(ModelBroken, call, hint=1):
                train()
        else:
            say.call(call, train, hint=1)
    assert not group.left_initialised, say(call, LEFT_INITIALISED, hint=1)


@dataclass
class Wrapping:
    """What a spy saw of DistributedDataParallel: the devices of the module it was given, and
    the moves (`Module._apply`: `to`, `cuda`, `cpu`, ...) made after wrapping, before training."""

    wrapped: list[set[torch.device]] = field(default_factory=list)
    moved_after: list[str] = field(default_factory=list)
    trained: bool = False


@contextlib.contextmanager
def spy_on_wrapping() -> Iterator[Wrapping]:
    seen = Wrapping()
    real_init = DistributedDataParallel.__init__
    real_forward = DistributedDataParallel.forward
    real_apply = nn.Module._apply

    def init(self, module, *args, **kwargs):
        tensors = [*module.parameters(), *module.buffers()]
        seen.wrapped.append({t.device for t in tensors})
        real_init(self, module, *args, **kwargs)

    def forward(self, *args, **kwargs):
        seen.trained = True
        return real_forward(self, *args, **kwargs)

    def apply(self, fn, *args, **kwargs):
        if seen.wrapped and not seen.trained:
            seen.moved_after.append(type(self).__name__)
        return real_apply(self, fn, *args, **kwargs)

    with (
        mock.patch.object(DistributedDataParallel, "__init__", init),
        mock.patch.object(DistributedDataParallel, "forward", forward),
        mock.patch.object(nn.Module, "_apply", apply),
    ):
        yield seen


def test_train_rank_moves_the_model_before_wrapping_it(kata, device):
    problem = Problem(n=6, n_in=3, n_out=2, batch_size=2, epochs=1, lr=0.1, seed=5)
    target = torch.device("cuda", 0) if device.type == "cuda" else torch.device("cpu")
    call = f"train_rank(0, 1, {problem})"
    with (
        real_world(device),
        tempfile.TemporaryDirectory() as tmp,
        process_group_guard(),
        torch.random.fork_rng(devices=[0] if device.type == "cuda" else []),
        spy_on_wrapping() as seen,
    ):
        say.call(
            call,
            lambda: kata.train_rank(
                0,
                1,
                init_method=file_store(tmp),
                model_fn=linear_fn(problem),
                dataset=TensorDataset(*problem.data()),
                **problem.training(),
            ),
            hint=2,
        )
    assert len(seen.wrapped) == 1, say(
        call,
        f"created {len(seen.wrapped)} DistributedDataParallel wrappers; expected one, around "
        "the model, before training",
        hint=2,
    )
    devices = seen.wrapped[0]
    assert all(same_device(d, target) for d in devices), say(
        call,
        f"wrapped a model whose tensors were on {sorted(map(str, devices))}, not on {target}, "
        "where this rank trains: DistributedDataParallel works on the tensors it is given, "
        "where they are when it wraps them",
        hint=3,
    )
    assert not seen.moved_after, say(
        call,
        f"moved the model ({', '.join(seen.moved_after)}) after wrapping it in DDP: DDP sets "
        "up its gradient hooks on the tensors it is given, where they are when it wraps them",
        hint=3,
    )


class Joined(Exception):
    """Raised by the test's rendezvous: the code under test tried to join a process group."""


@contextlib.contextmanager
def joining_refused() -> Iterator[list[tuple]]:
    """Inside, joining a process group (`init_process_group`, however it is reached: it finds
    its peers through `distributed_c10d.rendezvous`) is noted, and refused with `Joined`."""
    asked: list[tuple] = []

    def rendezvous(url, rank=-1, world_size=-1, **kwargs):
        asked.append((url, rank, world_size))
        raise Joined(f"init_process_group(rank={rank}, world_size={world_size})")

    with mock.patch.object(distributed_c10d, "rendezvous", rendezvous):
        yield asked


BAD_COUNTS = {
    "rank=1 of world_size=1": dict(rank=1, world_size=1),
    "rank=-1": dict(rank=-1),
    "world_size=0": dict(rank=0, world_size=0),
    "batch_size=0": dict(batch_size=0),
    "epochs=-1": dict(epochs=-1),
}


@pytest.mark.given
@pytest.mark.parametrize("bad", BAD_COUNTS)
def test_train_rank_refuses_bad_counts_before_joining(kata, bad):
    problem = Problem(n=4, n_in=2, n_out=1, batch_size=2, epochs=1, lr=0.1, seed=0)
    args = {"rank": 0, "world_size": 2, **problem.training(), **BAD_COUNTS[bad]}
    call = f"train_rank({args.pop('rank')}, {args.pop('world_size')}, ...) with {bad}"
    with (
        fake_gpus(0),
        tempfile.TemporaryDirectory() as tmp,
        process_group_guard() as group,
        joining_refused() as asked,
    ):
        try:
            kata.train_rank(
                BAD_COUNTS[bad].get("rank", 0),
                BAD_COUNTS[bad].get("world_size", 2),
                init_method=file_store(tmp),
                model_fn=linear_fn(problem),
                dataset=TensorDataset(*problem.data()),
                **args,
            )
            outcome = "returned"
        except ValueError:
            outcome = None
        except Exception as err:
            if say.unwritten(err):
                raise
            outcome = f"raised {type(err).__name__}: {err}"
    if asked:
        pytest.fail(
            say(
                call,
                f"joined the process group before refusing {bad}: the other ranks would wait "
                "for this one at the group's first collective until their timeout",
                hint=3,
            ),
            pytrace=False,
        )
    assert outcome is None, say(call, f"{outcome}; expected ValueError", hint=3)
    assert not group.left_initialised, say(call, "left a process group behind", hint=3)


@dataclass
class Lifetimes:
    """When each DistributedDataParallel wrapper made in a block was freed: with the process
    group still initialised (True), after it was destroyed (False), or not by the block's end."""

    freed: list[bool] = field(default_factory=list)
    made: int = 0


@contextlib.contextmanager
def wrapper_lifetimes() -> Iterator[Lifetimes]:
    seen = Lifetimes()
    real_init = DistributedDataParallel.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        seen.made += 1
        weakref.finalize(self, lambda: seen.freed.append(dist.is_initialized()))

    with mock.patch.object(DistributedDataParallel, "__init__", init):
        yield seen


def test_the_ddp_wrapper_is_gone_before_the_group(kata):
    problem = Problem(n=4, n_in=2, n_out=1, batch_size=2, epochs=1, lr=0.1, seed=4)
    call = f"train_rank(0, 1, {problem})"
    with (
        fake_gpus(0),
        tempfile.TemporaryDirectory() as tmp,
        process_group_guard(),
        torch.random.fork_rng(devices=[]),
        wrapper_lifetimes() as seen,
    ):
        say.call(
            call,
            lambda: kata.train_rank(
                0,
                1,
                init_method=file_store(tmp),
                model_fn=linear_fn(problem),
                dataset=TensorDataset(*problem.data()),
                **problem.training(),
            ),
            hint=3,
        )
        alive = seen.made - len(seen.freed)
    assert seen.made == 1, say(
        call, f"made {seen.made} DistributedDataParallel wrappers; expected one", hint=2
    )
    late = alive or not all(seen.freed)
    assert not late, say(
        call,
        "destroyed the process group while its DistributedDataParallel wrapper was still "
        f"alive ({'still held after the call' if alive else 'freed after the group'}). The "
        "wrapper's reducer holds the group: freed after it, with the GIL held, it can deadlock "
        "torch 2.13 while a gloo thread finishes an all-reduce. A wrapper lives as long as "
        "a name or a frame still holds it",
        hint=3,
    )


# --- simulated ranks, in this process ----------------------------------------------------------


def worlds(*, min_epochs: int = 1):
    """(world_size, problem): two or three ranks, and a problem that shards evenly over them."""
    return st.integers(2, 3).flatmap(
        lambda n: problems(world_size=n, min_epochs=min_epochs).map(lambda p: (n, p))
    )


TWO_RANKS = (2, Problem(n=8, n_in=2, n_out=1, batch_size=2, epochs=2, lr=0.1, seed=1))
"""A case that always runs, whatever hypothesis draws: two ranks, two epochs, eight samples."""


@given(world=worlds())
@example(world=TWO_RANKS)
@settings(max_examples=FEW)
def test_ranks_read_disjoint_shards_that_cover_the_dataset(kata, world):
    world_size, problem = world
    ranks = train_simulated(kata, problem, world_size)
    per_epoch = problem.n // world_size
    for r in ranks:
        call = f"train_rank({r.rank}, {world_size}, {problem}) {ALONE}"
        assert r.asked == [(r.init_method, r.rank, world_size)], say(
            call,
            f"joined the group as {r.asked}; expected init_method=init_method, rank={r.rank}, "
            f"world_size={world_size}",
            hint=2,
        )
        assert not r.left_initialised, say(call, LEFT_INITIALISED, hint=1)
        assert len(r.reads) == problem.epochs * per_epoch, say(
            call,
            f"read {len(r.reads)} samples in {problem.epochs} epoch(s); its shard holds "
            f"{per_epoch} per epoch: the {world_size} ranks split each epoch's samples "
            "between them, so that together they read the dataset once",
            hint=2,
        )
    for epoch in range(problem.epochs):
        shards = [set(r.reads[epoch * per_epoch : (epoch + 1) * per_epoch]) for r in ranks]
        seen = [i for shard in shards for i in shard]
        twice = sorted({i for i in seen if seen.count(i) > 1})
        never = sorted(set(range(problem.n)) - set(seen))
        listing = "; ".join(f"rank {r}: {sorted(shard)}" for r, shard in enumerate(shards))
        assert not twice and not never, say(
            f"train_rank(r, {world_size}, {problem}) for each rank r",
            f"gave overlapping shards in epoch {epoch}: samples {twice} were read by several "
            f"ranks and {never} by none ({listing}). The shards are parts of one shuffle of "
            "the dataset: they split it only when every rank draws the same shuffle and takes "
            "its own part of it",
            hint=2,
        )


@given(world=worlds(min_epochs=2))
@example(world=TWO_RANKS)
@settings(max_examples=FEW)
def test_every_epoch_reads_a_new_shuffle(kata, world):
    world_size, problem = world
    ranks = train_simulated(kata, problem, world_size)
    per_epoch = problem.n // world_size
    for r in ranks:
        call = f"train_rank({r.rank}, {world_size}, {problem}) {ALONE}"
        want = shard_orders(problem, world_size, r.rank)
        got = [r.reads[e * per_epoch : (e + 1) * per_epoch] for e in range(problem.epochs)]
        for epoch in range(1, problem.epochs):
            stale = got[epoch] == want[0] and want[epoch] != want[0]
            assert not stale, say(
                call,
                f"read epoch {epoch} in epoch 0's order ({got[epoch]}): DistributedSampler "
                "shuffles with its seed plus the epoch it was last told, so a sampler that is "
                "told no new epoch repeats one shuffle",
                hint=2,
            )
        assert got == want, say(
            call,
            f"read {got}, epoch by epoch; DistributedSampler(dataset, num_replicas, rank, "
            f"shuffle=True, seed=seed) gives {want}, epoch by epoch",
            hint=2,
        )


@given(world=worlds())
@example(world=TWO_RANKS)
@settings(max_examples=FEW)
def test_each_rank_steps_on_the_ddp_averaged_gradient(kata, world):
    world_size, problem = world
    ranks = train_simulated(kata, problem, world_size)
    for r in ranks:
        call = f"train_rank({r.rank}, {world_size}, {problem}) {ALONE}"
        steps = steps_alone(problem, world_size, r.rank)
        want = plain_sgd(problem, linear_fn(problem), steps)
        check_state(call, r.state, want, hint=3)
        if not differences(r.state, want):
            continue
        if problem.epochs > 1:
            repeated = plain_sgd(
                problem, linear_fn(problem), stale_alone(problem, world_size, r.rank)
            )
            assert differences(r.state, repeated), say(call, stale(problem), hint=2)
        halved = plain_sgd(problem, linear_fn(problem), steps, lr=problem.lr / world_size)
        assert differences(r.state, halved), say(
            call,
            f"took steps {world_size} times too small: DDP already averages the gradients "
            "across ranks inside backward(); all-reducing or dividing them again by the world "
            "size shrinks every step",
            hint=2,
        )
        pytest.fail(
            say(
                call,
                f"ended with {', '.join(differences(r.state, want))} different from its own SGD "
                "steps on its shard (alone in its group, DDP's average gradient is its own)",
                hint=2,
            ),
            pytrace=False,
        )


# --- real ranks: run ---------------------------------------------------------------------------


@dataclass
class Leftovers:
    """Processes a `run` left alive after it returned or raised (the watchdog kills them)."""

    count: int = 0


def waiting_in(frame) -> str:
    """Where a thread that has not returned is waiting, as seen in its stack: the library call
    that the code under test made (and, inside it, the first call that waits with a timeout
    argument, with its value)."""
    stack = []
    while frame is not None:
        stack.append(frame)
        frame = frame.f_back
    library = (TORCH_DIR, STDLIB_DIR, __file__)
    for k, f in enumerate(stack):
        if f.f_code.co_filename.startswith(library):
            continue
        if k == 0:
            return f": it was still running line {f.f_lineno} of {f.f_code.co_filename}"
        outer = stack[k - 1]  # the library function this code called
        text = (
            f": it was still in {qualified(outer)}, called at line {f.f_lineno} of "
            f"{f.f_code.co_filename}"
        )
        for g in reversed(stack[:k]):  # outermost first
            code = g.f_code
            if "timeout" in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
                return text + f", waiting in {qualified(g)}(timeout={g.f_locals['timeout']!r})"
        return text
    return ""


def qualified(frame) -> str:
    return f"{frame.f_globals.get('__name__', '?')}.{frame.f_code.co_qualname}"


def watched(
    fn: Callable[[], object],
    limit: float,
    call: str,
    left: Leftovers | None = None,
    after: str = "it must never hang",
):
    """Call `fn` in a thread; fail the test if it has not returned after `limit` seconds,
    saying where it was waiting, then `after`.

    Returns fn's result or raises its exception. Either way, every process it started that is
    still alive afterwards is killed (and counted in `left`), so none outlives the test: pytest
    would wait for it at exit.
    """
    before = set(multiprocessing.active_children())
    outcome: dict[str, object] = {}

    def target():
        try:
            outcome["value"] = fn()
        except BaseException as err:  # handed to the test thread
            outcome["error"] = err

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(limit)
    try:
        if thread.is_alive():
            where = waiting_in(sys._current_frames().get(thread.ident))
            pytest.fail(
                say(call, f"had not returned after {limit:.0f} s{where}; {after}", hint=3),
                pytrace=False,
            )
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]
    finally:
        alive = set(multiprocessing.active_children()) - before
        for process in alive:
            process.kill()
            process.join(5)
        if left is not None:
            left.count = len(alive)


def unwritten_in_a_rank(err: BaseException) -> NotImplementedError | None:
    """A spawned rank's stub error, turned back into the stub's own NotImplementedError."""
    text = str(err)
    if UNWRITTEN not in text:
        return None
    line = text[text.index(UNWRITTEN) :].splitlines()[0]
    return NotImplementedError(line.removeprefix("NotImplementedError: ") + " (in a rank)")


class Started(Exception):
    """Raised by the test in place of starting a process."""


@contextlib.contextmanager
def starting_refused() -> Iterator[list[str]]:
    """Inside, starting any `multiprocessing` process (spawned, forked, through
    torch.multiprocessing or not) is noted and refused with `Started`."""
    started: list[str] = []

    def start(self):
        started.append(self.name)
        raise Started(f"{type(self).__name__}.start()")

    with mock.patch.object(multiprocessing.process.BaseProcess, "start", start):
        yield started


def unpicklable_model():
    return lambda: nn.Linear(2, 1)


BAD_RUNS = {
    "timeout=None": ({"timeout": None}, TypeError),
    "timeout='5'": ({"timeout": "5"}, TypeError),
    "timeout=0": ({"timeout": 0}, ValueError),
    "world_size=0": ({"world_size": 0}, ValueError),
    "epochs=-1": ({"epochs": -1}, ValueError),
    "no dataset": ({"dataset": None}, TypeError),
    "init_method given (run makes its own)": ({"init_method": "file:///tmp/x"}, TypeError),
    "model_fn a lambda (it cannot be pickled)": ({"model_fn": unpicklable_model()}, TypeError),
}


@pytest.mark.given
@pytest.mark.parametrize("bad", BAD_RUNS)
def test_run_checks_every_argument_before_starting_a_rank(kata, bad):
    problem = Problem(n=4, n_in=2, n_out=1, batch_size=2, epochs=1, lr=0.1, seed=0)
    change, error = BAD_RUNS[bad]
    kwargs = {
        "world_size": 2,
        "model_fn": linear_fn(problem),
        "dataset": TensorDataset(*problem.data()),
        **problem.training(),
        **change,
    }
    if kwargs["dataset"] is None:
        del kwargs["dataset"]
    call = f"run(2, ...) with {bad}" if "world_size" not in change else f"run({bad}, ...)"
    with fake_gpus(0), starting_refused() as started:
        try:
            kata.run(kwargs.pop("world_size"), **kwargs)
            outcome = "returned"
        except error:
            outcome = None
        except Exception as err:
            if say.unwritten(err):
                raise
            outcome = f"raised {type(err).__name__}: {err}"
    if started:
        pytest.fail(
            say(
                call,
                f"started {len(started)} process(es) before refusing it: a rank that fails on "
                "a bad argument leaves the others waiting for it, and a rank the parent gives "
                "up on is orphaned",
                hint=3,
            ),
            pytrace=False,
        )
    assert outcome is None, say(call, f"{outcome}; expected {error.__name__}", hint=3)


@contextlib.contextmanager
def forked_ranks() -> Iterator[None]:
    """Inside, a process asked for with the "spawn" start method is forked instead: the tests
    of what `run` does when a rank fails or hangs need not pay a fresh interpreter (seconds of
    CPU each) for ranks that never train. Only while this process has not initialised CUDA
    (on a GPU host, cuda-tier tests in the same session may have): a fork of a process that
    has must never run, so there the ranks are spawned as asked. No process group is alive
    here when `run` is called. Whether `run` spawns is checked on the shared run above."""
    if torch.cuda.is_initialized():
        yield
        return
    fork = multiprocessing.get_context("fork")
    with (
        mock.patch.dict(multiprocessing.context._concrete_contexts, {"spawn": fork}),
        warnings.catch_warnings(),
    ):
        # Python 3.12+ warns at every fork of a process with threads (this one has the test's
        # watchdog thread, and torch's): the test's own choice, not the learner's.
        warnings.filterwarnings(
            "ignore", r"This process \(pid=\d+\) is multi-threaded", DeprecationWarning
        )
        yield


def forked_run(
    kata, call: str, world_size: int, model_fn, *, limit: float, after: str = "", **extra
):
    """`run` with ranks that never train, forked (`forked_ranks`) on a machine with no GPU,
    under a watchdog of `limit` seconds. Returns what it left running (`Leftovers`)."""
    problem = Problem(n=8, n_in=2, n_out=1, batch_size=2, epochs=1, lr=0.1, seed=2)
    left = Leftovers()
    with gpus_hidden(torch.device("cpu")), fake_gpus(0), forked_ranks():
        watched(
            lambda: kata.run(
                world_size,
                model_fn=functools.partial(model_fn, problem.n_in, problem.n_out),
                dataset=TensorDataset(*problem.data()),
                **{**problem.training(), **extra},
            ),
            limit=limit,
            call=call,
            left=left,
            after=after or "it must never hang",
        )
    return left


def test_run_raises_the_error_of_a_failing_rank(kata):
    call = "run(2, ...) whose rank 1 fails in model_fn"
    left = Leftovers()
    with say.raises(Exception, call, hint=3) as e:
        left = forked_run(kata, call, 2, models.fails_on_rank_1, limit=30)
    unwritten = unwritten_in_a_rank(e.value)
    if unwritten is not None:
        raise unwritten
    assert models.FAILURE in str(e.value), say(
        call,
        f"raised {type(e.value).__name__}: {str(e.value)[-300:]}; it should carry rank 1's "
        f"own error ({models.FAILURE!r}), so the reader knows what went wrong",
        hint=3,
    )
    assert not left.count, say(
        call,
        f"raised, but left {left.count} rank process(es) running: once run has returned or "
        "raised, nothing waits for them or stops them",
        hint=3,
    )


def test_run_stops_a_stuck_rank_at_its_timeout(kata):
    """A rank that never returns: `run` must stop it 0.5 s after it starts waiting. The
    watchdog's 10 s is far beyond that, and within the tool's one-minute check."""
    call = "run(1, timeout=0.5, ...) whose rank never returns from model_fn"
    left = Leftovers()
    with say.raises(TimeoutError, call, hint=3):
        left = forked_run(
            kata,
            call,
            1,
            models.sleeps_forever,
            limit=10,
            timeout=0.5,
            after="its timeout was 0.5 s, and a rank still running then must be stopped, "
            "and TimeoutError raised",
        )
    assert not left.count, say(
        call,
        f"left {left.count} rank process(es) running after it: once run has returned or "
        "raised, nothing waits for them or stops them",
        hint=3,
    )


@dataclass
class RealRun:
    problem: Problem
    call: str
    states: list | None = None
    error: BaseException | None = None

    def result(self) -> list:
        if self.error is not None:
            unwritten = unwritten_in_a_rank(self.error)
            if unwritten is not None or say.unwritten(self.error):
                raise unwritten or self.error
            pytest.fail(
                say(
                    self.call,
                    f"raised {type(self.error).__name__}: {self.error}; expected each rank's "
                    "state dict",
                    hint=3,
                ),
                pytrace=False,
            )
        assert isinstance(self.states, list) and len(self.states) == 2, say(
            self.call, f"returned {self.states!r}; expected a list of 2 state dicts", hint=3
        )
        for state in self.states:  # before any test reads a key
            check_state(self.call, state, dict.fromkeys(TAGGED_KEYS), hint=3)
        return self.states


def gpus_hidden(device: torch.device) -> contextlib.AbstractContextManager:
    """On the cpu tier, spawned ranks see no GPU (they cannot inherit this process's fakes)."""
    return mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": ""} if device.type == "cpu" else {})


@pytest.fixture(scope="module")
def two_ranks(kata, device) -> RealRun:
    """One real run of two ranks, shared by the tests below."""
    problem = Problem(n=16, n_in=3, n_out=2, batch_size=2, epochs=2, lr=0.1, seed=11)
    call = f"run(2, {problem}) with a model that records its rank in a buffer"
    outcome = RealRun(problem, call)
    try:
        with (
            gpus_hidden(device),
            real_world(device),
            mock.patch.object(models, "IN_THE_TEST_PROCESS", True),
        ):
            outcome.states = watched(
                lambda: kata.run(
                    2,
                    model_fn=functools.partial(models.rank_tagged, problem.n_in, problem.n_out),
                    dataset=TensorDataset(*problem.data()),
                    **problem.training(),
                ),
                limit=300,
                call=call,
            )
    except Exception as err:
        outcome.error = err
    return outcome


TAGGED_KEYS = ("linear.weight", "linear.bias", "rank", "inherited")
"""The keys of the state dict of `models.rank_tagged`, the model of the shared run."""


def linear_part(state: dict) -> dict:
    return {k.removeprefix("linear."): v for k, v in state.items() if k.startswith("linear.")}


@pytest.mark.multi_gpu
def test_every_rank_ends_with_the_same_weights(device, two_ranks):
    states = two_ranks.result()
    wrong = differences(linear_part(states[1]), linear_part(states[0]))
    assert not wrong, say(
        two_ranks.call,
        f"ended with different {', '.join(wrong)} on rank 0 and rank 1, so the ranks took "
        "different steps: every rank's step must use the gradient averaged over all the ranks, "
        "as a DistributedDataParallel's backward() gives it",
        hint=1,
    )


@pytest.mark.multi_gpu
def test_two_ranks_train_like_one_process_on_the_full_batch(device, two_ranks):
    problem = two_ranks.problem
    states = two_ranks.result()
    model_fn = functools.partial(models.linear, problem.n_in, problem.n_out)
    want = plain_sgd(problem, model_fn, steps_together(problem, 2))
    for rank, state in enumerate(states):
        wrong = differences(linear_part(state), want)
        if wrong and problem.epochs > 1:
            repeated = plain_sgd(problem, model_fn, steps_together(problem, 2, alone=stale_alone))
            assert differences(linear_part(state), repeated), say(
                two_ranks.call, stale(problem), hint=2
            )
        assert not wrong, say(
            two_ranks.call,
            f"ended with {', '.join(wrong)} on rank {rank} different from one process training "
            f"on both ranks' batches at once (batch size {2 * problem.batch_size}): DDP "
            "averages the two ranks' mean gradients, which is the gradient of that batch",
            hint=2,
        )


@pytest.mark.multi_gpu
def test_run_returns_each_ranks_state_in_rank_order(device, two_ranks):
    states = two_ranks.result()
    tags = [int(state["rank"]) for state in states]
    never = [k for k, tag in enumerate(tags) if tag < 0]
    assert not never, say(
        two_ranks.call,
        f"returned state dicts {never} from models whose forward pass never ran in a process "
        "group (their `rank` buffer still holds -1)",
        hint=3,
    )
    assert tags == [0, 1], say(
        two_ranks.call,
        f"returned state dicts from ranks {tags}, in that order; expected rank 0's, then rank 1's",
        hint=3,
    )


@pytest.mark.multi_gpu
def test_run_starts_each_rank_in_a_fresh_interpreter(device, two_ranks):
    states = two_ranks.result()
    inherited = [int(state["inherited"]) for state in states]
    forked = [k for k, v in enumerate(inherited) if v == 1]
    assert not forked, say(
        two_ranks.call,
        f"returned the state dicts {forked} from processes that inherited this process's "
        f"memory (the models' `inherited` buffers, rank by rank: {inherited}): forks of it. A "
        "fork of a process that has initialised CUDA cannot use CUDA, and a rank must not "
        "depend on what the parent happened to hold",
        hint=2,
    )
    assert inherited == [0, 0], say(
        two_ranks.call,
        f"returned state dicts whose models' forward pass never ran in a rank (their "
        f"`inherited` buffers, rank by rank: {inherited}; -1 until a forward pass sets it)",
        hint=3,
    )
