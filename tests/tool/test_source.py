"""dojo/source.py: the stub generated from a reference. Partial regions keep the code around
them, `# BEGIN SOLUTION: text` words the TODO, `# STUB` makes a program to fix, and a
malformed reference is a SourceError that names its line."""

from __future__ import annotations

import re
import textwrap

import pytest

from dojo import source
from dojo.source import SourceError


def ref(body: str) -> str:
    return '"""A kata."""\n\n\n' + textwrap.dedent(body).lstrip("\n")


def stub(body: str) -> str:
    return source.generate("k", ref(body), "reference/k.py")


def run(text: str) -> dict:
    scope: dict = {}
    exec(compile(text, "<stub>", "exec"), scope)
    return scope


def test_a_partial_region_keeps_the_given_code_around_it_and_running():
    text = stub(
        """
        def f(x):
            \"\"\"Contract.\"\"\"
            if not isinstance(x, int):
                raise TypeError("given")
            # BEGIN SOLUTION
            return x + 1
            # END SOLUTION
        """
    )
    assert 'raise TypeError("given")' in text and "x + 1" not in text
    f = run(text)["f"]
    with pytest.raises(TypeError, match="given"):
        f("no")
    with pytest.raises(NotImplementedError, match=r"^k: f$"):
        f(1)


def test_several_regions_in_one_function_each_become_a_hole():
    text = stub(
        """
        def f(x):
            # BEGIN SOLUTION
            y = x * 2
            # END SOLUTION
            z = 1
            # BEGIN SOLUTION
            return y + z
            # END SOLUTION
        """
    )
    assert text.count('raise NotImplementedError("k: f")') == 2
    assert "z = 1" in text and "x * 2" not in text and "y + z" not in text


def test_the_text_after_the_colon_is_the_todo_line():
    text = stub(
        """
        def f(x):
            # BEGIN SOLUTION: decide whether x can be returned as it is
            return x
            # END SOLUTION
        """
    )
    assert "    # TODO(k): decide whether x can be returned as it is\n" in text
    assert "the docstring above is the contract" not in text
    assert '    raise NotImplementedError("k: f")' in text


def test_without_text_the_todo_line_is_the_generic_one():
    text = stub(
        """
        def f(x):
            # BEGIN SOLUTION
            return x
            # END SOLUTION
        """
    )
    assert "    # TODO(k): write f; the docstring above is the contract.\n" in text


FIX = """
def f(xs):
    out = []
    # BEGIN SOLUTION
    out.extend(xs)
    # STUB
    # for x in xs:
    #
    #     out.append(float(x))
    # END SOLUTION
    return out
"""


def test_a_program_to_fix_gets_the_stub_code_uncommented_instead_of_the_raise():
    text = stub(FIX)
    assert "    for x in xs:\n\n        out.append(float(x))\n    return out" in text
    assert "NotImplementedError" not in text and "out.extend" not in text
    assert "TODO" not in text.split('"""', 2)[2]  # no TODO in the code without a BEGIN text
    assert run(text)["f"]([1, 2]) == [1.0, 2.0]


def test_a_program_to_fix_with_text_keeps_its_todo_line():
    text = stub(FIX.replace("# BEGIN SOLUTION", "# BEGIN SOLUTION: decide when to convert"))
    assert "    # TODO(k): decide when to convert\n    for x in xs:" in text


def test_the_reference_text_drops_the_markers_and_the_stub_part():
    solution = source.reference_solution(ref(FIX))
    assert "out.extend(xs)" in solution
    for gone in ("BEGIN", "END SOLUTION", "# STUB", "# for x in xs", "float"):
        assert gone not in solution
    assert source.solution_regions(ref(FIX)) == ["    out.extend(xs)"]


@pytest.mark.parametrize(
    "body, line, says",
    [
        ("def f():\n    # BEGIN SOLUTION:\n    pass\n    # END SOLUTION\n", 5, "after the colon"),
        ("def f():\n    pass  # BEGIN SOLUTION\n", 5, "alone on its line"),
        ("def f():\n    # BEGIN SOLUTION\n    pass\n", 5, "never closed"),
        ("def f():\n    pass\n    # END SOLUTION\n", 6, "without a # BEGIN"),
        (
            "def f():\n    pass\n    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n    # END SOLUTION\n",
            7,
            "do not nest",
        ),
        ("def f():\n    # BEGIN SOLUTION\n    pass\n  # END SOLUTION\n", 7, "not indented like"),
        ("def f():\n    # STUB\n    pass\n", 5, "outside a # BEGIN"),
        (
            "def f():\n    # BEGIN SOLUTION\n    pass\n        # STUB\n    # pass\n"
            "    # END SOLUTION\n",
            7,
            "# STUB is not indented like",
        ),
        (
            "def f():\n    # BEGIN SOLUTION\n    pass\n    # STUB\n    pass\n    # END SOLUTION\n",
            8,
            "written as a comment",
        ),
        (
            "def f():\n    # BEGIN SOLUTION\n    pass\n    # STUB\n    # pass\n    # STUB\n"
            "    # pass\n    # END SOLUTION\n",
            9,
            "a second # STUB",
        ),
        (
            "def f():\n    # BEGIN SOLUTION\n    pass\n    # STUB\n    #\n    # END SOLUTION\n",
            7,
            "nothing below # STUB",
        ),
        ("# BEGIN SOLUTION: helpers\nX = 1\n# END SOLUTION\n", 4, "column 0"),
        ("def f():\n    pass\n", 4, "f is public but its body has no"),
    ],
)
def test_a_malformed_reference_is_a_source_error_naming_the_line(body, line, says):
    with pytest.raises(SourceError, match=rf"^reference/k\.py:{line}: .*{re.escape(says)}"):
        source.generate("k", ref(body), "reference/k.py")


def test_stub_code_that_is_not_python_is_a_source_error():
    body = (
        "def f():\n    # BEGIN SOLUTION\n    pass\n    # STUB\n    # return (\n    # END SOLUTION\n"
    )
    with pytest.raises(SourceError, match="not valid Python"):
        source.generate("k", ref(body), "reference/k.py")


def test_untouched_is_the_stubs_code_whatever_is_added_around_it():
    """A learner who has changed none of the stub's functions has not started, even where the
    stub runs and fails its tests (sync_points: a program to fix); one changed line of a
    function's code, a changed docstring, or a function redefined below, and they have."""
    from dojo import catalogue

    kata = catalogue.get("sync_points")
    pristine = source.stub_text(kata)
    assert kata.fix and source.untouched(kata, pristine)
    assert "    losses = []\n" in pristine and "losses.append(loss.item())" in pristine
    assert source.untouched(kata, "# mine\n" + pristine + "\nx = 1\n")
    relaid = pristine.replace("    losses = []\n", "\n    # mine\n    losses = [  ]\n")
    assert source.untouched(kata, relaid)
    fixed = pristine.replace("losses.append(loss.item())", "losses.append(loss.detach())")
    assert not source.untouched(kata, fixed)
    assert not source.untouched(kata, pristine.replace("Train for one pass", "Train once"))
    assert not source.untouched(kata, pristine + "\n\ndef train_and_log(*args):\n    return []\n")
    assert not source.untouched(kata, pristine + "\ndef broken(:\n")
    assert not source.untouched(kata, "")
