"""Repository invariants that a plain test run cannot show: `python -m dojo.verify stubs|mistakes`.

- `stubs`: every cpu-tier kata test fails against `katas/`, and fails with the stub's
  NotImplementedError: not an ImportError, a collection error or a wrong assertion.
- `mistakes`: every file in tests/mistakes/<name>/ is swapped in for the kata module, and the
  kata's tests must fail on it, with an assertion rather than a crash of the harness. Each
  mistake's docstring names the tests meant to catch it (`Caught by: test_a, test_b`), and at
  least one of them must be among the failures.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from dojo import catalogue as _catalogue

ROOT = _catalogue.ROOT


@dataclass
class Case:
    name: str  # the test's name, with parameters
    file: str  # tests/test_<name>.py
    outcome: str  # passed, failed, error or skipped
    message: str


def run_pytest(args: list[str]) -> tuple[int, list[Case], str]:
    """Run pytest in a subprocess; return its exit code, its test cases and its output."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "report.xml"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "cpu",
            f"--junitxml={xml}",
            *args,
        ]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        cases = []
        if xml.exists():
            for tc in ET.parse(xml).iter("testcase"):
                outcome, message = "passed", ""
                for tag in ("failure", "error", "skipped"):
                    el = tc.find(tag)
                    if el is not None:
                        outcome = "failed" if tag == "failure" else tag
                        message = el.get("message") or (el.text or "")
                        break
                file = tc.get("classname", "").replace(".", "/") + ".py"
                cases.append(Case(tc.get("name", "?"), file, outcome, message))
    return proc.returncode, cases, proc.stdout + proc.stderr


def unwritten(kata: _catalogue.Kata, message: str) -> bool:
    """Does a junit failure message show the kata's stub saying "not written yet"?"""
    return f"NotImplementedError: {kata.name}: " in message


def check_stubs(katas: tuple[_catalogue.Kata, ...]) -> list[str]:
    files = [str(k.tests.relative_to(ROOT)) for k in katas]
    code, cases, output = run_pytest(["--impl", "stubs", *files])
    problems = []
    if code not in (0, 1):
        return [f"pytest exited {code} (not a plain test failure):\n{output[-3000:]}"]
    seen = {c.file for c in cases}
    problems += [f"{f}: no cpu-tier test ran" for f in files if f not in seen]
    for c in cases:
        where = f"{c.file}::{c.name}"
        if c.outcome == "passed":
            problems.append(f"{where} passes against the unwritten stub, so it cannot fail")
        elif c.outcome == "skipped":
            problems.append(f"{where} was skipped against the stub: {c.message}")
        elif not unwritten(_catalogue.of_test(c.file), c.message):
            problems.append(f"{where} failed for the wrong reason: {c.message.splitlines()[:1]}")
    print(f"stubs: {len(cases)} cpu-tier kata tests ran against dojo/stubs/")
    return problems


def caught_by(mistake: Path) -> list[str]:
    """The test names after `Caught by:` in the mistake's docstring."""
    doc = ast.get_docstring(ast.parse(mistake.read_text())) or ""
    match = re.search(r"^Caught by:(.*)$", doc, re.MULTILINE)
    return [t.strip() for t in match.group(1).split(",") if t.strip()] if match else []


def _try_mistake(kata: _catalogue.Kata, mistake: Path) -> tuple[str, bool]:
    rel = mistake.relative_to(ROOT)
    expected = caught_by(mistake)
    if not expected:
        return f"BROKEN {rel}: its docstring has no 'Caught by: test_...' line", False
    code, cases, output = run_pytest([f"--impl-file={rel}", str(kata.tests.relative_to(ROOT))])
    failed = [c for c in cases if c.outcome in ("failed", "error")]
    if code == 0:
        return f"NOT CAUGHT {rel}: every test passed, so the tests accept this mistake", False
    if code != 1 or not failed:
        return f"BROKEN {rel}: pytest exited {code}:\n{output[-2000:]}", False
    wrong = [c for c in failed if unwritten(kata, c.message) or "could not import" in c.message]
    if wrong:
        return (
            f"BROKEN {rel}: {wrong[0].name} failed for the wrong reason: {wrong[0].message[:300]}",
            False,
        )
    hits = [c for c in failed if c.name.split("[")[0] in expected]
    if not hits:
        names = ", ".join(sorted({c.name for c in failed}))
        return (
            f"MISSED {rel}: meant to be caught by {', '.join(expected)}, "
            f"but only these failed: {names}"
        ), False
    summary = hits[0].message.strip().splitlines()[0][:160] if hits[0].message.strip() else ""
    return f"caught {rel} by {hits[0].name} (+{len(failed) - 1} more): {summary}", True


def check_mistakes(katas: tuple[_catalogue.Kata, ...]) -> list[str]:
    jobs = []
    problems = []
    for kata in katas:
        files = sorted(kata.mistakes.glob("*.py"))
        if not files:
            problems.append(f"{kata.name}: tests/mistakes/{kata.name}/ holds no mistake")
        jobs += [(kata, f) for f in files]
    caught = 0
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for line, ok in pool.map(lambda job: _try_mistake(*job), jobs):  # in order, as they end
            print(line, flush=True)
            caught += ok
            if not ok:
                problems.append(line)
    print(f"mistakes: {caught} of {len(jobs)} caught")
    return problems


def check_pristine(katas: tuple[_catalogue.Kata, ...]) -> list[str]:
    """Maintainers only (CI runs it, `nox` does not): katas/ ships exactly the pristine stubs."""
    problems = [
        f"katas/{k.name}.py differs from {k.pristine.relative_to(ROOT)}: edit both, or copy one"
        for k in katas
        if not k.stub.is_file() or k.stub.read_bytes() != k.pristine.read_bytes()
    ]
    print(f"pristine: {len(katas) - len(problems)} of {len(katas)} stubs in katas/ as shipped")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dojo.verify", description=__doc__)
    parser.add_argument("check", choices=("stubs", "mistakes", "pristine"))
    parser.add_argument("--kata", action="append", help="only this kata (repeatable)")
    args = parser.parse_args(argv)
    try:
        katas = tuple(map(_catalogue.get, args.kata)) if args.kata else _catalogue.katas()
    except ValueError as err:
        parser.error(str(err))
    check = {"stubs": check_stubs, "mistakes": check_mistakes, "pristine": check_pristine}
    problems = check[args.check](katas)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
