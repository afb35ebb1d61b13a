"""UGM (T5 / XLM-R unigram) speed: ``python -m benchmarks ugm [--size MB] [--file F] [--repeat N] [vocab.gguf ...]``.

Prints, per vocab: load time, search-table build, cold encode (a fresh encoder: its search
tables, the bulk-lookup hash and the letters built inside the timing), warm encode (same text
again) and the faithful byte path on a 20 KB slice, in MB/s of input. Cold and
warm are shown with spans (``encode_fragment``, what ``tokenize`` uses) and ids only
(``encode_fragment_ids``, what ``encode`` uses); cold figures are the median of ``--repeat``
fresh encoders. CPU times (``time.process_time``), so a busy machine skews them less. Default
vocabs: the bundled T5 asset and ../shared's nomic-bert-moe (250k tokens).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = [
    ROOT / "assets" / "t5-botchan-en-unigram-1000.gguf",
    ROOT.parent / "shared" / "vocabs" / "ggml-vocab-nomic-bert-moe.gguf",
]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks ugm")
    ap.add_argument("vocabs", nargs="*", type=Path)
    ap.add_argument("--size", type=float, default=0.5, help="corpus size in MB (built-in mixed corpus)")
    ap.add_argument("--file", type=Path, help="encode this file instead")
    ap.add_argument("--repeat", type=int, default=3, help="fresh encoders per cold figure (median; default 3)")
    args = ap.parse_args(argv)

    from benchmarks.corpus import build_corpus
    from tui_tok.loader import load_tokenizer
    from tui_tok.tokenizer.ugm.encoder import UgmEncoder

    data = args.file.read_bytes() if args.file else build_corpus(int(args.size * 1e6)).encode()
    mb = len(data) / 1e6
    print(f"corpus: {mb:.2f} MB")
    clock = time.process_time
    for path in args.vocabs or [p for p in DEFAULTS if p.is_file()]:
        t0 = clock()
        tok = load_tokenizer(path)
        t1 = clock()
        UgmEncoder(tok.vocab).tables  # noqa: B018 - timed: the table build alone
        t2 = clock()
        cold: dict[str, list[float]] = {"spans": [], "ids": []}
        for _ in range(max(args.repeat, 1)):
            for kind in cold:
                enc = UgmEncoder(tok.vocab)
                encode = enc.encode_fragment if kind == "spans" else enc.encode_fragment_ids
                a = clock()
                n = len(encode(data, after_special=False))
                cold[kind].append(clock() - a)
        a = clock()
        enc.encode_fragment(data, after_special=False)
        b = clock()
        enc.encode_fragment_ids(data, after_special=False)
        c = clock()
        part = data[:20_000]
        enc.encode_reference(part)
        d = clock()
        spans, ids = (mb / statistics.median(cold[k]) for k in ("spans", "ids"))
        print(
            f"{path.name:40s} load {t1 - t0:5.2f}s  tables {t2 - t1:5.2f}s  tokens {n}  units {len(enc._cache)}\n"
            f"{'':40s} cold {spans:5.2f} MB/s (ids only {ids:5.2f})  warm {mb / (b - a):5.2f} MB/s "
            f"(ids only {mb / (c - b):5.2f})  faithful path {len(part) / 1e6 / (d - c):5.3f} MB/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
