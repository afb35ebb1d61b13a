"""A Hugging Face ``tokenizer.json`` as the other side of a comparison, through the optional ``tokenizers`` package.

``tokenizers`` is not a run-time dependency: ``load_hf`` raises a one-line ``TuiTokError`` naming
``pip install 'tui-tok[hf]'`` when it is missing. The GGUF and its original share one id space, so
tokens are compared by id (``CompareBy = "id"``); spans come from the encoding's character
offsets turned into byte offsets, and pieces are the tokenizer.json's own token texts (``Ġ``/``▁``
and ``<0xHH>`` turned back into bytes), so a token stored differently in the two files shows.

Like llama.cpp's test-tokenizer-random.py, HF always matches added tokens in the text: compare it
with the GGUF's ``parse_special=True``.

Does not read ``tokenizer.model`` (SentencePiece) files, only ``tokenizer.json``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from tui_tok.errors import ComparisonError
from tui_tok.explore.diff.text_diff import DiffToken

MISSING = (
    "comparing with Hugging Face needs the 'tokenizers' package: pip install 'tui-tok[hf]' "
    "(in a clone: pip install -e '.[hf]')"
)
"""Quoted so that shells that glob ``[...]`` (zsh) take it as typed; an installed tui-tok (editable
or not) satisfies the first form, which then only adds the extra's ``tokenizers``."""
NORMAL_FORMS = ("NFC", "NFD", "NFKC", "NFKD")
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def _gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's printable stand-in of each byte (``Ġ`` for a space) back to the byte."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


@dataclass(frozen=True, slots=True)
class AddedTokenInfo:
    """An added token of tokenizer.json, with the flags llama.cpp may not honour."""

    id: int
    content: str
    lstrip: bool
    rstrip: bool
    normalized: bool
    special: bool


@dataclass(eq=False)
class HfTokenizer:
    """A loaded ``tokenizer.json`` (``tokenizers.Tokenizer``) plus what its JSON says about it."""

    path: Path
    """The tokenizer.json read."""
    tk: Any
    """The ``tokenizers.Tokenizer``."""
    spec: dict[str, Any]
    """The parsed JSON (normalizer, pre-tokenizer, decoder...)."""
    config: dict[str, Any] = field(default_factory=dict)
    """tokenizer_config.json beside it, when there is one."""

    @cached_property
    def normal_forms(self) -> tuple[str, ...]:
        """Unicode normalizations the normalizer runs (``("NFC",)`` for Qwen3)."""
        return tuple(t for t in _types(self.spec.get("normalizer")) if t in NORMAL_FORMS)

    @cached_property
    def byte_level(self) -> bool:
        """Whether token texts are GPT-2 byte-level strings."""
        return "ByteLevel" in _types(self.spec.get("pre_tokenizer")) + _types(self.spec.get("decoder"))

    @cached_property
    def added(self) -> tuple[AddedTokenInfo, ...]:
        return tuple(AddedTokenInfo(i, t.content, t.lstrip, t.rstrip, t.normalized, t.special)
                     for i, t in sorted(self.tk.get_added_tokens_decoder().items()))  # fmt: skip

    @cached_property
    def _added_ids(self) -> frozenset[int]:
        return frozenset(a.id for a in self.added)

    @cached_property
    def _byte_decoder(self) -> dict[str, int]:
        return _gpt2_byte_decoder()

    def encode(self, text: str, *, add_special: bool = True) -> list[int]:
        return list(self.tk.encode(text, add_special_tokens=add_special).ids)

    def token_text(self, token_id: int) -> str | None:
        """The token's text as tokenizer.json stores it (None for an unknown id)."""
        text = self.tk.id_to_token(token_id)
        return None if text is None else str(text)

    def piece(self, token_id: int) -> bytes:
        """What the token stands for, as bytes (``Ġ``, ``▁`` and ``<0xHH>`` undone)."""
        text = self.token_text(token_id)
        if text is None:
            return b""
        if token_id in self._added_ids:
            return text.encode("utf-8")
        if self.byte_level:
            dec = self._byte_decoder
            if all(ch in dec for ch in text):
                return bytes(dec[ch] for ch in text)
            return text.encode("utf-8")
        m = _BYTE_PIECE.fullmatch(text)
        if m:
            return bytes([int(m.group(1), 16)])
        return text.replace("▁", " ").encode("utf-8")

    def tokens(self, data: bytes, *, add_special: bool = True) -> tuple[DiffToken, ...]:
        """The encoding of ``data`` (valid UTF-8) as diff tokens with byte spans."""
        text = decode_utf8(data)
        enc = self.tk.encode(text, add_special_tokens=add_special)
        starts = [0]
        for ch in text:
            starts.append(starts[-1] + len(ch.encode("utf-8", "surrogatepass")))
        n = len(text)
        return tuple(DiffToken(int(i), starts[min(s, n)], starts[min(e, n)], self.piece(int(i)))
                     for i, (s, e) in zip(enc.ids, enc.offsets))  # fmt: skip

    def vocab_words(self) -> list[str]:
        """Every token's text as plain text (for the fuzzer's vocabulary words), sorted."""
        words = set()
        for tid in range(self.tk.get_vocab_size(with_added_tokens=True)):
            w = self.piece(tid).decode("utf-8", "ignore")
            if w:
                words.add(w)
        return sorted(words)

    def stored_texts(self) -> list[str]:
        """The token texts as stored (``▁▁``, ``Ġhello``)."""
        return list(self.tk.get_vocab(with_added_tokens=True))


