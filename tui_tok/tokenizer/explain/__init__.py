"""Why this split: the engine's own account of how a text became its ids.

``explain(tokenizer, text, parse_special=...)`` returns an ``Explanation`` (``result.py``): the
special-token partition (``partition.py``), the pre-tokenizer's chunks of each raw fragment and
which rule cut before each one (``pretokenize.py``), and per chunk the family's steps: BPE merges
with their ranks (``bpe.py``), SPM merges with their scores and byte fallback (``spm.py``), UGM
normalisation, Viterbi path, k-best alternatives and rivals (``ugm.py``), WPM greedy matches
(``wpm.py``), RWKV trie matches (``rwkv.py``), PLaMo2 path and TEST hashes (``plamo2.py``). ``why_not`` answers
"why not this split / this token" (``whynot.py``); ``to_json`` gives the CLI's object
(``jsonform.py``).

Every family module records the hooks of the family's reference encoder (``<family>/reference.py``,
the algorithm written once as llama.cpp runs it; kept per vocab by ``engine.py``) instead of
replaying the algorithm, and the builder asserts that the explanation's ids equal the fast
encoder's ``Tokenizer.encode(text, add_special=False, parse_special=...)``, so an explanation can
never drift from the ids silently (``ExplainMismatchError``). PLaMo2's reference builds its
suffix table in seconds for a real vocabulary: the first explanation of such a vocab waits for it.
"""

from __future__ import annotations

from tui_tok.tokenizer.explain.build import explain
from tui_tok.tokenizer.explain.jsonform import to_json
from tui_tok.tokenizer.explain.result import Chunk, Explanation, Fragment, Step
from tui_tok.tokenizer.explain.whynot import WhyNot, why_not

__all__ = ["explain", "to_json", "why_not", "Explanation", "Fragment", "Chunk", "Step", "WhyNot"]
