"""MkDocs hooks: fill kata pages from the catalogue and the mistake corpus, and let the pages'
`exec` code blocks import `katas` and `reference`.

Markers a page may hold:
- `<!-- catalogue -->`: the numbered list of katas (the home page);
- `<!-- hints -->`: the kata's hints as numbered collapsible tips (required on kata pages);
- `<!-- mistakes -->`: the kata's mistake corpus, one line each (required on kata pages).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from dojo import catalogue as _catalogue  # noqa: E402

sys.path.remove(str(ROOT))


def on_config(config):
    """Let `exec` code blocks import `katas` and `reference` (mkdocs resets sys.path after
    loading hooks, so this cannot happen at import time)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return config


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in text.splitlines())


def _hints(kata: _catalogue.Kata) -> str:
    return "\n\n".join(
        f'??? tip "Hint {n}"\n{_indent(hint)}' for n, hint in enumerate(kata.hints, start=1)
    )


def _mistakes(kata: _catalogue.Kata) -> str:
    lines = []
    for path in sorted(kata.mistakes.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        what = doc.split("\n\n")[0].replace("\n", " ").strip()
        if not what:
            raise PluginError(f"{path}: a mistake needs a docstring saying what it gets wrong")
        lines.append(f"- **{path.stem.replace('_', ' ')}** (`{path.relative_to(ROOT)}`): {what}")
    if not lines:
        raise PluginError(f"{kata.name}: tests/mistakes/{kata.name}/ holds no mistake")
    return "\n".join(lines)


def _catalogue_list() -> str:
    return "\n".join(
        f"{k.number}. [{k.title}](katas/{k.name}.md): {k.summary}" for k in _catalogue.katas()
    )


def on_page_markdown(markdown: str, page, config, files) -> str:
    src = page.file.src_uri
    if "<!-- catalogue -->" in markdown:
        markdown = markdown.replace("<!-- catalogue -->", _catalogue_list())
    if not src.startswith("katas/"):
        return markdown
    try:
        kata = _catalogue.get(Path(src).stem)
    except ValueError as err:
        raise PluginError(f"docs/{src}: {err}") from None
    for marker, render in (("<!-- hints -->", _hints), ("<!-- mistakes -->", _mistakes)):
        if marker not in markdown:
            raise PluginError(f"docs/{src} must contain {marker}")
        markdown = markdown.replace(marker, render(kata))
    return markdown
