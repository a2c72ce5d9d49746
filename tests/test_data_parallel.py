"""Tests for katas/data_parallel.py.

The cpu tier simulates machines with 0 to 8 GPUs (tests.support.fake_gpus). There,
`nn.DataParallel` is replaced by a recorder (under every name it is reachable by) and
`Module.to` / `Module.cuda` record where the model was sent instead of moving it, so nothing is
ever allocated on a simulated GPU. Real `nn.DataParallel` (which on a machine without GPUs only
wraps) and a real one-process DistributedDataParallel (gloo backend) check `unwrap` and the
state_dict round trip. The cuda tier runs the last two tests on real GPUs; on the CPU the same
bodies run against a machine with no GPU.
"""

from __future__ import annotations

import contextlib
import copy
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from unittest import mock

import pytest
import torch
import torch.distributed as dist
import torch.nn.parallel.data_parallel as data_parallel_module
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from torch import nn

from tests.strategies import gpu_counts
from tests.support import Say, fake_gpus, real_world, same_device

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

REAL_DATA_PARALLEL = nn.DataParallel


# --- a machine with simulated GPUs, where wrapping and moving are recorded ---------------------


@dataclass
class Record:
    """What parallelize did on a simulated machine."""

    wraps: list[RecordingDataParallel] = field(default_factory=list)
    moves: list[tuple[torch.device, list[nn.Module]]] = field(default_factory=list)

    def device_of(self, model: nn.Module) -> torch.device | None:
        """Where the last move that touched `model` (itself or a wrapper of it) sent it."""
        where = None
        for target, touched in self.moves:
            if any(m is model for m in touched):
                where = target
        return where

    def cuda_moves(self) -> list[torch.device]:
        return [target for target, _ in self.moves if target.type == "cuda"]


class RecordingDataParallel(nn.Module):
    """Stands in for nn.DataParallel on a simulated machine: records how it was called."""

    record: Record | None = None
    n_gpus = 0

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.asked_ids = device_ids
        # What DataParallel does with device_ids=None: every GPU.
        self.device_ids = list(range(self.n_gpus)) if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.record.wraps.append(self)


def _target(args, kwargs) -> torch.device | None:
    """The device of a `Module.to(...)` call, if it names one (not just a dtype)."""
    dev = kwargs.get("device", args[0] if args else None)
    if isinstance(dev, torch.Tensor):
        dev = dev.device
    if dev is None or isinstance(dev, bool | torch.dtype):
        return None
    if isinstance(dev, int):
        return torch.device("cuda", dev)
    return torch.device(dev)


@contextlib.contextmanager
def simulated(kata, n: int) -> Iterator[Record]:
    """A machine with `n` GPUs on which wrapping and moving a model are only recorded."""
    record = Record()

    def fake_to(self, *args, **kwargs):
        target = _target(args, kwargs)
        if target is not None:
            record.moves.append((target, list(self.modules())))
        return self

    def fake_cuda(self, device=None):
        if device is None or isinstance(device, int):
            target = torch.device("cuda", device or 0)
        else:
            target = torch.device(device)
        record.moves.append((target, list(self.modules())))
        return self

    # nn.DataParallel, torch.nn.parallel.DataParallel and the defining module's name are one
    # class; a kata may also have done `from torch.nn import DataParallel`, which binds the name
    # in the kata's own module (patching it on the `kata` fixture patches that module too).
    owners = [nn, nn.parallel, data_parallel_module, kata]
    fake = type("DataParallel", (RecordingDataParallel,), {"record": record, "n_gpus": n})
    with contextlib.ExitStack() as stack:
        stack.enter_context(fake_gpus(n))
        for owner in owners:
            for name, value in list(vars(owner).items()):
                if value is REAL_DATA_PARALLEL:
                    stack.enter_context(mock.patch.object(owner, name, fake))
        stack.enter_context(mock.patch.object(nn.Module, "to", fake_to))
        stack.enter_context(mock.patch.object(nn.Module, "cuda", fake_cuda))
        yield record


