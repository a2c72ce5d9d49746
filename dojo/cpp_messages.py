"""The C++ topic messages, enumerated from PyTorch's C++ sources (issue 27).

    python -m dojo.cpp_messages FILE...     print what the extractor finds in C++ source files
    python -m dojo.cpp_messages --write ROOT SITE PATH@COMMIT...
                                            extract the files PATH (PyTorch's paths, read at
                                            COMMIT, copied under ROOT) into
                                            coverage-cpp-sources.toml, keeping the messages
                                            whose longest piece the CUDA build under SITE holds

`dojo.coverage` runs these messages through the error index like the Python ones. A C++ topic
message is every `TORCH_CHECK` (and `TORCH_CHECK_*`), `AT_ERROR`, `C10_THROW_ERROR`,
`TORCH_WARN` and `TORCH_INTERNAL_ASSERT` with a string literal in its message, in the files
under `CPP_TOPIC_PATHS` (PyTorch's source paths). Two sources give them:

- the headers of those paths that the installed torch ships under torch/include (every build,
  the CPU one too): read at each run, so they are the installed release's own text;
- the .cpp/.cu files of those paths, which no wheel ships: extracted from PyTorch's sources by
  this module into `dojo/coverage-cpp-sources.toml` (its header names the path list and the
  commits read). Torch's libraries hold these texts as fragments (the compiler keeps each
  argument's joined literals as one string): the longest piece of each must be in the
  installed torch's libraries when the CUDA build is installed, so a release whose text
  changed fails the check until the extraction is made again.

The pieces that are not literal (a device, a size, a name) read as `PLACEHOLDER`.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from dojo import _toml

# The topic source paths (PyTorch's layout). A folder ends with "/"; anything else is a file.
# Changing this list changes what the check covers: tests/tool/test_coverage.py holds it equal
# to the header of coverage-cpp-sources.toml.
CPP_TOPIC_PATHS = (
    "c10/cuda/",
    "aten/src/ATen/cuda/",
    "aten/src/ATen/TensorUtils.cpp",
    "aten/src/ATen/native/TensorConversions.cpp",
    "aten/src/ATen/native/Copy.cpp",
    "aten/src/ATen/native/cuda/Copy.cu",
    "aten/src/ATen/native/Memory.cpp",
    "torch/csrc/cuda/",
    "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
    "torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp",
    "torch/csrc/distributed/c10d/NCCLUtils.cpp",
    "torch/csrc/distributed/c10d/NCCLUtils.hpp",
    "torch/csrc/autograd/VariableTypeUtils.h",
    "torch/csrc/autograd/saved_variable.cpp",
    "torch/csrc/autograd/saved_variable.h",
    "torch/csrc/autograd/variable.cpp",
    "torch/csrc/autograd/variable.h",
    "c10/core/AllocatorConfig.cpp",
    "c10/core/AllocatorConfig.h",
    "c10/core/Device.cpp",
    "c10/core/Device.h",
    "c10/core/DeviceType.cpp",
    "c10/core/DeviceType.h",
    "c10/core/TensorImpl.cpp",
    "c10/core/TensorImpl.h",
)
SOURCES = Path(__file__).with_name("coverage-cpp-sources.toml")
PLACEHOLDER = "cuda:0"
HEADER_SUFFIXES = (".h", ".hpp", ".cuh")
MACROS = (
    "TORCH_CHECK",
    "TORCH_CHECK_VALUE",
    "TORCH_CHECK_TYPE",
    "TORCH_CHECK_INDEX",
    "TORCH_CHECK_NOT_IMPLEMENTED",
    "TORCH_CHECK_LINALG",
    "TORCH_CHECK_ALWAYS_SHOW_CPP_STACKTRACE",
    "TORCH_INTERNAL_ASSERT",
    "TORCH_INTERNAL_ASSERT_DEBUG_ONLY",
    "AT_ERROR",
    "AT_ASSERT",
    "AT_ASSERTM",
    "C10_THROW_ERROR",
    "TORCH_WARN",
    "TORCH_WARN_ONCE",
    "TORCH_WARN_DEPRECATION",
)
# How many leading arguments of each macro are not the message.
_SKIP = {"AT_ERROR": 0, "TORCH_WARN": 0, "TORCH_WARN_ONCE": 0, "TORCH_WARN_DEPRECATION": 0}
_CALL = re.compile(r"\b(" + "|".join(sorted(MACROS, key=len, reverse=True)) + r")\s*\(")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\", "0": ""}


@dataclass(frozen=True)
class CppSourceMessage:
    path: str  # PyTorch's path, e.g. c10/cuda/CUDAException.h
    line: int
    macro: str
    text: str  # the message as torch prints it, PLACEHOLDER where built at run time
    pieces: tuple[str, ...]  # each argument's joined literals, as the library holds them

    @property
    def source(self) -> str:
        return f"{self.path}:{self.line} {self.macro}"

    @property
    def longest(self) -> str:
        return max(self.pieces, key=len)


def _args(text: str, start: int) -> tuple[list[str], int] | None:
    """The top-level arguments of the call whose "(" is at `start`, and the index after its ")".
    Strings, characters and comments are skipped over; None when the call does not close."""
    depth, args, current, i = 0, [], [], start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            current.append(text[i : j + 1])
            i = j + 1
            continue
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            continue
        if c in "([{":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(current).strip())
                return args, i + 1
        elif c == "," and depth == 1:
            args.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    return None


_LITERAL = re.compile(r'(?:u8|L|u|U)?"((?:[^"\\\n]|\\.)*)"')


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), s)


def _piece(arg: str) -> str | None:
    """The joined text of an argument made only of adjacent string literals; else None."""
    literals = list(_LITERAL.finditer(arg))
    if not literals or _LITERAL.sub("", arg).strip():
        return None
    return "".join(_unescape(m.group(1)) for m in literals)


# A message kept in a named constant (`const char* ERR_BACKWARD_TWICE = "..." "...";`), which a
# macro then names instead of spelling it out.
_CONSTANT = re.compile(
    r'(?:const\s+)?char\s*(?:const\s*)?\*\s*(?:const\s+)?(\w+)\s*=\s*((?:\s*(?:u8|L|u|U)?"(?:[^"\\\n]|\\.)*")+)\s*;'
)


def _constants(source: str) -> dict[str, str]:
    return {m.group(1): _piece(m.group(2)) or "" for m in _CONSTANT.finditer(source)}


def is_message(text: str) -> bool:
    """A sentence a reader could paste: three words or more, not a bare placeholder (the one
    rule for Python and C++ messages alike; dojo.coverage uses it too)."""
    return len(text.replace(PLACEHOLDER, " ").split()) >= 3


def extract(source: str, path: str) -> list[CppSourceMessage]:
    """Every topic macro in `source` whose message has a literal piece; `path` names the file."""
    found, constants = [], _constants(source)
    for match in _CALL.finditer(source):
        line_start = source.rfind("\n", 0, match.start()) + 1
        if source[line_start : match.start()].lstrip().startswith("#"):
            continue  # the macro's own definition, or a #define built on it
        parsed = _args(source, match.end() - 1)
        if parsed is None:
            continue
        macro = match.group(1)
        args = parsed[0]
        skip = _SKIP.get(macro, 1)
        pieces, text = [], []
        for arg in args[skip:]:
            piece = _piece(arg) if arg not in constants else constants[arg] or None
            if piece is None:
                text.append(PLACEHOLDER)
            else:
                pieces.append(piece)
                text.append(piece)
        if not pieces:
            continue
        joined = " ".join("".join(text).split())
        if is_message(joined):
            line = source.count("\n", 0, match.start()) + 1
            found.append(CppSourceMessage(path, line, macro, joined, tuple(pieces)))
    return found


def in_scope(path: str, paths: tuple[str, ...] = CPP_TOPIC_PATHS) -> bool:
    return any(path.startswith(p) if p.endswith("/") else path == p for p in paths)


def _include_path(path: str) -> str:
    """Where a PyTorch source path's header lies under torch/include."""
    return path.removeprefix("aten/src/")


