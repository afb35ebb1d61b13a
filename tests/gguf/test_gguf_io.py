"""Files that change or are not files: a GGUF file shrinking while it is read (SIGBUS with a
mapping), FIFOs with and without a writer, pipes, devices, /proc files. Each runs tui-tok in a
subprocess with a timeout, so a hang or a signal fails the test instead of stalling the suite."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from support import ASSETS, ROOT
from tui_tok.gguf import read_gguf, write_gguf
from tui_tok.gguf.writer import field_value

QWEN3 = ASSETS / "qwen3-vocab.gguf"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _run(code: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout, env=ENV, cwd=ROOT
    )


def _cli(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui_tok", *args], capture_output=True, text=True, timeout=timeout, env=ENV, cwd=ROOT
    )


def _one_line(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == "" and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    return r.stderr


# Truncates the file once the header is parsed, just before the token strings are read (both the
# old mapped reader and the new one read them through this name), then runs `tui-tok info`.
SHRINK = """
import os, sys
import tui_tok.gguf.reader as reader
from tui_tok.cli import main
path = sys.argv[1]
real = reader.read_string_array
def shrink_then_read(*args, **kwargs):
    os.truncate(path, 4096)
    return real(*args, **kwargs)
reader.read_string_array = shrink_then_read
sys.exit(main(["info", path]))
"""


def test_file_shrinking_during_read_is_not_sigbus(tmp_path: Path) -> None:
    """The mapped reader died of SIGBUS (exit -7, no message) here; now the bytes were read
    before the truncation (whole, for a file this size): a consistent answer or one line."""
    p = tmp_path / "v.gguf"
    p.write_bytes(QWEN3.read_bytes())
    r = _run(SHRINK, str(p))
    assert r.returncode != -signal.SIGBUS, "killed by SIGBUS"
    assert r.returncode == 0 and "vocab size:      151,669" in r.stdout, r.stderr


def test_big_file_shrinking_between_reads_is_one_line(tmp_path: Path) -> None:
    """A file bigger than the first read (here made small), truncated after the header: the next
    read comes short and says the file shrank."""
    src = read_gguf(QWEN3)
    meta = {k: field_value(f) for k, f in src.fields.items()}
    p = write_gguf(tmp_path / "big.gguf", meta, tensors=[("w", (1024, 1024), 0)])
    code = "import tui_tok.gguf.source as s; s.LOCAL_FIRST_READ = s._BIG_FILE_FIRST = 65536\n" + SHRINK
    err = _one_line(_run(code, str(p)))
    assert "the file shrank while it was read" in err and str(p) in err


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    p = tmp_path / "f.gguf"
    os.mkfifo(p)
    return p


@pytest.mark.parametrize(
    "argv",
    [["info"], ["encode", "hi"], ["decode", "1"], ["export-vocab", "-o", "OUT"], []],
    ids=lambda a: a[0] if a else "explorer",
)
def test_fifo_without_writer_does_not_hang(fifo: Path, tmp_path: Path, argv: list[str]) -> None:
    args = [a.replace("OUT", str(tmp_path / "out.gguf")) for a in argv]
    err = _one_line(_cli(*args[:1], str(fifo), *args[1:], timeout=30))
    assert str(fifo) in err and "FIFO" in err


def test_fifo_with_a_writer_is_read_as_a_stream(fifo: Path) -> None:
    def writer() -> None:
        with open(fifo, "wb") as fh:
            try:
                fh.write(QWEN3.read_bytes())
            except BrokenPipeError:  # the reader stops once the metadata is in
                pass

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    r = _cli("info", str(fifo), timeout=30)
    t.join(timeout=10)
    assert r.returncode == 0, r.stderr
    assert "vocab size:      151,669" in r.stdout and "(a FIFO)" in r.stdout


def test_process_substitution_pipe() -> None:
    r = subprocess.run(
        ["bash", "-c", f'{sys.executable} -m tui_tok info <(cat "{QWEN3}")'],
        capture_output=True,
        text=True,
        timeout=30,
        env=ENV,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert "vocab size:      151,669" in r.stdout and "(a pipe)" in r.stdout


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/dev/null", "is a character device, not a GGUF file"),
        ("/proc/self/status", "a file whose size the system does not report"),
    ],
)
def test_devices_and_proc_files_say_what_they_are(path: str, expected: str) -> None:
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist here")
    err = _one_line(_cli("info", path))
    assert path in err and expected in err


def test_empty_file_and_directory(tmp_path: Path) -> None:
    (tmp_path / "e.gguf").write_bytes(b"")
    assert "the file is empty" in _one_line(_cli("info", str(tmp_path / "e.gguf")))
    assert "is a directory" in _one_line(_cli("info", str(tmp_path)))