def tiny_model() -> nn.Module:
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


@st.composite
def machines(draw, *, min_ids: int, max_ids: int = 8):
    """(n GPUs, device_ids) where parallelize should use min_ids to max_ids GPUs: device_ids is
    None (every GPU) or distinct existing ids in any order."""
    n = draw(st.integers(min_ids, 8))
    if min_ids <= n <= max_ids and draw(st.booleans()):
        return n, None
    k = draw(st.integers(max(min_ids, 1), min(n, max_ids)))
    return n, draw(st.permutations(range(n)))[:k]


def call_text(ids) -> str:
    return "parallelize(model)" if ids is None else f"parallelize(model, device_ids={ids})"


# --- parallelize: the decision ----------------------------------------------------------------


@given(machine=machines(min_ids=2))
def test_parallelize_wraps_two_or_more_gpus_in_data_parallel(kata, machine):
    n, ids = machine
    want_ids = list(range(n)) if ids is None else ids
    model = tiny_model()
    with simulated(kata, n) as record:
        got = kata.parallelize(model, ids)
    call = f"{call_text(ids)} with {n} GPU(s)"
    assert len(record.wraps) == 1, say(
        call, f"made {len(record.wraps)} nn.DataParallel wrapper(s); expected exactly 1", hint=3
    )
    wrapper = record.wraps[0]
    assert got is wrapper, say(
        call, f"returned {type(got).__name__}, not the nn.DataParallel it made", hint=3
    )
    assert wrapper.module is model, say(
        call, "wrapped something other than the model it was given", hint=3
    )
    assert wrapper.device_ids == want_ids, say(
        call,
        f"made nn.DataParallel over device_ids={wrapper.asked_ids}; expected {want_ids}",
        hint=2,
    )
    first = torch.device("cuda", want_ids[0])
    where = record.device_of(model)
    shown = str(where or "the cpu")
    if where is not None and where.type == "cuda" and where.index is None:
        shown = "cuda, the current GPU (cuda:0 unless the program changed it)"
    assert where is not None and same_device(where, first), say(
        call,
        f"left the model on {shown}; DataParallel needs its parameters on "
        f"device_ids[0], {first}, before the first forward, and does not move them itself",
        hint=2,
    )


@given(machine=machines(min_ids=1, max_ids=1))
def test_parallelize_moves_but_does_not_wrap_for_one_gpu(kata, machine):
    n, ids = machine
    want = torch.device("cuda", 0 if ids is None else ids[0])
    model = tiny_model()
    with simulated(kata, n) as record:
        got = kata.parallelize(model, ids)
    call = f"{call_text(ids)} with {n} GPU(s)"
    assert not record.wraps, say(
        call, "wrapped the model in nn.DataParallel for a single GPU; expected it unwrapped", hint=3
    )
    assert got is model, say(
        call, f"returned {type(got).__name__}; expected the model itself, moved", hint=3
    )
    where = record.device_of(model)
    assert where is not None and same_device(where, want), say(
        call, f"left the model on {where or 'the cpu'}; expected it on {want}", hint=3
    )


@given(move_to_cpu=st.booleans())
def test_parallelize_leaves_the_model_alone_without_gpus(kata, move_to_cpu):
    model = tiny_model()
    if move_to_cpu:  # a model someone already put on the CPU explicitly
        model.to("cpu")
    params = [p.detach().clone() for p in model.parameters()]
    with simulated(kata, 0) as record:
        got = kata.parallelize(model)
    call = "parallelize(model) with no GPU"
    assert not record.wraps, say(
        call, "wrapped the model in nn.DataParallel on a machine without GPUs", hint=3
    )
    assert got is model, say(
        call, f"returned {type(got).__name__}; expected the model itself, unchanged", hint=3
    )
    assert not record.cuda_moves(), say(
        call, f"moved the model to {record.cuda_moves()[0]} on a machine without GPUs", hint=3
    )
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), params, strict=True)), say(
        call, "changed the model's parameters", hint=3
    )


