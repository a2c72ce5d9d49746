"""Repository invariants that a plain test run cannot show: `python -m dojo.verify CHECK`.

- `stubs`: against the stubs generated from the references (dojo/source.py), every cpu-tier
  test marked `given` (it checks only code the stub gives: argument checks, plumbing) passes,
  and every other one fails with the stub's NotImplementedError: not an ImportError, a
  collection error or a wrong assertion. For a kata whose stub is a program to fix (catalogue
  `[kata.pitfall] stub = "fix"`), the others fail with an assertion or NotImplementedError,
  and the pitfall's own test fails with an assertion.
- `mistakes`: every file in tests/mistakes/<name>/ is swapped in for the kata module, and the
  tests its docstring names (`Caught by: test_a, test_b`) run on it: at least one must fail,
  with an assertion (a learner message), not a crash, an import error or "not written".
- `solutions`: every file in tests/solutions/<name>/ (a correct solution written differently
  from the reference) is swapped in for the kata module and passes the kata's whole cpu tier:
  the mirror of `mistakes`, proof that the tests check behaviour, not the reference's recipe.
- `first_attempts`: every file in tests/first_attempts/<name>/ (a natural first attempt, written
  from the kata page and the stub only) is swapped in for the kata module and runs the
  pitfall's own test (catalogue `[kata.pitfall] test`): it must fail, with an assertion (not a
  crash or "not written"), and the failure message must contain the phrase after `Message:`
  in the attempt's docstring. The pitfall is met, and the message is what teaches it.
- `spoilers --site DIR`: reads the built site. A kata page (katas/<name>/index.html) may not
  name what resolves the kata (catalogue `resolves`, its `subject` excepted), nor may the
  stub; and the page may hold no hint's text, no test of tests/test_<name>.py, no mistake's
  docstring and no line of the reference's solution regions, folded or not (a text dump of it
  must not contain the solution). Prints, per kata, how many of the torch API names the
  solution regions call are named before the attempt (on the kata page or in the stub).
- `pristine`: katas/ ships exactly the stubs its references generate (maintainers' CI only: a
  learner's clone holds their own work there).

Checks run in children forked from one warm parent that has imported torch, pytest and
hypothesis once (dojo/runner.py), two at a time. Output is counts only, so the mistake corpus
is no spoiler; `-v` prints every verdict, and a failure is always printed in full.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

from dojo import catalogue as _catalogue

ROOT = _catalogue.ROOT
ASSERTIONS = ("AssertionError", "Failed")  # what a test says when it rejects an answer


def caught_by(mistake: Path) -> list[str]:
    """The test names after `Caught by:` in the mistake's docstring."""
    doc = ast.get_docstring(ast.parse(mistake.read_text())) or ""
    match = re.search(r"^Caught by:(.*)$", doc, re.MULTILINE)
    return [t.strip() for t in match.group(1).split(",") if t.strip()] if match else []


class _Outcomes:
    """A pytest plugin that keeps each test's outcome and message."""

    def __init__(self) -> None:
        self.cases: list[dict] = []

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            self.cases.append(
                {
                    "name": report.nodeid.split("::", 1)[-1],
                    "file": report.nodeid.split("::", 1)[0],
                    "given": "given" in report.keywords,
                    "outcome": "error"
                    if report.when != "call" and report.failed
                    else report.outcome,
                    "unwritten": any(k == "not_implemented" for k, _ in report.user_properties),
                    "message": report.longreprtext.strip()[:2000] if report.failed else "",
                }
            )


class _Exceptions:
    """Remembers the exception type of each failing test call (by node id)."""

    def __init__(self) -> None:
        self.types: dict[str, str] = {}
        self.texts: dict[str, str] = {}

    def pytest_exception_interact(self, node, call, report):
        name = node.nodeid.split("::", 1)[-1]
        self.types[name] = call.excinfo.typename
        self.texts[name] = str(call.excinfo.value)[:4000]


