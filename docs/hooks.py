"""MkDocs hooks: fill kata pages from the catalogue and the mistake corpus, let the pages'
`exec` code blocks import `katas` and `reference`, and present code the same way on every page.

Markers a page may hold, each alone on its line (a marker quoted in prose is left alone):
- `<!-- catalogue -->`: the numbered list of katas (the home page);
- `<!-- get-the-code -->`: how to get the code: `git clone` when KATAS_REPO_URL is set, else
  a plain sentence (Getting started);
- `<!-- stub -->`: the stub the learner fills in, generated from the reference, folded;
- `<!-- hints -->`: the kata's hint ladder, each rung folded and titled by what it is about;
- `<!-- mistakes -->`: the kata's mistake corpus, one line each, folded as a spoiler;
- `<!-- solution -->`: the reference without its solution markers, folded as a spoiler;
- `<!-- solutions -->`: the correct solutions of tests/solutions/<name>/, each file folded and
  titled by the first sentence of its docstring.

Each kata has two pages. Its kata page, docs/katas/<name>.md, is read before the attempt: it
must hold `<!-- stub -->`, and it may hold nothing that resolves the kata: none of the other
four markers and no include of a file under tests/ (the build fails with a PluginError that
says which). Its discussion page, docs/discussions/<name>.md, is read after: it must hold the
last four (and may show the stub too).

Predict, then see: an executed block with `predict="on"` shows its code as a plain block and
folds its output below it ("Output"), so a reader can guess before looking.

How code is shown, on every page (pages need not do anything for it):
- A code block that includes a whole file (`--8<-- "path"` alone in the block) is shown folded:
  a collapsed `???` block titled with the block's `title="..."`, or the file's path. Files
  run to hundreds of lines of up to 100 characters, in a column of about 78: the page reads as
  prose, and a file opens on request. A fold the page wrote itself keeps its kind and title,
  and is collapsed if it was open (`???+`).
- Files under `tests/` stay on the page but out of the search index (`data-search-exclude`),
  so a search for an error message lands on the prose that explains it, not on a test that
  quotes it.
- The output of an executed block (markdown-exec, `result="..."`) is put in a `.result` box
  (`source="above"` becomes markdown-exec's `source="block"`; an output without its source is
  wrapped), which docs/stylesheets/katas.css labels "Output" and wraps instead of cutting.
- No code is cut off: a line too long for the column wraps, at a space or between two tokens
  (`on_page_content` puts a `<wbr>` where two highlighted tokens touch, so `np.empty(0)` wraps
  as `np.empty(` / `0)` or `np.` / `empty(0)`, never `np.empt` / `y(0)`), and its
  continuation is indented four columns deeper than the line itself, with a bar beside it
  that marks it as a continuation, not a nested block. Each line is a span
  (pymdownx.highlight `line_spans`); `on_page_content` gives each indented line its depth,
  `--i`, which docs/stylesheets/katas.css turns into the hanging indent and the bar.
"""

from __future__ import annotations

import ast
import gc
import os
import re
import sys
from html import escape as html_escape
from html import unescape as html_unescape
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from dojo import catalogue as _catalogue  # noqa: E402
from dojo import errors as _errors  # noqa: E402

sys.path.remove(str(ROOT))

# Included files under these folders are shown but not indexed for search.
NOT_SEARCHED = ("tests/",)
# The fold kind for a whole-file include that the page did not fold itself.
FILE_FOLD_KIND = "note"


_command = ""  # "build", "gh-deploy" or "serve": the command this process runs


def on_startup(command: str, dirty: bool) -> None:
    global _command
    _command = command


def _freeze_survivors() -> None:
    """Move every object alive now into the garbage collector's permanent generation.

    The build imports torch (hundreds of thousands of objects, for good) and its full
    collections traverse them all: about 0.7 s of collecting during a build, and 0.3 s more
    for the interpreter's last collection at exit. Frozen, they are skipped. The cost is that
    cyclic garbage alive at that moment is never freed, harmless in a process that builds
    once and exits, so `serve`, which rebuilds for hours, never freezes."""
    if _command != "serve":
        gc.freeze()


