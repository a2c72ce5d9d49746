"""The built site in a real browser, as a reader meets it: Debian's Chromium driven by
Playwright, on a copy of the site served from 127.0.0.1. Run it with `nox -s site`, which
builds the site strictly first; the default `nox -s tests` does not collect this folder
(pyproject: norecursedirs).

It checks that every page loads with no console error and no request to another host, that no
visible code block is wider than its box (desktop and phone), that executed output is boxed
and labelled, that hints and solutions stay closed until clicked, that pasted error messages
find the page that explains them, and that the light/dark toggle works. It saves screenshots
of one kata page to screenshots/ (git-ignored) for a person to look at.

Environment: KATAS_SITE_DIR, a built site (without it, the site is built here);
KATAS_CHROMIUM, the browser (default /usr/bin/chromium: `apt-get install chromium`).
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from dojo import catalogue as _catalogue
from dojo import errors

pytestmark = pytest.mark.cpu

ROOT = _catalogue.ROOT
KATAS = _catalogue.katas()
CHROMIUM = Path(os.environ.get("KATAS_CHROMIUM", "/usr/bin/chromium"))
# Headless Chromium that makes no connection of its own: without the background-networking
# flags it phones home at start-up, and this machine's closed network refuses it.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Any URL but this machine's own server (data: and blob: URLs are never routed).
OFF_HOST = re.compile(r"^(?!https?://127\.0\.0\.1[:/])")
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SCREENSHOTS = ROOT / "screenshots"
SCREENSHOT_KATA = "mismatch_errors"

# Messages a learner pastes into the search box, and the kata that explains each. The
# troubleshooting page is an equally good first hit.
KNOWN_ERRORS = [
    ("Expected all tensors to be on the same device", "mismatch_errors"),
    ("view size is not compatible with input tensor's size and stride", "view_vs_reshape"),
    (
        "a leaf Variable that requires grad is being used in an in-place operation",
        "inplace_autograd",
    ),
]


def _search_cases() -> list[tuple[str, str]]:
    """The known messages, then each entry of the error index (dojo/errors.toml): its stable
    phrase and its full message (when it is one line, as a search box takes it), each with the
    kata that explains it, once each."""
    cases = list(KNOWN_ERRORS)
    for entry in errors.load():
        for text in (entry.phrase, *([] if "\n" in entry.message else [entry.message])):
            if text.strip() and all(text != known for known, _ in cases):
                cases.append((text, entry.kata))
    return cases


# --- the site, a server and a browser -----------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A page left before its search index finished downloading is not an error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="module")
def base_url(site_dir: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(
            f"no browser at {CHROMIUM}: `apt-get install chromium`, or point KATAS_CHROMIUM at "
            "a Chromium (Playwright's own download is not used)",
            False,
        )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Visit:
    """A browser context that records console errors and stops every request that leaves
    127.0.0.1 (recording it), so a page that needs the internet fails here, not offline."""

    def __init__(self, browser: Browser, **options: object) -> None:
        self.errors: list[str] = []
        self.off_host: list[str] = []
        self.context: BrowserContext = browser.new_context(**options)
        # Only requests that leave 127.0.0.1 are routed through here (all are, by the
        # pattern, would cost a round trip to Python per file).
        self.context.route(OFF_HOST, self._stop)
        self.page: Page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda err: self.errors.append(f"uncaught: {err}"))

    def _stop(self, route) -> None:
        self.off_host.append(route.request.url)
        route.abort()

    def _console(self, message) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def open(self, url: str, *, search_ready: bool = False) -> Page:
        """Load `url`; with `search_ready`, also wait until the search worker has fetched
        and built its index (about a second: the same index on every page, so once will do)."""
        self.page.goto(url, wait_until="load")
        if search_ready:
            self.page.wait_for_function(
                "() => !/Initializing/i.test("
                "document.querySelector('.md-search-result__meta')?.textContent ?? '')"
            )
        return self.page

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def desktop(browser: Browser) -> Iterator[Visit]:
    visit = Visit(browser, viewport=DESKTOP)
    yield visit
    visit.close()


@pytest.fixture(scope="module")
def phone(browser: Browser) -> Iterator[Visit]:
    visit = Visit(browser, viewport=PHONE, is_mobile=True, has_touch=True)
    yield visit
    visit.close()


def _pages(site_dir: Path) -> list[str]:
    """Every page of the built site, as a path under the site's root ("" is the home page)."""
    return sorted(
        "" if p.parent == site_dir else f"{p.parent.relative_to(site_dir).as_posix()}/"
        for p in site_dir.rglob("index.html")
        if "assets" not in p.relative_to(site_dir).parts
    )


def _kata_page(base_url: str, kata: str) -> str:
    return f"{base_url}katas/{kata}/"


# --- every page, visited once per screen ----------------------------------------------------------

# Visible code blocks (not inside a closed fold) whose content is wider than their box. A block
# inside `.scrolls-sideways` is meant to scroll (tabular output keeps its columns on a phone):
# it is not counted here, and SCROLLS_SIDEWAYS below lists every one.
OVERFLOWING_CODE = """() => [...document.querySelectorAll('.md-typeset pre > code')]
  .filter(code => !code.closest('details:not([open])') && code.checkVisibility())
  .filter(code => !code.closest('.scrolls-sideways'))
  .filter(code => code.scrollWidth > code.clientWidth + 1)
  .map(code => code.textContent.split('\\n').find(line => line.length > 40) ?? '')"""

