"""Tests for katas/mismatch_errors.py.

Errors are raised by real ops. Without a GPU, the `meta` device stands in for it: a meta tensor
has a device and a shape but no data, and most ops refuse to mix it with CPU tensors, just as
they refuse to mix CUDA and CPU ones. (Some do not: `cpu @ meta`, `torch.mm`, `add_`, indexing,
`Conv2d` and `Embedding` silently accept the mix, so no test relies on them.) Messages that only
a CUDA build or an old release prints are quoted from PyTorch's source.
"""

from __future__ import annotations

import ast
import io
from unittest import mock

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from dojo.catalogue import ROOT
from dojo.coverage import release
from dojo.progress import MESSAGE_LIMIT
from tests.strategies import make_tensor, shapes
from tests.support import Say

say = Say(__name__)
pytestmark = pytest.mark.filterwarnings("error")

CPU = torch.device("cpu")
META = torch.device("meta")
LABELS = ("device", "dtype", "other")
WHY = {
    "device": "tensors on devices that cannot be used together",
    "dtype": "dtypes that do not go together",
    "other": "no mismatch, although a message may mention CUDA, a device or a type",
}


def model_and_data_devices(device: torch.device) -> tuple[torch.device, torch.device]:
    """Where a test puts the model, and where the data starts: the classic mistake is a model
    moved to the GPU and data left on the CPU. On the cpu case, meta stands in for the GPU (a
    model can move to meta, but nothing comes back, so the data starts on the CPU there too)."""
    return (device, CPU) if device.type == "cuda" else (META, CPU)


def caught(thunk, what: str = "this op") -> BaseException:
    """The exception a real op raises. Not raising is a bug in this test file, not in the kata;
    the failure names the op and the torch that let it through."""
    try:
        thunk()
    except Exception as err:  # every kind of error is the point here
        return err
    pytest.fail(
        f"harness: {what} was expected to raise and did not, on torch {torch.__version__}; fix "
        "the test (on a release that lets it through, list it in META_LETS_THROUGH)",
        pytrace=False,
    )


def check_label(kata, err: BaseException, want: str, what: str, hint: int = 3) -> None:
    call = f"classify_error({type(err).__name__}({str(err)!r}))"
    got = say.call(call, kata.classify_error, err, hint=hint)
    assert got == want, say(call, f"returned {got!r}; {what}, so expected {want!r}", hint=hint)


def check_labels(kata, cases: list[tuple[str, BaseException, str]], hint: int = 3) -> None:
    """Classify every (where it came from, exception, expected label), then fail once, listing
    the misread messages, each in full, as many as the tool shows of one failure message
    (dojo.progress.MESSAGE_LIMIT), and how many more there are."""
    wrong: dict[str, list[str]] = {label: [] for label in LABELS}
    for what, err, want in cases:
        try:
            got = repr(kata.classify_error(err))
        except Exception as crash:
            if say.unwritten(crash):
                raise
            got = f"raised {type(crash).__name__}: {crash}"
        if got != repr(want):
            wrong[want].append(f"\n  {type(err).__name__}: {err}\n    ({what}) returned {got}")
    count = sum(len(lines) for lines in wrong.values())
    if not count:
        return
    text, shown = f"misread {count} of {len(cases)} messages:", 0
    budget = MESSAGE_LIMIT - len(say("classify_error(err)", "", hint=hint)) - 120
    for want, lines in wrong.items():
        header = f"\nexpected {want!r} ({WHY[want]}) for"
        for k, line in enumerate(lines):
            entry = (header if k == 0 else "") + line
            if shown and len(text) + len(entry) > budget:
                break
            text, shown = text + entry, shown + 1
    if shown < count:
        text += f"\n... and {count - shown} more misread message(s), not listed for want of room"
    pytest.fail(say("classify_error(err)", text + "\n", hint=hint), pytrace=False)


# --- classify_error: real errors, raised by real ops -------------------------------------------


