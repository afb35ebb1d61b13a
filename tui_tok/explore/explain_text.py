"""What the explorer and ``tui-tok explain`` show of an explanation: pure text, no Textual.

``report_lines`` is the CLI's readable report; ``merge_rows`` the debugger rows of a merging
chunk (the symbols before each step, with the merged pair's index); ``lattice_rows`` the UGM
lattice around a span as a small table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tui_tok.tokenizer.explain.result import Chunk, Explanation, Step
from tui_tok.tokenizer.explain.ugm import UgmDetail


def show(text: str | bytes) -> str:
    """A piece as printable text: control characters escaped, quotes kept out."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def step_line(family: str, step: Step, show: Callable[[str | bytes], str] = show) -> str:
    """One step as a line; ``show`` spells its pieces (the explorer passes ``display.marked``)."""
    k = step.kind
    if k == "merge":
        how = f"rank {step.rank}" if family == "bpe" else f"score {step.score:g}"
        return f"merge {show(step.left)!r} + {show(step.right)!r}  ({how})"
    if k == "bytes":
        what = f"{show(step.token)!r} is no token" if step.token else f"bytes {step.start}-{step.end}"
        return f"byte fallback: {what} -> {list(step.ids)}"
    if k == "normalize":
        return f"normalise {step.start}-{step.end}: {show(step.text_from)!r} -> {show(step.text_to)!r}"
    if k == "piece":
        rival = f"; best rival {show(step.rival)!r} {step.rival_total:.4f}" if step.rival_total is not None else ""
        return f"{show(step.token)!r} score {step.score:.4f}, total {step.total:.4f}{rival}"
    if k == "path":
        return f"#{step.rank} total {step.total:.4f}: " + " | ".join(show(t) for t in step.tokens)
    if k == "word":
        return f"word {show(step.token)!r}"
    if k == "match":
        longer = f" (longest prefix tried: {show(step.rival)!r})" if step.rival else ""
        return f"longest match {show(step.token)!r} -> {step.id}{longer}"
    if k == "unknown":
        return f"no token starts at byte {step.at} of {show(step.token)!r}: the whole word is [UNK] ({step.id})"
    if k == "hash":
        return f"bytes {step.start}-{step.end} hash -> {step.id}"
    return k


def report_lines(expl: Explanation, piece) -> list[str]:  # piece(id) -> str
    """The readable report: fragments, chunks (with the rule that cut before each), steps."""
    text = expl.text
    out = [
        f"{len(expl.ids)} tokens: {list(expl.ids)}",
        f"family {expl.family}, parse special {'on' if expl.parse_special else 'off'}",
    ]
    out += [f"  {n}" for n in expl.notes]
    for f in expl.fragments:
        body = show(text[f.start : f.end])
        if f.special:
            strip = f" (swallowed {f.stripped} bytes of whitespace)" if f.stripped else ""
            out.append(f"[{f.start}-{f.end}] special token {f.ids[0]} {body!r}{strip}")
            continue
        out.append(f"[{f.start}-{f.end}] raw text {body!r}: {len(f.chunks)} chunk(s)")
        for c in f.chunks:
            rule = "" if c.cut < 0 or c.cut >= len(expl.rules) else f"   cut by: {show(expl.rules[c.cut])[:60]}"
            out.append(f"  chunk [{c.start}-{c.end}] {show(c.text)!r} -> {list(c.ids)} "
                       f"{' '.join(repr(piece(i)) for i in c.ids)}{rule}")  # fmt: skip
            if c.shortcut:
                out.append(f"    {c.shortcut}")
            if c.symbols and len(c.symbols) > 1:
                out.append(f"    symbols: {' '.join(show(s) for s in c.symbols)}")
            for n, s in enumerate(c.steps, 1):
                out.append(f"    {n:3d}. {step_line(expl.family, s)}")
    return out


@dataclass(frozen=True, slots=True)
class MergeRow:
    """The symbols before one step, and the index of the pair it merges (-1: the final row)."""

    symbols: tuple[str, ...]
    at: int
    step: Step | None


def merge_rows(chunk: Chunk) -> list[MergeRow]:
    """Debugger rows: one per merge step (the pair highlighted), then the final symbols."""
    rows: list[MergeRow] = []
    row = list(chunk.symbols)
    for step in chunk.steps:
        if step.kind != "merge":
            continue
        rows.append(MergeRow(tuple(row), step.at, step))
        row[step.at : step.at + 2] = [step.left + step.right]
    rows.append(MergeRow(tuple(row), -1, None))
    return rows


def lattice_rows(detail: UgmDetail, start: int, end: int, piece, limit: int = 40) -> list[tuple[str, ...]]:
    """(position, piece, score, offered total, best) rows for the edges overlapping input bytes
    [start, end): the lattice around a token, small enough for a table."""
    rows: list[tuple[str, ...]] = []
    best = detail.best
    offsets = detail.offsets
    for a, b, tid, w in detail.edges:
        if not (offsets[a] < max(end, start + 1) and offsets[b] > start):
            continue
        name = f"<unk:{detail.normalized[a:b]}>" if tid == detail.unk_id else piece(tid)
        won = "✓" if best[a] + w == best[b] else ""
        rows.append((str(a), show(name), f"{w:.4f}", f"{best[a] + w:.4f}", won))
        if len(rows) >= limit:
            break
    return rows