# Hint and solution folds: what they are called, and whether they are open and shown.
FOLD = "article details.tip, article details.success, article details.danger"
FOLDS = f"""() => [...document.querySelectorAll({FOLD!r})].map(fold => ({{
  kind: fold.className,
  title: fold.querySelector('summary').innerText,
  open: fold.open,
  shown: [...fold.children].some(c => c.tagName !== 'SUMMARY' && c.checkVisibility()),
}}))"""

# Each diagram: whether it fits the article's column, and its smallest text as rendered.
DIAGRAMS = """() => {
  const column = document.querySelector('article').getBoundingClientRect();
  return [...document.querySelectorAll('article svg[role=img]')].map(svg => {
    const box = svg.getBoundingClientRect();
    const scale = svg.getScreenCTM().a;
    const sizes = [...svg.querySelectorAll('text')]
      .map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
    return {title: svg.querySelector('title')?.textContent ?? '?',
            left: box.left - column.left, right: box.right - column.right,
            smallest: Math.min(...sizes)};
  });
}"""

# Identifiers in table cells (no space in them) that the browser broke over two lines.
BROKEN_IDENTIFIERS = """() => [...document.querySelectorAll('article td code')]
  .filter(code => !/\\s/.test(code.textContent) && code.getClientRects().length > 1)
  .map(code => code.textContent)"""

# The code boxes that scroll sideways instead of wrapping, by page: the only ones allowed to
# be wider than their column. Each must keep every line on one line (its columns aligned),
# scroll, and say so in its label.
SCROLLS_SIDEWAYS = {"gpu-hosts/": 1}
SIDEWAYS = """() => [...document.querySelectorAll('.md-typeset .scrolls-sideways pre > code')]
  .map(code => ({
    scrolls: getComputedStyle(code).overflowX === 'auto',
    wider: code.scrollWidth > code.clientWidth + 1,
    label: getComputedStyle(code.closest('.result'), '::before').content,
    wrapped: [...code.children].filter(line => {
      const height = parseFloat(getComputedStyle(line).lineHeight);
      return line.getBoundingClientRect().height > 1.5 * height;
    }).map(line => line.textContent),
  }))"""

OUTPUT_LABELS = """() => [...document.querySelectorAll('.md-typeset .result')]
  .map(box => getComputedStyle(box, '::before').content)"""

# The font size of every code block, by where it is: "folded" (inside a fold: a stub, a test
# file, a solution, an output), or "shown". Folds are opened first: what a reader reveals.
CODE_SIZES = """() => {
  document.querySelectorAll('article details').forEach(d => d.open = true);
  const sizes = {folded: [], shown: []};
  for (const code of document.querySelectorAll('article pre > code')) {
    sizes[code.closest('details') ? 'folded' : 'shown']
      .push(parseFloat(getComputedStyle(code).fontSize));
  }
  return sizes;
}"""

# Each table's scrolling box (Material's `.md-typeset__scrollwrap`): whether the table is
# wider than it, the label its ::before shows, and whether it casts an edge shadow.
TABLES = """() => [...document.querySelectorAll('article table:not([class])')].map(table => {
  const box = table.closest('.md-typeset__scrollwrap') ?? table;
  const style = getComputedStyle(box);
  return {
    head: table.querySelector('th')?.textContent.trim() ?? '?',
    wide: box.scrollWidth > box.clientWidth + 1,
    label: getComputedStyle(box, '::before').content,
    shadow: style.backgroundImage.includes('radial-gradient'),
  };
})"""

# Visible code lines that wrap: the tokens (with no space in them) split over two rows though
# they would fit in one, and whether the line is marked as continued (docs/stylesheets/
# katas.css: a bar one line down, beside the continuation rows).
WRAPPED_LINES = r"""() => {
  const lines = [...document.querySelectorAll('article pre > code > span[id^="__span-"]')]
    .filter(line => !line.closest('details:not([open])') && !line.closest('.scrolls-sideways'))
    .filter(line => line.checkVisibility());
  const report = [];
  for (const line of lines) {
    const style = getComputedStyle(line);
    const height = parseFloat(style.lineHeight);
    if (line.getBoundingClientRect().height < 1.5 * height) continue;
    const row = line.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const split = [...line.querySelectorAll('span[class]')]
      .filter(token => !/\s/.test(token.textContent))
      .filter(token => {
        // A token is one box per row it is on, and one per piece between the <wbr>s that
        // docs/hooks.py puts after each `|` of a long one: it is split if it is on two rows.
        const rects = [...token.getClientRects()];
        const rows = new Set(rects.map(r => Math.round(r.top))).size;
        return rows > 1 && rects.reduce((sum, r) => sum + r.width, 0) < row - 1;
      })
      .map(token => token.textContent);
    report.push({
      text: line.textContent.trim().slice(0, 60),
      split,
      marked: style.backgroundImage.includes('linear-gradient')
        && parseFloat(style.backgroundPositionY) >= height
        && parseFloat(style.backgroundPositionY) < 1.5 * height,
    });
  }
  return report;
}"""

# Visible code lines whose first row does not start where their indentation ends (the
# hanging indent, docs/stylesheets/katas.css, moved it), with where it starts, in columns.
MISPLACED_LINES = """() => {
  const lines = [...document.querySelectorAll('article pre > code > span[style*="--i:"]')]
    .filter(line => !line.closest('details:not([open])') && !line.closest('.scrolls-sideways'))
    .filter(line => line.checkVisibility());
  const misplaced = lines.flatMap(line => {
    const indent = parseInt(line.style.getPropertyValue('--i'));
    // The line's first character that is not a space, wherever its token starts.
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    let node, offset = -1;
    while ((node = walker.nextNode()) && (offset = node.data.search(/\\S/)) < 0);
    if (!node) return [];
    const range = document.createRange();
    range.setStart(node, offset);
    range.setEnd(node, offset + 1);
    const first = range.getBoundingClientRect();
    const at = (first.left - line.getBoundingClientRect().left) / first.width;
    return Math.abs(at - indent) > 0.5
      ? [`${line.textContent.trim().slice(0, 50)} (indent ${indent}, at ${at.toFixed(1)})`]
      : [];
  });
  return {checked: lines.length, misplaced};
}"""

