"""dojo/verify.py's judgements, on outcomes made up here: the stubs check (given tests pass,
the others fail unwritten; a program to fix fails on its pitfall with an assertion)."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from dojo import catalogue as _catalogue
from dojo import verify

HOLE = dataclasses.replace(
    _catalogue.katas()[0],
    name="k",
    pitfall=_catalogue.Pitfall(mistake="m", lesson="l", test="test_pitfall"),
)
FIX = dataclasses.replace(
    HOLE, pitfall=_catalogue.Pitfall(mistake="m", lesson="l", test="test_pitfall", stub="fix")
)


def case(name="test_x[cpu]", outcome="failed", *, given=False, unwritten=False, exception=""):
    return {
        "name": name,
        "file": "tests/test_k.py",
        "outcome": outcome,
        "given": given,
        "unwritten": unwritten,
        "exception": exception,
        "message": "the message",
    }


def test_a_given_test_must_pass_on_the_stub():
    assert verify.judge_stub_case(HOLE, case(outcome="passed", given=True)) is None
    problem = verify.judge_stub_case(HOLE, case(given=True, exception="AssertionError"))
    assert "is marked given" in problem and "fails on the stub" in problem


def test_any_other_test_must_fail_unwritten():
    assert verify.judge_stub_case(HOLE, case(unwritten=True)) is None
    assert "cannot fail" in verify.judge_stub_case(HOLE, case(outcome="passed"))
    wrong = verify.judge_stub_case(HOLE, case(exception="AssertionError"))
    assert "failed for the wrong reason" in wrong


@pytest.mark.parametrize("kata", [HOLE, FIX])
def test_a_skipped_test_is_a_problem(kata):
    assert "skipped" in verify.judge_stub_case(kata, case(outcome="skipped"))
    assert "skipped" in verify.judge_stub_case(kata, case(outcome="skipped", given=True))


def test_a_program_to_fix_may_fail_with_an_assertion_or_unwritten():
    assert verify.judge_stub_case(FIX, case(exception="AssertionError")) is None
    assert verify.judge_stub_case(FIX, case(unwritten=True)) is None
    crash = verify.judge_stub_case(FIX, case(exception="TypeError"))
    assert "wrong reason" in crash and "program to fix" in crash
    assert "cannot fail" in verify.judge_stub_case(FIX, case(outcome="passed"))


def test_the_pitfall_test_of_a_program_to_fix_must_fail_with_an_assertion():
    pitfall = "test_pitfall[cpu]"
    assert verify.judge_stub_case(FIX, case(pitfall, exception="AssertionError")) is None
    unwritten = verify.judge_stub_case(FIX, case(pitfall, unwritten=True))
    assert "pitfall's test" in unwritten and "with an assertion" in unwritten
    assert "pitfall's test" in verify.judge_stub_case(FIX, case(pitfall, exception="TypeError"))
    # An error in set-up is no assertion either.
    errored = case(pitfall, outcome="error", exception="AssertionError")
    assert "pitfall's test" in verify.judge_stub_case(FIX, errored)


def test_the_pitfall_rule_holds_only_for_a_program_to_fix():
    assert verify.judge_stub_case(HOLE, case("test_pitfall[cpu]", unwritten=True)) is None


def test_the_catalogue_reads_the_new_optional_fields():
    assert _catalogue.Pitfall(mistake="m", lesson="l").stub == "hole"
    assert not HOLE.fix and FIX.fix
    with pytest.raises(ValueError, match="one of hole, fix"):
        _catalogue.Pitfall(mistake="m", lesson="l", stub="mend")


# --- first attempts ---------------------------------------------------------------------------

SYNC = _catalogue.get("sync_points")
PITFALL_TEST = "test_train_and_log_transfers_once_at_the_end"

ATTEMPT = '''"""Reads each loss with `.item()`, as the tutorial does.

Written from: {written_from}
Message: {phrase}
"""

{imports}


def train_and_log(model, batches, optimizer, loss_fn):
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append({read})
    return losses
'''


def attempt(
    folder: Path,
    *,
    phrase="host transfers",
    written_from="the kata page and the stub only.",
    imports="import torch",
    read="loss.item()",
    name="reads_item.py",
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(
        ATTEMPT.format(phrase=phrase, written_from=written_from, imports=imports, read=read)
    )
    return path


@dataclasses.dataclass(frozen=True)
class _Kata(_catalogue.Kata):
    """A catalogued kata whose first attempts live in a folder of the test's own."""

    attempts: Path = Path()

    @property
    def first_attempts(self) -> Path:
        return self.attempts


def with_attempts(folder: Path, test: str = PITFALL_TEST, kata=SYNC) -> _Kata:
    fields = {f.name: getattr(kata, f.name) for f in dataclasses.fields(kata)}
    pitfall = dataclasses.replace(kata.pitfall, test=test)
    return _Kata(**{**fields, "pitfall": pitfall, "attempts": folder})


