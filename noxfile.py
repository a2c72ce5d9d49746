"""Sessions for learners, contributors, CI and GPU hosts. `nox` alone runs what CI runs.

Every session is a thin wrapper over `_pytest` or one command; dependencies come from the
[dependency-groups] in pyproject.toml, where torch is pinned to 2.13.0.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nox

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dojo import catalogue as _catalogue  # stdlib only: reads dojo/catalogue.toml

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests", "stubs", "mistakes", "docs", "lint"]

PYPROJECT = nox.project.load_toml("pyproject.toml")
ENV = {
    "KATAS_HYPOTHESIS_PROFILE": os.environ.get(
        "KATAS_HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"
    ),
    "NO_MKDOCS_2_WARNING": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
}


def _install(session: nox.Session, *groups: str) -> None:
    session.install(*nox.project.dependency_groups(PYPROJECT, *groups))


def _pytest(session: nox.Session, *args: str, success_codes=(0,)) -> None:
    """pytest in the session's venv; `nox -s NAME -- ARGS` appends ARGS."""
    _install(session, "test")
    session.run(
        "python",
        "-m",
        "pytest",
        *args,
        *session.posargs,
        env=ENV,
        success_codes=list(success_codes),
    )


@nox.session(reuse_venv=True)  # the learner loop: build the 1 GB torch venv once, not per run
def learn(session: nox.Session) -> None:
    """Run your katas (katas/) and show where you stand; `-- tests/test_NAME.py` for one kata."""
    # All kata tests, unless the learner named what to run after `--`.
    kata_tests = (
        []
        if session.posargs
        else [str(k.tests.relative_to(_catalogue.ROOT)) for k in _catalogue.katas()]
    )
    _pytest(session, "--impl", "katas", "-q", "--no-header", *kata_tests, success_codes=[0, 1])


@nox.session
def tests(session: nox.Session) -> None:
    """Run every cpu-tier test against the reference solutions."""
    # Two xdist workers: measured 25 s against 37 s serial on 2 cores (each worker pays the
    # ~2.5 s torch import, so more workers than cores only adds start-up cost).
    _pytest(session, "--impl", "reference", "-m", "cpu", "-n", "2")


@nox.session
def stubs(session: nox.Session) -> None:
    """Check that every kata test fails on the stubs, with NotImplementedError."""
    _install(session, "test")
    session.run("python", "-m", "dojo.verify", "stubs", env=ENV)


@nox.session
def mistakes(session: nox.Session) -> None:
    """Check that the tests reject every wrong solution in tests/mistakes/."""
    _install(session, "test")
    session.run("python", "-m", "dojo.verify", "mistakes", env=ENV)


@nox.session(name="tests-cuda", venv_backend="none")
def tests_cuda(session: nox.Session) -> None:
    """GPU hosts: the cuda tier against the reference, with the CUDA torch you already have.

    Runs in the current environment (no venv): activate the venv or conda env that holds your
    CUDA build of torch first. It installs only the missing test tools, never torch.
    """
    tools = nox.project.dependency_groups(PYPROJECT, "test-tools")
    out = session.run(
        "python", "-m", "dojo.cuda_env", *tools, silent=True, external=True, success_codes=[0, 3]
    )
    lines = out.splitlines()
    if lines and lines[0].startswith("tests-cuda:"):
        session.error(lines[0])
    if lines:
        session.run("python", "-m", "pip", "install", *lines, external=True)
    session.run(
        "python",
        "-m",
        "pytest",
        "--impl",
        "reference",
        "-m",
        "cuda",
        "--require-cuda",
        *session.posargs,
        env=ENV,
        external=True,
    )


@nox.session
def docs(session: nox.Session) -> None:
    """Build the site with `mkdocs build --strict` (pages run their examples at build time)."""
    _install(session, "docs")
    session.run("mkdocs", "build", "--strict", env=ENV)


@nox.session(name="docs-serve")
def docs_serve(session: nox.Session) -> None:
    """Serve the site with live reload on http://127.0.0.1:8000."""
    _install(session, "docs")
    session.run("mkdocs", "serve", *session.posargs, env=ENV)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def site(session: nox.Session) -> None:
    """Build the site strictly, then check it in Chromium (needs /usr/bin/chromium: Debian's
    `apt-get install chromium`; .ci/run installs it). Screenshots land in screenshots/."""
    session.env["PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD"] = "1"  # pip's playwright never fetches one
    # --no-compile: byte-compiling all of torch at install took 126 s against 68 s without (one
    # run each, same load); the build compiles only what it imports, once, into PYCACHE.
    session.install("--no-compile", *nox.project.dependency_groups(PYPROJECT, "docs", "browser"))
    tmp = Path(session.create_tmp())
    env = {**ENV, "PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
    built = tmp / "site"
    session.run("mkdocs", "build", "--strict", "--quiet", "--site-dir", str(built), env=env)
    session.run(
        "python",
        "-m",
        "pytest",
        "--impl",
        "reference",
        "-p",
        "no:cacheprovider",
        "tests/browser",
        *session.posargs,
        env={**env, "KATAS_SITE_DIR": str(built)},
    )