# Pairs of texts in a diagram (inline SVG with role=img) that run into each other: level
# texts (not a rotated axis title) on one row that overlap, or, for two tick labels of a
# chart's axis (matplotlib's `xtick_N` groups), stand less than a third of their height apart
# ("32 KiB256 KiB" touched, 2 px apart, without overlapping).
CHART_COLLISIONS = """() => [...document.querySelectorAll('article svg[role=img]')].flatMap(svg => {
  const texts = [...svg.querySelectorAll('text')]
    .filter(t => t.textContent.trim() && Math.abs(t.getCTM().b) < 1e-6)
    .map(t => [t.textContent.trim(), t.getBoundingClientRect(), !!t.closest('g[id*="tick_"]')]);
  const hits = [];
  texts.forEach(([a, r, tickA], i) => texts.slice(i + 1).forEach(([b, s, tickB]) => {
    const height = Math.min(r.height, s.height);
    const row = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
    const gap = Math.max(s.left - r.right, r.left - s.right);
    if (row > height / 2 && gap < (tickA && tickB ? height / 3 : 0)) {
      hits.push(`${svg.querySelector('title')?.textContent}: ${a} / ${b} (${gap.toFixed(1)} px)`);
    }
  }));
  return hits;
})"""


@dataclass
class Fold:
    """A hint or solution fold, before and after a reader clicks its title."""

    kind: str
    title: str
    shown_before_click: bool
    open_after_click: bool
    shown_after_click: bool


@dataclass
class PageReport:
    path: str
    errors: list[str] = field(default_factory=list)
    off_host: list[str] = field(default_factory=list)
    has_h1: bool = False
    cut_code: list[str] = field(default_factory=list)
    widths: tuple[int, int] = (0, 0)  # the document's and the window's
    output_labels: list[str] = field(default_factory=list)
    folds: list[Fold] = field(default_factory=list)
    diagrams: list[dict] = field(default_factory=list)
    broken_identifiers: list[str] = field(default_factory=list)
    sideways: list[dict] = field(default_factory=list)
    tables: list[dict] = field(default_factory=list)
    wrapped: list[dict] = field(default_factory=list)
    chart_collisions: list[str] = field(default_factory=list)
    code_sizes: dict[str, list[float]] = field(default_factory=dict)
    indents: dict = field(default_factory=dict)


def _survey(visit: Visit, base_url: str, pages: list[str], click: bool) -> dict[str, PageReport]:
    """Load every page once and record what the tests below check. The folds of kata and
    discussion pages are clicked last (`click`), after the code was measured with them shut."""
    reports = {}
    for path in pages:
        visit.errors.clear()
        visit.off_host.clear()
        page = visit.open(base_url + path, search_ready=path == "")
        report = PageReport(path)
        report.has_h1 = page.locator("article h1").count() > 0
        report.cut_code = page.evaluate(OVERFLOWING_CODE)
        report.widths = tuple(
            page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        )
        report.output_labels = page.evaluate(OUTPUT_LABELS)
        report.diagrams = page.evaluate(DIAGRAMS)
        report.broken_identifiers = page.evaluate(BROKEN_IDENTIFIERS)
        report.sideways = page.evaluate(SIDEWAYS)
        report.tables = page.evaluate(TABLES)
        report.chart_collisions = page.evaluate(CHART_COLLISIONS)
        if click and path.startswith(("katas/", "discussions/")):
            before = page.evaluate(FOLDS)
            for summary in page.locator(f"{FOLD} > summary").all():
                summary.click()  # a real click, where a reader's pointer would land
            after = page.evaluate(FOLDS)
            report.folds = [
                Fold(b["kind"], b["title"], b["shown"], a["open"], a["shown"])
                for b, a in zip(before, after, strict=True)
            ]
        # Last, with every fold open: what a reader reveals reads like the rest.
        report.code_sizes = page.evaluate(CODE_SIZES)
        report.wrapped = page.evaluate(WRAPPED_LINES)
        report.indents = page.evaluate(MISPLACED_LINES)
        report.errors = list(visit.errors)
        report.off_host = list(visit.off_host)
        reports[path] = report
    return reports


@pytest.fixture(scope="module")
def on_desktop(site_dir: Path, base_url: str, desktop: Visit) -> dict[str, PageReport]:
    return _survey(desktop, base_url, _pages(site_dir), click=True)


@pytest.fixture(scope="module")
def on_phone(site_dir: Path, base_url: str, phone: Visit) -> dict[str, PageReport]:
    return _survey(phone, base_url, _pages(site_dir), click=False)


def test_the_site_has_its_pages(on_desktop):
    kata_pages = [f"{kind}/{k.name}/" for kind in ("katas", "discussions") for k in KATAS]
    for path in ["", *kata_pages]:
        assert path in on_desktop, f"/{path} was not built; pages: {sorted(on_desktop)}"


def test_every_page_loads_with_no_error_and_no_request_to_another_host(on_desktop):
    problems = []
    for path, report in on_desktop.items():
        if not report.has_h1:
            problems.append(f"/{path}: no h1 heading")
        problems += [f"/{path}: console error: {e}" for e in report.errors]
        problems += [f"/{path}: requested {url}" for url in report.off_host]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("screen", ["on_desktop", "on_phone"])
