"""The built site both browser-free and browser tests read: KATAS_SITE_DIR (what `nox -s site`
builds), or a strict build made here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dojo import catalogue as _catalogue

ROOT = _catalogue.ROOT


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("KATAS_SITE_DIR")
    if given:
        path = Path(given)
        if not (path / "index.html").is_file():
            pytest.fail(f"KATAS_SITE_DIR={given} holds no built site (no index.html)", False)
        return path
    path = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(path)],
        cwd=ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    return path