def device_error_ops(m: torch.device, d: torch.device):
    """(what, op) pairs; each op mixes the devices m and d and raises."""
    ops = [
        ("x + y", lambda: torch.ones(2, 3, device=m) + torch.ones(2, 3, device=d)),
        ("x * y", lambda: torch.ones(2, 3, device=d) * torch.ones(2, 3, device=m)),
        ("torch.cat", lambda: torch.cat([torch.ones(2, device=m), torch.ones(2, device=d)])),
        (
            "nn.Linear, input not moved",
            lambda: nn.Linear(3, 4, device=m)(torch.ones(2, 3, device=d)),
        ),
        (
            "nn.Linear, model not moved",
            lambda: nn.Linear(3, 4, device=d)(torch.ones(2, 3, device=m)),
        ),
        ("nn.GRU", lambda: nn.GRU(3, 4, device=m)(torch.ones(5, 1, 3, device=d))),
        ("nn.BatchNorm1d", lambda: nn.BatchNorm1d(3, device=m)(torch.ones(4, 3, device=d))),
        ("F.mse_loss", lambda: F.mse_loss(torch.ones(2, 3, device=m), torch.ones(2, 3, device=d))),
        (
            "F.cross_entropy, labels not moved",
            lambda: F.cross_entropy(torch.ones(2, 3, device=m), torch.tensor([0, 2], device=d)),
        ),
        (
            "F.nll_loss, labels not moved",
            lambda: F.nll_loss(torch.ones(2, 3, device=m), torch.tensor([0, 2], device=d)),
        ),
        (
            "index_add_ of a source not moved",
            lambda: torch.zeros(3, device=m).index_add_(
                0, torch.tensor([0, 1], device=m), torch.ones(2, device=d)
            ),
        ),
        ("nn.LayerNorm", lambda: nn.LayerNorm(3, device=m)(torch.ones(2, 3, device=d))),
        (
            "F.scaled_dot_product_attention, key not moved",
            lambda: F.scaled_dot_product_attention(
                torch.ones(1, 2, 4, device=m),
                torch.ones(1, 2, 4, device=d),
                torch.ones(1, 2, 4, device=m),
            ),
        ),
        (
            "a gradient assigned from another device",
            lambda: setattr(nn.Parameter(torch.ones(2, device=m)), "grad", torch.ones(2, device=d)),
        ),
    ]
    if m.type == "cuda":  # with meta, these return garbage instead of raising
        ops += [
            ("x @ y", lambda: torch.ones(2, 3, device=m) @ torch.ones(3, 2, device=d)),
            ("nn.Conv2d", lambda: nn.Conv2d(1, 2, 3, device=m)(torch.ones(1, 1, 5, 5, device=d))),
        ]
    else:  # on some releases, meta lets through what others refuse: left out there only
        ops = [(what, op) for what, op in ops if not let_through_here(what, op)]
    return ops


# Real-op cases that the meta device of one release lets through (the op returns a meta tensor
# instead of raising), by (case, release) and what was found, each run on that release. Such a
# case is left out of the cpu case on that release only, and asserted on every other release and
# on a GPU (the cuda case mixes cuda and cpu, which the entry's reason says is checked).
META_LETS_THROUGH = {
    ("index_add_ of a source not moved", "2.11"): (
        "torch 2.11.0's meta index_add_ (_index_add in torch/_decomp/decompositions.py) never "
        "compares the devices; 2.13.0 and 2.15.0 raise 'index_add(): self, index and source "
        "expected to be in the same device'. On CUDA, 2.11.0's wrapper_CUDA_index_add_ checks "
        "them (run on 2.11.0+cu130 without a GPU, and read in its libtorch_cuda.so)"
    ),
}


def let_through_here(what: str, op) -> bool:
    """Whether this torch's meta device lets the case `what` through, as META_LETS_THROUGH says.
    Where it says so, the op must indeed not raise here: once a release raises, the entry goes."""
    if (what, release(torch.__version__)) not in META_LETS_THROUGH:
        return False
    try:
        op()
    except Exception as err:  # any error: the entry no longer holds
        pytest.fail(
            f"harness: META_LETS_THROUGH says torch {torch.__version__}'s meta device lets "
            f"{what!r} through, but it raises {type(err).__name__}: {err}; remove the entry",
            pytrace=False,
        )
    return True


def dtype_error_ops(dev: torch.device):
    """(what, op) pairs; each op mixes float dtypes (or an integer target) on the device dev."""
    f64, f16 = torch.float64, torch.float16
    index = torch.tensor([0, 1], device=dev)
    ops = [
        (
            "nn.Linear on a float64 input",
            lambda: nn.Linear(3, 4, device=dev)(torch.ones(2, 3, device=dev, dtype=f64)),
        ),
        (
            "nn.Linear on a float16 input",
            lambda: nn.Linear(3, 4, device=dev)(torch.ones(2, 3, device=dev, dtype=f16)),
        ),
        (
            "a float64 nn.Linear on a float32 input",
            lambda: nn.Linear(3, 4, device=dev, dtype=f64)(torch.ones(2, 3, device=dev)),
        ),
        (
            "float32 @ float64",
            lambda: torch.ones(2, 3, device=dev) @ torch.ones(3, 2, device=dev, dtype=f64),
        ),
        (
            "nn.Conv2d on a float64 input",
            lambda: nn.Conv2d(1, 2, 3, device=dev)(torch.ones(1, 1, 5, 5, device=dev, dtype=f64)),
        ),
        (
            "nn.Conv2d on a float16 input",
            lambda: nn.Conv2d(1, 2, 3, device=dev)(torch.ones(1, 1, 5, 5, device=dev, dtype=f16)),
        ),
        (
            "nn.GRU on a float64 input",
            lambda: nn.GRU(3, 4, device=dev)(torch.ones(5, 1, 3, device=dev, dtype=f64)),
        ),
        (
            "F.binary_cross_entropy with a float64 target",
            lambda: F.binary_cross_entropy(
                torch.full((2, 3), 0.5, device=dev), torch.ones(2, 3, device=dev, dtype=f64)
            ),
        ),
        (
            "F.binary_cross_entropy_with_logits with an int64 target",
            lambda: F.binary_cross_entropy_with_logits(
                torch.ones(2, 3, device=dev), torch.ones(2, 3, device=dev, dtype=torch.int64)
            ),
        ),
    ]
    if dev.type == "cpu":  # CUDA's kernels have no int32 target or float64 no-bias conv path
        ops += [
            (
                "F.cross_entropy with int32 labels",
                lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 2], dtype=torch.int32)),
            ),
            (
                "nn.Conv2d(bias=False) on a float64 input",
                lambda: nn.Conv2d(1, 2, 3, bias=False)(torch.ones(1, 1, 5, 5, dtype=f64)),
            ),
            (
                "torch.dot of float32 and float64",
                lambda: torch.dot(torch.ones(3), torch.ones(3, dtype=f64)),
            ),
            (
                "index_add_ of a float64 source",
                lambda: torch.zeros(3).index_add_(0, index, torch.ones(2, dtype=f64)),
            ),
            (
                "scatter of a float64 source",
                lambda: torch.zeros(3).scatter(0, index, torch.ones(2, dtype=f64)),
            ),
            (
                "index_put_ of float64 values",
                lambda: torch.zeros(3).index_put_((index,), torch.ones(2, dtype=f64)),
            ),
            (
                "nn.LayerNorm on a float64 input",
                lambda: nn.LayerNorm(3)(torch.ones(2, 3, dtype=f64)),
            ),
            (
                "nn.BatchNorm1d on a float64 input",
                lambda: nn.BatchNorm1d(3)(torch.ones(2, 3, dtype=f64)),
            ),
            (
                "F.scaled_dot_product_attention with a float64 key",
                lambda: F.scaled_dot_product_attention(
                    torch.ones(1, 2, 4), torch.ones(1, 2, 4, dtype=f64), torch.ones(1, 2, 4)
                ),
            ),
            (
                "a float64 gradient assigned to a float32 parameter",
                lambda: setattr(nn.Parameter(torch.ones(2)), "grad", torch.ones(2, dtype=f64)),
            ),
            ("nn.PReLU on a float64 input", lambda: nn.PReLU()(torch.ones(2, dtype=f64))),
        ]
    return ops


