"""Python 3.10 on a GPU host: torch 2.13 ships 3.10 wheels, and the user's env runs
`nox -s tests-cuda`, `python -m katas doctor` and the first hop of `python -m katas`.

- `dojo/_toml.py` reads TOML without 3.11's `tomllib`: checked against `tomllib` on every .toml
  file of the repository and on the constructs it claims to read.
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
import tomllib
from pathlib import Path

import pytest

from dojo import _toml
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


# --- the reader -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    sorted(p.relative_to(ROOT) for p in ROOT.rglob("*.toml") if ".nox" not in p.parts),
    ids=str,
)
def test_reader_reads_every_toml_file_of_the_repository_as_tomllib_does(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert _toml._Reader(text).document() == tomllib.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        'a = """\nfirst\\\n   second""""',
        "a = '''\nraw \\n kept''''",
        'a = [1, 2.5, -3, 0x1F, 1e3, true, false, "\\u00e9\\t", { x.y = 1, "z" = [] }]',
        '[t."spaced key"]\nd = 1 # comment\n[[t.arr]]\ne = 1\n[[t.arr]]\n[t.arr.sub]\nf = 2',
        "a = [\n  'x',  # comment in an array\n  'y',\n]\nb.c = 1_000",
    ],
    ids=["multi-line basic", "multi-line literal", "values", "tables", "arrays over lines"],
)
def test_reader_agrees_with_tomllib(text):
    assert _toml._Reader(text).document() == tomllib.loads(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("a = 1979-05-27", "dates"),
        ("a = 1\na = 2", "defined twice"),
        ('a = "open', "unterminated"),
        ("a = 1 b = 2", "end of the line"),
    ],
)
def test_reader_refuses_what_it_cannot_read_naming_the_line(text, why):
    with pytest.raises(ValueError, match=why) as caught:
        _toml._Reader(text).document()
    assert "TOML line" in str(caught.value)


# --- a real Python 3.10 -----------------------------------------------------------------------


@needs_310
def test_310_has_no_tomllib_and_reads_the_catalogue_and_pyproject():
    code = (
        "import importlib.util as u; from dojo import _toml, catalogue, cuda_env, requirements; "
        "print(u.find_spec('tomllib') is None, len(catalogue.katas()), cuda_env.requirements(), "
        "requirements.learn() == requirements.group('test') + requirements.group('learn'))"
    )
    done = run_310("-c", code)
    assert done.returncode == 0, done.stderr
    from dojo import cuda_env

    no_tomllib, count, *rest = done.stdout.split(" ", 2)
    assert no_tomllib == "True", "this interpreter has tomllib: it is not a 3.10"
    assert int(count) == len(_catalogue.katas())
    assert rest[0].strip() == f"{cuda_env.requirements()} True"


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
