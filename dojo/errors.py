"""The error index: recognise a pasted error, say what it means, how to fix it and which kata
explains it. The entries live in `dojo/errors.toml`; the site's Troubleshooting page is rendered
from the same file (`markdown()`).

    python -m dojo.errors "RuntimeError: Expected all tensors to be on the same device, ..."
    python -m dojo.errors < traceback.txt        (or paste, then Ctrl-D)
    python -m dojo.errors --list
    python -m dojo.errors same-device          (one entry, by the id --list shows)
    python -m dojo.errors --measure tests/data/errors/real.toml   (the index on real pastes)

`python -m katas explain "<error text>"` runs the same `main`. A pasted traceback is read from
its last error (the first one of a chained traceback), and the whole text is the fallback. Only
the standard library is imported here; torch is imported by `reproduce`, which runs an entry's
example.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from dojo import (
    _toml,  # tomllib, or a reader of its own on Python 3.10 (doctor points here)
    readings,
)

INDEX = Path(__file__).with_name("errors.toml")
ROOT = INDEX.parent.parent
PAGE = "docs/troubleshooting.md"

KINDS = ("error", "warning")
REQUIREMENTS = ("no-accelerator", "cpu-only-build")
_REQUIRED = (
    "id",
    "topic",
    "phrase",
    "message",
    "kind",
    "exception",
    "patterns",
    "kata",
    "means",
    "fix",
)
_OPTIONAL = (
    "also",
    "source",
    "reproduce",
    "requires",
    "fresh_process",
    "doctor",
    "wordings",
    "releases",
    "fallback",
    "lesson",
)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_SPACE = re.compile(r"\s+")
_WILDCARD = re.compile(r"\\[wWsSdD]|\.|\[")


# Punctuation typed with a Chinese or Japanese input method, as in an issue title retyped from a
# screenshot ("RuntimeError： ... torch。cuda.is_available() is False。"): the ASCII a pattern
# expects. NFKC folds the full-width forms (U+FF01 to U+FF5E); the ideographic full stop and comma
# and the full-width quotes are not compatibility forms, so they are listed.
_WIDE = str.maketrans({"\u3002": ".", "\u3001": ",", "\u2018": "'", "\u2019": "'"})


def narrow(text: str) -> str:
    """`text` with full-width and ideographic punctuation turned into ASCII (`_WIDE`)."""
    if text.isascii():
        return text
    return "".join(
        unicodedata.normalize("NFKC", c) if "\uff01" <= c <= "\uff5e" else c for c in text
    ).translate(_WIDE)


def normalize(text: str) -> str:
    """`text` as patterns see it: terminal colour codes dropped, full-width punctuation made
    ASCII (`narrow`), every run of white space (line breaks and tabs of a pasted traceback too)
    folded into one space."""
    return _SPACE.sub(" ", _ANSI.sub("", narrow(text))).strip()


# A console line wrapped in the middle of a word ("gather along di\nmension 0"): the line break
# falls between two letters. `_ranked` also scores the text with such breaks taken out.
_MIDWORD = re.compile(r"(?<=[a-z])\n(?=[a-z])")


@dataclass(frozen=True)
class Entry:
    """One error or warning of the index (see the comment at the top of errors.toml)."""

    id: str
    topic: str
    phrase: str
    message: str
    kind: str
    exception: str
    patterns: tuple[re.Pattern[str], ...]
    kata: str
    also: tuple[str, ...]
    means: str
    fix: str
    source: str | None
    reproduce: str | None
    requires: str | None
    fresh_process: bool
    doctor: bool = False
    wordings: tuple[str, ...] = ()
    releases: str = ""
    fallback: bool = False
    lesson: bool = False

    def score(self, text: str) -> tuple[int, int]:
        """How well the entry matches normalized `text`: the longest stretch one of its patterns
        matches, then the fewer wildcards the better; (0, 0) when none matches."""
        best = (0, 0)
        for pattern in self.patterns:
            found = pattern.search(text)
            if found and found.end() > found.start():
                best = max(
                    best, (found.end() - found.start(), -len(_WILDCARD.findall(pattern.pattern)))
                )
        return best

    def matches(self, text: str) -> bool:
        return self.score(normalize(text))[0] > 0


def _fail(where: str, problem: str) -> ValueError:
    return ValueError(f"{INDEX.name}, {where}: {problem}")


def _entry(n: int, raw: dict) -> Entry:
    where = f"entry {n} ({raw.get('id', 'no id')})"
    missing = [key for key in _REQUIRED if key not in raw]
    unknown = sorted(set(raw) - set(_REQUIRED) - set(_OPTIONAL))
    if missing or unknown:
        raise _fail(where, f"missing fields {missing}, unknown fields {unknown}")
    for key in ("id", "topic", "phrase", "message", "kind", "exception", "kata", "means", "fix"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise _fail(where, f"{key} must be a non-empty string")
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", raw["id"]):
        raise _fail(where, "id must be lower-case words joined by dashes (it is a page anchor)")
    if raw["kind"] not in KINDS:
        raise _fail(where, f"kind must be one of {KINDS}, not {raw['kind']!r}")
    if raw.get("requires") not in (None, *REQUIREMENTS):
        raise _fail(where, f"requires must be one of {REQUIREMENTS}, not {raw['requires']!r}")
    if bool(raw.get("source")) == bool(raw.get("reproduce")):
        raise _fail(where, "give either `reproduce` (CPU code) or `source` (CUDA only), not both")
    if not isinstance(raw.get("wordings", []), list) or not all(
        isinstance(w, str) and w.strip() for w in raw.get("wordings", [])
    ):
        raise _fail(where, "wordings must be a list of non-empty strings")
    if not isinstance(raw["patterns"], list) or not raw["patterns"]:
        raise _fail(where, "patterns must be a non-empty list of regular expressions")
    patterns = []
    for text in raw["patterns"]:
        try:
            patterns.append(re.compile(text, re.IGNORECASE))
        except (re.error, TypeError) as err:
            raise _fail(where, f"pattern {text!r} does not compile: {err}") from None
    return Entry(
        id=raw["id"],
        topic=raw["topic"],
        phrase=raw["phrase"],
        message=raw["message"],
        kind=raw["kind"],
        exception=raw["exception"],
        patterns=tuple(patterns),
        kata=raw["kata"],
        also=tuple(raw.get("also", ())),
        means=raw["means"].strip(),
        fix=raw["fix"].strip(),
        source=raw.get("source"),
        reproduce=textwrap.dedent(raw["reproduce"]).strip() + "\n" if "reproduce" in raw else None,
        requires=raw.get("requires"),
        fresh_process=bool(raw.get("fresh_process", False)),
        doctor=bool(raw.get("doctor", False)),
        wordings=tuple(raw.get("wordings", ())),
        releases=raw.get("releases", ""),
        fallback=bool(raw.get("fallback", False)),
        lesson=bool(raw.get("lesson", False)),
    )


@cache
def load(path: Path = INDEX) -> tuple[Entry, ...]:
    """Every entry of the index, in the file's order. A malformed entry is a ValueError that
    names it and what is wrong."""
    with open(path, "rb") as f:
        raw = _toml.load(f).get("entry", [])
    entries = tuple(_entry(n, e) for n, e in enumerate(raw, start=1))
    ids = [e.id for e in entries]
    if duplicates := sorted({i for i in ids if ids.count(i) > 1}):
        raise _fail("ids", f"used more than once: {duplicates}")
    topics = [e.topic for n, e in enumerate(entries) if n == 0 or e.topic != entries[n - 1].topic]
    if scattered := sorted({t for t in topics if topics.count(t) > 1}):
        raise _fail("topics", f"keep the entries of a topic together: {scattered}")
    return entries


# Where one exception of a chained traceback ends and the next begins. Python prints the first
# (original) error first; the one a reader needs explained is that one.
_CHAIN = re.compile(
    r"^\s*(?:The above exception was the direct cause of the following exception"
    r"|During handling of the above exception, another exception occurred):?\s*$",
    re.MULTILINE,
)
# A line that starts an exception or a warning message: `RuntimeError: ...`,
# `torch.OutOfMemoryError: ...`, `.../torch/cuda/__init__.py:230: UserWarning: ...`,
# `[rank0]: RuntimeError: ...`. Not a traceback's code line (`raise ValueError(...)`) and not
# IPython's header (`RuntimeError     Traceback (most recent call last)`).
_ERROR_LINE = re.compile(
    r"^(?:.*?[\s:\]])?(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Interrupt)(?::|\s*$)"
)


# Lines that every error of a kind carries, whatever went wrong: they say nothing about which
# error it is, so they are taken out before any pattern looks at the text (issue 27). The CUDA
# check's tail (c10/cuda/CUDAException.cpp: since 1.8 "CUDA kernel errors might be ...", since
# 2.1 "Compile with `TORCH_USE_CUDA_DSA` ..."), a C++ stack ("Exception raised from ... (most
# recent call first):" and its "frame #N:" lines) and the `[rank0]:` that torchrun and
# elastic put before every line of a rank's output.
BOILERPLATE = (
    r"CUDA kernel errors might be asynchronously reported at some other API call,? so the "
    r"stack ?trace below might be incorrect\.?",
    r"For debugging,? consider passing CUDA_LAUNCH_BLOCKING=1\.?",
    r"Compile with .?TORCH_USE_CUDA_DSA.? to enable device-side assertions\.?",
    r"Device-side assertions were explicitly omitted for this error check; the error probably "
    r"arose while initializing the DSA handlers\.?",
    r"Exception raised from \S+ at \S+ \(most recent call first\):",
    r"^\s*frame #\d+:.*$",
)
_BOILERPLATE = re.compile("|".join(f"(?:{b})" for b in BOILERPLATE), re.MULTILINE)
_RANK = re.compile(r"^(?:\s*\[(?:default)?(?:rank)?\d+\]:)+ ?", re.MULTILINE)


def strip_boilerplate(text: str) -> str:
    """`text` without the lines every error of a kind carries (`BOILERPLATE`) and without the
    `[rank0]:` prefixes of a distributed run's lines."""
    return _BOILERPLATE.sub("", _RANK.sub("", _ANSI.sub("", text)))