OTHER_ERROR_OPS = [
    ("x @ y with shapes (2, 3) and (2, 3)", lambda: torch.ones(2, 3) @ torch.ones(2, 3)),
    ("nn.Linear(3, 4) on a (2, 5) input", lambda: nn.Linear(3, 4)(torch.ones(2, 5))),
    ("x + y with shapes (2, 3) and (4,)", lambda: torch.ones(2, 3) + torch.ones(4)),
    (
        "F.cross_entropy with 3 rows and 2 labels",
        lambda: F.cross_entropy(torch.ones(3, 5), torch.tensor([0, 1])),
    ),
    ("view() of a transposed tensor", lambda: torch.ones(3, 4).t().view(12)),
    ("nn.Conv2d on a 1-D input", lambda: nn.Conv2d(1, 1, 3)(torch.ones(5))),
    (
        "nn.Linear called with two inputs",
        lambda: nn.Linear(3, 4)(torch.ones(2, 3), torch.ones(2, 3)),
    ),
    ("a plain ValueError", lambda: int("cuda:0")),
]


def test_classify_real_device_errors(kata, device):
    """On CUDA these are real GPU errors: TensorIterator's "... found at least two devices, cuda:0
    and cpu!" (aten/src/ATen/TensorIterator.cpp) and the dispatcher's device check "... (when
    checking argument in method wrapper_CUDA_addmm)"
    (aten/src/ATen/core/op_registration/adaption.cpp); SOURCE_MESSAGES quotes both."""
    m, d = model_and_data_devices(device)
    cases = [
        (f"{what} mixing {m} and {d}", caught(op, what), "device")
        for what, op in device_error_ops(m, d)
    ]
    check_labels(kata, cases)


def test_classify_real_dtype_errors(kata, device):
    cases = [
        (f"{what} on {device}", caught(op, what), "dtype") for what, op in dtype_error_ops(device)
    ]
    check_labels(kata, cases)


def test_classify_other_errors_as_other(kata):
    cases = [(f"{what}: no mismatch", caught(op, what), "other") for what, op in OTHER_ERROR_OPS]
    check_labels(kata, cases)


def gpu_checkpoint(location: str) -> io.BytesIO:
    """A checkpoint whose storages say they were saved on `location` (say, "cuda:0")."""
    buffer = io.BytesIO()
    with mock.patch("torch.serialization.location_tag", lambda storage: location):
        torch.save({"weight": torch.ones(2)}, buffer)
    buffer.seek(0)
    return buffer


def checkpoint_errors() -> list[tuple[str, BaseException, str]]:
    """torch.load of GPU checkpoints on machines without that GPU: (what, error, "device")."""
    cases = []
    for location, gpus in [("cuda:0", 0), ("cuda:3", 1)]:
        with (
            mock.patch("torch.cuda.is_available", lambda n=gpus: n > 0),
            mock.patch("torch.cuda.device_count", lambda n=gpus: n),
        ):
            checkpoint = gpu_checkpoint(location)
            err = caught(lambda f=checkpoint: torch.load(f, weights_only=True))
        cases.append((f"torch.load of a {location} checkpoint with {gpus} GPU(s)", err, "device"))
    return cases


def test_classify_loading_a_gpu_checkpoint_without_the_gpu(kata):
    check_labels(kata, checkpoint_errors())