def test_no_visible_code_is_cut_off_and_no_page_scrolls_sideways(screen, request):
    problems = []
    for path, report in request.getfixturevalue(screen).items():
        problems += [f"/{path}: code cut off at: {line!r}" for line in report.cut_code]
        document, window = report.widths
        if document > window:
            problems.append(f"/{path}: the page scrolls sideways ({document} px in {window})")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("screen", ["on_desktop", "on_phone"])
def test_diagrams_fit_the_column_and_read_at_12px(screen, request):
    """A diagram wider than a phone's column hides its end behind a sideways scroll with no
    cue (DataParallel lost its gather stage); its text must read at 12 px or more."""
    problems, seen = [], 0
    for path, report in request.getfixturevalue(screen).items():
        for d in report.diagrams:
            seen += 1
            if d["left"] < -1 or d["right"] > 1:
                problems.append(f"/{path}: {d['title']!r} sticks out of the column")
            if d["smallest"] < 12:
                problems.append(f"/{path}: {d['title']!r} has text at {d['smallest']:.1f} px")
    assert seen >= 5, f"only {seen} diagrams found: are they still inline SVG with role=img?"
    assert not problems, "\n".join(problems)


def test_tabular_output_keeps_its_columns_on_a_phone_and_says_it_scrolls(on_phone):
    """The doctor's table on GPU hosts lost its alignment when its lines wrapped at 390 px. A
    `.scrolls-sideways` box keeps each line whole and scrolls instead, with a shadow at the
    hidden edge and a label that says so; these are the only boxes exempt from the cut-off
    check above, and SCROLLS_SIDEWAYS names each."""
    found = {path: len(r.sideways) for path, r in on_phone.items() if r.sideways}
    assert found == SCROLLS_SIDEWAYS, (
        f"sideways-scrolling boxes {found}, expected {SCROLLS_SIDEWAYS}"
    )
    problems = []
    for path in found:
        for box in on_phone[path].sideways:
            if not box["scrolls"]:
                problems.append(f"/{path}: a .scrolls-sideways box does not scroll")
            if not box["wider"]:
                problems.append(f"/{path}: a .scrolls-sideways box fits: it needs no exemption")
            if "scroll sideways" not in box["label"]:
                problems.append(f"/{path}: its label {box['label']} does not say it scrolls")
            problems += [f"/{path}: line wraps: {line!r}" for line in box["wrapped"]]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("screen", ["on_desktop", "on_phone"])
def test_a_table_wider_than_its_column_says_so(screen, request):
    """On a phone, Getting started's, GPU hosts' and Benchmarks' tables were cut at their last
    column with nothing to say so. docs/javascripts/wide-tables.js marks a table's box when it
    scrolls; it then shows a label and a shadow at the hidden edge. A table that fits shows
    neither."""
    reports = request.getfixturevalue(screen)
    problems, wide_on = [], set()
    for path, report in reports.items():
        for table in report.tables:
            cued = "scroll sideways" in table["label"]
            if table["wide"]:
                wide_on.add(path)
                if not cued or not table["shadow"]:
                    problems.append(
                        f"/{path}: the table headed {table['head']!r} is wider than its column "
                        f"with no cue (label {table['label']}, shadow {table['shadow']})"
                    )
            elif cued:
                problems.append(f"/{path}: the table headed {table['head']!r} fits, yet is cued")
    assert not problems, "\n".join(problems)
    if screen == "on_phone":
        expected = {"getting-started/", "gpu-hosts/", "benchmarks/"}
        assert expected <= wide_on, f"wide tables on a phone: {sorted(wide_on)}: is it vacuous?"


@pytest.mark.parametrize("screen", ["on_desktop", "on_phone"])
def test_revealed_code_reads_at_the_size_of_the_other_code(screen, request):
    """Code in a fold (a stub, a test file, a solution, an output) was 10.2 px on a phone,
    against 12.8 px for the code on the page: Material's folds set smaller type."""
    problems, folded = [], 0
    for path, report in request.getfixturevalue(screen).items():
        sizes = report.code_sizes
        folded += len(sizes["folded"])
        for size in set(sizes["folded"] + sizes["shown"]):
            if size < 12.5:
                problems.append(f"/{path}: code at {size} px")
        if sizes["folded"] and sizes["shown"] and set(sizes["folded"]) != set(sizes["shown"]):
            problems.append(
                f"/{path}: folded code at {sorted(set(sizes['folded']))} px, the rest at "
                f"{sorted(set(sizes['shown']))} px"
            )
    assert folded > 50, f"only {folded} folded code blocks: are the folds still <details>?"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("screen", ["on_desktop", "on_phone"])
def test_a_long_code_line_wraps_between_tokens_and_is_marked_as_continued(screen, request):
    """A wrapped line broke inside a name (`np.empt` / `y(0)`), and its hanging indent read as
    Python indentation. docs/hooks.py lets a line break between tokens, and keeps a token
    with a `|` or a bracket in it whole unless it is wider than a row (a regex string split
    at `CUDA|` on a desktop); docs/stylesheets/katas.css marks continuation rows with a bar."""
    problems, wrapped = [], 0
    for path, report in request.getfixturevalue(screen).items():
        for line in report.wrapped:
            wrapped += 1
            problems += [f"/{path}: {token!r} split in {line['text']!r}" for token in line["split"]]
            if not line["marked"]:
                problems.append(f"/{path}: {line['text']!r} wraps with no continuation mark")
    if screen == "on_phone":
        assert wrapped > 100, f"only {wrapped} wrapped code lines on a phone: vacuous?"
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("screen", ["on_desktop", "on_phone"])
def test_a_code_line_starts_where_its_indentation_ends(screen, request):
    """The hanging indent's cap (half the box) resolved differently for padding and
    text-indent: in a fold on a phone, a line indented 12 columns started at 16."""
    problems, checked = [], 0
    for path, report in request.getfixturevalue(screen).items():
        checked += report.indents["checked"]
        problems += [f"/{path}: {line}" for line in report.indents["misplaced"]]
    assert checked > 1000, f"only {checked} indented code lines checked: vacuous?"
    assert not problems, f"{len(problems)} lines:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("screen", ["on_desktop", "on_phone"])
