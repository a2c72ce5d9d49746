"""What a pasted error says about its own case: the devices, dtypes, argument names and op
names in it, read and put into words (`read`), and the few cases where those details rule an
entry out although its pattern matched (`applies`). Used by dojo/errors.py; the standard
library only.

Every reading quotes what the message says and what that means by how PyTorch builds the
message (the source is named beside each one); none guesses beyond it.
"""

from __future__ import annotations

import re

_DEV = r"[\w:]+"

# --- what an argument of an op is, in a training script's words ------------------------------

_ARGUMENTS = {
    ("index_select", "index"): "the indices; for an `nn.Embedding`, the token ids passed in",
    ("index_select", "self"): "the table being indexed; for an `nn.Embedding`, its weight",
    ("embedding", "indices"): "the token ids passed in",
    ("embedding", "weight"): "the embedding's weight",
    ("addmm", "mat1"): "the input of a `Linear` layer",
    ("addmm", "mat2"): "the `Linear` layer's weight",
    ("addmm", "self"): "the `Linear` layer's bias",
    ("mm", "mat2"): "the right-hand matrix, often a weight",
    ("bmm", "mat2"): "the right-hand batch of matrices",
    ("nll_loss_forward", "target"): "the labels passed to the loss",
    ("nll_loss_forward", "weight"): "the loss's class weights",
    ("nll_loss2d_forward", "target"): "the labels passed to the loss",
    ("cat", "tensors"): "one of the tensors being concatenated",
    ("native_layer_norm", "weight"): "the `LayerNorm`'s weight",
    ("native_batch_norm", "weight"): "the `BatchNorm`'s weight",
    ("cudnn_batch_norm", "weight"): "the `BatchNorm`'s weight",
    ("where", "other"): "the value chosen where the condition is false",
    ("masked_fill", "mask"): "the mask",
}
# Of each op, the argument PyTorch checks first: the device that the others are compared with
# (aten/src/ATen/core/op_registration/adaption.cpp keeps the first device it meets as the
# common one, in the order of the op's schema).
_FIRST = {
    "index_select": "self",
    "addmm": "self",
    "nll_loss_forward": "self",
    "embedding": "weight",
}


def _op(method: str) -> str:
    """`wrapper_CUDA__index_select` -> `index_select` (the kernel wrapper's name)."""
    backend = r"(?:(?:CUDA|CPU|MPS|XPU|Meta|CompositeExplicitAutograd)_)?"
    name = re.sub(rf"^wrapper_{backend}_?", "", method)
    return re.sub(r"_(?:out|Tensor|Scalar|self|input)$", "", name) or method


def _argument(op: str, arg: str) -> str:
    meaning = _ARGUMENTS.get((op, arg))
    return f"`{arg}` ({meaning})" if meaning else f"`{arg}`"


def _place(device: str) -> str:
    if device == "cpu":
        return "the CPU"
    if device == "meta":
        return "`meta` (no data at all)"
    return f"`{device}`"