def header_messages(site: Path, paths: tuple[str, ...] = CPP_TOPIC_PATHS) -> list[CppSourceMessage]:
    """The messages of the topic paths' headers that the torch under `site` ships."""
    include = site / "torch" / "include"
    found = []
    for topic in paths:
        base = include / _include_path(topic)
        if topic.endswith("/"):
            files = sorted(p for p in base.rglob("*") if p.suffix in HEADER_SUFFIXES)
        else:
            files = [base] if base.suffix in HEADER_SUFFIXES and base.is_file() else []
        for file in files:
            rel = file.relative_to(include).as_posix()
            source_path = ("aten/src/" + rel) if rel.startswith("ATen/") else rel
            found += extract(file.read_text(encoding="utf-8", errors="replace"), source_path)
    return found


@dataclass(frozen=True)
class Extraction:
    paths: tuple[str, ...]  # the scope the extraction says it covers
    files: dict[str, str]  # PyTorch path -> the commit it was read at
    messages: list[CppSourceMessage]
    dropped: list[tuple[CppSourceMessage, str]] = field(default_factory=list)  # and why
    pending: tuple[str, ...] = ()  # .cpp/.cu files of the scope not extracted yet


def committed(path: Path = SOURCES) -> Extraction:
    """The extraction of the topic paths' .cpp/.cu files, as committed."""
    with open(path, "rb") as f:
        raw = _toml.load(f)
    files = {f["path"]: f["commit"] for f in raw.get("file", [])}
    messages = [
        CppSourceMessage(m["path"], m["line"], m["macro"], m["text"], tuple(m["pieces"]))
        for m in raw.get("message", [])
    ]
    dropped = [
        (
            CppSourceMessage(m["path"], m["line"], m["macro"], m["text"], tuple(m["pieces"])),
            m["reason"],
        )
        for m in raw.get("dropped", [])
    ]
    return Extraction(tuple(raw["paths"]), files, messages, dropped, tuple(raw.get("pending", ())))


