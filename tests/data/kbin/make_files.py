#!/usr/bin/env python3
"""Writes the .kbin files of tests/data/kbin: crafted files with a valid checksum (so that the
reader's structure checks, not the checksum, must refuse them) and a few good ones.

    python3 tests/data/kbin/make_files.py        (rewrites bad/*.kbin and good/*.kbin)

Names follow tests/data/mm: ERRC-DESCRIPTION.kbin, where ERRC is the mm_errc the reader reports
(binary errors have no line). The format is matrix_io/include/kleene/io/binary.hpp's; the checksum
is binary_checksum() (matrix_io/src/binary.cpp), written again here.
"""
import os
import struct

M = (1 << 64) - 1
K1, K2, K3, K4 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63
BLOCK = 1 << 20


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def block_hash(p, seed):
    n0 = n = len(p)
    a, b, c, d = (seed + K1) & M, (seed + K2) & M, seed ^ K3, (seed - K4) & M
    i = 0
    while n >= 32:
        w = struct.unpack_from("<4Q", p, i)
        a = rotl((a + w[0] * K2) & M, 31) * K1 & M
        b = rotl((b + w[1] * K2) & M, 31) * K1 & M
        c = rotl((c + w[2] * K2) & M, 31) * K1 & M
        d = rotl((d + w[3] * K2) & M, 31) * K1 & M
        i += 32
        n -= 32
    h = (rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18)) & M
    while n >= 8:
        (w,) = struct.unpack_from("<Q", p, i)
        h = (rotl(h ^ (w * K2 & M), 27) * K1 + K4) & M
        i += 8
        n -= 8
    while n > 0:
        h = rotl(h ^ (p[i] * K3 & M), 11) * K1 & M
        i += 1
        n -= 1
    h ^= n0
    h ^= h >> 33
    h = h * K2 & M
    h ^= h >> 29
    h = h * K3 & M
    h ^= h >> 32
    return h


def checksum(payload):
    blocks = [block_hash(payload[o:o + BLOCK], b)
              for b, o in enumerate(range(0, len(payload), BLOCK))]
    return block_hash(struct.pack("<%dQ" % len(blocks), *blocks), len(payload))


TYPES = {"bool": (0, "B"), "int32": (3, "i"), "int64": (4, "q"), "float64": (10, "d")}


def kbin(kind=1, vtype="float64", index_bytes=4, flags=0, rows=0, cols=0, nnz=None, ptr=(),
         col=(), val=(), iso_bits=0, payload=None, payload_field=None, reserved=0, version=1,
         magic=b"KLEENEMX", pad=b""):
    code, fmt = TYPES[vtype]
    if payload is None:
        ix = "i" if index_bytes == 4 else "q"
        payload = struct.pack("<%d%s" % (len(ptr), ix), *ptr)
        payload += struct.pack("<%d%s" % (len(col), ix), *col)
        payload += bytes(val) if vtype == "bool" else struct.pack("<%d%s" % (len(val), fmt), *val)
    if nnz is None:
        nnz = len(col) if kind == 1 else 0
    head = magic + struct.pack("<IIBBBBIQQQQQQ", version, 128, kind, code, index_bytes, flags,
                               reserved, rows, cols, nnz, iso_bits, checksum(payload),
                               len(payload) if payload_field is None else payload_field)
    head += pad.ljust(56, b"\0")
    assert len(head) == 128
    return head + payload