@pytest.mark.given
@given(data=st.data(), n=gpu_counts)
def test_parallelize_rejects_a_gpu_that_does_not_exist(kata, data, n):
    bad = data.draw(st.integers(n, n + 8) | st.integers(-3, -1), label="bad id")
    good = data.draw(st.permutations(range(n)), label="good ids")[: data.draw(st.integers(0, 2))]
    at = data.draw(st.integers(0, len(good)), label="position")
    ids = [*good[:at], bad, *good[at:]]
    call = f"parallelize(model, device_ids={ids}) with {n} GPU(s)"
    with simulated(kata, n) as record, say.raises(ValueError, call, hint=3) as raised:
        kata.parallelize(tiny_model(), ids)
    assert str(bad) in str(raised.value), say(
        call, f"raised ValueError({str(raised.value)!r}), which does not name GPU {bad}", hint=3
    )
    assert not record.wraps and not record.cuda_moves(), say(
        call, "wrapped or moved the model before refusing the device ids", hint=1
    )


# Malformed device_ids, each with the entry a message must name (None: the list itself is wrong).
MALFORMED = [([0, 0], 0), ([1, 0, 1], 1), ([], None), (["cuda:1"], "cuda:1"), (["0"], "0")]
MALFORMED += [([0, 0.5], 0.5), ([None], None)]


@pytest.mark.given
@given(n=st.integers(2, 8), case=st.sampled_from(MALFORMED))
def test_parallelize_rejects_malformed_device_ids(kata, n, case):
    ids, bad = case
    call = f"parallelize(model, device_ids={ids!r}) with {n} GPU(s)"
    with simulated(kata, n) as record, say.raises(ValueError, call, hint=3) as raised:
        kata.parallelize(tiny_model(), ids)
    assert bad is None or str(bad) in str(raised.value), say(
        call, f"raised ValueError({str(raised.value)!r}), which does not name {bad!r}", hint=3
    )
    assert not record.wraps and not record.cuda_moves(), say(
        call, "wrapped or moved the model before refusing the device ids", hint=1
    )


@pytest.mark.given
@given(
    n=gpu_counts,
    value=st.sampled_from(
        [None, "model", nn.Linear, {"weight": torch.zeros(1)}, [nn.Linear(1, 1)]]
    ),
)
def test_parallelize_rejects_what_is_not_a_module(kata, n, value):
    shown = "nn.Linear (the class)" if value is nn.Linear else repr(value)
    call = f"parallelize({shown}) with {n} GPU(s)"
    with simulated(kata, n) as record, say.raises(TypeError, call, hint=3):
        kata.parallelize(value)
    assert not record.wraps and not record.moves, say(
        call, "wrapped or moved something before refusing it", hint=1
    )


# --- unwrap -----------------------------------------------------------------------------------


class HasModuleAttribute(nn.Module):
    """A plain model whose own submodule happens to be called `module`."""

    def __init__(self):
        super().__init__()
        self.module = nn.Linear(2, 2)

    def forward(self, x):
        return self.module(x)


@given(kind=st.sampled_from(["Linear", "Sequential", "HasModuleAttribute"]))
def test_unwrap_opens_data_parallel_and_leaves_plain_models(kata, kind):
    model = {"Linear": lambda: nn.Linear(2, 2), "Sequential": tiny_model}.get(
        kind, HasModuleAttribute
    )()
    got = kata.unwrap(model)
    named = (
        " (its own submodule happens to be called module; that does not make it a wrapper)"
        if isinstance(model, HasModuleAttribute)
        else ""
    )
    assert got is model, say(
        f"unwrap({kind}(...))",
        f"returned {type(got).__name__}; a plain model is returned as it is{named}",
        hint=3,
    )
    with fake_gpus(0):  # without GPUs, DataParallel only wraps
        wrapped = nn.DataParallel(model)
    got = kata.unwrap(wrapped)
    assert got is model, say(
        f"unwrap(nn.DataParallel({kind}(...)))",
        f"returned {type(got).__name__}; expected the very model inside (.module)",
        hint=2,
    )


