"""The public tokenizer: special-token partition, one encoder per fragment, BOS/EOS/SEP, decoding.

``Tokenizer`` follows llama.cpp's ``llama_vocab::impl::tokenize`` (llama-vocab.cpp:3418-3658):
partition the input at special tokens (``special/partition.py``), encode each raw fragment independently
with the family's encoder, then add BOS/EOS/SEP as llama.cpp does for that family (``llama_vocab::impl::tokenize``):

=============  =========================  =======================  ==========================
family         BOS                        EOS                      SEP
=============  =========================  =======================  ==========================
SPM, UGM, BPE  add_special and add_bos    add_special and add_eos  never
WPM            add_special (always)       never                    add_special (always)
RWKV, PLaMo2,  never                      never                    never
TEST
=============  =========================  =======================  ==========================

Encoders are imported lazily from a registry so opening a file costs only the vocab build.

Which code paths the encoders take is one switch, ``paths`` (``core/paths.py``): ``"auto"`` (the
default, tuned sizes), ``"eager"`` (every fast path from the smallest input: tests reach the
big-input code with short texts) or ``"reference"`` (no fast path: the family's named reference,
``<family>/reference.py``). All three give the same ids (``tests/tokenizer/test_paths.py``); the
environment variable ``TUI_TOK_PATHS`` sets the default.

>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> tok = Tokenizer.from_metadata({"tokenizer.ggml.model": "llama",
...     "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "▁", "h", "i", "▁h", "▁hi"],
...     "tokenizer.ggml.scores": [0, 0, 0, -1, -2, -3, -4, -5],
...     "tokenizer.ggml.token_type": [2, 3, 3, 1, 1, 1, 1, 1]})
>>> tok.encode("hi")
[1, 7]
>>> tok.decode([7]), tok.decode([1, 7])  # llama.cpp strips the leading space of the first piece only
('hi', ' hi')
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

import numpy as np

from tui_tok.errors import TokenizeError, UnsupportedTokenizerError, VocabError
from tui_tok.tokenizer.core.decode import PieceTable
from tui_tok.tokenizer.core.encoder import Encoder, Fragments, Wrapped
from tui_tok.tokenizer.core.gc_pause import gc_paused
from tui_tok.tokenizer.core.paths import Paths, PathsMode, paths_for
from tui_tok.tokenizer.core.stream import StreamDecoder
from tui_tok.tokenizer.core.tokens import Tokens
from tui_tok.tokenizer.core.types import (
    PieceArrays,
    TokenAttr,
    TokenKind,
    VocabType,
    piece_arrays,
)
from tui_tok.tokenizer.core.vocab import MODEL_TYPES, Vocab, vocab_from_metadata
from tui_tok.tokenizer.special.partition import RAW, SpecialPartitioner

ENCODERS: dict[VocabType, tuple[str, str]] = {
    VocabType.SPM: ("tui_tok.tokenizer.spm.encoder", "SpmEncoder"),
    VocabType.BPE: ("tui_tok.tokenizer.bpe.encoder", "BpeEncoder"),
    VocabType.UGM: ("tui_tok.tokenizer.ugm.encoder", "UgmEncoder"),
    VocabType.WPM: ("tui_tok.tokenizer.wpm.encoder", "WpmEncoder"),
    VocabType.RWKV: ("tui_tok.tokenizer.rwkv.encoder", "RwkvEncoder"),
    VocabType.PLAMO2: ("tui_tok.tokenizer.plamo2.encoder", "Plamo2Encoder"),
    VocabType.TEST: ("tui_tok.tokenizer.test.reference", "ReferenceEncoder"),
}
"""Family -> (module, class) of its ``Encoder``; a family's named reference is ``ReferenceEncoder``
in ``reference.py`` beside that module (TEST's encoder is its reference: it has no fast path)."""
R = TypeVar("R")

_CONTROL = int(TokenAttr.CONTROL)
_UNKNOWN = int(TokenAttr.UNKNOWN)
_USER_DEFINED = int(TokenAttr.USER_DEFINED)
_BYTE = int(TokenAttr.BYTE)


Part = tuple[int, int, int, bool]
"""One step of ``Tokenizer.fragments``: (start, end, token, after_special). ``token`` is ``RAW`` for
a raw fragment the family's encoder encodes, else the token's id (an added BOS/EOS/SEP covers no
input: start == end); ``after_special``: a raw fragment starts the text or follows a special token
(SPM's space prefix). A plain tuple: a code file cut by gemma's whitespace tokens has ~30k."""


class Tokenizer:
    """llama.cpp-exact text <-> ids for one vocab.

    Can be shared between threads (CPython): its caches only gain entries whose value does not
    depend on the thread (a race at worst computes one twice), what hands out ids (new merge
    symbols) or builds a shared table runs under a lock, and per-call state stays in the call
    (``tests/tokenizer/test_threads.py``). A ``StreamDecoder`` has state: use one per stream. ``tokenize`` of a long
    input pauses the cyclic garbage collector while it runs (and re-enables it only if it was on).

    ``paths`` chooses the encoder's code paths, all giving the same ids: ``"auto"`` (default, or
    ``$TUI_TOK_PATHS``) takes each fast path from its tuned input size, ``"eager"`` from the smallest
    input, ``"reference"`` never (the family's ``reference.py``). Every threshold is
    named in ``core/paths.py``.
    """

    def __init__(self, vocab: Vocab, *, paths: PathsMode | Paths | None = None) -> None:
        """``paths``: ``"auto"``, ``"eager"`` or ``"reference"`` (module docstring), or a ``Paths``;
        None: ``$TUI_TOK_PATHS``, else ``"auto"``."""
        if vocab.type is VocabType.NONE:
            raise VocabError(f"this file has no vocabulary (tokenizer.ggml.model = {vocab.model!r})")
        self.vocab = vocab
        """The loaded vocabulary (tokens, attributes, special ids, flags)."""
        self.paths = paths_for(paths)
        """The code paths the encoder takes (``core/paths.py``)."""
        self._new_encoder = _encoder_factory(vocab, self.paths)
        self._encoder: Encoder | None = None
        self._partitioner = SpecialPartitioner(vocab)
        self._pieces = PieceTable(vocab)
        self._kinds: list[TokenKind] | None = None

    @classmethod
    def from_vocab(cls, vocab: Vocab, *, paths: PathsMode | Paths | None = None) -> Tokenizer:
        return cls(vocab, paths=paths)

    @classmethod
    def from_metadata(cls, meta: Mapping[str, Any], *, paths: PathsMode | Paths | None = None) -> Tokenizer:
        """Build from GGUF-style metadata (key -> value), as ``vocab_from_metadata`` reads it."""
        return cls(vocab_from_metadata(meta), paths=paths)

    def prepare(self) -> None:
        """Build now the tables that are otherwise built on first need (the encoder's merge-rank
        index and batch tables, the special-token matchers), as llama.cpp builds its own at load.
        Encoding gives the same ids either way; this only moves the cost (e.g. before a paste)."""
        self.encoder.prepare()
        for parse_special in (False, True):
            self._partitioner.prepare(parse_special=parse_special)

    @property
    def encoder(self) -> Encoder:
        """The family's fragment encoder (built on first use; the named reference in ``"reference"`` mode)."""
        if self._encoder is None:
            self._encoder = self._new_encoder()
        return self._encoder

    @property
    def partitioner(self) -> SpecialPartitioner:
        return self._partitioner

    # --- encoding -----------------------------------------------------------------------------

    def fragments(self, data: bytes, *, add_special: bool = True, parse_special: bool = False) -> list[Part]:
        """What ``encode`` emits, in order: the added BOS, the special tokens and raw fragments of
        the partition (``special/partition.py``), the added EOS/SEP; each raw fragment with
        whether it follows a special token or starts the text (``after_special``: SPM's space
        prefix). The one fragment loop: every encoding call walks it (and explain may)."""
        v = self.vocab
        bos, eos, sep = self._added(add_special)
        out: list[Part] = [(0, 0, _need(v.bos_id, "BOS", v), False)] if bos else []
        after_special = True
        for start, end, tid in self._partitioner.partition(data, parse_special=parse_special):
            out.append((start, end, tid, after_special and tid == RAW))
            after_special = tid != RAW
        n = len(data)
        if eos:
            out.append((n, n, _need(v.eos_id, "EOS", v), False))
        if sep:
            out.append((n, n, _need(v.sep_id, "SEP", v), False))
        return out

    def encode(self, text: str | bytes, *, add_special: bool = True, parse_special: bool = False) -> list[int]:
        """Token ids exactly as llama.cpp's ``llama_tokenize`` gives them.

        ``text`` may be ``str`` (encoded as UTF-8) or raw ``bytes``.
        """
        data = _as_bytes(text)
        with gc_paused(len(data)):
            enc = self.encoder
            parts = self.fragments(data, add_special=add_special, parse_special=parse_special)
            if len(parts) == 1 and parts[0][2] == RAW and enc.FRESH_IDS:
                # the caller may own the encoder's new list: no copy of a big text's ids (Encoder)
                return enc.encode_fragment_ids(data[parts[0][0] : parts[0][1]], after_special=True)
            out: list[int] = []
            encoded = _raw_results(data, parts, enc.encode_fragments_ids, enc.encode_fragment_ids)
            for _, _, token, _ in parts:
                if token != RAW:
                    out.append(token)
                else:
                    out += next(encoded)
            return out

    def tokenize(self, text: str | bytes, *, add_special: bool = True, parse_special: bool = False) -> Tokens:
        """Tokens with byte spans into the UTF-8 input and a display kind: an immutable sequence of
        ``Token`` kept as columns (``core/tokens.py``), each ``Token`` built when it is read; its
        ``ids``, ``starts`` and ``ends`` are ``tokenize_arrays``' arrays.

        Added BOS/EOS/SEP have empty spans (at 0 and at the end). Whitespace that an
        LSTRIP/RSTRIP special token swallowed belongs to no token.
        """
        return Tokens(
            *self.tokenize_arrays(text, add_special=add_special, parse_special=parse_special), self._kind_table()
        )

    def tokenize_arrays(
        self, text: str | bytes, *, add_special: bool = True, parse_special: bool = False
    ) -> PieceArrays:
        """``tokenize``'s columns as three new (writable) int64 arrays: ids, byte starts, byte ends
        (kinds: ``token_kinds``). No object per token: a 10 MB text has ~3M tokens, which as
        ``Token`` tuples cost hundreds of MB and keep the garbage collector busy. Encoders that override
        ``encode_fragments_arrays`` (BPE, WPM, RWKV) give columns directly.
        """
        data = _as_bytes(text)
        with gc_paused(len(data)):
            enc = self.encoder
            parts = self.fragments(data, add_special=add_special, parse_special=parse_special)
            columns: list[PieceArrays] = []
            encoded = _raw_results(data, parts, enc.encode_fragments_arrays, None)
            for start, end, token, _ in parts:
                if token != RAW:
                    columns.append(_one(token, start, end))
                    continue
                found = next(encoded)
                columns.append((found[0], found[1] + start, found[2] + start) if start else found)
            return concat_arrays(columns)

    def tokenize_arrays_pieces(
        self, text: str | bytes, *, add_special: bool = True, parse_special: bool = False, piece_chars: int = 100_000
    ) -> Iterator[PieceArrays]:
        """``tokenize_arrays`` in consecutive pieces (``concat_arrays`` of them is its result),
        each about ``piece_chars`` characters of text: between pieces a caller may stop, report
        progress or let other threads run (a 10 MB text is seconds of work). Pieces are cut only
        where the encoder proves a cut exact (``Encoder.fragment_arrays_pieces``); a text
        with special tokens, or a family without such cuts, comes as one piece."""
        data = _as_bytes(text)
        parts = self.fragments(data, add_special=add_special, parse_special=parse_special)
        raw = [p for p in parts if p[2] == RAW]
        if len(raw) != 1 or any(start < end for start, end, token, _ in parts if token != RAW):  # special tokens
            yield self.tokenize_arrays(data, add_special=add_special, parse_special=parse_special)
            return
        for start, end, token, _ in parts:
            if token == RAW:  # the whole text (no special token in it): offsets need no shift
                yield from self.encoder.fragment_arrays_pieces(data[start:end], piece_chars=piece_chars)
            else:
                yield _one(token, start, end)

    def _added(self, add_special: bool) -> tuple[bool, bool, bool]:
        """Whether llama.cpp adds (BOS, EOS, SEP) for this family (``llama_vocab::impl::tokenize``)."""
        v = self.vocab
        if v.type in (VocabType.SPM, VocabType.UGM, VocabType.BPE):
            return add_special and v.add_bos, add_special and v.add_eos, False
        if v.type is VocabType.WPM:
            return add_special, False, add_special
        return False, False, False

    # --- decoding -----------------------------------------------------------------------------

    def token_to_piece(self, token_id: int, *, special: bool = True, lstrip: int = 0) -> bytes:
        """One token's bytes (llama.cpp ``token_to_piece``); may be partial UTF-8."""
        return self._pieces.token_to_piece(token_id, special=special, lstrip=lstrip)

    def detokenize(self, ids: Iterable[int], *, remove_special: bool = False, unparse_special: bool = False) -> bytes:
        """llama.cpp ``detokenize``: bytes of the concatenated pieces after its clean-ups."""
        return self._pieces.detokenize(ids, remove_special=remove_special, unparse_special=unparse_special)

    def decode(self, ids: Iterable[int], *, remove_special: bool = False, unparse_special: bool = False) -> str:
        """``detokenize`` decoded as UTF-8, invalid bytes as U+FFFD."""
        return self.detokenize(ids, remove_special=remove_special, unparse_special=unparse_special).decode(
            "utf-8", "replace"
        )

    def stream_decoder(self, *, special: bool = True) -> StreamDecoder:
        """An incremental decoder that yields text only for complete UTF-8 characters."""
        return StreamDecoder(self._pieces, special=special)

    def token_kind(self, token_id: int) -> TokenKind:
        self._pieces.attr(token_id)  # range check
        return self._kind_table()[token_id]

    def token_kinds(self) -> list[TokenKind]:
        """The display kind of every id, then one more entry, ``UNKNOWN``, so that index -1
        (the null id llama.cpp's WPM and RWKV emit when the vocab has no unknown token) reads
        as unknown too. The list is shared: do not change it."""
        return self._kind_table()

    def _kind_table(self) -> list[TokenKind]:
        if self._kinds is None:
            attrs = self.vocab.attrs.tolist()
            for a in set(attrs):
                _kind(a)  # fills _KIND_CACHE, so the lookup below runs at C level
            kinds = list(map(_KIND_CACHE.__getitem__, attrs))
            v = self.vocab
            unk = v.unk_id
            if 0 <= unk < len(kinds) and unk not in (
                v.bos_id,
                v.eos_id,
                v.eot_id,
                v.eom_id,
                v.sep_id,
                v.pad_id,
                v.mask_id,
            ):
                # the unknown token is what text no piece covers became, whatever its type says
                # (BERT's [UNK] is CONTROL in its GGUF, so it would show as a special token); but
                # GPT-NeoX-style files name <|endoftext|> as BOS, EOS and UNK at once: special
                kinds[unk] = TokenKind.UNKNOWN
            # last: id -1, which llama.cpp's WPM and RWKV emit for text no piece covers when the
            # vocab has no unknown token (kinds[-1] must not be the last real token's kind)
            kinds.append(TokenKind.UNKNOWN)
            self._kinds = kinds
        return self._kinds


_KIND_CACHE: dict[int, TokenKind] = {}


def _kind(attr: int) -> TokenKind:
    """Display class of a token from its attribute bits (CONTROL wins over the others)."""
    k = _KIND_CACHE.get(attr)
    if k is None:
        if attr & _CONTROL:
            k = TokenKind.SPECIAL
        elif attr & _UNKNOWN:
            k = TokenKind.UNKNOWN
        elif attr & _USER_DEFINED:
            k = TokenKind.USER_DEFINED
        elif attr & _BYTE:
            k = TokenKind.BYTE
        else:
            k = TokenKind.NORMAL
        _KIND_CACHE[attr] = k
    return k


def as_bytes(text: str | bytes) -> bytes:
    """The bytes ``encode`` and ``tokenize`` see for ``text`` (spans are offsets into them)."""
    return _as_bytes(text)


def _as_bytes(text: str | bytes) -> bytes:
    """UTF-8 of ``text``; lone surrogates U+DC80-DCFF stand for raw bytes (``surrogateescape``),
    other lone surrogates become their 3-byte encodings (which llama.cpp decodes leniently).
    Only text and bytes-like objects: ``bytes(5)`` is five NUL bytes and ``bytes([104, 105])``
    is ``b"hi"``, neither of which a caller passing an int or a list of ids meant."""
    if not isinstance(text, str):
        if isinstance(text, bytes):
            return text
        if isinstance(text, (bytearray, memoryview)):
            return bytes(text)
        raise TypeError(f"text must be str or bytes, not {type(text).__name__}")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return b"".join(
            c.encode("utf-8", "surrogateescape" if 0xDC80 <= ord(c) <= 0xDCFF else "surrogatepass") for c in text
        )


def _one(token_id: int, start: int, end: int) -> PieceArrays:
    return np.array([token_id]), np.array([start]), np.array([end])


def concat_arrays(columns: list[PieceArrays]) -> PieceArrays:
    """Consecutive ``PieceArrays`` as one (int64)."""
    if not columns:
        return piece_arrays([])
    return tuple(np.concatenate([c[k] for c in columns]).astype(np.int64, copy=False) for k in range(3))  # type: ignore[return-value]


def _need(token_id: int, what: str, vocab: Vocab) -> int:
    if token_id < 0:
        raise TokenizeError(f"the vocab wants a {what} token but has no {what} id (llama.cpp asserts here)")
    return token_id


def _raw_results(
    data: bytes, parts: list[Part], many: Callable[[Fragments], list[R]], one: Callable[..., R] | None
) -> Iterator[R]:
    """The encoding of each raw fragment of ``parts`` (``Tokenizer.fragments``), in order: a lone
    one by ``one(text, after_special=...)`` (when given), several by one ``many`` call, which lets
    the encoder batch the new words of all of them (user-defined tokens may cut a text into
    thousands). A fragment that repeats with the same ``after_special`` is encoded once and its
    result shared (gemma's whitespace tokens cut code into lines that repeat): callers only read it."""
    raw = [(data[start:end], after) for start, end, token, after in parts if token == RAW]
    if len(raw) == 1 and one is not None:
        return iter((one(raw[0][0], after_special=raw[0][1]),))
    if len(raw) < 2:
        return iter(many(raw) if raw else ())
    distinct = list(dict.fromkeys(raw))
    if len(distinct) == len(raw):
        return iter(many(raw))
    return map(dict(zip(distinct, many(distinct))).__getitem__, raw)


def _encoder_factory(vocab: Vocab, paths: Paths) -> Callable[[], Encoder]:
    """What builds the encoder: in ``"reference"`` mode the family's ``ReferenceEncoder``
    (``<family>/reference.py``; wrapped as an ``Encoder`` unless it is one), else its encoder."""
    if paths.mode == "reference":
        module = importlib.import_module(ENCODERS[vocab.type][0].rpartition(".")[0] + ".reference")
        reference: Any = module.ReferenceEncoder  # a class taking the vocab
        if issubclass(reference, Encoder):
            return lambda: reference(vocab)  # type: ignore[no-any-return]
        return lambda: Wrapped(reference(vocab))
    cls: Any = _encoder_class(vocab)
    return lambda: cls(vocab, paths=paths)  # type: ignore[no-any-return]


def _encoder_class(vocab: Vocab) -> type:
    module_name, class_name = ENCODERS[vocab.type]
    try:
        module = importlib.import_module(module_name)
        return getattr(module, class_name)  # type: ignore[no-any-return]
    except (ImportError, AttributeError) as exc:
        supported = [m for m, t in MODEL_TYPES.items() if t in ENCODERS and _available(m)]
        raise UnsupportedTokenizerError("tokenizer.ggml.model", vocab.model, supported) from exc


def _available(model: str) -> bool:
    module_name, class_name = ENCODERS[MODEL_TYPES[model]]
    try:
        return hasattr(importlib.import_module(module_name), class_name)
    except ImportError:
        return False