def last_error(text: str) -> str:
    """The part of a pasted `text` that holds the error to explain: in a chained traceback the
    first exception's part; in that, everything from its last line that starts an exception or
    a warning (`RuntimeError: ...`) to the end. `text` itself when no such line is found."""
    text = strip_boilerplate(narrow(text).replace("\r\n", "\n").replace("\r", "\n"))
    part = _CHAIN.split(text, maxsplit=1)[0]
    lines = part.splitlines()
    starts = [n for n, line in enumerate(lines) if _ERROR_LINE.match(line)]
    return "\n".join(lines[starts[-1] :]) if starts else part


def _ranked(text: str) -> list[Entry]:
    """The entries that match `text` and whose reading of it does not rule them out, best
    first: an entry of a family before a `fallback` one, then the longest match, then the
    fewest wildcards, then the index's order."""
    stripped = strip_boilerplate(text)
    flat = normalize(stripped)
    # and as it read before a console wrapped a line in the middle of a word, when one did
    unwrapped = normalize(_MIDWORD.sub("", stripped.replace("\r\n", "\n")))
    forms = (flat,) if unwrapped == flat else (flat, unwrapped)
    scored = [(max(e.score(t) for t in forms), n, e) for n, e in enumerate(load())]
    scored = [s for s in scored if s[0][0] and readings.applies(s[2].id, flat)]
    order = sorted(scored, key=lambda s: (s[2].fallback, -s[0][0], -s[0][1], s[1]))
    return [e for _, _, e in order]