def test_no_text_of_a_chart_runs_into_another(screen, request):
    """The benchmark charts' byte axis read "32 KiB256 KiB" (benchmarks/report.py)."""
    problems = [
        f"/{path}: {hit}"
        for path, report in request.getfixturevalue(screen).items()
        for hit in report.chart_collisions
    ]
    assert not problems, "\n".join(problems)


def test_identifiers_in_tables_never_break_mid_word(on_phone):
    problems = [
        f"/{path}: {text!r} breaks over two lines"
        for path, report in on_phone.items()
        for text in report.broken_identifiers
    ]
    assert not problems, "\n".join(problems)


# --- the home page and getting the code ---------------------------------------------------------

HOME = """() => {
  const article = document.querySelector('article');
  const list = [...article.querySelectorAll('ol')]
    .find(ol => ol.querySelector('a[href^="katas/"]'));
  const top = el => el.getBoundingClientRect().top + window.scrollY;
  return {
    headings: [...article.querySelectorAll('h2')]
      .map(h => [h.textContent.replace('¶', '').trim(), top(h)]),
    katas: list ? list.querySelectorAll(':scope > li').length : 0,
    top: list ? top(list) : null,
    visible: list ? list.checkVisibility() : false,
  };
}"""


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_home_page_lists_the_katas_first(request, base_url, screen):
    """The list of katas came last, after a long passage on test tiers: a reader who came for
    the katas scrolled past it all. It is now the first section: no other heading before it."""
    visit = request.getfixturevalue(screen)
    home = visit.open(base_url).evaluate(HOME)
    assert home["katas"] == len(KATAS) and home["visible"], f"the list of katas: {home}"
    first, *_ = home["headings"]
    assert first[0] == "The katas, in order", f"the home page's first section is {first[0]!r}"
    assert all(home["top"] < top for _, top in home["headings"][1:]), home


GET_THE_CODE = """() => [...document.querySelectorAll('article .get-the-code')]
  .map(box => ({text: box.innerText, visible: box.checkVisibility()}))"""

# The pages that tell a reader to get the code (docs/hooks.py renders `<!-- get-the-code -->`).
GET_THE_CODE_PAGES = ["getting-started/", "gpu-hosts/"]


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_every_page_that_needs_the_code_says_how_to_get_it(request, base_url, screen):
    """Getting started said "get the repository the way this site reached you", GPU hosts
    showed `git clone <this repository>`. Both now show the one text of `<!-- get-the-code -->`:
    a `git clone` of the public address when the site was built with one (KATAS_REPO_URL),
    else where the code is for each way of reading the site."""
    visit = request.getfixturevalue(screen)
    url = os.environ.get("KATAS_REPO_URL", "").strip()  # as docs/hooks.py reads it
    for path in GET_THE_CODE_PAGES:
        page = visit.open(base_url + path)
        boxes = page.evaluate(GET_THE_CODE)
        assert len(boxes) == 1 and boxes[0]["visible"], f"/{path}: get-the-code boxes {boxes}"
        text = page.locator("article").inner_text()
        for vague in ("<this repository>", "the way this site reached you"):
            assert vague not in text, f"/{path} still says {vague!r}"
        if url:
            assert f"git clone {url}" in boxes[0]["text"], f"/{path}: {boxes[0]['text']!r}"
        else:
            assert "python -m katas docs" in boxes[0]["text"], f"/{path}: {boxes[0]['text']!r}"
            assert "git clone <address>" in boxes[0]["text"], f"/{path}: {boxes[0]['text']!r}"


# --- kata pages ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kata", KATAS, ids=[k.name for k in KATAS])
def test_executed_output_is_boxed_and_labelled(on_desktop, kata):
    """The experiments are on the discussion page; a kata page's questions may run code too."""
    labels = on_desktop[f"discussions/{kata.name}/"].output_labels
    assert labels, f"discussions/{kata.name}: no executed output in an Output box"
    labels += on_desktop[f"katas/{kata.name}/"].output_labels
    assert set(labels) == {'"Output"'}, f"{kata.name}: output labels {labels}"


@pytest.mark.parametrize("kata", KATAS, ids=[k.name for k in KATAS])
def test_hints_and_solutions_stay_closed_until_clicked_on_the_discussion(on_desktop, kata):
    where = f"discussions/{kata.name}"
    folds = on_desktop[f"{where}/"].folds
    hints = [f.title for f in folds if "tip" in f.kind.split()]
    solutions = [f.title for f in folds if "success" in f.kind.split()]
    expected = [f"{n}. {hint.about}" for n, hint in enumerate(kata.hints, start=1)]
    assert hints == expected, f"{where}: hints {hints}, but the catalogue has {expected}"
    reference = [title for title in solutions if "the reference solution" in title]
    assert len(reference) == 1, f"{where}: reference solution folds {reference}"
    others = len(list(kata.solutions.glob("*.py")))
    assert len(solutions) == 1 + others, (
        f"{where}: {len(solutions) - 1} folds of other solutions, but tests/solutions/ has {others}"
    )
    spoilers = [f.title for f in folds if "danger" in f.kind.split()]
    mistakes = [title for title in spoilers if "wrong solutions" in title]
    assert len(mistakes) == 1, f"{where}: the mistakes should be one spoiler fold"
    for fold in folds:
        assert not fold.shown_before_click, f"{where}: {fold.title!r} shows unasked"
        assert fold.open_after_click and fold.shown_after_click, (
            f"{where}: {fold.title!r} did not open when clicked"
        )