def _run(args: list[str]) -> dict:
    """In a forked child: run pytest quietly with `args`; return the cases and exception types."""
    from dojo.runner import quiet_pytest

    outcomes, exceptions = _Outcomes(), _Exceptions()
    code, output = quiet_pytest(
        ["-q", "-p", "no:cacheprovider", "-m", "cpu", "--tb=line", *args],
        (outcomes, exceptions),
    )
    for case in outcomes.cases:
        case["exception"] = exceptions.types.get(case["name"], "")
        case["text"] = exceptions.texts.get(case["name"], "")
    return {"code": code, "cases": outcomes.cases, "output": output[-3000:]}


def _judge_mistake(kata: _catalogue.Kata, mistake: Path, outcome: dict) -> tuple[str, bool]:
    rel = mistake.relative_to(ROOT)
    expected = caught_by(mistake)
    if "problem" in outcome:
        return f"BROKEN {rel}: {outcome['problem']}", False
    cases, code = outcome["cases"], outcome["code"]
    failed = [c for c in cases if c["outcome"] in ("failed", "error")]
    ran = {c["name"].split("[")[0] for c in cases}
    if missing := [t for t in expected if t not in ran]:
        return f"BROKEN {rel}: names {', '.join(missing)}, which did not run", False
    if code == 0 or not failed:
        return (
            f"NOT CAUGHT {rel}: {', '.join(expected)} passed, so the tests accept this mistake",
            False,
        )
    if code != 1:
        return f"BROKEN {rel}: pytest exited {code}:\n{outcome['output'][-2000:]}", False
    for c in failed:
        if c["unwritten"] or c["message"].startswith("could not import"):
            return f"BROKEN {rel}: {c['name']} failed for the wrong reason: {c['message']}", False
    hits = [c for c in failed if c["exception"] in ASSERTIONS]
    if not hits:
        c = failed[0]
        return (
            f"CRASH {rel}: {c['name']} failed with {c['exception'] or 'an error'}, not an "
            f"assertion, so no learner message explains the mistake: {c['message'][:300]}",
            False,
        )
    summary = hits[0]["message"].splitlines()[0][:160] if hits[0]["message"] else ""
    return f"caught {rel} by {hits[0]['name']}: {summary}", True


def check_mistakes(katas: tuple[_catalogue.Kata, ...], verbose: bool = False) -> list[str]:
    problems, jobs = [], []
    for kata in katas:
        files = sorted(kata.mistakes.glob("*.py"))
        if not files:
            problems.append(f"{kata.name}: tests/mistakes/{kata.name}/ holds no mistake")
        for f in files:
            names = caught_by(f)
            if not names:
                problems.append(f"BROKEN {f.relative_to(ROOT)}: no 'Caught by: test_...' line")
                continue
            tests = str(kata.tests.relative_to(ROOT))
            args = [f"--impl-file={f.relative_to(ROOT)}", *(f"{tests}::{t}" for t in names)]
            jobs.append((kata, f, args))
    caught, seconds = _run_corpus(
        jobs, _judge_mistake, problems, verbose, time_limit=120, counted="mistakes caught"
    )
    print(f"mistakes: {caught} of {len(jobs)} caught in {seconds:.0f} s")
    return problems


def _run_corpus(jobs, judge, problems, verbose, *, time_limit, counted) -> tuple[int, float]:
    """Run each (kata, file, pytest args) job in a forked child, two at a time; judge each
    outcome (a line and whether it is good), print failures as they come and each kata's
    tally once its last file is judged. Returns (good, seconds)."""
    from dojo import runner

    runner.warm_up()
    start, good = time.perf_counter(), 0
    per_kata: dict[str, list[int]] = {}
    expected = Counter(kata.name for kata, _, _ in jobs)  # when a kata's tally is complete
    works = [lambda args=args: _run(args) for _, _, args in jobs]
    parallel = os.cpu_count() or 2
    for index, outcome in runner.forked_many(works, parallel=parallel, time_limit=time_limit):
        kata, path, _ = jobs[index]
        line, ok = judge(kata, path, outcome)
        tally = per_kata.setdefault(kata.name, [0, 0])
        tally[0] += ok
        tally[1] += 1
        good += ok
        if not ok:
            problems.append(line)
            print(f"FAIL: {line}", flush=True)
        elif verbose:
            print(line, flush=True)
        if tally[1] == expected[kata.name]:
            print(f"{kata.name}: {tally[0]} of {tally[1]} {counted}", flush=True)
    return good, time.perf_counter() - start


