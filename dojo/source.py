"""One source per kata: `reference/<name>.py` holds the contract and the solution; the learner's
stub is generated from it (nbgrader's way).

In the reference, each public function's body sits between two marker lines, at the body's
indentation:

    def time_op(fn, *, device, warmup=3, repeats=10) -> dict:
        \"\"\"The contract: what must hold.\"\"\"
        # BEGIN SOLUTION
        ...
        # END SOLUTION

In the stub that region becomes a TODO and `raise NotImplementedError("<kata>: <function>")`.
A region at column 0 (private helpers, imports only the solution needs) is left out of the
stub entirely. Everything outside the regions, docstrings included, is shared, so a contract is
written once and cannot drift. The stub's module docstring gets the standard footer (how to
check, where the hints are).

A region may cover only part of a body, and a function may hold several: the code around them
is given, visible and running in the stub. Every public function holds at least one region.

- `# BEGIN SOLUTION: <what the hole decides>`: the text after the colon is the stub's TODO
  line, `# TODO(<kata>): <what the hole decides>`, instead of the generic one.
- A program to fix: a line `# STUB`, alone at the region's indent, splits a region. Above it,
  the solution; below it, the stub's code, each line written as a comment (`# ` + code, or `#`
  alone for a blank line). The stub gets those lines uncommented instead of the raise (and the
  TODO line only when the BEGIN line gives its text); `solution_text` drops them.

`katas/<name>.py` is committed, generated: `python -m dojo.source write` regenerates it,
`python -m dojo.source check` (in CI) fails when it differs, `python -m katas reset NAME`
writes it again for a learner. Stdlib only: the learner tool imports this before torch.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import types
from dataclasses import dataclass

from dojo import catalogue as _catalogue

BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"
STUB = "# STUB"
ROOT = _catalogue.ROOT


class SourceError(ValueError):
    """A reference whose solution markers cannot be read: names the file and line."""


def footer(name: str) -> str:
    """What every stub's module docstring ends with."""
    return (
        "Write each function so that its docstring holds: the docstring is the contract.\n"
        f"Its page, with the task and the background you need: python -m katas docs {name}\n"
        "\n"
        f"Check it:  python -m katas check {name}\n"
        f"Stuck?     python -m katas hint {name}   (one rung of the hint ladder at a time)\n"
        "(`nox -s learn` watches your files and re-checks on every save.)"
    )


