"""The repository checks itself (rustlings' `dev check`, as a test): for every catalogued kata,
the files exist, the stub and the reference agree, the stub is unsolved, and the site has it.

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
        assert k.hints and all(h.strip() for h in k.hints), f"{k.name}: every hint needs text"


@by_name
def test_all_files_exist(entry):
    for path in (entry.pristine, entry.reference, entry.tests, entry.page):
        assert path.is_file(), f"{entry.name}: {path.relative_to(ROOT)} is missing"


def test_no_stray_kata_files():
    names = {k.name for k in KATAS}
    for folder, pattern in (
        ("dojo/stubs", "*.py"),
        ("reference", "*.py"),
        ("docs/katas", "*.md"),
    ):
        for path in (ROOT / folder).glob(pattern):
            if path.stem.startswith("_"):
                continue
            assert path.stem in names, f"{path.relative_to(ROOT)} is not in dojo/catalogue.toml"
    for path in (ROOT / "tests").glob("test_*.py"):
        stem = path.stem.removeprefix("test_")
        assert stem in names or stem == "selfcheck", f"{path.name} belongs to no kata"
    for path in (ROOT / "tests" / "mistakes").iterdir():
        if path.is_dir() and not path.name.startswith("_"):
            assert path.name in names, f"tests/mistakes/{path.name}/ belongs to no kata"


@by_name
def test_stub_and_reference_expose_the_same_api(entry):
    stub = importlib.import_module(f"dojo.stubs.{entry.name}")
    ref = importlib.import_module(f"reference.{entry.name}")
    stub_api, ref_api = public_api(stub), public_api(ref)
    assert stub_api, f"dojo/stubs/{entry.name}.py defines no public function"
    assert stub_api == ref_api, (
        f"dojo/stubs/{entry.name}.py and reference/{entry.name}.py must expose the same public "
        f"names and signatures:\n  stub:      {stub_api}\n  reference: {ref_api}"
    )
    for name, obj in vars(ref).items():
        if name in ref_api and inspect.isfunction(obj):
            assert inspect.getdoc(obj), f"reference/{entry.name}.py: {name} needs a docstring"
            assert inspect.getdoc(obj) and inspect.getdoc(getattr(stub, name)), (
                f"dojo/stubs/{entry.name}.py: {name} needs a docstring; it is the learner's spec"
            )


@by_name
def test_every_stub_function_raises_not_implemented_naming_the_kata(entry):
    stub = importlib.import_module(f"dojo.stubs.{entry.name}")
    source = entry.pristine.read_text()
    assert f"TODO({entry.name})" in source, f"dojo/stubs/{entry.name}.py needs TODO({entry.name})"
    for name, sig in public_api(stub).items():
        func = getattr(stub, name)
        if not inspect.isfunction(func):
            continue
        args = [
            None
            for p in sig.parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        kwargs = {
            p.name: None
            for p in sig.parameters.values()
            if p.default is p.empty and p.kind is p.KEYWORD_ONLY
        }
        with pytest.raises(NotImplementedError) as info:
            func(*args, **kwargs)
        assert str(info.value).startswith(f"{entry.name}: {name}"), (
            f"dojo/stubs/{entry.name}.py: {name} should raise "
            f"NotImplementedError('{entry.name}: {name}'), not {info.value!r}"
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


def _nav_pages(nav) -> list[str]:
    pages = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_is_in_the_nav_in_catalogue_order():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    kata_pages = [p for p in _nav_pages(config["nav"]) if p.startswith("katas/")]
    expected = [f"katas/{k.name}.md" for k in KATAS]
    assert kata_pages == expected, (
        f"mkdocs.yml nav lists the kata pages as {kata_pages};\n"
        f"dojo/catalogue.toml orders them as {expected}"
    )


@by_name
def test_page_includes_the_real_files_and_hints(entry):
    page = entry.page.read_text()
    for path in (
        f"dojo/stubs/{entry.name}.py",
        f"reference/{entry.name}.py",
        f"tests/test_{entry.name}.py",
    ):
        assert f'--8<-- "{path}"' in page, f"docs/katas/{entry.name}.md must include {path}"
    for marker in ("<!-- hints -->", "<!-- mistakes -->", 'exec="on"', '??? success "Solution'):
        assert marker in page, f"docs/katas/{entry.name}.md must contain {marker}"
    assert page.startswith(f"# {entry.number}. "), (
        f"docs/katas/{entry.name}.md should start with '# {entry.number}. {entry.title}'"
    )


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
    """Only `solution` may read reference/, and only as text: the tool never runs it."""
    for path in (ROOT / "dojo").rglob("*.py"):
        source = path.read_text()
        for bad in ("from reference", "import reference"):
            assert bad not in source, f"{path.relative_to(ROOT)} imports the reference ({bad})"


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