def docstring_examples() -> list[tuple[str, str]]:
    """(label, message) for each real message the stub's classify_error docstring quotes: the
    lines after "Real messages", each `label  message`, continued on deeper-indented lines."""
    tree = ast.parse((ROOT / "reference" / "mismatch_errors.py").read_text())
    func = next(f for f in tree.body if getattr(f, "name", None) == "classify_error")
    lines = ast.get_docstring(func).split("Real messages", 1)[1].splitlines()
    examples: list[tuple[str, str]] = []
    for line in lines:
        label, _, rest = line.strip().partition("  ")
        if line.startswith("    ") and label in LABELS:
            examples.append((label, rest.strip()))
        elif line.startswith("            ") and examples:
            examples[-1] = (examples[-1][0], f"{examples[-1][1]} {line.strip()}")
    return examples


def test_classify_the_messages_its_docstring_quotes(kata):
    real = {}
    m, d = model_and_data_devices(CPU)
    for what, op in [*device_error_ops(m, d), *dtype_error_ops(CPU), *OTHER_ERROR_OPS]:
        err = caught(op, what)
        real[f"{type(err).__name__}: {err}"] = (what, err)
    real |= {f"{type(e).__name__}: {e}": (what, e) for what, e, _ in checkpoint_errors()}
    quoted = [(label, text, printed_here(text, real)) for label, text in docstring_examples()]
    stale = [text for _, text, here in quoted if here is None]
    if not quoted or stale:
        pytest.fail(
            f"harness: the docstring of reference/mismatch_errors.py classify_error quotes "
            f"messages torch {torch.__version__} does not print here: {stale or 'none found'}",
            pytrace=False,
        )
    check_labels(kata, [(real[here][0], real[here][1], label) for label, _, here in quoted])


# A quoted message that an older release words otherwise, and that release's wording: torch
# 2.11.0 (run on 2.11.0+cu130) prints this for an int32 target of cross_entropy and nll_loss.
OLDER_WORDINGS = {
    "RuntimeError: expected target dtype to be Long or Byte, but got Int": (
        "RuntimeError: expected scalar type Long but found Int"
    ),
}


def printed_here(quoted: str, real: dict) -> str | None:
    """The message this torch prints for a quoted one: the same text or, where a newer release
    puts words in front of it, the message that ends with it. torch 2.13.0 and 2.14.1 print
    "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"; torch 2.15.0 prints "mm: mat1
    and mat2 ..." (and "addmm: ..." for nn.Linear), run on 2.15.0+cu132. An older release's
    wording (OLDER_WORDINGS) counts too. The kata then classifies the message this release
    prints."""
    if quoted in real:
        return quoted
    if OLDER_WORDINGS.get(quoted) in real:
        return OLDER_WORDINGS[quoted]
    kind, _, text = quoted.partition(": ")
    return next((k for k in real if k.startswith(f"{kind}: ") and k.endswith(text)), None)


# --- classify_error: messages that this machine cannot produce, quoted from PyTorch's source ---
# Each message is the source's format string, filled in as PyTorch fills it in.

