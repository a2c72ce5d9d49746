"""Where a learner stands: a pytest plugin that sums up each kata's tests in catalogue order.

It counts, per kata, the tests that pass, fail, wait for an unwritten function ("not written":
the stub's NotImplementedError, turned into a one-line report by the harness) or are skipped,
and keeps the failure messages. A test marked `given` checks only code the stub gives, and
passes on the stub: when it passes it is counted apart ("given"), never as the learner's
progress; when it fails, it fails like any other (the given code was broken).

`python -m katas check|watch|list` read `snapshot()`; a plain `pytest` run with `--impl katas`
(the default) ends with a table of the same counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from dojo import catalogue as _catalogue
from dojo import source


def _empty() -> dict:
    return {
        "passed": 0,
        "failed": 0,
        "not_written": 0,
        "blocked": 0,  # could not run: the kata's file does not import
        "skipped": 0,  # need a GPU (or two) this machine does not have
        "given": 0,  # tests of the stub's given code that pass: not the learner's progress
        # One per message shown: its text, how many failures said it, the other calls that
        # failed the same way, and its problem_key. `snapshot` turns them into "messages".
        "failures": [],
        "unwritten": [],
        "problem": "",
    }


_stats: dict[str, dict] = {}
# The runner's: called with {"total", "done", "passed", "failed", "running"} as tests go.
listener: Callable[[dict], None] | None = None
_run = {"total": 0, "done": 0, "passed": 0, "failed": 0, "running": ""}
MESSAGE_LIMIT = 1500  # characters kept of one failure message (a repr in it can be huge)


def snapshot() -> dict[str, dict]:
    """Counts and messages per kata name, for the runner (plain data: it crosses a pipe).
    A message that several failures share is kept once, and says how many it stands for; so
    is one problem met by several calls (`problem_key`), which names the other calls."""
    out = {}
    for name, counts in _stats.items():
        c = {k: v for k, v in counts.items() if k != "failures"}
        c["messages"] = [
            _with_others(f["text"], f["repeats"], f["calls"]) for f in counts["failures"]
        ]
        out[name] = c
    return out


def _with_others(text: str, repeats: int, calls: list[str]) -> str:
    lines = [text]
    if repeats > 1:
        lines.append(f"(shown once: {repeats} failures say this)")
    if calls:
        tests = f"{len(calls)} more {'test' if len(calls) == 1 else 'tests'}"
        # each call once, without the comma that led into what was said of it
        named = "; ".join(shorten(c.rstrip(",;: "), 160) for c in dict.fromkeys(calls))
        lines.append(f"({tests} failed the same way, calling {named})")
    return "\n".join(lines)


_SHAPES = re.compile(r"\[[\d, ]*\]|\([\d, ]*\)")  # a size: [41], (2, 3), (), []
_DTYPES = re.compile(
    r"\b(?:torch\.)?(?:b?float\d+|u?int\d+|complex\d+|half|double|bool)\b|\b\w+Tensor\b",
    re.IGNORECASE,
)


def problem_key(text: str, call: str | None, same: str | None = None) -> str | None:
    """What a learner message says of its `call` (the harness's `said`), or its `same` where
    the test gave one, with sizes, dtypes and numbers masked: two messages with one key report
    one problem, met by two calls (other inputs, other tests), and are listed once. None when
    the message names no call apart."""
    body = text.split("\n  example:", 1)[0]
    if not call or not body.startswith(call + " "):
        return None
    problem = "same: " + same if same is not None else body[len(call) :]
    problem = _DTYPES.sub("T", _SHAPES.sub("S", problem))
    return re.sub(r"\d+(?:\.\d+)?(?:e-?\d+)?", "N", problem)


def shorten(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """`text`, cut in the middle to about `limit` characters, saying how much was left out:
    the start says what was called, the end what was expected and which hint helps."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-(limit // 3) :]
    cut = len(text) - len(head) - len(tail)
    return f"{head} … ({cut:,} characters not shown) … {tail}"


def _tell() -> None:
    if listener is not None:
        listener(dict(_run))


def pytest_collection_finish(session: pytest.Session) -> None:
    _run["total"] = len(session.items)
    _tell()


def pytest_runtest_logstart(nodeid: str, location) -> None:
    _run["running"] = nodeid
    _tell()


def pytest_runtest_logfinish(nodeid: str, location) -> None:
    _run["done"] += 1
    _run["running"] = ""
    _tell()


def _learner_mode(config: pytest.Config) -> bool:
    return config.getoption("impl") == "katas" and config.getoption("impl_file") is None


def _not_written(report: pytest.TestReport) -> str | None:
    return next(
        (v for k, v in getattr(report, "user_properties", ()) if k == "not_implemented"), None
    )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    kata = _catalogue.of_test(report.nodeid)
    if kata is None or not (report.when == "call" or report.outcome != "passed"):
        return
    counts = _stats.setdefault(kata.name, _empty())
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        if "(reported once" in reason:  # the harness: the kata's file does not import
            counts["blocked"] += 1
            _run["failed"] += 1
            counts["problem"] = reason.removeprefix("Skipped: ").split(" (reported once")[0]
        else:
            counts["skipped"] += 1
        return
    if report.failed:
        _run["failed"] += 1
    else:
        _run["passed"] += 1
    if report.failed:
        unwritten = _not_written(report)
        if unwritten:
            counts["not_written"] += 1
            function = unwritten.removeprefix("NotImplementedError: ").split(" (")[0]
            if function not in counts["unwritten"]:
                counts["unwritten"].append(function)
        else:
            counts["failed"] += 1
            text = shorten(report.longreprtext.strip())
            if text.startswith("could not import"):
                counts["problem"] = text.partition(". Fix that first")[0]
            else:
                said = dict(report.user_properties)
                call = said.get("call")
                key = problem_key(text, call, said.get("same"))
                failures = counts["failures"]
                if same := next((f for f in failures if f["text"] == text), None):
                    same["repeats"] += 1
                elif key is not None and (
                    same := next((f for f in failures if f["key"] == key), None)
                ):
                    same["calls"].append(call)
                else:
                    failures.append({"text": text, "repeats": 1, "calls": [], "key": key})
    elif "given" in report.keywords:
        counts["given"] += 1
    else:
        counts["passed"] += 1


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """For learners, a test that only hit an unwritten stub is "not written", not a failure
    with a traceback: the failures section then holds only real mistakes."""
    if _learner_mode(config) and report.failed and _not_written(report):
        return "not written", "n", "NOT WRITTEN"
    return None


def state(counts: dict, untouched: bool = False) -> str:
    """done, in progress or not started, from one kata's counts (tests of the given code that
    pass do not count). `untouched`: the kata's file still holds the stub's code
    (`source.untouched`), so failing tests do not make it "in progress": a program to fix
    fails its tests as it is."""
    if counts["problem"]:
        return "does not import"
    if counts["failed"] or (counts["passed"] and counts["not_written"]):
        return "not started" if untouched else "in progress"
    if counts["not_written"]:
        return "not started"
    return "done" if counts["passed"] else "no test ran"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config):
    """The table comes last, after pytest's own summaries, where a learner looks."""
    try:
        return (yield)
    finally:
        if _learner_mode(config) and _stats:
            _progress_table(terminalreporter)


def _progress_table(tr) -> None:
    tr.section("your katas")
    katas = _catalogue.katas()
    for kata in katas:
        if kata.name in _stats:
            c = _stats[kata.name]
            skipped = f" ({_plural(c['skipped'], 'cuda test')} skipped)" if c["skipped"] else ""
            status = state(c, source.untouched(kata))
            tr.write_line(f"{kata.number:>2}. {kata.name:<18} {status}{skipped}")
    ran_undone = [k for k in katas if k.name in _stats and state(_stats[k.name]) != "done"]
    next_up = ran_undone[0] if ran_undone else _catalogue.after(max(_stats, key=_number))
    tr.write_line("")
    if next_up is None:
        tr.write_line("Every kata that ran is done, and it was the last one. Well done!")
    else:
        tr.write_line(
            f"Next: {next_up.number}. {next_up.name} ({next_up.title}): open "
            f"katas/{next_up.name}.py, then `python -m katas check {next_up.name}`."
        )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _number(name: str) -> int:
    return _catalogue.get(name).number