def judge_stub_case(kata: _catalogue.Kata | None, case: dict) -> str | None:
    """What is wrong with one test's outcome against the stubs, or None if it is as it must
    be. `case`: name, outcome, given, unwritten, exception, message (see _Outcomes)."""
    name, outcome = case["name"], case["outcome"]
    if outcome == "skipped":
        return f"{name} was skipped against the stub"
    if case.get("given"):
        if outcome == "passed":
            return None
        return (
            f"{name} is marked given, so it checks only code the stub gives, but it fails "
            f"on the stub: {case['message'][:300]}"
        )
    if outcome == "passed":
        return f"{name} passes against the unwritten stub, so it cannot fail (mark it given?)"
    asserted = outcome == "failed" and case.get("exception") in ASSERTIONS
    if kata is not None and kata.fix:
        pitfall = kata.pitfall.test
        if pitfall and name.split("[")[0] == pitfall and not asserted:
            return (
                f"{name} is the pitfall's test of a program to fix, so it must fail on the "
                f"stub with an assertion (its message), not {case.get('exception') or 'an error'}:"
                f" {case['message'][:300]}"
            )
        if case["unwritten"] or asserted:
            return None
        return (
            f"{name} failed for the wrong reason: the stub is a program to fix, so it fails with "
            f"an assertion or NotImplementedError: {case['message'][:300]}"
        )
    if case["unwritten"]:
        return None
    return f"{name} failed for the wrong reason: {case['message'][:300]}"


def check_stubs(katas: tuple[_catalogue.Kata, ...], verbose: bool = False) -> list[str]:
    from dojo import runner

    files = [str(k.tests.relative_to(ROOT)) for k in katas]
    runner.warm_up()
    outcome = runner._forked(lambda: _run(["--impl", "stubs", *files]), 300, lambda: False)
    if "problem" in outcome:
        return [outcome["problem"]]
    if outcome["code"] not in (0, 1):
        return [f"pytest exited {outcome['code']} (not a plain test failure):\n{outcome['output']}"]
    problems = []
    seen = {c["file"] for c in outcome["cases"]}
    problems += [f"{f}: no cpu-tier test ran" for f in files if f not in seen]
    given = 0
    for c in outcome["cases"]:
        problem = judge_stub_case(_catalogue.of_test(c["file"]), c)
        given += bool(c["given"]) and problem is None
        if problem:
            problems.append(problem)
        elif verbose:
            print(f"{'given, passes' if c['given'] else 'not written, fails'}: {c['name']}")
    print(
        f"stubs: {len(outcome['cases'])} cpu-tier kata tests ran against the generated stubs "
        f"({given} of them given tests, which pass)"
    )
    return problems


def _judge_solution(solution: Path, outcome: dict) -> tuple[str, bool]:
    rel = solution.relative_to(ROOT)
    if "problem" in outcome:
        return f"BROKEN {rel}: {outcome['problem']}", False
    cases = outcome["cases"]
    bad = [c for c in cases if c["outcome"] in ("failed", "error")]
    if outcome["code"] == 5 or not cases:
        return f"BROKEN {rel}: no test ran", False
    if bad or outcome["code"] != 0:
        c = bad[0] if bad else {"name": "pytest", "message": outcome["output"][-1500:]}
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        return (
            f"REJECTED {rel}: a correct solution failed {c['name']}{more}, so that test checks "
            f"a recipe, not the contract: {c['message'][:1500]}",
            False,
        )
    passed = sum(c["outcome"] == "passed" for c in cases)
    return f"passes {rel}: {passed} tests", True


