"""``explain``: the whole explanation of one text, checked against ``Tokenizer.encode``.

Partition first (``explain/partition.py``), then each raw fragment by its family module, which
traces the family's reference encoder (``explain/engine.py``). ``after_special`` follows
``Tokenizer._encode``: true for the first fragment and after a special token. The ids of all fragments must equal
``encode(text, add_special=False, parse_special=...)``, else ``ExplainMismatchError``.
"""

from __future__ import annotations

from tui_tok.tokenizer.core.types import VocabType
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.explain import bpe, plamo2, rwkv, spm, ugm, wpm
from tui_tok.tokenizer.explain.engine import reference
from tui_tok.tokenizer.explain.partition import fragments as partition_fragments
from tui_tok.tokenizer.explain.pretokenize import rule_names
from tui_tok.tokenizer.explain.result import Chunk, ExplainMismatchError, Explanation, Fragment
from tui_tok.tokenizer.special.partition import RAW
from tui_tok.tokenizer.tokenizer import Tokenizer, _as_bytes


def explain(
    tok: Tokenizer,
    text: str | bytes,
    *,
    parse_special: bool = False,
    k_best: int = ugm.K_BEST,
    focus: int | None = None,
) -> Explanation:
    """How ``text`` becomes its ids (no BOS/EOS), fragment by fragment, chunk by chunk.

    ``focus`` (a byte offset) explains only the raw fragment holding it (what a view shows);
    the other raw fragments keep their ids (from the encoder) but no chunks."""
    data = _as_bytes(text)
    v = tok.vocab
    enc = tok.encoder
    family = v.type
    frags: list[Fragment] = []
    after_special = True
    for start, end, tid, stripped in partition_fragments(tok.partitioner, data, parse_special=parse_special):
        if tid != RAW:
            frags.append(Fragment(start, end, True, (tid,), (), stripped))
            after_special = True
            continue
        raw = data[start:end]
        if focus is not None and not (start <= focus < end or (focus >= end == len(data))):
            frags.append(Fragment(start, end, False, tuple(enc.encode_fragment_ids(raw, after_special=after_special))))
            after_special = False
            continue
        chunks = _chunks(family, v, raw, after_special, k_best)
        chunks = [_shift(c, start) for c in chunks]
        ids = tuple(i for c in chunks for i in c.ids)
        frags.append(Fragment(start, end, False, ids, tuple(chunks)))
        after_special = False
    ids = tuple(i for f in frags for i in f.ids)
    expected = tok.encode(data, add_special=False, parse_special=parse_special)
    if list(ids) != expected:
        raise ExplainMismatchError(
            f"explanation ids differ from encode at token {_first_diff(list(ids), expected)} (a tui-tok bug; please report)"
        )
    return Explanation(data, family.value, parse_special, ids, tuple(frags), _rules(tok), _notes(tok))


def _chunks(family: VocabType, v: Vocab, raw: bytes, after_special: bool, k_best: int) -> list[Chunk]:
    if family is VocabType.BPE:
        return bpe.explain_fragment(reference(v), raw)
    if family is VocabType.SPM:
        return spm.explain_fragment(reference(v), raw, after_special=after_special)
    if family is VocabType.UGM:
        return ugm.explain_fragment(reference(v), raw, k_best=k_best)
    if family is VocabType.WPM:
        return wpm.explain_fragment(reference(v), raw)
    if family is VocabType.RWKV:
        return rwkv.explain_fragment(reference(v), raw)
    if family is VocabType.PLAMO2:
        return plamo2.explain_fragment(reference(v), raw)
    return plamo2.explain_test(reference(v), raw)


def _shift(c: Chunk, by: int) -> Chunk:
    """A chunk with its (and its steps') offsets moved from fragment- to text-relative."""
    if not by:
        return c
    from dataclasses import replace

    steps = tuple(replace(s, start=s.start + by, end=s.end + by) if s.start >= 0 else s for s in c.steps)
    detail = c.detail
    if isinstance(detail, ugm.UgmDetail):
        detail = replace(detail, offsets=tuple(o + by for o in detail.offsets))
    return replace(c, start=c.start + by, end=c.end + by, steps=steps, detail=detail)


def _rules(tok: Tokenizer) -> tuple[str, ...]:
    v = tok.vocab
    if v.type is VocabType.BPE:
        return rule_names(reference(v).spec.regexes)
    if v.type is VocabType.SPM:
        return spm.RULES
    if v.type is VocabType.WPM:
        return wpm.RULES
    return ()


def _notes(tok: Tokenizer) -> tuple[str, ...]:
    v = tok.vocab
    out: list[str] = []
    if v.type is VocabType.BPE:
        spec = reference(v).spec
        out.append(f"pre {v.pre or 'default'} ({spec.pre_type}); "
                   + ("byte-level: each byte is one symbol (GPT-2 byte map)" if spec.byte_encode else "symbols are characters"))  # fmt: skip
        if v.ignore_merges:
            out.append("ignore_merges: a word that is a token is taken whole")
        if v.escape_whitespaces:
            out.append("spaces are escaped as ▁ first")
    elif v.type is VocabType.SPM:
        out.append(
            "spaces become ▁"
            + ("; a ▁ is prepended at the start and after a special token" if v.add_space_prefix else "")
        )
        out.append("merges: highest-scoring pair first; a symbol that is no token becomes its byte tokens")
    elif v.type is VocabType.UGM:
        out.append(f"normaliser: prepend ▁ {v.add_space_prefix}, merge spaces {v.remove_extra_whitespaces}, "
                   f"escape {v.escape_whitespaces}; charsmap {'yes' if v.precompiled_charsmap else 'none'}")  # fmt: skip
        out.append("Viterbi: the segmentation with the highest sum of scores (unknown pieces score min - 10)")
    elif v.type is VocabType.WPM:
        out.append(f"lowercase {v.lowercase}, strip accents {v.strip_accents}; each word greedy longest match after ▁")
    return tuple(out)


def _first_diff(a: list[int], b: list[int]) -> int:
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return k
    return min(len(a), len(b))


__all__ = ["explain", "ExplainMismatchError"]
