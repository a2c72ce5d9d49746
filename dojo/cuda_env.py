"""What a GPU host has: the facts behind `nox -s tests-cuda`, its pytest header and the doctor.

- `choose_python()` is the session's first step, in nox's own process: which interpreter to test
  with (the activated venv, the conda env, the first python on PATH, nox's own: the first that
  has torch), and why. A pyenv shim first on PATH must not hide the env the user activated.
- `python -m dojo.cuda_env --plan FILE REQ...` is what the session runs next, with that
  interpreter. It writes a JSON plan to FILE: `{"error": ..., "install": [...], "notes": [...],
  "overlay": ...}`. The session reads only FILE, never this process's output, where
  `import torch` may print warnings of its own.
- `python -m dojo.cuda_env --install RESULT --overlay DIR REQ...` installs what the plan lists
  into the overlay DIR (`pip install --target`), never into the user's env; the run puts DIR
  first on PYTHONPATH. Without a network it writes to RESULT the one line that says how to
  prepare DIR on a login node.
- `probe()` gathers torch, CUDA, each GPU, the driver and the environment, starting CUDA inside
  `warnings.catch_warnings(record=True)` so that the warnings it raises are reported once.
- `HOST_WARNINGS` are torch's warnings that describe the machine, not the code under test.
- `cuda_tests()` lists a kata's cuda-tier tests, read from its test file with `ast`.

torch is imported inside functions only: this module also runs where torch is missing.
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from dojo import _toml  # tomllib, or tomli on Python 3.10
from dojo import catalogue as _catalogue

TORCH_PIN = "2.13.0"  # pyproject.toml, [dependency-groups] torch

# --- which test tools the session installs ----------------------------------------------------

# The oldest version of each tool the tests run with, and why. Checked together: the cpu tier
# (the same test bodies as the cuda tier) with `-n 2`, against the reference, in a venv holding
# exactly these versions and torch 2.13.0, passed as with the pins. A version in the user's env
# at or above its floor is used as it is. A missing or older one is installed into the overlay
# (below), never into the user's env: a conda env's numpy 1.x may be what its other packages
# need.
FLOORS = {
    "numpy": ("2.0", "the tests use numpy.lib.array_utils, new in numpy 2.0"),
    "pytest": ("9.0", "the test settings are in pyproject's [tool.pytest], read from pytest 9.0"),
    "hypothesis": ("6.100", "checked from hypothesis 6.100.0"),
    "pytest-xdist": ("3.5", "checked from pytest-xdist 3.5.0"),
    "pyyaml": ("6.0", "checked from pyyaml 6.0"),
    "tomli": ("2.0", "dojo/_toml.py reads the catalogue with it where Python has no tomllib"),
}
# Python 3.10 has no tomllib: the tests read the catalogue with tomli (dojo/_toml.py).
TOMLI = "tomli==2.5.0"

# Where the session installs what the env lacks, put first on PYTHONPATH for this run only: one
# folder per Python version and platform (numpy is a binary wheel). KATAS_TOOLS_DIR moves it (a
# folder on a shared filesystem, prepared on a login node).
OVERLAY = _catalogue.ROOT / ".nox" / "tests-cuda-tools"
TOOLS_DIR = "KATAS_TOOLS_DIR"


def overlay_dir(environ=os.environ) -> Path:
    """This interpreter's overlay folder."""
    base = Path(environ[TOOLS_DIR]) if environ.get(TOOLS_DIR) else OVERLAY
    tag = f"{sys.implementation.name}{sys.version_info[0]}{sys.version_info[1]}"
    return base / f"{tag}-{sysconfig.get_platform()}"


def requirements(pyproject: Path = _catalogue.ROOT / "pyproject.toml") -> list[str]:
    """What `nox -s tests-cuda` makes sure of: everything the tests import except torch, that
    is the `test-tools` group and numpy (torch's wheel does not require numpy), as pinned."""
    with pyproject.open("rb") as f:
        groups = _toml.load(f)["dependency-groups"]

    def resolve(name: str) -> list[str]:
        return [
            req
            for entry in groups[name]
            for req in (resolve(entry["include-group"]) if isinstance(entry, dict) else [entry])
        ]

    numpy = [r for r in resolve("torch") if re.match(r"numpy\b", r)]
    return resolve("test-tools") + numpy