def _functions(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function, 1-based, outermost first."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((child.lineno, child.end_lineno, prefix + child.name))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return found


@dataclass(frozen=True)
class Region:
    """One solution region, 0-based line indices: `begin` and `end` are its marker lines;
    `stub` is the index of its `# STUB` line (a program to fix) or None; `todo` is the text
    after `# BEGIN SOLUTION:`, or ""."""

    begin: int
    end: int
    indent: str
    todo: str = ""
    stub: int | None = None

    def stub_code(self, lines: list[str]) -> list[str]:
        """The stub's code of a program to fix: the commented lines below `# STUB`, uncommented."""
        if self.stub is None:
            return []
        n = len(self.indent)
        return ["" if not line.strip() or line.strip() == "#" else self.indent + line[n + 2 :]
                for line in lines[self.stub + 1 : self.end]]  # fmt: skip


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _begin(stripped: str, where: str) -> str | None:
    """The TODO text of a BEGIN line ("" for none), or None if `stripped` is no BEGIN line."""
    if stripped == BEGIN:
        return ""
    if not stripped.startswith(BEGIN + ":"):
        return None
    text = stripped[len(BEGIN) + 1 :].strip()
    if not text:
        raise SourceError(
            f"{where}: `{BEGIN}:` needs the text of the stub's TODO after the colon "
            f"(what the hole decides), or no colon at all"
        )
    return text


def _regions(lines: list[str], where: str) -> list[Region]:
    """Each solution region of `lines`; SourceError if one is malformed."""
    regions: list[Region] = []
    open_at, todo, stub_at = None, "", None
    for i, line in enumerate(lines):
        stripped = line.strip()
        at = f"{where}:{i + 1}"
        text = _begin(stripped, at)
        if text is None and stripped != END:
            if BEGIN in line or END in line:
                raise SourceError(f"{at}: a marker must be alone on its line")
            if stripped == STUB:
                if open_at is None:
                    raise SourceError(f"{at}: {STUB} outside a {BEGIN} ... {END} region")
                if stub_at is not None:
                    raise SourceError(
                        f"{at}: a second {STUB} in the region opened at line {open_at + 1}"
                    )
                if _indent_of(line) != _indent_of(lines[open_at]):
                    raise SourceError(
                        f"{at}: {STUB} is not indented like its {BEGIN} (line {open_at + 1})"
                    )
                if not _indent_of(line):
                    raise SourceError(
                        f"{at}: {STUB} in a region at column 0, which the stub leaves out"
                    )
                stub_at = i
            elif stub_at is not None and stripped:
                indent = _indent_of(lines[open_at])
                if not (line.startswith(indent + "# ") or line.rstrip() == indent + "#"):
                    raise SourceError(
                        f"{at}: below {STUB} (line {stub_at + 1}), each line is the stub's code "
                        f"written as a comment at the region's indent: `{indent}# ` then the code, "
                        f"or `{indent}#` alone for a blank line"
                    )
            continue
        indent = _indent_of(line)
        if text is not None:
            if open_at is not None:
                raise SourceError(f"{at}: {BEGIN} inside the region opened at line "
                                  f"{open_at + 1}; regions do not nest")  # fmt: skip
            if text and not indent:
                raise SourceError(
                    f"{at}: a region at column 0 is left out of the stub, so its TODO text "
                    "would never show: drop the text after the colon"
                )
            open_at, todo, stub_at = i, text, None
        else:
            if open_at is None:
                raise SourceError(f"{at}: {END} without a {BEGIN}")
            if indent != _indent_of(lines[open_at]):
                raise SourceError(
                    f"{at}: {END} is not indented like its {BEGIN} (line {open_at + 1})"
                )
            if stub_at is not None and not any(
                line.strip() not in ("", "#") for line in lines[stub_at + 1 : i]
            ):
                raise SourceError(
                    f"{where}:{stub_at + 1}: nothing below {STUB}: write the stub's code there, "
                    "as comments, or drop the line"
                )
            regions.append(Region(open_at, i, indent, todo, stub_at))
            open_at, todo, stub_at = None, "", None
    if open_at is not None:
        raise SourceError(f"{where}:{open_at + 1}: {BEGIN} is never closed")
    return regions


def _with_footer(text: str, name: str, where: str) -> str:
    tree = ast.parse(text)
    first = tree.body[0] if tree.body else None
    if not (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        raise SourceError(f"{where}:1: the module needs a docstring (the kata's introduction)")
    lines = text.split("\n")
    end = first.end_lineno - 1
    closing = lines[end].rstrip()
    quote = closing[-3:]
    if quote not in ('"""', "'''"):
        raise SourceError(f"{where}:{end + 1}: end the module docstring with triple quotes")
    body = closing[:-3]
    block = ["", *footer(name).split("\n"), quote]
    lines[end : end + 1] = ([body] if body.strip() else []) + block
    return "\n".join(lines)


def generate(name: str, source: str, where: str | None = None) -> str:
    """The learner's stub for kata `name`, from the text of its reference."""
    where = where or f"reference/{name}.py"
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        raise SourceError(f"{where}:{err.lineno}: {err.msg}") from None
    lines = source.split("\n")
    functions = _functions(tree)
    out: list[str] = []
    done = 0
    filled: set[str] = set()
    for region in _regions(lines, where):
        indent = region.indent
        out += lines[done : region.begin]
        done = region.end + 1
        if not indent:
            continue  # a module-level region: not in the stub at all
        inner = [f for f in functions if f[0] <= region.begin + 1 <= f[1]]
        if not inner:
            raise SourceError(
                f"{where}:{region.begin + 1}: an indented region must be inside a function's body"
            )
        qualname = inner[-1][2]
        filled.add(qualname)
        if region.todo:
            out.append(f"{indent}# TODO({name}): {region.todo}")
        if region.stub is not None:
            out += region.stub_code(lines)
            continue
        if not region.todo:
            out.append(
                f"{indent}# TODO({name}): write {qualname}; the docstring above is the contract."
            )
        out.append(f'{indent}raise NotImplementedError("{name}: {qualname}")')
    out += lines[done:]
    public = [
        q for _, _, q in functions if "." not in q and not q.startswith("_")
    ]  # top-level public functions must all be left for the learner
    for top in tree.body:
        if isinstance(top, ast.FunctionDef) and top.name in public and top.name not in filled:
            raise SourceError(
                f"{where}:{top.lineno}: {top.name} is public but its body has no "
                f"{BEGIN} ... {END} region, so the stub would give the solution away"
            )
    text = re.sub(r"\n{4,}", "\n\n\n", "\n".join(out))  # at most two blank lines where cut
    try:
        ast.parse(text)
    except SyntaxError as err:
        raise SourceError(
            f"{where}: the stub it generates is not valid Python (stub line {err.lineno}: "
            f"{err.msg}); check the code below each {STUB}"
        ) from None
    return _with_footer(text, name, where)


def stub_text(kata: _catalogue.Kata) -> str:
    """The pristine stub of `kata`, as `katas/<name>.py` ships and `reset` restores it."""
    return generate(kata.name, kata.reference.read_text(encoding="utf-8"))


def solution_text(kata: _catalogue.Kata) -> str:
    """The reference as a learner reads it (`solution`, the discussion page): without the
    marker lines, and without the stub's code below each `# STUB`."""
    return reference_solution(kata.reference.read_text(encoding="utf-8"), str(kata.reference))


def reference_solution(source: str, where: str = "reference") -> str:
    """`source` (a reference's text) without marker lines and `# STUB` parts."""
    lines = source.splitlines(keepends=True)
    drop: set[int] = set()
    for region in _regions([line.rstrip("\r\n") for line in lines], where):
        drop |= {region.begin, region.end}
        if region.stub is not None:
            drop |= set(range(region.stub, region.end))
    return "".join(line for i, line in enumerate(lines) if i not in drop)


def solution_regions(source: str, where: str = "reference") -> list[str]:
    """The solution lines of each region of `source` (a reference's text), without the
    `# STUB` part: what the learner writes (column-0 regions, the solution's helpers, too)."""
    lines = source.split("\n")
    return [
        "\n".join(lines[r.begin + 1 : r.end if r.stub is None else r.stub])
        for r in _regions(lines, where)
    ]


def stub_module(kata: _catalogue.Kata) -> types.ModuleType:
    """The generated stub as a module (`--impl stubs`), built in memory: no file is written."""
    name = f"_stub_{kata.name}"
    module = types.ModuleType(name)
    module.__file__ = str(kata.stub)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    exec(compile(stub_text(kata), f"<stub of reference/{kata.name}.py>", "exec"), vars(module))
    return module


def differs(kata: _catalogue.Kata) -> bool:
    """Is `katas/<name>.py` other than what its reference generates?"""
    try:
        return kata.stub.read_text(encoding="utf-8") != stub_text(kata)
    except OSError:
        return True


def _defs(tree: ast.Module) -> dict[str, str]:
    """Each top-level function and class of a module, as a syntax tree without positions."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.name: ast.dump(node) for node in tree.body if isinstance(node, kinds)}


def untouched(kata: _catalogue.Kata, text: str | bytes | None = None) -> bool:
    """Does `katas/<name>.py` (or `text`, given) still hold the stub's code: every function and
    class of the stub, as the stub gives it? Compared as syntax trees, so comments, layout and
    lines added around them do not count: a learner who has changed none of the stub's code has
    not started, even where the stub runs and fails its tests (a program to fix)."""
    try:
        mine = _defs(ast.parse(kata.stub.read_bytes() if text is None else text))
        stub = _defs(ast.parse(stub_text(kata)))
    except (OSError, SyntaxError, ValueError):  # ValueError: a SourceError, or a null byte
        return False
    return all(mine.get(name) == tree for name, tree in stub.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dojo.source", description=__doc__.split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("stub", help="print the stub that reference/NAME.py generates")
    s.add_argument("name")
    w = sub.add_parser("write", help="regenerate katas/NAME.py (every kata without NAME)")
    w.add_argument("names", nargs="*")
    sub.add_parser("check", help="fail if a katas/NAME.py differs from its generation")
    args = parser.parse_args(argv)
    try:
        if args.command == "stub":
            sys.stdout.write(stub_text(_catalogue.get(args.name)))
            return 0
        if args.command == "write":
            chosen = [_catalogue.get(n) for n in args.names] or list(_catalogue.katas())
            for kata in chosen:
                text = stub_text(kata)
                if not kata.stub.is_file() or kata.stub.read_text(encoding="utf-8") != text:
                    kata.stub.write_text(text, encoding="utf-8")
                    print(f"wrote katas/{kata.name}.py")
            return 0
        stale = [k for k in _catalogue.katas() if differs(k)]
        for kata in stale:
            print(
                f"katas/{kata.name}.py is not what reference/{kata.name}.py generates: edit the "
                f"reference, then `python -m dojo.source write {kata.name}`",
                file=sys.stderr,
            )
        n = len(_catalogue.katas())
        print(f"source: {n - len(stale)} of {n} stubs in katas/ match their references")
        return 1 if stale else 0
    except (SourceError, ValueError) as err:
        print(f"python -m dojo.source: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
