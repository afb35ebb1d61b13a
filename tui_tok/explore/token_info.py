"""What the details panel says about one token of a tokenization.

Joins three sources: the span in the text (``TokenLayout``), the vocabulary columns
(``VocabIndex``: stored type, score, merge rank) and the tokenizer's own ``token_to_piece``
bytes. Any of the last two may be missing (still building, or a broken tokenizer); the
rows then say so instead of failing.

>>> rows = token_rows(token_id=7, piece=b"\\xe6", raw="<0xE6>", span="日", kind="byte")
>>> rows[1], rows[2]
(('piece', '<0xE6>'), ('bytes', 'e6  (1 byte)'))
>>> token_rows(token_id=9, piece="你好".encode(), raw="ä½łå¥½", span=None, kind="normal")[-1]
('decodes to', '你好')
"""

from __future__ import annotations

from tui_tok.explore.display import display_bytes, display_piece, shown_text
from tui_tok.explore.layout import TokenLayout
from tui_tok.explore.vocab_index import TokenFacts


def token_rows(
    *,
    token_id: int,
    raw: str | None,
    piece: bytes | None,
    span: str | None,
    kind: str,
    facts: TokenFacts | None = None,
    position: tuple[int, int] | None = None,
) -> list[tuple[str, str]]:
    """(label, value) rows: id, raw piece, bytes, kind, type, score / merge rank, text span."""
    rows: list[tuple[str, str]] = [("id", str(token_id))]
    if token_id < 0:
        rows.append(
            ("piece", "none: no token covers this text, and the vocab has no unknown token (llama.cpp's null id)")
        )
    else:
        rows.append(("piece", display_piece(raw) if raw is not None else "?"))
    if piece is not None:
        n = len(piece)
        rows.append(("bytes", f"{piece.hex(' ')}  ({n} byte{'s' if n != 1 else ''})" if n else "(none)"))
    rows.append(("kind", kind))
    if facts is not None:
        rows.append(("type", facts.type_name))
        if facts.merge_rank is not None:
            rows.append(("merge rank", str(facts.merge_rank)))
        if facts.score is not None:
            rows.append(("score", f"{facts.score:g}"))
    if span is not None:
        rows.append(("text", shown_text(span) if span else "(adds no text)"))
    elif piece:  # the vocabulary view: what the piece stands for (ä½łå¥½ is 你好, ▁the is ·the)
        rows.append(("decodes to", display_bytes(piece)))
    if position is not None:
        rows.append(("token", f"{position[0] + 1:,} of {position[1]:,}"))
    return rows


def token_byte_offset(layout: TokenLayout, index: int) -> int:
    """The UTF-8 offset where token ``index`` of ``layout`` starts (0 for none): where Explain
    looks (its token is found again from the bytes)."""
    index = max(index, 0)
    char = int(layout.starts[index]) if index < layout.n_tokens else 0
    return len(layout.text[:char].encode("utf-8", "surrogatepass"))
