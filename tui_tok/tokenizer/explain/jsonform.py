"""The CLI's JSON object of an explanation (issue 15's format, nothing more per chunk).

``{"ids", "fragments": [{"start", "end", "special", "ids", "chunks": [{"start", "end", "ids",
"steps"}]}]}``; BPE steps are exactly ``{"left", "right", "rank"}``; other families' steps carry
``"kind"`` and the fields ``result.py``'s table lists for it.
"""

from __future__ import annotations

from typing import Any

from tui_tok.tokenizer.explain.result import Explanation, Step

_FIELDS = {
    ("spm", "merge"): ("left", "right", "score"),
    ("spm", "bytes"): ("token", "ids"),
    ("ugm", "normalize"): ("start", "end", "text_from", "text_to"),
    ("ugm", "piece"): ("token", "id", "start", "end", "score", "total", "rival", "rival_total"),
    ("ugm", "path"): ("rank", "tokens", "total"),
    ("wpm", "word"): ("token", "start", "end"),
    ("wpm", "match"): ("token", "id", "start", "end", "rival"),
    ("wpm", "unknown"): ("token", "id", "start", "end", "at"),
    ("rwkv", "match"): ("token", "id", "start", "end"),
    ("plamo2", "piece"): ("token", "id", "start", "end", "score"),
    ("plamo2", "bytes"): ("ids", "start", "end"),
    ("test", "hash"): ("id", "start", "end"),
}
_NAMES = {"text_from": "from", "text_to": "to"}


def step_json(family: str, step: Step) -> dict[str, Any]:
    if family == "bpe":
        return {"left": step.left, "right": step.right, "rank": step.rank}
    out: dict[str, Any] = {"kind": step.kind}
    for name in _FIELDS.get((family, step.kind), ()):
        value = getattr(step, name)
        out[_NAMES.get(name, name)] = list(value) if isinstance(value, tuple) else value
    return out


def to_json(expl: Explanation) -> dict[str, Any]:
    fam = expl.family
    return {
        "ids": list(expl.ids),
        "fragments": [
            {
                "start": f.start,
                "end": f.end,
                "special": f.special,
                "ids": list(f.ids),
                "chunks": [
                    {"start": c.start, "end": c.end, "ids": list(c.ids), "steps": [step_json(fam, s) for s in c.steps]}
                    for c in f.chunks
                ],
            }
            for f in expl.fragments
        ],
    }  # fmt: skip
