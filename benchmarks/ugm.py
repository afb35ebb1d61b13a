"""UGM (T5 / XLM-R unigram) speed: ``python -m benchmarks ugm [--size MB] [--file F] [vocab.gguf ...]``.

Prints, per vocab: load time, search-table build, cold encode (fresh unit cache: every distinct
unit is normalised and searched once), warm encode (same text again) and the faithful byte path
on a 20 KB slice, in MB/s of input. CPU times (``time.process_time``), so a busy machine skews
them less. Default vocabs: the bundled T5 asset and ../shared's nomic-bert-moe (250k tokens).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = [ROOT / "assets" / "t5-botchan-en-unigram-1000.gguf", ROOT.parent / "shared" / "vocabs" / "ggml-vocab-nomic-bert-moe.gguf"]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks ugm")
    ap.add_argument("vocabs", nargs="*", type=Path)
    ap.add_argument("--size", type=float, default=0.5, help="corpus size in MB (built-in mixed corpus)")
    ap.add_argument("--file", type=Path, help="encode this file instead")
    args = ap.parse_args(argv)

    from benchmarks.pretokenize import corpus
    from tui_tok.loader import load_tokenizer
    from tui_tok.tokenizer.ugm import UgmEncoder

    data = args.file.read_bytes() if args.file else corpus(int(args.size * 1e6)).encode()
    mb = len(data) / 1e6
    print(f"corpus: {mb:.2f} MB")
    for path in args.vocabs or [p for p in DEFAULTS if p.is_file()]:
        t0 = time.process_time()
        tok = load_tokenizer(path)
        t1 = time.process_time()
        enc = UgmEncoder(tok.vocab)
        enc.encode_fragment(b"warm up", after_special=False)
        t2 = time.process_time()
        n = len(enc.encode_fragment(data, after_special=False))
        t3 = time.process_time()
        enc.encode_fragment(data, after_special=False)
        t4 = time.process_time()
        part = data[:20_000]
        enc.encode_reference(part)
        t5 = time.process_time()
        print(
            f"{path.name:40s} load {t1 - t0:5.2f}s  tables {t2 - t1:5.2f}s  tokens {n}  units {len(enc._cache)}\n"
            f"{'':40s} cold {mb / (t3 - t2):5.2f} MB/s  warm {mb / (t4 - t3):5.2f} MB/s  "
            f"faithful path {len(part) / 1e6 / (t5 - t4):5.3f} MB/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
