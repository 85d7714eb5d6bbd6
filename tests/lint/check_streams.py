#!/usr/bin/env python3
"""Device work off the caller's stream, under lib/ and algorithms/ (issue "The second floor").

Counts, per file, the kernel launches without a stream (`<<<grid, block>>>` or
`<<<grid, block, smem>>>`, or a stream argument of 0 / nullptr / NULL / cudaStreamLegacy), the
cooperative launches on the null stream, and the synchronizations of the device or the null
stream (cudaDeviceSynchronize, cudaStreamSynchronize(0 | nullptr | NULL | cudaStreamLegacy)).
The library is being moved onto the context's stream file by file: tests/lint/streams_allowed.txt
lists what each file may still hold. The check fails when a file holds more than its allowance
(new code must take the stream) and when it holds fewer (lower the allowance in the same change,
so that the list only shrinks). Usage: check_streams.py SOURCE_DIR [--write]  (--write rewrites
the allowance file from the tree, for the change that converts a file).
"""
import pathlib
import re
import sys

NULL = {"0", "nullptr", "NULL", "cudaStreamLegacy", "cudaStream_t{}", "cudaStream_t()", "{}"}


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


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def count(text):
    text = strip_comments(text)
    launches = syncs = 0
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
    return launches, syncs


def main():
    root = pathlib.Path(sys.argv[1])
    allowed_path = root / "tests" / "lint" / "streams_allowed.txt"
    found = {}
    for top in ("lib", "algorithms"):
        for p in sorted((root / top).rglob("*")):
            if p.suffix not in {".cu", ".cuh", ".hpp", ".cpp", ".h"} or not p.is_file():
                continue
            launches, syncs = count(p.read_text(errors="replace"))
            if launches or syncs:
                found[str(p.relative_to(root))] = (launches, syncs)
    if "--write" in sys.argv[2:]:
        lines = [f"{f} {l} {s}" for f, (l, s) in sorted(found.items())]
        allowed_path.write_text(
            "# file, launches off the caller's stream, null-stream or device synchronizations\n"
            "# (tests/lint/check_streams.py; only ever lowered)\n" + "\n".join(lines) + "\n")
        print(f"wrote {allowed_path}: {len(lines)} files")
        return 0
    allowed = {}
    for line in allowed_path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            f, l, s = line.split()
            allowed[f] = (int(l), int(s))
    bad = []
    for f in sorted(set(found) | set(allowed)):
        have, may = found.get(f, (0, 0)), allowed.get(f, (0, 0))
        for what, h, m, fix in (
                ("launches off the caller's stream", have[0], may[0],
                 "launch on the context's stream"),
                ("null-stream or device synchronizations", have[1], may[1],
                 "wait on the context's stream only")):
            if h > m:
                bad.append(f"{f}: {h} {what}, {m} allowed: {fix}")
            elif h < m:
                bad.append(f"{f}: {h} {what}, {m} allowed: lower its line in "
                           f"tests/lint/streams_allowed.txt to {h}")
    total = [sum(v[i] for v in found.values()) for i in (0, 1)]
    if bad:
        print("\n".join(bad))
        return 1
    print(f"{total[0]} launches off the caller's stream and {total[1]} null-stream or device "
          f"synchronizations left, in {len(found)} files, none past its allowance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
