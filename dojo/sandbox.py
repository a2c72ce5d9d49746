"""A throwaway copy of the repository, for tests and benchmarks that act as a learner would."""

from __future__ import annotations

import shutil
from pathlib import Path

from dojo import catalogue as _catalogue

IGNORE = shutil.ignore_patterns(
    ".git", ".nox", "site", ".hypothesis", "__pycache__", ".katas-*", "screenshots", "*.pyc"
)


def copy_repo(dest: Path) -> Path:
    """Copy the repository to `dest` (no .git, venvs or caches), with pristine stubs in katas/."""
    shutil.copytree(_catalogue.ROOT, dest, ignore=IGNORE)
    for kata in _catalogue.katas():
        shutil.copy(kata.pristine, dest / "katas" / f"{kata.name}.py")
    return dest


def solve(repo: Path, name: str) -> None:
    """What a learner ends with: the reference's code in katas/<name>.py of `repo`."""
    shutil.copy(repo / "reference" / f"{name}.py", repo / "katas" / f"{name}.py")