def outcome(name=f"{PITFALL_TEST}", result="failed", *, exception="AssertionError", text=""):
    return {
        "code": 1,
        "output": "",
        "cases": [
            {
                "name": name,
                "outcome": result,
                "unwritten": False,
                "exception": exception,
                "message": "short message",
                "text": text or "made 6 host transfers (Tensor.item x6) for 6 step(s)",
            }
        ],
    }


def test_an_attempt_that_fails_with_its_message_is_met(tmp_path):
    path = attempt(tmp_path)
    line, ok = verify.judge_attempt(with_attempts(tmp_path), path, outcome())
    assert ok and line.startswith("met "), line


def test_the_message_phrase_is_matched_across_line_breaks(tmp_path):
    path = attempt(tmp_path, phrase="6   host\ntransfers")
    _, ok = verify.judge_attempt(with_attempts(tmp_path), path, outcome())
    assert ok


@pytest.mark.parametrize(
    "made, verdict",
    [
        (outcome(result="passed", exception=""), "NOT MET"),
        (outcome(exception="TypeError"), "CRASH"),
        (outcome(result="error"), "CRASH"),
        (outcome(text="some other message"), "WRONG MESSAGE"),
        (outcome(name="test_something_else"), "BROKEN"),
        ({"problem": "stopped after 120 s"}, "BROKEN"),
    ],
)
def test_an_attempt_that_does_not_meet_the_pitfall_as_it_must_is_a_problem(tmp_path, made, verdict):
    path = attempt(tmp_path)
    line, ok = verify.judge_attempt(with_attempts(tmp_path), path, made)
    assert not ok and line.startswith(verdict), line


def test_an_attempt_that_fails_as_not_written_is_broken(tmp_path):
    made = outcome()
    made["cases"][0]["unwritten"] = True
    line, ok = verify.judge_attempt(with_attempts(tmp_path), attempt(tmp_path), made)
    assert not ok and "not written" in line


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"written_from": "the discussion."}, "Written from: the kata page and the stub only."),
        ({"phrase": ""}, "Message:"),
        ({"imports": "from reference.sync_points import *"}, "not an import"),
        ({"imports": "from katas.sync_points import train_and_log"}, "not an import"),
    ],
)
def test_an_attempt_says_how_it_was_written_and_is_a_whole_file(tmp_path, kwargs, says):
    path = attempt(tmp_path, **kwargs)
    problems = verify.attempt_problems(with_attempts(tmp_path), path)
    assert any(says in p for p in problems), problems


def test_the_pitfall_test_must_be_named_and_exist(tmp_path):
    path = attempt(tmp_path)
    assert verify.attempt_problems(with_attempts(tmp_path), path) == []
    unnamed = verify.attempt_problems(with_attempts(tmp_path, test=""), path)
    assert any("[kata.pitfall] test" in p for p in unnamed), unnamed
    missing = verify.attempt_problems(with_attempts(tmp_path, test="test_nothing"), path)
    assert any("is not a test of tests/test_sync_points.py" in p for p in missing), missing


def test_a_kata_without_attempts_is_a_problem_when_they_are_required(tmp_path, capsys):
    problems = verify.check_first_attempts((with_attempts(tmp_path / "none"),), require=True)
    assert problems == ["sync_points: tests/first_attempts/sync_points/ holds no attempt"]


def test_a_kata_without_attempts_is_named_while_they_are_not_required(tmp_path, capsys):
    problems = verify.check_first_attempts((with_attempts(tmp_path / "none"),), require=False)
    assert problems == []
    out = capsys.readouterr().out
    assert "1 of 1 katas hold no failing natural first attempt yet: sync_points" in out
    assert "sync_points: a program to fix, whose first check" in out  # its stub meets it


def test_the_runner_meets_a_real_attempt_and_rejects_one_that_passes(tmp_path, capsys):
    """End to end, in forked children: the `.item()` attempt fails the real pitfall test with
    its message; one that reads the losses once, after the loop, passes it: NOT MET. The
    output names no test message (it is no spoiler)."""
    attempt(tmp_path, phrase="host transfers")
    once = "loss.detach()"
    attempt(tmp_path, read=once, name="keeps_the_losses.py").write_text(
        attempt(tmp_path, read=once, name="keeps_the_losses.py")
        .read_text()
        .replace("    return losses", "    return torch.stack(losses).tolist() if losses else []")
    )
    problems = verify.check_first_attempts((with_attempts(tmp_path),))
    out = capsys.readouterr().out
    assert len(problems) == 1 and problems[0].startswith("NOT MET "), problems
    assert "keeps_the_losses.py" in problems[0]
    assert "first_attempts: 1 of 2 meet their pitfall" in out
    assert "sync_points: 1 of 2 first attempts met" in out
    assert "Tensor.item" not in out


# --- spoilers -----------------------------------------------------------------------------------

SPOILED = dataclasses.replace(
    SYNC, resolves=("torch.stack", "tolist", "detach", "read back once"), subject=("item",)
)


