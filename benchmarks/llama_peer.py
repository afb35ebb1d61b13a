"""llama.cpp's own SPM/BPE encode speed beside ours: same corpus, same machine, same minute.

The speed targets (BPE >= 2 MB/s, SPM >= 1.2 MB/s) were quoted as "what llama.cpp does here",
but this machine's speed drifts by 3x over a day. So this runs llama.cpp's tokenize code itself
(``tests/fixtures/llama_bpe_oracle.py``: the SPM and BPE sessions, ``tokenizer_st_partition``
and ``llama_vocab::impl::tokenize`` copied verbatim from llama-vocab.cpp, compiled -O2 -DNDEBUG
once into ``build/llama-peer``) and ours on the ~0.5 MB corpus (``corpus.py``), interleaved run
by run so both see the same load, and prints the ratio.

Per vocab (all SPM and BPE vocabs of ``tests/support.py``'s ``vocab_files()``), ``--repeat``
rounds (default 3) of: llama.cpp ``impl.tokenize(corpus, add_special=false, parse_special=false)``
timed with std::chrono around that call only; ours cold (``load_tokenizer`` then
``encode(data, add_special=False)`` timed, fresh caches); ours "tables ready" (a fresh tokenizer
after ``Tokenizer.prepare()`` and one short sentence, so the lazily built tables exist, as
llama.cpp's do after its load, but the word caches are nearly empty). Medians are printed. The ids of llama.cpp's first run are checked against our
cold ones ("ids equal", or the first mismatch): a whole-corpus conformance check.

Columns: ``tables s`` is llama.cpp's table build from strings in memory (token_to_id, bpe_ranks,
special-token cache; no GGUF reading), ``load s`` ours (``load_tokenizer``, GGUF reading
included); neither is in the MB/s figures. ``part %`` is roughly the share of llama.cpp's time spent in
the special-token partition (user-defined tokens are split out even with parse_special=false),
from one partition-only call before the timed runs. That partition walks a linked list from
its head at every match (quadratic in matches), so its time also depends on where the heap put
the list nodes: on a fragmented heap the same call took twice as long.

What it leaves out: the other families (``python -m benchmarks wpm`` does WPM/RWKV), GGUF
reading on llama.cpp's side, multi-threading (none on either side).

    python -m benchmarks llama_peer [--only NAME ...] [--size MB] [--repeat N]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.corpus import build_corpus  # noqa: E402
from benchmarks.encode import calibration_ms  # noqa: E402
from fixtures import llama_bpe_oracle as oracle  # noqa: E402
from support import vocab_files  # noqa: E402

BINARY = Path(os.environ.get("TUI_TOK_LLAMA_PEER", ROOT / "build" / "llama-peer"))
WARM_UP = b"Tables first: the quick brown fox jumps over the lazy dog."

PEER_MAIN = r"""
// argv: VOCABFILE CORPUSFILE IDSFILE. Prints "LOAD seconds n_special", then "PART seconds n_fragments"
// (tokenizer_st_partition of the corpus alone, once, before any tokenize); then for each stdin line
// tokenizes the whole corpus as llama_tokenize does (add_special=false, parse_special=false) and
// prints "TIME seconds n_ids"; the first run's ids go to IDSFILE (int32).
int main(int argc, char ** argv) {
    if (argc != 4) { std::cerr << "usage: llama-peer VOCABFILE CORPUSFILE IDSFILE\n"; return 2; }
    using clock = std::chrono::steady_clock;
    llama_vocab vocab;
    llama_vocab::impl impl(vocab);
    double load = 0;
    try {
        load = read_vocab(argv[1], vocab, impl);
    } catch (const std::exception & e) {
        std::cout << "ERR " << e.what() << std::endl;
        return 0;
    }
    std::ifstream cf(argv[2], std::ios::binary);
    const std::string corpus((std::istreambuf_iterator<char>(cf)), std::istreambuf_iterator<char>());
    std::cout << "LOAD " << load << " " << impl.cache_special_tokens.size() << std::endl;
    {
        const auto t0 = clock::now();
        std::forward_list<fragment_buffer_variant> buffer;
        if (!corpus.empty()) {
            buffer.emplace_front(corpus, 0, corpus.length());
            impl.tokenizer_st_partition(buffer, false);
        }
        const auto t1 = clock::now();
        std::cout << "PART " << std::chrono::duration<double>(t1 - t0).count() << " "
                  << std::distance(buffer.begin(), buffer.end()) << std::endl;
    }
    std::string line;
    bool first = true;
    while (std::getline(std::cin, line)) {
        try {
            const auto t0 = clock::now();
            const std::vector<llama_token> ids = impl.tokenize(corpus, false, false);
            const auto t1 = clock::now();
            if (first) {
                std::ofstream of(argv[3], std::ios::binary);
                of.write((const char *) ids.data(), ids.size() * sizeof(llama_token));
                first = false;
            }
            std::cout << "TIME " << std::chrono::duration<double>(t1 - t0).count() << " " << ids.size() << std::endl;
        } catch (const std::exception & e) {
            std::cout << "ERR " << e.what() << std::endl;
        }
    }
    return 0;
}
"""


def ensure_binary() -> Path | None:
    """Build ``build/llama-peer`` unless it is current; None (after one line saying why) if it cannot be."""
    return oracle.build_current(PEER_MAIN, BINARY, skipped="llama_peer: skipped")


class Peer:
    """A running ``llama-peer`` with a vocab and the corpus loaded; each ``run()`` tokenizes once."""

    def __init__(self, exe: Path, vocab_file: Path, corpus_file: Path, ids_file: Path) -> None:
        self.ids_file = ids_file
        self.proc = subprocess.Popen([str(exe), str(vocab_file), str(corpus_file), str(ids_file)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
        words = self._line().split()
        self.load_seconds, self.n_special = float(words[1]), int(words[2])
        words = self._line().split()
        self.partition_seconds, self.n_fragments = float(words[1]), int(words[2])

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"llama-peer exited (code {self.proc.wait()})")
        if line.startswith("ERR"):
            raise RuntimeError(f"llama.cpp: {line[4:].strip()}")
        return line

    def run(self) -> float:
        """Seconds of one ``impl.tokenize`` of the whole corpus (partition + sessions)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        return float(self._line().split()[1])

    def ids(self) -> np.ndarray:
        return np.fromfile(self.ids_file, dtype=np.int32)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def first_mismatch(ours: list[int], theirs: np.ndarray, tokens: list[str]) -> str:
    """ "ids equal (n)" or where the two id lists first differ, with the pieces around it."""
    mine = np.asarray(ours, dtype=np.int64)
    n = min(len(mine), len(theirs))
    diff = np.flatnonzero(mine[:n] != theirs[:n])
    if not len(diff) and len(mine) == len(theirs):
        return f"ids equal ({len(mine)})"
    i = int(diff[0]) if len(diff) else n

    def show(ids: np.ndarray) -> str:
        return " ".join(f"{int(t)}:{tokens[int(t)]!r}" for t in ids[i : i + 3])

    return f"MISMATCH at id #{i} of {len(mine)}/{len(theirs)}: ours {show(mine)} | llama {show(theirs)}"


