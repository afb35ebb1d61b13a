"""Many UGM units at once: normalise each, search all together, map token ends back.

A *unit* of ``ugm.py`` is a separator followed by a word. Cold text brings thousands of
distinct units; one at a time, each costs a normaliser call and a Python Viterbi search.
Here:

* a word of plain ASCII bytes (``UgmNormalizer.is_plain_ascii``) normalises to the space
  string followed by the word, and its token ends map back unchanged (character ``c`` of the
  normalised text ends at input offset ``c``: the space string stands for the separator),
  whenever the space string is emitted exactly once: with ``merge``, or without a pending
  prefix. Its normalised text is built directly;
* any other word goes through ``UgmNormalizer.normalize`` as before;
* the normalised texts are searched together by ``ugm_batch.viterbi_batch``.

Same results as ``UgmEncoder._encode_unit`` unit by unit (tested). Does not cut text into
units or join their tokens: see ``ugm.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

from tui_tok.tokenizer.ugm_batch import viterbi_batch
from tui_tok.tokenizer.ugm_hash import TokenHash
from tui_tok.tokenizer.ugm_normalize import UgmNormalizer
from tui_tok.tokenizer.ugm_tables import UgmTables

UnitResult = tuple[list[int], list[int], bool, int]
"""Token ids, token end offsets in the unit, is_space_prepended after it, normalised bytes."""


def encode_units(
    words: Sequence[bytes],
    *,
    flag: bool,
    normalizer: UgmNormalizer,
    tables: UgmTables,
    token_hash: TokenHash,
    unk_id: int,
) -> list[UnitResult] | None:
    """The result of each unit ``b" " + word`` normalised with ``is_space_prepended = flag``;
    None if some unit's normalised bytes are not valid UTF-8 (the caller takes a slower path).
    """
    space = normalizer.space
    space_str = space.decode("utf-8")
    merge = normalizer.merge
    plain_ok = merge or not (normalizer.prepend and not flag)
    is_plain = normalizer.is_plain_ascii
    texts: list[str] = []
    out_flags: list[bool] = []
    norm_lens: list[int] = []
    generic: list[tuple[int, bytes, list[int]]] = []  # (unit index, normalised bytes, offsets)
    for k, word in enumerate(words):
        if plain_ok and is_plain(word):
            if word or not merge:
                texts.append(space_str + word.decode("ascii"))
                norm_lens.append(len(space) + len(word))
            else:
                texts.append("")
                norm_lens.append(0)
            out_flags.append(flag or (bool(word) and (merge or normalizer.prepend)))
            continue
        norm = normalizer.normalize(b" " + word, space_prepended=flag)
        try:
            texts.append(norm.text.decode("utf-8"))
        except UnicodeDecodeError:
            return None
        norm_lens.append(len(norm.text))
        out_flags.append(norm.space_prepended)
        generic.append((k, norm.text, norm.offsets))

    batch = viterbi_batch(texts, tables, token_hash, unk_id=unk_id)
    ids = batch.ids.tolist()
    ends = batch.ends.tolist()
    cuts = [0, *accumulate(batch.counts.tolist())]
    for k, text, offsets in generic:
        a, b = cuts[k], cuts[k + 1]
        if len(text) == len(texts[k]):
            ends[a:b] = [offsets[e] for e in ends[a:b]]
        else:  # character ends -> byte ends
            s = texts[k]
            at = 0
            prev = 0
            mapped = []
            for e in ends[a:b]:
                at += len(s[prev:e].encode("utf-8"))
                prev = e
                mapped.append(offsets[at])
            ends[a:b] = mapped
    return [
        (ids[a:b], ends[a:b], f, n) for a, b, f, n in zip(cuts[:-1], cuts[1:], out_flags, norm_lens)
    ]
