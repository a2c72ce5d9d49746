"""`load(file)`: read TOML on any Python a GPU host has, 3.10 included (stdlib only).

Python 3.11 and newer read it with `tomllib`; 3.10 with `tomli` when it is installed (nox
depends on it there), else with `_Reader` below. torch 2.13 ships wheels for 3.10, and
`nox -s tests-cuda`, `python -m katas doctor` and the first hop of `python -m katas` run in the
user's own env, so they must not need 3.11's `tomllib`.

`_Reader` reads the TOML this repository writes: tables, arrays of tables, dotted keys, basic and
literal strings (multi-line too), integers, floats, booleans, arrays and inline tables. Dates
and times are refused with a ValueError that says where. tests/tool/test_toml.py checks it
against `tomllib` on every .toml file of the repository.
"""

from __future__ import annotations

import re
from typing import Any, BinaryIO

try:
    import tomllib as _lib
except ModuleNotFoundError:  # Python 3.10
    try:
        import tomli as _lib
    except ModuleNotFoundError:
        _lib = None


def load(f: BinaryIO) -> dict[str, Any]:
    """Like `tomllib.load`: `f` is opened in binary mode."""
    if _lib is not None:
        return _lib.load(f)
    return loads(f.read().decode("utf-8"))


def loads(text: str) -> dict[str, Any]:
    if _lib is not None:
        return _lib.loads(text)
    return _Reader(text).document()


_BARE = re.compile(r"[A-Za-z0-9_-]+")
_NUMBER = re.compile(
    r"[+-]?(inf|nan|0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|[0-9_]+(\.[0-9_]+)?([eE][+-]?[0-9_]+)?)"
)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