def on_config(config):
    """Let `exec` code blocks import the repository's code (mkdocs resets sys.path after
    loading hooks, so this cannot happen at import time), and take the repository's and the
    site's addresses from KATAS_REPO_URL / KATAS_EDIT_URI / KATAS_SITE_URL when they are set.
    Without them the site names no address: no repository link, no edit button."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    if url := repo_url():
        config["repo_url"] = url
        config["repo_name"] = url.rstrip("/").rsplit("/", 1)[-1]
        config["edit_uri"] = os.environ.get("KATAS_EDIT_URI") or "edit/main/docs/"
    if site := os.environ.get("KATAS_SITE_URL"):
        config["site_url"] = site if site.endswith("/") else site + "/"
    return config


def repo_url() -> str:
    """Where the code lives, if the builder said (KATAS_REPO_URL); "" while it has no address."""
    return os.environ.get("KATAS_REPO_URL", "").strip()


def _get_the_code() -> str:
    """`<!-- get-the-code -->`: how to get the code, honestly, with or without an address.
    Every page that tells a reader to get the code holds this marker (Getting started, GPU
    hosts): one text, and a `git clone` line only where there is an address to clone."""
    url = repo_url()
    if url:
        how = [f"```bash\ngit clone {url} pytorch-gpu-katas\ncd pytorch-gpu-katas\n```"]
    else:
        how = [
            "This copy of the site was built without the code's public address, so it shows no "
            "`git clone` line that would lead nowhere. Where you find the code depends on how "
            "you are reading this:",
            "",
            "- **Opened by `python -m katas docs`**: you have the code already. It is the "
            "folder you ran that command in, the one that holds `noxfile.py` and `katas/`; "
            "open a terminal there.",
            "- **At an address someone gave you** (a course, a team, a colleague): ask them "
            "for the repository, either its address, to run "
            "`git clone <address> pytorch-gpu-katas`, or an archive of it, to unpack. Then "
            "`cd pytorch-gpu-katas`, the folder that holds `noxfile.py`.",
        ]
    # A box of its own, so a test finds it on every page that holds the marker.
    return "\n".join(['<div class="get-the-code" markdown="1">', "", *how, "", "</div>"])


def on_post_build(config) -> None:
    """Without a site address, MkDocs writes a sitemap with no page in it: ship none."""
    if not config.get("site_url"):
        site = Path(config["site_dir"])
        for name in ("sitemap.xml", "sitemap.xml.gz"):
            (site / name).unlink(missing_ok=True)


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in text.splitlines())


def _hints(kata: _catalogue.Kata) -> str:
    intro = (
        "Climb only as far as you need: each hint is one rung, from the question to ask "
        f"yourself to close to the code. `python -m katas hint {kata.name}` gives the next one."
    )
    rungs = (
        f'??? tip "{n}. {hint.about}"\n{_indent(hint.text)}'
        for n, hint in enumerate(kata.hints, start=1)
    )
    return "\n\n".join([intro, *rungs])


def _code_fold(kind: str, title: str, path: str, text: str) -> str:
    """`text` as a collapsed block of Python; a four-backtick fence, so no line of it closes it."""
    opening = f'````python title="{path}"'
    body = "\n".join([opening, text.rstrip("\n"), "````"])
    return f'??? {kind} "{title}"\n{_indent(body)}'


def _stub(kata: _catalogue.Kata) -> str:
    from dojo import source

    return _code_fold(
        "abstract",
        f"katas/{kata.name}.py: the stub you fill in",
        f"katas/{kata.name}.py",
        source.stub_text(kata),
    )


def _solution(kata: _catalogue.Kata) -> str:
    from dojo import source

    title = f"Spoiler: the reference solution, reference/{kata.name}.py"
    return _code_fold("success", title, f"reference/{kata.name}.py", source.solution_text(kata))


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
    intro = (
        "Each is a small wrong solution in the repository; CI swaps each one in for the "
        "solution and checks that the tests reject it, with a message that teaches."
    )
    title = f"Spoilers: the {len(lines)} wrong solutions the tests catch"
    return f'??? danger "{title}"\n{_indent(intro)}\n\n{_indent(chr(10).join(lines))}'


def _docstring_title(path: Path) -> str:
    """The first sentence of the module docstring of `path`, on one line, as a fold's title."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    para = doc.split("\n\n")[0].replace("\n", " ").strip()
    if not para:
        raise PluginError(f"{path}: a correct solution needs a docstring saying how it differs")
    sentence = re.split(r"(?<=[.;:])\s", para, maxsplit=1)[0].rstrip(".;:")
    return sentence.replace('"', "'")


