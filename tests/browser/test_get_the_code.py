"""`<!-- get-the-code -->` (docs/hooks.py): every page that tells a reader to get the code
says it with the one renderer, with the public address where the build knows it. No browser:
tests/browser/test_browser.py checks the built pages at phone and desktop width."""

from __future__ import annotations

import importlib.util
import re

import pytest

from dojo import catalogue as _catalogue

pytestmark = pytest.mark.cpu

ROOT = _catalogue.ROOT
MARKER = "<!-- get-the-code -->"
URL = "https://example.org/someone/pytorch-gpu-katas"


@pytest.fixture(scope="module")
def hooks():
    spec = importlib.util.spec_from_file_location("katas_site_hooks", ROOT / "docs/hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pages_with_marker() -> list[str]:
    return sorted(
        p.relative_to(ROOT / "docs").as_posix()
        for p in (ROOT / "docs").rglob("*.md")
        if re.search(rf"^[ ]*{re.escape(MARKER)}[ ]*$", p.read_text(), re.M)
    )


def test_the_pages_that_need_the_code_hold_the_marker_and_no_clone_line_of_their_own():
    assert _pages_with_marker() == ["getting-started.md", "gpu-hosts.md"]
    for page in (ROOT / "docs").rglob("*.md"):
        for line in page.read_text().splitlines():
            assert not re.search(r"git clone\s+(<|\S*this)", line), (
                f"{page.relative_to(ROOT)}: {line.strip()!r}: a clone line with no address; "
                f"write {MARKER} instead"
            )


@pytest.mark.parametrize("page", _pages_with_marker())
def test_with_an_address_the_page_shows_a_clone_of_it(hooks, monkeypatch, page):
    monkeypatch.setenv("KATAS_REPO_URL", URL)
    text = (ROOT / "docs" / page).read_text()
    rendered, found = hooks._replace_marker(text, MARKER, hooks._get_the_code)
    assert found
    assert f"git clone {URL} pytorch-gpu-katas" in rendered
    assert "without the code's public address" not in rendered


@pytest.mark.parametrize("page", _pages_with_marker())
def test_without_an_address_the_page_says_where_the_code_is(hooks, monkeypatch, page):
    monkeypatch.delenv("KATAS_REPO_URL", raising=False)
    text = (ROOT / "docs" / page).read_text()
    rendered, found = hooks._replace_marker(text, MARKER, hooks._get_the_code)
    assert found
    assert "python -m katas docs" in rendered and "git clone <address>" in rendered
    assert "git clone https" not in rendered


def test_the_marker_keeps_its_indentation(hooks, monkeypatch):
    """In a list item or a tab, every line of what replaces the marker stays inside it."""
    monkeypatch.setenv("KATAS_REPO_URL", URL)
    rendered, _ = hooks._replace_marker(
        f"1. Get it:\n\n    {MARKER}\n", MARKER, hooks._get_the_code
    )
    body = rendered.split("\n", 2)[2]
    assert all(not line or line.startswith("    ") for line in body.splitlines()), body
