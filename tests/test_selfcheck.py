"""The repository checks itself (rustlings' `dev check`, as a test): for every catalogued kata,
the files exist, the stub generated from the reference is unsolved, the hint ladder and the
pitfall are there, both corpora are there, and the site has it in the kata page's order.

These tests read files and never call a solution, so they pass against either --impl.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest
import yaml

from dojo import catalogue as _catalogue
from dojo import source as _source
from dojo import verify

ROOT = _catalogue.ROOT
KATAS = _catalogue.katas()
by_name = pytest.mark.parametrize("entry", KATAS, ids=[k.name for k in KATAS])


def public_api(module) -> dict[str, inspect.Signature | str]:
    """Public functions and classes defined in `module`, with their signatures."""
    api = {}
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            api[name] = inspect.signature(obj)
        elif inspect.isclass(obj):
            api[name] = "class"
    return api


def test_catalogue_is_well_formed():
    names = [k.name for k in KATAS]
    assert len(names) == len(set(names)), f"duplicate kata names in the catalogue: {names}"
    for k in KATAS:
        assert k.name.isidentifier() and k.name.islower(), f"{k.name!r} is not a module name"
        assert k.title and k.summary, f"{k.name}: title and summary must not be empty"
        for field in ("resolves", "subject"):
            values = getattr(k, field)
            assert all(isinstance(v, str) and v.strip() == v and v for v in values), (
                f"{k.name}: {field} is a list of non-empty names or phrases, not {values!r}"
            )
        both = set(k.resolves) & set(k.subject)
        assert not both, f"{k.name}: {sorted(both)} is both the subject and what resolves it"


@by_name
def test_hint_ladder_and_pitfall(entry):
    """Four rungs, each titled by what it is about; a pitfall that is a file of the corpus."""
    n = _catalogue.HINT_RUNGS
    assert len(entry.hints) == n, (
        f"{entry.name}: the hint ladder has {n} rungs, not {len(entry.hints)}"
    )
    for i, hint in enumerate(entry.hints, start=1):
        assert hint.text.strip(), f"{entry.name}: hint {i} needs text"
        about = hint.about.strip()
        assert about and not about.startswith("(") and not about.lower().startswith("hint"), (
            f"{entry.name}: hint {i} needs an `about` title saying what it is about, not {about!r}"
        )
    assert entry.pitfall, f"{entry.name}: name its [kata.pitfall] in dojo/catalogue.toml"
    mistake = entry.mistakes / f"{entry.pitfall.mistake}.py"
    assert mistake.is_file(), f"{entry.name}: the pitfall names {mistake}, which is missing"
    assert entry.pitfall.lesson.strip(), f"{entry.name}: the pitfall needs its lesson"


@by_name
def test_all_files_exist(entry):
    # Not katas/<name>.py: that is the learner's file (CI's `dojo.verify pristine` checks it).
    for path in (entry.reference, entry.tests, entry.page, entry.discussion):
        assert path.is_file(), f"{entry.name}: {path.relative_to(ROOT)} is missing"


@by_name
def test_correct_solutions_written_differently(entry):
    """The mirror of the mistake corpus: `python -m dojo.verify solutions` runs them."""
    files = sorted(entry.solutions.glob("*.py"))
    assert len(files) >= 3, (
        f"tests/solutions/{entry.name}/ needs at least 3 correct solutions written differently "
        f"from the reference; it has {len(files)}"
    )
    for path in files:
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        assert doc.strip(), f"{path.relative_to(ROOT)} needs a docstring saying how it differs"


def test_no_stray_kata_files():
    names = {k.name for k in KATAS}
    for folder, pattern in (
        ("reference", "*.py"),
        ("docs/katas", "*.md"),
        ("docs/discussions", "*.md"),
    ):
        for path in (ROOT / folder).glob(pattern):
            if path.stem.startswith("_"):
                continue
            assert path.stem in names, f"{path.relative_to(ROOT)} is not in dojo/catalogue.toml"
    for path in (ROOT / "tests").glob("test_*.py"):
        stem = path.stem.removeprefix("test_")
        assert stem in names or stem == "selfcheck", f"{path.name} belongs to no kata"
    for corpus in ("mistakes", "solutions", "first_attempts"):
        for path in (ROOT / "tests" / corpus).glob("*"):
            if path.is_dir() and not path.name.startswith("_"):
                assert path.name in names, f"tests/{corpus}/{path.name}/ belongs to no kata"


@by_name
def test_stub_and_reference_expose_the_same_api(entry):
    stub = _source.stub_module(entry)
    ref = importlib.import_module(f"reference.{entry.name}")
    stub_api, ref_api = public_api(stub), public_api(ref)
    assert stub_api, f"the stub of reference/{entry.name}.py defines no public function"
    assert stub_api == ref_api, (
        f"the stub generated from reference/{entry.name}.py must expose the reference's public "
        f"names and signatures:\n  stub:      {stub_api}\n  reference: {ref_api}"
    )
    for name, obj in vars(ref).items():
        if name in ref_api and inspect.isfunction(obj):
            assert inspect.getdoc(obj), f"reference/{entry.name}.py: {name} needs a docstring"
            assert inspect.getdoc(obj) and inspect.getdoc(getattr(stub, name)), (
                f"reference/{entry.name}.py: {name} needs a docstring; it is the learner's contract"
            )


@by_name
def test_every_stub_function_raises_not_implemented_naming_the_kata(entry):
    """Each public function's hole raises NotImplementedError("<kata>: <function>"), after any
    given code (so calling it with made-up arguments may stop earlier, in a given check: the
    raise is looked for in the code). A function whose every region is a program to fix
    (`# STUB`) runs the stub's code instead."""
    reference = entry.reference.read_text()
    lines = reference.split("\n")
    functions = _source._functions(ast.parse(reference))
    fixed: dict[str, set[bool]] = {}
    for region in _source._regions(lines, f"reference/{entry.name}.py"):
        inner = [f for f in functions if f[0] <= region.begin + 1 <= f[1]]
        if region.indent and inner:
            fixed.setdefault(inner[-1][2], set()).add(region.stub is not None)
    stub = _source.stub_text(entry)
    if any(False in kinds for kinds in fixed.values()):
        assert f"TODO({entry.name})" in stub, f"the stub of {entry.name} needs TODO({entry.name})"
    raised = {
        node.exc.args[0].value
        for node in ast.walk(ast.parse(stub))
        if isinstance(node, ast.Raise)
        and isinstance(node.exc, ast.Call)
        and getattr(node.exc.func, "id", "") == "NotImplementedError"
        and node.exc.args
        and isinstance(node.exc.args[0], ast.Constant)
    }
    for name, obj in public_api(_source.stub_module(entry)).items():
        if obj == "class" or fixed.get(name) == {True}:
            continue
        assert f"{entry.name}: {name}" in raised, (
            f"the stub of reference/{entry.name}.py: {name} should raise "
            f"NotImplementedError('{entry.name}: {name}') where the learner writes"
        )