def _solutions(kata: _catalogue.Kata) -> str:
    paths = sorted(kata.solutions.glob("*.py"))
    if not paths:
        raise PluginError(f"{kata.name}: tests/solutions/{kata.name}/ holds no solution")
    intro = (
        "Each passes the same tests as the reference and is written differently; CI runs the "
        f"tests against every one (`python -m dojo.verify solutions --kata {kata.name}`)."
    )
    folds = []
    for path in paths:
        rel = str(path.relative_to(ROOT))
        title = f"{path.stem.replace('_', ' ')}: {_docstring_title(path)}"
        folds.append(_code_fold("success", title, rel, path.read_text()))
    return "\n\n".join([intro, *folds])


def _catalogue_list() -> str:
    return "\n".join(
        f"{k.number}. [{k.title}](katas/{k.name}.md): {k.summary}" for k in _catalogue.katas()
    )


def _replace_marker(markdown: str, marker: str, render) -> tuple[str, bool]:
    """Replace `marker` where it stands alone on a line, indented as the marker is (in a list
    item or a tab); leave a marker quoted in prose."""
    pattern = re.compile(rf"^(?P<indent>[ ]*){re.escape(marker)}[ ]*$", re.MULTILINE)
    if not pattern.search(markdown):
        return markdown, False

    def indented(match: re.Match) -> str:
        pad = match["indent"]
        return "\n".join(pad + line if line else line for line in render().split("\n"))

    return pattern.sub(indented, markdown), True


# --- how code is shown ------------------------------------------------------------------------

_FENCE = re.compile(r"^(?P<indent>[ ]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FOLD = re.compile(
    r'^(?P<indent>[ ]*)\?\?\?\+?[ ]+(?P<kind>[\w-]+)(?:[ ]+"(?P<title>[^"]*)")?[ ]*$'
)
_INCLUDE = re.compile(r'^[ ]*-{1,}8<-{1,}[ ]+"(?P<path>[^":]+)"[ ]*$')
_OPTION = re.compile(r'[ ]*(?P<key>[\w-]+)="(?P<value>[^"]*)"')


def _options(info: str) -> dict[str, str]:
    return {m["key"]: m["value"] for m in _OPTION.finditer(info)}


def _truthy(value: str | None) -> bool:
    """markdown-exec's reading of a boolean option."""
    return value is not None and value.lower() not in {"", "no", "off", "false", "0"}


def _closing(lines: list[str], start: int, indent: str, fence: str) -> int | None:
    """Index of the line closing the fence opened at `start`, or None."""
    close = re.compile(rf"^{indent}{re.escape(fence[0])}{{{len(fence)},}}[ ]*$")
    for j in range(start + 1, len(lines)):
        if close.match(lines[j]):
            return j
    return None


def _fold_file(out: list[str], block: list[str], indent: str, info: str, path: str) -> None:
    """Append `block` (a fence including the whole file `path`) to `out`, folded."""
    searched = not path.startswith(NOT_SEARCHED)
    fold = _FOLD.match(out[-1]) if out else None
    if fold and len(fold["indent"]) + 4 == len(indent):
        # The page folded the file itself: keep its kind and title, but collapsed.
        head = out.pop()
        folded = [head.replace("???+", "???", 1), *block]
        outer = fold["indent"]
    else:
        title = _options(info).get("title", path)
        info = _OPTION.sub(lambda m: "" if m["key"] == "title" else m[0], info).rstrip()
        first = f"{indent}{_FENCE.match(block[0])['fence']}{info}"
        folded = [
            f'{indent}??? {FILE_FOLD_KIND} "{title}"',
            *(f"    {line}" if line else line for line in [first, *block[1:]]),
        ]
        outer = indent
    if searched:
        out.extend(folded)
        return
    out.extend(
        [
            f'{outer}<div class="kata-file" data-search-exclude markdown="1">',
            "",
            *folded,
            "",
            f"{outer}</div>",
        ]
    )


