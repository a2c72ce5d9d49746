"""Tests for katas/memory.py.

What is checked, and how:
- activation_bytes: the models hand autograd known tensors to keep. A custom autograd Function
  (`Keep`) saves, for backward, the tensors a drawn plan lists: fresh ones of several dtypes,
  views of them, the same one twice, the input (or a view of a larger input), a parameter, a
  view of a parameter, a buffer. The expected count is worked out from the plan alone: every
  fresh storage once, with all its bytes, and the input's storage; parameters and buffers never.
  A real MLP checks the same against what torch's own Linear and ReLU keep (a Linear keeps its
  input, a ReLU its output, and the next Linear keeps that same output again). Weak references
  to the tensors made in the forward pass show that nothing is kept after the call; a pair of
  saved-tensors hooks the test installs around the call shows that none of the kata's hooks is
  left on top of it, after a return and after a raise; `Keep`'s backward and `.grad` show
  that no backward ran.
- accumulate: float64 models, so sums in another order still agree to 1e-10. A spy optimizer
  records the gradients at its step; they are compared with one backward pass on the whole
  batch (stale gradients are left in `.grad` first). A `Hold` layer saves a fresh tensor for
  backward in every forward pass and notes the rows it saw: when a micro-batch starts, the
  tensors held for earlier micro-batches must be gone. Read-backs are counted by spies on the
  Tensor methods that hand a value to Python or to the CPU (as in tests/test_sync_points.py).
- checkpointed: outputs and gradients are compared with `blocks(x)` under the same seed, with
  dropout in the blocks. `Hold` layers inside the blocks show that no inner activation is
  alive between the passes, and that each block runs again in the backward pass; a pair of
  saved-tensors hooks around the call measures what stays alive, which must not exceed the
  blocks' inputs.
- largest_batch: a scripted `step` raises `torch.OutOfMemoryError` (which can be built
  directly) above a capacity. Each attempt allocates a tensor that its frame holds (or a
  reference cycle holds); when the next attempt starts, weak references show whether it is
  free. Other exceptions, and bad sizes, are raised and checked.
- the cuda tier runs the same bodies on a GPU, and checks what only a GPU shows: a real
  out-of-memory error under `torch.cuda.set_per_process_memory_fraction`, the caching
  allocator's reserved memory, and peak memory from `torch.cuda.max_memory_allocated`.
"""

from __future__ import annotations

import contextlib
import gc
import math
import sys
import weakref
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn
from torch.multiprocessing.reductions import StorageWeakRef

from tests.strategies import make_tensor
from tests.support import Say, host_reads, plain_repr, recorded_warnings

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