def html(article: str, nav: str = "") -> str:
    return (
        f"<html><head><script>var x = 'torch.stack';</script></head><body><nav>{nav}</nav>"
        f'<article class="md-content__inner">{article}</article></body></html>'
    )


def spoilers(article: str, stub: str = "def train_and_log(): pass", kata=SPOILED, nav=""):
    return verify.spoilers_of(kata, html(article, nav), stub)


def test_a_clean_page_and_stub_have_no_spoiler():
    problems, line = spoilers("<h1>10. Sync points</h1><p>Train, and log the loss.</p>")
    assert problems == []
    assert line.startswith("sync_points: 0 of ") and "named before the attempt" in line


def test_a_page_naming_what_resolves_the_kata_is_a_spoiler():
    article = '<p>Use <code><span class="n">torch</span>.<span>stack</span>(losses)</code>.</p>'
    problems, _ = spoilers(article)
    assert problems == ["katas/sync_points/ names 'torch.stack', which resolves sync_points"]


def test_names_match_whole_words_and_phrases_in_any_case():
    assert spoilers("<p>The loss stays detached.</p>")[0] == []  # detach is not in detached
    assert spoilers("<p>x.detach()</p>")[0]
    assert spoilers("<p>Read <em>back</em>\n once.</p>")[0]  # across tags and lines


def test_the_site_around_the_article_is_not_the_page():
    assert spoilers("<p>Plain.</p>", nav="<a>torch.stack</a>")[0] == []


def test_the_stub_may_not_name_what_resolves_the_kata():
    problems, _ = spoilers("<p>Plain.</p>", stub="x = losses.tolist()")
    assert problems == ["the stub katas/sync_points.py names 'tolist', which resolves sync_points"]


def test_the_subject_is_allowed_anywhere():
    kata = dataclasses.replace(SPOILED, resolves=("DataParallel",), subject=("nn.DataParallel",))
    assert spoilers("<p>Wrap it in nn.DataParallel.</p>", kata=kata)[0] == []
    assert spoilers("<p>Wrap it in DataParallel.</p>", kata=kata)[0]


def test_hints_tests_mistakes_and_solution_lines_on_a_kata_page_are_spoilers():
    import html as _html

    hint = verify._prose(SYNC.hints[2].text)
    assert any("holds hint 3" in p for p in spoilers(f"<details><p>{hint}</p></details>")[0])
    test = re.search(r"def (test_\w+)\(", SYNC.tests.read_text())[1]
    assert any("holds tests/test_sync_points.py" in p for p in spoilers(f"def {test}(x):")[0])
    mistake = sorted(SYNC.mistakes.glob("*.py"))[0]
    doc = ast.get_docstring(ast.parse(mistake.read_text())).split("\n\n")[0]
    folded = f"<details><summary>Spoilers</summary>{_html.escape(doc)}</details>"
    assert any(mistake.name in p for p in spoilers(folded)[0])
    lines = verify.solution_lines(SYNC, "")
    assert "logged = torch.stack(losses).tolist()" in lines
    assert all(len(line) >= verify.MIN_SOLUTION_LINE for line in lines)
    code = "<pre><code>logged <span>=</span> torch.stack(losses).tolist()</code></pre>"
    # the line also names what the catalogue says resolves sync_points (torch.stack, tolist()):
    # that check has tests of its own; here, only the reference's line is looked for
    found = spoilers(code, kata=dataclasses.replace(SYNC, resolves=()))[0]
    assert found == [
        "katas/sync_points/ holds 1 line(s) of the reference's solution, such as "
        "'logged = torch.stack(losses).tolist()'"
    ]


def test_solution_lines_given_in_the_stub_are_not_spoilers():
    assert "logged = torch.stack(losses).tolist()" in verify.solution_lines(SYNC, "")
    given = "    logged = torch.stack(losses).tolist()\n"
    assert "logged = torch.stack(losses).tolist()" not in verify.solution_lines(SYNC, given)


def test_the_api_the_solution_calls_and_how_much_of_it_is_named_before():
    api = verify.solution_api(SYNC)
    for name in ("stack", "tolist", "detach", "backward", "step", "zero_grad"):
        assert name in api, api
    assert "append" not in api and "enumerate" not in api  # not torch
    _, line = spoilers("<p>Call backward() then step().</p>", kata=SYNC)
    assert line == (
        f"sync_points: 2 of {len(api)} API names in the solution are named before the "
        "attempt (backward, step)"
    )


def test_the_spoilers_check_reads_a_built_site(tmp_path, capsys):
    page = tmp_path / "katas" / "sync_points" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text(html("<p>Use torch.stack.</p>"))
    problems = verify.check_spoilers((SPOILED,), site=tmp_path)
    assert problems == ["katas/sync_points/ names 'torch.stack', which resolves sync_points"]
    assert "spoilers: 1 kata pages read, 1 problem(s)" in capsys.readouterr().out
    missing = verify.check_spoilers((SPOILED,), site=tmp_path / "nowhere")
    assert len(missing) == 1 and "not built" in missing[0]