def _label_output(out: list[str], block: list[str], indent: str, info: str) -> None:
    """Append the executed `block` to `out` so that its output lands in a `.result` box."""
    options = _options(info)
    if "result" not in options or _truthy(options.get("html")):
        out.extend(block)  # no output box: markdown or HTML output is part of the page
    elif options.get("source") == "above":
        out.extend([block[0].replace('source="above"', 'source="block"', 1), *block[1:]])
    elif "source" not in options:
        out.extend(
            [f'{indent}<div class="result" markdown="1">', "", *block, "", f"{indent}</div>"]
        )
    else:
        out.extend(block)  # tabbed, below or console: markdown-exec lays them out itself


def _predict(out: list[str], block: list[str], indent: str, info: str) -> None:
    """Append an executed `predict="on"` block: its code as a plain block, then its output
    folded below it, so the reader can predict first."""
    fence = _FENCE.match(block[0])["fence"]
    language = info.strip().split()[0] if info.strip() else "python"
    code = block[1:-1]
    bare = _OPTION.sub(
        lambda m: "" if m["key"] in ("predict", "source", "title") else m[0], info
    ).rstrip()
    if "result" not in _options(bare):
        bare += ' result="text"'  # what a Python block prints is text, not markdown
    out.extend([f"{indent}{fence}{language}", *code, f"{indent}{fence}", ""])
    out.append(f'{indent}??? example "Output: what torch {_torch_version()} printed"')
    inner = indent + "    "
    shifted = [
        f"    {line}" if line else line for line in [f"{indent}{fence}{bare}", *code, block[-1]]
    ]
    _label_output(out, shifted, inner, bare)


def _torch_version() -> str:
    import torch

    return torch.__version__.split("+")[0]


def present_code(markdown: str) -> str:
    """Fold whole-file includes and box executed output, as the module docstring says."""
    lines = markdown.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        end = _closing(lines, i, opening["indent"], opening["fence"]) if opening else None
        if opening is None or end is None:
            out.append(lines[i])
            i += 1
            continue
        block = lines[i : end + 1]
        indent, info = opening["indent"], opening["info"]
        include = _INCLUDE.match(block[1]) if len(block) == 3 else None
        if include:
            _fold_file(out, block, indent, info, include["path"])
        elif _truthy(_options(info).get("exec")) and _truthy(_options(info).get("predict")):
            _predict(out, block, indent, info)
        elif _truthy(_options(info).get("exec")):
            _label_output(out, block, indent, info)
        else:
            out.extend(block)
        i = end + 1
    return "\n".join(out)


STUB_MARKER = {"<!-- stub -->": _stub}
SPOILER_MARKERS = {
    "<!-- hints -->": _hints,
    "<!-- mistakes -->": _mistakes,
    "<!-- solution -->": _solution,
    "<!-- solutions -->": _solutions,
}


def _marked(markdown: str, marker: str) -> bool:
    return bool(re.search(rf"^[ ]*{re.escape(marker)}[ ]*$", markdown, re.MULTILINE))


def check_kata_page(src: str, markdown: str) -> None:
    """A kata page is read before the attempt: no spoiler marker, no include of tests/."""
    for marker in SPOILER_MARKERS:
        if _marked(markdown, marker):
            raise PluginError(
                f"docs/{src} holds {marker}: a kata page is read before the attempt and may "
                f"not resolve it; put it on docs/discussions/{Path(src).name}"
            )
    for line in markdown.splitlines():
        include = _INCLUDE.match(line)
        if include and include["path"].startswith("tests/"):
            raise PluginError(
                f"docs/{src} includes {include['path']}: the tests resolve the kata, so they "
                f"belong on docs/discussions/{Path(src).name}"
            )


_excepthook = [sys.excepthook]  # this process's, as it was before the page's examples ran


def on_page_markdown(markdown: str, page, config, files) -> str:
    _excepthook[0] = sys.excepthook
    src = page.file.src_uri
    markdown, _ = _replace_marker(markdown, "<!-- catalogue -->", _catalogue_list)
    markdown, _ = _replace_marker(markdown, "<!-- get-the-code -->", _get_the_code)
    kind = src.split("/", 1)[0] if "/" in src else ""
    if kind in ("katas", "discussions"):
        try:
            kata = _catalogue.get(Path(src).stem)
        except ValueError as err:
            raise PluginError(f"docs/{src}: {err}") from None
        if kind == "katas":
            check_kata_page(src, markdown)
            required, optional = STUB_MARKER, {}
        else:
            required, optional = SPOILER_MARKERS, STUB_MARKER
        for marker, render in {**required, **optional}.items():
            markdown, found = _replace_marker(markdown, marker, lambda r=render: r(kata))
            if not found and marker in required:
                raise PluginError(f"docs/{src} must contain {marker} alone on a line")
    return present_code(markdown)


