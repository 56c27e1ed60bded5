#!/usr/bin/env python3
"""Merges swift-openapi-generator's Types*.swift files in DIR into one Types.swift.

The generator (1.14) writes each components section to a file of its own, each with the
same `public import` lines; in a section this API leaves empty, Swift 6.3 warns that the
imports are unused (the generator silences that only from Swift 6.4 on, with @diagnose).
One file with one import block keeps the package's build free of warnings.
Usage: merge-generated-types.py DIR
"""
import pathlib
import re
import sys

directory = pathlib.Path(sys.argv[1])
header_end = re.compile(r"^(?:@_spi\(Generated\) )?public import [^\n]*\n", re.M)


def split(text: str) -> tuple[str, str]:
    """The import header (through the last `public import` line) and the rest."""
    ends = [match.end() for match in header_end.finditer(text)]
    end = ends[-1] if ends else 0
    return text[:end], text[end:]


main = directory / "Types.swift"
header, body = split(main.read_text())
parts = [header, body]
for path in sorted(directory.glob("Types+*.swift")):
    _, rest = split(path.read_text())
    parts.append(f"\n// MARK: {path.name}\n" + rest)
    path.unlink()
main.write_text("".join(parts))
