"""Two vocabularies and their metadata compared: what a re-conversion or another quantization changed.

Works on the plain metadata mappings (``GGUFFile.metadata``): tokens are matched by their text
(the last id of a duplicated text wins, as in llama.cpp's ``token_to_id``), so a token that kept
its text but changed id is "moved". Types and scores are compared for tokens in both; merges as
sets of strings; special ids by key (``tokenizer.ggml.*_token_id``); every other key by value.

Does not tokenize: ``text_diff.py`` compares what the two files do with a text.

>>> a = {"tokenizer.ggml.tokens": ["a", "b", "c"], "tokenizer.ggml.token_type": [1, 1, 3], "x": 1}
>>> b = {"tokenizer.ggml.tokens": ["b", "a", "d"], "tokenizer.ggml.token_type": [1, 1, 1], "y": 2}
>>> d = diff_vocabs(a, b)
>>> d.only_a.count, d.only_b.count, d.moved.count, d.type_changed.count
(1, 1, 2, 0)
>>> d.metadata_only_a, d.metadata_only_b, d.metadata_changed
(('x',), ('y',), ('tokenizer.ggml.token_type', 'tokenizer.ggml.tokens'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tui_tok.explore.visible import visible

EXAMPLES = 8
"""How many examples of each kind of change a report keeps."""

TOKENS = "tokenizer.ggml.tokens"
TYPES = "tokenizer.ggml.token_type"
SCORES = "tokenizer.ggml.scores"
MERGES = "tokenizer.ggml.merges"
TYPE_NAMES = {0: "undefined", 1: "normal", 2: "unknown", 3: "control", 4: "user-defined", 5: "unused", 6: "byte"}


@dataclass(frozen=True, slots=True)
class Changes:
    """How many items changed one way, and the first few as readable lines."""

    count: int
    examples: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "examples": list(self.examples)}


@dataclass(frozen=True, slots=True)
class VocabDiff:
    """Everything that differs between two files' vocabularies and metadata."""

    n_a: int
    """Tokens in A."""
    n_b: int
    """Tokens in B."""
    only_a: Changes
    """Token texts only A has."""
    only_b: Changes
    """Token texts only B has."""
    moved: Changes
    """Texts in both, at different ids."""
    type_changed: Changes
    """Texts in both whose token type differs."""
    scores_changed: Changes
    """Texts in both whose score differs (when both files have scores)."""
    merges_only_a: Changes
    merges_only_b: Changes
    special_changed: Changes
    """``tokenizer.ggml.*_token_id`` keys whose token (by text) differs or that only one side sets."""
    metadata_only_a: tuple[str, ...]
    metadata_only_b: tuple[str, ...]
    metadata_changed: tuple[str, ...]

    @property
    def same(self) -> bool:
        return not (self.only_a.count or self.only_b.count or self.moved.count or self.type_changed.count
                    or self.scores_changed.count or self.merges_only_a.count or self.merges_only_b.count
                    or self.special_changed.count or self.metadata_only_a or self.metadata_only_b
                    or self.metadata_changed)  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        """What ``tui-tok diff A B --vocab --json`` prints."""
        return {
            "same": self.same,
            "tokens": {"a": self.n_a, "b": self.n_b},
            "only_a": self.only_a.count,
            "only_b": self.only_b.count,
            "moved": self.moved.count,
            "type_changed": self.type_changed.count,
            "scores_changed": self.scores_changed.count,
            "merges_only_a": self.merges_only_a.count,
            "merges_only_b": self.merges_only_b.count,
            "special_changed": self.special_changed.count,
            "metadata": {
                "only_a": list(self.metadata_only_a),
                "only_b": list(self.metadata_only_b),
                "changed": list(self.metadata_changed),
            },  # fmt: skip
            "examples": {name: list(getattr(self, name).examples) for name in _CHANGE_FIELDS},
        }

    def report_lines(self) -> list[str]:
        """The text report: one heading per kind of change, with examples."""
        lines = [f"tokens: A {self.n_a}, B {self.n_b}"]
        for name in _CHANGE_FIELDS:
            ch: Changes = getattr(self, name)
            lines.append(f"{_TITLES[name]}: {ch.count}")
            lines += [f"    {e}" for e in ch.examples]
        for title, keys in (("metadata only in A", self.metadata_only_a), ("metadata only in B", self.metadata_only_b),
                            ("metadata changed", self.metadata_changed)):  # fmt: skip
            lines.append(f"{title}: {len(keys)}")
            lines += [f"    {visible(k)}" for k in keys]  # the files' keys: ESC drawn, not sent
        return lines


_CHANGE_FIELDS = ("only_a", "only_b", "moved", "type_changed", "scores_changed", "merges_only_a", "merges_only_b",
                  "special_changed")  # fmt: skip
_TITLES = {"only_a": "tokens only in A", "only_b": "tokens only in B", "moved": "tokens at another id",
           "type_changed": "token type changed", "scores_changed": "score changed", "merges_only_a": "merges only in A",
           "merges_only_b": "merges only in B", "special_changed": "special ids changed"}  # fmt: skip


