"""Many UGM units at once: normalise each, search all together, map token ends back.

A *unit* of ``ugm/encoder.py`` is a separator followed by a word. Cold text brings thousands of
distinct units; one at a time, each costs a normaliser call and a Python Viterbi search.
Here:

* a word of plain ASCII bytes (``UgmNormalizer.plain_ascii_bytes``), or of characters that are
  each their own unchanged chunk (``WordForms.identity_text``), normalises to the space
  string followed by the word whenever the space string is emitted exactly once (with
  ``merge``, or without a pending prefix). Its normalised text is built directly, and a token
  ending at normalised byte ``b`` ends at input offset ``b - len(space) + 1`` (the space
  string stands for the one-byte separator; for ASCII, character ``c`` ends at ``c``);
* a word whose characters are each their own chunk but some are replaced (by text without a
  space: ``WordForms.replaced_text``) normalises to the space string and the joined
  replacements, with a map from output characters to input ends;
* any other word goes through ``UgmNormalizer.normalize`` as before;
* the normalised texts are searched together by ``ugm/pieces.py``, each distinct piece once.

Same results as ``UgmEncoder._encode_unit`` unit by unit (tested). Does not cut text into
units or join their tokens: see ``ugm/encoder.py``.

A fast path: what it computes equals ``ugm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate, compress, repeat

from tui_tok.tokenizer.ugm.batch import viterbi_batch
from tui_tok.tokenizer.ugm.hash import TokenHash
from tui_tok.tokenizer.ugm.pieces import viterbi_pieces
from tui_tok.tokenizer.ugm.tables import UgmTables
from tui_tok.tokenizer.ugm.words import WordForms

UnitResult = tuple[list[int], list[int], bool, int]
"""Token ids, token end offsets in the unit, is_space_prepended after it, normalised bytes."""


def encode_units(
    words: Sequence[bytes],
    *,
    flag: bool,
    forms: WordForms,
    tables: UgmTables,
    token_hash: TokenHash,
    unk_id: int,
) -> list[UnitResult] | None:
    """The result of each unit ``b" " + word`` normalised with ``is_space_prepended = flag``;
    None if some unit's normalised bytes are not valid UTF-8 (the caller takes a slower path).
    """
    normalizer = forms.normalizer
    space = normalizer.space
    space_str = space.decode("utf-8")
    merge, prepend = normalizer.merge, normalizer.prepend
    count = len(words)
    # the plain ASCII path for every word first (built with C-level maps), then the others
    texts = list(map(space_str.__add__, map(bytes.decode, words, repeat("latin-1"))))
    norm_lens = list(map(len(space).__add__, map(len, words)))
    if flag or not (merge or prepend):
        out_flags = [flag] * count
    else:
        out_flags = list(map(bool, words))
    left = map(len, map(bytes.translate, words, repeat(None), repeat(normalizer.plain_ascii_bytes)))
    plain_ok = merge or not (prepend and not flag)
    others = list(compress(range(count), left)) if plain_ok else list(range(count))
    if merge and plain_ok and b"" in words:  # a lone separator vanishes
        for k in [k for k, word in enumerate(words) if not word]:
            texts[k] = ""
            norm_lens[k] = 0
    generic: list[tuple[int, bytes, list[int]]] = []  # (unit index, normalised bytes, offsets)
    wide = False  # some unit on the fast path holds a non-ASCII character
    replaced: list[tuple[int, list[int]]] = []  # (unit index, input end per output character)
    for k in others:
        word = words[k]
        if plain_ok:
            same = forms.identity_text(word)
            if same is not None:
                texts[k] = space_str + same
                wide = True
                continue
            swap = forms.replaced_text(word)
            if swap is not None:
                out, out_ends, start = swap
                if out or not merge:
                    texts[k] = space_str + out
                    norm_lens[k] = len(space) + len(out.encode("utf-8"))
                    replaced.append((k, [0, start if merge else 1, *out_ends]))
                else:
                    texts[k] = ""
                    norm_lens[k] = 0
                out_flags[k] = flag or (bool(out) and merge)
                continue
        norm = normalizer.normalize(b" " + word, space_prepended=flag)
        try:
            texts[k] = norm.text.decode("utf-8")
        except UnicodeDecodeError:
            return None
        norm_lens[k] = len(norm.text)
        out_flags[k] = norm.space_prepended
        generic.append((k, norm.text, norm.offsets))

    batch = viterbi_pieces(texts, tables, token_hash, unk_id=unk_id, byte_ends=wide)
    counts = batch.counts.tolist()
    cuts = [0, *accumulate(counts)]
    if wide:  # byte ends -> input ends: the space string stands for the one-byte separator
        ends = (batch.ends - (len(space) - 1)).tolist()
    else:  # plain ASCII: character c of the normalised text ends at input offset c
        ends = batch.ends.tolist()
    ids = batch.ids.tolist()
    for k, by_char in replaced:
        a, b = cuts[k], cuts[k + 1]
        ends[a:b] = [by_char[e] for e in _char_ends(texts[k], batch.ends[a:b].tolist(), wide)]
    for k, text, offsets in generic:
        a, b = cuts[k], cuts[k + 1]
        local = _char_ends(texts[k], batch.ends[a:b].tolist(), wide)
        if len(text) == len(texts[k]):
            ends[a:b] = [offsets[e] for e in local]
        else:  # character ends -> byte ends
            s = texts[k]
            at_byte = 0
            prev = 0
            mapped = []
            for e in local:
                at_byte += len(s[prev:e].encode("utf-8"))
                prev = e
                mapped.append(offsets[at_byte])
            ends[a:b] = mapped
    spans = list(map(slice, cuts[:-1], cuts[1:]))
    return list(zip(map(ids.__getitem__, spans), map(ends.__getitem__, spans), out_flags, norm_lens))


def _char_ends(text: str, ends: list[int], in_bytes: bool) -> list[int]:
    """Token ends in characters of ``text``, from ends in characters or UTF-8 bytes."""
    if not in_bytes or text.isascii():
        return ends
    at = dict(zip(accumulate(map(len, map(str.encode, text)), initial=0), range(len(text) + 1)))
    return [at[e] for e in ends]


def search_text(
    text: bytes,
    offsets: list[int],
    tables: UgmTables,
    token_hash: TokenHash,
    *,
    unk_id: int,
    restart: bool = False,
) -> tuple[list[int], list[int]] | None:
    """Character search of one normalised ``text`` (``ugm/batch.py``): token ids and input end
    offsets (through ``offsets``); None if ``text`` is not valid UTF-8. ``restart``: the text is a
    unit (conditions 1-3 of ``ugm/encoder.py`` hold), so the search may restart where no edge crosses."""
    try:
        s = text.decode("utf-8")
    except UnicodeDecodeError:
        return None
    found = viterbi_batch([s], tables, token_hash, unk_id=unk_id, byte_ends=len(s) != len(text), restart=restart)
    return found.ids.tolist(), [offsets[e] for e in found.ends.tolist()]
