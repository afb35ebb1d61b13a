"""``HfPair``: the two sides of a GGUF-against-Hugging-Face comparison, in a module of its own so
that ``compare.py`` (which runs the comparison) and ``known.py`` (which names the differences)
both use it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui_tok.explore.diff.text_diff import TextDiff, diff_tokens, tokens_of

if TYPE_CHECKING:
    from tui_tok.explore.diff.hf import HfTokenizer


@dataclass(eq=False)
class HfPair:
    """A GGUF ``Tokenizer`` (side A) and an ``HfTokenizer`` (side B) of the same vocabulary."""

    gguf: Any
    hf: HfTokenizer
    add_special: bool = True

    def gguf_ids(self, text: str) -> list[int]:
        return list(
            self.gguf.encode(text.encode("utf-8", "surrogatepass"), add_special=self.add_special, parse_special=True)
        )

    def hf_ids(self, text: str) -> list[int]:
        return self.hf.encode(text, add_special=self.add_special)

    def differs(self, text: str) -> bool:
        return self.gguf_ids(text) != self.hf_ids(text)

    def diff(self, text: str) -> TextDiff:
        data = text.encode("utf-8")
        a = tokens_of(self.gguf, data, add_special=self.add_special, parse_special=True)
        return diff_tokens(data, a, self.hf.tokens(data, add_special=self.add_special), by="id")

    def gguf_text(self, token_id: int) -> str | None:
        tokens = self.gguf.vocab.tokens
        return str(tokens[token_id]) if 0 <= token_id < len(tokens) else None