def check_solutions(katas: tuple[_catalogue.Kata, ...], verbose: bool = False) -> list[str]:
    """Every correct solution in tests/solutions/<name>/ passes its kata's whole cpu tier."""
    problems, jobs = [], []
    for kata in katas:
        files = sorted(kata.solutions.glob("*.py"))
        if not files:
            problems.append(f"{kata.name}: tests/solutions/{kata.name}/ holds no solution")
        tests = str(kata.tests.relative_to(ROOT))
        jobs += [(kata, f, [f"--impl-file={f.relative_to(ROOT)}", tests]) for f in files]
    good, seconds = _run_corpus(
        jobs,
        lambda kata, path, outcome: _judge_solution(path, outcome),
        problems,
        verbose,
        time_limit=300,
        counted="correct solutions pass",
    )
    print(f"solutions: {good} of {len(jobs)} pass in {seconds:.0f} s")
    return problems


WRITTEN_FROM = "the kata page and the stub only."


def attempt_header(path: Path) -> dict[str, str]:
    """What a first attempt's docstring says: `what` (its first line), `written_from` and
    `message` (the phrase its failure message must contain); "" for what it does not say."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    fields = {
        key: m.group(1).strip() if (m := re.search(rf"^{label}:(.*)$", doc, re.MULTILINE)) else ""
        for key, label in (("written_from", "Written from"), ("message", "Message"))
    }
    return {"what": doc.split("\n", 1)[0].strip(), **fields}


def _same_words(text: str) -> str:
    return " ".join(text.split())


def attempt_problems(kata: _catalogue.Kata, path: Path) -> list[str]:
    """What keeps a first attempt from being run at all: its docstring, the pitfall's test."""
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    header = attempt_header(path)
    problems = []
    if not header["what"]:
        problems.append(f"{rel}: its docstring's first line says what the attempt does")
    if header["written_from"] != WRITTEN_FROM:
        problems.append(f"{rel}: its docstring needs the line 'Written from: {WRITTEN_FROM}'")
    if not header["message"]:
        problems.append(
            f"{rel}: its docstring needs 'Message: <a phrase of the pitfall test's message>'"
        )
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        modules = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        if any(m == "reference" or m.startswith(("reference.", "katas")) for m in modules):
            problems.append(f"{rel}: a first attempt is a learner's whole file, not an import")
            break
    if kata.pitfall is None or not kata.pitfall.test:
        problems.append(f"{kata.name}: name the pitfall's own test, [kata.pitfall] test = ...")
    elif f"def {kata.pitfall.test}(" not in kata.tests.read_text(encoding="utf-8"):
        problems.append(
            f"{kata.name}: [kata.pitfall] test = {kata.pitfall.test!r} is not a test of "
            f"{kata.tests.relative_to(ROOT)}"
        )
    return problems


def judge_attempt(kata: _catalogue.Kata, attempt: Path, outcome: dict) -> tuple[str, bool]:
    """Did the attempt fail the pitfall's test, with an assertion carrying its Message phrase?"""
    rel = attempt.relative_to(ROOT) if attempt.is_relative_to(ROOT) else attempt
    test = kata.pitfall.test if kata.pitfall else "?"
    if "problem" in outcome:
        return f"BROKEN {rel}: {outcome['problem']}", False
    cases = outcome["cases"]
    ran = [c for c in cases if c["name"].split("[")[0] == test]
    if not ran:
        return f"BROKEN {rel}: {test} did not run:\n{outcome['output'][-1500:]}", False
    failed = [c for c in ran if c["outcome"] in ("failed", "error")]
    if not failed:
        return (
            f"NOT MET {rel}: {test} passed, so this natural attempt does not meet the pitfall",
            False,
        )
    phrase = attempt_header(attempt)["message"]
    for c in failed:
        if c["unwritten"] or c["message"].startswith("could not import"):
            return f"BROKEN {rel}: {c['name']} failed as 'not written': {c['message'][:300]}", False
    asserted = [c for c in failed if c["outcome"] == "failed" and c["exception"] in ASSERTIONS]
    if not asserted:
        c = failed[0]
        return (
            f"CRASH {rel}: {c['name']} failed with {c['exception'] or 'an error'}, not an "
            f"assertion, so no message teaches the pitfall: {c['message'][:300]}",
            False,
        )
    for c in asserted:
        if _same_words(phrase) in _same_words(c["text"] or c["message"]):
            return f"met {rel}: {c['name']} fails with its message", True
    c = asserted[0]
    return (
        f"WRONG MESSAGE {rel}: {c['name']} failed, but its message does not say "
        f"{phrase!r}:\n{(c['text'] or c['message'])[:1500]}",
        False,
    )


