"""A big ``--text`` in a real terminal: ``python -m benchmarks big_text [--size MB] [--keys N] [GGUF ...]``.

What a user waits for with ``tui-tok MODEL --text FILE`` and a 10 MB file, measured on the
terminal itself (tmux, 120x40, a session of its own), not headless: the headless paste
benchmark (``big_input``) does not see the start-up path (reading the text, the editor's first
layout, the first tokenization).

The text: ``corpus.build_corpus`` (prose, code, multilingual) at ``--size`` MB (default 10),
written to a temporary file. Per vocabulary, each from a fresh process:

- ``encode``: wall time of ``tui-tok encode MODEL --file F --ids`` (start-up and load included);
- the app started in tmux, ``tmux capture-pane`` polled: ``paint``, the first time anything is
  drawn; ``text``, when the file's first line is on the screen (the Tokenize view is up);
  ``count``, when the exact token count (``N tokens``, computed here with ``Tokenizer.encode``
  and the view's toggles: BOS/EOS on, parse special off) is shown;
- ``keys``: ``2 x --keys`` characters (default 3) typed at the cursor (the text's start) one at a
  time, the first half as soon as the tokens are coloured (the index and lint builds then run
  in the background), the second half once the lint is done (its result in the header); each
  is chosen so that the exact count of the edited text differs from the one shown before it,
  and timed from ``send-keys`` until the pane shows that new exact count (the count and the
  token colours are drawn in the same frame);
- ``rss``: the app's peak resident memory (``VmHWM`` of /proc/PID/status) after the keys.

Goals (issue 30): paint <= 0.5 s, count <= 1.5x ``encode``, each key <= 100 ms, RSS < 600 MB.
The pane is polled every ~10 ms (each ``capture-pane`` costs a few ms): times are good to ~15 ms.
Defaults: qwen3 (BPE) from assets/, gemma3 (SPM) from ../shared/data, t5 (UGM), bert-bge (WPM)
and rwkv-world from assets/.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = (
    ROOT / "assets" / "qwen3-vocab.gguf",
    ROOT.parent / "shared" / "data" / "gemma3-270m-vocab.gguf",
    ROOT / "assets" / "t5-botchan-en-unigram-1000.gguf",
    ROOT / "assets" / "ggml-vocab-bert-bge.gguf",
    ROOT / "assets" / "rwkv-world-vocab.gguf",
)
KEY_CHOICES = ",x!7#(é"
"""Characters tried, in order, for each key (the first that changes the exact count)."""
TIMEOUT_S = 120.0
BUSY = ("colouring…", "tokenizing…", "counting…", "loading")
"""Words of the stats line (and the loading screen) while the app is still at work."""
LINTED = ("lint clean", "error", "warning")
"""The header once the lint (the last background build) is done."""


def _pane(session: str) -> str:
    out = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True)
    return out.stdout


def _wait(session: str, done, start: float, timeout: float = TIMEOUT_S) -> float | None:  # type: ignore[no-untyped-def]
    """Seconds from ``start`` until ``done(pane)`` holds (None: timed out or the app ended)."""
    while True:
        pane = _pane(session)
        now = time.perf_counter()
        if done(pane):
            return now - start
        if now - start > timeout or not _alive(session):
            return None
        time.sleep(0.005)


def _alive(session: str) -> bool:
    return subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode == 0


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _app_pid(session: str) -> int:
    out = subprocess.run(
        ["tmux", "display-message", "-p", "-t", session, "#{pane_pid}"], capture_output=True, text=True
    )
    return int(out.stdout.strip())


def _encode_cli(model: Path, path: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tui_tok", "encode", str(model), "--file", str(path), "--ids"],
                   check=True, stdout=subprocess.DEVNULL, cwd=ROOT)  # fmt: skip
    return time.perf_counter() - start


def _expected(model: Path, text: str, n_keys: int) -> tuple[int, list[tuple[str, int]]]:
    """The count of ``text`` as the view shows it, and ``n_keys`` characters typed at its start,
    each with the exact count after it (each differs from the one before)."""
    from tui_tok.loader import load_tokenizer
    from tui_tok.ui.app import open_model

    tok = load_tokenizer(open_model(model))
    count = lambda t: len(tok.encode(t, add_special=True, parse_special=False))  # noqa: E731
    base = last = count(text)
    keys: list[tuple[str, int]] = []
    typed = ""
    for _ in range(n_keys):
        for ch in KEY_CHOICES:
            # typed at the cursor, which moves right after each key
            n = count(typed + ch + text)
            if n != last:
                typed += ch
                keys.append((ch, n))
                last = n
                break
        else:
            raise RuntimeError(f"{model.name}: no key of {KEY_CHOICES!r} changes the count")
    return base, keys


def _run_app(model: Path, path: Path, first_line: str, count: int, keys: list[tuple[str, int]]) -> dict[str, object]:
    session = f"bigtext-bench-{os.getpid()}"
    env = f"PYTHONPATH={ROOT}"
    # BIG_TEXT_RUN replaces "-m tui_tok", e.g. "-m memray run -o out.bin -m tui_tok": a profiler around the app
    run = os.environ.get("BIG_TEXT_RUN", "-m tui_tok")
    command = f"cd {ROOT} && exec env {env} {sys.executable} {run} {model} --text {path}"
    start = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", command], check=True)
    out: dict[str, object] = {}
    try:
        pid = _app_pid(session)
        out["paint"] = _wait(session, lambda p: p.strip() != "", start)
        probe = first_line.strip()[:40]
        out["text"] = _wait(session, lambda p: probe in p, start)
        shown = f"{count:,} tokens"
        out["count"] = _wait(session, lambda p: shown in p, start)
        _wait(session, lambda p: not any(w in p for w in BUSY), time.perf_counter(), timeout=60)  # coloured
        times = []
        for i, (ch, n) in enumerate(keys):
            if i == len(keys) // 2:  # the second half once the background builds are done too
                _wait(session, lambda p: any(w in p.splitlines()[0] for w in LINTED), time.perf_counter(), timeout=120)
                time.sleep(0.5)
            want = f"{n:,} tokens"
            t0 = time.perf_counter()
            subprocess.run(["tmux", "send-keys", "-t", session, "-l", ch], check=True)
            times.append(_wait(session, lambda p, want=want: want in p, t0, timeout=30))
            time.sleep(0.3)
        out["keys"] = times
        out["rss"] = _peak_rss_mb(pid)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    return out


def _fmt(x: object, unit: str = "s") -> str:
    if x is None:
        return "timeout"
    if unit == "ms":
        return f"{float(x) * 1000:.0f} ms"  # type: ignore[arg-type]
    return f"{float(x):.2f} s"  # type: ignore[arg-type]


def main(argv: list[str]) -> int:
    if "-h" in argv or "--help" in argv:
        print(__doc__.split("\n\n")[0].split(": ")[0].replace("``", ""))
        print("usage: python -m benchmarks big_text [--size MB] [--keys N] [GGUF ...]")
        return 0
    if shutil.which("tmux") is None:
        print("big_text: tmux is not installed", file=sys.stderr)
        return 2
    size, n_keys = 10.0, 3
    if "--size" in argv:
        i = argv.index("--size")
        size = float(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    if "--keys" in argv:
        i = argv.index("--keys")
        n_keys = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    models = [Path(a) for a in argv] or [p for p in DEFAULTS if p.exists()]
    from benchmarks.corpus import build_corpus

    text = build_corpus(int(size * 1_000_000))
    first_line = next(line for line in text.splitlines() if line.strip())
    print(f"text: {len(text.encode()):,} bytes ({len(text):,} characters); tmux 120x40")
    print(
        "| vocab | encode --file | first paint | text shown | exact count (x encode) | keys: new exact count shown (while the lint runs; after it) | peak RSS |"
    )
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.txt"
        path.write_bytes(text.encode())
        for model in models:
            count, keys = _expected(model, text, 2 * n_keys)
            encode = _encode_cli(model, path)
            app = _run_app(model, path, first_line, count, keys)
            shown = app["count"]
            ratio = f" ({float(shown) / encode:.2f}x)" if shown is not None else ""  # type: ignore[arg-type]
            key_times = app["keys"]
            assert isinstance(key_times, list)
            half = len(key_times) // 2
            keys_note = "; ".join(
                " / ".join(_fmt(k, "ms") for k in part) for part in (key_times[:half], key_times[half:])
            )
            done = [k for k in key_times[half:] if k is not None]
            if done:
                keys_note += f" (idle median {statistics.median(done) * 1000:.0f} ms)"
            print(
                f"| {model.name} ({count:,} tokens) | {encode:.2f} s | {_fmt(app['paint'])} | {_fmt(app['text'])} | "
                f"{_fmt(shown)}{ratio} | {keys_note} | {float(app['rss']):.0f} MB |"  # type: ignore[arg-type]
            )
    return 0