def _devices(text: str) -> list[str]:
    found = re.search(
        rf"found at least two devices,? ({_DEV}) and ({_DEV})!?"
        r"(?: ?\(when checking arg[\w ]{0,12} for argument (\w+) in method (\w+)\))?",
        text,
    )
    if found:
        common, other, arg, method = found.groups()
        if not arg:
            out = [f"One input is on {_place(common)} and another on {_place(other)}."]
            if common.startswith("cuda") and other.startswith("cuda"):
                out.append(
                    "Both are GPUs: the model and the data were sent to different GPUs "
                    "(`.cuda()` in one place, `cuda:1` in another)."
                )
            return out
        op = _op(method)
        first = _ARGUMENTS.get((op, _FIRST.get(op, "")))
        earlier = f"`{_FIRST[op]}` ({first})" if first else "the arguments checked before it"
        out = [
            f"`{op}` got {_argument(op, arg)} on {_place(other)}, while {earlier} "
            f"{'is' if first else 'are'} on {_place(common)}."
        ]
        if op == "index_select" and common == "cpu":
            out.append(
                "So the embedding's weight is the one left on the CPU: the model (or this "
                "embedding) was never moved, or a tensor of it sits where `.to()` does not "
                "reach. Move the model, not the indices."
            )
        elif other == "cpu":
            out.append(f"Move {_argument(op, arg)} to `{common}` before the call.")
        elif common == "cpu":
            out.append(
                f"Here it is the other side that stayed on the CPU: move the model (or the "
                f"tensors passed before `{arg}`) to `{other}`."
            )
        return out
    got = re.search(
        rf"but got (\w+) is on ({_DEV}), different from other tensors on ({_DEV})"
        r"(?: \(when checking argument in method (\w+)\))?",
        text,
    )
    if got:
        arg, where, rest, method = got.groups()
        op = _op(method) if method else "the op"
        out = [
            f"`{op}` got {_argument(op, arg)} on {_place(where)}; its other tensors are on "
            f"{_place(rest)}."
        ]
        if where == "cpu":
            out.append(f"Move {_argument(op, arg)} to `{rest}`.")
        return out
    pair = re.search(
        rf"expected (?:device|backend) ({_DEV})(?: and dtype \w+)? "
        rf"but got (?:device|backend) ({_DEV})",
        text,
    ) or re.search(r"arguments are located on (different GPUs)()", text)
    if pair and pair.group(2) and pair.group(1) != pair.group(2):
        want, got = (d.lower() for d in pair.groups())
        return [
            f"One input is on {_place(got)} where the op expected {_place(want)}, the device "
            "of its other inputs."
        ]
    if pair and not pair.group(2):
        return ["The inputs are on two different GPUs."]
    old = re.search(
        r"Tensor for (?:argument #\d+ ?)?'?(\w+)'? is on (CPU|GPU)(?: (\d+))?,.{0,80}?"
        r"but expected (?:it|them) to be on (CPU|GPU)(?: (\d+))?(?: \(while checking arguments "
        r"for (\w+)\))?",
        text,
    )
    if old:
        arg, kind, n, want, m, op = old.groups()
        op = op or "the op"
        here = "the CPU" if kind == "CPU" else f"GPU {n or ''}".strip()
        there = "the CPU" if want == "CPU" else f"GPU {m or ''}".strip()
        return [f"`{op}` got {_argument(op, arg)} on {here}; it expected {there}."]
    typed = re.search(
        r"Expected object of (?:device )?type (?:Variable\[)?([\w.]+)\]? but (?:found|got) "
        r"(?:device )?type (?:Variable\[)?([\w.]+)\]? for argument #\d+ '(\w+)'",
        text,
    )
    if typed:
        want, got_, arg = typed.groups()
        return [
            f"Argument `{arg}` is {_tensor_type(got_)}, where the op expected "
            f"{_tensor_type(want)} like its other arguments."
        ]
    return []


_DTYPES = {
    "Float": "float32",
    "Double": "float64",
    "Half": "float16",
    "BFloat16": "bfloat16",
    "Long": "int64",
    "Int": "int32",
    "Byte": "uint8",
    "Bool": "bool",
}


def _dtype(name: str) -> str:
    return _DTYPES.get(name, name)


def _tensor_type(name: str) -> str:
    """`torch.cuda.HalfTensor` -> `float16 on a GPU`; `CPUFloatType` -> `float32 on the CPU`;
    `cuda` -> `on a GPU` (the device-type forms)."""
    legacy = re.fullmatch(r"(?:torch\.)?(cuda\.)?(\w+?)Tensor", name)
    if legacy:
        where = "on a GPU" if legacy.group(1) else "on the CPU"
        return f"{_dtype(legacy.group(2))} {where}"
    typed = re.fullmatch(r"(CUDA|CPU)(\w+)Type", name)
    if typed:
        where = "on a GPU" if typed.group(1) == "CUDA" else "on the CPU"
        return f"{_dtype(typed.group(2))} {where}"
    if name.lower() in ("cuda", "cpu"):
        return "on a GPU" if name.lower() == "cuda" else "on the CPU"
    return f"`{name}`"