class _Reader:
    """A recursive-descent reader of the TOML subset above."""

    def __init__(self, text: str) -> None:
        self.s, self.i = text, 0

    # --- where we are -------------------------------------------------------------------------

    def fail(self, what: str) -> ValueError:
        line = self.s.count("\n", 0, self.i) + 1
        return ValueError(f"TOML line {line}: {what} (dojo/_toml.py reads a subset of TOML)")

    def peek(self, text: str) -> bool:
        return self.s.startswith(text, self.i)

    def expect(self, text: str) -> None:
        if not self.peek(text):
            raise self.fail(f"expected {text!r}")
        self.i += len(text)

    def blanks(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def blanks_and_lines(self) -> None:
        """Spaces, line breaks and comments."""
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in " \t\r\n":
                self.i += 1
            elif c == "#":
                end = self.s.find("\n", self.i)
                self.i = len(self.s) if end < 0 else end
            else:
                return

    def end_of_line(self) -> None:
        self.blanks()
        if self.peek("#"):
            end = self.s.find("\n", self.i)
            self.i = len(self.s) if end < 0 else end
        if self.i < len(self.s) and not (self.peek("\n") or self.peek("\r\n")):
            raise self.fail("expected the end of the line")

    # --- the document -------------------------------------------------------------------------

    def document(self) -> dict[str, Any]:
        root: dict[str, Any] = {}
        table = root
        while True:
            self.blanks_and_lines()
            if self.i >= len(self.s):
                return root
            if self.peek("[["):
                self.i += 2
                keys = self.key()
                self.expect("]]")
                *parents, last = keys
                holder = self.walk(root, parents)
                array = holder.setdefault(last, [])
                if not isinstance(array, list):
                    raise self.fail(f"{'.'.join(keys)} is not an array of tables")
                table = {}
                array.append(table)
            elif self.peek("["):
                self.i += 1
                keys = self.key()
                self.expect("]")
                table = self.walk(root, keys)
            else:
                keys = self.key()
                self.expect("=")
                self.blanks()
                self.assign(table, keys, self.value())
            self.end_of_line()

    def walk(self, table: dict[str, Any], keys: list[str]) -> dict[str, Any]:
        """The table at `keys` under `table` (the last of an array of tables), made if new."""
        for key in keys:
            table = table.setdefault(key, {})
            if isinstance(table, list):
                table = table[-1]
            if not isinstance(table, dict):
                raise self.fail(f"{key} is not a table")
        return table

    def assign(self, table: dict[str, Any], keys: list[str], value: Any) -> None:
        *parents, last = keys
        table = self.walk(table, parents)
        if last in table:
            raise self.fail(f"{'.'.join(keys)} is defined twice")
        table[last] = value

    def key(self) -> list[str]:
        keys = []
        while True:
            self.blanks()
            if self.peek('"'):
                keys.append(self.basic())
            elif self.peek("'"):
                keys.append(self.literal())
            else:
                found = _BARE.match(self.s, self.i)
                if not found:
                    raise self.fail("expected a key")
                keys.append(found.group())
                self.i = found.end()
            self.blanks()
            if not self.peek("."):
                return keys
            self.i += 1

    # --- values -------------------------------------------------------------------------------

    def value(self) -> Any:
        if self.peek('"""'):
            return self.basic_multiline()
        if self.peek("'''"):
            return self.literal_multiline()
        if self.peek('"'):
            return self.basic()
        if self.peek("'"):
            return self.literal()
        if self.peek("["):
            return self.array()
        if self.peek("{"):
            return self.inline_table()
        for word, meaning in (("true", True), ("false", False)):
            if self.peek(word):
                self.i += len(word)
                return meaning
        if _DATE.match(self.s, self.i):
            raise self.fail("dates and times are not supported")
        found = _NUMBER.match(self.s, self.i)
        if not found:
            raise self.fail("expected a value")
        self.i = found.end()
        text = found.group().replace("_", "")
        body = text.lstrip("+-")
        if body[:2] in ("0x", "0o", "0b"):
            number = int(body, {"0x": 16, "0o": 8, "0b": 2}[body[:2]])
            return -number if text.startswith("-") else number
        if body in ("inf", "nan") or "." in body or "e" in body.lower():
            return float(text)
        return int(text)

    def basic(self) -> str:
        self.expect('"')
        out = []
        while True:
            if self.i >= len(self.s) or self.s[self.i] == "\n":
                raise self.fail("unterminated string")
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return "".join(out)
            if c == "\\":
                out.append(self.escape())
            else:
                out.append(c)
                self.i += 1

    def escape(self) -> str:
        code = self.s[self.i + 1 : self.i + 2]
        if code in _ESCAPES:
            self.i += 2
            return _ESCAPES[code]
        if code in ("u", "U"):
            width = 4 if code == "u" else 8
            digits = self.s[self.i + 2 : self.i + 2 + width]
            if not re.fullmatch(f"[0-9A-Fa-f]{{{width}}}", digits):
                raise self.fail(f"bad escape \\{code}{digits}")
            self.i += 2 + width
            return chr(int(digits, 16))
        raise self.fail(f"bad escape \\{code}")

    def literal(self) -> str:
        self.expect("'")
        end = self.s.find("'", self.i)
        if end < 0 or "\n" in self.s[self.i : end]:
            raise self.fail("unterminated string")
        text, self.i = self.s[self.i : end], end + 1
        return text

    def basic_multiline(self) -> str:
        self.expect('"""')
        if self.peek("\r\n"):
            self.i += 2
        elif self.peek("\n"):
            self.i += 1
        out = []
        while True:
            if self.i >= len(self.s):
                raise self.fail("unterminated string")
            if self.peek('"""'):
                # Up to two quotes may end the string: `""""` is a quote, then the end.
                extra = 0
                while extra < 2 and self.s.startswith('"', self.i + 3 + extra):
                    extra += 1
                out.append('"' * extra)
                self.i += 3 + extra
                return "".join(out)
            c = self.s[self.i]
            if c == "\\":
                rest = re.match(r"\\[ \t]*\r?\n[ \t\r\n]*", self.s[self.i :])
                if rest:  # a line-ending backslash eats the break and the blanks after it
                    self.i += rest.end()
                else:
                    out.append(self.escape())
            else:
                out.append(c)
                self.i += 1

    def literal_multiline(self) -> str:
        self.expect("'''")
        if self.peek("\r\n"):
            self.i += 2
        elif self.peek("\n"):
            self.i += 1
        end = self.s.find("'''", self.i)
        if end < 0:
            raise self.fail("unterminated string")
        extra = 0  # up to two quotes may end the string: `''''` is a quote, then the end
        while extra < 2 and self.s.startswith("'", end + 3):
            end, extra = end + 1, extra + 1
        text, self.i = self.s[self.i : end], end + 3
        return text

    def array(self) -> list[Any]:
        self.expect("[")
        items = []
        while True:
            self.blanks_and_lines()
            if self.peek("]"):
                self.i += 1
                return items
            items.append(self.value())
            self.blanks_and_lines()
            if self.peek(","):
                self.i += 1
            elif not self.peek("]"):
                raise self.fail("expected ',' or ']' in an array")

    def inline_table(self) -> dict[str, Any]:
        self.expect("{")
        table: dict[str, Any] = {}
        self.blanks()
        if self.peek("}"):
            self.i += 1
            return table
        while True:
            keys = self.key()
            self.expect("=")
            self.blanks()
            self.assign(table, keys, self.value())
            self.blanks()
            if self.peek("}"):
                self.i += 1
                return table
            self.expect(",")
