"""`nox -s tests-cuda` in the environments GPU hosts really have, checked on a CPU.

No GPU here: CUDA is faked at the `torch.cuda.is_available` level by a `sitecustomize.py` put
on PYTHONPATH (see FAKE_CUDA), which also prints noise and a warning at `import torch`, as real
hosts do. Every run with that fake passes `--collect-only`: no cuda test body ever runs on it.

- fast: the plan (which tools to install, and why), the requirement list against the imports;
- a few seconds each: the session here (fails in one line), the dry run in this venv, the host
  warning filters inside test modules that turn warnings into errors;
- slow (marked): a throwaway venv with no numpy, pytest 8 and torch borrowed from this venv.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from dojo import catalogue as _catalogue
from dojo import cuda_env

ROOT = _catalogue.ROOT
NOX = shutil.which("nox")
needs_nox = pytest.mark.skipif(NOX is None, reason="nox is not on PATH")

FAKE_CUDA = '''
"""Fake CUDA for a dry run: torch.cuda.is_available() is True, device_count() is 2.

Nothing may run on these GPUs: a run with this file on PYTHONPATH passes --collect-only."""
import importlib.abc
import sys
import warnings


class _PatchTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in ("torch", "torch.cuda"):
            return None
        for finder in sys.meta_path:
            spec = None if finder is self else finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        run = spec.loader.exec_module

        def exec_module(module):
            if name == "torch":  # what real hosts print at import torch, on both streams
                print("fake-cuda: noise on stdout at import torch")
                print("fake-cuda: noise on stderr at import torch", file=sys.stderr)
                warnings.warn("fake-cuda: a warning at import torch", UserWarning)
            run(module)
            if name == "torch.cuda":
                module.is_available = lambda: True
                module.device_count = lambda: 2

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _PatchTorch())
'''


def fake_cuda_dir(tmp_path: Path) -> Path:
    where = tmp_path / "fake-cuda"
    where.mkdir()
    (where / "sitecustomize.py").write_text(FAKE_CUDA)
    return where


def run_session(
    bin_dir: Path,
    *posargs: str,
    fake: Path | None = None,
    timeout: int = 300,
    path_first: Path | None = None,
    extra_env: dict[str, str] | None = None,
    nox: list[str] | None = None,
):
    """`nox -s tests-cuda -- POSARGS` with `bin_dir`'s python first on PATH, as if activated
    (`path_first` before it: a pyenv shim's folder); `extra_env` adds VIRTUAL_ENV and such;
    `nox` is how to start nox (default: the one on PATH)."""
    if fake is not None:
        assert "--collect-only" in posargs, "with fake CUDA, never run a cuda test body"
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", cuda_env.TOOLS_DIR)
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PATH"] = os.pathsep.join(
        str(p) for p in (path_first, bin_dir, env.get("PATH", "")) if p is not None
    )
    if fake is not None:
        env["PYTHONPATH"] = str(fake)
    env.update(extra_env or {})
    cmd = [*(nox or [NOX]), "-f", str(ROOT / "noxfile.py"), "-s", "tests-cuda"]
    return subprocess.run(
        [*cmd, "--", *posargs] if posargs else cmd,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def pyenv_shim(tmp_path: Path) -> Path:
    """A folder `shims/` holding `python`, a script like pyenv's shim that runs pyenv's own
    Python (the base interpreter of this venv, which has no torch). Returns the folder."""
    base = Path(getattr(sys, "_base_executable", "") or "")
    if not base.is_file() or base == Path(sys.executable):
        pytest.skip("this venv's base interpreter is not at hand")
    code = "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is not None)"
    if subprocess.run([base, "-c", code]).returncode != 0:
        pytest.skip(f"{base} has torch: it cannot stand for pyenv's own Python")
    shims = tmp_path / "shims"
    shims.mkdir()
    shim = shims / "python"
    shim.write_text(f'#!/usr/bin/env bash\nset -e\nexec "{base}" "$@"\n')
    shim.chmod(0o755)
    return shims


def expected_cuda_items() -> set[str]:
    """The cuda-tier node ids, from the test files (`cuda_env.cuda_tests`, read with ast)."""
    items = set()
    for kata in _catalogue.katas():
        for test in cuda_env.cuda_tests(kata):
            for case in test.cases:  # the device's id first, then its other parametrisations'
                parts = [p for p in ("cuda" if test.cpu_twin else "", case) if p]
                suffix = f"[{'-'.join(parts)}]" if parts else ""
                items.add(f"tests/test_{kata.name}.py::{test.name}{suffix}")
    return items


def collected(output: str) -> set[str]:
    return {line.strip() for line in output.splitlines() if re.match(r"tests/\S+::\S+$", line)}


# --- the plan ---------------------------------------------------------------------------------

PINS = ["hypothesis==6.170.15", "pytest==9.2.0", "pytest-xdist==3.8.0", "numpy==2.4.6"]


@pytest.mark.parametrize(
    ("have", "install"),
    [
        ({"hypothesis": "6.170.15", "pytest": "9.2.0", "pytest-xdist": "3.8.0"}, ["numpy"]),
        ({"numpy": "2.4.6", "pytest": "8.4.2", "hypothesis": "6.170.15"}, ["pytest", "xdist"]),
        (
            {"numpy": "1.26.4", "pytest": "9.0.0", "hypothesis": "6.99.0"},  # floor: 6.100
            ["hypothesis", "numpy", "xdist"],
        ),
        ({"numpy": "2.1.0", "pytest": "9.3.0", "hypothesis": "6.200.1", "pytest-xdist": "3.9"}, []),
        ({"numpy": "2.0.0", "pytest": "9.0.0", "hypothesis": "6.100.0", "pytest-xdist": "3.5"}, []),
    ],
    ids=["no numpy", "pytest 8", "old numpy and hypothesis", "newer is kept", "floors are kept"],
)
def test_plan_installs_the_missing_and_the_too_old(have, install):
    plan = cuda_env.plan_tools(PINS, installed=have.get, overlay="/o")
    got = sorted(re.sub(r"[=<>].*|pytest-", "", req) for req in plan.install)
    assert got == sorted(install), f"with {have}, planned to install {plan.install}"
    for req in plan.install:  # from the floor up to the pin: what this Python has nearest it
        name = re.split(r"[=<>]", req)[0]
        pin = next(p for p in PINS if p.startswith(f"{name}=="))
        floor = cuda_env.FLOORS[name][0]
        assert req == f"{name}>={floor},<={pin.partition('==')[2]}", req
    assert all(" into /o" in note for note in plan.notes[: len(plan.install)]), plan.notes
    if plan.install:
        assert "stay as they are" in plan.notes[-1], "says the env is left alone"
    assert len(plan.notes) == len(plan.install) + bool(plan.install), "says why for each"


def test_plan_says_why_pytest_8_is_too_old():
    plan = cuda_env.plan_tools(["pytest==9.2.0"], installed={"pytest": "8.4.2"}.get)
    assert plan.install == ["pytest>=9.0,<=9.2.0"]
    assert "[tool.pytest]" in plan.notes[0] and "8.4.2" in plan.notes[0]


def test_plan_refuses_a_requirement_without_a_pin():
    with pytest.raises(ValueError, match="numpy"):
        cuda_env.plan_tools(["numpy"], installed=lambda name: None)


@pytest.mark.parametrize(
    ("text", "want"),
    [("9.2.0", (9, 2, 0)), ("2.13.0+cu130", (2, 13, 0)), ("1.0rc1", (1, 0)), ("dev", ())],
)
def test_version_tuple(text, want):
    assert cuda_env.version_tuple(text) == want


def _local_module(name: str) -> list[Path]:
    """The repository's files that importing `name` runs: each package's __init__.py on the
    way, then the module; [] for a module from outside the repository."""
    parts, found = name.split("."), []
    for end in range(1, len(parts) + 1):
        base = ROOT.joinpath(*parts[:end])
        for path in (base / "__init__.py", base.with_suffix(".py")):
            if path.is_file():
                found.append(path)
    return found


def loaded_by_the_cuda_tier() -> list[Path]:
    """The repository's files `pytest -m cuda --impl reference` loads: conftest.py and the
    plugins it names, the test files it collects (tests/ but tool, which the session
    --ignores, mistakes, which only the verifier swaps in, and browser, in norecursedirs),
    every kata's reference (the harness imports them by name), and, from those, every local
    module they import, at the top or inside a function. A module of dojo/ that none of them
    imports (dojo/notebook.py, run by `nox -s notebook`) is not loaded."""
    conftest = ROOT / "conftest.py"
    plugins = [
        elt.value
        for node in ast.parse(conftest.read_text()).body
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", None) == "pytest_plugins" for t in node.targets)
        for elt in node.value.elts
    ]
    assert plugins, "conftest.py names no pytest_plugins: the harness would not load"
    todo = [conftest, *(p for name in plugins for p in _local_module(name))]
    todo += (ROOT / "reference").glob("*.py")
    todo += [
        path
        for path in (ROOT / "tests").rglob("*.py")
        if not {"mistakes", "tool", "browser"} & set(path.relative_to(ROOT).parts)
    ]
    seen: list[Path] = []
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.append(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            todo += [p for name in names for p in _local_module(name)]
    return sorted(seen)


def test_the_session_installs_everything_the_tests_import_except_torch():
    """Every third-party module imported by what `pytest -m cuda --impl reference` loads (all of
    tests/ but tests/tool, which the session ignores, is collected before -m deselects) comes
    from torch or from the session's list."""
    wanted = {re.split(r"[=<>]", r)[0].lower() for r in cuda_env.requirements()}
    assert "numpy" in wanted, "torch's wheel does not install numpy: the session must"
    noxfile = (ROOT / "noxfile.py").read_text()
    assert '"--ignore", "tests/tool"' in noxfile, "tests-cuda must leave the tool tests out"
    dists = importlib.metadata.packages_distributions()
    torch_deps = {"torch"} | {
        re.split(r"[ ;<>=!\[]", r)[0].lower()
        for r in importlib.metadata.requires("torch") or []
        if "extra ==" not in r
    }
    local = {"dojo", "tests", "reference", "katas", "conftest", "benchmarks", "__future__"}
    loaded = loaded_by_the_cuda_tier()
    assert {ROOT / "dojo" / "harness.py", ROOT / "dojo" / "cuda_env.py"} <= set(loaded), loaded
    missing = {}
    for path in loaded:
        tree = ast.parse(path.read_text())
        optional = {  # `try: import x / except ModuleNotFoundError:` (tomli on Python 3.10)
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.Try)
            and any(
                getattr(h.type, "id", None) in ("ImportError", "ModuleNotFoundError")
                for h in block.handlers
            )
            for stmt in block.body + [s for h in block.handlers for s in h.body]
            for node in ast.walk(stmt)
        }
        for node in ast.walk(tree):
            if id(node) in optional:
                continue
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top in local or top in sys.stdlib_module_names:
                    continue
                owners = {d.lower() for d in dists.get(top, [top])}
                if not owners & (wanted | torch_deps):
                    missing.setdefault(top, path.relative_to(ROOT))
    assert not missing, f"imported but not installed by tests-cuda: {missing}"


