"""Every link of the built site, checked as a reader's browser would follow it.

MkDocs checks the links it writes itself, but not those in generated content (markdown-exec
output, hook output), which it never rewrites: Troubleshooting's "Read: <kata>" links once
pointed to 44 pages that did not exist, and `mkdocs build --strict` passed. This reads the
HTML that was actually built:
- every internal `href` and `src` resolves to a file of the site, as a static server would
  resolve it (a folder means its index.html), and every `#fragment` to an element's `id` on
  the target page;
- every external link has the shape its host expects (it cannot be fetched here): a PyTorch
  docs link has its `/docs/<version>/` segment, a GitHub link names an owner and a repository.
Stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (attribute, value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if value is not None and (
                (name == "href" and tag in ("a", "link", "area"))
                or (name == "src" and tag in ("img", "script", "iframe", "source"))
            ):
                self.links.append((name, value))


@dataclass(frozen=True)
class Broken:
    page: str
    link: str
    why: str

    def __str__(self) -> str:
        return f"/{self.page}: {self.link} ({self.why})"


# External hosts whose links have a known shape: (host, pattern the path must match, why).
SHAPES = [
    (
        "docs.pytorch.org",
        re.compile(r"^/(docs|tutorials|audio|vision|data|serve|xla|executorch|ao|torchtune)(/|$)"),
        "a PyTorch docs path starts with /docs/<version>/ (or another project's folder)",
    ),
    (
        "pytorch.org",
        re.compile(r"^/(docs|tutorials|get-started|blog)(/|$)|^/?$"),
        "pytorch.org pages live under /docs/, /tutorials/, /get-started/ or /blog/",
    ),
    (
        "github.com",
        re.compile(r"^/[\w.-]+/[\w.-]+(/(blob|tree|edit|issues|pull|releases|commit|wiki)/.+)?/?$"),
        "a GitHub link names an owner and a repository, then blob/tree/issues/...",
    ),
]


def external_problem(url: str) -> str | None:
    """Why an external link cannot be right, from its shape alone; None if it looks right."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "mailto"):
        return f"unexpected scheme {parts.scheme!r}"
    if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost"):
        return "plain http: use https"
    for host, shape, why in SHAPES:
        if parts.netloc == host and not shape.search(parts.path):
            return why
    if parts.netloc == "docs.pytorch.org" and re.match(r"^/docs/?$", parts.path):
        return "the bare /docs/ folder is not a page"
    return None


@cache
def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def _target(site: Path, page: Path, link_path: str) -> Path | None:
    """The file a static server returns for `link_path` seen from `page`; None if none."""
    if link_path.startswith("/"):
        candidate = site / unquote(link_path).lstrip("/")
    else:
        candidate = page.parent / unquote(link_path)
    resolved = Path(PurePosixPath(*candidate.parts))
    try:
        resolved = resolved.resolve()
        resolved.relative_to(site.resolve())
    except (OSError, ValueError):
        return None
    if resolved.is_dir():
        resolved = resolved / "index.html"
    return resolved if resolved.is_file() else None


def check_site(site: Path) -> tuple[list[Broken], int]:
    """(the broken links of the site built in `site`, how many links were checked)."""
    site = site.resolve()
    broken, checked = [], 0
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        if rel.startswith("assets/"):
            continue
        for attribute, link in _parse(page).links:
            checked += 1
            parts = urlsplit(link)
            if parts.scheme in ("http", "https", "mailto"):
                if why := external_problem(link):
                    broken.append(Broken(rel, link, why))
                continue
            if parts.scheme in ("data", "blob", "javascript") or parts.netloc:
                continue
            target = page if not parts.path else _target(site, page, parts.path)
            if target is None:
                broken.append(Broken(rel, link, f"no such file in the site ({attribute})"))
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html" and fragment not in _parse(target).ids:
                where = target.relative_to(site).as_posix()
                broken.append(Broken(rel, link, f"no id {fragment!r} on {where}"))
    return broken, checked
