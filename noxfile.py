"""Sessions for learners, contributors, CI and GPU hosts. `nox` alone runs what CI runs.

Every session is a thin wrapper over `_pytest` or one command; dependencies come from the
[dependency-groups] in pyproject.toml, where torch is pinned to 2.13.0.

Venvs are made and filled by uv where it is installed (`pip install "nox[uv]"` brings it), else
by venv and pip. uv keeps one copy of each package in its cache and hardlinks it into every
venv: a session's venv is ready in seconds, and six venvs hold one torch on disk. uv reads
UV_* settings, not pip's: `_carry_pip_settings` carries the PIP_* index settings a learner may
have set (PIP_EXTRA_INDEX_URL for PyTorch's CPU build, PIP_FIND_LINKS) over to uv.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nox

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dojo import cuda_env as _cuda_env  # stdlib only at import
from dojo import requirements  # stdlib only: reads pyproject.toml

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|venv"  # uv where it is installed, else venv and pip
nox.options.sessions = [
    "tests", "stubs", "mistakes", "solutions", "first_attempts", "docs", "lint",
]  # fmt: skip

PYPROJECT = nox.project.load_toml("pyproject.toml")
# The newest torch release the cpu tier is known to pass on (`nox -s compat`, in CI). Pages and
# their output are checked against the pin, torch==2.13.0 in pyproject.toml.
NEWEST_TORCH = "2.15.0"
ENV = {
    "KATAS_HYPOTHESIS_PROFILE": os.environ.get(
        "KATAS_HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"
    ),
    "NO_MKDOCS_2_WARNING": "1",
}


@contextlib.contextmanager
def _compiled(session: nox.Session, keep: bool = False) -> Iterator[dict[str, str]]:
    """ENV for commands in the session's venv, with bytecode on, kept in the venv's pycache/.

    uv installs no bytecode, so Python compiles every module it imports; with bytecode off,
    each forked check compiled torch's lazy imports again (the mistake corpus took 106-123 s
    against 42-46 s). Here they are compiled once per session and shared by every child,
    never written into the repository. The folder (60-190 MB a session) is removed afterwards,
    since the venv is made afresh next time, unless `keep` (a venv that is reused).
    """
    pycache = Path(session.virtualenv.location) / "pycache"
    try:
        yield {**ENV, "PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(pycache)}
    finally:
        if not keep:
            shutil.rmtree(pycache, ignore_errors=True)


# pip's settings and uv's names for them. pip reads a list from whitespace; uv reads find-links
# separated by commas and index URLs by spaces.
_PIP_TO_UV = {
    "PIP_FIND_LINKS": ("UV_FIND_LINKS", ","),
    "PIP_EXTRA_INDEX_URL": ("UV_EXTRA_INDEX_URL", " "),
    "PIP_INDEX_URL": ("UV_INDEX_URL", " "),
}


def _carry_pip_settings(environ=os.environ) -> list[str]:
    """Set each UV_* setting from its PIP_* twin where only pip's is set; say which."""
    carried = []
    for pip_name, (uv_name, sep) in _PIP_TO_UV.items():
        if environ.get(pip_name, "").strip() and not environ.get(uv_name):
            environ[uv_name] = sep.join(environ[pip_name].split())
            carried.append(f"{uv_name} from {pip_name}")
    return carried


_CARRIED = _carry_pip_settings()


def _uses_uv(session: nox.Session) -> bool:
    return getattr(session.virtualenv, "venv_backend", "") == "uv"


def _install(session: nox.Session, *groups: str, silent: bool | None = None) -> None:
    session.install(*nox.project.dependency_groups(PYPROJECT, *groups), silent=silent)


def _announce(session: nox.Session, requirements: list[str]) -> None:
    """Before a first install, say what is coming: which torch build, and how heavy."""
    if _CARRIED:
        session.log("uv reads UV_* settings, not pip's: took " + ", ".join(_CARRIED))
    plan = ""
    if _uses_uv(session):
        python = Path(session.virtualenv.location) / "bin" / "python"
        plan = session.run(
            "uv", "pip", "install", "--dry-run", "--python", str(python), *requirements,
            silent=True, success_codes=[0, 1, 2], external=True,
        ) or ""  # fmt: skip
    torch = next((line.split("==", 1)[1] for line in plan.splitlines() if " torch==" in line), "")
    nvidia = sum(" nvidia-" in line for line in plan.splitlines())
    if nvidia:
        session.log(
            f"Installing torch {torch}, the CUDA build, with {nvidia} NVIDIA packages: several "
            "GB the first time. On a machine without an NVIDIA GPU, stop (Ctrl-C) and see the "
            "README's 'Set up' for the CPU-only build (about 190 MB)."
        )
    elif torch:
        session.log(f"Installing torch {torch} and the test tools (progress below).")
    else:
        session.log("Installing torch 2.13.0 and the test tools (progress below).")


