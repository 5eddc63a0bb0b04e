"""Hostile compressed input: a stream of many members read member by member in a few buffers, a
bomb refused a few megabytes into it whatever its size, a capture behind a blank lead-in read as
the plain file is. Each run is a process of its own under a 4 GB address-space limit
(tests/hostile_support.py), its time judged against a small run's."""

from __future__ import annotations

import bz2
import gzip
import json
import random

import pytest
from conftest import EXAMPLES
from hostile_support import assert_linear, assert_refused, assert_survived, run

# Slow: each case a process of its own, decompression bombs among them (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow


def _members(tmp_path, count: int, padding: int):
    """``count`` gzip members, each ``padding`` bytes of N-Quads comment lines (ids, compressing
    about as a capture does) and one trace of its own; and the same text, plain."""
    trace = (EXAMPLES / "graph-rag.nq").read_bytes()
    rng = random.Random(count)
    texts = []
    for number in range(count):
        lines = b"".join(b"# %032x %032x\n" % (rng.getrandbits(128), rng.getrandbits(16))
                         for _ in range(padding // 70))
        texts.append(lines + trace.replace(b"1b3949f2", f"{number:08x}".encode()))
    packed = tmp_path / "members.nq.gz"
    packed.write_bytes(b"".join(gzip.compress(text, 6) for text in texts))
    plain = tmp_path / "members.nq"
    plain.write_bytes(b"".join(texts))
    return packed, plain


def test_ten_concatenated_gzip_members_read_in_under_100_mb(tmp_path):
    # The rest of the input was kept twice when a member ended (zlib's unused_data and
    # unconsumed_tail), doubling at every member: ten members took 3 to 4.7 GB and ended in a false
    # "single token too long"; two that each expand past 1 MiB were "a decompression bomb".
    packed, plain = _members(tmp_path, 10, 4 << 20)
    baseline = run("lint", "--format", "json", str(plain))
    read = run("lint", "--format", "json", str(packed))
    assert_survived(read)
    assert read.status == baseline.status == 0, read.err
    summary = json.loads(read.stdout)["summary"]
    assert summary["traces"] == 10 and summary == json.loads(baseline.stdout)["summary"], summary
    # What reading the members costs beyond reading the plain text: under 100 MB.
    assert read.peak - baseline.peak < 100 << 20, (read.peak >> 20, baseline.peak >> 20)
    (tmp_path / "two").mkdir()
    two, _ = _members(tmp_path / "two", 2, 2 << 20)
    assert run("lint", str(two)).status == 0


def test_a_bomb_is_refused_a_few_megabytes_in_whatever_its_size(tmp_path):
    # The budget was 200 times the whole file, reached only once that much was decompressed and
    # parsed (a 31 MB bzip2: 6.3 GB parsed, 297 s); now it is 200 times what was read so far.
    line = b"<urn:trustgraph:question:x> <https://trustgraph.ai/ns/query> \"the same line again\" .\n"
    member = bz2.compress(line * ((8 << 20) // len(line)), 9)  # 8 MiB in 3 KB
    small = tmp_path / "small.nq.bz2"
    small.write_bytes(member * 10)
    large = tmp_path / "large.nq.bz2"
    large.write_bytes(member * 1000)  # 3 MB that expand to 8 GB: 600 MB were parsed before
    first = run("lint", str(small))
    line_ = assert_refused(first, "small.nq.bz2", "a decompression bomb")
    assert "expands more than 200 times what was read of it" in line_ and "--max-expansion" in line_
    hundred_times = run("lint", str(large))
    assert_refused(hundred_times, "large.nq.bz2", "a decompression bomb")
    # A hundred times the input, refused at the same point: no more time at all.
    assert_linear(first, hundred_times, 1, run("lint", str(EXAMPLES / "graph-rag.nq")))
    # The bound is an option: raised, what it refused is read.
    two = tmp_path / "two.nq.bz2"
    two.write_bytes(member * 2)
    assert_refused(run("lint", str(two)), "two.nq.bz2", "a decompression bomb")
    assert run("lint", "--max-expansion", "100000", str(two)).status in (0, 1)


def test_a_capture_after_a_blank_lead_in_reads_as_the_plain_file(tmp_path):
    # The first megabyte decompressed was blank: "is gzip-compressed and empty".
    text = b"\n" * (1 << 20) + b" \t\n" * 100_000 + (EXAMPLES / "orchestrator-react-one-shot.nq").read_bytes()
    plain = tmp_path / "capture.nq"
    plain.write_bytes(text)
    expected = run("lint", "--format", "concise", "--no-config", str(plain))
    for name, data in (("capture.nq.gz", gzip.compress(text)), ("capture", gzip.compress(text)),
                       ("capture.bz2", bz2.compress(text))):
        path = tmp_path / name
        path.write_bytes(data)
        got = run("lint", "--format", "concise", "--no-config", str(path))
        assert got.status == expected.status == 0, got.err
        assert got.stdout.replace(name.encode(), b"capture.nq") == expected.stdout
    piped = run("lint", "--no-config", "-", stdin=gzip.compress(text))
    assert piped.status == 0, piped.err