def _types(text: str) -> list[str]:
    conv = re.search(r"Input type \(([\w.]+)\) and (weight|bias) type \(([\w.]+)\)", text)
    if conv:
        given, which, held = conv.groups()
        out = [f"The input is {_tensor_type(given)}; the layer's {which} is {_tensor_type(held)}."]
        a, b = _tensor_type(given).split(" ", 1), _tensor_type(held).split(" ", 1)
        if a[0] != b[0] and a[1] == b[1]:
            out.append(f"Same device, different dtypes: cast the input to {b[0]} or use autocast.")
        return out
    scalar = re.search(r"expected scalar type (\w+) but found (\w+)", text, re.IGNORECASE)
    if scalar:
        want, got = map(_dtype, scalar.groups())
        return [f"One operand is {got} where the op expected {want}, its other operand's dtype."]
    mat = re.search(r"mat1 and mat2 must have the same dtype,? but got (\w+) and (\w+)", text)
    if mat:
        a, b = map(_dtype, mat.groups())
        return [f"The input (`mat1`) is {a} and the weight (`mat2`) is {b}."]
    found = re.search(r"Found dtype (\w+) but expected (\w+)", text)
    if found:
        got, want = map(_dtype, found.groups())
        return [f"A tensor is {got} where {want} was expected."]
    half = re.search(r"\"(\w+)\" not implemented for '(Half|BFloat16)'", text)
    if half:
        op, dtype = half.groups()
        if "cpu" in op.lower():
            return [f"`{op}` is the CPU kernel: a {_dtype(dtype)} tensor reached it on the CPU."]
        return [f"`{op}` has no {_dtype(dtype)} kernel on this device."]
    return []


def _where(text: str, context: str = "") -> list[str]:
    expected = re.search(rf"Tensor on device ({_DEV}) is not on the expected device ({_DEV})", text)
    if expected:
        got, want = expected.groups()
        if "meta" in (got, want):
            out = [
                "A tensor on `meta` has shape and dtype but no data: a weight that was never "
                "loaded, not an input to move."
            ]
            # the traceback around the error names the library that placed the weights
            if re.search(r"device_map|accelerate|from_pretrained|transformers", context):
                out.append(
                    'Loading with `device_map="auto"` (transformers / accelerate) leaves on '
                    "`meta` the weights it did not place: more layers than fit and no offload "
                    "folder, a checkpoint key that did not match, or a tensor the model makes "
                    "in `__init__` outside its state dict."
                )
            return out
        return [f"A tensor is on {_place(got)}; the op expected {_place(want)}."]
    saved = re.search(
        r"deserialize object on CUDA device (\d+) but torch\.cuda\.device_count\(\) is (\d+)", text
    )
    if saved:
        n, count = saved.groups()
        return [
            f"The checkpoint was saved from `cuda:{n}`; this process sees {count} GPU(s)"
            + (f" (`cuda:0` to `cuda:{int(count) - 1}`)." if int(count) else ".")
        ]
    generator = re.search(r"Expected a '(\w+)' device type for generator but found '(\w+)'", text)
    if generator:
        want, got = generator.groups()
        return [
            f"A random op ran on {_place(want)} with a generator made for {_place(got)}."
            + (
                " With a CUDA default device or tensor type, `torch.randperm` in a sampler "
                "runs on the GPU while the DataLoader's generator is a CPU one."
                if want == "cuda"
                else ""
            )
        ]
    return []