@pytest.fixture(scope="module")
def process_group():
    """A one-process gloo group, enough for a real DistributedDataParallel on the CPU."""
    if not dist.is_available():
        pytest.skip("this torch build has no torch.distributed")
    if dist.is_initialized():
        yield
        return
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


def test_unwrap_opens_distributed_data_parallel(kata, process_group):
    model = tiny_model()
    ddp = nn.parallel.DistributedDataParallel(model)
    got = kata.unwrap(ddp)
    assert got is model, say(
        "unwrap(DistributedDataParallel(model))",
        f"returned {type(got).__name__}; expected the very model inside (.module)",
        hint=2,
    )
    state = kata.strip_module_prefix(ddp.state_dict())
    fresh = tiny_model()
    try:
        fresh.load_state_dict(state)
    except RuntimeError as err:
        pytest.fail(
            say(
                "strip_module_prefix(ddp.state_dict())",
                f"gave keys {list(state)} that a plain model refuses: {err}",
                hint=3,
            ),
            pytrace=False,
        )


# --- strip_module_prefix ----------------------------------------------------------------------

segments = st.sampled_from(
    ["module", "submodule", "modules", "mymodule", "module_", "0", "1", "net", "weight", "bias"]
)
names = st.lists(segments, min_size=1, max_size=4).map(".".join)


def parents(key: str) -> list[str]:
    """ "a.b.c" -> ["a", "a.b"]: the submodules a metadata entry exists for."""
    parts = key.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def make_state(keys: list[str], with_metadata: bool = True) -> OrderedDict:
    """A state dict over `keys` whose `_metadata` looks like a wrapped model's."""
    state = OrderedDict((k, torch.tensor(float(i))) for i, k in enumerate(keys))
    if with_metadata:
        meta = OrderedDict([("", {"version": 1})])
        for k in keys:
            for p in parents(k):
                meta.setdefault(p, {"version": len(p)})
        state._metadata = meta
    return state


def stripped_metadata(meta: dict) -> dict:
    """What `_metadata` becomes when every key loses `module.`: the model's entry is the new ""."""
    out = {}
    for k, v in meta.items():
        if k == "module":
            out[""] = v
        elif k.startswith("module."):
            out[k.removeprefix("module.")] = v
    return out


def check_values(call: str, got: dict, state: dict, keys: list[str], hint: int) -> None:
    for key, original in zip(keys, state.values(), strict=True):
        assert torch.equal(got[key], original), say(
            call, f"changed the value stored under {key!r}", hint=hint
        )


@given(keys=st.lists(names, min_size=1, max_size=8, unique=True), with_meta=st.booleans())
@example(keys=["module.weight", "submodule.weight", "0.bias"], with_meta=True)
def test_strip_module_prefix_strips_every_key_once(kata, keys, with_meta):
    state = make_state([f"module.{k}" for k in keys], with_meta)
    call = f"strip_module_prefix({list(state)})"
    got = kata.strip_module_prefix(state)
    assert isinstance(got, dict), say(call, f"returned a {type(got).__name__}", hint=3)
    wrong = next(
        ((old, new, want) for old, new, want in zip(state, got, keys, strict=False) if new != want),
        None,
    )
    assert list(got) == keys, say(
        call,
        f"returned keys {list(got)}; expected {keys}"
        + (
            f": {wrong[0]!r} became {wrong[1]!r}, not {wrong[2]!r}. A key loses the leading "
            "'module.' once, and nothing else"
            if wrong
            else " (the same keys, in the same order, each one prefix shorter)"
        ),
        hint=4,
    )
    check_values(call, got, state, keys, hint=3)


