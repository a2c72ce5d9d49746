"""`python -m katas docs`: the site served from the venv the learner already has."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from dojo import cli

pytestmark = pytest.mark.cpu


def test_docs_serves_the_site_from_this_venv_and_names_the_page(monkeypatch, capsys):
    calls = []

    def call(command, **kwargs):
        calls.append((command, kwargs))
        return 0

    monkeypatch.setattr(subprocess, "call", call)
    assert cli.main(["docs", "view", "--port", "8123"]) == 0
    (command, kwargs), = calls  # fmt: skip
    assert command[:4] == [sys.executable, "-m", "mkdocs", "serve"], command
    assert "127.0.0.1:8123" in command, "the site is served on this machine only"
    assert kwargs["cwd"] == cli.ROOT
    assert "http://127.0.0.1:8123/katas/view_vs_reshape/" in capsys.readouterr().out


def test_docs_without_the_site_tools_says_how_to_get_them(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mkdocs" else real(name, *a)
    )
    assert cli.main(["docs"]) == 1
    err = capsys.readouterr().err
    assert "nox -s learn" in err and "Traceback" not in err


def test_docs_with_an_unknown_kata_suggests_one(monkeypatch, capsys):
    monkeypatch.setattr(subprocess, "call", lambda *a, **k: pytest.fail("served anyway"))
    assert cli.main(["docs", "view_vs_reshpe"]) == 2
    assert "view_vs_reshape" in capsys.readouterr().err
