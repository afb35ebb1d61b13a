"""The special-token partition as fragments that tile the input.

The engine's partition (``special/partition.py``) leaves out the whitespace an LSTRIP/RSTRIP
token swallowed; here that whitespace joins the special token's fragment (``stripped`` counts
it), so fragments tile the text. Raw fragments come back as (start, end) for the family modules.
"""

from __future__ import annotations

from tui_tok.tokenizer.special.partition import RAW, SpecialPartitioner


def fragments(partitioner: SpecialPartitioner, data: bytes, *, parse_special: bool) -> list[tuple[int, int, int, int]]:
    """(start, end, token id or RAW, stripped bytes) tiling ``data``; empty raw parts dropped."""
    parts = [p for p in partitioner.partition(data, parse_special=parse_special) if p[0] < p[1] or p[2] != RAW]
    out: list[list[int]] = [[s, e, t, 0] for s, e, t in parts]
    pos = 0
    for k, frag in enumerate(out):
        gap = frag[0] - pos
        if gap > 0:  # swallowed whitespace: to the special token that swallowed it
            if frag[2] != RAW and (k == 0 or out[k - 1][2] == RAW or partitioner_lstrip(partitioner, frag[2])):
                frag[0] -= gap
                frag[3] += gap
            else:
                out[k - 1][1] += gap
                out[k - 1][3] += gap
        pos = frag[1]
    if out and pos < len(data):
        out[-1][1] = len(data)
        out[-1][3] += len(data) - pos
    return [(s, e, t, st) for s, e, t, st in out]


def partitioner_lstrip(partitioner: SpecialPartitioner, tid: int) -> bool:
    return tid in partitioner._lstrip  # the partitioner's own strip set