@by_name
def test_every_mistake_says_what_it_gets_wrong_and_what_catches_it(entry):
    files = sorted(entry.mistakes.glob("*.py"))
    assert files, f"tests/mistakes/{entry.name}/ needs at least one wrong solution"
    for path in files:
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        assert doc.strip(), f"{path.relative_to(ROOT)} needs a docstring naming the mistake"
        assert "Caught by:" in doc, f"{path.relative_to(ROOT)}: say 'Caught by: test_...'"
        source = entry.tests.read_text()
        for test in doc.split("Caught by:")[1].splitlines()[0].split(","):
            assert f"def {test.strip()}(" in source, (
                f"{path.relative_to(ROOT)} names {test.strip()}, which is not in {entry.tests.name}"
            )


# Issue 25: every kata has at least one natural first attempt in tests/first_attempts/<name>/
# and names its pitfall's own test, once dojo.verify's one switch says so (it is off: see its
# docstring). Whatever attempts and pitfall tests exist are checked either way.
REQUIRE_FIRST_ATTEMPTS = verify.REQUIRE_FIRST_ATTEMPTS


@by_name
def test_first_attempts_and_the_pitfall_test(entry):
    """`python -m dojo.verify first_attempts` runs them; here, what can be read without
    running: each attempt's docstring, and the pitfall's test in the kata's test file."""
    from dojo import verify

    files = sorted(entry.first_attempts.glob("*.py"))
    test = entry.pitfall.test if entry.pitfall else ""
    if REQUIRE_FIRST_ATTEMPTS:
        assert files, (
            f"tests/first_attempts/{entry.name}/ needs at least one natural first attempt, "
            "written from the kata page and the stub only"
        )
        assert test, f"{entry.name}: name the pitfall's own test, [kata.pitfall] test = ..."
    if test:
        assert f"def {test}(" in entry.tests.read_text(), (
            f"{entry.name}: [kata.pitfall] test = {test!r} is not in {entry.tests.name}"
        )
    for path in files:
        problems = verify.attempt_problems(entry, path)
        assert not problems, "\n".join(problems)


