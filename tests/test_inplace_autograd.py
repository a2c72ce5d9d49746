"""Tests for katas/inplace_autograd.py.

What autograd sees is checked directly: parameter identity, `is_leaf` and `grad_fn`, the version
counter `_version` (bumped by every in-place change except one through `.data`), the tensors it
saved for backward, and gradients against the analytic formula and `torch.autograd.gradcheck`.
Every test takes the `device` fixture: the same body runs on the CPU and, in the cuda tier, on
a GPU. There the same rules hold: the leaf check (`check_inplace`) and the version bump
(`increment_version`) of torch/csrc/autograd/VariableTypeUtils.h run for in-place ops on any
device.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from tests.strategies import make_tensor, shapes
from tests.support import Say
from tests.support import describe as plainly

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

seeds = st.integers(0, 2**32 - 1)
float_dtypes = st.sampled_from([torch.float32, torch.float64])
lrs = st.floats(1e-3, 1.0)
values = st.integers(-5, 5) | st.floats(-100, 100, allow_nan=False)


# --- turning torch's errors into explanations ---------------------------------------------------

# Stable phrases of the errors a wrong solution gets from autograd, what they mean, and the
# hint that helps.
KNOWN_ERRORS = (
    (
        "leaf Variable that requires grad",
        "changed in place a leaf tensor that requires grad (a parameter, or the input x) while "
        "autograd was recording: recorded, the change would become part of the graph, and the "
        "leaf would no longer be the tensor whose gradient backward() computes",
        2,
    ),
    (
        "modified by an inplace operation",
        "changed in place a tensor that autograd had saved for backward (torch's message names "
        "it). torch only notices when backward() runs, by the tensor's version counter",
        1,
    ),
    (
        "Jacobian mismatch",
        "computed gradients (analytical) that disagree with finite differences (numerical). "
        "Autograd used a tensor that was changed behind its back, for example through `.data`",
        2,
    ),
)


@contextlib.contextmanager
def explained(call: str, *, hint: int) -> Iterator[None]:
    """Run a kata call (or a backward through its result); explain any error it raises.

    The stub's NotImplementedError passes through untouched, so a stub reads as unwritten.
    """
    try:
        yield
    except Exception as err:
        if say.unwritten(err):
            raise
        text = str(err)
        first = text.strip().splitlines()[0] if text.strip() else ""
        for phrase, meaning, known_hint in KNOWN_ERRORS:
            if phrase in text:
                pytest.fail(
                    say(
                        call,
                        f"raised {type(err).__name__}: {first}\nThat is: it {meaning}.",
                        hint=known_hint,
                    ),
                    pytrace=False,
                )
        pytest.fail(say(call, f"raised {type(err).__name__}: {first}", hint=hint), pytrace=False)


# torch.testing.assert_close's default tolerances (rtol, atol), for a quick first check.
TOLERANCES = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
}


def check_close(call: str, got, want: torch.Tensor, problem: str, *, hint: int) -> None:
    """assert_close, failing with a learner's message. (assert_close itself is slow, so the
    common case, a match, is checked with allclose first.)"""
    if (
        isinstance(got, torch.Tensor)
        and (got.shape, got.dtype, got.device) == (want.shape, want.dtype, want.device)
        and torch.allclose(got, want, *TOLERANCES[want.dtype])
    ):
        return
    try:
        torch.testing.assert_close(got, want)
    except AssertionError as err:
        pytest.fail(say(call, f"{problem}:\n{err}", hint=hint), pytrace=False)


# --- building inputs ----------------------------------------------------------------------------


@st.composite
def models(draw, device: torch.device, *, batchnorm: bool = True) -> nn.Module:
    """A small MLP: Linear layers (with or without bias) and Tanh, some parameters frozen
    (requires_grad=False) but never the first weight, and with `batchnorm` some BatchNorm1d
    layers, which have buffers. (BatchNorm's forward is slow on a busy 2-core machine, so the
    tests that run the model leave it out.)"""
    widths = draw(st.lists(st.integers(1, 4), min_size=2, max_size=4), label="widths")
    layers: list[nn.Module] = []
    with torch.random.fork_rng(devices=[]):  # leave the global RNG as it was
        for a, b in itertools.pairwise(widths):
            layers.append(nn.Linear(a, b, bias=draw(st.booleans(), label="bias")))
            if batchnorm and draw(st.booleans(), label="batchnorm"):
                layers.append(nn.BatchNorm1d(b))
            layers.append(nn.Tanh())
        model = nn.Sequential(*layers)
    gen = torch.Generator().manual_seed(draw(seeds, label="seed"))
    with torch.no_grad():  # initial values from the drawn seed, so that a failure replays
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=gen))
    for p in list(model.parameters())[1:]:  # the first layer's weight always trains
        p.requires_grad_(draw(st.sampled_from([True, True, True, False]), label="trainable"))
    return model.to(device)


def describe(model: nn.Module) -> str:
    return " -> ".join(type(m).__name__ for m in model)


def parameter(shape, dtype, seed: int, device: torch.device) -> nn.Parameter:
    return nn.Parameter(make_tensor(shape, dtype, seed, device))


@st.composite
def parameters_with_grads(draw, device: torch.device, *, always_grad: bool = False):
    """A list of Parameters; each has a drawn `.grad` unless drawn otherwise."""
    dtype = draw(float_dtypes, label="dtype")
    count = draw(st.integers(1, 4), label="count")
    params = []
    for _ in range(count):
        shape = draw(shapes(max_dims=3, max_side=4), label="shape")
        p = parameter(shape, dtype, draw(seeds, label="seed"), device)
        if always_grad or draw(st.sampled_from([True, True, False]), label="has grad"):
            p.grad = make_tensor(shape, dtype, draw(seeds, label="grad seed"), device)
        params.append(p)
    return params


def grad_is_cleared(p: torch.Tensor) -> bool:
    return p.grad is None or not p.grad.any()


# --- init_constant_ -----------------------------------------------------------------------------


@given(data=st.data(), value=values)
def test_init_constant_sets_every_parameter_in_place(kata, device, data, value):
    model = data.draw(models(device), label="model")
    call = f"init_constant_({describe(model)}, {value!r})"
    before = {name: (p, p._version, p.requires_grad) for name, p in model.named_parameters()}
    with explained(call, hint=3):
        returned = kata.init_constant_(model, value)
    assert returned is model, say(
        call,
        f"returned {'None' if returned is None else 'another ' + type(returned).__name__}; "
        "expected the model itself",
        hint=3,
    )
    after = dict(model.named_parameters())
    for name, (p, version, requires_grad) in before.items():
        assert after[name] is p, say(
            call,
            f"replaced the Parameter {name} with a new object; it must change the existing one "
            "in place, or an optimizer built earlier would train the old one",
            hint=3,
        )
        want = torch.full_like(p, value)
        assert torch.equal(p.detach(), want), say(
            call,
            f"left {name} = {p.detach().tolist()}; expected every entry to be {value!r}",
            hint=3,
        )
        assert p._version > version, say(
            call,
            f"set {name} without bumping its version counter (_version stayed {version}): the "
            "values changed, but autograd was not told, as with a write through `.data`; a "
            "tensor autograd saved could then change with no error, only wrong gradients",
            hint=2,
        )
        assert p.is_leaf and p.grad_fn is None, say(
            call, f"left {name} with grad_fn={p.grad_fn}; it must stay a leaf", hint=2
        )
        assert p.requires_grad == requires_grad, say(
            call,
            f"changed {name}.requires_grad from {requires_grad} to {p.requires_grad}; "
            "a parameter keeps the requires_grad it had",
            hint=2,
        )


@given(data=st.data(), value=values)
def test_init_constant_leaves_buffers_alone(kata, device, data, value):
    model = data.draw(models(device), label="model")
    bn = nn.BatchNorm1d(model[0].out_features).to(device)
    model.insert(1, bn)  # at least one BatchNorm, with its running statistics
    bn.running_mean.copy_(make_tensor(bn.running_mean.shape, torch.float32, 1, device))
    call = f"init_constant_({describe(model)}, {value!r})"
    before = {name: (b, b.detach().clone()) for name, b in model.named_buffers()}
    with explained(call, hint=3):
        kata.init_constant_(model, value)
    after = dict(model.named_buffers())
    for name, (b, old) in before.items():
        assert after[name] is b and torch.equal(b, old), say(
            call,
            f"changed the buffer {name} from {old.tolist()} to {after[name].tolist()}; "
            "a buffer (such as BatchNorm's running statistics) is state the model keeps, not a "
            "parameter, and init_constant_ sets the parameters only",
            hint=3,
        )


@given(data=st.data(), value=values)
def test_init_constant_then_forward_and_backward_work(kata, device, data, value):
    model = data.draw(models(device, batchnorm=False), label="model")
    call = f"init_constant_({describe(model)}, {value!r})"
    with explained(call, hint=3):
        kata.init_constant_(model, value)
    x = make_tensor((3, model[0].in_features), torch.float32, 0, device)
    with explained(f"a forward and backward after {call}", hint=2):
        model(x).square().sum().backward()
    for name, p in model.named_parameters():
        if p.requires_grad:
            assert p.grad is not None and p.grad.shape == p.shape, say(
                call, f"left {name} without a gradient after backward()", hint=2
            )


# --- sgd_step_ ----------------------------------------------------------------------------------


@given(data=st.data(), lr=lrs)
def test_sgd_step_updates_each_parameter_in_place(kata, device, data, lr):
    params = data.draw(parameters_with_grads(device, always_grad=True), label="params")
    call = f"sgd_step_(params, lr={lr!r})"
    before = [(p.detach().clone(), p.grad.clone(), p._version) for p in params]
    with explained(call, hint=3):
        kata.sgd_step_(params, lr)
    for i, (p, (old, grad, version)) in enumerate(zip(params, before, strict=True)):
        assert p.is_leaf and p.grad_fn is None and p.requires_grad, say(
            call,
            f"left params[{i}] with grad_fn={p.grad_fn}, requires_grad={p.requires_grad}; "
            "the update must not be recorded by autograd, and the parameter stays a leaf",
            hint=2,
        )
        want = old - lr * grad
        if torch.equal(p.detach(), old) and not torch.allclose(want, old):
            pytest.fail(
                say(
                    call,
                    f"left params[{i}] unchanged; expected p - lr * p.grad. The caller sees "
                    "the step only in the parameter tensors it holds: a new tensor, whatever "
                    "name it is bound to, leaves them as they were",
                    hint=4,
                ),
                pytrace=False,
            )
        check_close(
            call, p.detach(), want, f"set params[{i}] wrong; expected p - lr * p.grad", hint=3
        )
        assert p._version > version, say(
            call,
            f"updated params[{i}] without bumping its version counter (_version stayed "
            f"{version}): the values changed, but autograd was not told, as with a write "
            "through `.data`; a tensor autograd saved could then change with no error, only "
            "wrong gradients",
            hint=2,
        )


@given(data=st.data(), lr=lrs)
def test_sgd_step_clears_the_grads(kata, device, data, lr):
    params = data.draw(parameters_with_grads(device, always_grad=True), label="params")
    call = f"sgd_step_(params, lr={lr!r})"
    with explained(call, hint=3):
        kata.sgd_step_(params, lr)
    for i, p in enumerate(params):
        assert grad_is_cleared(p), say(
            call,
            f"left params[{i}].grad = {p.grad.tolist()}; backward() adds into .grad, so the "
            "next step would use old and new gradients together",
            hint=3,
        )


@given(data=st.data(), lr=lrs)
def test_sgd_step_skips_parameters_without_a_grad(kata, device, data, lr):
    params = data.draw(parameters_with_grads(device), label="params")
    params.insert(
        data.draw(st.integers(0, len(params)), label="where"),
        parameter((2, 3), torch.float32, 7, device),
    )
    call = f"sgd_step_(params, lr={lr!r}) where some params have .grad None"
    before = [(p.detach().clone(), p._version, p.grad is None) for p in params]
    with explained(call, hint=3):
        kata.sgd_step_(params, lr)
    for i, (p, (old, version, no_grad)) in enumerate(zip(params, before, strict=True)):
        if not no_grad:
            continue
        assert torch.equal(p.detach(), old) and p._version == version, say(
            call,
            f"changed params[{i}] (its _version went from {version} to {p._version}), which "
            "has no grad: it took no part in the loss and must be left untouched",
            hint=3,
        )
        assert p.grad is None, say(
            call, f"gave params[{i}] a grad it did not have: {plainly(p.grad)}", hint=3
        )


@given(data=st.data(), lr=lrs)
def test_sgd_step_accepts_a_generator(kata, device, data, lr):
    model = data.draw(models(device, batchnorm=False), label="model")
    x = make_tensor((3, model[0].in_features), torch.float32, 0, device)
    model(x).square().sum().backward()
    call = f"sgd_step_(model.parameters(), lr={lr!r}) for {describe(model)}"
    before = {name: (p, p.detach().clone(), p._version) for name, p in model.named_parameters()}
    grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    with explained(call, hint=3):
        kata.sgd_step_(model.parameters(), lr)
    for name, p in model.named_parameters():
        same, old, version = before[name]
        assert p is same, say(call, f"replaced the Parameter {name}", hint=3)
        if name not in grads:
            assert p._version == version, say(
                call, f"changed {name}, which is frozen and has no grad", hint=3
            )
            continue
        want = old - lr * grads[name]
        check_close(
            call,
            p.detach(),
            want,
            f"set {name} wrong; expected p - lr * p.grad. (Is params read more than once? A "
            "generator such as model.parameters() is empty the second time.)",
            hint=3,
        )
        assert p._version > version, say(
            call,
            f"updated {name} without bumping its version counter (_version stayed {version}): "
            "the values changed, but autograd was not told, as with a write through `.data`",
            hint=2,
        )
        assert grad_is_cleared(p), say(
            call,
            f"left {name}.grad in place when params was model.parameters(), a generator: "
            "a second loop over a generator sees nothing, and backward() adds into .grad, so "
            "the next step would use old and new gradients together",
            hint=3,
        )


@given(data=st.data(), lr=lrs)
@settings(max_examples=40)
def test_sgd_step_trains_a_model_for_two_steps(kata, device, data, lr):
    n_in, n_out = (
        data.draw(st.integers(1, 4), label="in"),
        data.draw(st.integers(1, 4), label="out"),
    )
    seed = data.draw(seeds, label="seed")
    x = make_tensor((5, n_in), torch.float64, seed, device)
    y = make_tensor((5, n_out), torch.float64, seed + 1, device)
    with torch.random.fork_rng(devices=[]):
        model = nn.Linear(n_in, n_out).to(device, torch.float64)
    with torch.no_grad():  # initial values from the drawn seed, so that a failure replays
        model.weight.copy_(make_tensor((n_out, n_in), torch.float64, seed + 2, device))
        model.bias.copy_(make_tensor((n_out,), torch.float64, seed + 3, device))

    # The same two steps by hand, on plain tensors, with torch.autograd.grad.
    w, b = model.weight.detach().clone(), model.bias.detach().clone()
    for _ in range(2):
        w.requires_grad_(), b.requires_grad_()
        loss = nn.functional.mse_loss(nn.functional.linear(x, w, b), y)
        gw, gb = torch.autograd.grad(loss, (w, b))
        w, b = (w - lr * gw).detach(), (b - lr * gb).detach()

    for step in (1, 2):
        nn.functional.mse_loss(model(x), y).backward()
        with explained(f"sgd_step_(model.parameters(), lr={lr!r}) at step {step}", hint=3):
            kata.sgd_step_(model.parameters(), lr)
    call = f"sgd_step_(model.parameters(), lr={lr!r}), twice, on nn.Linear({n_in}, {n_out})"
    for name, got, want in (("weight", model.weight, w), ("bias", model.bias, b)):
        check_close(
            call,
            got.detach(),
            want,
            f"trained {name} to the wrong values after two steps. Does each step use only its "
            "own gradient (grads cleared after each step)?",
            hint=3,
        )


# --- sigmoid_plus_one ---------------------------------------------------------------------------


RANGE = 10.0  # the contract: x's values lie in [-RANGE, RANGE]
spreads = st.sampled_from([1.0, 3.0, 6.0])  # scales of randn: up to the ends of the range


def leaf(shape, dtype, seed, device, requires_grad=True, spread=1.0) -> torch.Tensor:
    x = (make_tensor(shape, torch.float64, seed) * spread).clamp(-RANGE, RANGE)
    return x.to(device, dtype).requires_grad_(requires_grad)


def assert_in_graph(call: str, out) -> None:
    assert isinstance(out, torch.Tensor) and out.requires_grad, say(
        call,
        f"returned {type(out).__name__} with requires_grad="
        f"{getattr(out, 'requires_grad', None)} for an x that requires grad: it is not in the "
        "autograd graph, so no gradient can flow back to x. A tensor made under "
        "`torch.no_grad()`, or from `.detach()` or `.data`, is outside the graph",
        hint=4,
    )


@pytest.mark.given  # the first version already returns the right values: keep them so
@given(
    shape=shapes(max_dims=3),
    dtype=st.sampled_from([torch.float32, torch.float64, torch.float16, torch.bfloat16]),
    seed=seeds,
    requires_grad=st.booleans(),
    spread=spreads,
)
def test_sigmoid_plus_one_values(kata, device, shape, dtype, seed, requires_grad, spread):
    x = leaf(shape, dtype, seed, device, requires_grad, spread)
    call = (
        f"sigmoid_plus_one(x) for x of shape {tuple(shape)}, {dtype}, requires_grad={requires_grad}"
    )
    with explained(call, hint=4):
        out = kata.sigmoid_plus_one(x)
    assert isinstance(out, torch.Tensor), say(call, f"returned a {type(out).__name__}", hint=4)
    assert (out.shape, out.dtype, out.device) == (x.shape, x.dtype, x.device), say(
        call,
        f"returned shape {tuple(out.shape)}, {out.dtype} on {out.device}; expected the shape, "
        "dtype and device of x",
        hint=4,
    )
    check_close(call, out.detach(), torch.sigmoid(x.detach()) + 1, "returned wrong values", hint=4)
    assert out.requires_grad == requires_grad, say(
        call,
        f"returned a result with requires_grad={out.requires_grad}; it should follow x"
        + (
            ": a result outside the autograd graph passes no gradient back to x. A tensor "
            "made under `torch.no_grad()`, or from `.detach()` or `.data`, is outside the graph"
            if requires_grad
            else ""
        ),
        hint=4,
    )


@given(shape=shapes(max_dims=3), dtype=float_dtypes, seed=seeds, spread=spreads)
def test_sigmoid_plus_one_gradient_is_analytic(kata, device, shape, dtype, seed, spread):
    x = leaf(shape, dtype, seed, device, spread=spread)
    upstream = make_tensor(shape, dtype, seed + 1, device)
    call = f"sigmoid_plus_one(x).backward(g) for x of shape {tuple(shape)}, {dtype}"
    with explained(call, hint=4):
        out = kata.sigmoid_plus_one(x)
    assert_in_graph(call, out)
    with explained(call, hint=4):
        out.backward(upstream)
    s = torch.sigmoid(x.detach())
    want = upstream * s * (1 - s)
    check_close(call, x.grad, want, "gave x.grad != g * s * (1 - s), with s = sigmoid(x)", hint=4)


@given(shape=shapes(min_dims=1, max_dims=2, min_side=1, max_side=4), seed=seeds)
@settings(max_examples=30)
def test_sigmoid_plus_one_passes_gradcheck(kata, device, shape, seed):
    x = leaf(shape, torch.float64, seed, device)
    call = f"sigmoid_plus_one on x of shape {tuple(shape)}, float64, under gradcheck"
    with explained(call, hint=4):
        out = kata.sigmoid_plus_one(x)
    assert_in_graph(call, out)
    with explained(call, hint=4):
        torch.autograd.gradcheck(kata.sigmoid_plus_one, (x,))


@given(shape=shapes(max_dims=3), dtype=float_dtypes, seed=seeds)
def test_sigmoid_plus_one_keeps_saved_tensors(kata, device, shape, dtype, seed):
    x = leaf(shape, dtype, seed, device)
    call = f"sigmoid_plus_one(x) for x of shape {tuple(shape)}, {dtype}"
    saved: list[tuple[torch.Tensor, int, torch.Tensor]] = []

    def pack(t: torch.Tensor) -> torch.Tensor:  # called for each tensor saved for backward
        saved.append((t, t._version, t.detach().clone()))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), explained(call, hint=4):
        kata.sigmoid_plus_one(x)
    for t, version, value in saved:
        assert t._version == version, say(
            call,
            f"saved a tensor for backward (at version {version}) and then changed it in place "
            f"(now version {t._version}); backward() would raise 'one of the variables needed "
            "for gradient computation has been modified by an inplace operation'",
            hint=1,
        )
        assert torch.equal(t.detach(), value), say(
            call,
            "changed a tensor saved for backward without bumping its version, as a write "
            "through `.data` does: autograd cannot see it, so the gradients come out silently "
            "wrong",
            hint=2,
        )


@given(shape=shapes(max_dims=3), dtype=float_dtypes, seed=seeds)
def test_sigmoid_plus_one_leaves_x_alone(kata, device, shape, dtype, seed):
    w = leaf(shape, dtype, seed, device)
    x = w * 2  # not a leaf, so autograd allows in-place changes to it
    before, version = x.detach().clone(), x._version
    upstream = make_tensor(shape, dtype, seed + 1, device)
    call = f"sigmoid_plus_one(x) for x = 2 * w, of shape {tuple(shape)}, {dtype}"
    with explained(call, hint=4):
        out = kata.sigmoid_plus_one(x)
    assert x._version == version and torch.equal(x.detach(), before), say(
        call,
        f"changed x in place (its _version went from {version} to {x._version}); the caller "
        "still holds x and reads it after the call",
        hint=4,
    )
    with explained(f"{call}, then backward()", hint=4):
        out.backward(upstream)
    s = torch.sigmoid(2 * w.detach())
    want = 2 * upstream * s * (1 - s)
    check_close(call, w.grad, want, "gave w.grad != 2 * g * s * (1 - s), s = sigmoid(2w)", hint=4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_sigmoid_plus_one_over_its_whole_range(kata, device, dtype):
    """The ends of the contract's range, [-10, 10], and points between, at once."""
    x = torch.linspace(-RANGE, RANGE, 41, dtype=dtype, device=device).requires_grad_()
    call = f"sigmoid_plus_one(x) for x = torch.linspace(-10, 10, 41), {dtype}"
    with explained(call, hint=4):
        out = kata.sigmoid_plus_one(x)
    s = torch.sigmoid(x.detach())
    check_close(call, getattr(out, "detach", lambda: out)(), s + 1, "returned wrong values", hint=4)
    assert_in_graph(call, out)
    with explained(f"{call}, then backward()", hint=4):
        out.backward(torch.ones_like(s))
    check_close(call, x.grad, s * (1 - s), "gave x.grad != s * (1 - s), s = sigmoid(x)", hint=4)