def _pytest(session: nox.Session, *args: str, success_codes=(0,)) -> None:
    """pytest in the session's venv; `nox -s NAME -- ARGS` appends ARGS."""
    _install(session, "test")
    with _compiled(session) as env:
        session.run(
            "python",
            "-m",
            "pytest",
            *args,
            *session.posargs,
            env=env,
            success_codes=list(success_codes),
        )


@nox.session(reuse_venv=True)  # the learner loop: build the 1 GB torch venv once, not per run
def learn(session: nox.Session) -> None:
    """Your katas: watch them on a terminal, else list them; `-- COMMAND` runs that command."""
    # pip takes seconds even when nothing is missing: install only when pyproject changed.
    stamp = Path(session.virtualenv.location) / requirements.STAMP
    if not stamp.exists() or stamp.read_text() != requirements.stamp():
        _announce(session, requirements.learn())
        session.install(*requirements.learn(), silent=False)  # downloads and progress, shown
        stamp.write_text(requirements.stamp())
    on_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    command = session.posargs or (["watch"] if on_terminal else ["list"])
    # Bytecode caching stays on here: pytest caches its assertion rewrites, so checks are faster.
    env = {**ENV, "PYTHONDONTWRITEBYTECODE": ""}
    session.run("python", "-m", "katas", *command, env=env, success_codes=[0, 1])


@nox.session
def tests(session: nox.Session) -> None:
    """Run every cpu-tier test against the reference solutions, and the tool's own tests."""
    # learn: the tool tests drive `python -m katas watch`; bench: they redraw the benchmark charts
    _install(session, "learn", "bench")
    # A uv venv has no pip; the tool tests build GPU hosts' envs (tests-cuda runs pip in them)
    # from this one's packages, and run nox from this python, one with torch, as a GPU host's
    # `.venv/bin/nox` runs.
    session.install("pip", "nox==2026.10.20")
    # Three xdist workers on CI's 2 cores: many tool tests wait on the processes they start
    # (a time limit, a watch), and a third worker fills that time. Measured on 2 cores,
    # alternated, medians of 3: 83.7 s against 94.0 s with two.
    _pytest(session, "--impl", "reference", "-m", "cpu", "-n", "3")


@nox.session
def stubs(session: nox.Session) -> None:
    """Check that `given` tests pass on the stubs and every other kata test fails unwritten.

    Unwritten: with NotImplementedError; a stub that is a program to fix fails with an
    assertion or NotImplementedError, and with an assertion on its pitfall's test."""
    _install(session, "test")
    with _compiled(session) as env:
        session.run("python", "-m", "dojo.verify", "stubs", env=env)


@nox.session
def mistakes(session: nox.Session) -> None:
    """Check that the tests reject every wrong solution in tests/mistakes/."""
    _install(session, "test")
    with _compiled(session) as env:
        session.run("python", "-m", "dojo.verify", "mistakes", env=env)


@nox.session
def solutions(session: nox.Session) -> None:
    """Check that every correct solution in tests/solutions/ passes its kata's whole cpu tier."""
    _install(session, "test")
    with _compiled(session) as env:
        session.run("python", "-m", "dojo.verify", "solutions", env=env)


@nox.session(name="first_attempts")
def first_attempts(session: nox.Session) -> None:
    """Check that every first attempt in tests/first_attempts/ fails with its lesson's message.

    Each fails its kata's pitfall test, with an assertion whose message holds the phrase the
    attempt's docstring names (`Message:`)."""
    _install(session, "test")
    with _compiled(session) as env:
        session.run("python", "-m", "dojo.verify", "first_attempts", env=env)


@nox.session
def compat(session: nox.Session) -> None:
    """The cpu tier against the reference on another torch: `-- VERSION [PYTEST ARGS]`
    (default: NEWEST_TORCH). On Linux, PyPI's torch is the CUDA build: several GB, once."""
    version, *rest = session.posargs or [NEWEST_TORCH]
    torch_pin = [r for r in nox.project.dependency_groups(PYPROJECT, "torch") if "torch" not in r]
    session.install(
        f"torch=={version}", *torch_pin, *nox.project.dependency_groups(PYPROJECT, "test-tools")
    )
    session.run("python", "-c", "import torch; print('torch', torch.__version__)")
    # tests/tool tests the tool and its pinned environment, not torch's behaviour.
    with _compiled(session) as env:
        session.run(
            "python", "-m", "pytest", "--impl", "reference", "-m", "cpu", "-n", "2",
            "--ignore", "tests/tool", *rest, env=env,
        )  # fmt: skip