REQUIRE_FIRST_ATTEMPTS = False
"""Must every kata hold a failing natural first attempt? Off while some do not: the attempts
learners wrote from the kata page and the stub alone passed their pitfall's test (docs/
maintainers.md, "First attempts"). Those katas are named in the output; attempts that exist are
checked either way. tests/test_selfcheck.py reads this switch too."""


def check_first_attempts(
    katas: tuple[_catalogue.Kata, ...], verbose: bool = False, require: bool | None = None
) -> list[str]:
    """Each natural first attempt fails the pitfall's test with the message that teaches.
    `require` (default REQUIRE_FIRST_ATTEMPTS): a kata with no attempt is a problem."""
    require = REQUIRE_FIRST_ATTEMPTS if require is None else require
    problems, jobs, without = [], [], []
    for kata in katas:
        files = sorted(kata.first_attempts.glob("*.py"))
        if not files:
            if require:
                problems.append(f"{kata.name}: tests/first_attempts/{kata.name}/ holds no attempt")
            else:
                without.append(kata.name)
        for f in files:
            if found := attempt_problems(kata, f):
                problems += [f"BROKEN {p}" for p in found]
                continue
            tests = str(kata.tests.relative_to(ROOT))
            where = f.relative_to(ROOT) if f.is_relative_to(ROOT) else f
            jobs.append((kata, f, [f"--impl-file={where}", f"{tests}::{kata.pitfall.test}"]))
    met, seconds = _run_corpus(
        jobs, judge_attempt, problems, verbose, time_limit=120, counted="first attempts met"
    )
    print(f"first_attempts: {met} of {len(jobs)} meet their pitfall in {seconds:.0f} s")
    if without:
        fixes = [k.name for k in katas if k.name in without and k.fix]
        print(
            f"first_attempts: {len(without)} of {len(katas)} katas hold no failing natural first "
            f"attempt yet: {', '.join(without)}"
            + (
                f" ({', '.join(fixes)}: a program to fix, whose first check, of the program as "
                "given, fails on the pitfall's test with its message: the stubs check)"
                if fixes
                else ""
            )
        )
    return problems


# --- spoilers ----------------------------------------------------------------------------------

_ARTICLE = re.compile(r"<article\b[^>]*>(.*?)</article>", re.S)
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")
_MARKDOWN = re.compile(r"`|\*\*|(?<!\w)\*(?!\s)|\[([^\]]*)\]\([^)]*\)")
MIN_SOLUTION_LINE = 30
"""A solution line shorter than this (`optimizer.zero_grad()`, the loss of a tutorial loop that
a task quotes) is too common to prove that the solution is on a page."""


def page_text(html: str, *, article: bool = False) -> str:
    """The text a reader, a screen reader or a text dump gets from `html`: tags stripped, folds
    and all (code included), entities decoded. `article`: only the page's own content, not the
    site's navigation around it."""
    import html as _html

    if article and (m := _ARTICLE.search(html)):
        html = m.group(1)
    return _html.unescape(_TAG.sub("", _SCRIPT.sub("", html)))