@given(
    prefixed=st.lists(names, min_size=1, max_size=5, unique=True),
    plain=st.lists(names, min_size=1, max_size=3, unique=True),
    data=st.data(),
)
def test_strip_module_prefix_leaves_mixed_keys_alone(kata, prefixed, plain, data):
    assume(not any(k.startswith("module.") for k in plain))
    keys = data.draw(st.permutations([f"module.{k}" for k in prefixed] + plain), label="keys")
    state = make_state(keys)
    want_meta = dict(state._metadata)
    call = f"strip_module_prefix({keys})"
    got = kata.strip_module_prefix(state)
    assert list(got) == keys, say(
        call,
        f"returned keys {list(got)}; since not every key starts with 'module.', "
        f"expected them unchanged",
        hint=3,
    )
    check_values(call, got, state, keys, hint=3)
    assert dict(getattr(got, "_metadata", {})) == want_meta, say(
        call, "changed _metadata although no key was stripped", hint=3
    )


@given(keys=st.lists(names, min_size=1, max_size=8, unique=True), prefix_all=st.booleans())
def test_strip_module_prefix_never_mutates_its_input(kata, keys, prefix_all):
    keys = [f"module.{k}" for k in keys] if prefix_all else keys
    state = make_state(keys)
    items = list(state.items())
    meta = state._metadata
    meta_items = [(k, dict(v)) for k, v in meta.items()]
    call = f"strip_module_prefix({keys})"
    kata.strip_module_prefix(state)
    now = list(state.items())
    assert [k for k, _ in now] == [k for k, _ in items], say(
        call, f"changed the caller's dict: its keys are now {[k for k, _ in now]}", hint=3
    )
    assert all(a is b for (_, a), (_, b) in zip(now, items, strict=True)), say(
        call, "replaced values in the caller's dict", hint=3
    )
    assert state._metadata is meta and [(k, dict(v)) for k, v in meta.items()] == meta_items, say(
        call, "changed the caller's _metadata", hint=3
    )


@given(keys=st.lists(names, min_size=1, max_size=8, unique=True))
def test_strip_module_prefix_keeps_the_metadata(kata, keys):
    state = make_state([f"module.{k}" for k in keys])
    want = stripped_metadata(state._metadata)
    call = f"strip_module_prefix({list(state)})"
    got = kata.strip_module_prefix(state)
    meta = getattr(got, "_metadata", None)
    assert meta is not None, say(
        call,
        "returned a dict without _metadata; load_state_dict reads each submodule's version from it",
        hint=3,
    )
    assert dict(meta) == want, say(
        call,
        f"returned _metadata {dict(meta)}; expected {want}. _metadata is keyed by each "
        "submodule's path, as the weights are, and load_state_dict looks a submodule's version "
        "up by its path in the module it loads into: in the plain model, the path that was "
        "'module' is '' and the wrapper's own '' is no submodule at all",
        hint=3,
    )


@pytest.mark.given
@given(value=st.sampled_from([None, "module.weight", [("module.weight", 1.0)], 3]))
def test_strip_module_prefix_rejects_what_is_not_a_dict(kata, value):
    with say.raises(TypeError, f"strip_module_prefix({value!r})", hint=3):
        kata.strip_module_prefix(value)


# --- the state_dict round trip: DataParallel -> strip -> a plain model ------------------------


