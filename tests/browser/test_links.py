"""Every link of the built site resolves, generated content included (tests/browser/links.py),
and the checker itself catches each kind of broken link."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.browser.links import check_site, external_problem

pytestmark = pytest.mark.cpu


def test_every_internal_link_and_anchor_resolves_and_external_links_are_well_formed(site_dir):
    broken, checked = check_site(site_dir)
    assert checked > 500, f"only {checked} links found in {site_dir}: is it the whole site?"
    assert not broken, f"{len(broken)} broken links of {checked}:\n" + "\n".join(map(str, broken))


def test_no_page_shows_the_build_machines_paths(site_dir):
    """Executed blocks print what they see: an interpreter's or the checkout's path is the build
    machine's, not the reader's (GPU hosts once showed `.../.nox/docs/bin/python`, then the
    session's stop line showed the venv's). Pages write `<this env>/bin/python` instead."""
    from dojo import catalogue

    private = {str(catalogue.ROOT), sys.prefix, str(Path(sys.executable).parent)}
    private = {p for p in private if not any(p != q and p.startswith(q) for q in private)}
    problems = []
    for file in sorted([*site_dir.rglob("*.html"), *site_dir.rglob("search_index.json")]):
        text = file.read_text(errors="replace")
        problems += [
            f"{file.relative_to(site_dir)}: ...{text[max(0, i - 60) : i + 60]}..."
            for path in private
            if (i := text.find(path)) >= 0
        ]
    assert not problems, "the site shows the build machine's paths:\n" + "\n".join(problems)


def _page(root: Path, path: str, body: str) -> None:
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(f"<html><body>{body}</body></html>")


def test_the_checker_finds_each_kind_of_broken_link(tmp_path):
    _page(tmp_path, "index.html", '<h2 id="top">x</h2>')
    _page(tmp_path, "katas/a/index.html", '<h2 id="ideas">Ideas</h2>')
    _page(
        tmp_path,
        "troubleshooting/index.html",
        # what markdown-exec output once held: a link relative to the page's source file
        '<a href="katas/a.md">Read: a</a>'
        '<a href="../katas/a/">fine</a><a href="../katas/a/#ideas">fine</a>'
        '<a href="../katas/a/#nowhere">no anchor</a><a href="#top">no anchor here</a>'
        '<a href="/katas/a/">fine</a><img src="../img/missing.svg">'
        '<a href="https://docs.pytorch.org/1.6.0/optim.html">bad shape</a>'
        '<a href="https://docs.pytorch.org/docs/stable/notes/cuda.html">fine</a>'
        '<a href="https://github.com/pytorch/pytorch/blob/main/torch/amp/grad_scaler.py">ok</a>'
        '<a href="http://127.0.0.1:8000">local serve</a>',
    )
    broken, checked = check_site(tmp_path)
    found = sorted(b.link for b in broken)
    assert found == sorted(
        [
            "katas/a.md",
            "../katas/a/#nowhere",
            "#top",
            "../img/missing.svg",
            "https://docs.pytorch.org/1.6.0/optim.html",
        ]
    ), found
    assert checked == 11


@pytest.mark.parametrize(
    "url, ok",
    [
        ("https://docs.pytorch.org/docs/stable/generated/torch.cuda.synchronize.html", True),
        ("https://docs.pytorch.org/docs/2.13/notes/cuda.html#asynchronous-execution", True),
        ("https://docs.pytorch.org/1.6.0/optim.html", False),
        ("https://pytorch.org/get-started/locally/", True),
        ("https://github.com/pytorch/pytorch/issues/1234", True),
        ("https://github.com/pytorch", False),
        ("http://example.org/", False),
    ],
)
def test_external_link_shapes(url, ok):
    assert (external_problem(url) is None) == ok, external_problem(url)