def _state_dict(text: str) -> tuple[list[str], list[str]]:
    def keys(label: str) -> list[str]:
        # the next list, after a full stop, or after a comma where a paste cut the list short
        end = r"(?:[.,]? (?:Unexpected|Missing|size)|$)"
        part = re.search(rf"{label} key\(s\) in state_dict: (.*?){end}", text)
        return re.findall(r'"([^"]+)"', part.group(1)) if part else []

    return keys("Missing"), keys("Unexpected")


def _prefix(text: str) -> list[str]:
    missing, unexpected = _state_dict(text)
    if not missing or not unexpected:
        return []
    wrapped = lambda ks: all(k.startswith("module.") for k in ks)  # noqa: E731
    if wrapped(unexpected) and not wrapped(missing):
        return ["The checkpoint's keys carry `module.`; the model's do not."]
    if wrapped(missing) and not wrapped(unexpected):
        return [
            "Here the model is the wrapped one (its keys carry `module.`) and the checkpoint is "
            "not: load into `model.module`, or load before wrapping."
        ]
    return []


# --- the status of a cuBLAS or cuDNN call (aten/src/ATen/cuda/Exceptions.h) --------------------

# cuBLAS's data types as TORCH_CUDABLAS_CHECK prints them inside the call (`#EXPR`).
_CUDA_TYPES = {"CUDA_R_16BF": "bfloat16", "CUDA_R_16F": "float16", "CUDA_R_32F": "float32"}
# The letter of a classic cuBLAS routine (`cublasSgemm`) is its dtype.
_BLAS_LETTER = {"S": "float32", "D": "float64", "H": "float16", "C": "complex64", "Z": "complex128"}
_CUDNN_STATUS = (  # by prefix, what cuDNN's own documentation says of each group
    ("NOT_SUPPORTED", "cuDNN has no implementation for these inputs (layout, size or dtype)"),
    ("BAD_PARAM", "cuDNN refused an argument of the call (a shape, a stride, a pointer)"),
    ("INTERNAL_ERROR", "cuDNN failed inside, most often for want of memory"),
    ("MAPPING_ERROR", "cuDNN could not reach GPU memory it was given"),
    ("EXECUTION_FAILED", "a cuDNN kernel failed on the GPU"),
)


def _library_status(text: str) -> list[str]:
    """The cuBLAS call and its dtypes, or the cuDNN status group, named in the paste."""
    call = re.search(r"CUBLAS_STATUS_(\w+) when calling .?(cublas\w+)", text)
    if call:
        status, routine = call.groups()
        kind = "a batched matrix product (`bmm`, a `matmul` of 3-D tensors, attention)"
        if "Batched" not in routine:
            kind = "a matrix product (`Linear`, `mm`, `matmul`)"
        types = [_CUDA_TYPES[t] for t in re.findall(r"CUDA_R_\d+B?F", text) if t in _CUDA_TYPES]
        letter = re.match(r"cublas([SDHCZ])gemm", routine)
        dtype = types[0] if types else _BLAS_LETTER[letter.group(1)] if letter else None
        said = f"cuBLAS returned {status} for `{routine}`, {kind}"
        said += f" in {dtype}." if dtype else "."
        out = [said]
        if dtype == "bfloat16" and status in ("NOT_SUPPORTED", "INVALID_VALUE", "ARCH_MISMATCH"):
            out.append(
                "torch's own check of bfloat16 products asks for compute capability 8.0 or "
                "higher (aten/src/ATen/cuda/CUDABlas.cpp); torch.cuda.get_device_capability() "
                "says which this GPU has."
            )
        return out
    status = re.search(r"CUDNN_STATUS_(\w+)", text)
    if status:
        for prefix, meaning in _CUDNN_STATUS:
            if status.group(1).startswith(prefix):
                return [f"cuDNN returned {status.group(0)}: {meaning}."]
    return []


# --- the caching allocator's settings (c10/core/AllocatorConfig.cpp and .h,
# c10/cuda/CUDAAllocatorConfig.cpp): torch splits PYTORCH_ALLOC_CONF at ':', ',', '[' and ']' only


