"""Python 3.10 on a GPU host: torch 2.13 ships 3.10 wheels, and the user's env runs
`nox -s tests-cuda`, `python -m katas doctor` and the first hop of `python -m katas`.

- `dojo/_toml.py` reads TOML without 3.11's `tomllib`: with tomli, which `nox -s tests-cuda`
  puts in its overlay, or pip's copy of it; with neither, a sentence says what to install.
- With a real 3.10 interpreter (pyenv's, or `python3.10` on PATH; skipped when there is none)
  and no torch: the doctor reports, and the first hop stops in one line.
"""

from __future__ import annotations

import ast
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dojo import catalogue as _catalogue
from dojo.sandbox import copy_repo

ROOT = _catalogue.ROOT


def python310() -> str | None:
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.10.*/bin/python3.10")))
    return found[-1] if found else shutil.which("python3.10")


PY310 = python310()
needs_310 = pytest.mark.skipif(PY310 is None, reason="no Python 3.10 here (pyenv or PATH)")


def run_310(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """`python3.10 ARGS` in the repository, as a user's env would run it: no venv, no nox."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = "/usr/bin:/bin"  # no nox, no torch-holding python
    return subprocess.run(
        [PY310, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A copy of the repository without .nox/: this checkout may have a learn venv (after
    `nox -s learn`), and `python -m katas` would switch to it."""
    return copy_repo(tmp_path / "repo")


# --- reading TOML without tomllib -------------------------------------------------------------


def test_without_tomllib_tests_cuda_puts_tomli_in_the_overlay(monkeypatch):
    """On Python 3.10 the cuda tier reads the catalogue with tomli: the plan asks for it."""
    import importlib.util

    import torch

    from dojo import cuda_env

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "tomllib" else real(name, *a)
    )
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    asked = []
    monkeypatch.setattr(
        cuda_env, "plan_tools", lambda reqs, **k: asked.extend(reqs) or cuda_env.Plan()
    )
    cuda_env.plan(["pytest==9.2.0"])
    assert asked == ["pytest==9.2.0", cuda_env.TOMLI], asked
    name, floor, _why = cuda_env.wanted(cuda_env.TOMLI)
    assert name == "tomli" and floor.startswith("2"), "tomli 2 reads a binary file, as we open it"


# --- a real Python 3.10 -----------------------------------------------------------------------


READ_ALL = (
    "import importlib.util as u; from dojo import _toml, catalogue, cuda_env, requirements; "
    "print(u.find_spec('tomllib') is None, _toml._parser.__name__, len(catalogue.katas()), "
    "cuda_env.requirements(), "
    "requirements.learn() == requirements.group('test') + requirements.group('learn'))"
)


def _read_all_as_here(done: subprocess.CompletedProcess, parser: str) -> None:
    from dojo import cuda_env

    assert done.returncode == 0, done.stderr
    no_tomllib, used, count, rest = done.stdout.split(" ", 3)
    assert no_tomllib == "True", "this interpreter has tomllib: it is not a 3.10"
    assert used == parser
    assert int(count) == len(_catalogue.katas())
    assert rest.strip() == f"{cuda_env.requirements()} True"


@needs_310
def test_310_reads_the_catalogue_and_pyproject_with_pips_tomli_when_it_has_no_other():
    _read_all_as_here(run_310("-c", READ_ALL), "pip._vendor.tomli")


@needs_310
def test_310_reads_them_with_tomli_as_the_overlay_carries_it(tmp_path):
    """tomli on PYTHONPATH, as `nox -s tests-cuda` puts its overlay: here pip's copy of it,
    copied as the package `tomli` (it is the same package; no download in a test)."""
    located = run_310("-c", "from pip._vendor import tomli; print(tomli.__path__[0])")
    assert located.returncode == 0, located.stderr
    shutil.copytree(located.stdout.strip(), tmp_path / "tomli")
    env_python = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
    _read_all_as_here(run_310("-c", env_python + READ_ALL), "tomli")


@needs_310
def test_310_with_no_toml_reader_at_all_says_so_in_one_line(clone):
    """No tomli and no pip: `python -m katas` says what to install, without a traceback."""
    code = (
        "import runpy, sys; sys.modules['pip'] = None; sys.modules['tomli'] = None; "
        "sys.argv = ['katas', 'list']; runpy.run_module('katas', run_name='__main__')"
    )
    done = run_310("-c", code, cwd=clone)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "has no TOML reader" in done.stderr and "pip install tomli" in done.stderr


@needs_310
def test_310_doctor_reports_without_torch(clone):
    done = run_310("-m", "katas", "doctor", cwd=clone)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "python -m katas doctor: what this machine can run" in done.stdout
    assert f"torch is not installed in {PY310}" in " ".join(done.stdout.split())


@needs_310
def test_310_first_hop_stops_in_one_line_without_torch_or_nox(clone):
    """`python -m katas list` with no torch looks for the learn venv, then for nox: here
    neither, so one line says what to do, without a traceback."""
    done = run_310("-m", "katas", "list", cwd=clone)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode != 0
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "this needs torch" in done.stderr and "nox -s learn" in done.stderr, done.stderr


def cuda_tier_sources() -> list[Path]:
    """What `nox -s tests-cuda` loads in the user's env: the root conftest, dojo/, reference/
    and tests/ but the tool tests (ignored), the browser tests and the mistake corpus."""
    files = [ROOT / "conftest.py", *ROOT.glob("dojo/*.py"), *ROOT.glob("reference/*.py")]
    files += ROOT.glob("tests/**/*.py")
    skip = {"tool", "browser", "mistakes"}
    return sorted(f for f in files if not skip & set(f.relative_to(ROOT).parts))


def unguarded_imports(path: Path) -> set[str]:
    """Top-level names of the modules `path` imports outside a `try: ... except ImportError`."""
    tree = ast.parse(path.read_text())
    guarded = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.Try)
        and any(
            getattr(h.type, "id", None) in ("ImportError", "ModuleNotFoundError")
            for h in block.handlers
        )
        for stmt in block.body
        for node in ast.walk(stmt)
    }
    names = set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            names |= {a.name.partition(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


@needs_310
def test_310_compiles_what_the_cuda_tier_loads_and_has_the_stdlib_it_imports():
    """No torch for 3.10 here, so the cuda tier cannot run on it: this checks what can fail
    before torch would matter. Every file compiles on 3.10, and every standard-library module
    imported unguarded exists in 3.10 (tomllib, new in 3.11, must be behind a try)."""
    files = cuda_tier_sources()
    code = (
        "import sys\n"
        "for path in sys.argv[1:]:\n"
        "    compile(open(path, encoding='utf-8').read(), path, 'exec')\n"
        "print(' '.join(sorted(sys.stdlib_module_names)))\n"
    )
    done = run_310("-c", code, *map(str, files))
    assert done.returncode == 0, done.stderr
    stdlib_310 = set(done.stdout.split())
    newer = sys.stdlib_module_names - stdlib_310  # this Python's stdlib, not 3.10's
    missing = {
        str(f.relative_to(ROOT)): sorted(unguarded_imports(f) & newer)
        for f in files
        if unguarded_imports(f) & newer
    }
    assert not missing, f"imports a module 3.10's standard library lacks: {missing}"