def diff_vocabs(a: Mapping[str, Any], b: Mapping[str, Any], *, examples: int = EXAMPLES) -> VocabDiff:
    """Compare two metadata mappings (see the module docstring for what "same" means per kind)."""
    toks_a: Sequence[str] = a.get(TOKENS) or []
    toks_b: Sequence[str] = b.get(TOKENS) or []
    id_a = {t: i for i, t in enumerate(toks_a)}
    id_b = {t: i for i, t in enumerate(toks_b)}
    both = [t for t in id_a if t in id_b]
    only_a = [t for t in id_a if t not in id_b]
    only_b = [t for t in id_b if t not in id_a]
    moved = [t for t in both if id_a[t] != id_b[t]]
    types_a, types_b = _ints(a.get(TYPES)), _ints(b.get(TYPES))
    type_changed = [t for t in both if _at(types_a, id_a[t], 1) != _at(types_b, id_b[t], 1)]
    scores_changed: list[str] = []
    sa, sb = a.get(SCORES), b.get(SCORES)
    if sa is not None and sb is not None:
        fa, fb = np.asarray(sa, dtype=np.float64), np.asarray(sb, dtype=np.float64)
        ia = np.fromiter((id_a[t] for t in both), dtype=np.int64, count=len(both))
        ib = np.fromiter((id_b[t] for t in both), dtype=np.int64, count=len(both))
        ok = (ia < len(fa)) & (ib < len(fb))
        va = np.where(ok, fa[np.minimum(ia, max(len(fa) - 1, 0))] if len(fa) else 0.0, np.nan)
        vb = np.where(ok, fb[np.minimum(ib, max(len(fb) - 1, 0))] if len(fb) else 0.0, np.nan)
        changed = ~((va == vb) | (np.isnan(va) & np.isnan(vb)))
        scores_changed = [both[k] for k in np.flatnonzero(changed).tolist()]
    merges_a, merges_b = set(a.get(MERGES) or ()), set(b.get(MERGES) or ())
    m_only_a = [m for m in (a.get(MERGES) or ()) if m not in merges_b]
    m_only_b = [m for m in (b.get(MERGES) or ()) if m not in merges_a]
    special = _special_changes(a, b, toks_a, toks_b)
    meta_only_a = tuple(k for k in a if k not in b)
    meta_only_b = tuple(k for k in b if k not in a)
    meta_changed = tuple(sorted(k for k in a if k in b and not _equal(a[k], b[k])))

    def fmt_ids(t: str) -> str:
        return f"{_show(t)}  A {id_a[t]} -> B {id_b[t]}"

    return VocabDiff(
        n_a=len(toks_a),
        n_b=len(toks_b),
        only_a=_changes(only_a, examples, lambda t: f"{id_a[t]:>7}  {_show(t)}"),
        only_b=_changes(only_b, examples, lambda t: f"{id_b[t]:>7}  {_show(t)}"),
        moved=_changes(moved, examples, fmt_ids),
        type_changed=_changes(
            type_changed, examples, lambda t: f"{_show(t)}  {_type(types_a, id_a[t])} -> {_type(types_b, id_b[t])}"
        ),
        scores_changed=_changes(
            scores_changed,
            examples,
            lambda t: f"{_show(t)}  {float(np.asarray(sa)[id_a[t]]):g} -> {float(np.asarray(sb)[id_b[t]]):g}",
        ),
        merges_only_a=_changes(m_only_a, examples, _show),
        merges_only_b=_changes(m_only_b, examples, _show),
        special_changed=_changes(special, examples, str),
        metadata_only_a=meta_only_a,
        metadata_only_b=meta_only_b,
        metadata_changed=meta_changed,
    )


def _special_changes(
    a: Mapping[str, Any], b: Mapping[str, Any], toks_a: Sequence[str], toks_b: Sequence[str]
) -> list[str]:
    out = []
    keys = [k for k in dict.fromkeys([*a, *b]) if k.startswith("tokenizer.ggml.") and k.endswith("_token_id")]
    for key in keys:
        va, vb = a.get(key), b.get(key)
        ta, tb = _token_text(toks_a, va), _token_text(toks_b, vb)
        if va != vb or ta != tb:
            name = key.removeprefix("tokenizer.ggml.").removesuffix("_token_id")
            out.append(f"{name}: A {_id_text(va, ta)} -> B {_id_text(vb, tb)}")
    return out


def _token_text(toks: Sequence[str], tid: Any) -> str | None:
    return toks[tid] if isinstance(tid, int) and 0 <= tid < len(toks) else None


def _id_text(tid: Any, text: str | None) -> str:
    if tid is None:
        return "unset"
    return f"{tid} {_show(text)}" if text is not None else f"{tid} (no such token)"


def _changes(items: list[str], n: int, fmt: Any) -> Changes:
    return Changes(len(items), tuple(fmt(t) for t in items[:n]))


def _ints(values: Any) -> np.ndarray:
    return np.asarray(values if values is not None else [], dtype=np.int64)


def _at(arr: np.ndarray, i: int, default: int) -> int:
    return int(arr[i]) if i < len(arr) else default


def _type(arr: np.ndarray, i: int) -> str:
    return TYPE_NAMES.get(_at(arr, i, 1), str(_at(arr, i, 1)))


def _show(text: str) -> str:
    return repr(text)


def _equal(x: Any, y: Any) -> bool:
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        ax, ay = np.asarray(x), np.asarray(y)
        return ax.shape == ay.shape and bool(
            np.array_equal(ax, ay, equal_nan=ax.dtype.kind == "f" and ay.dtype.kind == "f")
        )
    return bool(x == y)