@pytest.mark.parametrize("kata", KATAS, ids=[k.name for k in KATAS])
def test_a_kata_page_holds_no_spoiler_fold(on_desktop, kata):
    """Folded is one click away, and nothing at all in reader mode or a text dump: a kata page
    holds no hint, solution or mistake fold (its stub is an `abstract` fold)."""
    spoilers = [
        f.title
        for f in on_desktop[f"katas/{kata.name}/"].folds
        if {"tip", "success", "danger"} & set(f.kind.split())
    ]
    assert not spoilers, f"katas/{kata.name}: spoiler folds {spoilers}"


# --- search -------------------------------------------------------------------------------------


# Types each query into Material's search box as a reader's keystroke would end (the box's
# value, then the keyup that Material's search listens for), waits for the old results to go
# and the new ones to come, and notes the first hit. All in the page, in one round trip: 0.035 s
# a query against 0.11 s driven key by key from Python, same hits (about 250 queries here).
# test_a_search_result_opens_the_section_that_matched types with real key presses.
# Material writes the count line from the worker's answer and the box's value *now*, so the
# empty box's late answer, written after the next query is typed, reads "No matching
# documents" (material/.../search/result/index.ts: withLatestFrom(query$)). Waiting only for
# "no digit" let one query that found nothing shift every later answer onto the wrong query,
# and they all read "No matching": the clearing waits for the empty box's own answer, the
# placeholder, before the next query is typed (the worker answers in order).
SEARCH_EACH = """async (queries) => {
  const box = document.querySelector('input.md-search__input');
  const meta = document.querySelector('.md-search-result__meta');
  const until = (ok) => new Promise((done, fail) => {
    const give_up = performance.now() + 10000;
    const look = () => ok() ? done() : performance.now() > give_up ? fail() : setTimeout(look, 5);
    look();
  });
  const type = (text) => {
    box.focus();
    box.value = text;
    box.dispatchEvent(new KeyboardEvent('keyup', {key: 'End', bubbles: true}));
  };
  const hits = [];
  for (const query of queries) {
    try {
      type('');
      await until(() => /Type to start/.test(meta.textContent));
      type(query);
      await until(() => /\\d|No matching/.test(meta.textContent));
      const first = document.querySelector('.md-search-result__item > a');
      hits.push(first ? new URL(first.href).pathname : `(nothing: ${meta.textContent})`);
    } catch {
      hits.push(`(no results within 10 s: ${meta.textContent})`);
    }
  }
  return hits;
}"""


@pytest.fixture(scope="module")
def search(base_url: str, browser: Browser) -> Iterator:
    """`search(query)`: the path of the first result for `query` in the site's search box;
    `search.each(queries)` does many at once. Every pasted message is searched at the start."""
    visit = Visit(browser, viewport=DESKTOP)
    page = visit.open(base_url, search_ready=True)
    found: dict[str, str] = {}

    def each(queries: list[str]) -> list[str]:
        new = [q for q in dict.fromkeys(queries) if q not in found]
        if new:
            found.update(zip(new, page.evaluate(SEARCH_EACH, new), strict=True))
        return [found[q] for q in queries]

    def first_hit(query: str) -> str:
        return each([query])[0]

    first_hit.each = each
    each([message for message, _ in _search_cases()])
    yield first_hit
    errors = visit.errors + visit.off_host
    visit.close()
    assert not errors, f"searching caused: {errors}"


@pytest.mark.parametrize(
    "message, kata",
    _search_cases(),
    ids=[f"{i}-{message[:32]}" for i, (message, _) in enumerate(_search_cases())],
)
def test_a_pasted_error_message_finds_the_page_that_explains_it(search, message, kata):
    hit = search(message)
    pages = (f"/katas/{kata}/", f"/discussions/{kata}/", "troubleshooting")
    assert any(page in hit for page in pages), (
        f"searching {message!r} lands first on {hit}, not on the kata {kata}, its discussion "
        "or troubleshooting"
    )


def _api_names(site: Path) -> dict[str, set[str]]:
    """Every torch API a page names in inline code (`torch.cuda.synchronize`, with any call
    stripped), and the pages that name it."""
    import html as _html

    found: dict[str, set[str]] = {}
    for page in site.rglob("index.html"):
        if "assets" in page.parts:
            continue
        rel = page.parent.relative_to(site).as_posix()
        for code in re.findall(r"<code>(.*?)</code>", page.read_text()):
            text = _html.unescape(re.sub(r"<[^>]+>", "", code))
            if name := re.match(r"torch(?:\.[A-Za-z]\w*)+", text):
                found.setdefault(name[0], set()).add("" if rel == "." else f"{rel}/")
    return found


def _api_queries(site: Path) -> list[tuple[str, str]]:
    """(what a reader types, the API's bare name): the dotted name always, the bare name when
    it is distinctive enough to search for alone (`set_default_device`, `synchronize`, not
    `empty` or `load`), and the name after `torch.` (`cuda.synchronize`)."""
    queries = []
    for name in sorted(_api_names(site)):
        parts = name.split(".")
        bare = parts[-1]
        queries.append((name, bare))
        if len(parts) > 2:
            queries.append((".".join(parts[1:]), bare))
        if "_" in bare.strip("_") or len(bare) >= 9:
            queries.append((bare, bare))
    return queries