# A highlighted line: its span, then maybe a token's opening span, then its leading spaces.
_LINE = re.compile(r'<span id="__span-[\d-]+"(?=>((?:<span class="[\w ]+">)?)( +))')
# An indented line's leading spaces, once it has its depth: a whitespace token of its own, or
# the start of its text (or of its first token, a docstring's line).
_LEADING = re.compile(
    r'(<span id="__span-[\d-]+" style="--i:\d+">)'
    r'(?:<span class="w">( +)</span>|(<span class="[\w ]+">)?( +))'
)


def _indentation(match: re.Match) -> str:
    """Leading spaces in a span of class `indent`, where docs/stylesheets/katas.css allows no
    break: a line whose first word does not fit the rest of its first row breaks inside it,
    rather than leave that row empty and start on the next, deeper in."""
    line, own, token, spaces = match.groups()
    if own is not None:
        return f'{line}<span class="w indent">{own}</span>'
    return f'{line}{token or ""}<span class="indent">{spaces}</span>'


# A block _fold_file left out of search. Its code cannot hold a literal </details>: the
# highlighter escapes it.
_NOT_SEARCHED_BLOCK = re.compile(
    r'<div class="kata-file" data-search-exclude[^>]*>.*?</details>\s*</div>', re.S
)
_SEARCH_ATTRIBUTE = re.compile(r' data-search-exclude(="[^"]*")?')
_PLACEHOLDER = re.compile(r"<!-- kata-file (\d+) -->")
# Blocks taken out of a page while the search plugin indexes it, by page.
_set_aside: dict[str, list[str]] = {}


_CELL = re.compile(r"<td\b[^>]*>.*?</td>", re.S)
_BARE_CODE = re.compile(r"<code>([^<\s]+)</code>")


def _identifiers_whole(html: str) -> str:
    """In table cells, inline code without a space (an identifier, `cuda:{rank}`) gets class
    `ident`, which docs/stylesheets/katas.css keeps on one line: a table too wide for a phone
    scrolls in its own box rather than breaking `view_reshap|e`."""
    return _CELL.sub(lambda cell: _BARE_CODE.sub(r'<code class="ident">\1</code>', cell[0]), html)


# The name that starts inline code, whatever follows it: a call, nothing, or more code
# (`torch.backends.cudnn.enabled = False` must give `cudnn.enabled` too).
_API_CODE = re.compile(r"<code>(torch(?:\.[A-Za-z_]\w*)+)(?!\w)")
_SEARCH_ONLY = re.compile(r'<span class="search-only" hidden><sub>[^<]*</sub></span>')


def _search_forms(html: str) -> str:
    """After each torch API named in inline code, its shorter forms, for the search index only
    (`torch.cuda.synchronize` -> `cuda.synchronize synchronize`): a reader searches for the bare
    name as often as the dotted one. `on_page_context` takes them out of the page again.

    They are in a `<sub>`, one of the few tags Material's search index keeps, and no page
    writes one: docs/stylesheets/katas.css hides `sub` in search results, so a result's teaser
    reads as the page does, not "accelerator.is_available is_available torch.accelerator..."."""

    def forms(match: re.Match) -> str:
        parts = match[1].split(".")
        shorter = " ".join(".".join(parts[i:]) for i in range(1, len(parts)))
        return f'<span class="search-only" hidden><sub>{shorter}</sub></span>{match[0]}'

    return _API_CODE.sub(forms, html)