def _prose(text: str) -> str:
    """Markdown (a hint, a docstring) as it reads once rendered, whitespace collapsed: rendered
    by Python-Markdown where it is installed (the site's tools), else without backticks,
    emphasis and link targets."""
    try:
        import markdown
    except ImportError:
        return _same_words(_MARKDOWN.sub(lambda m: m.group(1) or "", text))
    return _same_words(page_text(markdown.markdown(text)))


def _named(name: str, text: str) -> bool:
    """Does `text` name `name`? An identifier or a dotted name as a whole word, case and all
    (`detach` is not in `detached`); a phrase with a space in any case."""
    flags = re.IGNORECASE if " " in name.strip() else 0
    pattern = rf"(?<![\w]){re.escape(_same_words(name))}(?![\w])"
    return re.search(pattern, text, flags) is not None


def _code_line(line: str) -> str:
    """A line of code without its comment, whitespace collapsed ("" for a comment line)."""
    code = line.split("  #", 1)[0] if "  #" in line else line
    return "" if code.strip().startswith("#") else _same_words(code)


def solution_lines(kata: _catalogue.Kata, stub: str) -> list[str]:
    """The distinctive lines of the reference's solution regions: long enough to prove
    something when found, and not also in the stub (given code is on the page by design)."""
    from dojo import source

    given = {_code_line(line) for line in stub.splitlines()}
    lines = []
    for region in source.solution_regions(kata.reference.read_text(encoding="utf-8")):
        for line in region.splitlines():
            code = _code_line(line)
            if len(code) >= MIN_SOLUTION_LINE and code not in given and code not in lines:
                lines.append(code)
    return lines


def _torch_api() -> tuple[set[str], tuple]:
    import torch

    roots = {"torch", "nn", "F", "dist", "optim", "amp"}
    owners = (torch.Tensor, torch.nn.Module, torch.optim.Optimizer, torch.amp.GradScaler)
    return roots, owners


def solution_api(kata: _catalogue.Kata) -> list[str]:
    """The torch names the reference's solution regions call, in order of first call: the
    attribute of `torch.x.y(...)` (or `nn.`, `F.`...), and a method of a tensor, a module, an
    optimizer or a grad scaler (`loss.backward()`)."""
    import textwrap

    from dojo import source

    roots, owners = _torch_api()
    text = kata.reference.read_text(encoding="utf-8")
    others = set()  # names the reference imports from anywhere but torch: `statistics.median`
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            module = node.module or "" if isinstance(node, ast.ImportFrom) else ""
            for alias in node.names:
                origin = module or alias.name
                if origin.split(".")[0] != "torch":
                    others.add(alias.asname or alias.name.split(".")[0])
    names: list[str] = []
    for region in source.solution_regions(text):
        code = textwrap.dedent(region)
        try:
            trees = [ast.parse(code)]
        except SyntaxError:  # a region that is part of a block: each line that parses alone
            trees = []
            for line in code.splitlines():
                try:
                    trees.append(ast.parse(line.strip().rstrip(":")))
                except SyntaxError:
                    continue
        for tree in trees:
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                attr, base = node.func.attr, node.func.value
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in others - roots:
                    continue
                rooted = isinstance(base, ast.Name) and base.id in roots
                if (rooted or any(hasattr(o, attr) for o in owners)) and attr not in names:
                    names.append(attr)
    return names


