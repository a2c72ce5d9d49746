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


def test_a_torch_name_starting_inline_code_gets_its_shorter_forms_whatever_follows(hooks):
    """The search index gets `cudnn.enabled` from `torch.backends.cudnn.enabled = False`, as
    from a call or a bare name; a longer word that only starts like a name gets none."""
    html = hooks._search_forms(
        "<code>torch.backends.cudnn.enabled = False</code> <code>torch.cuda.synchronize()</code>"
        " <code>torch.xpu</code> <code>torchvision.ops</code>"
    )
    forms = re.findall(r"<sub>([^<]*)</sub>", html)
    assert forms == [
        "backends.cudnn.enabled cudnn.enabled enabled",
        "cuda.synchronize synchronize",
        "xpu",
    ]


# One highlighted line of a code block, as Pygments and docs/hooks.py's _LINE give it.
REGEX_LINE = (
    '<pre><code><span id="__span-0-3" style="--i:4"><span class="w indent">    </span>'
    '<span class="n">x</span><span class="o">=</span><span class="sa">r</span>'
    '<span class="s2">&quot;(CPU|CUDA|HIP|MPS|XPU)&quot;</span>\n</span></code></pre>'
)


def test_a_long_token_with_a_break_character_is_whole_where_the_box_fits_it(hooks):
    """A 24-character regex string on a line of depth 4 fits a continuation row from a box of
    24 + 4 + 4 columns (the hanging indent); its page gets that container query, and the
    token breaks after a `|` where the box is narrower. Its `r` prefix stays with it."""
    html = hooks._token_breaks(REGEX_LINE)
    token = re.search(r'<span class="s2 ([\w-]+)">(.*?)</span>', html)
    assert token[1] == "fit-32", html
    assert token[2] == "&quot;(CPU|<wbr>CUDA|<wbr>HIP|<wbr>MPS|<wbr>XPU)&quot;"
    assert re.search(r"@container \(min-width: 32ch\) \{[^}]*\.fit-32 \{ white-space: nowrap", html)
    assert re.search(r"@container \(min-width: 32ch\) \{.*\.fit-32 wbr \{ display: none", html)
    assert '<span class="sa">r</span><span class="s2' in html, "a break between r and its quote"
    # On a block's first two lines, 4 more columns stay clear of the copy button.
    first = hooks._token_breaks(REGEX_LINE.replace("__span-0-3", "__span-0-1"))
    assert 'class="s2 fit-36"' in first


def test_the_main_entry_heading_indexes_the_rest_of_its_message(hooks):
    """same-device's heading is the start of the dispatcher entry's: its heading gets the rest
    of its message, for search only; an entry whose heading starts no other's gets nothing,
    though its message runs on too (cuda-out-of-memory)."""
    html = (
        '<h3 id="same-device">Expected all tensors to be on the same device'
        '<a class="headerlink" href="#same-device">&para;</a></h3>'
        '<h3 id="cuda-out-of-memory">CUDA out of memory. Tried to allocate'
        '<a class="headerlink" href="#cuda-out-of-memory">&para;</a></h3>'
    )
    out = hooks._whole_messages(html, "troubleshooting.md")
    assert re.findall(r'<h3 id="([\w-]+)">[^<]*<span class="search-only" hidden><sub>', out) == [
        "same-device"
    ]
    assert "<sub> , but found at least two devices, cuda:0 and cpu!</sub>" in out
    assert hooks._whole_messages(html, "index.md") == html
    assert hooks._SEARCH_ONLY.sub("", out) == html, "the page keeps none of it"