BAD = {
    # Row pointers [0, 2000000000, 1]: the columns of row 0 were read past the array (issue 19).
    "bad_binary-row_ptr_past_entries": kbin(rows=2, cols=2, ptr=(0, 2000000000, 1), col=(0,),
                                            val=(1.0,)),
    "bad_binary-row_ptr_decreasing": kbin(rows=3, cols=2, ptr=(0, 2, 1, 2), col=(0, 1),
                                          val=(1.0, 2.0)),
    "bad_binary-row_ptr_negative": kbin(rows=2, cols=2, ptr=(0, -5, 1), col=(0,), val=(1.0,)),
    "bad_binary-row_ptr_first_not_zero": kbin(rows=1, cols=2, ptr=(1, 1), col=(0,), val=(1.0,)),
    "bad_binary-row_ptr_last_not_nnz": kbin(rows=1, cols=3, ptr=(0, 1), col=(0, 1),
                                            val=(1.0, 2.0)),
    "bad_binary-column_past_cols": kbin(rows=1, cols=2, ptr=(0, 1), col=(5,), val=(1.0,)),
    "bad_binary-column_negative": kbin(rows=1, cols=2, ptr=(0, 1), col=(-1,), val=(1.0,)),
    "bad_binary-columns_unsorted": kbin(rows=1, cols=3, ptr=(0, 2), col=(2, 0), val=(1.0, 2.0)),
    "bad_binary-columns_duplicate": kbin(rows=1, cols=3, ptr=(0, 2), col=(1, 1), val=(1.0, 2.0)),
    # A bool byte 7: read back as a bool it is neither true nor false (issue 19).
    "bad_binary-bool_byte_7": kbin(vtype="bool", rows=1, cols=2, ptr=(0, 2), col=(0, 1),
                                   val=(1, 7)),
    "bad_binary-bool_iso_7": kbin(vtype="bool", flags=1, rows=1, cols=1, ptr=(0, 1), col=(0,),
                                  iso_bits=7),
    "bad_binary-dense_bool_byte_2": kbin(kind=2, vtype="bool", index_bytes=8, rows=1, cols=2,
                                         payload=bytes((1, 2))),
    # rows * cols * 8 is 2^129: the old reader's 128-bit product wrapped to a payload of 0.
    "bad_binary-dense_size_wraps": kbin(kind=2, index_bytes=8, rows=1 << 63, cols=1 << 63,
                                        payload=b""),
    "bad_binary-dense_with_nnz": kbin(kind=2, index_bytes=8, rows=1, cols=1, nnz=1,
                                      payload=struct.pack("<d", 1.0)),
    "bad_binary-nnz_past_file": kbin(rows=1, cols=2, nnz=3, ptr=(0, 1), col=(0,), val=(1.0,)),
    "bad_binary-nnz_more_than_cells": kbin(rows=1, cols=1, ptr=(0, 2), col=(0, 0),
                                           val=(1.0, 2.0)),
    "bad_binary-rows_past_file": kbin(rows=1 << 61, cols=1, ptr=(0,), payload_field=4),
    "bad_binary-payload_field": kbin(rows=1, cols=1, ptr=(0, 1), col=(0,), val=(1.0,),
                                     payload_field=7),
    "bad_binary-flags": kbin(flags=2, rows=1, cols=1, ptr=(0, 1), col=(0,), val=(1.0,)),
    "bad_binary-reserved": kbin(reserved=9, rows=1, cols=1, ptr=(0, 1), col=(0,), val=(1.0,)),
    "bad_binary-header_padding": kbin(rows=1, cols=1, ptr=(0, 1), col=(0,), val=(1.0,),
                                      pad=b"\1"),
    "bad_binary-iso_bits_not_iso": kbin(rows=1, cols=1, ptr=(0, 1), col=(0,), val=(1.0,),
                                        iso_bits=3),
    "bad_binary-index_bytes": kbin(index_bytes=2, rows=1, cols=1, ptr=(0, 1), col=(0,), val=(1.0,),
                                   payload=b"\0" * 12),
    "bad_binary-version": kbin(version=2, rows=1, cols=1, ptr=(0, 1), col=(0,), val=(1.0,)),
    "bad_binary-magic": kbin(magic=b"KLEENEMY", rows=1, cols=1, ptr=(0, 1), col=(0,), val=(1.0,)),
    "bad_binary-short_header": b"KLEENEMX\1\0\0\0",
}

GOOD = {
    # 2 x 3, entries (0, 1) = 1.5 and (1, 0) = -2, (1, 2) = 4.
    "small_double": kbin(rows=2, cols=3, ptr=(0, 1, 3), col=(1, 0, 2), val=(1.5, -2.0, 4.0)),
    "small_bool_iso": kbin(vtype="bool", flags=1, rows=2, cols=2, ptr=(0, 1, 2), col=(1, 0),
                           iso_bits=1),
    "empty_0x0": kbin(rows=0, cols=0, ptr=(0,)),
    "small_int32_index8": kbin(vtype="int32", index_bytes=8, rows=3, cols=3, ptr=(0, 2, 2, 3),
                               col=(0, 2, 1), val=(-7, 9, 2147483647)),
    # 4-byte indices, rows + 1 + nnz odd: the int64 values start at payload offset 12, not
    # 8-aligned (converting them on load read through a misaligned pointer; fuzz_kbin found it).
    "int64_values_at_offset_12": kbin(vtype="int64", rows=1, cols=2, ptr=(0, 1), col=(1,),
                                      val=(-5,)),
    "dense_2x2_double": kbin(kind=2, index_bytes=8, rows=2, cols=2,
                             payload=struct.pack("<4d", 1.0, -0.5, 0.0, 1e300)),
    # No rows: nothing stored, however many columns.
    "dense_0_rows_huge_cols": kbin(kind=2, index_bytes=8, rows=0, cols=1 << 62, payload=b""),
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for sub, files in (("bad", BAD), ("good", GOOD)):
        os.makedirs(os.path.join(here, sub), exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(here, sub, name + ".kbin"), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
