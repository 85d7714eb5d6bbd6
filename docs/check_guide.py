#!/usr/bin/env python3
"""Checks that every example quoted in docs/guide.md is the file it names, word for word.

A quote is a line `<!-- example: PATH -->` (PATH relative to the repository root) followed by a
fenced code block. `--write` replaces each block with the file's current text instead of checking.
Exit status: 0 when every quote matches (or after --write), 1 when one differs or a file is missing.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide.md"
QUOTE = re.compile(r"<!-- example: (\S+) -->\n```cpp\n(.*?)```\n", re.S)


def main() -> int:
    write = "--write" in sys.argv[1:]
    text = GUIDE.read_text()
    problems = []

    def replace(m: re.Match) -> str:
        path = ROOT / m.group(1)
        if not path.is_file():
            problems.append(f"{m.group(1)}: quoted in docs/guide.md but not found")
            return m.group(0)
        body = path.read_text()
        if not write and body != m.group(2):
            problems.append(f"{m.group(1)}: the quote in docs/guide.md differs from the file "
                            "(run docs/check_guide.py --write)")
        return f"<!-- example: {m.group(1)} -->\n```cpp\n{body}```\n"

    new = QUOTE.sub(replace, text)
    quotes = len(QUOTE.findall(text))
    if quotes == 0:
        problems.append("docs/guide.md quotes no example")
    if write and not problems:
        GUIDE.write_text(new)
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"docs/guide.md: {quotes} quoted examples {'written' if write else 'match'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