def version_tuple(text: str) -> tuple[int, ...]:
    """`"9.2.0"` → (9, 2, 0); `"2.13.0+cu130"` → (2, 13, 0); `"1.0rc1"` → (1, 0)."""
    found = re.match(r"\d+(?:\.\d+)*", text.strip())
    return tuple(int(p) for p in found.group().split(".")) if found else ()


@dataclass
class Plan:
    """What the session does before pytest: stop with `error`, or install `install` (pip
    requirements) into `overlay`, which the run puts first on PYTHONPATH."""

    error: str | None = None
    install: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    overlay: str | None = None


def installed_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def wanted(req: str) -> tuple[str, str, str]:
    """`name==pin` → (name, the floor, why the floor)."""
    name, sep, pin = req.partition("==")
    if not sep:
        raise ValueError(f"{req!r}: expected name==version, as in pyproject's groups")
    floor, why = FLOORS.get(name.lower(), (pin, f"the tests are checked with {req}"))
    return name, floor, why


def plan_tools(requirements: list[str], installed=installed_version, overlay: str = "") -> Plan:
    """Which of `requirements` (`name==pin`) the overlay needs: the missing, and those older
    than their floor. Each is asked as `name>=floor,<=pin`: the pin where this Python has it
    (numpy 2.4.6 needs Python 3.11; on 3.10 pip takes the newest 2.2)."""
    plan = Plan(overlay=overlay or None)
    where = f" into {overlay}" if overlay else ""
    for req in requirements:
        name, floor, why = wanted(req)
        pin = req.partition("==")[2]
        have = installed(name)
        ask = f"{name}>={floor},<={pin}" if version_tuple(floor) < version_tuple(pin) else req
        if have is None:
            plan.install.append(ask)
            plan.notes.append(f"{name} is missing: installing {ask}{where}")
        elif version_tuple(have) < version_tuple(floor):
            plan.install.append(ask)
            plan.notes.append(f"{name} {have} is too old ({why}): installing {ask}{where}")
    if plan.install and overlay:
        plan.notes.append(
            f"the overlay comes first on PYTHONPATH for this run only; {sys.executable}'s own "
            "packages stay as they are"
        )
    return plan


def plan(requirements: list[str]) -> Plan:
    """The whole plan: torch and a CUDA device first, then the tools."""
    try:
        import torch
    except ImportError:
        return Plan(
            error=f"tests-cuda: {sys.executable} has no torch; activate the env that holds your "
            "CUDA build of torch, then run nox -s tests-cuda again"
        )
    if not torch.cuda.is_available():
        build = f"CUDA {torch.version.cuda} build" if torch.version.cuda else "CPU-only build"
        return Plan(
            error=f"tests-cuda: torch {torch.__version__} ({build}) in {sys.executable} sees no "
            "CUDA device (torch.cuda.is_available() is False); run it on a GPU host, or see "
            "python -m katas doctor"
        )
    overlay = overlay_dir()
    if overlay.is_dir():  # what an earlier run installed there counts as installed
        sys.path.insert(0, str(overlay))
    if importlib.util.find_spec("tomllib") is None:  # Python 3.10
        requirements = [*requirements, TOMLI]
    result = plan_tools(requirements, overlay=str(overlay))
    if version_tuple(torch.__version__)[:2] != version_tuple(TORCH_PIN)[:2]:
        result.notes.append(
            f"torch is {torch.__version__}; the katas are checked against torch=={TORCH_PIN}, "
            "so a failure may come from the version"
        )
    if result.install and importlib.util.find_spec("pip") is None:
        result.error = (
            f"tests-cuda: {sys.executable} has no pip to install {' '.join(result.install)}; "
            f"install them into {result.overlay} (uv pip install --target ...), then run nox "
            "-s tests-cuda again"
        )
    return result


# --- the interpreter the session tests with ---------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    python: str
    why: str


