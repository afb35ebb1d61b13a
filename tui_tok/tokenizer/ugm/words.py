"""Words that normalise character by character, recognised without running the normaliser.

``ugm/units.py`` normalises thousands of distinct words (each after a separator). Most are
made of characters that are each their own chunk of ``UgmNormalizer`` (no user-defined
prefix, a charsmap walk that the next character does not extend): their normal form is the
space string followed by each character's replacement. Per distinct character the chunk is
computed once; per word only its set of characters (and, where a walk could go on, its
neighbours) is checked.

Does not apply the whitespace rules to replacements holding a space, nor handle pending
prefixes: such words go through ``UgmNormalizer.normalize``.

A fast path: what it computes equals ``ugm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate, chain, repeat
from typing import cast

from tui_tok.errors import VocabError
from tui_tok.tokenizer.ugm.normalize import UgmNormalizer

_UNKNOWN: frozenset[int] = frozenset({-1})  # marker: not yet in the per-character memo


@dataclass(frozen=True, slots=True, eq=False)
class WordForms:
    """The per-character memos of one normaliser, and the two word checks built on them."""

    normalizer: UgmNormalizer
    """The normaliser whose chunks the words follow."""
    _char_info: dict[str, frozenset[int] | None] = field(default_factory=dict, repr=False)
    _char_rep: dict[str, tuple[str, frozenset[int]] | tuple[()]] = field(default_factory=dict, repr=False)

    def identity_text(self, data: bytes) -> str | None:
        """``data`` decoded, if every character of it is its own chunk copied unchanged (no
        space, no user-defined prefix, no charsmap change, and no charsmap walk that the next
        character could extend) when an ASCII separator or nothing follows it; else None.

        Then ``normalize(b" " + data)`` is the space string followed by ``data`` whenever the
        space string is emitted once (merge, or no pending prefix).

        >>> n = UgmNormalizer(charsmap=None, user_defined=(), prepend=True, merge=True)
        >>> WordForms(n).identity_text("né".encode())
        'né'
        """
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if self.normalizer.ud_first and not self.normalizer.ud_first.isdisjoint(data):
            return None
        info = self._char_info
        walks: list[frozenset[int]] = []
        chars = set(text)
        for c in chars:
            cont = info.get(c, _UNKNOWN)
            if cont is _UNKNOWN:
                cont = self._char_cont(c)
                info[c] = cont
            if cont is None:
                return None
            if cont:
                walks.append(cont)
        if walks:
            trigger = frozenset().union(*walks)
            if any(c.encode("utf-8")[0] in trigger for c in chars):  # check each neighbour
                for i in range(len(text) - 1):
                    cont = info[text[i]]
                    if cont and text[i + 1].encode("utf-8")[0] in cont and not self._stops_after(text, i):
                        return None
        return text

    def replaced_text(self, data: bytes) -> tuple[str, list[int], int] | None:
        """``identity_text`` allowing changed characters: each character of ``data`` is its own
        chunk, replaced by a string without a space (maybe empty). Returns (the replacements
        joined, the end of each one's character in ``data`` + 1 per output character, where the
        first non-empty replacement's character starts in ``data`` + 1), or None.

        With ``merge`` (or no pending prefix), ``normalize(b" " + data)`` is then the space
        string and the joined replacements (nothing at all when they are empty with ``merge``),
        and a token ending after output character ``i`` of the replacements ends at input
        offset ``ends[i]`` (after the space string: at the returned start, or 1 without merge).

        >>> from tui_tok.tokenizer.ugm.charsmap import Charsmap, build_charsmap
        >>> cm = Charsmap.from_blob(build_charsmap({"ﬁ".encode(): b"fi", b"x": b""}))
        >>> WordForms(UgmNormalizer(charsmap=cm, user_defined=(), prepend=True, merge=True)).replaced_text("xﬁa".encode())
        ('fia', [5, 5, 6], 2)
        """
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if self.normalizer.ud_first and not self.normalizer.ud_first.isdisjoint(data):
            return None
        reps = self._char_rep
        walks: list[frozenset[int]] = []
        chars = set(text)
        for c in chars:
            hit = reps.get(c)
            if hit is None:
                hit = self._rep_of(c)
                reps[c] = hit
            if not hit:
                return None
            if hit[1]:
                walks.append(hit[1])
        found = cast("dict[str, tuple[str, frozenset[int]]]", reps)  # each character of text passed: no ()
        if walks:
            trigger = frozenset().union(*walks)
            if any(c.encode("utf-8")[0] in trigger for c in chars):  # check each neighbour
                for i in range(len(text) - 1):
                    cont = found[text[i]][1]
                    if cont and text[i + 1].encode("utf-8")[0] in cont and not self._stops_after(text, i):
                        return None
        outs = [found[c][0] for c in text]
        sizes = list(map(len, outs))
        ends = list(accumulate(map(len, map(str.encode, text)), initial=1))
        first = next((k for k, n in enumerate(sizes) if n), 0)
        return "".join(outs), list(chain.from_iterable(map(repeat, ends[1:], sizes))), ends[first]

    def _rep_of(self, c: str) -> tuple[str, frozenset[int]] | tuple[()]:
        """(replacement, walk-extending bytes) of character ``c`` as its own chunk, or () if its
        chunk is not exactly ``c``, or the replacement holds a space or is not valid UTF-8."""
        if c == " ":
            return ()
        unit = c.encode("utf-8")
        try:
            rep, used, cont = self.normalizer.isolated_chunk(unit)
        except VocabError:
            return ()
        if used != len(unit) or 0x20 in rep:
            return ()
        try:
            return rep.decode("utf-8"), cont
        except UnicodeDecodeError:
            return ()

    def _stops_after(self, text: str, i: int) -> bool:
        """Whether the charsmap walk from ``text[i]``, going on into ``text[i + 1]``, still
        makes ``text[i]`` alone its chunk (no longer key matches, the walk ends in time)."""
        a = text[i].encode("utf-8")
        match, node = self.normalizer.walk_pair(a + text[i + 1].encode("utf-8"))
        if node == -2 or (match is not None and match[0] != len(a)):
            return False
        if node >= 0 and i + 2 < len(text):
            assert self.normalizer.charsmap is not None
            return not self.normalizer.charsmap.extends(node, text[i + 2].encode("utf-8")[0])
        return True

    def _char_cont(self, c: str) -> frozenset[int] | None:
        """None unless character ``c`` alone is a chunk copied unchanged (not a space); else the
        bytes that would extend its charsmap walk."""
        if c == " ":
            return None
        unit = c.encode("utf-8")
        try:
            rep, used, cont = self.normalizer.isolated_chunk(unit)
        except VocabError:
            return None
        if used != len(unit) or rep != unit:
            return None
        return cont