# Two highlighted tokens that touch, in a code block (Pygments' spans never nest; a line's
# own span starts with an id, not a class). No break before closing punctuation: `f(x` / `)`.
# Nor after a token of spaces, which is a break opportunity of its own (and an indentation,
# which must not break).
_TOUCHING_TOKENS = re.compile(r'(?<! )</span>(?=<span class="[\w ]+">(?![)\]},:;]))')
# A short token (at most 16 characters, no space) with a character a browser may break after
# (`->`, `"big-endian"`, `):`, `"(?<!\\d)"`): `nobreak` (docs/stylesheets/katas.css) keeps it
# whole, and it always fits a row. A longer one may still break there rather than run past
# the column.
_BREAKABLE_TOKEN = re.compile(
    r'<span class="([\w ]+)">(?=[^<\s]{0,15}[-?!/)\]}%|])(?=[^<\s]{2,16}</span>)'
)
# A longer one (a regex string, `"\b(?:Sparse)?(CPU|CUDA|...)"`) is kept whole where the
# code box is wide enough for it on a continuation row, and breaks there only where it is not.
_LONG_BREAKABLE_TOKEN = re.compile(r'<span class="([\w ]+)">([^<\s]*[-?!/)\]}%|][^<\s]*)</span>')
# A code line: its number in its block, its depth (`--i`, set by _LINE), and its content.
_CODE_LINE = re.compile(
    r'<span id="__span-\d+-(\d+)"(?: style="--i:(\d+)")?>.*?(?=<span id="__span-|</code>)', re.S
)
# No break between a string's prefix and its quote: `r` / `"\btorch..."` (Pygments: `sa`).
_AFTER_AFFIX = re.compile(r'(<span class="sa">[^<]*</span>)<wbr>')
_CODE_BLOCK = re.compile(r"<pre\b[^>]*>.*?</pre>", re.S)


def _fit_class(line: re.Match, widths: set[int]) -> str:
    """Each long breakable token of a code line gets class `fit-N`, N being the code box's
    width in columns from which it fits a continuation row whole: its length, the line's
    hanging indent (depth + 4, docs/stylesheets/katas.css), and on the first two lines the
    2em kept clear of the copy button (4 columns). Where the box is narrower, the token
    breaks where it must, after a `|` rather than inside a word."""
    depth = int(line[2] or 0) + 4 + (4 if int(line[1]) <= 2 else 0)

    def fit(token: re.Match) -> str:
        length = len(html_unescape(token[2]))
        if length <= 16:
            return token[0]
        widths.add(length + depth)
        # Where it is too long for a row, it breaks after a `|`, which Chromium does not take
        # as a break of its own (`Long|In` / `t` without it). A <wbr> breaks even in `nowrap`:
        # where the token fits, the rule below takes them out.
        text = re.sub(r"\|(?=.)", "|<wbr>", token[2])
        return f'<span class="{token[1]} fit-{length + depth}">{text}</span>'

    return _LONG_BREAKABLE_TOKEN.sub(fit, line[0])


def _token_breaks(html: str) -> str:
    """A `<wbr>` between touching tokens of every code block, and short tokens marked whole:
    where a line must wrap, it wraps at a token's edge. A long token with a break character
    in it is kept whole by a container query, set in a `<style>` of the page's own, from the
    width of code box where it fits a row. None of it adds text, so copying and search see
    the code unchanged."""
    widths: set[int] = set()

    def breaks(block: re.Match) -> str:
        code = _TOUCHING_TOKENS.sub("</span><wbr>", block[0])
        code = _AFTER_AFFIX.sub(r"\1", code)
        code = _BREAKABLE_TOKEN.sub(r'<span class="\1 nobreak">', code)
        return _CODE_LINE.sub(lambda line: _fit_class(line, widths), code)

    html = _CODE_BLOCK.sub(breaks, html)
    # `ch` in a container query is the code box's own (monospace) column: the box is the
    # query container (katas.css, `container-type`).
    rules = "".join(
        f"@container (min-width: {n}ch) {{ .md-typeset pre > code .fit-{n} "
        f"{{ white-space: nowrap; }} .md-typeset pre > code .fit-{n} wbr {{ display: none; }} }}"
        for n in sorted(widths)
    )
    return html + (f"<style>{rules}</style>" if rules else "")


_H1_END = re.compile(r"</h1>")