def _alloc_conf(text: str) -> list[str]:
    """The key or value of PYTORCH_ALLOC_CONF (PYTORCH_CUDA_ALLOC_CONF) that torch refused."""
    key = re.search(
        r"Unrecognized key '([^']*)' in (?:CUDA |Accelerator |XPU )?allocator config", text
    )
    key = key or re.search(r"Unrecognized CachingAllocator option: (\S+)", text)
    if key:
        name = key.group(1)
        if "=" in name:
            k, _, v = name.partition("=")
            return [
                f"torch read `{name}` as one key: it splits the settings at colons and commas, "
                f"not at an equals sign. Write `{k}:{v}`."
            ]
        out = [f"`{name}` is not a key this torch knows."]
        if name == "expandable_segments":
            out.append(
                "`expandable_segments` is newer than this torch (pastes with torch 2.0.1 say "
                "this): upgrade torch, or drop the key."
            )
        return out
    flag = re.search(
        r"Expected 'True' or 'False' at index \d+ in ConfigTokenizer but got '([^']*)'", text
    )
    if flag:
        got = flag.group(1)
        if got.lower() in ("true", "false"):
            return [
                f"`{got}` must be written `{got.capitalize()}`: torch takes `True` and `False` "
                "only."
            ]
        return [f"A setting that is on or off got `{got}`; torch takes `True` or `False` only."]
    older = re.search(r"Expected a single True/False argument for (\w+)", text)
    if older:
        return [f"`{older.group(1)}` takes `True` or `False` only, capitalised."]
    small = re.search(
        r"option (max_split_size_mb|max_non_split_rounding_mb) too small, must be (>=?) (\d+)", text
    )
    if small:
        name, op, n = small.groups()
        bound = f"at least {n}" if op == ">=" else f"more than {n}"
        return [f"`{name}` is in MiB, and this torch takes {bound}."]
    if "Index out of bounds in ConfigTokenizer" in text:
        return [
            "torch ran out of settings while reading one: a key without its `:value` "
            "(`expandable_segments` alone), a trailing `:` or `,`, or `=` where `:` belongs "
            "(torch 2.13 says this for `expandable_segments=True`)."
        ]
    return []


def applies(entry_id: str, text: str) -> bool:
    """False when the details of `text` rule the entry out although a pattern matched it."""
    if entry_id == "unexpected-module-prefix":
        missing, unexpected = _state_dict(text)
        both = missing and unexpected
        if both and all(k.startswith("module.") for k in missing + unexpected):
            return False  # both sides wrapped: the names differ after the prefix
        bare = lambda ks: {k.removeprefix("module.") for k in ks}  # noqa: E731
        if both and not bare(missing) & bare(unexpected):
            # no key of one side is a key of the other with `module.` added or taken away:
            # the prefix is not what keeps them apart (a checkpoint that holds the weights
            # under "state_dict", another architecture)
            return False
        wrapper = re.search(r"state_dict for (?:DataParallel|DistributedDataParallel)\b", text)
        if wrapper and unexpected and all(k.startswith("module.") for k in unexpected):
            return False  # the model is the wrapper, so its own keys carry `module.` too
    return True


def read(text: str, raw: str = "") -> list[str]:
    """Sentences about this paste's own case (which tensor is where, which dtype is which),
    from `text` (one error, boilerplate taken out); `raw` is the paste as given, for the rank
    that printed it. [] when the message carries no detail worth reading."""
    out = _devices(text) or _types(text) or _where(text, raw or text) or _prefix(text)
    out = out or _library_status(text)
    out = out or _alloc_conf(text)
    rank = re.search(r"\[(?:default)?(?:rank)?(\d+)\]:", raw)
    if rank:
        out.append(f"(Printed by rank {rank.group(1)} of a distributed run.)")
    return out