def candidates(environ=os.environ) -> list[Candidate]:
    """Where the user's torch may be, in order: the activated venv, the active conda env, then
    the first `python` on PATH. A pyenv shim puts pyenv's own Python first on PATH, so PATH alone
    would miss an activated env whose python comes later."""
    out: list[Candidate] = []
    windows = os.name == "nt"

    def add(python: Path | str | None, why: str) -> None:
        if python and Path(python).is_file() and str(python) not in [c.python for c in out]:
            out.append(Candidate(str(python), why))

    if venv := environ.get("VIRTUAL_ENV"):
        add(Path(venv, "Scripts" if windows else "bin", "python"), f"the activated venv ({venv})")
        if windows:
            add(Path(venv, "Scripts", "python.exe"), f"the activated venv ({venv})")
    if conda := environ.get("CONDA_PREFIX"):
        add(Path(conda, "python.exe" if windows else "bin/python"), f"the conda env ({conda})")
    on_path = shutil.which("python", path=environ.get("PATH"))
    if on_path:
        shim = " (a pyenv shim)" if Path(on_path).parent.name == "shims" else ""
        add(on_path, f"the first python on PATH{shim}")
    add(sys.executable, "the python nox runs in")  # `.venv/bin/nox` run without activating
    return out


def has_torch(python: str) -> bool:
    """Can `python` find torch? Asked without importing it (find_spec: a fraction of a second)."""
    code = "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"
    try:
        return subprocess.run([python, "-c", code], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def choose_python(environ=os.environ, has_torch=has_torch) -> tuple[Candidate | None, list[str]]:
    """The first candidate that has torch, and a line for each candidate looked at."""
    lines = []
    found = candidates(environ)
    for cand in found:
        if has_torch(cand.python):
            lines.append(f"tests-cuda: testing with {cand.python}, {cand.why}: it has torch")
            return cand, lines
        lines.append(f"tests-cuda: not {cand.python}, {cand.why}: it has no torch")
    return None, lines


def no_torch_error(looked: list[Candidate]) -> str:
    where = "; ".join(f"{c.python} ({c.why})" for c in looked) or "no python on PATH"
    return (
        f"tests-cuda: no torch in {where}; activate the env that holds your CUDA build of "
        "torch (. .venv/bin/activate, conda activate ...), then run nox -s tests-cuda again"
    )


# --- installing into the overlay --------------------------------------------------------------

# What pip prints when it cannot reach its index (urllib3, requests and socket errors).
NO_NETWORK = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name "
    r"resolution|Name or service not known|Network is unreachable|No route to host|Connection "
    r"refused|ConnectTimeoutError|Read timed out|ProxyError|Max retries exceeded|"
    r"nodename nor servname"
)


def prepare_command(python: str, overlay: str, reqs: list[str]) -> str:
    """The command that fills the overlay by hand: on a login node, for a compute node."""
    quoted = " ".join(f"'{r}'" if re.search(r"[<>]", r) else r for r in reqs)
    return f"{python} -m pip install --target {overlay} {quoted}"