def find(text: str) -> list[Entry]:
    """The entries whose patterns match `text` (one message, a fragment or a whole pasted
    traceback), best match first; [] when none does. A traceback is answered from its last
    error (`last_error`); the whole text counts only when that error matches nothing, as when a
    CUDA assertion printed before the traceback is the only line the index knows."""
    return _ranked(last_error(text)) or _ranked(text)


_WORD = re.compile(r"[a-z][a-z0-9_]{2,}")
_COMMON = frozenset(
    re.findall(
        r"\w+",
        "the and for but not was are has have with this that you your from when into its than "
        "then error errors runtimeerror warning userwarning traceback most recent call last file "
        "line torch tensor tensors",
    )
)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower())) - _COMMON


def closest(text: str, n: int = 3) -> list[Entry]:
    """Up to `n` entries that share the most words with `text`, for a message the index does
    not recognise; [] when none shares two words (one, for a text of one or two words)."""
    words = _words(text)
    if not words:
        return []
    least = 1 if len(words) <= 2 else 2
    scored = []
    for order, entry in enumerate(load()):
        shared = len(words & _words(f"{entry.phrase} {entry.message} {entry.id.replace('-', ' ')}"))
        if shared >= least:
            scored.append((-shared, order, entry))
    return [entry for *_, entry in sorted(scored)[:n]]