SOME = settings(max_examples=max(settings().max_examples // 4, 10))
FEW = settings(max_examples=max(settings().max_examples // 10, 5))

EVENTS: list[str] = []
"""What happened during the call under test, in order: "forward", "backward", "step",
"zero_grad", "read Tensor.item" ... Cleared by each test's setup."""


def no_warning(call: str, caught, *, hint: int) -> None:
    if caught:
        w = caught[0]
        pytest.fail(
            say(call, f"warned {w.category.__name__}: {w.message}; expected no warning", hint=hint),
            pytrace=False,
        )


def run(call: str, function, *args, hint: int, **kwargs):
    """Call the kata; a crash or a warning becomes a message for the learner."""
    return say.call(call, function, *args, hint=hint, **kwargs)


@contextlib.contextmanager
def frozen_gc() -> Iterator[None]:
    """Move every object alive now out of the collector's sight for the block, so that a
    `gc.collect()` in the kata only walks what the block makes (with torch and hypothesis
    loaded, a full collection takes tens of milliseconds)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


# --- activation_bytes ---------------------------------------------------------------------------


class Keep(torch.autograd.Function):
    """The identity on `x`, keeping for backward every tensor in `plan.kept` (a Python list,
    so autograd sees them as tensors made inside the forward pass)."""

    @staticmethod
    def forward(ctx, x, w, kept):
        ctx.save_for_backward(*kept)
        return x * 1.0

    @staticmethod
    def backward(ctx, grad):
        EVENTS.append("backward")
        return grad, None, None


DTYPES = [torch.float32, torch.float64, torch.float16, torch.uint8, torch.int64]


@plain_repr
@dataclass(frozen=True)
class Plan:
    """What one forward pass keeps: fresh tensors (their sizes and dtypes) and, in order, the
    list of what is saved: ("fresh", i), ("view", i), ("input",), ("param",),
    ("param view",), ("buffer",)."""

    fresh: tuple[tuple[int, torch.dtype], ...]
    saved: tuple[tuple, ...]
    rows: int
    input_view: bool  # the input is a slice of a larger tensor

    def __str__(self) -> str:
        fresh = ", ".join(f"{n} x {str(d).removeprefix('torch.')}" for n, d in self.fresh)
        saved = ", ".join(" ".join(map(str, s)) for s in self.saved)
        where = " (a slice of a larger tensor)" if self.input_view else ""
        return f"fresh tensors [{fresh}], keeping [{saved}] of an input of {self.rows}{where}"

    def expected(self, x: torch.Tensor) -> int:
        kept = {s[1] for s in self.saved if s[0] in ("fresh", "view")}
        total = sum(self.fresh[i][0] * self.fresh[i][1].itemsize for i in kept)
        if any(s[0] == "input" for s in self.saved):
            total += x.untyped_storage().nbytes()
        return total


@st.composite
def plans(draw) -> Plan:
    fresh = tuple(
        (draw(st.integers(1, 40)), draw(st.sampled_from(DTYPES)))
        for _ in range(draw(st.integers(0, 4)))
    )
    kinds = [("input",), ("param",), ("param view",), ("buffer",)]
    kinds += [(k, i) for i in range(len(fresh)) for k in ("fresh", "view")]
    saved = tuple(draw(st.lists(st.sampled_from(kinds), max_size=8)))
    return Plan(fresh, saved, draw(st.integers(1, 6)), draw(st.booleans()))


class Keeper(nn.Module):
    """A model whose forward pass keeps what a Plan says, and notes weak references to the
    tensors it made."""

    def __init__(self, plan: Plan, device: torch.device) -> None:
        super().__init__()
        self.plan = plan
        self.weight = nn.Parameter(torch.ones(6, device=device))
        self.register_buffer("scale", torch.ones(5, device=device))
        self.made: list[weakref.ref] = []
        self.forwards = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.forwards += 1
        fresh = [
            torch.ones(n, dtype=dtype, device=self.weight.device) for n, dtype in self.plan.fresh
        ]
        self.made += [weakref.ref(t) for t in fresh]
        pick = {
            "input": lambda s: x,
            "param": lambda s: self.weight,
            "param view": lambda s: self.weight[1:4],
            "buffer": lambda s: self.scale,
            "fresh": lambda s: fresh[s[1]],
            "view": lambda s: fresh[s[1]][fresh[s[1]].numel() // 2 :],
        }
        kept = [pick[s[0]](s) for s in self.plan.saved]
        out = Keep.apply(x, self.weight, kept)
        self.made.append(weakref.ref(out))
        return out


def plan_input(plan: Plan, device: torch.device) -> torch.Tensor:
    if plan.input_view:
        return torch.ones(plan.rows + 7, device=device)[3 : 3 + plan.rows]
    return torch.ones(plan.rows, device=device)


def check_bytes(call: str, got, want: int, plan: Plan) -> None:
    """Pass, or say what a wrong count most likely means."""
    if type(got) is not int:
        pytest.fail(say(call, f"returned {got!r}; expected a Python int", hint=4), pytrace=False)
    if got == want:
        return
    owned = any(s[0] in ("param", "param view", "buffer") for s in plan.saved)
    if got > want and owned:
        why = (
            "this forward pass also saved the model's own parameters or buffers (or views of "
            "them), which are not activations: they live as long as the model, whatever the "
            "forward pass keeps"
        )
        hint = 3
    elif got > want:
        why = (
            "a storage costs once, however many saved tensors (a tensor kept twice, or views "
            "of it) share it, and the input counts only when the forward pass keeps it"
        )
        hint = 1
    else:
        why = (
            "a kept view keeps its whole storage alive, so all of that storage counts; and the "
            "input counts when the forward pass keeps it"
        )
        hint = 1
    pytest.fail(
        say(call, f"returned {got}; the forward pass keeps {want} bytes: {why}", hint=hint),
        pytrace=False,
    )


def measure(kata, plan: Plan, device: torch.device):
    model = Keeper(plan, device)
    x = plan_input(plan, device)
    call = f"activation_bytes(model, x) for a model whose forward pass makes {plan} on {device}"
    EVENTS.clear()
    got = run(call, kata.activation_bytes, model, x, hint=2)
    return call, got, model, x


@SOME
@given(plan=plans())
@example(plan=Plan(((10, torch.float32),), (("fresh", 0), ("view", 0)), 2, False))
@example(plan=Plan(((8, torch.float64),), (("param",), ("param view",), ("buffer",)), 3, False))
@example(plan=Plan((), (("input",),), 3, True))
def test_activation_bytes_counts_each_kept_storage_once(kata, plan):
    call, got, _, x = measure(kata, plan, torch.device("cpu"))
    check_bytes(call, got, plan.expected(x), plan)


def mlp(n_in: int, hidden: int, n_out: int, seed: int, device="cpu", dtype=torch.float32):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, n_out)).to(
        device, dtype
    )


@SOME
@given(
    rows=st.integers(1, 6),
    n_in=st.integers(1, 5),
    hidden=st.integers(1, 9),
    n_out=st.integers(1, 3),
    x_grad=st.booleans(),
)
def test_activation_bytes_of_an_mlp(kata, rows, n_in, hidden, n_out, x_grad):
    """A Linear keeps its input (and its weight, a parameter); ReLU keeps its output, which the
    second Linear keeps again: float32 rows x (n_in + hidden) x 4 bytes."""
    model = mlp(n_in, hidden, n_out, seed=rows)
    x = torch.randn(rows, n_in, requires_grad=x_grad)
    call = (
        f"activation_bytes(model, x) for Linear({n_in}, {hidden}), ReLU, Linear({hidden}, "
        f"{n_out}) and x of shape ({rows}, {n_in})" + (" that requires grad" if x_grad else "")
    )
    got = run(call, kata.activation_bytes, model, x, hint=2)
    want = 4 * rows * (n_in + hidden)
    if type(got) is int and got == want:
        return
    weights = 4 * (n_in * hidden + hidden * n_out)
    if type(got) is not int:
        why, hint = "expected a Python int", 4
    elif got in (want + weights, want + weights - 4 * n_in * hidden):
        why, hint = "it counted the Linear layers' weights, which are the model's own", 3
    elif got == want + 4 * rows * hidden:
        why, hint = "it counted ReLU's output twice: the second Linear keeps the same tensor", 1
    else:
        why, hint = "x, and ReLU's output once", 1
    pytest.fail(
        say(call, f"returned {got!r}; expected {want} bytes: {why}", hint=hint), pytrace=False
    )


class Exps(nn.Module):
    """Four times `-exp(x)`: each exp keeps its output for backward (the negation keeps
    nothing), and the model drops its own reference to that output at once, so only the graph
    holds it. At the end of the forward pass it notes how many of those outputs' storages were
    already freed. (Not `exp(x) * 0.5`: the graph also keeps the 0.5, as an 8-byte tensor that
    saved-tensors hooks never see.)"""

    def forward(self, x):
        refs = []
        for _ in range(4):
            y = x.exp()
            refs.append(StorageWeakRef(y.untyped_storage()))
            x = -y
            del y
        self.freed = sum(r.expired() for r in refs)
        return x


def test_activation_bytes_keeps_what_the_forward_pass_keeps(kata, device):
    """Without the graph holding them, the exp outputs die during the forward pass and the
    allocator hands their memory to the next tensor: four storages at one address."""
    model, x = Exps(), torch.randn(1000, device=device, requires_grad=True)
    call = f"activation_bytes(model, x) for four -exp(x) in a row, x of 1000 float32 on {device}"
    got = run(call, kata.activation_bytes, model, x, hint=1)
    assert not model.freed, say(
        call,
        f"let {model.freed} of the 4 exp outputs be freed before the forward pass ended, though "
        "the graph keeps them for backward: under saved-tensors hooks, what the pack hook "
        "returns is all the graph keeps. A freed storage's memory can go to the next tensor "
        "made, and storages told apart by their address then count as one",
        hint=4,
    )
    want = 4 * 1000 * 4
    assert type(got) is int and got == want, say(
        call,
        f"returned {got!r}; the forward pass keeps four exp outputs of 4000 bytes: {want}",
        hint=1,
    )


def test_activation_bytes_runs_no_backward(kata):
    plan = Plan(((4, torch.float32),), (("fresh", 0), ("input",)), 3, False)
    call, _, model, _ = measure(kata, plan, torch.device("cpu"))
    assert "backward" not in EVENTS and model.weight.grad is None, say(
        call,
        "ran the backward pass; it must measure what the forward pass keeps, without using it",
        hint=1,
    )
    assert model.forwards == 1, say(
        call, f"ran the model {model.forwards} times; expected one forward pass", hint=3
    )


class Chain(nn.Module):
    """Linear, tanh, Linear, exp: tanh and exp keep their outputs for backward, the Linears
    their inputs; notes weak references to every tensor it makes."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(3, 8), nn.Linear(8, 2)
        self.made: list[weakref.ref] = []

    def forward(self, x):
        h = self.a(x)
        t = h.tanh()
        o = self.b(t)
        e = o.exp()
        self.made += [weakref.ref(v) for v in (h, t, o, e)]
        return e


@pytest.mark.parametrize("model", ["Keeper", "Chain"])
def test_activation_bytes_keeps_nothing_alive(kata, model):
    if model == "Chain":
        model, x = Chain(), torch.randn(4, 3)
        call = "activation_bytes(model, x) for Linear(3, 8), tanh, Linear(8, 2), exp"
    else:
        plan = Plan(((16, torch.float32), (4, torch.int64)), (("fresh", 0), ("view", 1)), 3, False)
        model, x = Keeper(plan, torch.device("cpu")), plan_input(plan, torch.device("cpu"))
        call = f"activation_bytes(model, x) for a model whose forward pass makes {plan}"
    with frozen_gc():
        run(call, kata.activation_bytes, model, x, hint=2)
        gc.collect()
    alive = sum(r() is not None for r in model.made)
    assert not alive, say(
        call,
        f"returned with {alive} of the {len(model.made)} tensors the forward pass made still "
        "alive after a garbage collection: something still holds the graph or the saved "
        "tensors. Whatever a pack hook returns is what the graph keeps, and a saved output "
        "kept as it is holds its own grad_fn, a cycle through C++ that the collector cannot "
        "free",
        hint=4,
    )


class Outer:
    """A pair of saved-tensors hooks the test installs around the call: after it, a forward
    pass must reach them again (only the innermost pair runs)."""

    def __init__(self) -> None:
        self.packed = 0

    def pack(self, t):
        self.packed += 1
        return t.detach()

    @contextlib.contextmanager
    def around(self) -> Iterator[None]:
        with torch.autograd.graph.saved_tensors_hooks(self.pack, lambda t: t):
            yield

    def still_on_top(self) -> bool:
        before = self.packed
        w = torch.ones(2, requires_grad=True)
        (w * 2).exp()  # keeps its output
        return self.packed > before


class Fails(nn.Module):
    """Keeps a tensor for backward, then raises."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3))

    def forward(self, x):
        (x * self.weight).exp()
        raise KeyError("the model failed halfway")


def module_hooks(model: nn.Module) -> list[str]:
    found = []
    for name, m in model.named_modules():
        for kind in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks"):
            if getattr(m, kind):
                found.append(f"{kind.strip('_')} on {name or 'the model'}")
    g = nn.modules.module
    for kind in ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks"):
        if getattr(g, kind):
            found.append(kind.strip("_"))
    return found


def test_activation_bytes_leaves_no_hook_after_returning(kata):
    outer = Outer()
    model = mlp(3, 4, 2, seed=0)
    call = "activation_bytes(model, x) for an MLP"
    with outer.around():
        run(call, kata.activation_bytes, model, torch.randn(2, 3), hint=2)
        on_top = outer.still_on_top()
    assert on_top, say(
        call,
        "returned with its saved-tensors hooks still installed: every later forward pass "
        "would go through them",
        hint=2,
    )
    left = module_hooks(model)
    assert not left, say(call, f"returned with hooks still attached: {', '.join(left)}", hint=2)


def test_activation_bytes_leaves_no_hook_after_raising(kata):
    outer = Outer()
    model = Fails()
    call = "activation_bytes(model, x) for a model that raises KeyError halfway"
    with outer.around():
        with say.raises(KeyError, call, hint=2):
            kata.activation_bytes(model, torch.ones(3))
        on_top = outer.still_on_top()
    assert on_top, say(
        call,
        "raised with its saved-tensors hooks still installed: they must come off however the "
        "forward pass ends, or every later forward pass goes through them",
        hint=2,
    )
    left = module_hooks(model)
    assert not left, say(call, f"raised with hooks still attached: {', '.join(left)}", hint=2)


@FEW
@given(plan=plans())
def test_activation_bytes_on_the_device(kata, device, plan):
    call, got, _, x = measure(kata, plan, device)
    check_bytes(call, got, plan.expected(x), plan)


# --- accumulate -------------------------------------------------------------------------------


class HoldFn(torch.autograd.Function):
    """The identity; keeps a fresh copy of its input for backward, and notes a weak reference
    to it in the watch."""

    @staticmethod
    def forward(ctx, x, watch):
        kept = x.detach().clone()
        ctx.save_for_backward(kept)
        watch.held.append((watch.forwards, weakref.ref(kept)))
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        EVENTS.append("backward")
        return grad, None


class Hold(nn.Module):
    """A layer that keeps a tensor for backward (its input must require grad, or autograd keeps
    nothing); when a forward pass starts, it notes which earlier passes' tensors are still
    alive."""

    def __init__(self, watch: Watch) -> None:
        super().__init__()
        self.watch = watch

    def forward(self, x):
        w = self.watch
        alive = [k for k, ref in w.held if ref() is not None] if w.look_back else []
        if alive:
            gc.collect(1)  # a young reference cycle is not a kept graph: look again
            alive = [k for k, ref in w.held if ref() is not None]
        if alive and not w.kept_alive:
            w.kept_alive = (w.forwards, alive[0])
        out = HoldFn.apply(x, w)
        w.forwards += 1
        return out


class Rows(nn.Module):
    """The identity; notes each forward pass and the rows it was given."""

    def __init__(self, watch: Watch) -> None:
        super().__init__()
        self.watch = watch

    def forward(self, x):
        self.watch.rows.append(x.detach().clone())
        EVENTS.append("forward")
        return x


@dataclass
class Watch:
    held: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    forwards: int = 0
    kept_alive: tuple | None = None
    look_back: bool = True  # note earlier passes' tensors still alive when a pass starts


class Steps(torch.optim.SGD):
    """SGD that notes each step with the gradients it saw, and each zero_grad."""

    def __init__(self, params, lr) -> None:
        super().__init__(params, lr=lr)
        self.grads: list[list[torch.Tensor | None]] = []

    def step(self, closure=None):
        EVENTS.append("step")
        params = [p for g in self.param_groups for p in g["params"]]
        self.grads.append([None if p.grad is None else p.grad.detach().clone() for p in params])
        return super().step(closure)

    def zero_grad(self, set_to_none=True):
        EVENTS.append("zero_grad")
        return super().zero_grad(set_to_none)


@plain_repr
@dataclass(frozen=True)
class Batch:
    rows: int
    micro_batch: int
    n_in: int
    n_out: int
    seed: int

    def __str__(self) -> str:
        return (
            f"{self.rows} rows in micro-batches of {self.micro_batch}, MLP {self.n_in}->5->"
            f"{self.n_out} (float64), SGD(lr=0.1)"
        )

    @property
    def parts(self) -> int:
        return math.ceil(self.rows / self.micro_batch)

    def model(self, device, watch: Watch | None = None) -> nn.Module:
        torch.manual_seed(self.seed)
        layers = [nn.Linear(self.n_in, 5), nn.Tanh(), nn.Linear(5, self.n_out)]
        if watch is not None:
            layers[1:1] = [Hold(watch)]
            layers.insert(0, Rows(watch))
        return nn.Sequential(*layers).to(device, torch.float64)

    def data(self, device):
        x = make_tensor((self.rows, self.n_in), torch.float64, self.seed, device)
        y = make_tensor((self.rows, self.n_out), torch.float64, self.seed + 1, device)
        return x, y


@st.composite
def batches(draw, min_parts: int = 1) -> Batch:
    micro = draw(st.integers(1, 5))
    rows = draw(st.integers(max(1, micro * (min_parts - 1) + 1), 13))
    return Batch(
        rows, micro, draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(0, 2**20))
    )


def stale_grads(model: nn.Module) -> None:
    for k, p in enumerate(model.parameters()):
        p.grad = torch.full_like(p, 0.5 + k)


def whole_batch(batch: Batch, device):
    """One backward pass on the whole batch: (gradients, mean loss, parameters after SGD)."""
    model = batch.model(device)
    x, y = batch.data(device)
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    grads = [p.grad.clone() for p in model.parameters()]
    after = [(p - 0.1 * p.grad).detach() for p in model.parameters()]
    return grads, loss.item(), after


def micro_grads(batch: Batch, device, *, scaled: bool) -> list[list[torch.Tensor]]:
    """The gradients of each micro-batch's loss on its own (scaled by its share, or not)."""
    x, y = batch.data(device)
    out = []
    for start in range(0, batch.rows, batch.micro_batch):
        model = batch.model(device)
        xs, ys = x[start : start + batch.micro_batch], y[start : start + batch.micro_batch]
        loss = nn.functional.mse_loss(model(xs), ys)
        (loss * (len(xs) / batch.rows) if scaled else loss).backward()
        out.append([p.grad.clone() for p in model.parameters()])
    return out


def close(a: list, b: list) -> bool:
    return all(
        u is not None and torch.allclose(u, v, rtol=1e-9, atol=1e-11)
        for u, v in zip(a, b, strict=True)
    )


def total(grads: list[list[torch.Tensor]]) -> list[torch.Tensor]:
    return [sum(gs) for gs in zip(*grads, strict=True)]


def read_backs() -> contextlib.AbstractContextManager[None]:
    """Note each read of a tensor's value by the host in EVENTS, as "read Tensor.name"."""
    return host_reads(lambda name, caller: EVENTS.append(f"read Tensor.{name}"))


def reads() -> list[str]:
    return [e.removeprefix("read ") for e in EVENTS if e.startswith("read ")]


def tally(names: list[str]) -> str:
    return ", ".join(f"{name} x{n}" for name, n in Counter(names).items())


def accumulate(kata, batch: Batch, device, *, hint: int):
    """Run accumulate on a fresh watched model with stale gradients; return
    (call, loss, model, optimizer, watch)."""
    watch = Watch()
    model = batch.model(device, watch)
    stale_grads(model)
    optimizer = Steps(model.parameters(), lr=0.1)
    x, y = batch.data(device)
    call = (
        f"accumulate(model, optimizer, mse_loss, x, y, micro_batch={batch.micro_batch}) "
        f"with {batch}"
    )
    if device.type != "cpu":
        call += f" on {device}"
    EVENTS.clear()
    with read_backs(), recorded_warnings() as caught:
        try:
            got = kata.accumulate(
                model, optimizer, nn.functional.mse_loss, x, y, micro_batch=batch.micro_batch
            )
        except Exception as err:
            if say.unwritten(err):
                raise
            pytest.fail(say(call, f"raised {type(err).__name__}: {err}", hint=hint), pytrace=False)
    no_warning(call, caught, hint=hint)
    return call, got, model, optimizer, watch


def check_step(call: str, batch: Batch, device, got, model, optimizer) -> None:
    grads, loss, after = whole_batch(batch, device)
    steps = EVENTS.count("step")
    assert steps == 1, say(
        call,
        f"stepped the optimizer {steps} times; expected one step, after the last micro-batch",
        hint=3,
    )
    seen = optimizer.grads[0]
    if not close(seen, grads):
        k = batch.parts
        parts = micro_grads(batch, device, scaled=False)
        scaled = micro_grads(batch, device, scaled=True)
        stale = [g + torch.full_like(g, 0.5 + i) for i, g in enumerate(grads)]
        if close(seen, total(parts)):
            why = (
                f"the sum of {k} micro-batches' gradients, each of its own mean loss: about {k} "
                "times the whole batch's. backward() adds to .grad, and the whole batch's mean "
                "weighs each micro-batch by its share of the rows"
            )
            hint = 1
        elif close(seen, [g / k for g in total(parts)]):
            why = (
                f"the micro-batch gradients averaged over {k} micro-batches; that is the whole "
                f"batch's only when every micro-batch has the same rows, and these had "
                f"{batch.rows} rows in micro-batches of {batch.micro_batch}, and the whole "
                "batch's mean weighs each by its rows"
            )
            hint = 3
        elif k > 1 and (close(seen, scaled[-1]) or close(seen, parts[-1])):
            why = (
                "the last micro-batch's gradients only: the earlier micro-batches' gradients "
                "were no longer in .grad when the optimizer stepped"
            )
            hint = 3
        elif close(seen, stale):
            why = "the whole batch's gradients plus what was in .grad before the call"
            hint = 3
        else:
            why = "not the whole batch's gradients"
            hint = 1
        pytest.fail(say(call, f"stepped with {why}", hint=hint), pytrace=False)
    assert type(got) is float, say(call, f"returned {got!r}; expected a Python float", hint=3)
    assert math.isclose(got, loss, rel_tol=1e-9, abs_tol=1e-12), say(
        call, f"returned {got}; the whole batch's mean loss is {loss}", hint=3
    )
    now = [p.detach() for p in model.parameters()]
    assert close(now, after), say(
        call, "left the parameters other than one SGD step with the whole batch's gradients", hint=3
    )


@SOME
@given(batch=batches())
@example(batch=Batch(7, 3, 2, 1, 0))  # 3 + 3 + 1 rows
@example(batch=Batch(6, 3, 2, 1, 1))  # 3 + 3 rows
def test_accumulate_equals_one_step_on_the_whole_batch(kata, batch):
    cpu = torch.device("cpu")
    call, got, model, optimizer, _ = accumulate(kata, batch, cpu, hint=1)
    check_step(call, batch, cpu, got, model, optimizer)


@SOME
@given(batch=batches())
def test_accumulate_runs_micro_batches_of_at_most_micro_batch_rows(kata, batch):
    cpu = torch.device("cpu")
    call, _, _, _, watch = accumulate(kata, batch, cpu, hint=3)
    sizes = [len(r) for r in watch.rows]
    assert sizes and max(sizes) <= batch.micro_batch, say(
        call,
        f"ran the model on {sizes} rows; expected at most {batch.micro_batch} at a time",
        hint=3,
    )
    seen = sorted(tuple(row.tolist()) for r in watch.rows for row in r)
    want = sorted(tuple(row.tolist()) for row in batch.data(cpu)[0])
    assert seen == want, say(
        call,
        f"ran the model on {len(seen)} rows in all; expected each of the {batch.rows} rows once",
        hint=3,
    )


@SOME
@given(batch=batches(min_parts=2))
@example(batch=Batch(6, 2, 2, 1, 3))
def test_accumulate_keeps_one_micro_batch_alive(kata, batch):
    call, _, _, _, watch = accumulate(kata, batch, torch.device("cpu"), hint=3)
    if watch.kept_alive is not None:
        now, older = watch.kept_alive
        pytest.fail(
            say(
                call,
                f"still held micro-batch {older}'s activations when micro-batch {now} started: "
                "a loss that is kept (or summed) with its graph keeps every activation of it "
                "alive until backward() frees them, so the peak holds more than one "
                "micro-batch's activations",
                hint=3,
            ),
            pytrace=False,
        )


@SOME
@given(batch=batches(min_parts=2))
@example(batch=Batch(6, 2, 2, 1, 3))
def test_accumulate_reads_back_once_after_the_last_micro_batch(kata, batch):
    call, _, _, _, _ = accumulate(kata, batch, torch.device("cpu"), hint=2)
    check_read_backs(call, batch)


def check_read_backs(call: str, batch: Batch) -> None:
    made = reads()
    assert len(made) == 1, say(
        call,
        f"read {len(made)} values back from the device ({tally(made) or 'none'}) for "
        f"{batch.parts} micro-batches; expected exactly one, after the last micro-batch: on a "
        "GPU each read-back makes the host wait",
        hint=3,
    )
    last = max((i for i, e in enumerate(EVENTS) if e == "backward"), default=-1)
    first = next(i for i, e in enumerate(EVENTS) if e.startswith("read "))
    assert first > last, say(
        call, f"read back ({made[0]}) before the last micro-batch's backward pass", hint=3
    )


BAD_BATCHES = {
    "micro_batch=0": (6, 6, 0),
    "micro_batch=-2": (6, 6, -2),
    "an empty batch": (0, 0, 2),
    "6 inputs and 5 targets": (6, 5, 2),
    "5 inputs and 6 targets": (5, 6, 2),
}


@pytest.mark.given
@pytest.mark.parametrize("case", BAD_BATCHES)
def test_accumulate_refuses_bad_batches_before_touching_gradients(kata, case):
    n_x, n_y, micro = BAD_BATCHES[case]
    watch = Watch()
    model = Batch(6, 2, 2, 1, 0).model(torch.device("cpu"), watch)
    stale_grads(model)
    before = [p.grad.clone() for p in model.parameters()]
    optimizer = Steps(model.parameters(), lr=0.1)
    x, y = torch.ones(n_x, 2, dtype=torch.float64), torch.ones(n_y, 1, dtype=torch.float64)
    call = f"accumulate(model, optimizer, mse_loss, x, y, micro_batch={micro}) with {case}"
    EVENTS.clear()
    with say.raises(ValueError, call, hint=3):
        kata.accumulate(model, optimizer, nn.functional.mse_loss, x, y, micro_batch=micro)
    untouched = all(
        p.grad is not None and torch.equal(p.grad, b)
        for p, b in zip(model.parameters(), before, strict=True)
    )
    assert untouched and not EVENTS, say(
        call,
        f"did {', '.join(EVENTS) or 'something to .grad'} before raising ValueError: a call "
        "that is refused leaves the model and its gradients as they were",
        hint=3,
    )


@FEW
@given(batch=batches())
def test_accumulate_on_the_device(kata, device, batch):
    call, got, model, optimizer, watch = accumulate(kata, batch, device, hint=1)
    check_step(call, batch, device, got, model, optimizer)
    assert watch.kept_alive is None, say(
        call, "kept an earlier micro-batch's activations alive into the next", hint=3
    )
    check_read_backs(call, batch)


@pytest.mark.cuda
def test_accumulate_lowers_peak_memory_on_cuda(kata):
    """No CPU twin: peak memory is what CUDA's caching allocator reports."""
    device = torch.device("cuda")
    peaks = {}
    for micro in (2048, 256):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 4096), nn.ReLU(), nn.Linear(4096, 1)).to(device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        x, y = torch.randn(2048, 64, device=device), torch.randn(2048, 1, device=device)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        kata.accumulate(model, optimizer, nn.functional.mse_loss, x, y, micro_batch=micro)
        peaks[micro] = torch.cuda.max_memory_allocated() - base
    call = "accumulate(model, optimizer, mse_loss, x, y, micro_batch=...) on 2048 rows on cuda"
    assert peaks[256] < 0.5 * peaks[2048], say(
        call,
        f"peaked at {peaks[256]} bytes above the start with micro_batch=256, and {peaks[2048]} "
        "with micro_batch=2048; micro-batches of an eighth should need far less",
        hint=3,
    )


NO_INPUT_GRAD = "None of the inputs have requires_grad=True"  # torch/utils/checkpoint.py

# --- checkpointed ------------------------------------------------------------------------------


@plain_repr
@dataclass(frozen=True)
class Blocks:
    n_blocks: int
    width: int
    rows: int
    dropout: bool
    x_grad: bool
    seed: int

    def __str__(self) -> str:
        inner = "Linear, Tanh" + (", Dropout(0.5)" if self.dropout else "") + ", Linear"
        grad = "that requires grad" if self.x_grad else "that does not require grad"
        return (
            f"{self.n_blocks} blocks of ({inner}), width {self.width}, on x of {self.rows} rows "
            f"{grad} (float64)"
        )

    def model(self, device, watch: Watch | None = None) -> nn.Sequential:
        torch.manual_seed(self.seed)
        blocks = []
        for _ in range(self.n_blocks):
            layers = [nn.Linear(self.width, 2 * self.width), nn.Tanh()]
            if self.dropout:
                layers.append(nn.Dropout(0.5))
            if watch is not None:
                layers.append(Hold(watch))
            layers.append(nn.Linear(2 * self.width, self.width))
            blocks.append(nn.Sequential(*layers))
        return nn.Sequential(*blocks).to(device, torch.float64)

    def x(self, device) -> torch.Tensor:
        x = make_tensor((self.rows, self.width), torch.float64, self.seed + 1, device)
        return x.requires_grad_(self.x_grad)

    def upstream(self, device) -> torch.Tensor:
        return make_tensor((self.rows, self.width), torch.float64, self.seed + 2, device)


@st.composite
def stacks(draw, x_grad: st.SearchStrategy[bool] | None = None) -> Blocks:
    return Blocks(
        draw(st.integers(1, 4)),
        draw(st.integers(1, 4)),
        draw(st.integers(1, 4)),
        draw(st.booleans()),
        draw(st.booleans() if x_grad is None else x_grad),
        draw(st.integers(0, 2**20)),
    )


def plain_pass(spec: Blocks, device):
    """blocks(x) and its gradients, under the spec's seed."""
    model = spec.model(device)
    x = spec.x(device)
    torch.manual_seed(spec.seed + 3)
    out = model(x)
    out.backward(spec.upstream(device))
    return out.detach(), [p.grad for p in model.parameters()], x.grad


def checkpoint_pass(kata, spec: Blocks, device, watch: Watch | None = None, *, hint: int):
    """checkpointed(blocks, x) under the spec's seed; returns (call, out, model, x)."""
    model = spec.model(device, watch)
    x = spec.x(device)
    call = f"checkpointed(blocks, x) with {spec}"
    if device.type != "cpu":
        call += f" on {device}"
    torch.manual_seed(spec.seed + 3)
    with recorded_warnings() as caught:
        try:
            out = kata.checkpointed(model, x)
        except Exception as err:
            if say.unwritten(err):
                raise
            pytest.fail(say(call, f"raised {type(err).__name__}: {err}", hint=hint), pytrace=False)
    for w in caught:
        text = str(w.message)
        if NO_INPUT_GRAD in text:
            pytest.fail(
                say(
                    call,
                    f"warned {text!r}: the reentrant checkpoint passes gradients only through "
                    "inputs that require grad, so the parameters inside get none when x does "
                    "not; the non-reentrant variant has no such limit",
                    hint=2,
                ),
                pytrace=False,
            )
        if "use_reentrant" in text:
            pytest.fail(
                say(
                    call,
                    f"warned {text[:120]!r}...: torch warns when a call leaves the variant of "
                    "checkpoint (use_reentrant) to its default",
                    hint=2,
                ),
                pytrace=False,
            )
    no_warning(call, caught, hint=hint)
    assert isinstance(out, torch.Tensor), say(call, f"returned {out!r}; expected a tensor", hint=3)
    return call, out, model, x


def backward(call: str, out: torch.Tensor, upstream: torch.Tensor, *, hint: int) -> None:
    if not out.requires_grad:
        pytest.fail(
            say(
                call,
                "returned an output that does not require grad, so no gradient can reach the "
                "parameters: an output computed in the graph from parameters that require "
                "grad requires grad too",
                hint=2,
            ),
            pytrace=False,
        )
    with recorded_warnings() as caught:
        out.backward(upstream)
    no_warning(call + ", then backward()", caught, hint=hint)


def check_same(kata, spec: Blocks, device) -> None:
    want, grads, x_grad = plain_pass(spec, device)
    call, out, model, x = checkpoint_pass(kata, spec, device, hint=2)
    assert out.shape == want.shape and torch.allclose(out.detach(), want, rtol=1e-9), say(
        call,
        "returned another output than blocks(x)"
        + (
            " under the same seed: dropout must draw as it would in blocks(x)"
            if spec.dropout
            else ""
        ),
        hint=3,
    )
    backward(call, out, spec.upstream(device), hint=2)
    got = [p.grad for p in model.parameters()]
    missing = sum(g is None for g in got)
    assert not missing, say(
        call,
        f"left {missing} of {len(got)} parameters without a gradient after backward(); "
        "gradients must reach the parameters even when x does not require grad",
        hint=2,
    )
    if not close(got, grads):
        why = ""
        if spec.dropout:
            why = (
                ": recomputing dropout must draw the same mask as the forward pass did, so the "
                "random state must be kept and replayed"
            )
        pytest.fail(
            say(call, f"gave other parameter gradients than blocks(x){why}", hint=2), pytrace=False
        )
    if spec.x_grad:
        assert x.grad is not None and torch.allclose(x.grad, x_grad, rtol=1e-9), say(
            call, "gave x another gradient than blocks(x) does", hint=3
        )


@SOME
@given(spec=stacks())
@example(spec=Blocks(2, 3, 2, False, False, 0))
@example(spec=Blocks(3, 2, 3, True, True, 1))
def test_checkpointed_gives_the_output_and_gradients_of_blocks(kata, spec):
    check_same(kata, spec, torch.device("cpu"))


@SOME
@given(spec=stacks(x_grad=st.just(False)))
def test_checkpointed_reaches_the_parameters_when_x_does_not_require_grad(kata, spec):
    check_same(kata, spec, torch.device("cpu"))


@SOME
@given(spec=stacks())
@example(spec=Blocks(3, 2, 2, False, True, 0))
def test_checkpointed_keeps_no_inner_activation_between_the_passes(kata, spec):
    cpu = torch.device("cpu")
    watch = Watch(look_back=False)
    with frozen_gc():
        call, out, _, _ = checkpoint_pass(kata, spec, cpu, watch, hint=3)
        gc.collect()
    alive = sorted({k for k, ref in watch.held if ref() is not None})
    assert not alive, say(
        call,
        f"returned while the inner activations of block(s) {alive} were still kept: each "
        "block's inner activations must be recomputed in the backward pass, not kept",
        hint=3,
    )
    before = watch.forwards
    assert before == spec.n_blocks, say(
        call, f"ran the blocks' forward {before} times; expected once per block", hint=3
    )
    backward(call, out, spec.upstream(cpu), hint=2)
    again = watch.forwards - before
    assert again == spec.n_blocks, say(
        call,
        f"ran {again} block forward(s) again in the backward pass; expected each of the "
        f"{spec.n_blocks} blocks to be recomputed once",
        hint=3,
    )


@SOME
@given(spec=stacks())
def test_checkpointed_keeps_only_the_blocks_inputs(kata, spec):
    """Measured by the test's own saved-tensors hooks around the call: what stays alive for
    backward must fit in the inputs of the blocks (x, and each block's output but the last)."""
    cpu = torch.device("cpu")
    model = spec.model(cpu)
    x = spec.x(cpu)
    owned = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept: dict[int, int] = {}

    def pack(t):
        ptr = t.untyped_storage().data_ptr()
        if ptr not in owned:
            kept[ptr] = t.untyped_storage().nbytes()
        return t.detach()

    call = f"checkpointed(blocks, x) with {spec}"
    torch.manual_seed(spec.seed)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = run(call, kata.checkpointed, model, x, hint=3)
    inputs = spec.n_blocks * x.untyped_storage().nbytes()
    assert sum(kept.values()) <= inputs, say(
        call,
        f"kept {sum(kept.values())} bytes for the backward pass; the blocks' inputs are "
        f"{inputs} bytes, and nothing more should be kept",
        hint=3,
    )
    del out


@FEW
@given(spec=stacks())
def test_checkpointed_on_the_device(kata, device, spec):
    check_same(kata, spec, device)


@pytest.mark.cuda
def test_checkpointed_lowers_peak_memory_on_cuda(kata):
    """No CPU twin: peak memory is what CUDA's caching allocator reports."""
    device = torch.device("cuda")
    torch.manual_seed(0)
    blocks = nn.Sequential(
        *[nn.Sequential(nn.Linear(512, 4096), nn.GELU(), nn.Linear(4096, 512)) for _ in range(8)]
    ).to(device)
    x = torch.randn(512, 512, device=device)
    peaks = {}
    for name, f in (
        ("blocks(x)", blocks),
        ("checkpointed", lambda x: kata.checkpointed(blocks, x)),
    ):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        out = f(x)
        peaks[name] = torch.cuda.max_memory_allocated() - base
        out.sum().backward()
        del out
    call = "checkpointed(blocks, x) for 8 blocks of width 512 -> 4096 -> 512 on cuda"
    assert peaks["checkpointed"] < 0.5 * peaks["blocks(x)"], say(
        call,
        f"peaked at {peaks['checkpointed']} bytes in the forward pass, against "
        f"{peaks['blocks(x)']} for blocks(x); keeping only the blocks' inputs should need far less",
        hint=3,
    )


# --- largest_batch -----------------------------------------------------------------------------


def out_of_memory(n: int) -> torch.OutOfMemoryError:
    err = torch.OutOfMemoryError(f"CUDA out of memory. Tried to allocate {n * 16} bytes (scripted)")
    err.attempt = n  # which attempt raised it
    return err


class Step:
    """A scripted training step: it allocates a tensor for `n` rows (held by its own frame, or
    by a reference cycle), and raises torch.OutOfMemoryError when `n > capacity`. When it is
    called, it notes whether the tensors of earlier attempts are still alive."""

    LIMIT = 64

    def __init__(self, capacity: int, *, cycle: bool = False, device="cpu", other=None) -> None:
        self.capacity = capacity
        self.cycle = cycle
        self.device = device
        self.other = other  # (call number, exception) to raise instead
        self.sizes: list[int] = []
        self.made: list[weakref.ref] = []
        self.alive_at: tuple[int, int] | None = None  # (attempt, earlier attempt still alive)
        self.why = ""  # what the test saw holding the earlier attempt's tensors
        self.errors: list[weakref.ref] = []  # the out-of-memory errors it raised
        self.collections: list[tuple[int, int | None]] = []
        """Each full garbage collection during the call: (how many attempts had been made,
        the attempt whose out-of-memory error was being handled then, or None)."""

    def __call__(self, n: int) -> None:
        if self.alive_at is None:
            for k, ref in enumerate(self.made):
                if ref() is not None:
                    self.alive_at = (len(self.sizes), k)
                    self.why = self.holding(k)
                    break
        self.sizes.append(n)
        if len(self.sizes) > self.LIMIT:
            pytest.fail(
                say(
                    self.call,
                    f"called step {self.LIMIT} times (sizes {self.sizes[:8]} ...); it must stop "
                    "after trying min_size",
                    hint=3,
                ),
                pytrace=False,
            )
        activations = torch.ones(max(n, 1), 4, device=self.device)
        self.made.append(weakref.ref(activations))
        if self.cycle:
            junk: dict = {"activations": activations}
            junk["self"] = junk
        if self.other is not None and len(self.sizes) == self.other[0]:
            raise self.other[1]()
        if n > self.capacity:
            raise self.failed(n)  # no local name for it: that would tie it to this frame

    def failed(self, n: int) -> torch.OutOfMemoryError:
        err = out_of_memory(n)
        self.errors.append(weakref.ref(err))
        return err

    def holding(self, k: int) -> str:
        """What holds attempt `k`'s tensors now, as far as the test can see."""
        handled = sys.exc_info()[1]
        if isinstance(handled, torch.OutOfMemoryError) and hasattr(handled, "attempt"):
            return (
                f"it was called from inside the except block that caught step({handled.attempt})'s "
                "out-of-memory error: while that block runs, the error's traceback holds the "
                "failed attempt's frames, and with them its tensors"
            )
        alive = [e.attempt for ref in self.errors if (e := ref()) is not None]
        if alive:
            return (
                f"the out-of-memory error of step({alive[0]}) was still alive after its except "
                "block, and its traceback holds the failed attempt's frames, and with them its "
                "tensors"
            )
        since = [handling for after, handling in self.collections if after > k]
        gc.collect()
        if self.made[k]() is not None:
            return "something still held them"
        if not since:
            return (
                "a reference cycle held them, and no garbage collection ran between the two "
                "attempts: only the collector frees a cycle"
            )
        if all(handling is not None for handling in since):
            return (
                "a reference cycle held them, and the garbage collection between the two "
                "attempts ran inside the except block, while the error's traceback still held "
                "the failed attempt's frames, and through them the cycle"
            )
        return "something still held them"

    @contextlib.contextmanager
    def watching_collections(self) -> Iterator[None]:
        """Note each full garbage collection, and whether it ran while an out-of-memory error
        of this step was being handled."""

        def note(phase: str, info: dict) -> None:
            if phase == "start" and info["generation"] == 2:
                handled = sys.exc_info()[1]
                self.collections.append((len(self.sizes), getattr(handled, "attempt", None)))

        gc.callbacks.append(note)
        try:
            yield
        finally:
            gc.callbacks.remove(note)

    call = "largest_batch(step, ...)"


def sizes_tried(batch_size: int, min_size: int, capacity: int) -> list[int]:
    n, out = batch_size, [batch_size]
    while n > capacity and n > min_size:
        n = max(n // 2, min_size)
        out.append(n)
    return out


def find(kata, step: Step, batch_size: int, min_size: int | None, *, hint: int):
    kwargs = {} if min_size is None else {"min_size": min_size}
    step.call = f"largest_batch(step, {batch_size}{f', min_size={min_size}' if kwargs else ''})"
    with frozen_gc(), step.watching_collections():
        return run(step.call, kata.largest_batch, step, batch_size, hint=hint, **kwargs)


@st.composite
def searches(draw, fits: bool = True):
    batch_size = draw(st.integers(1, 600))
    min_size = draw(st.one_of(st.none(), st.integers(1, batch_size)))
    low = 1 if min_size is None else min_size
    capacities = st.integers(low, 2 * batch_size) if fits else st.integers(0, low - 1)
    capacity = draw(capacities)
    return batch_size, min_size, capacity


def check_sizes(step: Step, want: list[int], min_size: int) -> None:
    got = step.sizes
    if got == want:
        return
    below = [n for n in got if n < min_size]
    if below:
        why = f"went below min_size={min_size}"
    elif len(got) < len(want) and got == want[: len(got)]:
        why = "stopped before trying min_size"
    else:
        why = "did not halve the size (rounded down, never below min_size) after each failure"
    pytest.fail(
        say(step.call, f"tried sizes {got}; expected {want}: it {why}", hint=3), pytrace=False
    )


@SOME
@given(search=searches())
@example(search=(100, 30, 40))  # 100, 50, 30
@example(search=(64, None, 8))  # 64, 32, 16, 8
@example(search=(7, 7, 7))
def test_largest_batch_halves_until_a_size_fits(kata, search):
    batch_size, min_size, capacity = search
    step = Step(capacity)
    got = find(kata, step, batch_size, min_size, hint=3)
    want = sizes_tried(batch_size, min_size or 1, capacity)
    check_sizes(step, want, min_size or 1)
    assert got == want[-1] and type(got) is int, say(
        step.call, f"returned {got!r}; step last returned for size {want[-1]}", hint=3
    )


@SOME
@given(search=searches(fits=False))
@example(search=(64, 8, 5))
@example(search=(1, None, 0))
def test_largest_batch_raises_when_min_size_does_not_fit(kata, search):
    batch_size, min_size, capacity = search
    step = Step(capacity)
    kwargs = {} if min_size is None else {"min_size": min_size}
    step.call = f"largest_batch(step, {batch_size}{f', min_size={min_size}' if kwargs else ''})"
    with frozen_gc(), say.raises(torch.OutOfMemoryError, step.call, hint=3) as raised:
        kata.largest_batch(step, batch_size, **kwargs)
    check_sizes(step, sizes_tried(batch_size, min_size or 1, capacity), min_size or 1)
    assert getattr(raised.value, "attempt", None) == (min_size or 1), say(
        step.call,
        f"raised {raised.value!r}; expected the out-of-memory error of the step at min_size "
        "itself, as step raised it",
        hint=3,
    )


def check_freed(step: Step) -> None:
    if step.alive_at is None:
        return
    now, older = step.alive_at
    pytest.fail(
        say(
            step.call,
            f"called step({step.sizes[now]}) while the tensors of the failed "
            f"step({step.sizes[older]}) were still alive: {step.why}",
            hint=3,
        ),
        pytrace=False,
    )


@SOME
@given(search=searches(), cycle=st.booleans())
@example(search=(8, None, 2), cycle=False)
@example(search=(8, None, 2), cycle=True)
def test_largest_batch_frees_a_failed_attempt_before_the_next(kata, search, cycle):
    batch_size, min_size, capacity = search
    step = Step(capacity, cycle=cycle)
    find(kata, step, batch_size, min_size, hint=3)
    check_freed(step)


OTHER_ERRORS = {
    "RuntimeError('CUDA error: an illegal memory access was encountered')": lambda: RuntimeError(
        "CUDA error: an illegal memory access was encountered"
    ),
    "RuntimeError('mat1 and mat2 shapes cannot be multiplied')": lambda: RuntimeError(
        "mat1 and mat2 shapes cannot be multiplied (4x3 and 2x3)"
    ),
    "ValueError('bad batch')": lambda: ValueError("bad batch"),
    "KeyError('x')": lambda: KeyError("x"),
}


@pytest.mark.parametrize("at", [1, 2])
@pytest.mark.parametrize("error", OTHER_ERRORS)
def test_largest_batch_lets_any_other_error_through(kata, error, at):
    raised_by_step = []

    def make():
        raised_by_step.append(OTHER_ERRORS[error]())
        return raised_by_step[-1]

    step = Step(capacity=4, other=(at, make))
    step.call = f"largest_batch(step, 16) with a step that raises {error} at its call {at}"
    outcome = "returned normally"
    with frozen_gc():
        try:
            kata.largest_batch(step, 16)
        except Exception as err:
            if say.unwritten(err):
                raise
            if raised_by_step and err is raised_by_step[0] and len(step.sizes) == at:
                return
            outcome = f"raised {err!r}"
    pytest.fail(
        say(
            step.call,
            f"called step with sizes {step.sizes} and {outcome}; only an out-of-memory error is "
            f"a reason to try a smaller size: {error} must propagate at once, as step raised it "
            "(torch.OutOfMemoryError is a RuntimeError, but not every RuntimeError is one)",
            hint=2,
        ),
        pytrace=False,
    )


BAD_SIZES = [(0, None), (-4, None), (8, 0), (8, -1), (4, 8)]


@pytest.mark.given
@pytest.mark.parametrize(("batch_size", "min_size"), BAD_SIZES)
def test_largest_batch_refuses_bad_sizes_before_calling_step(kata, batch_size, min_size):
    step = Step(capacity=100)
    kwargs = {} if min_size is None else {"min_size": min_size}
    step.call = f"largest_batch(step, {batch_size}{f', min_size={min_size}' if kwargs else ''})"
    with say.raises(ValueError, step.call, hint=3):
        kata.largest_batch(step, batch_size, **kwargs)
    assert not step.sizes, say(
        step.call, f"called step{tuple(step.sizes[:1])} before refusing the sizes", hint=3
    )


@FEW
@given(search=searches())
def test_largest_batch_on_the_device(kata, device, search):
    batch_size, min_size, capacity = search
    step = Step(capacity, device=device)
    got = find(kata, step, batch_size, min_size, hint=3)
    check_sizes(step, sizes_tried(batch_size, min_size or 1, capacity), min_size or 1)
    check_freed(step)
    assert got == step.sizes[-1], say(
        step.call, f"returned {got!r}; step last returned for size {step.sizes[-1]}", hint=3
    )


@pytest.mark.cuda
def test_largest_batch_recovers_from_a_real_out_of_memory_error(kata):
    """No CPU twin: a real torch.OutOfMemoryError, and the blocks CUDA's caching allocator
    keeps, exist only on a GPU."""
    # An index: set_per_process_memory_fraction refuses a bare "cuda" (ValueError).
    device = torch.device("cuda", torch.cuda.current_device())
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    total = torch.cuda.mem_get_info(device)[1]  # (free, total)
    limit = 2**30  # 1 GiB
    mib = 2**20
    notes = []

    def step(n: int) -> None:
        notes.append((n, torch.cuda.memory_allocated(device), torch.cuda.memory_reserved(device)))
        half = torch.empty(n * mib // 2, dtype=torch.uint8, device=device)  # fits, then cached
        whole = torch.empty(n * mib, dtype=torch.uint8, device=device)
        (half.sum() + whole.sum()).item()

    base = (torch.cuda.memory_allocated(device), torch.cuda.memory_reserved(device))
    torch.cuda.set_per_process_memory_fraction((base[1] + limit) / total, device)
    call = "largest_batch(step, 4096) where step(n) needs 1.5 n MiB on cuda, under a 1 GiB limit"
    try:
        got = run(call, kata.largest_batch, step, 4096, hint=3)
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0, device)
    assert got * 3 // 2 <= 1024 and got > 1024 // 3, say(
        call, f"returned {got}; the largest size that fits and halving from 4096 gives 512", hint=3
    )
    for n, allocated, reserved in notes[1:]:
        assert allocated <= base[0], say(
            call,
            f"called step({n}) with {allocated - base[0]} bytes of the failed attempt still "
            "allocated: the next attempt runs with that much less memory under the limit",
            hint=3,
        )
        assert reserved <= base[1], say(
            call,
            f"called step({n}) with {reserved - base[1]} bytes still reserved by the caching "
            "allocator from the failed attempt: it keeps freed blocks for its own reuse until "
            "its cache is emptied",
            hint=3,
        )