def spoilers_of(kata: _catalogue.Kata, html: str, stub: str) -> tuple[list[str], str]:
    """What the kata page (`html`, as built) and the stub give away, and the line that says how
    much of the solution's API is named before the attempt."""
    article = _same_words(page_text(html, article=True))
    whole = _same_words(page_text(html))
    stub_words = _same_words(stub)
    where = f"katas/{kata.name}/"
    problems = []
    for name in kata.resolves:
        free = [article, stub_words]
        for subject in kata.subject:
            free = [re.sub(re.escape(_same_words(subject)), " ", t) for t in free]
        for text, place in zip(free, (where, f"the stub katas/{kata.name}.py"), strict=True):
            if _named(name, text):
                problems.append(f"{place} names {name!r}, which resolves {kata.name}")
    for n, hint in enumerate(kata.hints, start=1):
        if _prose(hint.text) in whole:
            problems.append(f"{where} holds hint {n} ({hint.about})")
    tests = kata.tests.read_text(encoding="utf-8")
    for test in re.findall(r"^\s*def (test_\w+)\(", tests, re.MULTILINE):
        if f"def {test}(" in whole:
            problems.append(f"{where} holds tests/test_{kata.name}.py ({test})")
            break
    for path in sorted(kata.mistakes.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        what = _prose(doc.split("\n\n")[0])
        if what and (what in whole or _same_words(doc.split("\n\n")[0]) in whole):
            problems.append(f"{where} holds the docstring of {path.relative_to(ROOT)}")
    leaked = [line for line in solution_lines(kata, stub) if line in whole]
    if leaked:
        problems.append(
            f"{where} holds {len(leaked)} line(s) of the reference's solution, such as "
            f"{leaked[0]!r}"
        )
    api = solution_api(kata)
    before = [name for name in api if _named(name, article) or _named(name, stub_words)]
    named = f" ({', '.join(before)})" if before else ""
    line = (
        f"{kata.name}: {len(before)} of {len(api)} API names in the solution are named before "
        f"the attempt{named}"
    )
    return problems, line


def check_spoilers(
    katas: tuple[_catalogue.Kata, ...], verbose: bool = False, site: Path | None = None
) -> list[str]:
    """The kata pages of the site built in `site`, and the stubs, give nothing away."""
    from dojo import source

    if site is None:
        return ["spoilers reads the built site: --site DIR (mkdocs build -d DIR)"]
    problems, named, total = [], 0, 0
    for kata in katas:
        page = site / "katas" / kata.name / "index.html"
        if not page.is_file():
            problems.append(f"{page}: not built (is {site} a site built by mkdocs?)")
            continue
        found, line = spoilers_of(kata, page.read_text(encoding="utf-8"), source.stub_text(kata))
        print(line, flush=True)
        counts = re.search(r": (\d+) of (\d+) ", line)
        named, total = named + int(counts[1]), total + int(counts[2])
        problems += found
    share = f" ({100 * named / total:.0f}%)" if total else ""
    print(
        f"spoilers: {len(katas)} kata pages read, {len(problems)} problem(s); {named} of "
        f"{total} API names in the solutions are named before the attempt{share}"
    )
    return problems


def check_pristine(katas: tuple[_catalogue.Kata, ...], verbose: bool = False) -> list[str]:
    """Maintainers only (CI runs it, `nox` does not): katas/ ships exactly the generated stubs."""
    from dojo import source

    problems = [
        f"katas/{k.name}.py is not what reference/{k.name}.py generates: edit the reference, "
        f"then `python -m dojo.source write {k.name}`"
        for k in katas
        if source.differs(k)
    ]
    print(f"pristine: {len(katas) - len(problems)} of {len(katas)} stubs in katas/ as generated")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dojo.verify", description=__doc__)
    parser.add_argument(
        "check",
        choices=("stubs", "mistakes", "solutions", "first_attempts", "spoilers", "pristine"),
    )
    parser.add_argument("--site", type=Path, help="spoilers: the built site's folder")
    parser.add_argument("--kata", action="append", help="only this kata (repeatable)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every verdict")
    args = parser.parse_args(argv)
    try:
        katas = tuple(map(_catalogue.get, args.kata)) if args.kata else _catalogue.katas()
    except ValueError as err:
        parser.error(str(err))
    check = {
        "stubs": check_stubs,
        "mistakes": check_mistakes,
        "solutions": check_solutions,
        "first_attempts": check_first_attempts,
        "spoilers": lambda katas, verbose: check_spoilers(katas, verbose, args.site),
        "pristine": check_pristine,
    }
    if args.check == "spoilers" and args.site is None:
        parser.error("spoilers reads the built site: --site DIR")
    problems = check[args.check](katas, args.verbose)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
