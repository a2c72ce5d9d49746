"""A bare `cuda` where torch wants an index (issue 28).

`torch.device("cuda")` is legal almost everywhere: it means the current GPU. A few functions of
`torch.cuda` refuse it: they read their device argument with `_get_device_index(device)`
without `optional=True`, which raises "ValueError: Expected a torch.device with a specified
index or an integer". The cuda tier cannot run here, so:

- `refusing()` reads which functions those are from the installed torch's own sources;
- `strict(...)` makes a fake of one of them refuse exactly what torch's refuses, by calling
  torch's own `_get_device_index` on the argument;
- the cuda-only out-of-memory test of `memory` runs here, on a simulated GPU whose caching
  allocator and per-process limit are fakes (`SimulatedGpu`): it failed on the bare device
  before the fix, as it would have on every real GPU;
- every call to a refusing function in the repository's code is read with `ast`, and one
  whose device is a bare `cuda` (written there, or bound to a name just before) fails, unless
  it is written to be refused: a statement of its own in the body of a
  `with pytest.raises(ValueError, ...)` (a test that the refusal happens, as in
  tests/tool/test_fake_gpus.py).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import textwrap
import weakref
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
import torch
from torch.cuda._utils import _get_device_index

from dojo import catalogue as _catalogue
from tests.support import fake_gpus

ROOT = _catalogue.ROOT
TORCH = Path(torch.__file__).parent
MODULES = {
    "torch.cuda": TORCH / "cuda" / "__init__.py",
    "torch.cuda.memory": TORCH / "cuda" / "memory.py",
}


@functools.cache
def refusing() -> dict[str, str]:
    """`{"set_per_process_memory_fraction": "device", ...}`: each public function of torch.cuda
    that passes one of its parameters to `_get_device_index` without `optional=True`."""
    found = {}
    for path in MODULES.values():
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            params = {a.arg for a in node.args.args + node.args.kwonlyargs}
            for call in ast.walk(node):
                if not (
                    isinstance(call, ast.Call)
                    and getattr(call.func, "id", None) == "_get_device_index"
                    and call.args
                    and isinstance(call.args[0], ast.Name)
                    and call.args[0].id in params
                ):
                    continue
                optional = [k.value for k in call.keywords if k.arg == "optional"]
                optional += call.args[1:2]
                if not any(isinstance(o, ast.Constant) and o.value is True for o in optional):
                    found[node.name] = call.args[0].id
    return found


def test_torch_refuses_a_bare_cuda_in_the_functions_its_sources_say():
    """What the rest of this file relies on, read from this torch: the functions (the issue
    found set_per_process_memory_fraction; torch 2.11.0 and 2.13.0 have the same six) and the
    refusal itself, which needs no GPU."""
    names = refusing()
    for name in ("set_device", "set_per_process_memory_fraction", "caching_allocator_alloc"):
        assert name in names, f"torch {torch.__version__}: {name} no longer refuses a bare cuda"
    with pytest.raises(ValueError, match="specified index"):
        _get_device_index(torch.device("cuda"))
    assert _get_device_index(torch.device("cuda", 1)) == 1


def strict(name: str, fake):
    """`fake` in place of torch.cuda's `name`, refusing what torch's refuses: its device
    argument goes through torch's own `_get_device_index` first."""
    param = refusing()[name]
    real = inspect.signature(getattr(torch.cuda, name))

    @functools.wraps(fake)
    def checked(*args, **kwargs):
        bound = real.bind(*args, **kwargs)
        bound.apply_defaults()
        if param in bound.arguments and bound.arguments[param] is not None:
            _get_device_index(bound.arguments[param])
        return fake(*args, **kwargs)

    return checked