NOT_FLOATING = {
    "an int64 tensor": lambda: torch.arange(3),
    "a bool tensor": lambda: torch.tensor([True, False]),
    "a complex64 tensor": lambda: torch.ones(2, dtype=torch.complex64),
    "a list of floats": lambda: [0.5, 1.0],
    "a Python float": lambda: 0.5,
}


@pytest.mark.given
@pytest.mark.parametrize("what", NOT_FLOATING)
def test_sigmoid_plus_one_refuses_what_is_not_a_floating_tensor(kata, what):
    with say.raises(TypeError, f"sigmoid_plus_one(x) for x {what}", hint=4):
        kata.sigmoid_plus_one(NOT_FLOATING[what]())


BAD_ARGUMENTS = {
    "init_constant_ of a state_dict": lambda k: k.init_constant_(nn.Linear(2, 2).state_dict(), 1.0),
    "init_constant_ to True": lambda k: k.init_constant_(nn.Linear(2, 2), True),
    "init_constant_ to '0.5'": lambda k: k.init_constant_(nn.Linear(2, 2), "0.5"),
    "sgd_step_ with lr=None": lambda k: k.sgd_step_([nn.Parameter(torch.ones(2))], None),
}


@pytest.mark.given
@pytest.mark.parametrize("what", BAD_ARGUMENTS)
def test_bad_arguments_are_type_errors(kata, what):
    with say.raises(TypeError, what, hint=3):
        BAD_ARGUMENTS[what](kata)
