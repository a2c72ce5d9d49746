"""`python -m katas list` shows the katas in order; `python -m katas hint NAME [N]` shows hints.

Running your katas and seeing where you stand is `nox -s learn` (or plain `pytest`).
"""

from __future__ import annotations

import argparse
import sys

from dojo import catalogue as _catalogue


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m katas", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the katas in the order to do them")
    hint = sub.add_parser("hint", help="print a kata's hints, or one of them")
    hint.add_argument("name", help="the kata's name, as in `python -m katas list`")
    hint.add_argument("number", nargs="?", type=int, help="which hint (default: all)")
    args = parser.parse_args(argv)

    if args.command == "list":
        for kata in _catalogue.katas():
            print(f"{kata.number}. {kata.name:<18} {kata.title}: {kata.summary}")
        return 0

    try:
        kata = _catalogue.get(args.name)
    except ValueError as err:
        parser.error(str(err))
    numbers = range(1, len(kata.hints) + 1)
    if args.number is not None and args.number not in numbers:
        parser.error(f"{kata.name} has hints 1 to {len(kata.hints)}, not {args.number}")
    for n in [args.number] if args.number is not None else numbers:
        print(f"{kata.name}, hint {n}: {kata.hints[n - 1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


def run() -> None:
    sys.exit(main())