class SimulatedGpu:
    """One GPU of `total` bytes whose allocations are bookkeeping only: `torch.empty(...,
    device=cuda)` returns an empty CPU tensor and counts its bytes as allocated until that
    tensor is gone. Freed blocks stay reserved (cached) until `empty_cache()`; an allocation
    past the per-process limit first drops the cache, as CUDA's caching allocator does, then
    raises torch.OutOfMemoryError."""

    MIB = 2**20

    def __init__(self, total: int = 80 * 2**30) -> None:
        self.total, self.limit = total, total
        self.allocated = 0
        self.cached: list[int] = []  # freed blocks, still reserved
        self.real_empty = torch.empty

    @property
    def reserved(self) -> int:
        return self.allocated + sum(self.cached)

    def _free(self, size: int) -> None:
        self.allocated -= size
        self.cached.append(size)

    def empty(self, *size, dtype=None, device=None, **kwargs):
        if device is None or torch.device(device).type != "cuda":
            return self.real_empty(*size, dtype=dtype, device=device, **kwargs)
        shape = size[0] if len(size) == 1 and not isinstance(size[0], int) else size
        nbytes = int(torch.Size(shape).numel()) * (dtype or torch.float32).itemsize
        reuse = next((b for b in sorted(self.cached) if b >= nbytes), None)
        if reuse is not None:
            self.cached.remove(reuse)
            nbytes = reuse
        else:
            if self.reserved + nbytes > self.limit:
                self.cached.clear()  # the allocator frees its cache and tries again
            if self.reserved + nbytes > self.limit:
                raise torch.OutOfMemoryError(
                    f"CUDA out of memory. Tried to allocate {nbytes / self.MIB:.2f} MiB "
                    "(simulated GPU)"
                )
        self.allocated += nbytes
        block = self.real_empty(0, dtype=dtype)
        weakref.finalize(block, self._free, nbytes)
        return block

    def set_per_process_memory_fraction(self, fraction: float, device=None) -> None:
        self.limit = int(fraction * self.total)

    def empty_cache(self) -> None:
        self.cached.clear()

    @contextlib.contextmanager
    def installed(self) -> Iterator[SimulatedGpu]:
        patches = {
            "synchronize": lambda device=None: None,
            "empty_cache": self.empty_cache,
            "current_device": lambda: 0,
            "mem_get_info": lambda device=None: (self.total - self.reserved, self.total),
            "memory_allocated": lambda device=None: self.allocated,
            "memory_reserved": lambda device=None: self.reserved,
            "set_per_process_memory_fraction": strict(
                "set_per_process_memory_fraction", self.set_per_process_memory_fraction
            ),
        }
        with contextlib.ExitStack() as stack:
            stack.enter_context(fake_gpus(1))
            for name, fake in patches.items():
                stack.enter_context(mock.patch.object(torch.cuda, name, fake))
            stack.enter_context(mock.patch.object(torch, "empty", self.empty))
            yield self


def test_the_simulated_gpu_refuses_a_bare_cuda_where_torch_does():
    gpu = SimulatedGpu()
    with gpu.installed():
        with pytest.raises(ValueError, match="specified index"):
            torch.cuda.set_per_process_memory_fraction(0.5, torch.device("cuda"))
        torch.cuda.set_per_process_memory_fraction(0.5, torch.device("cuda", 0))
        torch.cuda.set_per_process_memory_fraction(0.5)  # no device: the current one
    assert gpu.limit == gpu.total // 2


def test_the_simulated_gpu_caches_freed_blocks_and_runs_out_at_its_limit():
    gpu = SimulatedGpu(total=8 * SimulatedGpu.MIB)
    with gpu.installed():
        torch.cuda.set_per_process_memory_fraction(0.5, 0)
        a = torch.empty(3 * SimulatedGpu.MIB, dtype=torch.uint8, device="cuda")
        assert (torch.cuda.memory_allocated(), torch.cuda.memory_reserved()) == (3 * 2**20,) * 2
        with pytest.raises(torch.OutOfMemoryError):
            torch.empty(2 * SimulatedGpu.MIB, dtype=torch.uint8, device="cuda")
        del a
        assert (torch.cuda.memory_allocated(), torch.cuda.memory_reserved()) == (0, 3 * 2**20)
        torch.cuda.empty_cache()
        assert torch.cuda.memory_reserved() == 0
        assert torch.empty(2, 3).device.type == "cpu"  # a CPU tensor is a real one


def test_the_real_out_of_memory_test_runs_on_a_simulated_gpu():
    """The cuda-only test of memory.largest_batch, against the reference, on the simulated GPU:
    with `torch.device("cuda")` it raised ValueError before its `try` (issue 28)."""
    from reference import memory
    from tests import test_memory

    with SimulatedGpu().installed() as gpu:
        test_memory.test_largest_batch_recovers_from_a_real_out_of_memory_error(kata=memory)
    assert gpu.limit == gpu.total  # the test set the limit back


# --- every call in the repository ------------------------------------------------------------

SOURCES = ["tests", "reference", "benchmarks", "dojo", "katas", "docs"]
SKIPPED = ["tests/mistakes"]  # wrong on purpose


def _bare_cuda(node: ast.expr | None) -> bool:
    """`"cuda"`, `torch.device("cuda")` or `torch.device(type="cuda")`."""
    if isinstance(node, ast.Constant):
        return node.value == "cuda"
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "device":
        args = node.args + [k.value for k in node.keywords if k.arg == "type"]
        index = node.args[1:] or [k for k in node.keywords if k.arg == "index"]
        return len(args) >= 1 and _bare_cuda(args[0]) and not index
    return False