@nox.session(name="tests-cuda", venv_backend="none")
def tests_cuda(session: nox.Session) -> None:
    """GPU hosts: the cuda tier against the reference, with the CUDA torch you already have.

    Runs in your environment (no venv): the activated venv ($VIRTUAL_ENV), else the conda env
    ($CONDA_PREFIX), else the first python on PATH, whichever first has torch; it says which.
    It never installs torch and never changes your env's packages: the test tools and numpy
    your env lacks, or has too old, go into an overlay folder put first on PYTHONPATH for this
    run. Then it prints a header about the machine and writes gpu-report.txt.
    """
    chosen, looked = _cuda_env.choose_python()
    for line in looked:
        session.log(line)
    if chosen is None:
        session.error(_cuda_env.no_torch_error(_cuda_env.candidates()))
    python = chosen.python
    wanted = _cuda_env.requirements()  # what the tests import but torch: test-tools and numpy
    with tempfile.TemporaryDirectory() as tmp:
        plan_file, result = Path(tmp, "plan.json"), Path(tmp, "install.txt")
        # Its output (stdout and stderr, merged) is never parsed: `import torch` may print
        # warnings there. The plan comes back through plan_file only.
        session.run(
            python, "-m", "dojo.cuda_env", "--plan", str(plan_file), *wanted,
            silent=True, external=True, success_codes=[0, 3],
        )  # fmt: skip
        plan = json.loads(plan_file.read_text())
        if plan["error"]:
            session.error(plan["error"])
        for note in plan["notes"]:
            session.log(note)
        if plan["install"]:
            session.run(
                python, "-m", "dojo.cuda_env", "--install", str(result),
                "--overlay", plan["overlay"], *plan["install"],
                external=True, success_codes=[0, 3],
            )  # fmt: skip
            if why := result.read_text().strip():
                session.error(why)
    env = {
        **ENV,
        "PYTHONDONTWRITEBYTECODE": "1",  # no __pycache__ in the repository or the user's env
        "KATAS_TESTS_CUDA_PYTHON": f"{python}, {chosen.why}",  # for the header and the report
        # The chosen env's scripts first, as if activated: a test that starts `python` gets it.
        "PATH": os.pathsep.join([str(Path(python).parent), os.environ.get("PATH", "")]),
    }
    if plan["overlay"] and Path(plan["overlay"]).is_dir():
        session.log(f"tests-cuda: test tools from {plan['overlay']} first (PYTHONPATH)")
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (plan["overlay"], os.environ.get("PYTHONPATH")) if p
        )
    # tests/tool tests the tool (benchmarks, watch): no cuda tier, and imports a GPU host's env
    # need not have (matplotlib, watchfiles), which would stop collection.
    session.run(
        python, "-m", "pytest", "--impl", "reference", "-m", "cuda", "--require-cuda",
        "--ignore", "tests/tool", "--gpu-report", "gpu-report.txt", *session.posargs,
        env=env, external=True,
    )  # fmt: skip


@nox.session
def docs(session: nox.Session) -> None:
    """Build the site with `mkdocs build --strict` (pages run their examples at build time).

    Then `dojo.verify spoilers` reads the kata pages it built: none gives its kata away."""
    _install(session, "docs")
    with _compiled(session) as env:
        session.run("mkdocs", "build", "--strict", env=env)
        session.run("python", "-m", "dojo.verify", "spoilers", "--site", "site", env=env)


@nox.session(name="docs-serve", venv_backend="none")
def docs_serve(session: nox.Session) -> None:
    """Serve the site on http://127.0.0.1:8000 from the learn venv (`python -m katas docs`):
    no venv, and no torch, of its own."""
    session.run("python", "-m", "katas", "docs", *session.posargs, external=True)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(reuse_venv=True)  # torch + matplotlib: build the venv once, not per run
def bench(session: nox.Session) -> None:
    """Run the benchmarks (benchmarks/); `-- --smoke --out DIR`, `-- --only NAME`, `-- --list`.

    The GPU experiments need a CUDA device: without one they are listed as skipped, with why.
    """
    _install(session, "bench")
    with _compiled(session, keep=True) as env:
        session.run("python", "-m", "benchmarks", *session.posargs, env=env)


@nox.session
def site(session: nox.Session) -> None:
    """Build the site strictly, then check it in Chromium (needs /usr/bin/chromium: Debian's
    `apt-get install chromium`; .ci/run installs it). Screenshots land in screenshots/.

    The build is tests/browser/conftest.py's, unless KATAS_SITE_DIR names a site already
    built: CI passes the strict build that `nox`'s docs session has just made (about 10 s)."""
    session.env["PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD"] = "1"  # pip's playwright never fetches one
    # pip: --no-compile, since byte-compiling all of torch at install took 126 s against 68 s
    # without (one run each, same load); uv never compiles unless asked. The build compiles
    # only what it imports, once, into the venv's pycache/ (_compiled).
    no_compile = [] if _uses_uv(session) else ["--no-compile"]
    session.install(*no_compile, *nox.project.dependency_groups(PYPROJECT, "docs", "browser"))
    with _compiled(session) as env:
        session.run(
            "python", "-m", "pytest", "--impl", "reference", "-p", "no:cacheprovider",
            "tests/browser", *session.posargs, env=env,
        )  # fmt: skip