def _timed_encode(path: Path, data: bytes, *, warm_up: bool) -> tuple[float, float, list[int]]:
    """(load seconds, encode seconds, ids) for a freshly loaded tokenizer."""
    from tui_tok.loader import load_tokenizer

    gc.collect()
    t0 = time.perf_counter()
    tok = load_tokenizer(path)
    t1 = time.perf_counter()
    if warm_up:
        tok.prepare()
        tok.encode(WARM_UP, add_special=False)
        gc.collect()
        t1 = time.perf_counter()
    ids = tok.encode(data, add_special=False)
    return t1 - t0, time.perf_counter() - t1, ids


@dataclass(frozen=True, slots=True)
class Row:
    """Medians for one vocab."""

    name: str
    family: str
    llama_tables_s: float
    """llama.cpp's table build (strings in memory -> maps); not in any MB/s."""
    ours_load_s: float
    """``load_tokenizer`` (GGUF reading included); not in any MB/s."""
    llama_mbps: float
    partition_share: float
    """``tokenizer_st_partition`` alone (once, before the runs) / the median tokenize time."""
    cold_mbps: float
    ready_mbps: float
    ids: str
    """``first_mismatch`` of llama.cpp's first run against our first cold run."""

    @property
    def ratio(self) -> float:
        """Ours cold / llama.cpp: 1.0 means as fast as llama.cpp on this machine right now."""
        return self.cold_mbps / self.llama_mbps

    def line(self) -> str:
        return (f"{self.name:24s} {self.family:4s} {self.llama_tables_s:8.2f} {self.ours_load_s:7.2f} "
                f"{self.llama_mbps:9.2f} {100 * self.partition_share:6.1f} {self.cold_mbps:9.2f} "
                f"{self.ready_mbps:9.2f} {self.ratio:6.2f}  {self.ids}")  # fmt: skip