def _own(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a module or function, without those of the functions inside it."""
    for child in ast.iter_child_nodes(scope):
        yield child
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _own(child)


def _expects_the_refusal(node: ast.With) -> bool:
    """`with pytest.raises(ValueError, ...)`: the ValueError torch's refusal raises."""
    return any(
        isinstance(item.context_expr, ast.Call)
        and getattr(item.context_expr.func, "attr", None) == "raises"
        and getattr(item.context_expr.func.value, "id", None) == "pytest"
        and item.context_expr.args
        and getattr(item.context_expr.args[0], "id", None) == "ValueError"
        for item in node.items
    )


def refused_on_purpose(tree: ast.AST) -> set[int]:
    """The ids of the calls that are a statement of their own in the body of a
    `with pytest.raises(ValueError, ...)`: written to check that the bare cuda is refused.
    Only the statement itself: not a call inside a lambda or a function defined there, which
    would not run in the `with`, nor one nested in another expression."""
    return {
        id(stmt.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.With) and _expects_the_refusal(node)
        for stmt in node.body
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
    }


def bare_calls(tree: ast.AST, where: str) -> list[str]:
    """Calls `torch.cuda.NAME(...)` (or `cuda.NAME`) to a refusing function whose device
    argument is a bare cuda, written in the call or assigned to a name in the same scope,
    except those `refused_on_purpose`."""
    names = refusing()
    expected = refused_on_purpose(tree)
    found = []
    scopes = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module)
    ]
    for scope in scopes:
        bare_names = {
            t.id
            for n in _own(scope)
            if isinstance(n, ast.Assign) and _bare_cuda(n.value)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        for call in _own(scope):
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
                continue
            if id(call) in expected:
                continue
            name = call.func.attr
            if name not in names or getattr(call.func.value, "attr", None) not in ("cuda", None):
                continue
            params = list(inspect.signature(getattr(torch.cuda, name)).parameters)
            at = params.index(names[name])
            arg = next((k.value for k in call.keywords if k.arg == names[name]), None)
            if arg is None and len(call.args) > at:
                arg = call.args[at]
            if _bare_cuda(arg) or (isinstance(arg, ast.Name) and arg.id in bare_names):
                found.append(f"{where}:{call.lineno}: torch.cuda.{name} given a bare cuda device")
    return sorted(set(found))


def test_the_check_finds_the_bare_call_the_issue_found():
    before = (
        "def test(kata):\n"
        '    device = torch.device("cuda")\n'
        "    torch.cuda.set_per_process_memory_fraction(0.5, device)\n"
        '    torch.cuda.set_device("cuda")\n'
        '    torch.cuda.set_device(torch.device("cuda", 0))\n'
        "    torch.cuda.caching_allocator_alloc(8, device=torch.device('cuda'))\n"
    )
    assert bare_calls(ast.parse(before), "t.py") == [
        "t.py:3: torch.cuda.set_per_process_memory_fraction given a bare cuda device",
        "t.py:4: torch.cuda.set_device given a bare cuda device",
        "t.py:6: torch.cuda.caching_allocator_alloc given a bare cuda device",
    ]


def test_the_check_accepts_a_bare_call_only_where_a_test_expects_the_refusal():
    """A statement of its own in `with pytest.raises(ValueError)` is a test that torch (or a
    fake) refuses it; the same call expecting another error, or in a lambda or a function
    defined in the `with` (not run there), or after the `with`, is still found."""
    code = (
        "def test(kata):\n"
        "    with pytest.raises(ValueError, match='specified index'):\n"
        "        torch.cuda.set_device(torch.device('cuda'))\n"
        "    with pytest.raises(RuntimeError):\n"
        "        torch.cuda.set_device('cuda')\n"
        "    with pytest.raises(ValueError):\n"
        "        later = lambda: torch.cuda.set_device('cuda')\n"
        "        x = torch.cuda.caching_allocator_alloc(8, device='cuda')\n"
        "    with pytest.raises(ValueError):\n"
        "        def run():\n"
        "            torch.cuda.set_device('cuda')\n"
        "    torch.cuda.set_device('cuda')\n"
    )
    assert bare_calls(ast.parse(code), "t.py") == [
        "t.py:11: torch.cuda.set_device given a bare cuda device",
        "t.py:12: torch.cuda.set_device given a bare cuda device",
        "t.py:5: torch.cuda.set_device given a bare cuda device",
        "t.py:7: torch.cuda.set_device given a bare cuda device",
        "t.py:8: torch.cuda.caching_allocator_alloc given a bare cuda device",
    ]


def _python_in(path: Path) -> list[str]:
    """A .py file's code, or a page's ```python blocks."""
    text = path.read_text()
    if path.suffix == ".py":
        return [text]
    blocks, inside = [], None
    for line in text.splitlines():
        if inside is None and line.lstrip().startswith("```python"):
            inside = []
        elif inside is not None and line.lstrip().startswith("```"):
            blocks.append(textwrap.dedent("\n".join(inside)))
            inside = None
        elif inside is not None:
            inside.append(line)
    return blocks


def test_no_code_in_the_repository_gives_a_refusing_function_a_bare_cuda():
    found = []
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix not in (".py", ".md") or any(rel.startswith(s) for s in SKIPPED):
                continue
            for code in _python_in(path):
                try:
                    tree = ast.parse(code)
                except SyntaxError:  # a page's block may be a fragment
                    continue
                found += bare_calls(tree, rel)
    assert not found, "\n".join(found)
