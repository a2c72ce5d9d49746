"""A throwaway copy of the repository, for tests, benchmarks and pages that act as a learner
would."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

from dojo import catalogue as _catalogue

IGNORE = shutil.ignore_patterns(
    ".git", ".nox", "site", ".hypothesis", "__pycache__", ".katas-*", "screenshots", "*.pyc"
)


def _ignore(root: Path):
    """IGNORE, and the learner's room (`katas/` at the top) as a whole."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = set(IGNORE(folder, names))
        return skipped | ({"katas"} if Path(folder) == root else set())

    return ignore


def copy_repo(dest: Path) -> Path:
    """Copy the repository to `dest` (no .git, venvs or caches), with pristine stubs in katas/.

    Nothing of the learner's is copied: katas/ is built afresh from the stubs the references
    generate and the tool's own `katas/__main__.py`, so a learner's stray file there (an
    `__init__.py`, a scratch script) is never run by the repository's checks."""
    from dojo import source

    root = _catalogue.ROOT
    shutil.copytree(root, dest, ignore=_ignore(root))
    (dest / "katas").mkdir()
    shutil.copy(root / "katas" / "__main__.py", dest / "katas" / "__main__.py")
    for kata in _catalogue.katas():
        (dest / "katas" / f"{kata.name}.py").write_text(source.stub_text(kata), encoding="utf-8")
    return dest


def solve(repo: Path, name: str) -> None:
    """What a learner ends with: the reference's code in katas/<name>.py of `repo`."""
    shutil.copy(repo / "reference" / f"{name}.py", repo / "katas" / f"{name}.py")


def katas(repo: Path, *args: str, time_limit: float = 120.0) -> subprocess.CompletedProcess:
    """`python -m katas ARGS`, run in `repo` as a learner would; its exit code and output.

    Where forking is safe (`runner.use_fork()`), the command runs in a child forked from this
    process, which imports the repository's code afresh from `repo` but keeps torch, already
    imported: the site's build shows a real verdict without paying a new interpreter's start.
    Elsewhere (a possible GPU host), it runs in a new interpreter, as a learner starts it.
    """
    from dojo import runner

    command = [sys.executable, "-m", "katas", *args]
    if not runner.use_fork():
        return subprocess.run(
            command, cwd=repo, capture_output=True, text=True, timeout=time_limit, check=False
        )
    runner.warm_hypothesis()  # here, where its cache is, not in the child: see its docstring
    result = runner.forked(lambda: _katas_here(Path(repo), list(args)), time_limit=time_limit)
    if "problem" in result:
        raise RuntimeError(f"python -m katas {' '.join(args)} in {repo}: {result['problem']}")
    return subprocess.CompletedProcess(command, result["code"], result["stdout"], result["stderr"])


def _own_modules() -> set[str]:
    """The top-level names of the repository's own code: katas, dojo, tests, conftest, ..."""
    root = _catalogue.ROOT
    dirs = {d.name for d in root.iterdir() if not d.name.startswith(".") and any(d.glob("*.py"))}
    return dirs | {f.stem for f in root.glob("*.py")}


def _katas_here(repo: Path, args: list[str]) -> dict:
    """In a forked child: forget this repository's modules, become `repo`, run the command."""
    own = _own_modules()
    for name in [n for n in sys.modules if n.split(".")[0] in own]:
        del sys.modules[name]
    root = _catalogue.ROOT
    sys.path[:] = [str(repo)] + [p for p in sys.path if Path(p or os.curdir).resolve() != root]
    os.chdir(repo)
    if "hypothesis" in sys.modules:  # keep its Unicode tables, but its examples go to `repo`
        from hypothesis.configuration import set_hypothesis_home_dir

        set_hypothesis_home_dir(repo / ".hypothesis")
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        from dojo import cli  # repo's own, imported anew

        try:
            code = cli.main(args)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    return {"code": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}
