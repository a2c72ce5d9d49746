"""The learner tool under faults and at the finish line (issue 20): verdicts whose numbers add
up, a watch that answers at once, one time limit per check, and a sentence, never a traceback or
a wrong verdict, for what a learner's code or machine may do.

Most tests drive `python -m katas` in a throwaway copy of the repository, as test_cli.py does.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dojo import catalogue as _catalogue
from dojo.sandbox import copy_repo, solve
from tests.tool.test_cli import _Lines, _stopped_within, ctrl_c_reaches_children, katas, strays


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return copy_repo(tmp_path / "repo")


def solved_with(repo: Path, name: str, function: str, code: str) -> None:
    """katas/NAME.py is the reference, with `code` run first in `function`'s first solution
    region (the learner's code), at that region's indent: a region may sit inside given code,
    in an `if` block."""
    text = (repo / "reference" / f"{name}.py").read_text()
    at = text.index(f"def {function}(")
    begin = re.compile(r"^( *)# BEGIN SOLUTION(:.*)?\n", re.MULTILINE).search(text, at)
    at, indent = begin.end(), begin[1]
    body = "".join(f"{indent}{line}\n" for line in code.strip("\n").split("\n"))
    (repo / "katas" / f"{name}.py").write_text(text[:at] + body + text[at:])


def porcelain(result: subprocess.CompletedProcess) -> dict:
    return json.loads(result.stdout.strip().splitlines()[-1])


def mark_done(repo: Path, names: list[str]) -> None:
    """Solve these katas and record them as done, as earlier checks would have."""
    state = repo / ".katas-state"
    state.mkdir(exist_ok=True)
    verdicts = {}
    for name in names:
        solve(repo, name)
        from dojo.state import VERDICTS_FORMAT

        digest = hashlib.sha256(VERDICTS_FORMAT)
        for path in (repo / "katas" / f"{name}.py", repo / "tests" / f"test_{name}.py"):
            digest.update(path.read_bytes())
        verdicts[name] = {
            "digest": digest.hexdigest(),
            **{"kata": name, "solved": True, "state": "done", "passed": 1, "skipped": 2},
        }
    (state / "verdicts.json").write_text(json.dumps(verdicts))


# --- numbers that add up ----------------------------------------------------------------------


def _verdict(**fields):
    from dojo.runner import Verdict

    return Verdict(kata="inplace_autograd", **fields)


def test_the_cuda_tests_are_said_to_come_on_top_of_those_that_pass():
    from dojo.render import render

    kata = _catalogue.get("inplace_autograd")
    done = render(_verdict(solved=True, state="done", passed=13, skipped=13), kata)
    assert "all 13 tests pass (13 more cuda tests need a GPU: none here)" in done, done
    one = render(_verdict(state="in progress", passed=1, failed=1, skipped=1), kata)
    assert "1 more cuda test needs a GPU" in one and "1 cuda tests" not in one, one
    assert "1 of 2 tests pass, 1 fail" in one, one


def test_a_message_that_several_failures_share_says_how_many(monkeypatch):
    from dojo import progress
    from dojo.render import render

    monkeypatch.setattr(progress, "_stats", {})
    for test, message in [("a", "same"), ("b", "same"), ("c", "other")]:
        report = pytest.TestReport(
            f"tests/test_timing.py::test_{test}[cpu]", ("", 0, ""), {}, "failed", message, "call"
        )
        progress.pytest_runtest_logreport(report)
    counts = progress.snapshot()["timing"]
    assert counts["failed"] == 3 and len(counts["messages"]) == 2
    verdict = _verdict(state="in progress", failed=3, messages=counts["messages"])
    text = render(verdict, _catalogue.get("timing"))
    assert "same\n   (shown once: 2 failures say this)" in text, text
    assert "other\n   (shown once" not in text, text


def test_one_problem_met_by_several_calls_is_listed_once_with_the_calls(monkeypatch):
    """One mistake met by several tests (other inputs, other tests) reads as one: the first
    message whole, then the other calls. What the message says of its call must match, but for
    sizes, dtypes and numbers; a message whose call the harness was not told stays apart."""
    from dojo import progress
    from dojo.render import render

    monkeypatch.setattr(progress, "_stats", {})
    why = "\nThat is: it changed in place a tensor autograd saved. (hint 1 (Q?): ...)"
    err = "raised RuntimeError: modified by an inplace operation: [torch.{} [{}]], version {}"
    said = [  # (call, what the message says of it)
        ("k.f(x) for x of shape ()", err.format("FloatTensor", "", 1) + why),
        ("k.f(x) for x of shape (41,), float64", err.format("DoubleTensor", "41", 2) + why),
        ("k.g(x) then backward()", err.format("FloatTensor", "3, 2", 1.5) + why),
        ("k.g(x) then backward()", err.format("FloatTensor", "3", 1) + why),  # a call again
        ("k.g(x) then backward()", err.format("FloatTensor", "3", 1) + "\nThat is: other."),
        ("k.f(x)", "raised TypeError: modified by an inplace operation" + why),
        ("k.f(x)", "returned x" + why.replace("hint 1 (Q?)", "hint 2 (R?)")),
        ("k.h(x)", "returned x" + why),
        ("k.h(x)", "returned x" + why),  # the same message again: shown once, counted
        (None, "k.f(x) for x of shape () " + err.format("FloatTensor", "", 1) + why),
    ]
    for n, (call, problem) in enumerate(said):
        message = f"{call} {problem}" if call else problem
        report = pytest.TestReport(
            f"tests/test_inplace_autograd.py::test_{n}[cpu]",
            ("", 0, ""),
            {},
            "failed",
            message + ("\n  example: a=1" if n == 0 else ""),
            "call",
            user_properties=[("call", call)] if call else [],
        )
        progress.pytest_runtest_logreport(report)
    counts = progress.snapshot()["inplace_autograd"]
    messages = counts["messages"]
    assert counts["failed"] == 10 and len(messages) == 6, messages
    assert messages[0].startswith(f"{said[0][0]} {said[0][1]}\n  example: a=1"), messages[0]
    assert messages[0].endswith(
        "(3 more tests failed the same way, calling k.f(x) for x of shape (41,), float64; "
        "k.g(x) then backward())"
    ), messages[0]
    assert messages[1] == f"{said[4][0]} {said[4][1]}", messages
    assert messages[4] == f"k.h(x) returned x{why}\n(shown once: 2 failures say this)", messages
    assert messages[5] == said[9][1], messages
    verdict = _verdict(state="in progress", failed=10, messages=messages)
    assert "3 more tests failed the same way" in render(verdict, _catalogue.get("inplace_autograd"))


def test_an_error_no_test_explains_is_listed_once_whatever_each_test_expected(monkeypatch):
    """`Say.call` turns an error it cannot explain into "raised E: ...; expected X" with the
    test's own X and hint; one crash of the learner's code met by several tests is one problem
    (a learner took three hint pointers for one AttributeError for three problems)."""
    from dojo import progress

    monkeypatch.setattr(progress, "_stats", {})
    crash = "raised AttributeError: module 'torch.nn' has no attribute 'DDP'"
    said = [
        ("k.f(1)", f"{crash}; expected it to train (hint 1, ...)", crash),
        ("k.f(2)", f"{crash}; expected it to work (hint 2, ...)", crash),
        ("k.g()", "raised RuntimeError: rank 0 failed; it should carry rank 1's error", None),
        ("k.h()", "raised RuntimeError: rank 1 failed; expected a state dict", "raised Runtime"),
    ]
    for n, (call, problem, same) in enumerate(said):
        report = pytest.TestReport(
            f"tests/test_distributed.py::test_{n}[cpu]",
            ("", 0, ""),
            {},
            "failed",
            f"{call} {problem}",
            "call",
            user_properties=[("call", call)] + ([("same", same)] if same else []),
        )
        progress.pytest_runtest_logreport(report)
    messages = progress.snapshot()["distributed"]["messages"]
    assert len(messages) == 3, messages
    assert messages[0] == (
        f"k.f(1) {said[0][1]}\n(1 more test failed the same way, calling k.f(2))"
    ), messages[0]


def test_a_drawn_value_is_shown_by_its_label():
    """Hypothesis's notes say "Draw 1 (params): ..."; learners did not know what a Draw was."""
    from dojo import harness

    err = AssertionError("x")
    err.__notes__ = [
        "Falsifying example: test_f(\n    kata=...,\n    n=2,\n    device=device(type='cpu'),\n)",
        "Draw 1 (params): [1, 2]",
        "Draw 2: 'meta'",
        "Draw 3 (machine (and device)): (1, 'cuda:0')",
    ]
    assert harness._example(err) == (
        "n=2, device=cpu; params: [1, 2]; chosen: 'meta'; machine (and device): (1, 'cuda:0')"
    )


def test_the_first_check_of_a_program_to_fix_names_one_mistake_once(repo):
    """inplace_autograd's `sigmoid_plus_one`, as given, fails five tests with one in-place
    error: the learner's first check lists it once, and names the other calls."""
    verdict = porcelain(katas(repo, "check", "inplace_autograd", "--porcelain"))
    raised = [
        m for m in verdict["messages"] if "sigmoid_plus_one" in m and "raised RuntimeError" in m
    ]
    assert len(raised) == 1, verdict["messages"]
    assert (
        "more tests failed the same way, calling inplace_autograd.sigmoid_plus_one" in (raised[0])
    ), raised[0]


def test_tests_of_the_given_code_that_pass_are_no_progress(monkeypatch):
    """A `given` test passes on the stub: it is counted apart, and leaves an untouched stub
    "not started"; one that fails (the given code was broken) fails like any other."""
    from dojo import progress
    from dojo.render import render

    monkeypatch.setattr(progress, "_stats", {})

    def report(test, outcome, keywords, message="", props=()):
        return pytest.TestReport(
            f"tests/test_sync_points.py::test_{test}[cpu]",
            ("", 0, ""),
            keywords,
            outcome,
            message or None,
            "call",
            user_properties=list(props),
        )

    unwritten = [("not_implemented", "NotImplementedError: train_and_log")]
    progress.pytest_runtest_logreport(report("a", "passed", {"given": 1}))
    progress.pytest_runtest_logreport(report("b", "failed", {}, "nie", unwritten))
    counts = progress.snapshot()["sync_points"]
    assert (counts["given"], counts["passed"], counts["not_written"]) == (1, 0, 1), counts
    assert progress.state(counts) == "not started"
    progress.pytest_runtest_logreport(report("c", "passed", {}))
    assert progress.state(progress.snapshot()["sync_points"]) == "in progress"
    progress.pytest_runtest_logreport(report("d", "failed", {"given": 1}, "broken"))
    counts = progress.snapshot()["sync_points"]
    assert (counts["given"], counts["passed"], counts["failed"]) == (1, 1, 1), counts
    assert counts["messages"] == ["broken"]
    # a program to fix fails its tests as it is: untouched, it is not started all the same
    fails = {**counts, "passed": 0, "not_written": 0}
    assert progress.state(fails) == "in progress"
    assert progress.state(fails, untouched=True) == "not started"
    assert progress.state({**fails, "failed": 0, "passed": 2}, untouched=True) == "done"
    kata = _catalogue.get("sync_points")
    text = render(_verdict(state="not started", failed=2, given=5, messages=["m"]), kata)
    assert "not started; katas/sync_points.py is a program to fix, and 2 tests fail" in text
    assert "\n1) m" in text and "NotImplementedError" not in text, text
    assert "to write" not in text, text
    # holes beside the program to fix (inplace_autograd) are named too
    both = _verdict(state="not started", failed=2, given=5, messages=["m"], unwritten=["k: f"])
    assert "It also has 1 function to write." in render(both, kata)


def test_tests_a_broken_import_stopped_are_not_counted_as_gpu_tests(repo):
    mark_done(repo, [k.name for k in _catalogue.katas()][1:])  # `list` checks only this one
    stub = porcelain(katas(repo, "check", "device_selection", "--porcelain"))
    assert stub["state"] == "not started" and stub["passed"] == 0 and stub["given"] > 0, stub
    # a broken import stops every cpu test, those of the given code too
    cpu_tests, cuda_tests = stub["not_written"] + stub["given"], stub["skipped"]
    assert cpu_tests > 1 and cuda_tests > 1, stub
    path = repo / "katas" / "device_selection.py"
    path.write_text(path.read_text() + "\ndef broken(:\n    pass\n")
    verdict = porcelain(katas(repo, "check", "device_selection", "--porcelain"))
    assert verdict["state"] == "does not import", verdict
    # the first test reports the import error, the other cpu tests could not run
    assert (verdict["failed"], verdict["blocked"]) == (1, cpu_tests - 1), verdict
    assert verdict["skipped"] == cuda_tests, verdict
    listed = katas(repo, "list").stdout
    row = next(line for line in listed.splitlines() if "device_selection" in line)
    assert "does not import" in row and f"0/{cpu_tests}" in row, listed
    assert f"+ {cuda_tests} cuda tests for a GPU" in row, listed


# --- the watch --------------------------------------------------------------------------------


def test_the_watch_says_at_once_that_a_save_is_being_checked(repo):
    with ctrl_c_reaches_children():
        proc = subprocess.Popen(
            [sys.executable, "-m", "katas", "watch", "device_selection", "--time-limit", "300"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    try:
        read = _Lines(proc)
        lines = read.said(3)  # the banner, a rule, and at once:
        assert lines[1].startswith("─── 1. device_selection"), lines
        assert lines[2] == "checking device_selection…", lines
        while not read().startswith("Not written yet"):  # the verdict's last line
            pass
        solve(repo, "device_selection")
        after = read.said(2)  # a rule, and before any verdict:
        assert after[0].startswith("─── 1. device_selection"), after
        assert after[1] == "checking device_selection…", after
    finally:
        proc.send_signal(signal.SIGINT)
        _stopped_within(proc, repo, 30)
    assert strays(repo) == []


def test_a_long_check_shows_how_far_it_is(capsys):
    from dojo.render import Ticker

    ticker = Ticker(_catalogue.get("distributed"), every=0)
    ticker({"done": 3, "total": 27, "failed": 0})
    ticker({"done": 9, "total": 27, "failed": 2})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "checking distributed…"
    assert out[1].startswith("checking distributed… 3 of 27 tests done ("), out
    assert out[2].startswith("checking distributed… 9 of 27 tests done, 2 not passing"), out


# --- the finish line --------------------------------------------------------------------------


def test_check_without_a_name_when_every_kata_is_done_runs_nothing(repo):
    mark_done(repo, [k.name for k in _catalogue.katas()])
    result = katas(repo, "check")
    assert result.returncode == 0, result.stderr
    n = len(_catalogue.katas())
    assert f"Every kata is done: {n} of {n}" in result.stdout, result.stdout
    assert "nox -s tests-cuda -- --impl katas" in result.stdout, result.stdout
    assert "katas solution NAME" in result.stdout
    assert "✓" not in result.stdout, "no kata was to be checked again"
    assert porcelain(katas(repo, "check", "--porcelain")) == {"all_done": True}


def test_next_never_names_a_kata_that_is_done(repo):
    mark_done(repo, ["copy_semantics", "model_transfer"])
    solve(repo, "device_selection")
    result = katas(repo, "check", "device_selection")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Next: 4. pinned_dataloader" in result.stdout, result.stdout


def test_next_is_not_named_on_a_verdict_about_an_older_file(repo):
    """`watch` stopped during the full run of a kata whose quick run passed: its saved verdict
    is the one from before the learner solved it. The next `check` of another kata must not
    name it as next without checking it first."""
    names = [k.name for k in _catalogue.katas()]
    mark_done(repo, names[2:])
    solve(repo, "device_selection")
    saved = json.loads((repo / ".katas-state" / "verdicts.json").read_text())
    saved["copy_semantics"] = {  # "in progress", on the file as it was before this one
        **{"digest": "0" * 64, "kata": "copy_semantics", "solved": False},
        **{"state": "in progress", "passed": 3, "failed": 2},
    }
    (repo / ".katas-state" / "verdicts.json").write_text(json.dumps(saved))
    solve(repo, "copy_semantics")
    result = katas(repo, "check", "device_selection")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Next: 2. copy_semantics" not in result.stdout, result.stdout
    assert "Every kata is done" in result.stdout, result.stdout
    after = json.loads((repo / ".katas-state" / "verdicts.json").read_text())
    assert after["copy_semantics"]["solved"], "what was found is remembered"


def test_next_names_a_changed_kata_that_is_not_done(repo):
    from dojo import source

    mark_done(repo, ["copy_semantics"])  # a verdict "done", on a solution since undone:
    stub = repo / "katas" / "copy_semantics.py"
    stub.write_text(source.stub_text(_catalogue.get("copy_semantics")) + "\n# an edit\n")
    solve(repo, "device_selection")
    result = katas(repo, "check", "device_selection")
    assert "checking copy_semantics (changed since its last check)" in result.stdout
    assert "Next: 2. copy_semantics" in result.stdout, result.stdout


def test_watch_of_the_last_kata_not_done_says_all_is_done_and_checks_no_other(repo):
    names = [k.name for k in _catalogue.katas()]
    mark_done(repo, names[1:])
    solve(repo, names[0])
    with ctrl_c_reaches_children():
        proc = subprocess.Popen(
            [sys.executable, "-m", "katas", "watch", names[0], "--time-limit", "300"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    try:
        read = _Lines(proc)
        while "Still watching" not in read():
            pass
        seen = read.seen
        text = "".join(seen)
        assert f"✓ 1. {names[0]} is done" in text, text
        assert f"python -m katas docs {names[0]} --discussion" in text, text
        assert "Every kata is done" in text and "On to" not in text, text
    finally:
        proc.send_signal(signal.SIGINT)
        err = _stopped_within(proc, repo, 30)
    assert proc.returncode == 0, err


def test_done_points_to_the_discussion_and_next_to_the_served_page(capsys):
    """The raw docs/katas/NAME.md lacks its examples' output: the tool points to the served
    page, and once a kata is done, to its discussion (SPEC-25 §1)."""
    from dojo import render, watch

    first, second = _catalogue.katas()[:2]
    done = render.render(_verdict(solved=True, state="done", passed=3), first)
    assert f"python -m katas docs {first.name} --discussion" in done, done
    started = render.render(_verdict(state="not started", not_written=3, unwritten=["f"]), first)
    assert f"(python -m katas docs {first.name})" in started, started
    nxt = render.next_words(second)
    assert f"(python -m katas docs {second.name})" in nxt, nxt
    watch._Human().moving_on(first, second)
    moving = capsys.readouterr().out
    assert f"(python -m katas docs {second.name})" in moving, moving
    assert "python -m katas docs NAME --discussion" in render.all_done_words()
    assert "docs/katas/" not in done + started + nxt + moving


# --- one time limit per check -----------------------------------------------------------------


def test_the_quick_and_the_full_run_share_one_time_limit(monkeypatch, capsys):
    from dojo import cli, runner, state

    calls = []

    def check(names, *, quick=False, deadline=None, time_limit=None, **_):
        calls.append((quick, deadline, time_limit))
        return {names[0]: runner.Verdict(kata=names[0], quick=quick, state="done", passed=1)}

    monkeypatch.setattr(runner, "check", check)
    monkeypatch.setattr(runner, "warm_up", lambda: None)
    monkeypatch.setattr(state, "remember", lambda verdicts: None)
    before = time.monotonic()
    cli.main(["check", "device_selection", "--time-limit", "30"])
    (q, quick_deadline, _), (f, full_deadline, _) = calls
    assert (q, f) == (True, False)
    assert quick_deadline == full_deadline, "each run got a limit of its own"
    assert before + 30 <= quick_deadline <= time.monotonic() + 30
    assert "one limit" not in capsys.readouterr().err


def test_each_kata_has_its_own_limit_unless_one_is_given(monkeypatch):
    """distributed starts a process per rank, each importing torch: 24-45 s on a 2-core
    machine, against the minute of the others. Its limit comes from the catalogue."""
    from dojo import cli, runner, state

    slow = _catalogue.get("distributed")
    assert slow.time_limit and slow.time_limit >= 3 * runner.TIME_LIMIT, slow.time_limit
    limits = []

    def check(names, *, quick=False, time_limit=None, **_):
        limits.append((names[0], time_limit))
        return {names[0]: runner.Verdict(kata=names[0], quick=quick, state="in progress")}

    monkeypatch.setattr(runner, "check", check)
    monkeypatch.setattr(runner, "warm_up", lambda: None)
    monkeypatch.setattr(state, "remember", lambda verdicts: None)
    cli.main(["check", "distributed"])
    cli.main(["check", "device_selection"])
    cli.main(["check", "distributed", "--time-limit", "30"])
    assert limits == [
        ("distributed", slow.time_limit),
        ("device_selection", 60),
        ("distributed", 30),
    ]

    jobs = []
    monkeypatch.setattr(runner, "_run", lambda js, **_: jobs.extend(js) or [{}] * len(js))
    monkeypatch.setattr(runner, "_verdicts", lambda *a: {})
    runner.check_each(["distributed", "device_selection"])
    assert [j.limit for j in jobs] == [slow.time_limit, 60], "list: each kata its own limit"


def test_a_stop_blames_the_code_only_when_a_test_or_nothing_took_the_time():
    from dojo.runner import _stopped

    slow_machine = _stopped(15, {"done": 7, "total": 12, "failed": 0, "running": "x::t"}, 2.0)
    assert "loop forever" not in slow_machine["problem"], slow_machine
    assert "7 of 12 tests done, all passing" in slow_machine["problem"]
    assert "--time-limit 30" in slow_machine["problem"]
    stuck = _stopped(15, {"done": 7, "total": 12, "failed": 0, "running": "x::t"}, 14.0)
    assert "in t, which had run 14 s" in stuck["problem"] and "loop forever" in stuck["problem"]
    nothing = _stopped(15, {}, 15.0)
    assert nothing["problem"].startswith("stopped after 15 s (the time limit)")


def test_help_and_readme_state_the_limit_as_it_is():
    import argparse

    from dojo import cli

    subcommands = next(
        a for a in cli.parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    check_help = " ".join(subcommands.choices["check"].format_help().split())
    assert "(quick and full run together; in `list`, each kata's)" in check_help, check_help
    readme = " ".join((_catalogue.ROOT / "README.md").read_text().split())
    assert "A check (the quick and the full run together) that runs longer than" in readme


def test_list_with_a_kata_that_hangs_at_import_waits_one_limit(repo):
    """One limit for the stuck kata, the others checked beside it while it hangs: not one
    limit per stale kata. Shown by what the processes saw, never by a wall clock: the stuck
    kata's import records that it started (once) and that another's import came while it hung.
    Its limit is its own, from the catalogue; the others keep theirs (a minute), so a busy
    machine slows them without stopping them."""
    stale = ["copy_semantics", "view_vs_reshape", "sync_points"]
    mark_done(repo, [k.name for k in _catalogue.katas() if k.name not in stale])
    catalogue = repo / "dojo" / "catalogue.toml"
    text = catalogue.read_text()
    catalogue.write_text(
        text.replace('name = "copy_semantics"\n', 'name = "copy_semantics"\ntime_limit = 20\n')
    )
    marks = repo / "marks"
    marks.mkdir()
    for name in stale[1:]:
        with (repo / "katas" / f"{name}.py").open("a") as f:
            f.write(f"\n__import__('pathlib').Path({str(marks / name)!r}).touch()\n")
    with (repo / "katas" / "copy_semantics.py").open("a") as f:  # a hang that spares the CPU
        f.write(
            "\nimport pathlib, time\n"
            f"marks = pathlib.Path({str(marks)!r})\n"
            "with (marks / 'stuck').open('a') as f:\n    f.write('started\\n')\n"
            "while not (marks / 'view_vs_reshape').exists():\n"
            "    time.sleep(0.1)\n"
            "(marks / 'saw').write_text('another kata was imported while this one hung')\n"
            "while True:\n    time.sleep(0.1)\n"
        )
    result = katas(repo, "list", timeout=300)
    assert result.returncode == 0, result.stderr
    rows = {
        line.split()[1]: line
        for line in result.stdout.splitlines()
        if line[3:4] == " " and not line.split()[1].endswith(":")  # not a problem's line
    }
    assert "stopped after 20 s" in result.stdout, result.stdout
    assert [n for n, row in rows.items() if "stopped" in row] == ["copy_semantics"], rows
    assert "not started" in rows["view_vs_reshape"] and "not started" in rows["sync_points"]
    assert "done" in rows["device_selection"], result.stdout
    assert "Next: 2. copy_semantics" in result.stdout, result.stdout
    last = _catalogue.katas()[-1].name  # done: its discussion is named
    assert f"python -m katas docs {last} --discussion" in result.stdout, result.stdout
    assert (marks / "stuck").read_text() == "started\n", "the stuck kata was checked again"
    if (os.cpu_count() or 1) > 1:  # `list` runs one check per core, up to 4
        assert (marks / "saw").exists(), "the others waited for the stuck kata's limit"
    assert (marks / "sync_points").exists()
    assert strays(repo) == []


# --- faults that get a sentence ---------------------------------------------------------------


def test_one_katas_import_time_side_effect_does_not_touch_another_in_list(repo):
    both = ("device_selection", "mismatch_errors")  # the others: done, not checked again
    mark_done(repo, [k.name for k in _catalogue.katas() if k.name not in both])
    solve(repo, "mismatch_errors")
    with (repo / "katas" / "device_selection.py").open("a") as f:
        f.write("\n_to = torch.Tensor.to\ntorch.Tensor.to = lambda self, *a, **k: _to(self)\n")
    result = katas(repo, "list")
    row = next(line for line in result.stdout.splitlines() if "mismatch_errors" in line)
    assert " done " in row, result.stdout


def test_sys_exit_at_import_gets_the_could_not_import_sentence(repo):
    path = repo / "katas" / "device_selection.py"
    path.write_text(
        path.read_text() + "\nimport argparse\n"
        "parser = argparse.ArgumentParser(description='PyTorch Example')\n"
        "parser.add_argument('--disable-cuda', action='store_true', help='Disable CUDA')\n"
        "args = parser.parse_args()\n"
    )
    result = katas(repo, "check", "device_selection")
    assert result.returncode == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith("✗ 1. device_selection: could not import katas/device_selection.py")
    assert "sys.exit(2)" in first and "parse_args()" in first, first
    assert "Traceback" not in result.stdout + result.stderr, result.stdout


def test_a_huge_return_value_is_cut_where_shown_and_stored(repo):
    solved_with(repo, "device_selection", "try_gpu", 'return "x" * 10_000_000')
    result = katas(repo, "check", "device_selection")
    assert result.returncode == 1
    assert "characters not shown" in result.stdout
    assert len(result.stdout) < 20_000, len(result.stdout)
    assert (repo / ".katas-state" / "verdicts.json").stat().st_size < 20_000


def test_os_exit_in_learner_code_is_not_called_out_of_memory(repo):
    solved_with(repo, "device_selection", "try_gpu", "import os\nos._exit(0)")
    result = katas(repo, "check", "device_selection")
    assert result.returncode == 1
    assert "memory" not in result.stdout, result.stdout
    assert "(exit code 0)" in result.stdout and "os._exit()" in result.stdout, result.stdout


def test_a_forked_child_left_running_does_not_hold_the_verdict(repo):
    forks_once = """
import os, time
if not _FORKED:
    _FORKED.append(1)
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
"""
    solved_with(repo, "device_selection", "pick_device", forks_once)
    path = repo / "katas" / "device_selection.py"
    path.write_text(path.read_text() + "\n_FORKED = []\n")
    result = katas(repo, "check", "device_selection", "--time-limit", "60")
    assert result.returncode == 0, result.stdout
    assert "device_selection is done" in result.stdout, result.stdout
    assert strays(repo) == []


def test_children_in_a_new_session_are_stopped_with_the_check(repo):
    started = (
        "import subprocess\n_KEEP.append(subprocess.Popen(['sleep', '600'], "
        "start_new_session=True))"
    )
    solved_with(repo, "device_selection", "try_all_gpus", started)
    path = repo / "katas" / "device_selection.py"
    path.write_text(path.read_text() + "\n_KEEP = []\n")
    assert katas(repo, "check", "device_selection").returncode == 0
    assert strays(repo) == []
    solved_with(
        repo,
        "device_selection",
        "try_all_gpus",
        started + "\nwhile True:\n    __import__('time').sleep(0.1)",
    )
    path.write_text(path.read_text() + "\n_KEEP = []\n")
    stopped = katas(repo, "check", "device_selection", "--time-limit", "5")
    assert "stopped after 5 s" in stopped.stdout, stopped.stdout
    assert strays(repo) == []


@pytest.mark.parametrize("command", ["check", "list", "solution", "reset"])
def test_a_kata_path_that_is_a_directory_gets_a_sentence(repo, command):
    path = repo / "katas" / "device_selection.py"
    if command == "list":  # the others: done, not checked again
        mark_done(repo, [k.name for k in _catalogue.katas()][1:])
    path.unlink()
    path.mkdir()
    args = [command] if command == "list" else [command, "device_selection"]
    result = katas(repo, *args)
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    if command == "list":
        assert "not a file" in result.stdout, result.stdout
    else:
        assert result.returncode == 1 and "is not a file" in result.stderr, result.stderr
    assert path.is_dir(), "the learner's directory is left alone"


def test_an_unwritable_state_folder_still_gives_the_verdict(repo):
    (repo / ".katas-state").write_text("not a folder")
    result = katas(repo, "check", "device_selection")
    assert result.returncode == 1
    assert "○ 1. device_selection: not started" in result.stdout, result.stdout
    assert "could not save this in .katas-state/" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    hint = katas(repo, "hint", "device_selection")
    assert hint.returncode == 0 and "Traceback" not in hint.stderr, hint.stderr


# --- reset ------------------------------------------------------------------------------------


def test_reset_of_a_latin1_kata_under_any_locale(repo):
    path = repo / "katas" / "device_selection.py"
    mine = b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + path.read_bytes()
    path.write_bytes(mine)
    ascii_locale = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    result = katas(repo, "reset", "device_selection", **ascii_locale)
    assert result.returncode == 0, result.stderr
    (backup,) = (repo / ".katas-backup").glob("device_selection-*.py")
    assert backup.read_bytes() == mine
    from dojo import source

    assert path.read_bytes() == source.stub_text(_catalogue.get("device_selection")).encode()


def test_reset_leaves_the_files_mode_as_it_was(repo):
    path = repo / "katas" / "device_selection.py"
    path.write_text(path.read_text() + "\n# mine\n")
    path.chmod(0o664)
    assert katas(repo, "reset", "device_selection").returncode == 0
    assert path.stat().st_mode & 0o777 == 0o664
    (backup,) = (repo / ".katas-backup").glob("device_selection-*.py")
    assert backup.stat().st_mode & 0o777 == 0o664


def test_reset_that_cannot_back_up_changes_nothing(repo):
    path = repo / "katas" / "device_selection.py"
    mine = path.read_text() + "\n# mine\n"
    path.write_text(mine)
    (repo / ".katas-backup").write_text("a file, not a folder")
    result = katas(repo, "reset", "device_selection")
    assert result.returncode == 1
    assert "could not save your katas/device_selection.py in .katas-backup/" in result.stderr
    assert "Traceback" not in result.stderr
    assert path.read_text() == mine


def test_reset_in_a_read_only_katas_folder_says_so(repo):
    path = repo / "katas" / "device_selection.py"
    mine = path.read_text() + "\n# mine\n"
    path.write_text(mine)
    if os.geteuid() != 0:
        (repo / "katas").chmod(0o555)
        result = katas(repo, "reset", "device_selection")
        (repo / "katas").chmod(0o755)
    else:  # root writes anywhere: make the write fail as a read-only folder would
        script = (
            "import errno, os, sys, tempfile\n"
            "real = tempfile.mkstemp\n"
            "def mkstemp(*a, dir=None, **k):\n"
            "    if dir is not None and os.path.basename(dir) == 'katas':\n"
            "        raise PermissionError(errno.EACCES, 'Permission denied', dir)\n"
            "    return real(*a, dir=dir, **k)\n"
            "tempfile.mkstemp = mkstemp\n"
            "from dojo.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n"
        )
        result = subprocess.run(
            [sys.executable, "-c", script, "reset", "device_selection"],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "is katas/ read-only?" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert path.read_text() == mine


def test_state_updates_at_once_lose_none(tmp_path, monkeypatch):
    from dojo import state

    monkeypatch.setattr(state, "STATE", tmp_path / ".katas-state")
    writers, each = 4, 50
    pids = []
    for w in range(writers):
        pid = os.fork()
        if pid == 0:
            try:
                for i in range(each):
                    state.update("verdicts", lambda d, k=f"{w}-{i}": d.update({k: 1}))
            finally:
                os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    saved = json.loads((tmp_path / ".katas-state" / "verdicts.json").read_text())
    assert len(saved) == writers * each
