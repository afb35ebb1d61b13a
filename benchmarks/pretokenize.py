"""Pre-tokenizer split and special-token matcher speed: ``python -m benchmarks pretokenize [--size MB] [--repeat N] [vocab ...]``.

The corpus is ``benchmarks/corpus.py``'s (~0.5 MB of prose, code and multilingual text), decoded as
the BPE encoder decodes it. Per BPE vocab (default: every one in ../shared/vocabs and data, plus the
bundled assets), each in this one process:

- ``first``: the first ``split_words`` of the corpus (compiles the patterns and builds the tables,
  unless an earlier vocab with the same regex list already did), as MB/s;
- ``split``: the median of ``--repeat`` more, as MB/s (target: >= 10 MB/s);
- ``words``: how many words;
- ``matcher``: building the special-token matcher for both ``parse_special`` settings, in ms;
- ``partition``: cutting the corpus at special tokens (``parse_special=False``), in ms.

Run it before and after a change in the same minute (interleaved) and compare medians: the machine
is shared and noisy; the calibration figure says how loaded it was.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.corpus import build_corpus  # noqa: E402
from benchmarks.encode import calibration_ms  # noqa: E402
from support import vocab_files  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks pretokenize")
    parser.add_argument("--size", type=float, default=0.5, help="corpus size in MB (default 0.5)")
    parser.add_argument("--repeat", type=int, default=5, help="timed splits after the first (median)")
    parser.add_argument("vocabs", nargs="*", help="vocab names (default: every BPE vocab)")
    args = parser.parse_args(argv)

    from tui_tok.gguf.reader import read_gguf
    from tui_tok.tokenizer.bpe.encoder import BpeEncoder
    from tui_tok.tokenizer.core.types import VocabType
    from tui_tok.tokenizer.core.vocab import vocab_from_metadata
    from tui_tok.tokenizer.pretokenize.offsets import decode
    from tui_tok.tokenizer.pretokenize.split import split_words
    from tui_tok.tokenizer.special.partition import SpecialPartitioner

    data = build_corpus(int(args.size * 1_000_000)).encode()
    mb = len(data) / 1e6
    print(
        f"corpus {mb:.3f} MB; calibration sum(range(10**6)) = {calibration_ms():.1f} ms; split = median of {args.repeat}"
    )
    print(f"{'vocab':24s} {'pre':16s} {'first':>7s} {'split':>7s} {'words':>7s} {'matcher':>8s} {'partition':>9s}")
    splits = []
    for vf in vocab_files():
        if args.vocabs and vf.name not in args.vocabs:
            continue
        vocab = vocab_from_metadata(read_gguf(vf.path).metadata)
        if vocab.type != VocabType.BPE:
            continue
        regexes = BpeEncoder(vocab).spec.regexes
        text = decode(data, escape=vocab.escape_whitespaces, offsets=False)[0]
        t0 = time.perf_counter()
        words = split_words(text, regexes)
        first = time.perf_counter() - t0
        times = []
        for _ in range(max(args.repeat, 1)):
            t0 = time.perf_counter()
            split_words(text, regexes)
            times.append(time.perf_counter() - t0)
        split = statistics.median(times)
        splits.append(mb / split)
        parts = SpecialPartitioner(vocab)
        t0 = time.perf_counter()
        parts.prepare(parse_special=False)
        parts.prepare(parse_special=True)
        t1 = time.perf_counter()
        parts.partition(data, parse_special=False)
        t2 = time.perf_counter()
        pre = (vocab.pre or "(none)")[:16]
        print(f"{vf.name:24s} {pre:16s} {mb / first:7.1f} {mb / split:7.1f} {len(words):7d} {1000 * (t1 - t0):8.1f}"
              f" {1000 * (t2 - t1):9.1f}")  # fmt: skip
    if splits:
        print(f"split MB/s: median {statistics.median(splits):.1f}, slowest {min(splits):.1f}")
    print(f"calibration after: {calibration_ms():.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