# --- the session on this machine --------------------------------------------------------------


@needs_nox
def test_the_session_stops_in_one_line_without_cuda():
    done = run_session(Path(sys.executable).parent)
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    last = out.strip().splitlines()[-1]
    assert "Session tests-cuda aborted: tests-cuda: torch" in last, out
    assert "torch.cuda.is_available() is False" in last, out
    assert "test session starts" not in out, "no test should run"


@needs_nox
def test_dry_run_with_fake_cuda_collects_the_cuda_tier_and_writes_a_report(tmp_path):
    plan = cuda_env.plan_tools(cuda_env.requirements())
    if plan.install:  # never install into the venv running these tests
        pytest.skip(f"this venv lacks {plan.install}; the slow test covers installing")
    report = tmp_path / "gpu-report.txt"
    done = run_session(
        Path(sys.executable).parent,
        "--collect-only", "-q", "--gpu-report", str(report),
        fake=fake_cuda_dir(tmp_path),
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "pip install" not in out and "Invalid requirement" not in out, out
    assert collected(done.stdout) == expected_cuda_items(), out
    text = report.read_text()
    for line in ("torch 2.13.0", "GPU 0:", "GPU 1:", "CUDA_VISIBLE_DEVICES: ", "driver: "):
        assert line in text, f"the report lacks {line!r}:\n{text}"
    assert f"== collected {len(expected_cuda_items())} tests (--collect-only) ==" in text


# --- which python: the activated env first, whatever pyenv put on PATH -------------------------


def fake_python(where: Path) -> Path:
    where.mkdir(parents=True)
    python = where / "python"
    python.write_text("")
    python.chmod(0o755)
    return python


def test_choose_python_prefers_the_activated_venv_then_conda_then_path(tmp_path):
    venv = fake_python(tmp_path / "venv" / "bin").parent.parent
    conda = fake_python(tmp_path / "conda" / "bin").parent.parent
    shim = fake_python(tmp_path / "pyenv" / "shims")
    environ = {"VIRTUAL_ENV": str(venv), "CONDA_PREFIX": str(conda), "PATH": str(shim.parent)}
    whys = [c.why for c in cuda_env.candidates(environ)]
    assert whys == [
        f"the activated venv ({venv})",
        f"the conda env ({conda})",
        "the first python on PATH (a pyenv shim)",
        "the python nox runs in",
    ]

    def torch_in(*names):
        return lambda python: any(Path(python).is_relative_to(tmp_path / n) for n in names)

    chosen, lines = cuda_env.choose_python(environ, torch_in("venv", "conda", "pyenv"))
    assert chosen.python == str(venv / "bin" / "python") and len(lines) == 1
    assert "testing with" in lines[0] and "the activated venv" in lines[0], lines

    chosen, lines = cuda_env.choose_python(environ, torch_in("conda", "pyenv"))
    assert chosen.python == str(conda / "bin" / "python"), "the venv has no torch: next is conda"
    assert "it has no torch" in lines[0] and "the conda env" in lines[1], lines

    chosen, lines = cuda_env.choose_python(environ, torch_in())
    assert chosen is None and len(lines) == 4
    error = cuda_env.no_torch_error(cuda_env.candidates(environ))
    assert all(str(c) in error for c in (venv, conda, shim)), error


@needs_nox
def test_a_pyenv_shim_first_on_path_does_not_hide_the_activated_venv(tmp_path):
    """nox installed through pyenv: its shim puts pyenv's own Python (no torch) first on PATH.
    The session tests with the activated venv's python, and says so in its log and report."""
    plan = cuda_env.plan_tools(cuda_env.requirements())
    if plan.install:  # never install into the venv running these tests
        pytest.skip(f"this venv lacks {plan.install}; the slow test covers installing")
    shims = pyenv_shim(tmp_path)
    report = tmp_path / "gpu-report.txt"
    done = run_session(
        shims, "--collect-only", "-q", "--gpu-report", str(report),
        fake=fake_cuda_dir(tmp_path),
        extra_env={"VIRTUAL_ENV": sys.prefix, cuda_env.TOOLS_DIR: str(tmp_path / "tools")},
    )  # fmt: skip
    out = done.stdout + done.stderr
    venv_python = Path(sys.prefix, "bin", "python")
    assert done.returncode == 0, out
    assert "has no torch" not in out, out
    assert f"testing with {venv_python}, the activated venv ({sys.prefix})" in out, out
    assert collected(done.stdout) == expected_cuda_items(), out
    chosen = f"chosen by nox -s tests-cuda: {venv_python}, the activated venv ({sys.prefix})"
    assert chosen in report.read_text(), report.read_text()


def test_without_an_activated_env_the_shim_is_passed_over_for_nox_own_python(tmp_path):
    """`.venv/bin/nox` run without activating: the shim's python has no torch, nox's has.
    Here nox runs in this test's own python, which has torch (nox -s tests installs nox into
    its venv for this): the nox on PATH may live in a venv of its own, as in CI."""
    if importlib.util.find_spec("nox") is None:
        pytest.skip("nox is not installed in this test's python (nox -s tests installs it)")
    shims = pyenv_shim(tmp_path)
    done = run_session(
        shims,
        extra_env={"PATH": f"{shims}{os.pathsep}/usr/bin:/bin"},
        nox=[sys.executable, "-m", "nox"],
    )
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    shim = f"not {shims / 'python'}, the first python on PATH (a pyenv shim): it has no torch"
    assert shim in out, out
    assert "the python nox runs in: it has torch" in out, out
    last = out.strip().splitlines()[-1]
    assert "torch.cuda.is_available() is False" in last, "it went on with nox's python"


def test_with_no_torch_anywhere_the_stop_names_every_python_it_tried(tmp_path):
    shim = fake_python(tmp_path / "shims")
    environ = {"PATH": str(shim.parent)}
    chosen, _ = cuda_env.choose_python(environ, lambda python: False)
    error = cuda_env.no_torch_error(cuda_env.candidates(environ))
    assert chosen is None and "\n" not in error
    assert error.startswith(f"tests-cuda: no torch in {shim} (the first python on PATH (a pyenv")
    assert f"{sys.executable} (the python nox runs in)" in error
    assert "activate the env that holds your CUDA build of torch" in error


# --- no internet: a compute node ---------------------------------------------------------------

NO_INDEX = {  # pip's index at a port where nothing listens: what a node without internet sees
    "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
    "PIP_EXTRA_INDEX_URL": "",
    "PIP_FIND_LINKS": "",
    "PIP_CONFIG_FILE": os.devnull,
    "PIP_NO_CACHE_DIR": "1",
}


def test_install_without_network_says_how_to_prepare_on_a_login_node(tmp_path, monkeypatch):
    for name, value in NO_INDEX.items():
        monkeypatch.setenv(name, value)
    overlay = tmp_path / "tools"
    why = cuda_env.install(str(overlay), ["pytest>=9.0,<=9.2.0"])
    assert why is not None and "\n" not in why, why
    assert "could not reach its package index" in why and "login node" in why, why
    assert f"-m pip install --target {overlay} 'pytest>=9.0,<=9.2.0'" in why, why
    assert not (overlay / "pytest").exists()


def throwaway_venv(tmp_path: Path) -> tuple[Path, Path]:
    """A venv with no test tools and torch borrowed from this one: (its python, its site)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    borrow_torch(site, tmp_path / "borrowed")
    return python, site


@needs_nox
def test_session_without_network_stops_in_one_line_and_leaves_the_env_alone(tmp_path):
    python, site = throwaway_venv(tmp_path)
    before = sorted(os.listdir(site))
    tools = tmp_path / "tools"
    done = run_session(
        python.parent, "--collect-only", fake=fake_cuda_dir(tmp_path),
        extra_env={**NO_INDEX, "VIRTUAL_ENV": str(python.parent.parent),
                   cuda_env.TOOLS_DIR: str(tools)},
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    last = out.strip().splitlines()[-1]
    assert "aborted: tests-cuda: pip could not reach its package index" in last, out
    assert "On a login node" in last and f"--target {tools}/" in last, last
    assert "test session starts" not in out, "no test should run"
    assert sorted(os.listdir(site)) == before, "the env must be left as it was"


# --- host warnings inside test modules that make warnings errors -------------------------------

HOST_WARNING_TESTS = '''
import ctypes
import importlib
import warnings
from types import SimpleNamespace
from unittest import mock

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# The module: `torch.nn.parallel.data_parallel` as an attribute is a function of that name.
data_parallel = importlib.import_module("torch.nn.parallel.data_parallel")

pytestmark = pytest.mark.filterwarnings("error")


def old_gpu(capability=(6, 0), arch=("sm_75", "sm_80", "sm_90")):
    """torch's own checks, fed a machine with one old GPU. No CUDA call is made."""
    return mock.patch.multiple(
        torch.cuda,
        is_available=lambda: True,
        device_count=lambda: 1,
        get_arch_list=lambda: list(arch),
        get_device_capability=lambda d=None: capability,
        get_device_name=lambda d=None: "Tesla P100-PCIE-16GB",
    )


def from_torch_cuda(check):
    """Call `check` as torch.cuda._lazy_init does: from a frame of module torch.cuda (these
    checks warn with stacklevel=2, so the caller's module is the warning's)."""
    exec("check()", {"__name__": "torch.cuda", "check": check})


def capability():
    with mock.patch.object(torch.version, "cuda", "13.0"), old_gpu():
        from_torch_cuda(torch.cuda._check_capability)


def cubins():
    with mock.patch.object(torch.version, "cuda", "13.0"), old_gpu():
        from_torch_cuda(torch.cuda._check_cubins)


def unknown_capability():
    arch = ("sm_77", "sm_80")  # 7.7 first: any() stops at the first code the GPU can run
    with mock.patch.object(torch.version, "cuda", "13.0"), old_gpu((8, 0), arch):
        from_torch_cuda(torch.cuda._check_capability)


class NoNvml:
    def __init__(self, name):
        pass

    def nvmlInit(self):
        return 1


def nvml():
    with mock.patch.object(ctypes, "CDLL", NoNvml):
        assert torch.cuda._device_count_nvml() == -1


def cuda_initialization():  # TORCH_WARN in C++, raised by PyErr_WarnEx from torch.cuda
    warnings.warn_explicit(
        "CUDA initialization: The NVIDIA driver on your system is too old (found version "
        "11040). (Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:119.)",
        UserWarning, "torch/cuda/__init__.py", 188, module="torch.cuda",
    )


def data_parallel_imbalance():
    big = SimpleNamespace(total_memory=80 * 2**30, multi_processor_count=132)
    small = SimpleNamespace(total_memory=16 * 2**30, multi_processor_count=56)
    with (
        mock.patch.multiple(torch.cuda, is_available=lambda: True, device_count=lambda: 2),
        mock.patch.object(data_parallel, "_get_devices_properties", lambda ids: [big, small]),
    ):
        nn.DataParallel(nn.Linear(2, 2), device_ids=[0, 1])  # builds only: nothing moves


def dataloader_workers():
    with mock.patch.object(torch._utils, "cpu_count", lambda: 1):
        DataLoader(TensorDataset(torch.zeros(4)), num_workers=2)  # no iteration: no fork


def cublas_without_context():  # TORCH_WARN_ONCE, raised again after a backward pass
    warnings.warn_explicit(
        "Attempting to run cuBLAS, but there was no current CUDA context! Attempting to set "
        "the primary context... (Triggered internally at "
        "/pytorch/aten/src/ATen/cuda/CublasHandlePool.cpp:370.)",
        UserWarning, "torch/autograd/graph.py", 841, module="torch.autograd.graph",
    )


def same_text_from_the_code_under_test():
    warnings.warn("CUDA initialization: raised by the code under test", UserWarning)


def another_torch_cuda_warning():
    warnings.warn_explicit("something else", UserWarning, "x.py", 1, module="torch.cuda")


HOST = [capability, cubins, unknown_capability, nvml, cuda_initialization,
        data_parallel_imbalance, dataloader_workers, cublas_without_context]
NOT_HOST = [same_text_from_the_code_under_test, another_torch_cuda_warning]
each = pytest.mark.parametrize("scenario", HOST + NOT_HOST, ids=lambda f: f.__name__)


@pytest.mark.cuda
@each
def test_cuda_tier(scenario):
    scenario()


@each
def test_cpu_tier(scenario):
    scenario()
'''


def test_host_warnings_are_ignored_only_in_cuda_tests_and_only_from_torch(tmp_path):
    """Each host scenario warns (the cpu tier, which keeps warnings as errors, fails on it)
    and is ignored in the cuda tier; other warnings fail both tiers."""
    (tmp_path / "conftest.py").write_text(
        'pytest_plugins = ["dojo.host"]\n\n\ndef pytest_configure(config):\n'
        '    config.addinivalue_line("markers", "cuda: the cuda tier")\n'
    )
    (tmp_path / "test_host_warnings.py").write_text(HOST_WARNING_TESTS)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    junit = tmp_path / "results.xml"
    pytest_cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist"]
    done = subprocess.run(
        [*pytest_cmd, "-q", f"--junitxml={junit}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    outcomes = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        tier, scenario = re.fullmatch(r"test_(\w+)_tier\[(\w+)\]", case.get("name")).groups()
        failure = case.find("failure")
        outcomes[tier, scenario] = (
            "PASSED" if failure is None else f"FAILED - {failure.get('message').split(':')[0]}"
        )
    host = [
        "capability", "cubins", "unknown_capability", "nvml", "cuda_initialization",
        "data_parallel_imbalance", "dataloader_workers", "cublas_without_context",
    ]  # fmt: skip
    not_host = ["same_text_from_the_code_under_test", "another_torch_cuda_warning"]
    want = {("cuda", s): "PASSED" for s in host}
    want |= {("cpu", s): "FAILED - UserWarning" for s in host + not_host}
    want |= {("cuda", s): "FAILED - UserWarning" for s in not_host}
    assert outcomes == want, done.stdout


def test_every_host_warning_matches_its_message_only_from_its_module():
    """One real message per entry of HOST_WARNINGS (the texts of the torch 2.13 sources)."""
    examples = [
        ("Found GPU0 Tesla P100-PCIE-16GB which is of compute capability (CC) 6.0.", "torch.cuda"),
        (
            "\nTesla P100 with CUDA capability sm_60 is not compatible with the current PyTorch "
            "installation.",
            "torch.cuda",
        ),
        ("PyTorch was compiled with an unknown compute capability 7.7.", "torch.cuda"),
        ("Can't initialize NVML", "torch.cuda"),
        ("CUDA initialization: The NVIDIA driver on your system is too old", "torch.cuda"),
        (
            "\n    There is an imbalance between your GPUs. You may",
            "torch.nn.parallel.data_parallel",
        ),
        (
            "This DataLoader will create 2 worker processes in total. Our suggested max number "
            "of worker in current system is 1",
            "torch.utils.data.dataloader",
        ),
        (
            "Attempting to run cuBLAS, but there was no current CUDA context! Attempting to set "
            "the primary context...",
            "torch.autograd.graph",
        ),
    ]
    for w, (message, module) in zip(cuda_env.HOST_WARNINGS, examples, strict=True):
        assert w.matches(message, UserWarning, module), f"{w.message!r} misses {message!r}"
        for elsewhere in ("tests.test_data_parallel", "torch.cuda.memory", "reference.x"):
            # The cuBLAS warning names whichever line made the thread's first cuBLAS call.
            anywhere = w.module == ""
            assert w.matches(message, UserWarning, elsewhere) is anywhere, (w.message, elsewhere)
        assert not w.matches(message, DeprecationWarning, module), w.message


def test_say_call_blames_the_learner_for_their_warnings_not_for_the_machines():
    """A kata call that makes torch warn about the machine (here an old GPU, as torch.cuda
    warns it) must not fail as if the learner's code had warned; any other warning must."""
    import warnings

    from _pytest.outcomes import Failed

    from tests.support import Say

    say = Say("tests.test_device_selection")

    def warns(message: str, module: str) -> str:
        warnings.warn_explicit(message, UserWarning, "x.py", 1, module=module)
        return "done"

    old_gpu = "Found GPU0 Tesla P100-PCIE-16GB which is of compute capability (CC) 6.0."
    assert say.call("try_gpu()", warns, old_gpu, "torch.cuda", hint=1) == "done"
    with pytest.raises(Failed, match=r"device_selection\.try_gpu\(\) warned UserWarning: Found"):
        say.call("try_gpu()", warns, old_gpu, "katas.device_selection", hint=1)


# --- a throwaway venv: no numpy, pytest 8, torch borrowed -------------------------------------

# torch and what `import torch` needs, linked from this venv instead of installed (1 GB), and
# pip (ensurepip would cost more than everything else here).
TORCH_RUNTIME = ("torch", "filelock", "typing_extensions", "sympy", "mpmath", "networkx")
TORCH_RUNTIME += ("jinja2", "markupsafe", "fsspec", "pip")


def borrow_torch(site: Path, into: Path) -> None:
    """Symlink torch and its runtime from this venv into `into`, and put `into` on the new
    venv's path with a .pth file in its `site`."""
    into.mkdir()
    for name in TORCH_RUNTIME:
        dist = importlib.metadata.distribution(name)
        tops = {Path(f).parts[0] for f in dist.files or []} - {"..", "__pycache__"}
        for top in tops:
            source = Path(dist.locate_file(top))
            if source.exists() and not (into / top).exists():
                (into / top).symlink_to(source)
    (site / "_borrowed_torch.pth").write_text(f"{into}\n")


@pytest.mark.slow
@needs_nox
def test_session_leaves_a_numpy_1_env_as_it_was_and_tests_with_an_overlay(tmp_path):
    """A conda-like env with numpy 1.26.4 and pytest 8.4.2, both older than the tests need: the
    session installs newer ones into the overlay, runs with it first on PYTHONPATH, and the
    env's own packages are the same afterwards."""
    python, site = throwaway_venv(tmp_path)
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "numpy==1.26.4", "pytest==8.4.2"],
        check=True,
        timeout=300,
    )
    versions = "import numpy, pytest; print(numpy.__version__, pytest.__version__)"

    def env_versions():
        done = subprocess.run([python, "-c", versions], capture_output=True, text=True)
        return done.stdout.split()

    before, listing = env_versions(), sorted(os.listdir(site))
    assert before == ["1.26.4", "8.4.2"], before

    tools = tmp_path / "tools"
    report = tmp_path / "gpu-report.txt"
    args = ("--collect-only", "-q", "--gpu-report", str(report))
    fake = fake_cuda_dir(tmp_path)
    venv_env = {"VIRTUAL_ENV": str(python.parent.parent), cuda_env.TOOLS_DIR: str(tools)}
    first = run_session(python.parent, *args, fake=fake, extra_env=venv_env)
    out = first.stdout + first.stderr
    assert first.returncode == 0, out
    assert "numpy 1.26.4 is too old (the tests use numpy.lib.array_utils" in out, out
    assert "pytest 8.4.2 is too old" in out and "stay as they are" in out, out
    assert "Invalid requirement" not in out, out
    assert collected(first.stdout) == expected_cuda_items(), out
    assert "GPU 1:" in report.read_text()

    assert env_versions() == before, "the env's numpy and pytest must be left as they were"
    assert sorted(os.listdir(site)) == listing, "nothing may be added to the env's site-packages"
    (overlay,) = tools.iterdir()
    seen = subprocess.run(
        [python, "-c", versions],
        env={**os.environ, "PYTHONPATH": str(overlay)},
        capture_output=True,
        text=True,
    ).stdout.split()
    assert seen == ["2.4.6", "9.2.0"], f"the run saw {seen} through the overlay"

    # The plan again (a second session would pay the collection again): the overlay counts.
    again = tmp_path / "again.json"
    subprocess.run(
        [python, "-m", "dojo.cuda_env", "--plan", str(again), *cuda_env.requirements()],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(fake), cuda_env.TOOLS_DIR: str(tools)},
        capture_output=True,
        timeout=300,
    )
    plan = json.loads(again.read_text())
    assert (plan["error"], plan["install"]) == (None, []), plan


def test_plan_file_is_json_the_session_can_read(tmp_path):
    import torch

    plan_file = tmp_path / "plan.json"
    code = cuda_env.main(["--plan", str(plan_file), "pytest==9.2.0"])
    plan = json.loads(plan_file.read_text())
    assert set(plan) == {"error", "install", "notes", "overlay"}
    if torch.cuda.is_available():
        assert code == 0 and plan["error"] is None, plan
    else:
        assert code == 3 and plan["error"].startswith("tests-cuda: torch "), plan


# --- the cuda tests, as read from the files ---------------------------------------------------

PARSED = '''
import pytest
import torch
from hypothesis import given, strategies as st


@pytest.mark.cuda
@pytest.mark.multi_gpu
def test_marked(kata):
    """No CPU twin: a reason."""


def test_fixture(kata, device): ...


@given(device=st.sampled_from(["cuda"]))
def test_drawn(kata, device): ...


@pytest.mark.parametrize("device", ["cuda:0", pytest.param("cuda:1", marks=pytest.mark.slow)])
def test_cuda_only(device): ...


@pytest.mark.parametrize("x, device", [(1, "cpu"), (2, torch.device("cuda", 0))])
def test_both(x, device): ...


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_no_cuda(device): ...


@pytest.mark.parametrize("device", DEVICES)
def test_not_literal(device): ...


def test_plain(kata): ...


@pytest.mark.parametrize("n", [1, pytest.param(2, id="two")])
@pytest.mark.parametrize("dtype", [torch.float32, "half"])
def test_cases(kata, device, dtype, n): ...


def helper(device): ...


class TestGroup:
    @pytest.mark.multi_gpu
    def test_method(self, device): ...
'''


def test_cuda_tests_reads_marks_fixtures_and_parametrisations(tmp_path):
    from types import SimpleNamespace

    path = tmp_path / "test_x.py"
    path.write_text(PARSED)
    found = {t.name: t for t in cuda_env.cuda_tests(SimpleNamespace(name="x", tests=path))}
    want = {  # name: (multi_gpu, cpu_twin)
        "test_marked": (True, False),
        "test_fixture": (False, True),
        "test_cuda_only": (False, False),
        "test_both": (False, True),
        "test_not_literal": (False, False),  # cannot tell: counted, and asked for a reason
        "test_method": (True, True),
        "test_cases": (False, True),
    }
    assert {n: (t.multi_gpu, t.cpu_twin) for n, t in found.items()} == want
    # as pytest names them after the device's id: test_cases[cuda-dtype0-1], ...
    assert found["test_cases"].cases == ("dtype0-1", "dtype0-two", "half-1", "half-two")
    assert found["test_fixture"].cases == found["test_both"].cases == ("",)
    assert found["test_marked"].doc == "No CPU twin: a reason."
    path.write_text("import pytest\npytestmark = [pytest.mark.cuda]\n\ndef test_a(kata): ...\n")
    module_marked = cuda_env.cuda_tests(SimpleNamespace(name="x", tests=path))
    assert [(t.name, t.cpu_twin) for t in module_marked] == [("test_a", False)]


# --- what the README's GPU hosts section claims ----------------------------------------------

# Each kata with multi_gpu tests, and the words the README uses for what they check.
README_MULTI_GPU = {
    "copy_semantics": 'bare `"cuda"` meaning the current GPU',
    "data_parallel": "`DataParallel` across two GPUs",
    "distributed": "the two-rank `distributed` run",
}


def readme_gpu_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## GPU hosts")
    return " ".join(text[start : text.index("\n## ", start + 1)].split())


def test_readme_names_every_kind_of_multi_gpu_test():
    katas = {k.name for k in _catalogue.katas() if any(t.multi_gpu for t in cuda_env.cuda_tests(k))}
    assert katas == set(README_MULTI_GPU), "say in README's GPU hosts section what they check"
    section = readme_gpu_section()
    for words in README_MULTI_GPU.values():
        assert words in section, words


def test_readme_gpu_section_states_the_floors_the_code_uses():
    from dojo import doctor

    section = readme_gpu_section()
    assert f"pytest {cuda_env.FLOORS['pytest'][0].split('.')[0]}," in section
    assert f"numpy {cuda_env.FLOORS['numpy'][0].split('.')[0]})" in section
    assert f"needs NVIDIA driver {doctor.DRIVER_FLOORS[13]} or newer" in section
    assert "torch 2.13.0 is the CUDA 13.0 build" in section and cuda_env.TORCH_PIN == "2.13.0"
    assert "`$VIRTUAL_ENV`), else the conda env (`$CONDA_PREFIX`), else the first `python`" in (
        section
    ), "the order cuda_env.candidates looks in"