def bench_vocab(
    exe: Path, name: str, path: Path, vocab: Any, data: bytes, corpus_file: Path, *, repeat: int, tmp: Path
) -> Row:
    """Interleaved rounds of llama.cpp / ours cold / ours tables-ready on one vocab."""
    vocab_file = oracle.write_vocab_file(vocab, tmp / "vocab.txt")
    peer = Peer(exe, vocab_file, corpus_file, tmp / "ids.bin")
    llama: list[float] = []
    loads, colds, readies = [], [], []
    check = ""
    try:
        for _ in range(repeat):
            llama.append(peer.run())
            load_s, cold_s, ids = _timed_encode(path, data, warm_up=False)
            loads.append(load_s)
            colds.append(cold_s)
            readies.append(_timed_encode(path, data, warm_up=True)[1])
            if not check:
                check = first_mismatch(ids, peer.ids(), vocab.tokens)
    finally:
        peer.close()
    mb = len(data) / 1e6
    return Row(
        name=name,
        family=vocab.type.value,
        llama_tables_s=peer.load_seconds,
        ours_load_s=statistics.median(loads),
        llama_mbps=mb / statistics.median(llama),
        partition_share=peer.partition_seconds / statistics.median(llama),
        cold_mbps=mb / statistics.median(colds),
        ready_mbps=mb / statistics.median(readies),
        ids=check,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks llama_peer", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=0.5, help="corpus size in MB (default 0.5)")
    parser.add_argument("--only", nargs="*", default=None, help="vocab names (default: all SPM and BPE vocabs)")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds per vocab (median; default 3)")
    args = parser.parse_args(argv)

    from tui_tok.errors import TuiTokError
    from tui_tok.loader import load_tokenizer

    exe = ensure_binary()
    if exe is None:
        return 0
    data = build_corpus(int(args.size * 1_000_000)).encode()
    print(f"corpus {len(data) / 1e6:.3f} MB; calibration sum(range(10**6)) = {calibration_ms():.1f} ms; "
          f"medians of {args.repeat} interleaved rounds; MB/s exclude load")  # fmt: skip
    print(f"{'vocab':24s} {'fam':4s} {'tables s':>8s} {'load s':>7s} {'llama':>9s} {'part %':>6s} "
          f"{'ours cold':>9s} {'ours rdy':>9s} {'ratio':>6s}  ids (llama.cpp vs ours cold)")  # fmt: skip
    ratios: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="llama-peer-") as tmp_name:
        tmp = Path(tmp_name)
        corpus_file = tmp / "corpus.txt"
        corpus_file.write_bytes(data)
        for vf in vocab_files():
            if args.only and vf.name not in args.only:
                continue
            try:
                vocab = load_tokenizer(vf.path).vocab
                if vocab.type.value not in ("spm", "bpe"):
                    continue
                row = bench_vocab(exe, vf.name, vf.path, vocab, data, corpus_file, repeat=max(args.repeat, 1), tmp=tmp)
            except (TuiTokError, RuntimeError) as exc:
                print(f"{vf.name:24s} skipped: {exc}", flush=True)
                continue
            ratios.setdefault(row.family, []).append(row.ratio)
            print(row.line(), flush=True)
    for family, values in sorted(ratios.items()):
        print(f"{family}: ours cold / llama.cpp, median over {len(values)} vocabs: {statistics.median(values):.2f}")
    print(f"calibration after: {calibration_ms():.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
