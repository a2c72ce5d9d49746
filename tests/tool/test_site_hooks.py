"""docs/hooks.py keeps a kata page free of what resolves the kata, and renders the discussion's
other solutions: checked on the hook's own functions, without a build."""

from __future__ import annotations

import importlib.util
import re

import pytest
from mkdocs.exceptions import PluginError

from dojo import catalogue as _catalogue

ROOT = _catalogue.ROOT


@pytest.fixture(scope="module")
def hooks():
    spec = importlib.util.spec_from_file_location("site_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PAGE = "# 1. A kata\n\n## Your task\n\nDo it.\n\n<!-- stub -->\n"


@pytest.mark.parametrize(
    "marker", ["<!-- hints -->", "<!-- mistakes -->", "<!-- solution -->", "<!-- solutions -->"]
)
def test_a_kata_page_with_a_spoiler_marker_fails_the_build(hooks, marker):
    with pytest.raises(PluginError, match=re.escape(f"docs/katas/timing.md holds {marker}")):
        hooks.check_kata_page("katas/timing.md", PAGE + f"\n{marker}\n")


def test_a_kata_page_that_includes_the_tests_fails_the_build(hooks):
    page = PAGE + '\n```python\n--8<-- "tests/test_timing.py"\n```\n'
    with pytest.raises(PluginError, match=re.escape("includes tests/test_timing.py")):
        hooks.check_kata_page("katas/timing.md", page)


def test_a_kata_page_may_quote_a_marker_in_prose_and_include_other_files(hooks):
    page = PAGE + '\nThe `<!-- hints -->` marker.\n\n--8<-- "docs/img/strides.svg"\n'
    hooks.check_kata_page("katas/timing.md", page)


def test_other_solutions_are_each_folded_and_titled_by_their_docstring(hooks, tmp_path):
    kata = _catalogue.get("sync_points")
    rendered = hooks._solutions(kata)
    files = sorted(kata.solutions.glob("*.py"))
    assert rendered.count('??? success "') == len(files)
    for path in files:
        assert f'??? success "{path.stem.replace("_", " ")}: ' in rendered
        assert f'title="tests/solutions/sync_points/{path.name}"' in rendered
    (tmp_path / "x.py").write_text('"""Reads "back" once. Then more.\n\nDetails."""\n')
    assert hooks._docstring_title(tmp_path / "x.py") == "Reads 'back' once"
    (tmp_path / "y.py").write_text("x = 1\n")
    with pytest.raises(PluginError, match="needs a docstring"):
        hooks._docstring_title(tmp_path / "y.py")
