"""Which of this project's topic messages the error index does not recognise (issue 27).

    python -m dojo.coverage                 the installed torch, and the CUDA runtime it brings
    python -m dojo.coverage --list          also print every message and the entry that answers it
    python -m dojo.coverage --torch DIR --cudart PATH

A topic message is defined by where it comes from, never by what it says:
- every `raise X("...")` and `warnings.warn("...")` with a literal message in the Python files
  of `TOPIC_PATHS` inside the installed torch (the CUDA build's are the CPU build's);
- every string of the CUDA runtime's error table (`cudaGetErrorString` for each code), read
  from the `libcudart` that the CUDA build of torch installs (PyPI's nvidia-cuda-runtime
  wheel; it answers without a GPU), as torch prints it: after "CUDA error: ".

Each is checked with `dojo.errors.find`, the answer `python -m katas explain` gives. A message
the index does not recognise must be listed in `dojo/coverage-left-out.toml`, by its source
folder (a part of torch the katas do not teach, with the reason) or by its text (with the
reason); the check fails on any other, and on a listed text that is now recognised or gone
(the list stays true; a text listed from another release may be gone). A new torch release
is a re-run: its new messages fail the check until each gets a family or a reason.

- the C++ messages (`TORCH_CHECK` in c10, ATen, torch/csrc) listed in `dojo/coverage-cpp.toml`,
read by hand from PyTorch's sources: the wheels hold them only as fragments without their
paths. Each listed fragment must be in its library of the installed torch (a release whose
text changed fails), and each listed text is checked like the others;
- the C++ messages enumerated from PyTorch's sources for the topic paths of
`dojo.cpp_messages.CPP_TOPIC_PATHS`: the headers the installed torch ships, and the committed
extraction of the .cpp/.cu files (`dojo/coverage-cpp-sources.toml`; with the CUDA build
installed, each message's longest literal piece must be in torch/lib). Internal asserts are
left out by their macro (`[[macro]]` in coverage-left-out.toml), with the reason;
- the status tables of the libraries torch prints as they are, read from the libraries the CUDA
build installs (no GPU needed): cuDNN's `cudnnGetErrorString` ("cuDNN error: ..."), cuBLAS's
status names ("CUDA error: CUBLAS_STATUS_... when calling `...`") and NCCL's
`ncclGetErrorString` ("NCCL error in: ..., <result>, NCCL version ...").
"""

from __future__ import annotations

import argparse
import ast
import ctypes
import sys
from dataclasses import dataclass, field
from pathlib import Path

from dojo import _toml, errors
from dojo import cpp_messages as cpp_sources

# Where the topics' Python messages live, relative to the folder that holds the `torch`
# package. The list is the (torch/cuda, torch/nn/parallel, torch/distributed,
# torch/utils/data, torch/amp) and the other modules the katas teach.
TOPIC_PATHS = (
    "torch/cuda",
    "torch/nn/parallel",
    "torch/distributed",
    "torch/utils/data",
    "torch/amp",
    "torch/accelerator",
    "torch/multiprocessing",
    "torch/serialization.py",
    "torch/backends/cuda",
    "torch/backends/cudnn",
)
LEFT_OUT = Path(__file__).with_name("coverage-left-out.toml")
CPP = Path(__file__).with_name("coverage-cpp.toml")
PLACEHOLDER = cpp_sources.PLACEHOLDER  # what an f-string or a .format() fills in at run time


@dataclass(frozen=True)
class Message:
    source: str  # `torch/cuda/__init__.py:230`, `cudaGetErrorString(716) cudaErrorMisaligned...`
    text: str
    kind: str = ""  # for a C++ message, its macro (TORCH_CHECK, TORCH_INTERNAL_ASSERT, ...)

    @property
    def where(self) -> str:
        return self.source.split(":")[0]