def _nav_pages(nav) -> list[str]:
    pages = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_is_in_the_nav_in_catalogue_order():
    """Kata pages in catalogue order; their discussions too, in a section LAST in the nav, so
    that "next" from a kata page never lands on a discussion."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = _nav_pages(config["nav"])
    for folder in ("katas", "discussions"):
        listed = [p for p in pages if p.startswith(f"{folder}/")]
        expected = [f"{folder}/{k.name}.md" for k in KATAS]
        assert listed == expected, (
            f"mkdocs.yml nav lists the {folder} pages as {listed};\n"
            f"dojo/catalogue.toml orders them as {expected}"
        )
    last = config["nav"][-1]
    assert isinstance(last, dict) and list(last) == ["Discussions"], (
        "mkdocs.yml: the nav's last section must be `Discussions:`, after every other page, so "
        f"that 'next' from a kata page never lands on a discussion; it ends with {last!r}"
    )
    before = _nav_pages(config["nav"][:-1])
    assert not [p for p in before if p.startswith("discussions/")], (
        "mkdocs.yml: discussion pages belong in the last section, `Discussions:`, only"
    )


KATA_PAGE_ORDER = ("## Your task", "<!-- stub -->")
# Every kata page holds these after its stub, in this order (issue 25: all fourteen do).
KATA_PAGE_LATER = ("## Background", "## Predict")
REQUIRE_BACKGROUND_AND_PREDICT = True
SPOILERS = ("<!-- hints -->", "<!-- mistakes -->", "<!-- solution -->", "<!-- solutions -->")
DISCUSSION_ORDER = (
    "## The problem",
    "## The ideas",
    "## Experiments",
    "## Hints",
    "<!-- hints -->",
    "## The tests",
    "## Mistakes the tests catch",
    "<!-- mistakes -->",
    "## Solution",
    "<!-- solution -->",
    "## Other solutions",
    "<!-- solutions -->",
)


def _where(lines: list[str], wanted: tuple[str, ...]) -> list[int]:
    return [lines.index(w) if w in lines else -1 for w in wanted]


@by_name
def test_kata_page_poses_the_problem(entry):
    """The kata page, read before the attempt: the task, then the stub (from the hook,
    docs/hooks.py), then background and questions; it ends pointing to the discussion, and
    holds nothing that resolves the kata (the build refuses those too)."""
    where = f"docs/katas/{entry.name}.md"
    page = entry.page.read_text()
    assert page.startswith(f"# {entry.number}. "), (
        f"{where} should start with '# {entry.number}. {entry.title}'"
    )
    for opening in ("**After this kata**", "**You need**"):
        assert opening in page.split("## ", 1)[0], (
            f"{where}: say {opening} before the first section"
        )
    lines = page.splitlines()
    at = _where(lines, KATA_PAGE_ORDER)
    assert all(i >= 0 for i in at) and at == sorted(at), (
        f"{where} must hold, each alone on a line and in this order: {', '.join(KATA_PAGE_ORDER)}"
    )
    if REQUIRE_BACKGROUND_AND_PREDICT:
        missing = [h for h in KATA_PAGE_LATER if h not in lines]
        assert not missing, f"{where} needs {' and '.join(missing)} after the stub"
    later = [i for i in _where(lines, KATA_PAGE_LATER) if i >= 0]
    assert later == sorted(later) and all(i > at[-1] for i in later), (
        f"{where}: {' and '.join(KATA_PAGE_LATER)} come after the stub, in that order"
    )
    for marker in SPOILERS:
        assert marker not in lines, f"{where} holds {marker}: it belongs on the discussion page"
    assert '--8<-- "tests/' not in page, f"{where} includes a test file: the discussion does"
    last = f"When your kata passes, read [its discussion](../discussions/{entry.name}.md)."
    assert page.rstrip("\n").endswith(last), f"{where} must end with the line: {last}"


@by_name
def test_discussion_page_resolves_the_kata(entry):
    """The discussion page, read after: titled by what it explains, it names its kata, notes
    (not gates) "finish the kata first", restates the problem, then the ideas, experiments,
    hints, tests, mistakes, the solution and the other solutions, in that order."""
    where = f"docs/discussions/{entry.name}.md"
    page = entry.discussion.read_text()
    lines = page.splitlines()
    assert lines[0].startswith("# ") and not lines[0].startswith(f"# {entry.number}. "), (
        f"{where}: the first line is a title saying what the page explains (not the kata's)"
    )
    first = next(line for line in lines[1:] if line.strip())
    expected = f"*Discussion of kata {entry.number}, [{entry.title}](../katas/{entry.name}.md).*"
    assert first == expected, f"{where}: the line after the title must be {expected}"
    assert '!!! note "Finish the kata first"' in lines, (
        f'{where}: say !!! note "Finish the kata first" before the problem'
    )
    at = _where(lines, DISCUSSION_ORDER)
    assert all(i >= 0 for i in at) and at == sorted(at), (
        f"{where} must hold, each alone on a line and in this order: {', '.join(DISCUSSION_ORDER)}"
    )
    assert lines.index('!!! note "Finish the kata first"') < at[0], (
        f"{where}: the note comes before the problem"
    )
    assert f'--8<-- "tests/test_{entry.name}.py"' in page, (
        f"{where} must include tests/test_{entry.name}.py"
    )
    assert 'predict="on"' in page, f"{where}: ask the reader to predict in its experiments"


def _exec_blocks(text: str) -> list[str]:
    """The code of every markdown-exec block of a page."""
    blocks, inside, fence = [], None, ""
    for line in text.splitlines():
        stripped = line.strip()
        if inside is None and stripped.startswith("```") and 'exec="on"' in stripped:
            inside, fence = [], stripped[: len(stripped) - len(stripped.lstrip("`"))]
        elif inside is not None and stripped == fence:
            blocks.append("\n".join(inside))
            inside = None
        elif inside is not None:
            inside.append(line)
    return blocks


def test_pages_demonstrate_with_torch_not_with_a_solution():
    """A page's experiments use torch itself: the reader predicts what torch does, and the
    reference stays a spoiler. No executed block imports `reference` or `katas`."""
    found = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for code in _exec_blocks(page.read_text()):
            for bad in ("from reference", "import reference", "from katas", "import katas"):
                if bad in code:
                    found.append(f"{page.relative_to(ROOT)}: {bad}")
    assert not found, "executed blocks import a solution:\n  " + "\n  ".join(found)


def test_test_modules_do_not_import_a_solution_directly():
    for k in KATAS:
        source = k.tests.read_text()
        for bad in (f"reference.{k.name}", f"katas.{k.name}", "from reference", "import reference"):
            assert bad not in source, (
                f"{k.tests.name} imports {bad}: call the kata through the `kata` fixture, so "
                "--impl picks what is tested"
            )


def test_root_layout():
    for name in (
        "katas",
        "reference",
        "tests",
        "docs",
        "mkdocs.yml",
        "noxfile.py",
        "pyproject.toml",
        "README.md",
        ".ci/run",
    ):
        assert (ROOT / name).exists(), f"{name} is missing from the top level"
    assert Path(ROOT / ".ci/run").stat().st_mode & 0o111, ".ci/run must be executable"


def test_the_tool_does_not_import_the_reference():
    """The tool never runs the reference: `solution` and the stub generator read it as text."""
    for path in (ROOT / "dojo").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            bad = [n for n in names if n.split(".")[0] == "reference"]
            assert not bad, f"{path.relative_to(ROOT)}:{node.lineno} imports the reference"


# --- the cuda tier ------------------------------------------------------------------------------


@by_name
def test_every_kata_has_a_cuda_test(entry):
    """A GPU host runs something of every kata (tests read with ast by dojo.cuda_env)."""
    from dojo import cuda_env

    assert cuda_env.cuda_tests(entry), (
        f"tests/test_{entry.name}.py has no cuda test: give one test the `device` fixture, so "
        "its body also runs on a real GPU"
    )


def test_every_cuda_test_without_a_cpu_twin_says_why():
    """A cuda test whose body never runs on the CPU (marked `cuda`, or with a `device`
    parametrisation that has no cpu case) is only ever checked on a GPU host, so its docstring
    must say why, in a line starting `No CPU twin:`."""
    from dojo import cuda_env

    found = [t for k in KATAS for t in cuda_env.cuda_tests(k) if not t.cpu_twin]
    assert found, "the parser should find test_move_reads_bare_cuda_as_the_current_gpu"
    missing = [
        f"tests/test_{t.kata}.py:{t.line} {t.name}"
        for t in found
        if not any(
            line.strip().startswith("No CPU twin:") and line.strip() != "No CPU twin:"
            for line in t.doc.splitlines()
        )
    ]
    assert not missing, (
        "these cuda tests never run on the CPU; say why in a docstring line starting "
        "'No CPU twin:':\n  " + "\n  ".join(missing)
    )