def test_every_torch_api_a_page_names_is_found_by_its_bare_and_dotted_names(site_dir, search):
    """Search keeps a dotted name whole (mkdocs.yml, separator) and docs/hooks.py indexes its
    shorter forms, so `set_default_device` finds the page that writes
    `torch.set_default_device(...)`, and `cudnn.enabled` the one that writes
    `torch.backends.cudnn.enabled = False`; the first hit is a page naming it."""
    queries = _api_queries(site_dir)
    assert len(queries) > 40, f"only {len(queries)} API names found on the pages"
    problems = []
    for (query, bare), hit in zip(queries, search.each([q for q, _ in queries]), strict=True):
        page = site_dir / hit.lstrip("/") / "index.html" if not hit.startswith("(") else None
        if page is None or not page.is_file():
            problems.append(f"{query!r} finds {hit}")
        elif bare not in page.read_text():
            problems.append(f"{query!r} lands first on {hit}, which never names {bare}")
    assert not problems, f"{len(problems)} of {len(queries)} searches:\n" + "\n".join(problems)


def _type_query(page: Page, box, meta, query: str) -> None:
    """Clear the search box and wait for the empty box's own answer (the placeholder), then
    type `query` as one keystroke's end (Material searches on keyup, not on fill) and wait
    for its answer. Waiting for "no digit" after clearing, or typing key by key (each key a
    query of its own), could read an earlier query's answer (see SEARCH_EACH)."""
    box.fill("")
    box.press("End")
    page.wait_for_function("m => /Type to start/.test(m.textContent)", arg=meta.element_handle())
    box.fill(query)
    box.press("End")
    page.wait_for_function("m => /\\d|No matching/.test(m.textContent)", arg=meta.element_handle())


# Each search result group: its title link, and its links with Material's score for each.
RESULT_GROUPS = """() => [...document.querySelectorAll('li.md-search-result__item')].map(item =>
  [...item.querySelectorAll('a.md-search-result__link')].map(a => ({
    href: a.href,
    score: parseFloat(a.querySelector('article').dataset.mdScore),
  })))"""

# Searches whose best match is a section of a page, not its top.
SECTION_QUERIES = ["memory_allocated", "CUDA_VISIBLE_DEVICES", "pin_memory", "doctor"]


def test_a_search_result_opens_the_section_that_matched(base_url, browser):
    """Material renders each page's group with the page itself first, as the title link, even
    when a section scored higher; docs/javascripts/search-sections.js points that link (and so
    Enter in the search box) at the best-scoring section. Teasers read as the page does."""
    visit = Visit(browser, viewport=DESKTOP)
    try:
        page = visit.open(base_url, search_ready=True)
        box = page.locator("input.md-search__input")
        meta = page.locator(".md-search-result__meta")
        problems, to_sections, indexed_forms = [], 0, 0
        for query in SECTION_QUERIES:
            box.click()
            _type_query(page, box, meta, query)
            page.wait_for_timeout(100)  # the script rewrites the links after Material renders
            for group in page.evaluate(RESULT_GROUPS):
                title, best = group[0], max(group, key=lambda link: link["score"])
                if best["score"] > title["score"] and title["href"] != best["href"]:
                    problems.append(f"{query!r}: {title['href']} is not the best, {best['href']}")
                to_sections += "#" in title["href"]
            # The shorter API forms docs/hooks.py indexes (in a <sub>) stay out of teasers.
            forms = page.evaluate(
                "() => [...document.querySelectorAll('.md-search-result sub')]"
                ".map(sub => [sub.textContent, sub.checkVisibility()])"
            )
            indexed_forms += len(forms)
            problems += [f"{query!r}: a teaser shows {text!r}" for text, shown in forms if shown]
        assert not problems, "\n".join(problems)
        assert to_sections, f"no search of {SECTION_QUERIES} led to a section: test is vacuous"
        assert indexed_forms, f"no teaser of {SECTION_QUERIES} held a search-only form: vacuous"
        # A reader who presses Enter follows the first result, to its section ("doctor" is
        # last: its first result is a section of GPU hosts).
        first = page.locator(".md-search-result__item > a").first.get_attribute("href")
        box.press("Enter")
        page.wait_for_url(lambda url: "#" in url)
        assert urlsplit(page.url).fragment == urlsplit(first).fragment, (page.url, first)
        assert not visit.errors + visit.off_host, visit.errors + visit.off_host
    finally:
        visit.close()


# An API name a reader searches for, and the kata whose discussion explains it (issue 29).
API_TEACHERS = [
    ("synchronize", "sync_points"),
    ("torch.cuda.synchronize", "sync_points"),
    ("to_empty", "default_device"),
    ("pin_memory", "pinned_dataloader"),
]