class Versioned(nn.Module):
    """A layer at version 3 that records the version `load_state_dict` tells it a checkpoint has
    (layers such as BatchNorm use it to read checkpoints saved by older releases)."""

    _version = 3

    def __init__(self, width: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(width))
        self.loaded_versions: list[object] = []

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
        self.loaded_versions.append(local_metadata.get("version"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

    def forward(self, x):
        return x * self.scale


class Block(nn.Module):
    def __init__(self, width: int, norm: bool):
        super().__init__()
        self.submodule = nn.Linear(width, width)
        self.norm = nn.BatchNorm1d(width) if norm else nn.Identity()
        self.versioned = Versioned(width)

    def forward(self, x):
        return self.versioned(self.norm(self.submodule(x)))


class Net(nn.Module):
    """Names chosen to trip careless stripping: `module.0.submodule.weight`, wrapped into
    `module.module.0.submodule.weight`."""

    def __init__(self, width: int, depth: int, norm: bool):
        super().__init__()
        self.module = nn.Sequential(*[Block(width, norm) for _ in range(depth)])
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        return self.head(self.module(x))


def randomized(model: nn.Module, seed: int) -> nn.Module:
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for t in [*model.parameters(), *model.buffers()]:
            if t.is_floating_point():
                t.copy_(torch.rand(t.shape, generator=gen) + 0.5)
            else:
                t.fill_(seed % 7)
    return model


@settings(max_examples=25)
@given(
    width=st.integers(1, 4),
    depth=st.integers(1, 3),
    norm=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_state_dict_round_trips_from_data_parallel_to_a_plain_model(kata, width, depth, norm, seed):
    source = randomized(Net(width, depth, norm), seed)
    with fake_gpus(0):  # without GPUs, DataParallel only wraps
        wrapped = nn.DataParallel(source)
    saved = wrapped.state_dict()
    state = kata.strip_module_prefix(saved)
    call = "strip_module_prefix(nn.DataParallel(model).state_dict())"
    target = Net(width, depth, norm)
    try:
        target.load_state_dict(state)
    except RuntimeError as err:
        pytest.fail(
            say(call, f"gave keys a plain model refuses: {err}", hint=3),
            pytrace=False,
        )
    for (name, got), want in zip(
        target.state_dict().items(), source.state_dict().values(), strict=True
    ):
        assert torch.equal(got, want), say(call, f"loaded a different {name}", hint=3)
    versions = [m.loaded_versions for m in target.modules() if isinstance(m, Versioned)]
    assert all(v == [3] for v in versions), say(
        call,
        f"lost the version metadata: Versioned layers were told {versions}, expected [3] "
        "each. load_state_dict tells each layer the version recorded in _metadata under the "
        "layer's path in the model it loads into",
        hint=3,
    )


# --- scatter_sizes ----------------------------------------------------------------------------


@given(batch=st.integers(1, 300), n=st.integers(1, 16))
@example(batch=10, n=3)
@example(batch=4, n=3)
@example(batch=1, n=8)
@example(batch=6, n=4)
def test_scatter_sizes_match_chunking_a_real_batch(kata, batch, n):
    want = [len(chunk) for chunk in torch.empty(batch, 0).chunk(n)]
    got = kata.scatter_sizes(batch, n)
    call = f"scatter_sizes({batch}, {n})"
    assert isinstance(got, list) and all(isinstance(s, int) for s in got), say(
        call, f"returned {got!r}; expected a list of ints", hint=4
    )
    assert sum(got) == batch, say(call, f"returned {got}, which sums to {sum(got)}", hint=4)
    idle = n - len(want)
    assert got == want, say(
        call,
        f"returned {got}; DataParallel's scatter gives {want}. It splits a batch as "
        f"batch.chunk({n}) does, not as evenly as it can: {want[0]} row(s) to each device in "
        "turn until the rows run out, so the last device gets what is left"
        + (f", and {idle} of the {n} GPUs get no rows at all" if idle else ""),
        hint=2,
    )


@pytest.mark.given
@given(
    batch=st.integers(-5, 0) | st.sampled_from([2.0, "8", None]),
    n=st.integers(1, 4),
    swap=st.booleans(),
)
def test_scatter_sizes_rejects_bad_arguments(kata, batch, n, swap):
    args = (n, batch) if swap else (batch, n)
    call = f"scatter_sizes({args[0]!r}, {args[1]!r})"
    with say.raises(ValueError, call, hint=3) as raised:
        kata.scatter_sizes(*args)
    # Any wording that says which argument is wrong: "n_devices", "number of devices", ...
    name, word = ("n_devices", "device") if swap else ("batch_size", "batch")
    assert word in str(raised.value).lower(), say(
        call, f"raised ValueError({str(raised.value)!r}), which does not name {name}", hint=3
    )


# --- on the real machine: the cuda tier, whose bodies also run on cpu -------------------------


def plain_net(seed: int = 0) -> nn.Module:
    return randomized(Net(3, 2, norm=True), seed).double().eval()


def test_parallelize_one_device_computes_what_the_plain_model_does(kata, device):
    """On CUDA with device_ids [0]: one GPU needs no wrapper, only the move, and `Module.to`
    "modifies the module in-place" (torch/nn/modules/module.py), so the model given is the model
    returned, its parameters on cuda:0."""
    model = plain_net()
    plain = copy.deepcopy(model)
    ids = [0] if device.type == "cuda" else None
    with real_world(device):
        got = kata.parallelize(model, ids)
    call = f"parallelize(model, {ids})"
    assert got is model, say(
        call, f"returned {type(got).__name__}; with one device expected the model itself", hint=3
    )
    where = {p.device for p in model.parameters()}
    assert all(same_device(d, device) for d in where), say(
        call, f"left parameters on {sorted(map(str, where))}; expected {device}", hint=3
    )
    x = torch.randn(5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        out, want = got(x.to(device)), plain(x)
    assert torch.allclose(out.cpu(), want), say(
        call, "computes something different from the plain model", hint=1
    )


@pytest.mark.multi_gpu
def test_data_parallel_splits_the_batch_like_scatter_sizes(kata, device):
    """On two or more GPUs, real DataParallel: the batch is split along dim 0 by
    `tensor.chunk(len(device_ids))` (torch/csrc/cuda/comm.cpp, scatter, reached through
    torch/nn/parallel/scatter_gather.py), each replica's forward sees one chunk, and the outputs
    are gathered on device_ids[0] (torch/nn/parallel/data_parallel.py, forward)."""
    model = plain_net(seed=2)
    plain = copy.deepcopy(model)
    with real_world(device):
        n = torch.cuda.device_count() if torch.cuda.is_available() else 0
        got = kata.parallelize(model)
    assert kata.unwrap(got) is model, say(
        f"unwrap(parallelize(model)) with {n} GPU(s)", "is not the model", hint=2
    )
    if n >= 2:
        assert isinstance(got, nn.DataParallel) and list(got.device_ids) == list(range(n)), say(
            f"parallelize(model) with {n} GPUs",
            f"returned {type(got).__name__} with device_ids={getattr(got, 'device_ids', None)}; "
            f"expected nn.DataParallel over {list(range(n))}",
            hint=3,
        )
    seen: list[int] = []
    model.register_forward_hook(lambda m, args, out: seen.append(args[0].shape[0]))
    batch = 2 * max(n, 1) + 1
    x = torch.randn(batch, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        out, want = got(x.to(device)), plain(x)
    assert torch.allclose(out.cpu(), want), say(
        "parallelize(model)(x)", "computes something different from the plain model", hint=1
    )
    sizes = kata.scatter_sizes(batch, max(n, 1))
    assert sorted(seen) == sorted(sizes), say(
        f"scatter_sizes({batch}, {max(n, 1)})",
        f"returned {sizes}, but the replicas saw batches of {sorted(seen)}",
        hint=2,
    )
    state = kata.strip_module_prefix(got.state_dict())
    fresh = Net(3, 2, norm=True).double()
    try:
        fresh.load_state_dict(state)
    except RuntimeError as err:
        pytest.fail(
            say(
                "strip_module_prefix(parallelize(model).state_dict())",
                f"gave keys a plain model refuses: {err}",
                hint=3,
            ),
            pytrace=False,
        )
    for (name, a), b in zip(fresh.state_dict().items(), plain.state_dict().values(), strict=True):
        assert torch.equal(a.cpu(), b), say(
            "strip_module_prefix(parallelize(model).state_dict())",
            f"loaded a different {name}",
            hint=3,
        )