def absent_pieces(site: Path, messages: list[CppSourceMessage]) -> list[str] | None:
    """The messages whose longest piece is in none of torch/lib's libraries under `site`; None
    when the CUDA build is not installed there (the CPU build holds no CUDA message)."""
    lib = site / "torch" / "lib"
    if not (lib / "libtorch_cuda.so").is_file():
        return None
    absent = list(messages)  # one library in memory at a time, not all of them joined
    for path in sorted(lib.glob("*.so*")):
        if absent and path.is_file():
            data = path.read_bytes()
            absent = [m for m in absent if m.longest.encode() not in data]
    return [_absent_line(m) for m in absent]


def _absent_line(m: CppSourceMessage) -> str:
    return f"{m.source}: {m.longest[:80]!r}"


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def write(extraction: Extraction, note: str) -> str:
    """The text of coverage-cpp-sources.toml for `extraction`; `note` heads it as comments."""
    out = [f"# {line}".rstrip() for line in note.splitlines()]
    out += ["", "paths = [", *(f"    {_toml_str(p)}," for p in extraction.paths), "]", ""]
    out += [
        "# The .cpp/.cu files of the scope not extracted yet: the paths' files that",
        "# pytorch/pytorch's stored listing names (its union over history: a few may be gone",
        "# from the newest release).",
        "pending = [",
        *(f"    {_toml_str(p)}," for p in extraction.pending),
        "]",
        "",
    ]
    for p, commit in sorted(extraction.files.items()):
        out += ["[[file]]", f"path = {_toml_str(p)}", f"commit = {_toml_str(commit)}", ""]
    for m, reason in extraction.dropped:
        out += [
            "[[dropped]]",
            f"path = {_toml_str(m.path)}",
            f"line = {m.line}",
            f"macro = {_toml_str(m.macro)}",
            f"text = {_toml_str(m.text)}",
            "pieces = [" + ", ".join(_toml_str(p) for p in m.pieces) + "]",
            f"reason = {_toml_str(reason)}",
            "",
        ]
    for m in extraction.messages:
        out += [
            "[[message]]",
            f"path = {_toml_str(m.path)}",
            f"line = {m.line}",
            f"macro = {_toml_str(m.macro)}",
            f"text = {_toml_str(m.text)}",
            "pieces = [" + ", ".join(_toml_str(p) for p in m.pieces) + "]",
            "",
        ]
    return "\n".join(out)