def _literal(node: ast.AST) -> str | None:
    """The text of a message expression, with PLACEHOLDER where it is built at run time; None
    when nothing of it is literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [v.value if isinstance(v, ast.Constant) else PLACEHOLDER for v in node.values]
        return "".join(str(p) for p in parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left = _literal(node.left)
        if isinstance(node.op, ast.Mod):
            return left.replace("%s", PLACEHOLDER).replace("%d", "0") if left else None
        right = _literal(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else PLACEHOLDER) + (
            right if right is not None else PLACEHOLDER
        )
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        text = _literal(node.func.value)
        return text.replace("{}", PLACEHOLDER) if text else None
    return None


def python_messages(site: Path) -> list[Message]:
    """Every literal message raised or warned in the topic paths under `site` (the folder
    that holds the `torch` package)."""
    found = []
    for topic in TOPIC_PATHS:
        base = site / topic
        files = [base] if base.is_file() else sorted(base.rglob("*.py")) if base.is_dir() else []
        if not base.with_suffix(".py").exists() and not files:
            continue
        for path in files:
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                continue
            for node in ast.walk(tree):
                call = None
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                    call = node.exc
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "warn"
                ):
                    call = node
                if call is None or not call.args:
                    continue
                text = _literal(call.args[0])
                if text and cpp_sources.is_message(text):
                    where = f"{path.relative_to(site).as_posix()}:{node.lineno}"
                    found.append(Message(where, " ".join(text.split())))
    return found


def find_cudart(site: Path) -> Path | None:
    """The CUDA runtime library the CUDA build of torch installs beside it (nvidia/*/lib)."""
    nvidia = site / "nvidia"
    libs = sorted(nvidia.rglob("libcudart.so*")) if nvidia.is_dir() else []
    return libs[0] if libs else None


def cuda_runtime_messages(cudart: Path) -> list[Message]:
    """Every error string of the CUDA runtime's table, as torch prints it ("CUDA error: ...");
    codes the runtime does not know ("unrecognized error code") and success are skipped."""
    lib = ctypes.CDLL(str(cudart))
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    lib.cudaGetErrorName.restype = ctypes.c_char_p
    found = []
    for code in range(1, 1100):
        text = lib.cudaGetErrorString(code).decode()
        if "unrecognized error code" in text:
            continue
        name = lib.cudaGetErrorName(code).decode()
        found.append(Message(f"cudaGetErrorString({code}) {name}", f"CUDA error: {text}"))
    return found


@dataclass(frozen=True)
class CppMessage:
    """One C++ message of `dojo/coverage-cpp.toml`."""

    text: str
    fragments: tuple[str, ...]
    library: str  # libc10.so, libtorch_cpu.so, libc10_cuda.so, libtorch_cuda.so
    source: str
    read: str


def cpp_list(path: Path = CPP) -> list[CppMessage]:
    """The C++ messages listed in `path`; a ValueError names an entry that lacks a field."""
    with open(path, "rb") as f:
        raw = _toml.load(f).get("message", [])
    found = []
    for n, m in enumerate(raw, start=1):
        missing = [k for k in ("text", "fragments", "library", "source", "read") if not m.get(k)]
        if missing:
            raise ValueError(f"{path.name}, message {n}: no {', '.join(missing)}")
        if not all(f.strip() in m["text"] for f in m["fragments"]):
            raise ValueError(f"{path.name}, message {n}: a fragment is not in its text")
        found.append(
            CppMessage(m["text"], tuple(m["fragments"]), m["library"], m["source"], m["read"])
        )
    return found


@dataclass
class CppCheck:
    messages: list[Message]  # every listed text, to be answered like any topic message
    absent: list[str]  # fragments not in their library: the release's text changed
    unchecked: list[str]  # libraries not installed here (the CPU build has no CUDA library)


def cpp_messages(site: Path, listed: list[CppMessage]) -> CppCheck:
    """The listed C++ messages, each fragment looked up in its library under `site`/torch/lib."""
    check, cache = CppCheck([], [], []), {}
    for m in listed:
        check.messages.append(Message(f"{m.source}", " ".join(m.text.split())))
        lib = site / "torch" / "lib" / m.library
        if not lib.is_file():
            if m.library not in check.unchecked:
                check.unchecked.append(m.library)
            continue
        data = cache.setdefault(m.library, lib.read_bytes())
        check.absent += [
            f"{m.library} lacks {f!r} ({m.source})" for f in m.fragments if f.encode() not in data
        ]
    return check


@dataclass
class CppSources:
    messages: list[Message]  # every enumerated C++ message, to be answered like the others
    headers: int  # how many came from the installed torch's headers
    extracted: int  # how many from the committed extraction of the .cpp/.cu files
    absent: list[str] | None  # extracted messages not in the libraries; None: not checked here
    pending: tuple[str, ...] = ()  # .cpp/.cu files of the scope not extracted yet


def cpp_source_messages(site: Path, extraction: cpp_sources.Extraction | None = None) -> CppSources:
    """The C++ topic messages enumerated from PyTorch's sources (`dojo.cpp_messages`): the
    topic paths' headers in the torch under `site`, and the committed extraction of their
    .cpp/.cu files, whose longest pieces are looked up in torch/lib when the CUDA build is
    installed there."""
    headers = cpp_sources.header_messages(site)
    extraction = extraction or cpp_sources.committed()
    found = [Message(m.source, m.text, m.macro) for m in headers + extraction.messages]
    absent = cpp_sources.absent_pieces(site, extraction.messages)
    return CppSources(found, len(headers), len(extraction.messages), absent, extraction.pending)


def _lib(site: Path, pattern: str) -> Path | None:
    libs = sorted((site / "nvidia").rglob(pattern)) if (site / "nvidia").is_dir() else []
    return libs[0] if libs else None


def library_messages(site: Path) -> list[Message]:
    """The status tables of cuDNN, cuBLAS and NCCL, from the libraries the CUDA build installs
    under `site`/nvidia, each status as torch prints it: after "cuDNN error: " (AT_CUDNN_CHECK),
    as "CUDA error: <name> when calling `...`" (TORCH_CUDABLAS_CHECK), inside "NCCL error in: ..."
    (C10D_NCCL_CHECK). None found: []."""
    found = []
    if cudnn := _lib(site, "libcudnn.so*"):
        lib = ctypes.CDLL(str(cudnn))
        lib.cudnnGetErrorString.restype = ctypes.c_char_p
        seen = set()
        for code in range(1, 10000):
            text = lib.cudnnGetErrorString(code).decode()
            if text.startswith("CUDNN_STATUS_") and text not in seen:
                seen.add(text)
                found.append(Message(f"cudnnGetErrorString({code})", f"cuDNN error: {text}"))
    if cublas := _lib(site, "libcublas.so*"):
        if lt := _lib(site, "libcublasLt.so*"):
            ctypes.CDLL(str(lt), mode=ctypes.RTLD_GLOBAL)
        lib = ctypes.CDLL(str(cublas))
        lib.cublasGetStatusName.restype = ctypes.c_char_p
        for code in range(1, 100):
            name = lib.cublasGetStatusName(code).decode()
            if name.startswith("CUBLAS_STATUS_"):
                text = f"CUDA error: {name} when calling `cublasCreate(handle)`"
                found.append(Message(f"cublasGetStatusName({code})", text))
    if nccl := _lib(site, "libnccl.so*"):
        lib = ctypes.CDLL(str(nccl))
        lib.ncclGetErrorString.restype = ctypes.c_char_p
        version = ctypes.c_int()
        lib.ncclGetVersion(ctypes.byref(version))
        v = version.value
        dotted = f"{v // 10000}.{v // 100 % 100}.{v % 100}"
        for code in range(1, 8):
            text = lib.ncclGetErrorString(code).decode()
            message = (
                "NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
                f"{text}, NCCL version {dotted}"
            )
            found.append(Message(f"ncclGetErrorString({code})", message))
    return found


LISTED_FROM = ("2.13",)
"""The releases a listed message comes from when its entry names none (`torch = [...]`)."""


@dataclass(frozen=True)
class LeftOut:
    folders: dict[str, str]  # source folder -> why its messages are not the index's
    texts: dict[str, str]  # message text -> why
    releases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # text -> "2.13", ...
    macros: dict[str, str] = field(default_factory=dict)  # C++ macro -> why its messages are not


def left_out(path: Path = LEFT_OUT) -> LeftOut:
    with open(path, "rb") as f:
        raw = _toml.load(f)
    folders = {g["path"]: g["reason"] for g in raw.get("folder", [])}
    texts = {m["text"]: m["reason"] for m in raw.get("message", [])}
    releases = {m["text"]: tuple(m.get("torch", LISTED_FROM)) for m in raw.get("message", [])}
    macros = {m["name"]: m["reason"] for m in raw.get("macro", [])}
    for where, reason in [*folders.items(), *texts.items(), *macros.items()]:
        if not reason.strip():
            raise ValueError(f"{path.name}: {where!r} is left out without a reason")
    return LeftOut(folders, texts, releases, macros)


def release(version: str) -> str:
    """ "2.15" for "2.15.0+cu132": the release a message list is read from."""
    return ".".join(version.split("+")[0].split(".")[:2])


@dataclass
class Report:
    recognised: list[tuple[Message, str]]
    generic: list[tuple[Message, str]]  # recognised only by a fallback entry
    folder_left: list[tuple[Message, str]]
    text_left: list[tuple[Message, str]]
    missed: list[Message]
    stale: list[str]  # listed texts that are recognised now, or no longer in torch

    @property
    def ok(self) -> bool:
        return not self.missed and not self.stale


def check(messages: list[Message], listed: LeftOut, installed: str | None = None) -> Report:
    """Sort `messages` by how the index answers them. A listed text that is recognised now is
    stale; one that is gone is stale when it was listed from the `installed` release (one list
    serves the pin and the newest release; None: every listed text must be there)."""
    report = Report([], [], [], [], [], [])
    seen = set()
    for message in messages:
        seen.add(message.text)
        found = errors.find(message.text)
        folder = next((f for f in listed.folders if message.where.startswith(f)), None)
        if found and not found[0].fallback:
            report.recognised.append((message, found[0].id))
            if message.text in listed.texts:
                report.stale.append(f"{message.text!r} is recognised now ({found[0].id})")
        elif found:
            report.generic.append((message, found[0].id))
        elif folder is not None:
            report.folder_left.append((message, listed.folders[folder]))
        elif message.kind and message.kind in listed.macros:
            report.folder_left.append((message, listed.macros[message.kind]))
        elif message.text in listed.texts:
            report.text_left.append((message, listed.texts[message.text]))
        else:
            report.missed.append(message)
    report.stale += [
        f"{t!r} is no longer a topic message"
        for t in listed.texts
        if t not in seen and (installed is None or installed in listed.releases.get(t, LISTED_FROM))
    ]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dojo.coverage", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--torch", type=Path, help="the folder that holds the torch package")
    parser.add_argument("--cudart", type=Path, help="libcudart.so (default: the one beside torch)")
    parser.add_argument("--list", action="store_true", help="print every message and its entry")
    parser.add_argument(
        "--require-cuda",
        action="store_true",
        help="fail when no CUDA runtime is found (CI, with the CUDA build installed)",
    )
    args = parser.parse_args(argv)
    installed = None  # another torch's folder: every listed text must be there
    if args.torch is None:
        import torch

        args.torch = Path(torch.__file__).resolve().parent.parent
        installed = release(torch.__version__)
    messages = python_messages(args.torch)
    cudart = args.cudart or find_cudart(args.torch)
    topics = ", ".join(TOPIC_PATHS)
    print(f"torch sources under {args.torch}: {len(messages)} topic messages in {topics}")
    if cudart is not None:
        runtime = cuda_runtime_messages(cudart)
        print(f"CUDA runtime {cudart.name}: {len(runtime)} error strings")
        messages += runtime
    else:
        print("CUDA runtime: none found beside torch (the CPU build has none)")
        if args.require_cuda:
            print("FAIL: --require-cuda, and no libcudart.so under", args.torch / "nvidia")
            return 1
    cpp = cpp_messages(args.torch, cpp_list())
    print(
        f"C++ messages listed in {CPP.name}: {len(cpp.messages)}, their fragments looked up in "
        "torch/lib" + (f" ({', '.join(cpp.unchecked)} not installed here)" if cpp.unchecked else "")
    )
    messages += cpp.messages
    sources = cpp_source_messages(args.torch)
    print(
        f"C++ messages enumerated from the sources of {len(cpp_sources.CPP_TOPIC_PATHS)} topic "
        f"paths: {sources.headers} from the installed headers, {sources.extracted} from "
        f"{cpp_sources.SOURCES.name}"
        + (
            ", their pieces looked up in torch/lib"
            if sources.absent is not None
            else " (pieces not looked up: no CUDA build here)"
        )
    )
    if sources.pending:
        print(
            f"  NOT YET EXTRACTED: {len(sources.pending)} .cpp/.cu files of the topic paths "
            f"({cpp_sources.SOURCES.name}'s pending list), so their messages are not checked"
        )
    messages += sources.messages
    tables = library_messages(args.torch)
    print(f"cuDNN, cuBLAS and NCCL status tables: {len(tables)} statuses")
    messages += tables
    report = check(messages, left_out(), installed=installed)
    total = len(messages)
    print(
        f"{len(report.recognised)} of {total} recognised by an entry of their family, "
        f"{len(report.generic)} only by a generic entry, "
        f"{len(report.folder_left)} left out with their folder, "
        f"{len(report.text_left)} left out one by one, {len(report.missed)} missed"
    )
    if args.list:
        for message, entry in report.recognised:
            print(f"  {entry:28} {message.source}: {message.text[:100]}")
    for message, entry in report.generic:
        print(f"  generic ({entry}): {message.source}: {message.text[:110]}")
    if args.list:
        for message, reason in report.folder_left + report.text_left:
            print(f"  left out ({reason[:40]}): {message.source}: {message.text[:80]}")
    for message in report.missed:
        print(f"  MISSED {message.source}: {message.text[:160]}")
    for line in report.stale:
        print(f"  STALE in {LEFT_OUT.name}: {line}")
    for line in cpp.absent:
        print(f"  CHANGED: {line}: the release's text differs from {CPP.name}")
    for line in sources.absent or []:
        print(f"  CHANGED: {line}: not in torch/lib; extract {cpp_sources.SOURCES.name} again")
    if args.require_cuda and sources.absent is None:
        print("FAIL: --require-cuda, and no libtorch_cuda.so for the extracted C++ messages")
        return 1
    if args.require_cuda and (cpp.unchecked or not tables):
        print(f"FAIL: --require-cuda, and no {', '.join(cpp.unchecked) or 'status tables'} here")
        return 1
    if not report.ok or cpp.absent or sources.absent:
        print(
            f"FAIL: give each missed message a family in dojo/errors.toml, or list it in "
            f"{LEFT_OUT.name} with the reason; remove stale lines."
        )
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