SOURCE_MESSAGES = [
    # aten/src/ATen/TensorIterator.cpp (compute_types): elementwise ops and losses on CUDA.
    (
        "device",
        "Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!",
    ),
    (
        "device",
        "Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:1 and cuda:0!",
    ),
    # aten/src/ATen/core/op_registration/adaption.cpp (common_device_check_failure): the
    # dispatcher's check for matmul, Linear (addmm), embedding (index_select) and nll_loss.
    (
        "device",
        "Expected all tensors to be on the same device, but got mat1 is on cpu, different from "
        "other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)",
    ),
    (
        "device",
        "Expected all tensors to be on the same device, but got index is on cpu, different from "
        "other tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)",
    ),
    (
        "device",
        "Expected all tensors to be on the same device, but got target is on cpu, different from "
        "other tensors on cuda:0 (when checking argument in method wrapper_CUDA_nll_loss_forward)",
    ),
    # the same file in PyTorch 1.10 to 2.1
    (
        "device",
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
        "and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)",
    ),
    # aten/src/ATen/native/cuda/Blas.cpp (dot_check, PyTorch 1.10 to 2.0): lower-case "expected"
    ("device", "expected all tensors to be on the same device. Found: cuda:0, cpu"),
    # torch/_prims_common/__init__.py (check_same_device)
    ("device", "Tensor on device cpu is not on the expected device cuda:0!"),
    # aten/src/ATen/native/Convolution.cpp (check_input_same_type_as_parameters): the types name
    # the device, so this one message reports device mismatches and dtype mismatches alike.
    (
        "device",
        "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the "
        "same",
    ),
    (
        "device",
        "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
        "same or input should be a MKLDNN tensor and weight is a dense tensor",
    ),
    (
        "device",
        "Input type (torch.cuda.FloatTensor) and bias type (torch.FloatTensor) should be the same",
    ),
    (
        "dtype",
        "Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be "
        "the same",
    ),
    (
        "dtype",
        "Input type (torch.cuda.DoubleTensor) and bias type (torch.cuda.FloatTensor) should be "
        "the same",
    ),
    # the same check before PyTorch 1.5 printed input.type().toString()
    ("device", "Input type (CUDAFloatType) and weight type (CPUFloatType) should be the same"),
    ("dtype", "Input type (CUDAFloatType) and weight type (CUDAHalfType) should be the same"),
    # aten/src/ATen/Utils.h (checked_dense_tensor_unwrap, PyTorch <= 1.5) and, older still,
    # checked_tensor_unwrap (PyTorch 1.0): the "old" messages.
    (
        "device",
        "Expected object of device type cuda but got device type cpu for argument #1 'self' in "
        "call to _th_addmm",
    ),
    (
        "device",
        "Expected object of device type cuda but got device type cpu for argument #2 'mat2' in "
        "call to _th_bmm_out",
    ),
    ("device", "Expected object of backend CUDA but got backend CPU for argument #2 'weight'"),
    (
        "dtype",
        "Expected object of scalar type Float but got scalar type Double for argument #2 'mat2' "
        "in call to _th_mm",
    ),
    # aten/src/ATen/TensorUtils.cpp (checkSameGPU, checkSameType, checkScalarTypes): cuDNN, cuBLAS
    (
        "device",
        "Expected tensor for argument #1 'input' to have the same device as tensor for argument "
        "#2 'weight'; but device 1 does not equal 0 (while checking arguments for "
        "cudnn_convolution)",
    ),
    (
        "device",
        "Tensor for argument #3 'mat2' is on CPU, but expected it to be on GPU (while checking "
        "arguments for addmm_out_cuda_impl)",
    ),
    (
        "dtype",
        "Expected tensor for argument #1 'input' to have the same type as tensor for argument #2 "
        "'weight'; but type torch.cuda.HalfTensor does not equal torch.cuda.FloatTensor (while "
        "checking arguments for cudnn_convolution)",
    ),
    (
        "dtype",
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
        "Long, Int; but got torch.cuda.FloatTensor instead (while checking arguments for "
        "embedding)",
    ),
    # torch/nn/parallel/data_parallel.py (DataParallel.forward and data_parallel)
    (
        "device",
        "module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found "
        "one of them on device: cpu",
    ),
    # aten/src/ATen/native/RNN.cpp (check_attributes)
    (
        "device",
        "Input and parameter tensors are not at the same device, found input tensor at cpu and "
        "parameter tensor at cuda:0",
    ),
    # torch/serialization.py (_validate_device)
    (
        "device",
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
        "False. If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU.",
    ),
    # aten/src/ATen/native/cuda/Blas.cpp (addmm_out_cuda_impl): Linear and matmul on CUDA
    ("dtype", "expected mat1 and mat2 to have the same dtype, but got: float != c10::Half"),
    ("dtype", "mat1 and mat2 must have the same dtype, but got Float and BFloat16"),
    # nll_loss before PyTorch 2.13, and many CUDA kernels
    ("dtype", "expected scalar type Long but found Int"),
    ("dtype", "expected scalar type Half but found Float"),
    # not mismatches, though they mention CUDA, GPUs, devices, types or "mat1 and mat2":
    # c10/cuda/CUDACachingAllocator.cpp
    (
        "other",
        "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 7.79 GiB "
        "of which 3.56 MiB is free. Of the allocated memory 7.20 GiB is allocated by PyTorch, "
        "and 109.48 MiB is reserved by PyTorch but unallocated.",
    ),
    # c10/cuda/CUDAException.cpp (c10_cuda_check_implementation)
    (
        "other",
        "CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously "
        "reported at some other API call, so the stacktrace below might be incorrect.\nFor "
        "debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    ),
    # aten/src/ATen/TensorUtils.cpp (checkSameDim, checkSameSize)
    (
        "other",
        "Expected tensor for argument #1 'input' to have the same dimension as tensor for "
        "argument #2 'weight'; but 4 does not equal 3 (while checking arguments for "
        "cudnn_convolution)",
    ),
    (
        "other",
        "Expected tensor for argument #1 'input' to have same size as tensor for argument #2 "
        "'target'; but [2, 3] does not equal [2] (while checking arguments for cudnn_ctc_loss)",
    ),
    ("other", "mat1 and mat2 shapes cannot be multiplied (64x100 and 50x10)"),
    # torch 2.15.0's wording of the same shape errors, for torch.mm and `@`, and for nn.Linear
    # (run on 2.15.0+cu132); 2.13.0 and 2.14.1 print them without the op's name in front
    # (aten/src/ATen/native/LinearAlgebra.cpp: TORCH_META_FUNC(mm) and ADDMM_META; the 2.14.1
    # wheel's libtorch_cpu.so holds only the unprefixed text)
    ("other", "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    ("other", "addmm: mat1 and mat2 shapes cannot be multiplied (2x5 and 3x4)"),
]


def test_classify_messages_from_pytorch_source(kata):
    cases = [
        ("a CUDA build or an older release prints it", RuntimeError(message), label)
        for label, message in SOURCE_MESSAGES
    ]
    check_labels(kata, cases)


cuda_devices = st.sampled_from(["cuda:0", "cuda:1", "cuda:3"])
other_devices = st.sampled_from(["cpu", "meta", "mps:0", "xpu:0", "cuda:2"])
legacy_dtypes = st.sampled_from(["Float", "Double", "Half", "BFloat16", "Long"])


@given(
    a=cuda_devices,
    b=other_devices,
    swap=st.booleans(),
    where=st.sampled_from(["", " (in forward)"]),
)
def test_classify_any_pair_of_devices(kata, a, b, swap, where):
    a, b = (b, a) if swap else (a, b)
    message = (
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{a} and {b}!{where}"
    )
    check_label(kata, RuntimeError(message), "device", "the TensorIterator reports two devices")


@given(
    dtypes=st.lists(legacy_dtypes, min_size=2, max_size=2, unique=True),
    input_on_cuda=st.booleans(),
    want=st.sampled_from(["device", "dtype"]),
    param=st.sampled_from(["weight", "bias"]),
)
def test_classify_reads_the_convolution_types(kata, dtypes, input_on_cuda, want, param):
    """The convolution names two legacy types: only their devices, or only their dtypes, differ."""
    if want == "device":
        dtypes[1] = dtypes[0]
        cuda = (input_on_cuda, not input_on_cuda)
    else:
        cuda = (input_on_cuda, input_on_cuda)
    names = [f"torch.{'cuda.' if c else ''}{t}Tensor" for t, c in zip(dtypes, cuda, strict=True)]
    message = f"Input type ({names[0]}) and {param} type ({names[1]}) should be the same"
    why = "the two types are on different devices" if want == "device" else "only the dtypes differ"
    check_label(kata, RuntimeError(message), want, why)


NOT_EXCEPTIONS = [
    "Expected all tensors to be on the same device",
    None,
    RuntimeError,
    {"message": "same dtype"},
]


@pytest.mark.given
@given(value=st.sampled_from(NOT_EXCEPTIONS))
def test_classify_refuses_what_is_not_an_exception(kata, value):
    shown = "RuntimeError (the class)" if value is RuntimeError else repr(value)
    with say.raises(TypeError, f"classify_error({shown})", hint=3):
        kata.classify_error(value)


NOT_MODULES = [None, "model", nn.Linear, [nn.Linear(3, 2)], {"weight": torch.ones(2)}]


@pytest.mark.given
@given(
    value=st.sampled_from(NOT_MODULES),
    function=st.sampled_from(["device_report", "find_mismatches", "fix_inputs"]),
)
def test_a_model_that_is_not_a_module_is_a_type_error(kata, value, function):
    shown = "nn.Linear (the class)" if value is nn.Linear else repr(value)
    with say.raises(TypeError, f"{function}({shown}, x)", hint=2):
        getattr(kata, function)(value, torch.ones(2, 3))


# --- device_report ------------------------------------------------------------------------------


class Scaler(nn.Module):
    """A Linear with a buffer of its own, so models have parameters and buffers by name."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.register_buffer("scale", torch.ones(n))
        # A buffer that state_dict() leaves out, but that moves with the model all the same.
        self.register_buffer("shift", torch.zeros(n), persistent=False)

    def forward(self, x):
        return self.fc(x) * self.scale + self.shift


def make_model(n: int = 3) -> nn.Module:
    return nn.Sequential(Scaler(n), nn.BatchNorm1d(n), nn.Linear(n, 2))


def expected_report(model: nn.Module, inputs) -> dict[str, torch.device]:
    want = {name: p.device for name, p in model.named_parameters()}
    want |= {name: b.device for name, b in model.named_buffers()}
    want |= {f"input[{i}]": x.device for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)}
    return want


def unsaved(model: nn.Module, names) -> str:
    """What the names that are buffers left out of state_dict() (persistent=False) are."""
    left_out = sorted(set(names) & dict(model.named_buffers()).keys() - model.state_dict().keys())
    if not left_out:
        return ""
    return (
        f" ({', '.join(left_out)}: registered with persistent=False, so state_dict() leaves "
        "it out, yet the forward pass reads it and model.to() moves it)"
    )


def move(module: nn.Module, name: str, device: torch.device) -> None:
    """Put one parameter or buffer (by qualified name) on `device`, as a half-done move would."""
    owner_name, _, attr = name.rpartition(".")
    owner = module.get_submodule(owner_name)
    tensor = getattr(owner, attr)
    moved = tensor.to(device)
    setattr(
        owner,
        attr,
        nn.Parameter(moved, tensor.requires_grad) if isinstance(tensor, nn.Parameter) else moved,
    )


input_kinds = st.sampled_from(["cpu", "meta", "flag", "none", "int"])


def make_input(kind: str):
    if kind in ("cpu", "meta"):
        return torch.ones(4, 3, device=kind)
    return {"flag": True, "none": None, "int": 7}[kind]


@given(
    model_on=st.sampled_from(["cpu", "meta"]),
    strays=st.sets(
        st.sampled_from(
            [
                "0.fc.weight",
                "0.scale",
                "0.shift",
                "1.running_mean",
                "1.num_batches_tracked",
                "2.bias",
            ]
        )
    ),
    kinds=st.lists(input_kinds, max_size=4),
)
@settings(max_examples=60)
def test_device_report_lists_everything(kata, model_on, strays, kinds):
    model = make_model().to(model_on)
    other = "meta" if model_on == "cpu" else "cpu"
    if other == "meta":
        for name in strays:
            move(model, name, META)
    inputs = [make_input(k) for k in kinds]
    call = f"device_report(model on {model_on}, *{kinds})"
    got = kata.device_report(model, *inputs)
    want = expected_report(model, inputs)
    assert isinstance(got, dict), say(
        call, f"returned a {type(got).__name__}; expected a dict", hint=1
    )
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    assert not missing and not extra, say(
        call,
        f"is missing {missing} and has extra keys {extra}; expected every parameter and buffer by "
        "qualified name and every tensor input as input[i], i counting every input"
        + unsaved(model, missing),
        hint=1,
    )
    wrong = [f"{k} on {got[k]} (it is on {want[k]})" for k in want if got[k] != want[k]]
    assert not wrong, say(call, f"reports {', '.join(wrong)}", hint=1)


def test_device_report_counts_non_tensor_inputs(kata):
    model = nn.Linear(3, 2)
    got = kata.device_report(model, torch.ones(2, 3), None, True, torch.ones(2, device="meta"))
    keys = sorted(k for k in got if k.startswith("input"))
    assert keys == ["input[0]", "input[3]"], say(
        "device_report(model, x, None, True, y)",
        f"reported the inputs as {keys}; expected ['input[0]', 'input[3]']: positions count every "
        "input, and non-tensors have no device",
        hint=1,
    )
    assert got["input[3]"] == META, say(
        "device_report(model, x, None, True, y)",
        f"reported input[3] on {got['input[3]']}; y is on meta",
        hint=1,
    )


# --- find_mismatches ----------------------------------------------------------------------------


def check_mismatches(call: str, got, want: list[str], hint: int, note: str = "") -> None:
    assert isinstance(got, list), say(
        call, f"returned a {type(got).__name__}; expected a list", hint=hint
    )
    assert len(got) == len(set(got)) and sorted(got) == sorted(want), say(
        call, f"returned {sorted(got)}; expected {sorted(want)}{note}", hint=hint
    )


@given(
    strays=st.sets(
        st.sampled_from(
            ["0.scale", "0.shift", "1.running_mean", "1.running_var", "1.num_batches_tracked"]
        )
    ),
    kinds=st.lists(st.sampled_from(["cpu", "meta", "flag"]), max_size=4),
)
@settings(max_examples=60)
def test_find_mismatches_names_the_strays(kata, strays, kinds):
    """The model is on meta, except for the buffers in `strays` (left on the CPU)."""
    model = make_model().to("meta")
    cpu_model = make_model()
    for name in strays:
        owner_name, _, attr = name.rpartition(".")
        setattr(
            model.get_submodule(owner_name),
            attr,
            getattr(cpu_model.get_submodule(owner_name), attr),
        )
    inputs = [make_input(k) for k in kinds]
    want = sorted(strays) + [f"input[{i}]" for i, k in enumerate(kinds) if k == "cpu"]
    call = f"find_mismatches(model on meta with buffers {sorted(strays)} on cpu, *{kinds})"
    got = kata.find_mismatches(model, *inputs)
    missed = set(want) - set(got) if isinstance(got, list) else set()
    check_mismatches(call, got, want, hint=1, note=unsaved(model, missed))


def test_find_mismatches_counts_buffers(kata):
    model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).to("meta")
    model[1].running_mean = torch.zeros(3)  # a buffer replaced after the move: it stays on the CPU
    call = "find_mismatches(model on meta, its BatchNorm's running_mean on cpu)"
    check_mismatches(
        call,
        kata.find_mismatches(model, torch.ones(2, 3, device="meta")),
        ["1.running_mean"],
        hint=1,
    )


def test_find_mismatches_follows_the_model(kata, device):
    m, d = model_and_data_devices(device)
    model = nn.Linear(3, 2).to(m)
    inputs = (torch.ones(2, 3, device=d), torch.ones(2, 3, device=m), torch.ones(2, device=m))
    call = f"find_mismatches(model on {m}, x on {d}, y on {m}, z on {m})"
    check_mismatches(call, kata.find_mismatches(model, *inputs), ["input[0]"], hint=1)
    check_mismatches(
        f"find_mismatches(model on {m}, x on {m})",
        kata.find_mismatches(model, torch.ones(2, 3, device=m)),
        [],
        hint=1,
    )


def test_find_mismatches_refuses_a_split_model(kata):
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2))
    model[1].to("meta")
    call = "find_mismatches(model with 0.* on cpu and 1.* on meta, x)"
    with say.raises(ValueError, call, hint=1) as raised:
        kata.find_mismatches(model, torch.ones(2, 3))
    message = str(raised.value)
    assert "cpu" in message and "meta" in message, say(
        call, f"raised ValueError({message!r}), which does not name both devices", hint=1
    )


def test_find_mismatches_needs_parameters(kata):
    with say.raises(ValueError, "find_mismatches(nn.ReLU(), x)", hint=1):
        kata.find_mismatches(nn.ReLU(), torch.ones(2))


# --- fix_inputs ---------------------------------------------------------------------------------

FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
KEEPERS = (torch.int64, torch.int32, torch.uint8, torch.bool)


@given(
    model_dtype=st.sampled_from(FLOATS[:3]),
    specs=st.lists(
        st.tuples(
            shapes(max_dims=3, max_side=4), st.sampled_from(FLOATS + KEEPERS), st.integers(0, 2**16)
        ),
        max_size=5,
    ),
)
def test_fix_inputs_casts_floats_and_keeps_integers(kata, model_dtype, specs):
    model = nn.Linear(3, 2).to(model_dtype)
    inputs = [make_tensor(shape, dtype, seed) for shape, dtype, seed in specs]
    before = [(x.dtype, x._version, x.clone()) for x in inputs]
    call = f"fix_inputs(a {model_dtype} model, inputs of dtypes {[str(x.dtype) for x in inputs]})"
    got = kata.fix_inputs(model, *inputs)
    assert isinstance(got, tuple) and len(got) == len(inputs), say(
        call,
        f"returned {type(got).__name__} of length {len(got)}; expected a tuple of {len(inputs)}",
        hint=4,
    )
    for i, (x, y, (dtype, version, copy)) in enumerate(zip(inputs, got, before, strict=True)):
        want = model_dtype if dtype.is_floating_point else dtype
        why = (
            ""
            if dtype.is_floating_point
            else ": integer and bool tensors (labels, indices, masks) hold classes, positions "
            "or flags, not values the model computes with in its floating-point dtype"
        )
        assert isinstance(y, torch.Tensor) and y.dtype == want, say(
            call,
            f"gave input[{i}] ({dtype}) the dtype {getattr(y, 'dtype', y)}; expected {want}{why}",
            hint=2,
        )
        assert torch.equal(y, copy.to(want)), say(call, f"changed the values of input[{i}]", hint=4)
        assert x.dtype == dtype and x._version == version and torch.equal(x, copy), say(
            call,
            f"changed the caller's input[{i}] in place; the caller still holds that tensor, and "
            "the contract leaves the caller's tensors as they were",
            hint=4,
        )
        if want == dtype:
            assert y is x, say(
                call,
                f"returned a copy of input[{i}], which already had the right device and dtype; "
                "an input that is already ready comes back itself: a copy of it costs time and "
                "memory and changes nothing",
                hint=2,
            )


def test_fix_inputs_keeps_labels_as_integers(kata, device):
    m, d = model_and_data_devices(device)
    model = nn.Linear(3, 4).to(m)
    x, labels = torch.ones(2, 3, dtype=torch.float64, device=d), torch.tensor([0, 3], device=d)
    call = f"fix_inputs(model on {m}, float64 x on {d}, int64 labels on {d})"
    fixed_x, fixed_labels = kata.fix_inputs(model, x, labels)
    assert fixed_labels.dtype == torch.int64, say(
        call,
        f"turned the labels into {fixed_labels.dtype}; expected them to stay int64. Labels name "
        "classes, not values the model computes with in its floating-point dtype",
        hint=2,
    )
    assert fixed_x.dtype == torch.float32, say(
        call, f"gave x the dtype {fixed_x.dtype}; expected float32", hint=4
    )
    for name, t in (("x", fixed_x), ("labels", fixed_labels)):
        assert t.device == next(model.parameters()).device, say(
            call, f"left {name} on {t.device}; expected the model's device {m}", hint=2
        )


def test_fix_inputs_leaves_non_tensors_alone(kata):
    flag, options = True, {"mode": "train"}
    got = kata.fix_inputs(nn.Linear(3, 2).to("meta"), torch.ones(2, 3), flag, None, options)
    assert len(got) == 4 and got[1] is flag and got[2] is None and got[3] is options, say(
        "fix_inputs(model, x, True, None, {'mode': 'train'})",
        f"returned {got[1:]!r} for the non-tensors; expected them back as they are",
        hint=4,
    )


def test_fix_inputs_refuses_what_find_mismatches_refuses(kata):
    split = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2))
    split[1].to("meta")
    mixed = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2).double())
    for what, model in (
        ("on two devices", split),
        ("without parameters", nn.ReLU()),
        ("with two dtypes", mixed),
    ):
        with say.raises(ValueError, f"fix_inputs(a model {what}, x)", hint=1):
            kata.fix_inputs(model, torch.ones(2, 3))


# --- the whole story, on the real machine -------------------------------------------------------


def test_find_then_fix_lets_the_model_run(kata, device):
    """The model moved, the batch did not: read the error, find the culprits, fix, run."""
    m, d = model_and_data_devices(device)
    model = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8), nn.Linear(8, 4)).to(m)
    features, labels = (
        torch.ones(5, 3, dtype=torch.float64, device=d),
        torch.tensor([0, 1, 2, 3, 0], device=d),
    )
    err = caught(lambda: F.cross_entropy(model(features), labels))
    check_label(kata, err, "device", f"a model on {m} fed a batch on {d} raised it")
    call = f"find_mismatches(model on {m}, features on {d}, labels on {d})"
    check_mismatches(
        call, kata.find_mismatches(model, features, labels), ["input[0]", "input[1]"], hint=1
    )
    features, labels = kata.fix_inputs(model, features, labels)
    check_mismatches(
        f"find_mismatches after fix_inputs on {m}",
        kata.find_mismatches(model, features, labels),
        [],
        hint=2,
    )
    assert labels.dtype == torch.int64, say(
        f"fix_inputs(model on {m}, features, labels)",
        f"turned the labels into {labels.dtype}; expected them to stay int64. Labels name "
        "classes, not values the model computes with in its floating-point dtype",
        hint=2,
    )
    say.call(  # runs: every tensor is where the model is
        "fix_inputs(...) then F.cross_entropy(model(features), labels)",
        lambda: F.cross_entropy(model(features), labels),
        hint=4,
    )