def get(entry_id: str) -> Entry:
    for entry in load():
        if entry.id == entry_id:
            return entry
    raise ValueError(f"no entry {entry_id!r} in {INDEX.name}")


# --- running an entry's example (imports torch) -----------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What running an example did: raised (`error`), warned (`warning`) or neither (`none`)."""

    kind: str
    exception: str
    text: str


def unmet(requirement: str | None) -> str | None:
    """Why this machine cannot show an entry that `requires` something; None when it can."""
    import torch

    if requirement == "no-accelerator" and torch.accelerator.is_available():
        return f"this machine has an accelerator ({torch.accelerator.current_accelerator()})"
    if requirement == "cpu-only-build" and torch.backends.cuda.is_built():
        return "this torch is a CUDA build"
    return None


def _run_here(code: str) -> list[Outcome]:
    """Run `code`; the outcomes are the exception it raised (first) and every warning."""
    import warnings

    outcomes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(compile(code, "<reproduce>", "exec"), {"__name__": "__reproduce__"})
        except Exception as err:
            outcomes.append(Outcome("error", type(err).__name__, _ANSI.sub("", str(err))))
    outcomes += [Outcome("warning", w.category.__name__, str(w.message)) for w in caught]
    return outcomes


def _run_forked(code: str) -> list[Outcome]:
    """`_run_here` in a child forked from this process: torch is imported already, and a
    message torch shows once per process shows there unless this process has shown it."""
    from dojo import runner

    done = runner.forked(lambda: {"outcomes": [o.__dict__ for o in _run_here(code)]})
    if "outcomes" not in done:
        raise RuntimeError(f"reproducing in a forked child: {done['problem']}")
    return [Outcome(**o) for o in done["outcomes"]]


