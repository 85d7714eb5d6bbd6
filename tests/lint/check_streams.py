#!/usr/bin/env python3
"""Device work off the caller's stream, under lib/ and algorithms/ (issue "The second floor").

Counts, per file, four things:
  - launches off the caller's stream: kernel launches without a stream (`<<<grid, block>>>` or
    `<<<grid, block, smem>>>`, or a stream argument of 0 / nullptr / NULL / cudaStreamLegacy),
    and cooperative launches on the null stream;
  - null-stream or device synchronizations: cudaDeviceSynchronize, and cudaStreamSynchronize(0 |
    nullptr | NULL | cudaStreamLegacy);
  - legacy-stream copies and sets: the synchronous cudaMemcpy, cudaMemset, cudaMemcpy2D,
    cudaMemcpyToSymbol and cudaMemcpyFromSymbol (which run on the legacy default stream), and
    their ...Async forms without a stream argument or with a null one;
  - streams of their own: cudaStreamCreate... calls, and cuda::stream objects made with a stream
    of their own (`cuda::stream name;`, `cuda::stream const name(priority)`, make_unique of one)
    rather than borrowed from the context (cuda::stream::borrow) or forked from its stream
    (cuda::side_streams, which orders them after the caller's work and joins them back); members
    (names ending in `_`) are left out: their constructor says where they come from (a member
    left default-made is a stream of its own that this does not see).
The library is being moved onto the context's stream file by file: tests/lint/streams_allowed.txt
lists what each file may still hold, four numbers a file in the order above. The check fails
when a file holds more than its allowance (new code must take the stream) and when it holds fewer
(lower the allowance in the same change, so that the list only shrinks). A use that stays must
say why in a comment at the place. Usage: check_streams.py SOURCE_DIR [--write]  (--write
rewrites the allowance file from the tree, for the change that converts a file).
"""
import pathlib
import re
import sys

NULL = {"0", "nullptr", "NULL", "cudaStreamLegacy", "cudaStream_t{}", "cudaStream_t()", "{}"}

# Copies and sets on the legacy default stream: the synchronous name, and the position (from 0)
# of the stream argument of its ...Async form.
COPIES = {"cudaMemcpy": 4, "cudaMemset": 3, "cudaMemcpy2D": 7, "cudaMemcpyToSymbol": 5,
          "cudaMemcpyFromSymbol": 5}

WHAT = (("launches off the caller's stream", "launch on the context's stream"),
        ("null-stream or device synchronizations", "wait on the context's stream only"),
        ("legacy-stream copies and sets", "copy or set with the ...Async form on the context's "
         "stream (and wait on that stream where the host reads the result)"),
        ("streams of their own", "borrow the context's stream (cuda::stream::borrow) or fork "
         "side streams from it (cuda::side_streams)"))


def split_top(s):
    """Splits s at commas outside brackets."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def call_args(text, open_paren):
    """The arguments of the call whose '(' is at text[open_paren], split at top-level commas."""
    depth = 0
    for i in range(open_paren, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return split_top(text[open_paren + 1:i])
    return split_top(text[open_paren + 1:])


def strip_comments(text):
    """Comments dropped (line breaks kept), string and character literals emptied."""
    def blank(m):
        t = m.group(0)
        if t[0] in "\"'":
            return t[0] * 2
        return "\n" * t.count("\n")
    return re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', blank,
                  text, flags=re.S)


def count(text):
    text = strip_comments(text)
    launches = syncs = copies = owned = 0
    for m in re.finditer(r"<<<(.*?)>>>", text, flags=re.S):
        args = split_top(m.group(1))
        if len(args) < 4 or args[3].replace(" ", "") in NULL:
            launches += 1
    for m in re.finditer(r"cudaLaunchCooperativeKernel\s*\((.*?)\)\s*\)?\s*;", text, flags=re.S):
        args = split_top(m.group(1))
        if len(args) < 6 or args[5].replace(" ", "") in NULL:
            launches += 1
    syncs += len(re.findall(r"\bcudaDeviceSynchronize\s*\(", text))
    for m in re.finditer(r"\bcudaStreamSynchronize\s*\(\s*([^()]*?)\s*\)", text):
        if m.group(1).replace(" ", "") in NULL:
            syncs += 1
    names = "|".join(sorted(COPIES, key=len, reverse=True))
    for m in re.finditer(r"\b(" + names + r")(Async)?\s*\(", text):
        if not m.group(2):
            copies += 1
            continue
        args = call_args(text, m.end() - 1)
        at = COPIES[m.group(1)]
        if len(args) <= at or args[at].replace(" ", "") in NULL:
            copies += 1
    owned += len(re.findall(r"\bcudaStreamCreate\w*\s*\(", text))
    owned += len(re.findall(r"\b(?:cuda::)?stream\s+(?:const\s+)?[A-Za-z]\w*(?<!_)\s*"
                            r"(?:;|,|\{\s*\}|\((?!\s*(?:cuda::)?stream::borrow\b|\s*void\s*\*|\s*borrowed\b))",
                            text))
    owned += len(re.findall(r"make_(?:unique|shared)\s*<\s*(?:cuda::)?stream\b", text))
    return launches, syncs, copies, owned


def main():
    root = pathlib.Path(sys.argv[1])
    allowed_path = root / "tests" / "lint" / "streams_allowed.txt"
    found = {}
    for top in ("lib", "algorithms"):
        for p in sorted((root / top).rglob("*")):
            if p.suffix not in {".cu", ".cuh", ".hpp", ".cpp", ".h"} or not p.is_file():
                continue
            counts = count(p.read_text(errors="replace"))
            if any(counts):
                found[str(p.relative_to(root))] = counts
    if "--write" in sys.argv[2:]:
        lines = [f"{f} {' '.join(map(str, c))}" for f, c in sorted(found.items())]
        allowed_path.write_text(
            "# file, launches off the caller's stream, null-stream or device synchronizations,\n"
            "# legacy-stream copies and sets, streams of their own (tests/lint/check_streams.py;\n"
            "# only ever lowered)\n" +
            "\n".join(lines) + "\n")
        print(f"wrote {allowed_path}: {len(lines)} files")
        return 0
    allowed = {}
    for n, line in enumerate(allowed_path.read_text().splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            fields = line.split()
            if len(fields) != 5:
                print(f"{allowed_path}:{n}: expected a file and four numbers, not {line!r}")
                return 1
            allowed[fields[0]] = tuple(int(x) for x in fields[1:])
    bad = []
    for f in sorted(set(found) | set(allowed)):
        have, may = found.get(f, (0, 0, 0, 0)), allowed.get(f, (0, 0, 0, 0))
        for (what, fix), h, m in zip(WHAT, have, may):
            if h > m:
                bad.append(f"{f}: {h} {what}, {m} allowed: {fix}")
            elif h < m:
                bad.append(f"{f}: {h} {what}, {m} allowed: lower its line in "
                           f"tests/lint/streams_allowed.txt to {h}")
    total = [sum(v[i] for v in found.values()) for i in range(4)]
    if bad:
        print("\n".join(bad))
        return 1
    print(f"{total[0]} launches off the caller's stream, {total[1]} null-stream or device "
          f"synchronizations, {total[2]} legacy-stream copies and sets and {total[3]} streams of "
          f"their own left, in {len(found)} files, none past its allowance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
