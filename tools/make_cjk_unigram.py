"""Train the CJK unigram vocabularies of ``benchmarks/data/`` and write them as llama.cpp "t5" GGUFs.

The UGM fast paths were tuned on English with 1,000 pieces; Japanese and Chinese with thousands
of pieces load the Viterbi lattice very differently, and no real CJK unigram tokenizer ships in
a package registry small enough to keep. So: text from ``benchmarks/cjk_text.py`` (seed 1, the
training text), a unigram model trained on it with the ``sentencepiece`` package (a dev tool
only: ``pip install sentencepiece``; never needed to run tui-tok or its tests), then written the
way llama.cpp's converter writes a T5 tokenizer (convert_hf_to_gguf.py, ``T5Model.set_vocab``:
pieces, scores, token types, ``add_dummy_prefix``, ``remove_extra_whitespaces`` and the
normalizer's ``precompiled_charsmap`` from the model proto).

Deterministic: the same text, ``num_threads=1`` and a fixed seed give the same file.

    python tools/make_cjk_unigram.py [--out-dir benchmarks/data] [--lang ja zh]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.cjk_text import cjk_text  # noqa: E402
from tui_tok.gguf.types import GGUFValue, GGUFValueType  # noqa: E402
from tui_tok.gguf.writer import write_gguf  # noqa: E402

VOCAB_SIZE = 8000
TRAIN_BYTES = 3_000_000
NAMES = {"ja": "ja-unigram-8000", "zh": "zh-unigram-8000"}

# sentencepiece's ModelProto.SentencePiece.Type -> llama.cpp's llama_token_type (gguf-py TokenType)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


def _fields(data: bytes) -> list[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) of one protobuf message; only the wire types sentencepiece uses."""
    out: list[tuple[int, int, int | bytes]] = []
    pos = 0

    def varint() -> int:
        nonlocal pos
        shift = value = 0
        while True:
            b = data[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return value

    while pos < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            out.append((number, wire, varint()))
        elif wire == 2:
            n = varint()
            out.append((number, wire, data[pos : pos + n]))
            pos += n
        elif wire == 5:
            out.append((number, wire, data[pos : pos + 4]))
            pos += 4
        elif wire == 1:
            out.append((number, wire, data[pos : pos + 8]))
            pos += 8
        else:
            raise ValueError(f"protobuf wire type {wire} at byte {pos}")
    return out


def _normalizer(model: bytes) -> tuple[bytes, bool, bool]:
    """(precompiled_charsmap, add_dummy_prefix, remove_extra_whitespaces) of ModelProto.normalizer_spec (field 3)."""
    charsmap, add_prefix, remove_ws = b"", True, True  # proto defaults
    for number, _, value in _fields(model):
        if number == 3 and isinstance(value, bytes):
            for n, _, v in _fields(value):
                if n == 2 and isinstance(v, bytes):
                    charsmap = v
                elif n == 3 and isinstance(v, int):
                    add_prefix = bool(v)
                elif n == 4 and isinstance(v, int):
                    remove_ws = bool(v)
    return charsmap, add_prefix, remove_ws


def train(lang: str, out_dir: Path) -> Path:
    import sentencepiece as spm  # dev tool only

    with tempfile.TemporaryDirectory() as tmp:
        text_file = Path(tmp) / "train.txt"
        text_file.write_text(cjk_text(lang, TRAIN_BYTES, seed=1), encoding="utf-8")
        prefix = str(Path(tmp) / "m")
        spm.SentencePieceTrainer.train(
            input=str(text_file), model_prefix=prefix, model_type="unigram", vocab_size=VOCAB_SIZE,
            character_coverage=0.9995, num_threads=1, seed_sentencepiece_size=200_000,
            shuffle_input_sentence=False, minloglevel=2,
        )  # fmt: skip
        model = Path(prefix + ".model").read_bytes()
    sp = spm.SentencePieceProcessor(model_proto=model)
    tokens, scores, types = [], [], []
    for i in range(sp.get_piece_size()):
        tokens.append(sp.id_to_piece(i))
        scores.append(sp.get_score(i))
        kind = NORMAL
        if sp.is_unknown(i):
            kind = UNKNOWN
        elif sp.is_control(i):
            kind = CONTROL
        elif sp.is_unused(i):
            kind = UNUSED
        elif sp.is_byte(i):
            kind = BYTE
        types.append(kind)
    charsmap, add_prefix, remove_ws = _normalizer(model)
    T = GGUFValueType
    metadata = {
        "general.architecture": "t5",
        "general.type": "model",
        "general.name": NAMES[lang],
        "tokenizer.ggml.model": "t5",
        "tokenizer.ggml.pre": "default",
        "tokenizer.ggml.tokens": GGUFValue(T.ARRAY, tokens, T.STRING),
        "tokenizer.ggml.scores": GGUFValue(T.ARRAY, scores, T.FLOAT32),
        "tokenizer.ggml.token_type": GGUFValue(T.ARRAY, types, T.INT32),
        "tokenizer.ggml.add_space_prefix": add_prefix,
        "tokenizer.ggml.remove_extra_whitespaces": remove_ws,
        "tokenizer.ggml.precompiled_charsmap": GGUFValue(T.ARRAY, list(charsmap), T.UINT8),
        "tokenizer.ggml.bos_token_id": GGUFValue(T.UINT32, sp.bos_id()),
        "tokenizer.ggml.eos_token_id": GGUFValue(T.UINT32, sp.eos_id()),
        "tokenizer.ggml.unknown_token_id": GGUFValue(T.UINT32, sp.unk_id()),
        "general.quantization_version": GGUFValue(T.UINT32, 2),
    }
    return write_gguf(out_dir / f"{NAMES[lang]}.gguf", metadata)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, default=ROOT / "benchmarks" / "data")
    parser.add_argument("--lang", nargs="*", choices=sorted(NAMES), default=sorted(NAMES))
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for lang in args.lang:
        path = train(lang, args.out_dir)
        print(f"{path}: {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