# Each result group: its page's path and the discussion label it shows, if any.
RESULT_PAGES = """() => [...document.querySelectorAll('li.md-search-result__item')].map(item => {
  const link = item.querySelector('a.md-search-result__link');
  const label = item.querySelector('.kata-discussion-label');
  const shown = label?.checkVisibility() ? label.textContent : '';
  return {path: new URL(link.href).pathname, label: shown};
})"""


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_an_api_name_finds_the_discussion_that_explains_it_labelled_as_one(
    base_url, browser, screen
):
    """`synchronize`, `to_empty` and `pin_memory` did not bring the kata that teaches them
    among the first three pages. A discussion page indexes its kata's `subject` and
    `resolves` (docs/hooks.py), and docs/javascripts/search-sections.js labels every result
    on a discussion page with its kata, so a reader knows the link resolves a kata."""
    options = {"viewport": DESKTOP} if screen == "desktop" else {
        "viewport": PHONE, "is_mobile": True, "has_touch": True
    }  # fmt: skip
    visit = Visit(browser, **options)
    try:
        page = visit.open(base_url, search_ready=True)
        if screen == "phone":
            page.locator("label.md-header__button[for=__search]").click()
        box = page.locator("input.md-search__input")
        meta = page.locator(".md-search-result__meta")
        problems = []
        for query, kata in API_TEACHERS:
            _type_query(page, box, meta, query)
            page.wait_for_timeout(100)  # the script labels the results after Material renders
            groups = page.evaluate(RESULT_PAGES)
            top = [g["path"] for g in groups[:3]]
            wanted = f"/discussions/{kata}/"
            if not any(path.endswith(wanted) for path in top):
                problems.append(f"{query!r}: the first three pages are {top}, not {wanted}")
            for group in groups:
                discussion = "/discussions/" in group["path"]
                if discussion and not group["label"].startswith("Discussion of kata "):
                    problems.append(f"{query!r}: {group['path']} has no discussion label")
                if not discussion and group["label"]:
                    problems.append(f"{query!r}: {group['path']} is labelled {group['label']!r}")
            number = next(k.number for k in KATAS if k.name == kata)
            labels = [g["label"] for g in groups if g["path"].endswith(wanted)]
            if labels and not labels[0].startswith(f"Discussion of kata {number}, "):
                problems.append(f"{query!r}: {wanted} is labelled {labels[0]!r}")
        assert not problems, "\n".join(problems)
        assert not visit.errors + visit.off_host, visit.errors + visit.off_host
    finally:
        visit.close()


# --- theme --------------------------------------------------------------------------------------


def _scheme(page: Page) -> str:
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def test_palette_follows_the_system_then_the_toggle(browser, base_url):
    visit = Visit(browser, viewport=DESKTOP, color_scheme="dark")
    try:
        page = visit.open(base_url, search_ready=True)
        assert _scheme(page) == "slate", "a reader whose system is dark gets the light theme"
        page.locator("form[data-md-component=palette] label:visible").first.click()
        page.wait_for_function("() => document.body.dataset.mdColorScheme === 'default'")
        page.reload()
        assert _scheme(page) == "default", "the reader's choice is forgotten on the next page"
        page.locator("form[data-md-component=palette] label:visible").first.click()
        page.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'")
        assert not visit.errors, visit.errors
    finally:
        visit.close()


def test_screenshots_of_a_kata_page(browser, base_url, desktop, phone, capsys):
    SCREENSHOTS.mkdir(exist_ok=True)
    saved = []
    dark = Visit(browser, viewport=DESKTOP, color_scheme="dark")
    for name, visit in (("desktop", desktop), ("phone", phone), ("desktop-dark", dark)):
        page = visit.open(_kata_page(base_url, SCREENSHOT_KATA))
        # Where a demo's output is, the part of a page most likely to be cut off; else the stub.
        page.locator(".md-typeset .result, .md-typeset details").first.scroll_into_view_if_needed()
        page.wait_for_timeout(300)  # the header's title swap animates on scroll
        path = SCREENSHOTS / f"{SCREENSHOT_KATA}-{name}.png"
        page.screenshot(path=path)
        saved.append(path)
        assert path.stat().st_size > 10_000, f"{path} is nearly empty"
    dark.close()
    with capsys.disabled():
        print("\nscreenshots:", *(str(p) for p in saved), sep="\n  ")


# --- the most searched error lands on its entry (issue 29) ---------------------------------------

# What a reader types, and the Troubleshooting entry it must open first: the phrase as typed,
# and the whole message as pasted from a terminal.
MAIN_ENTRY_QUERIES = [
    ("Expected all tensors to be on the same device", "same-device"),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cpu!",
        "same-device",
    ),
    # typed further, the words are the start of the dispatcher variant's heading only
    ("Expected all tensors to be on the same device, but got mat1", "same-device-dispatcher"),
]


def test_the_most_searched_error_opens_its_main_entry_first(base_url, browser):
    """The first result (the link Enter follows, which docs/javascripts/search-sections.js
    points at the best-scoring section) is Troubleshooting's main entry for the message, not
    another entry that quotes it. Typed, it lost to `to*` matching `torch.cuda.amp...` while
    the stop words of its own heading were not indexed (mkdocs.yml: `pipeline: []`); pasted,
    to the entry whose heading runs on past the shared start (docs/hooks.py indexes the rest
    of the main entry's message with its heading). Typed, it later lost to `device*` reaching
    the rare token `device_type` in autocast-device-type's short heading: a heading that holds
    the typed words as they stand now goes first (docs/javascripts/search-sections.js)."""
    visit = Visit(browser, viewport=DESKTOP)
    try:
        page = visit.open(base_url, search_ready=True)
        box = page.locator("input.md-search__input")
        meta = page.locator(".md-search-result__meta")
        problems = []
        for query, anchor in MAIN_ENTRY_QUERIES:
            box.click()
            _type_query(page, box, meta, query)
            page.wait_for_timeout(100)  # the script rewrites the links after Material renders
            first = page.locator(".md-search-result__item > a").first.get_attribute("href")
            where = urlsplit(first)
            if not where.path.endswith("/troubleshooting/") or where.fragment != anchor:
                problems.append(f"{query!r} opens {first} first, not troubleshooting/#{anchor}")
        assert not problems, "\n".join(problems)
        assert not visit.errors + visit.off_host, visit.errors + visit.off_host
    finally:
        visit.close()
