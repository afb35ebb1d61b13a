"""The invariants every explanation must satisfy (shared by the explain tests)."""

from __future__ import annotations

from tui_tok.tokenizer.explain import Explanation, to_json
from tui_tok.tokenizer.tokenizer import Tokenizer


def check(tok: Tokenizer, expl: Explanation, text: str | bytes, parse_special: bool) -> None:
    """ids == encode; fragments tile the text, chunks tile their fragment; BPE steps are real
    merges (``merges[rank] == left + " " + right``) accounting for every chunk."""
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    assert list(expl.ids) == tok.encode(text, add_special=False, parse_special=parse_special)
    obj = to_json(expl)
    assert obj["ids"] == list(expl.ids)
    pos = 0
    for frag in obj["fragments"]:
        assert frag["start"] == pos, (frag, pos)
        assert frag["end"] > frag["start"]
        pos = frag["end"]
        if frag["special"]:
            assert frag["chunks"] == [] and len(frag["ids"]) == 1
            continue
        cpos = frag["start"]
        ids = []
        for chunk in frag["chunks"]:
            assert chunk["start"] == cpos and chunk["end"] >= chunk["start"], (chunk, cpos)
            cpos = chunk["end"]
            ids += chunk["ids"]
        assert cpos == frag["end"]
        assert ids == frag["ids"]
    assert pos == len(data)
    if expl.family == "bpe":
        merges = tok.vocab.merges
        for frag in expl.fragments:
            for chunk in frag.chunks:
                for step in chunk.steps:
                    assert merges[step.rank] == step.left + " " + step.right, step
                if chunk.shortcut:
                    assert not chunk.steps
                    continue
                # every merge joins two symbols: initial - final symbols merges, final = tokens
                assert len(chunk.steps) == len(chunk.symbols) - len(chunk.final)
                if all(s in tok.vocab.token_to_id for s in chunk.final):
                    assert len(chunk.final) == len(chunk.ids)
                    if tok.encoder.spec.byte_encode:  # type: ignore[attr-defined]
                        # byte-level: one symbol per byte of the word, so bytes - tokens merges
                        assert all(len(s) == 1 for s in chunk.symbols)
                        assert len(chunk.steps) == len(chunk.text) - len(chunk.ids)
