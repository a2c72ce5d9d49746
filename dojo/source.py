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

from dojo import catalogue as _catalogue

BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"
ROOT = _catalogue.ROOT


class SourceError(ValueError):
    """A reference whose solution markers cannot be read: names the file and line."""


def footer(name: str) -> str:
    """What every stub's module docstring ends with."""
    return (
        "Write each function so that its docstring holds: the docstring is the contract.\n"
        f"Its page, with the ideas and experiments: python -m katas docs {name}\n"
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


def _regions(lines: list[str], where: str) -> list[tuple[int, int, str]]:
    """(BEGIN index, END index, indent) of each region, 0-based; SourceError if malformed."""
    regions, open_at = [], None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped not in (BEGIN, END):
            if BEGIN in line or END in line:
                raise SourceError(f"{where}:{i + 1}: a marker must be alone on its line")
            continue
        indent = line[: len(line) - len(line.lstrip())]
        if stripped == BEGIN:
            if open_at is not None:
                raise SourceError(f"{where}:{i + 1}: {BEGIN} inside the region opened at line "
                                  f"{open_at + 1}; regions do not nest")  # fmt: skip
            open_at = i
        else:
            if open_at is None:
                raise SourceError(f"{where}:{i + 1}: {END} without a {BEGIN}")
            begin_indent = lines[open_at][: len(lines[open_at]) - len(lines[open_at].lstrip())]
            if indent != begin_indent:
                raise SourceError(
                    f"{where}:{i + 1}: {END} is not indented like its {BEGIN} (line {open_at + 1})"
                )
            regions.append((open_at, i, indent))
            open_at = None
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
    for begin, end, indent in _regions(lines, where):
        out += lines[done:begin]
        done = end + 1
        if not indent:
            continue  # a module-level region: not in the stub at all
        inner = [f for f in functions if f[0] <= begin + 1 <= f[1]]
        if not inner:
            raise SourceError(f"{where}:{begin + 1}: an indented region must be a function's body")
        qualname = inner[-1][2]
        filled.add(qualname)
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
    return _with_footer(text, name, where)


def stub_text(kata: _catalogue.Kata) -> str:
    """The pristine stub of `kata`, as `katas/<name>.py` ships and `reset` restores it."""
    return generate(kata.name, kata.reference.read_text(encoding="utf-8"))


def solution_text(kata: _catalogue.Kata) -> str:
    """The reference as a learner reads it (`solution`, the page): without the marker lines."""
    text = kata.reference.read_text(encoding="utf-8")
    return "".join(
        line for line in text.splitlines(keepends=True) if line.strip() not in (BEGIN, END)
    )


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