NOTE = """\
The C++ topic messages of PyTorch's .cpp/.cu files (issue 27), for dojo/coverage.py: every
TORCH_CHECK, TORCH_CHECK_*, AT_ERROR, C10_THROW_ERROR, TORCH_WARN and TORCH_INTERNAL_ASSERT with
a string literal in its message, extracted by `python -m dojo.cpp_messages --write` from the
files listed below, each read from pytorch/pytorch at the commit it names. Do not edit by hand.
The files at 1eba9b3aa3c4 (the v2.6.0 release) were read from Debian's source tarball
pytorch_2.6.0+dfsg.orig.tar.xz (deb.debian.org, trixie), which holds that release's tree. The
others were read, byte for byte, from the copies of pytorch/pytorch that the project's source
index stores, at the commits named. The index offers only some versions of a file, not always
the newest: for the files absent from v2.6.0 and those reworded since, the version (or the
v2.6.0 copy) whose messages the newest release's CUDA build holds the most of was taken.
Several are older than v2.6.0 (files removed or moved since). A message that build no longer
holds, reworded since the commit read or compiled out there, is dropped below.
`paths` is the scope: dojo.cpp_messages.CPP_TOPIC_PATHS, which the tests hold equal to it.
The headers of those paths are not here: dojo/coverage.py reads them from the installed torch.
text: the message, with "cuda:0" where a value is filled in at run time; pieces: each
argument's joined string literals, as the libraries hold them."""


def main(argv: list[str]) -> int:
    if argv[:1] == ["--write"]:
        root, site = Path(argv[1]), Path(argv[2])
        files = dict(a.rsplit("@", 1) for a in argv[3:])
        outside = [p for p in files if not in_scope(p)]
        if outside:
            print("not in CPP_TOPIC_PATHS:", ", ".join(outside))
            return 1
        found = [m for p in sorted(files) for m in extract((root / p).read_text(), p)]
        version = (site / "torch" / "version.py").read_text().split("__version__ = ")[1]
        version = version.split()[0].strip("'\"")
        absent = set(absent_pieces(site, found) or [])
        if not (site / "torch" / "lib" / "libtorch_cuda.so").is_file():
            print(f"{site} holds no CUDA build of torch")
            return 1
        why = (
            f"its longest piece is in no library of torch {version}: compiled out there "
            "(an #if) or reworded since the commit read"
        )
        keep = [m for m in found if _absent_line(m) not in absent]
        dropped = [(m, why) for m in found if _absent_line(m) in absent]
        note = NOTE + f"\nChecked against torch {version}: {len(dropped)} dropped, with the reason."
        before = committed().pending if SOURCES.exists() else ()
        pending = tuple(p for p in before if p not in files)
        extraction = Extraction(CPP_TOPIC_PATHS, files, keep, dropped, pending)
        SOURCES.write_text(write(extraction, note))
        print(
            f"{len(keep)} messages from {len(files)} files into {SOURCES.name}, "
            f"{len(dropped)} dropped"
        )
        return 0
    for name in argv:
        for m in extract(Path(name).read_text(encoding="utf-8"), name):
            print(f"{m.source}: {m.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