def decode_utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ComparisonError(
            f"text: byte {exc.start}: not UTF-8, which a Hugging Face tokenizer cannot take"
        ) from None


_MAX_TOKENIZER_JSON = 256 * 1024 * 1024
"""Gemma 3's tokenizer.json is 33 MB."""


def load_hf(source: str | Path) -> HfTokenizer:
    """Read a ``tokenizer.json`` (or a folder holding one, with its tokenizer_config.json)."""
    from tui_tok.json_input import JSONInputError, load_json, read_file

    try:
        from tokenizers import Tokenizer as HfRaw
    except ImportError:
        raise ComparisonError(MISSING) from None
    path = Path(source)
    if path.is_dir():
        path = path / "tokenizer.json"
    try:  # bounded: a FIFO, a huge or deeply nested file is one line (128 deep: serde_json's own limit)
        raw = read_file(path, max_bytes=_MAX_TOKENIZER_JSON)
    except JSONInputError as exc:
        raise ComparisonError(f"{path}: {exc}") from None
    try:
        raw_text = raw.decode("utf-8")
        spec = load_json(raw, max_bytes=_MAX_TOKENIZER_JSON, max_depth=128, max_containers=1 << 24)
    except UnicodeDecodeError as exc:
        raise ComparisonError(f"{path}: not a tokenizer.json: {exc}") from None
    except JSONInputError as exc:
        raise ComparisonError(f"{path}: not a tokenizer.json: {exc}") from None
    try:
        tk = HfRaw.from_str(raw_text)
    except Exception as exc:  # the Rust side raises plain Exceptions
        raise ComparisonError(f"{path}: tokenizers cannot load it: {exc}") from None
    config: dict[str, Any] = {}
    cfg = path.with_name("tokenizer_config.json")
    if cfg.is_file():
        try:
            config = load_json(read_file(cfg))
        except JSONInputError:
            config = {}
    return HfTokenizer(path, tk, spec if isinstance(spec, dict) else {}, config)


def _types(node: Any) -> tuple[str, ...]:
    """Every ``type`` in a normalizer/pre-tokenizer tree (Sequences flattened)."""
    if not isinstance(node, dict):
        return ()
    out = [str(node.get("type"))]
    for key in ("normalizers", "pretokenizers", "decoders"):
        for child in node.get(key) or ():
            out += _types(child)
    return tuple(out)
