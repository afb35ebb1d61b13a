"""Name a GGUF/Hugging Face mismatch when it is one llama.cpp is known to have.

Each check is an experiment, not a pattern match: undo the suspected cause on one side and see
whether the ids then agree. In order:

* ``bos/eos``: the two add a different BOS/EOS (tokenizer.ggml.add_bos_token vs the post-processor);
* ``normalizer``: tokenizer.json runs NFC/NFKC/... which llama.cpp does not (Qwen3's NFC);
* ``token text``: a token of the stretch that differs is stored with another text in the two files
  (gemma3's whitespace USER_DEFINED tokens: literal spaces in the GGUF, ``▁`` in tokenizer.json);
* ``added token strip``: HF's lstrip/rstrip of an added token swallows whitespace the GGUF keeps;
* ``special token``: llama.cpp matches a token in the text as special that tokenizer.json leaves to
  the model (llama.cpp marks EOG-looking tokens such as ``</s>`` CONTROL whatever the file says);
* ``space prefix``: one side puts a space before the text (add_prefix_space, Metaspace prepend).

Does not find the cause of anything else: an unnamed mismatch may be a real bug.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui_tok.explore.diff.pair import HfPair


@dataclass(frozen=True, slots=True)
class Known:
    """A recognised difference."""

    name: str
    """Short name: ``bos/eos``, ``normalizer``, ``token text``, ``added token strip``, ``special token``, ``space prefix``."""
    detail: str
    """One line saying what differs."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "detail": self.detail}


def explain(pair: HfPair, text: str) -> Known | None:
    """The known difference behind the mismatch on ``text``, or None."""
    ga, hb = pair.gguf_ids(text), pair.hf_ids(text)
    if ga == hb:
        return None
    for check in (_bos_eos, _normalizer, _token_text, _added_strip, _special_parse, _space_prefix):
        found = check(pair, text, ga, hb)
        if found is not None:
            return found
    return None


def _bos_eos(pair: HfPair, text: str, ga: list[int], hb: list[int]) -> Known | None:
    if not pair.add_special:
        return None
    a = list(pair.gguf.encode(text.encode("utf-8"), add_special=False, parse_special=True))
    if a != pair.hf.encode(text, add_special=False):
        return None

    def added(ids: list[int]) -> str:
        for k in range(len(ids) - len(a) + 1):
            if ids[k : k + len(a)] == a:
                extra = ids[:k] + ids[k + len(a) :]
                return " ".join(repr(pair.gguf_text(i)) for i in extra) or "nothing"
        return "other tokens"

    return Known("bos/eos", f"the GGUF adds {added(ga)}, tokenizer.json adds {added(hb)}")


def _normalizer(pair: HfPair, text: str, ga: list[int], hb: list[int]) -> Known | None:
    for form in pair.hf.normal_forms:
        normal = unicodedata.normalize(form, text)  # type: ignore[arg-type]
        if normal != text and pair.gguf_ids(normal) == hb:
            return Known(
                "normalizer",
                f"tokenizer.json runs {form}, llama.cpp does not: {_cps(text)} is {_cps(normal)} after {form}",
            )
    return None


def _token_text(pair: HfPair, text: str, ga: list[int], hb: list[int]) -> Known | None:
    lo = 0
    while lo < min(len(ga), len(hb)) and ga[lo] == hb[lo]:
        lo += 1
    for tid in dict.fromkeys(ga[lo:] + hb[lo:]):
        g, h = pair.gguf_text(tid), pair.hf.token_text(tid)
        if g is not None and h is not None and g != h and g.replace(" ", "▁") == h.replace(" ", "▁"):
            kind = "whitespace user-defined token" if not g.strip() else "token"
            return Known("token text", f"{kind} {tid} is {g!r} in the GGUF but {h!r} in tokenizer.json")
        if g is not None and h is not None and g != h and not pair.hf.byte_level:
            return Known("token text", f"token {tid} is {g!r} in the GGUF but {h!r} in tokenizer.json")
    return None


def _added_strip(pair: HfPair, text: str, ga: list[int], hb: list[int]) -> Known | None:
    for tok in pair.hf.added:
        if not (tok.lstrip or tok.rstrip) or tok.content not in text:
            continue
        at = text.index(tok.content)
        left, right = text[:at], text[at + len(tok.content) :]
        stripped = (left.rstrip() if tok.lstrip else left) + tok.content + (right.lstrip() if tok.rstrip else right)
        if pair.gguf_ids(stripped) == hb:
            flags = "/".join(f for f, on in (("lstrip", tok.lstrip), ("rstrip", tok.rstrip)) if on)
            return Known(
                "added token strip",
                f"tokenizer.json strips whitespace around {tok.content!r} ({flags}), the GGUF does not",
            )
    return None


def _special_parse(pair: HfPair, text: str, ga: list[int], hb: list[int]) -> Known | None:
    plain = list(pair.gguf.encode(text.encode("utf-8"), add_special=pair.add_special, parse_special=False))
    if plain != hb:
        return None
    matched = [i for i in dict.fromkeys(ga) if i not in plain]
    names = ", ".join(repr(pair.gguf_text(i)) for i in matched)
    return Known("special token", f"llama.cpp matches {names} in the text as a special token, tokenizer.json does not")


def _cps(text: str) -> str:
    """``'é' (U+00E9)``: the text with its code points, since NFC changes are invisible."""
    return f"{text!r} (" + " ".join(f"U+{ord(c):04X}" for c in text) + ")"


def _space_prefix(pair: HfPair, text: str, ga: list[int], hb: list[int]) -> Known | None:
    if pair.gguf_ids(" " + text) == hb:
        return Known("space prefix", "tokenizer.json puts a space before the text, the GGUF does not")
    if pair.hf_ids(" " + text) == ga:
        return Known("space prefix", "the GGUF puts a space before the text, tokenizer.json does not")
    if text.startswith(" ") and pair.gguf_ids(text[1:]) == hb:
        return Known("space prefix", "tokenizer.json drops the text's leading space, the GGUF keeps it")
    return None