def _discussion_terms(html: str, src: str) -> str:
    """On a discussion page, its kata's `subject` and `resolves` (dojo/catalogue.toml), for the
    search index only, in the page's first section (its title's): a search for what a kata is
    about or what resolves it reaches the page that explains it, not only pages that use it.
    `torch.cuda.synchronize` also gives `cuda.synchronize synchronize`. Set aside like the
    shorter API forms (`_SEARCH_ONLY`), so the page shows none of it."""
    if not src.startswith("discussions/"):
        return html
    kata = _catalogue.get(Path(src).stem)
    words = []
    for term in (*kata.subject, *kata.resolves):
        parts = term.split(".")
        words += [".".join(parts[i:]) for i in range(len(parts))]
    if not words:
        return html
    terms = " ".join(dict.fromkeys(html_escape(w) for w in words))
    return _H1_END.sub(
        lambda m: f'{m[0]}<span class="search-only" hidden><sub>{terms}</sub></span>', html, 1
    )


def _whole_messages(html: str, src: str) -> str:
    """On Troubleshooting, an entry whose heading is the start of another entry's heading also
    holds in its heading, for the search index only, the rest of its message's first line as
    torch prints it. A reader pastes the whole message, and "Expected all tensors to be on the
    same device, but found at least two devices, cuda:0 and cpu!" matched more of the title of
    the dispatcher's entry, whose heading runs on past the shared start, than of its own.
    (Every entry's whole message in its heading put long messages' titles first for short
    searches.) Set aside like the shorter API forms (`_SEARCH_ONLY`); search results hide
    `sub`."""
    if src != "troubleshooting.md":
        return html
    entries = _errors.load()
    for entry in entries:
        line = entry.message.splitlines()[0]
        longer = any(o is not entry and o.phrase.startswith(entry.phrase) for o in entries)
        if not (longer and line.startswith(entry.phrase) and line[len(entry.phrase) :].strip()):
            continue
        rest = html_escape(line[len(entry.phrase) :].strip())
        sub = f'<span class="search-only" hidden><sub> {rest}</sub></span>'
        html = re.sub(
            rf'(<h3 id="{entry.id}">.*?)(?=<a class="headerlink"|</h3>)',
            lambda m, sub=sub: m[1] + sub,
            html,
            count=1,
            flags=re.S,
        )
    return html


def on_page_content(html: str, page, config, files) -> str:
    """Give each indented code line its depth (`--i`), for the hanging indent; then set the
    blocks left out of search aside until `on_page_context`.

    Material's search reads every tag of a page, even inside a data-search-exclude block, and
    the test files are most of the tags: parsing them was 1.2 s of a 7 s build. Hooks run
    after plugins, so the search plugin indexes the page in between without them. Should that
    order change, the blocks are indexed whole and still left out by their attribute."""
    # The executed blocks ran in this process, and torch's init_process_group (the
    # distributed page) wraps sys.excepthook to prefix every later traceback with "[rank0]: ".
    sys.excepthook = _excepthook[0]
    _freeze_survivors()  # once the page's executed blocks have run
    html = _LINE.sub(lambda m: f'{m[0]} style="--i:{len(m[2])}"', html)
    html = _LEADING.sub(_indentation, html)
    html = _token_breaks(html)
    html = _identifiers_whole(html)
    html = _search_forms(html)
    html = _discussion_terms(html, page.file.src_uri)
    html = _whole_messages(html, page.file.src_uri)
    aside = _set_aside[page.file.src_uri] = []

    def set_aside(block: re.Match) -> str:
        aside.append(_SEARCH_ATTRIBUTE.sub("", block[0], count=1))
        return f"<!-- kata-file {len(aside) - 1} -->"

    return _NOT_SEARCHED_BLOCK.sub(set_aside, html)


def on_page_context(context, page, config, nav):
    """Put back the blocks `on_page_content` set aside, once the page is indexed."""
    aside = _set_aside.pop(page.file.src_uri, [])
    page.content = _PLACEHOLDER.sub(lambda m: aside[int(m[1])], page.content)
    page.content = _SEARCH_ONLY.sub("", page.content)
    return context


# Material fetches the repository's stars and forks from the host's API for the header's
# repository link. The site must work offline and make no request to another host, so the
# link stays and the fetch goes: without its data-md-component, no script touches it.
_SOURCE_FACTS = ' data-md-component="source"'


def on_post_page(output: str, page, config) -> str:
    return output.replace(_SOURCE_FACTS, "")


def on_post_template(output_content: str, template_name: str, config) -> str:
    return output_content.replace(_SOURCE_FACTS, "")