def install(overlay: str, reqs: list[str]) -> str | None:
    """`pip install --target OVERLAY REQS`, its output shown as it comes; None when it worked,
    else the one line that says why and what to do. pip is bounded (PIP_TIMEOUT and PIP_RETRIES
    when unset: 15 s, 1 retry): a compute node without internet fails in seconds, not minutes."""
    command = [sys.executable, "-m", "pip", "install", "--target", overlay, "--upgrade"]
    env = {"PIP_TIMEOUT": "15", "PIP_RETRIES": "1", **os.environ}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    shown = []
    with subprocess.Popen(
        [*command, *reqs], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        for line in proc.stdout:  # shown as it comes: a download is seen to move
            sys.stdout.write(line)
            sys.stdout.flush()
            shown.append(line)
    out = "".join(shown)
    if proc.returncode == 0:
        return None
    prepare = prepare_command(sys.executable, overlay, reqs)
    if NO_NETWORK.search(out):
        return (
            "tests-cuda: pip could not reach its package index from this machine (a compute node "
            f"without internet?). On a login node, with the same env and this folder on the "
            f"shared filesystem, run: {prepare} ; then run nox -s tests-cuda here again"
        )
    last = next((ln.strip() for ln in reversed(out.splitlines()) if "ERROR" in ln), "")
    return (
        f"tests-cuda: pip could not install the test tools ({last or f'exit {proc.returncode}'}"
        f"); run {prepare} yourself, then run nox -s tests-cuda again"
    )


# --- the warnings that describe the host ------------------------------------------------------


@dataclass(frozen=True)
class HostWarning:
    """A warning torch raises about the machine. `message` and `module` are regexes matched
    from the start, as `warnings.filterwarnings` does; `source` says where torch raises it."""

    message: str
    module: str
    source: str
    category: type[Warning] = UserWarning

    def matches(self, message: str, category: type[Warning], module: str) -> bool:
        return (
            issubclass(category, self.category)
            and re.match(self.message, message, re.I) is not None
            and re.match(self.module, module) is not None
        )


# Checked against the torch 2.13 sources. Every warning below passes stacklevel=2 (or comes from
# C++ through PyErr_WarnEx), so its module is the torch module that calls the warning function;
# except cuBLAS's, which names whatever Python line made a thread's first cuBLAS call.
HOST_WARNINGS = (
    HostWarning(
        r"Found GPU\d+ .* which is of compute capability \(CC\) ",
        r"torch\.cuda\Z",
        "torch/cuda/__init__.py, _check_capability → _warn_unsupported_code: the wheel has no "
        "kernels for this GPU (the 2.13 PyPI wheel is built for CUDA 13, sm_75 and newer)",
    ),
    HostWarning(
        r"\s*.* with CUDA capability sm_\d+ is not compatible with the current PyTorch",
        r"torch\.cuda\Z",
        "torch/cuda/__init__.py, _check_cubins: no kernel of this GPU's major version",
    ),
    HostWarning(
        r"PyTorch was compiled with an unknown compute capability",
        r"torch\.cuda\Z",
        "torch/cuda/__init__.py, _code_compatible_with_device",
    ),
    HostWarning(
        r"Can't (initialize NVML|get nvml device count|get device handle|get device UUID)",
        r"torch\.cuda\Z",
        "torch/cuda/__init__.py, _raw_device_count_nvml / _raw_device_uuid_nvml",
    ),
    HostWarning(
        r"CUDA initialization: ",
        r"torch\.cuda\Z",
        "c10/cuda/CUDAFunctions.cpp, device_count (TORCH_WARN), seen from torch.cuda",
    ),
    HostWarning(
        r"\s*There is an imbalance between your GPUs",
        r"torch\.nn\.parallel\.data_parallel\Z",
        "torch/nn/parallel/data_parallel.py, _check_balance: two GPUs differ by more than 25% "
        "in memory or SM count",
    ),
    HostWarning(
        r"This DataLoader will create \d+ worker processes in total\. Our suggested max",
        r"torch\.utils\.data\.dataloader\Z",
        "torch/utils/data/dataloader.py, check_worker_number_rationality: fewer CPUs than "
        "workers (a Slurm job gets one CPU unless it asks for --cpus-per-task)",
    ),
    HostWarning(
        r"Attempting to run cuBLAS, but there was no current CUDA context!",
        r"",  # any module: whichever Python line made a thread's first cuBLAS call
        "aten/src/ATen/cuda/CublasHandlePool.cpp, getCurrentCUDABlasHandle (TORCH_WARN_ONCE): "
        "a thread with no current CUDA context ran cuBLAS first, e.g. a matrix product in a "
        "backward pass on the autograd engine's thread (raised again from "
        "torch.autograd.graph) or in a DataParallel replica's thread",
    ),
)


def is_host_warning(message: str, category: type[Warning], module: str) -> bool:
    return any(w.matches(message, category, module) for w in HOST_WARNINGS)


def ignore_host_warnings() -> None:
    """Add an "ignore" filter for each host warning (call inside `warnings.catch_warnings()`)."""
    for w in HOST_WARNINGS:
        warnings.filterwarnings("ignore", w.message, w.category, w.module)


# --- what the machine has ---------------------------------------------------------------------


@dataclass
class Gpu:
    index: int
    name: str = "?"
    capability: tuple[int, int] | None = None
    memory: int | None = None  # bytes
    sms: int | None = None
    error: str | None = None

    def describe(self) -> str:
        if self.error:
            return f"GPU {self.index}: could not read its properties ({self.error})"
        cap = f"sm_{self.capability[0]}{self.capability[1]}" if self.capability else "sm_?"
        mem = f"{self.memory / 2**30:.1f} GiB" if self.memory is not None else "? GiB"
        return f"GPU {self.index}: {self.name}, {cap}, {mem}, {self.sms} SMs"


@dataclass
class Seen:
    """A warning raised while the probe started CUDA."""

    category: str
    module: str
    message: str
    host: bool

    def first_line(self) -> str:
        line = next((ln.strip() for ln in self.message.splitlines() if ln.strip()), "")
        return f"{self.category} from {self.module}: {line}"


@dataclass
class Host:
    python: str = platform.python_version()
    executable: str = sys.executable
    torch: str | None = None  # None: no torch in this env
    torch_cuda: str | None = None  # torch.version.cuda; None for a CPU-only build
    available: bool = False
    gpus: list[Gpu] = field(default_factory=list)
    arch_list: list[str] = field(default_factory=list)
    driver: str | None = None
    nvidia_smi: str | None = None  # its path, when on PATH
    visible: str | None = None  # CUDA_VISIBLE_DEVICES as set; None when unset
    order: str | None = None  # CUDA_DEVICE_ORDER
    init_error: str | None = None
    warnings: list[Seen] = field(default_factory=list)
    chosen: str | None = None  # why `nox -s tests-cuda` tests with this python, as it said

    def header(self) -> list[str]:
        """The lines the cuda tier prints before its tests, and writes into its report."""
        if self.torch is None:
            return [f"torch: not installed in {self.executable}"]
        build = f"built for CUDA {self.torch_cuda}" if self.torch_cuda else "CPU-only build"
        kernels = f" (kernels: {' '.join(self.arch_list)})" if self.arch_list else ""
        lines = [
            f"python {self.python} ({self.executable})",
            *([f"chosen by nox -s tests-cuda: {self.chosen}"] if self.chosen else []),
            f"torch {self.torch}, {build}{kernels}",
            f"driver: {self.driver or 'unknown'}"
            + ("" if self.nvidia_smi else " (nvidia-smi is not on PATH)"),
            f"CUDA_VISIBLE_DEVICES: {_shown(self.visible)}; "
            f"CUDA_DEVICE_ORDER: {_shown(self.order)}",
        ]
        if not self.available:
            lines.append("CUDA devices: none (torch.cuda.is_available() is False)")
        lines += [gpu.describe() for gpu in self.gpus]
        if self.init_error:
            lines.append(f"CUDA did not start: {self.init_error}")
        if self.warnings:
            lines += [
                f"{'host' if w.host else 'other'} warning at CUDA start: {w.first_line()}"
                for w in self.warnings
            ]
        elif self.available:
            lines.append("host warnings at CUDA start: none")
        return lines


def _shown(value: str | None) -> str:
    return "unset" if value is None else repr(value)


def driver_version(nvidia_smi: str | None) -> str | None:
    """The NVIDIA driver's version, from `nvidia-smi`; None when it cannot say."""
    if nvidia_smi is None:
        return None
    try:
        out = subprocess.run(
            [nvidia_smi, "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError) as err:
        return f"unknown (nvidia-smi failed: {err})"
    first = out.stdout.strip().splitlines()[:1]
    if out.returncode != 0 or not first:
        why = (out.stderr or out.stdout).strip().splitlines()[:1] or [f"exit {out.returncode}"]
        return f"unknown (nvidia-smi: {why[0]})"
    return first[0].strip()


def probe() -> Host:
    """Gather the facts. Where there is a GPU, start CUDA (and check DataParallel's balance on
    several GPUs) while recording warnings, so host warnings surface here, once, and not later
    inside a test. Never raises: what fails is reported."""
    host = Host(
        visible=os.environ.get("CUDA_VISIBLE_DEVICES"),
        order=os.environ.get("CUDA_DEVICE_ORDER"),
        nvidia_smi=shutil.which("nvidia-smi"),
        chosen=os.environ.get("KATAS_TESTS_CUDA_PYTHON"),
    )
    host.driver = driver_version(host.nvidia_smi)
    try:
        import torch
    except ImportError:
        return host
    host.torch, host.torch_cuda = torch.__version__, torch.version.cuda
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            host.available = torch.cuda.is_available()
            host.arch_list = list(torch.cuda.get_arch_list())
            if host.available:
                n = torch.cuda.device_count()
                host.gpus = [Gpu(i) for i in range(n)]
                torch.cuda.init()
        except Exception as err:  # a broken driver is a fact to report, not a crash
            host.init_error = f"{type(err).__name__}: {err}"
        for gpu in host.gpus:
            try:
                props = torch.cuda.get_device_properties(gpu.index)
                gpu.name, gpu.capability = props.name, (props.major, props.minor)
                gpu.memory, gpu.sms = props.total_memory, props.multi_processor_count
            except Exception as err:
                gpu.error = f"{type(err).__name__}: {err}"
    host.warnings = [
        Seen(w.category.__name__, _module_of(w), str(w.message), False) for w in caught
    ]
    for seen, w in zip(host.warnings, caught, strict=True):
        seen.host = is_host_warning(seen.message, w.category, seen.module)
    if len(host.gpus) >= 2 and host.init_error is None:
        # What DataParallel.__init__ checks on every wrap; called from here, its warning names
        # this module, so each one it raises is a host warning by construction.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                # The module, not the function torch.nn.parallel.data_parallel that shadows it.
                data_parallel = importlib.import_module("torch.nn.parallel.data_parallel")
                data_parallel._check_balance(list(range(len(host.gpus))))
            except Exception as err:
                host.init_error = f"{type(err).__name__}: {err}"
        host.warnings += [
            Seen(w.category.__name__, "torch.nn.parallel.data_parallel", str(w.message), True)
            for w in caught
        ]
    return host


def _module_of(w: warnings.WarningMessage) -> str:
    """The module name a filter would match, from the warning's file name."""
    path = Path(w.filename)
    parts = path.with_suffix("").parts
    for top in ("torch", "dojo", "tests"):
        if top in parts:
            names = list(parts[len(parts) - 1 - parts[::-1].index(top) :])
            if names[-1] == "__init__":
                names.pop()
            return ".".join(names)
    return path.stem


# --- the cuda-tier tests, read from the test files --------------------------------------------


@dataclass(frozen=True)
class CudaTest:
    """A test function with a cuda case. `cpu_twin`: the same body also runs on the CPU.
    `cases`: the ids its other parametrisations add to each cuda case's node id, as pytest
    writes them after the device's (`("dtype0", "dtype1")` for a `parametrize("dtype", [...])`
    of two torch dtypes); `("",)` when it has none. Each case is one test in pytest's count."""

    kata: str
    name: str
    line: int
    multi_gpu: bool
    cpu_twin: bool
    doc: str
    cases: tuple[str, ...] = ("",)


def _mark_names(node: ast.expr) -> list[str]:
    """`pytest.mark.cuda` or `pytest.mark.cuda(...)` → ["cuda"]; a list of marks → each."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [name for elt in node.elts for name in _mark_names(elt)]
    if isinstance(node, ast.Call):
        node = node.func
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
    ):
        return [node.attr]
    return []


def _device_kind(node: ast.expr) -> str:
    """The device type of a parametrised value ("cpu", "cuda", ...), or "?" when not literal."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("param", "device") and node.args:  # pytest.param(x, ...), torch.device(x)
            return _device_kind(node.args[0])
        return "?"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.partition(":")[0]
    return "?"


def _parametrized_devices(func: ast.FunctionDef) -> set[str] | None:
    """The device kinds a `parametrize("device", ...)` gives `func`; None when it has none."""
    for deco in func.decorator_list:
        if not (isinstance(deco, ast.Call) and "parametrize" in _mark_names(deco)):
            continue
        if len(deco.args) < 2 or not isinstance(deco.args[0], ast.Constant):
            continue
        names = [n.strip() for n in str(deco.args[0].value).split(",")]
        if "device" not in names:
            continue
        at = names.index("device")
        values = deco.args[1]
        if not isinstance(values, (ast.List, ast.Tuple)):
            return {"?"}
        kinds = set()
        for value in values.elts:
            if len(names) > 1:
                if isinstance(value, ast.Call) and _mark_names(value) == []:  # pytest.param
                    value = value.args[at] if len(value.args) > at else value
                elif isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) > at:
                    value = value.elts[at]
            kinds.add(_device_kind(value))
        return kinds
    return None


def _value_id(node: ast.expr, argname: str, index: int) -> str:
    """pytest's id for one parametrised value: a str, number, bool or None written in the
    call is its own id; any other object gets `<argname><index>` (torch.float32: `dtype0`)."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
        return str(node.value)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return str(node.value)
    return f"{argname}{index}"


def _case_ids(func: ast.FunctionDef) -> tuple[str, ...]:
    """The ids the function's parametrisations other than `device` give its cases, composed
    as pytest composes stacked decorators (the one nearest the function first, joined by
    "-"); `("",)` when it has none. A list of values not written in the call counts as one
    case whose id is "?": its cases cannot be read from the file."""
    ids = [""]
    for deco in reversed(func.decorator_list):
        if not (isinstance(deco, ast.Call) and "parametrize" in _mark_names(deco)):
            continue
        if len(deco.args) < 2 or not isinstance(deco.args[0], ast.Constant):
            continue
        names = [n.strip() for n in str(deco.args[0].value).split(",")]
        if "device" in names:
            continue
        values = deco.args[1]
        given = next((k.value for k in deco.keywords if k.arg == "ids"), None)
        if not isinstance(values, ast.List | ast.Tuple):
            here = ["?"]
        elif isinstance(given, ast.List | ast.Tuple) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in given.elts
        ):
            here = [e.value for e in given.elts]
        else:
            here = []
            for index, value in enumerate(values.elts):
                if isinstance(value, ast.Call) and getattr(value.func, "attr", None) == "param":
                    named = [k.value for k in value.keywords if k.arg == "id"]
                    if named and isinstance(named[0], ast.Constant):
                        here.append(str(named[0].value))
                        continue
                    parts = value.args
                elif len(names) > 1 and isinstance(value, ast.Tuple | ast.List):
                    parts = value.elts
                else:
                    parts = [value]
                here.append(
                    "-".join(_value_id(v, n, index) for v, n in zip(parts, names, strict=False))
                )
        ids = [f"{a}-{b}" if a else b for a in ids for b in here]
    return tuple(ids)


def _drawn(func: ast.FunctionDef) -> set[str]:
    """Arguments that hypothesis draws (`@given(device=...)`): not fixtures."""
    return {
        kw.arg
        for deco in func.decorator_list
        if isinstance(deco, ast.Call)
        and (getattr(deco.func, "id", None) or getattr(deco.func, "attr", None)) == "given"
        for kw in deco.keywords
        if kw.arg
    }


def cuda_tests(kata: _catalogue.Kata) -> list[CudaTest]:
    """The kata's tests that have a cuda case: those taking the `device` fixture (whose cuda
    case is marked `cuda`), those marked `cuda`, and those parametrised onto a cuda device."""
    return list(_cuda_tests(kata.name, kata.tests, kata.tests.stat().st_mtime_ns))


@functools.lru_cache(maxsize=64)
def _cuda_tests(name: str, path: Path, _mtime_ns: int) -> tuple[CudaTest, ...]:
    """Parsed once per version of the file: the site's build and `doctor` ask for every kata."""
    tree = ast.parse(path.read_text(), filename=str(path))
    module_marks: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            module_marks += _mark_names(node.value)
    found = []

    def visit(body: list[ast.stmt], marks: list[str]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                class_marks = [m for d in node.decorator_list for m in _mark_names(d)]
                visit(node.body, marks + class_marks)
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if not node.name.startswith("test"):
                continue
            names = marks + [m for d in node.decorator_list for m in _mark_names(d)]
            args = {a.arg for a in node.args.args + node.args.kwonlyargs} - _drawn(node)
            devices = _parametrized_devices(node)
            if devices is not None:
                cuda_case = "cuda" in devices or "?" in devices
                cpu_case = "cpu" in devices
            elif "device" in args:
                cuda_case = cpu_case = True
            else:
                cuda_case, cpu_case = "cuda" in names, False
            if cuda_case:
                found.append(
                    CudaTest(
                        kata=name,
                        name=node.name,
                        line=node.lineno,
                        multi_gpu="multi_gpu" in names,
                        cpu_twin=cpu_case,
                        doc=ast.get_docstring(node) or "",
                        cases=_case_ids(node),
                    )
                )

    visit(tree.body, module_marks)
    return tuple(found)


# --- the session's first step -----------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dojo.cuda_env", description="Plan nox -s tests-cuda for this env."
    )
    parser.add_argument("--plan", type=Path, help="write the JSON plan here")
    parser.add_argument(
        "--install", type=Path, metavar="RESULT", help="install REQ... into --overlay; write "
        "to RESULT the one line that says why it failed (empty when it worked)",
    )  # fmt: skip
    parser.add_argument("--overlay", help="the folder --install installs into")
    parser.add_argument("requirements", nargs="*", help="name==version, one per tool")
    args = parser.parse_args(argv)
    if args.install:
        if not args.overlay:
            parser.error("--install needs --overlay")
        why = install(args.overlay, args.requirements)
        args.install.write_text(why or "")
        return 3 if why else 0
    if not args.plan:
        parser.error("say --plan FILE or --install RESULT")
    result = plan(args.requirements)
    args.plan.write_text(json.dumps(result.__dict__, indent=1))
    return 3 if result.error else 0


if __name__ == "__main__":
    sys.exit(main())
