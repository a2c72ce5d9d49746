"""dojo/verify.py's judgements, on outcomes made up here: the stubs check (given tests pass,
the others fail unwritten; a program to fix fails on its pitfall with an assertion)."""

from __future__ import annotations

import dataclasses

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
