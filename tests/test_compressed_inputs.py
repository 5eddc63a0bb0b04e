"""Compressed and binary input: a gzip, bzip2 or xz capture reads as the plain file does (the same
findings, lines and excerpts), recognised by its name or its first bytes; zstd, damage, a
decompression bomb and binary content are each one line naming the file and what it is (exit 2)."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from tgtrace.cli import main

COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


class Result:
    def __init__(self, result):
        self.returncode, self.stdout, self.stderr = result.exit_code, result.stdout_bytes, result.stderr_bytes


def run(*args, cwd, stdin: bytes | None = None) -> Result:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE"):
            patch.delenv(name, raising=False)
        return Result(CliRunner().invoke(main, [*args, "--no-config"], input=stdin))


def faulty(name: str) -> bytes:
    """An example in which T001 fires (a termination reason spelt with an underscore): a finding
    with a line and an excerpt."""
    data = (EXAMPLES / name).read_bytes().replace(b"final-answer", b"final_answer")
    assert data != (EXAMPLES / name).read_bytes()
    return data


def one_error_line(result) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    assert not result.stdout
    (line,) = result.stderr.decode().splitlines()
    assert "Traceback" not in line
    return line


@pytest.mark.parametrize("example", ["orchestrator-react-one-shot.nq", "orchestrator-react-one-shot.json",
                                     "explain-stream.jsonl"])
@pytest.mark.parametrize("compression", sorted(COMPRESS))
def test_a_compressed_capture_reads_as_the_plain_file(tmp_path, example, compression):
    plain = tmp_path / example
    plain.write_bytes(faulty(example))
    packed = tmp_path / f"{example}.{compression}"
    packed.write_bytes(COMPRESS[compression](plain.read_bytes()))
    expected = run("lint", plain.name, cwd=tmp_path)
    got = run("lint", packed.name, cwd=tmp_path)
    assert expected.returncode == got.returncode == 1, got.stderr
    text = expected.stdout.decode()
    assert "T001" in text and "^^^^" in text, "the finding comes with its excerpt"
    assert got.stdout.decode().replace(packed.name, plain.name) == text


def test_compressed_content_is_known_by_its_first_bytes(tmp_path):
    data = faulty("orchestrator-react-one-shot.nq")
    (tmp_path / "capture").write_bytes(gzip.compress(data))
    (tmp_path / "capture.bin").write_bytes(lzma.compress(data))
    for name in ("capture", "capture.bin"):
        result = run("lint", name, "--format", "concise", cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        assert f"{name}:19: T001" in result.stdout.decode()
    # Standard input, too.
    piped = run("lint", "-", "--format", "concise", cwd=tmp_path, stdin=bz2.compress(data))
    assert piped.returncode == 1 and "<stdin>:19: T001" in piped.stdout.decode(), piped.stderr


def test_a_directory_lints_its_compressed_captures(tmp_path):
    (tmp_path / "captures").mkdir()
    (tmp_path / "captures" / "day.nq.gz").write_bytes(gzip.compress(faulty("orchestrator-react-one-shot.nq")))
    result = run("lint", "captures", "--format", "concise", cwd=tmp_path)
    assert result.returncode == 1 and "day.nq.gz:19: T001" in result.stdout.decode(), result.stderr


def test_binary_content_is_named_not_parsed(tmp_path):
    elf = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4
    (tmp_path / "binary.bin").write_bytes(elf)
    line = one_error_line(run("lint", "binary.bin", cwd=tmp_path))
    assert line.startswith("tg-trace: binary.bin: is an ELF executable (first bytes 7f 45 4c 46"), line
    assert "not a trace" in line and "prefix" not in line
    # Whatever the name says, and whatever the bytes are.
    (tmp_path / "trace.nq").write_bytes(b"\x00\x01\x02garbage\xff\xfe" * 50)
    line = one_error_line(run("lint", "trace.nq", cwd=tmp_path))
    assert line.startswith("tg-trace: trace.nq: is binary content (first bytes 00 01 02"), line
    # Binary content inside a compressed file is named with its compression.
    (tmp_path / "image.gz").write_bytes(gzip.compress(b"\x89PNG\r\n\x1a\n" + bytes(1000)))
    line = one_error_line(run("lint", "image.gz", cwd=tmp_path))
    assert line.startswith("tg-trace: image.gz: is gzip-compressed: a PNG image"), line


def test_zstd_is_named_and_refused(tmp_path):
    zstd_frame = b"\x28\xb5\x2f\xfd\x24\x05\x29\x00\x00hello"  # a zstd frame's magic and header
    (tmp_path / "capture.nq.zst").write_bytes(zstd_frame)
    line = one_error_line(run("lint", "capture.nq.zst", cwd=tmp_path))
    assert line.startswith("tg-trace: capture.nq.zst: is zstd-compressed, which tg-trace cannot read"), line
    assert "zstd -d" in line


@pytest.mark.parametrize("compression", sorted(COMPRESS))
def test_damaged_compressed_input_is_one_line(tmp_path, compression):
    packed = COMPRESS[compression](faulty("supervisor.nq"))
    (tmp_path / "cut.nq.x").write_bytes(packed[:len(packed) * 2 // 3])
    line = one_error_line(run("lint", "cut.nq.x", cwd=tmp_path))
    assert line.startswith("tg-trace: cut.nq.x: is "), line
    assert "truncated" in line or "damaged" in line, line


def test_a_decompression_bomb_is_refused(tmp_path):
    # 40 MiB of comment lines compress to about 40 KiB: 1,000 times, where N-Quads compress 20.
    (tmp_path / "bomb.nq.gz").write_bytes(gzip.compress(b"# comment\n" * (4 << 20), compresslevel=9))
    line = one_error_line(run("lint", "bomb.nq.gz", cwd=tmp_path))
    assert "a decompression bomb, refused" in line and "bomb.nq.gz" in line, line


def test_a_compressed_capture_of_many_members_reads_whole(tmp_path):
    """pigz and ``cat a.gz b.gz`` write several gzip members: each is read, in order."""
    data = faulty("orchestrator-react-one-shot.nq")
    cut = data.index(b"\n", len(data) // 2) + 1
    (tmp_path / "parts.nq.gz").write_bytes(gzip.compress(data[:cut]) + gzip.compress(data[cut:]))
    (tmp_path / "whole.nq").write_bytes(data)
    whole = run("lint", "whole.nq", "--format", "concise", cwd=tmp_path).stdout.decode()
    parts = run("lint", "parts.nq.gz", "--format", "concise", cwd=tmp_path).stdout.decode()
    assert parts.replace("parts.nq.gz", "whole.nq") == whole


def test_the_loader_reads_compressed_input_in_python(tmp_path):
    from tgtrace.inputs.loaders import load

    path = Path(tmp_path / "trace.nt.xz")
    path.write_bytes(lzma.compress((EXAMPLES / "graph-rag.nq").read_bytes()))
    (item,) = load(path, "nquads")
    assert item.graph().statements == sum(1 for line in (EXAMPLES / "graph-rag.nq").read_text().splitlines()
                                               if line.strip() and not line.startswith("#"))


def test_text_with_a_stray_byte_is_still_text(tmp_path):
    """A Latin-1 byte or a raw control character in a literal is a fault of a text file: the parser
    names its line, rather than the file being called binary."""
    lines = (EXAMPLES / "graph-rag.nq").read_bytes().splitlines(keepends=True)
    (tmp_path / "latin1.nq").write_bytes(b"".join(lines[:2]) + b'<urn:x> <urn:p> "caf\xe9" .\n' + b"".join(lines[2:]))
    line = one_error_line(run("lint", "latin1.nq", cwd=tmp_path))
    assert line.startswith("tg-trace: latin1.nq:3: ") and "binary" not in line, line
    (tmp_path / "escape.nq").write_bytes(b"".join(lines) + b'<urn:x> <urn:p> "a\x1bb" .\n')
    result = run("lint", "escape.nq", cwd=tmp_path)
    assert result.returncode in (0, 1) and b"binary" not in result.stderr, result.stderr


def test_a_byte_order_mark_inside_the_compression_is_dropped(tmp_path):
    data = b"\xef\xbb\xbf" + faulty("orchestrator-react-one-shot.nq")
    (tmp_path / "marked.nq.gz").write_bytes(gzip.compress(data))
    result = run("lint", "marked.nq.gz", "--format", "concise", cwd=tmp_path)
    assert result.returncode == 1 and "marked.nq.gz:19: T001" in result.stdout.decode(), result.stderr