def _run_fresh(code: str) -> list[Outcome]:
    """`_run_here` in a new Python process, for messages torch shows once per process."""
    script = (
        "import json, sys\n"
        "from dojo.errors import _run_here\n"
        "print(json.dumps([o.__dict__ for o in _run_here(sys.stdin.read())]))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=code,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    return [Outcome(**o) for o in json.loads(done.stdout.strip().splitlines()[-1])]


def _matching(entry: Entry, outcomes: list[Outcome]) -> Outcome | None:
    return next((o for o in outcomes if o.kind == entry.kind and entry.matches(o.text)), None)


def reproduce(entry: Entry) -> Outcome:
    """Run the entry's example and return what torch raised or warned: the outcome of the
    entry's kind that its patterns match, else the first one, else `none`.

    A `fresh_process` example runs in a child forked from this process where forking is safe
    (no torch import to pay), and in a new interpreter when that is not safe or when the fork
    missed the message because this process had shown it already."""
    from dojo import runner

    if entry.reproduce is None:
        raise ValueError(f"{entry.id} has no example to run (it needs CUDA: {entry.source})")
    if not entry.fresh_process:
        outcomes = _run_here(entry.reproduce)
    else:
        outcomes = _run_forked(entry.reproduce) if runner.use_fork() else []
        if _matching(entry, outcomes) is None:
            outcomes = _run_fresh(entry.reproduce)
    found = _matching(entry, outcomes)
    return found or (outcomes[0] if outcomes else Outcome("none", "", ""))


# --- the Troubleshooting page -----------------------------------------------------------------

DOCTOR = "python -m katas doctor"


# The section of a kata's discussion page that explains its ideas (docs/discussions/x.md,
# "## The ideas"), where an error's explanation lives since the kata pages were split.
IDEAS = "the-ideas"


def _kata_link(name: str, prefix: str) -> str:
    """A link to the section of kata `name`'s discussion page that explains it, as a URL
    relative to the page it is on. The page's markdown comes out of a markdown-exec block,
    which MkDocs never rewrites: a link to `discussions/x.md` would stay that, so the URL must
    be the built site's (`discussions/x/#the-ideas`), reached from the page's own URL by
    `prefix` (`"../"` from `/troubleshooting/`)."""
    from dojo import catalogue

    kata = catalogue.get(name)
    return f"[{kata.number}. {kata.title}]({prefix}discussions/{name}/#{IDEAS})"


def _heading_text(phrase: str) -> str:
    return re.sub(r"([\\`*_\[\]<>{}#|])", r"\\\1", phrase)


def _fence(text: str, lang: str = "text") -> str:
    return f"```{lang}\n{text.rstrip()}\n```"


def _output(text: str) -> str:
    """What torch printed, in the labelled Output box the other pages use (docs/hooks.py puts
    executed output in `.result`; this markdown is made inside an executed block, so it says so
    itself)."""
    return f'<div class="result" markdown="1">\n\n{_fence(text)}\n\n</div>'


def topic_id(topic: str) -> str:
    """The anchor of a topic's section on the page."""
    return "topic-" + re.sub(r"[^a-z0-9]+", "-", topic.lower()).strip("-")


FOLD = "What it means, the fix, the kata and the example"


def entry_markdown(entry: Entry, *, run: bool = True, prefix: str = "") -> str:
    """One entry as a section of the Troubleshooting page: its heading and the releases whose
    wording it covers, then the rest folded (a phone scrolls past what it does not open). With
    `run`, a CPU example runs now and its real output is shown; `prefix` is the path from the
    page's URL to the site root."""
    head = [f"### {_heading_text(entry.phrase)} {{#{entry.id}}}", ""]
    head += [f"**Releases.** {entry.releases}", "", f'??? note "{FOLD}"', ""]
    body = _entry_body(entry, run=run, prefix=prefix)
    return "\n".join(head) + "\n" + textwrap.indent(body, "    ", lambda line: bool(line.strip()))


def _entry_body(entry: Entry, *, run: bool, prefix: str) -> str:
    shown = f"{entry.exception}: {entry.message}"
    lines = [f"**What it means.** {entry.means}", "", f"**Fix.** {entry.fix}", ""]
    if entry.doctor:
        lines += [
            f"**This machine.** `{DOCTOR}` reports what this machine has (driver, GPUs, the "
            "GPU kinds this torch has kernels for) and what to change.",
            "",
        ]
    kata = f"**Kata.** {_kata_link(entry.kata, prefix)} teaches this"
    if entry.also:
        kata += "; see also " + ", ".join(_kata_link(name, prefix) for name in entry.also)
    lines += [f"{kata}. To check your solution of it: `python -m katas check {entry.kata}`.", ""]
    if entry.wordings:
        lines += ["**Other wordings.** " + " ".join(entry.wordings), ""]
    if entry.reproduce is None:
        lines += [
            f"Only a CUDA machine prints this, so it is quoted from PyTorch's source: "
            f"`{entry.source}`.",
            "",
            _output(shown),
        ]
        return "\n".join(lines)
    lines += [_fence(entry.reproduce, "python"), ""]
    reason = unmet(entry.requires) if run else "the page was rendered without running examples"
    outcome = reproduce(entry) if run and reason is None else None
    if outcome is None:
        lines += [
            f"Not run here ({reason}); on a machine without one it prints:",
            "",
            _output(shown),
        ]
    elif outcome.kind == "none":
        lines += ["On the machine that built this page it neither raised nor warned.", ""]
    else:
        what = "raised" if outcome.kind == "error" else "warned"
        lines += [
            f"This ran when the page was built, and {what}:",
            "",
            _output(f"{outcome.exception}: {outcome.text}"),
        ]
    return "\n".join(lines)


def index_markdown() -> str:
    """The page's index by topic: one line per topic, short enough for one screen."""
    rows = ["| Topic | Entries | For example |", "| --- | --: | --- |"]
    for topic in dict.fromkeys(e.topic for e in load()):
        entries = [e for e in load() if e.topic == topic]
        first = entries[0].phrase
        example = first if len(first) <= 46 else first[:43].rstrip() + "..."
        rows.append(
            f"| [{_heading_text(topic)}](#{topic_id(topic)}) | {len(entries)} "
            f"| `{example.replace('|', '/').replace('`', '')}` |"
        )
    return "\n".join(rows)


def markdown(*, run: bool = True, prefix: str = "", index: bool = True) -> str:
    """Every entry, in the index's order, as the body of the Troubleshooting page: the index by
    topic (unless the page shows it elsewhere: `index=False`), then one section per topic and
    one heading per entry (its body folded, so the headings are the topic's list)."""
    parts, topic = [index_markdown()] if index else [], None
    for entry in load():
        if entry.topic != topic:
            topic = entry.topic
            parts.append(f"## {_heading_text(topic)} {{#{topic_id(topic)}}}")
        parts.append(entry_markdown(entry, run=run, prefix=prefix))
    return "\n\n".join(parts)


# --- the command ------------------------------------------------------------------------------

REPORT = (
    "If torch printed it and it is about devices or GPUs, it belongs in the index: send the whole\n"
    "traceback, with the output of `python -m katas doctor`, to the maintainers (an entry is a\n"
    "few lines of dojo/errors.toml; the comment at its top says which)."
)


def withheld(entry: Entry) -> bool:
    """Is the entry's fix its kata's own lesson, in a clone where that kata is not done? Then
    `explain` says what the error means and leaves the fix to the kata's hint ladder."""
    if not entry.lesson:
        return False
    from dojo import catalogue, state

    return not state.known_done(catalogue.get(entry.kata))


def explain(
    entry: Entry,
    width: int = 100,
    read_from: str | None = None,
    case: list[str] | None = None,
    fix: bool = False,
) -> str:
    """What `python -m katas explain` prints about one entry; `read_from` is the line of a
    pasted traceback the answer was read from, when it was not the whole text; `case` is what
    the paste itself says (`readings.read`), printed before the entry's general answer. A fix
    that is the lesson of a kata not done yet (`withheld`) is printed only when `fix` is true."""
    from dojo import catalogue

    kata = catalogue.get(entry.kata)

    def para(label: str, text: str) -> str:
        return textwrap.fill(f"{label} {text}", width=width, subsequent_indent="  ")

    out = [para(f"This {entry.kind} is:", entry.phrase)]
    if read_from:
        out.append(para("(read from the error in what you pasted:", f"{read_from})"))
    if case:
        out += ["", para("In your paste:", " ".join(case).replace("`", ""))]
    out += [
        "",
        para("What it means:", entry.means.replace("`", "")),
        "",
    ]
    if fix or not withheld(entry):
        out += [para("Fix:", entry.fix.replace("`", "")), ""]
    else:
        out += [
            para(
                "Fix:",
                f"not shown yet. It is the lesson of kata {kata.number}, {kata.title}, which you "
                "have not finished: the message above is the cause, and working out the change "
                f"is the kata. python -m katas hint {kata.name} helps a step at a time; "
                "explain --fix shows the fix now.",
            ),
            "",
        ]
    if entry.doctor:
        out += [para("This machine:", f"{DOCTOR} reports what this machine has."), ""]
    # The discussion page, served with its examples' output as the rest of the tool points to
    # it (the raw docs/discussions/NAME.md lacks that output), at the section that explains it.
    out.append(
        f"Kata {kata.number}, {kata.title}, teaches this; its discussion explains it under "
        f'"The ideas": python -m katas docs {kata.name} --discussion'
    )
    for name in entry.also:
        other = catalogue.get(name)
        out.append(
            f"See also kata {other.number}, {other.title}: "
            f"python -m katas docs {other.name} --discussion"
        )
    out.append(f"To check your solution of that kata: python -m katas check {kata.name}")
    out.append(f"More: {PAGE}#{entry.id}")
    return "\n".join(out)


def _read_stdin() -> str:
    """Standard input as text, whatever its encoding: bytes that are not UTF-8 become U+FFFD
    (a paste from a terminal in another encoding still has its English words)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:
        return sys.stdin.read()
    return buffer.read().decode("utf-8", errors="replace")


def _not_found(text: str) -> str:
    lines = ["No entry in the error index matches that text."]
    near = closest(last_error(text)) or closest(strip_boilerplate(text))
    if near:
        lines.append("The closest entries, by the words they share with it:")
        lines += [f"  {e.id}: {e.phrase}" for e in near]
        lines.append("(`python -m katas explain <id>` shows one of them.)")
    lines += [
        "Paste the last line of the traceback, the one that starts with the exception's name",
        "(RuntimeError: ...), or the whole traceback. `python -m katas explain --list` lists",
        f"every entry, and {PAGE} explains each one.",
        REPORT,
    ]
    return "\n".join(lines)


# The `expect` of a topic paste that no family of the index explains (its `cause` says what
# does): declining it, with the closest entries and how to report it, is the right answer.
NONE_FITS = "none-fits"


def measure(path: Path) -> tuple[str, int]:
    """The index on a file of real pastes (`[[paste]]` with `text`, `expect`, `source`, as in
    tests/data/errors/): how many get the right entry first, a wrong one, none, and how many
    unrelated ones (`expect = ""`) it claims. A topic paste that expects `NONE_FITS` is right
    when no entry matches it, and wrong when one does. Returns the report and the number of
    failures."""
    with open(path, "rb") as f:
        pastes = _toml.load(f)["paste"]
    related = [p for p in pastes if p["expect"]]
    right, wrong, missed, claimed = [], [], [], []
    for paste in pastes:
        found = find(paste["text"])
        first = found[0].id if found else ""
        if not paste["expect"]:
            (claimed if found else right).append((paste, first))
        elif paste["expect"] == NONE_FITS:
            (wrong if found else right).append((paste, first))
        elif first == paste["expect"]:
            right.append((paste, first))
        else:
            (wrong if found else missed).append((paste, first))
    unrelated = len(pastes) - len(related)
    good = len(right) - (unrelated - len(claimed))
    lines = [
        f"{path.name}: {good} of {len(related)} topic pastes get the right entry first "
        f"({good / max(len(related), 1):.0%}), {len(wrong)} a wrong one, {len(missed)} none; "
        f"{len(claimed)} of {unrelated} unrelated errors claimed"
    ]
    lines += [f"  wrong ({got}, not {p['expect']}): {p['source']}" for p, got in wrong]
    lines += [f"  missed ({p['expect']}): {p['source']}" for p, _ in missed]
    lines += [f"  claimed ({got}): {p['source']}" for p, got in claimed]
    if declined := sum(p["expect"] == NONE_FITS for p, _ in right):
        lines.insert(1, f"  ({declined} of the right ones expect {NONE_FITS} and matched no entry)")
    return "\n".join(lines), len(wrong) + len(missed) + len(claimed)


def main(argv: list[str] | None = None) -> int:
    """`python -m dojo.errors TEXT...`: explain the error in TEXT (or in standard input when
    no TEXT is given, or TEXT is `-`). Exit status 0 when it is in the index, 1 when not."""
    args = sys.argv[1:] if argv is None else list(argv)
    fix = "--fix" in args  # show a fix that is a kata's lesson (see `withheld`) all the same
    args = [a for a in args if a != "--fix"]
    if args in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(args) == 2 and args[0] == "--measure":
        report, failures = measure(Path(args[1]))
        print(report)
        return 1 if failures else 0
    if args == ["--list"]:
        for entry in load():
            print(f"{entry.id:32} {entry.kata:18} {entry.phrase}")
        return 0
    if not args or args == ["-"]:
        if sys.stdin.isatty():
            print(
                "Paste the error (the whole traceback is fine), then press Ctrl-D:", file=sys.stderr
            )
        text = _read_stdin()
    else:
        text = " ".join(args)
    if not text.strip():
        print(
            'usage: python -m katas explain "<error text>"  (or pipe the traceback in)',
            file=sys.stderr,
        )
        return 2
    ids = {entry.id: entry for entry in load()}
    if text.strip() in ids:  # an id from --list or from the closest entries
        print(explain(ids[text.strip()], fix=fix))
        return 0
    found = find(text)
    if not found:
        print(_not_found(text))
        return 1
    focus = last_error(text)
    read_from = None
    if _ranked(focus) and normalize(focus) != normalize(text):
        read_from = normalize(focus.strip().splitlines()[0])
        read_from = read_from if len(read_from) <= 160 else read_from[:157] + "..."
    case = readings.read(normalize(strip_boilerplate(focus)), raw=text)
    print(explain(found[0], read_from=read_from, case=case, fix=fix))
    if len(found) > 1:
        print("\nThe text also matches: " + "; ".join(f"{e.phrase} ({e.id})" for e in found[1:]))
    return 0


def run() -> None:
    """`python -m dojo.errors`, with its output piped into `head` that stops reading early."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away: say nothing more, and let the interpreter's last flush of
        # stdout go nowhere instead of printing a second traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)


if __name__ == "__main__":
    run()
