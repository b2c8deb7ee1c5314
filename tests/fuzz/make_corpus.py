#!/usr/bin/env python3
"""Seed corpus for session_reader_fuzz from real recordings.

usage: make_corpus.py OUT_DIR RECORDING...

For each recording NAME.rec it writes to OUT_DIR:
  NAME.rec               the file as is (complete, footer index and trailer)
  NAME-truncated.rec     cut in the middle of its last data chunk (a killed writer)
  NAME-flipped.rec       one byte flipped inside a middle chunk (checksum mismatch)
  NAME-no-trailer.rec    the 16-byte trailer dropped (index chunk present, unreferenced)
  NAME-killed.rec        index chunk and trailer dropped (writer killed before close)
  NAME-records.bin       "RECS" structured input: the chunks' decompressed records
                         joined by "|CHUNK|", the index last (flags 3: finished,
                         index offsets fixed up by the target); trimmed to stay
                         small: at most 10 events per chunk, one routing sample
                         in all (the first recording's); run starts and ends,
                         keyframes and the index kept
and once: garbage.bin, future-version.rec (minimum readable version 9).

The container layout is the one documented in core/session/chunk_file.h.
Decompression uses the `zstd` command-line tool.
"""
import struct
import subprocess
import sys
from pathlib import Path

HEADER = 16
CHUNK_HEADER = 32
TRAILER = 16


def chunks(data):
    """(offset, stored_length) of every chunk, index chunk included."""
    (meta,) = struct.unpack_from("<I", data, 12)
    at = HEADER + meta
    end = len(data) - TRAILER if data.endswith(b"SYNIDX\r\n") else len(data)
    out = []
    while at + CHUNK_HEADER <= end:
        assert data[at:at + 4] == b"CHNK", f"no chunk at byte {at}"
        (stored,) = struct.unpack_from("<I", data, at + 4)
        out.append((at, stored))
        at += CHUNK_HEADER + stored
    return out


def raw(data, offset, stored):
    body = data[offset + CHUNK_HEADER:offset + CHUNK_HEADER + stored]
    return subprocess.run(["zstd", "-d", "-c", "-q"], input=body, check=True, capture_output=True).stdout


RECORD_EVENT, RECORD_ROUTING = 1, 2  # pb::Record's field numbers (events.proto)


def varint(b, i):
    value = shift = 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return value, i


routing_left = 1  # in the whole corpus: a routing sample is ~3 KB


def trimmed(pieces):
    """The length-delimited records of each piece, fewer events and routing samples."""
    global routing_left
    out = []
    for piece in pieces:
        kept, events, i = [], 0, 0
        while i < len(piece):
            length, j = varint(piece, i)
            record = piece[i:j + length]
            field = piece[j] >> 3 if length else 0
            i = j + length
            if field == RECORD_EVENT:
                events += 1
                if events > 10:
                    continue
            elif field == RECORD_ROUTING:
                if routing_left == 0:
                    continue
                routing_left -= 1
            kept.append(record)
        out.append(b"".join(kept))
    return out


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for path in map(Path, sys.argv[2:]):
        data = path.read_bytes()
        name = path.stem
        cs = chunks(data)
        assert data.endswith(b"SYNIDX\r\n") and len(cs) >= 3, f"{path}: want a finished recording of 3+ chunks"
        index_at = cs[-1][0]
        last_data = cs[-2]
        middle = cs[(len(cs) - 1) // 2]
        (out / f"{name}.rec").write_bytes(data)
        (out / f"{name}-truncated.rec").write_bytes(data[:last_data[0] + (CHUNK_HEADER + last_data[1]) // 2])
        flipped = bytearray(data)
        flipped[middle[0] + CHUNK_HEADER + middle[1] // 2] ^= 0x5A
        (out / f"{name}-flipped.rec").write_bytes(bytes(flipped))
        (out / f"{name}-no-trailer.rec").write_bytes(data[:-TRAILER])
        (out / f"{name}-killed.rec").write_bytes(data[:index_at])
        pieces = trimmed([raw(data, o, s) for o, s in cs])
        (out / f"{name}-records.bin").write_bytes(b"RECS\x03" + b"|CHUNK|".join(pieces))
    (out / "garbage.bin").write_bytes(b"this is not a recording at all\n" * 4)
    future = bytearray((out / f"{Path(sys.argv[2]).stem}.rec").read_bytes())
    future[10:12] = struct.pack("<H", 9)
    (out / "future-version.rec").write_bytes(bytes(future))


if __name__ == "__main__":
    main()
