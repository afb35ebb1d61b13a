"""Recognise a BPE vocabulary's family by a fingerprint, for a file whose ``tokenizer.ggml.pre`` is
missing or ``default`` (the Ollama converter and BitNet conversions wrote ``default`` for Llama 3).

llama.cpp's converter hashes the Hugging Face tokenizer's output (``convert_hf_to_gguf.py``,
``get_vocab_base_pre``); a GGUF file holds no Hugging Face tokenizer, but it holds the tokens and
merges themselves. A fingerprint is six token texts at fixed ids and four merges at fixed ranks of
one family's vocabulary (``tools/make_pre_fingerprints.py`` prints them from the real files):
fine-tunes keep them (they append or rename special tokens above these ids and never reorder merges),
and no other family shares ten such pairs by chance. Unlike ``families.guess_pre`` (special-token
names), a match is near certain, so lint offers it as a fix.

>>> match_family(["x"] * 10, ["a b"]) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Fingerprint:
    pre: str
    """The ``tokenizer.ggml.pre`` llama.cpp knows this family by."""
    label: str
    """The family's name for people."""
    tokens: tuple[tuple[int, str], ...]
    """(id, text) pairs every vocabulary of the family has."""
    merges: tuple[tuple[int, str], ...]
    """(rank, merge) pairs."""

    def matches(self, tokens: Sequence[str], merges: Sequence[Any]) -> bool:
        return all(i < len(tokens) and tokens[i] == t for i, t in self.tokens) and all(
            r < len(merges) and merges[r] == m for r, m in self.merges
        )


FINGERPRINTS: tuple[Fingerprint, ...] = (
    Fingerprint('llama-bpe', 'Llama 3',
                ((6412, 'Ġsale'), (19238, 'Ġrb'), (38476, 'ĠFerguson'), (57715, '_SU'), (76953, 'Ġdecltype'), (96192, '"./')),
                ((280, 'h t'), (14007, 'ĉĉĉĉĉĉĉ ĉĉ'), (84044, 'a din'), (196102, 'Ġsoft en'))),
    Fingerprint('qwen2', 'Qwen2/Qwen3',
                ((7596, 'construct'), (22790, '.dot'), (45580, 'ĠgÃ©nÃ©'), (68371, 'ĠÑģÐº'), (91161, '.BorderSide'), (113952, 'æĽ¿æį¢')),
                ((151, 'ct ion'), (7569, '} else'), (45416, 'Ġy aw'), (105970, 'æį® æĤī'))),
    Fingerprint('gpt-2', 'GPT-2',
                ((2512, 'Ġblock'), (7538, 'Ġfeedback'), (15077, 'Ġprescription'), (22615, 'external'), (30154, 'Ġwre'), (37692, 'ĠDEN')),
                ((50, 'l y'), (2500, 'Ġpr ice'), (15000, 'Ġdest ruct'), (35000, 'Ġup hill'))),
    Fingerprint('deepseek-llm', 'DeepSeek LLM',
                ((5120, 'Ġprevent'), (15360, 'Ġllam'), (30720, 'ĠSample'), (46080, 'Ġfaithfully'), (61440, 'ĠTelevisi'), (76800, 'Kitchen')),
                ((99, 'Ñ Ģ'), (4987, 're et'), (29927, 'In ner'), (69829, 'çĤ¹ å¤ļ'))),
    Fingerprint('deepseek-coder', 'DeepSeek Coder',
                ((1612, 'alk'), (4838, 'ç»Ĩ'), (9676, 'osing'), (14515, 'Ġgained'), (19353, 'Ġpropor'), (24192, 'habitat')),
                ((31, 'Ġa n'), (1587, 'Ġe as'), (9527, '( _'), (22229, 'dest roy'))),
    Fingerprint('falcon', 'Falcon',
                ((3251, 'Ġpred'), (9753, 'Av'), (19507, 'Mel'), (29260, 'Carl'), (39014, 'ciu'), (48768, '071')),
                ((64, 'Ġ is'), (3239, 'al ing'), (19435, 'Ġint est'), (45348, 'ĠAt om'))),
    Fingerprint('command-r', 'Command-R',
                ((12800, 'Dele'), (38400, 'Trigger'), (76800, 'ÑĪÐµÐ¼Ñĥ'), (115200, 'ownika'), (153600, 'ÙģÛĮÙĦ'), (192000, 'å®®åŁİçľĮ')),
                ((253, 'Ġp r'), (12666, 'a ud'), (75999, 'ÑĢÐ° ÑĤÑĮ'), (177333, 'en ol'))),
    Fingerprint('starcoder', 'StarCoder',
                ((2457, 'ython'), (7372, 'Lin'), (14745, 'ĠDEALINGS'), (22118, 'DFS'), (29491, 'Paste'), (36864, 'ExperimentEnv')),
                ((48, 'Ġ s'), (2443, "' '"), (14661, 'hash Code'), (34210, 'ĠJ IM'))),
    Fingerprint('refact', 'Refact',
                ((2460, 'cent'), (7382, 'Ġorigin'), (14764, 'Problem'), (22147, "Ġ'${"), (29529, 'included'), (36912, 'ExperimentResultSet')),
                ((48, 'Ġ s'), (2444, 'pos ition'), (14667, 'dis cord'), (34223, 'Ġc tor'))),
    Fingerprint('mpt', 'GPT-NeoX/MPT',
                ((2521, 'eters'), (7564, 'ben'), (15129, 'Ġamendment'), (22694, 'Ġrespected'), (30259, 'Ġexhibiting'), (37824, 'Ġbehaves')),
                ((50, 'Ġ n'), (2500, 'ĠT e'), (15002, 'Ġinit iated'), (35006, 'ĠBo eing'))),
    Fingerprint('tekken', 'Mistral Tekken',
                ((6553, 'Ġconcern'), (19660, 'ĠAgain'), (39321, 'ĠMultiple'), (58982, 'ĠDepois'), (78643, 'Ã©rance'), (98304, 'Ġë°Ķê¿')),
                ((269, 'Ġtha t'), (13472, 'ĠTex t'), (80832, 'Ġco ordination'), (188610, 'Ġbien es'))),
)  # fmt: skip
"""One per family of ``../shared/vocabs`` and ``../shared/data`` that llama.cpp knows a ``pre`` for."""


def match_family(tokens: Sequence[str], merges: Sequence[Any] | None) -> Fingerprint | None:
    """The family whose fingerprint ``tokens`` and ``merges`` carry, or None."""
    if not tokens or not merges:
        return None
    for fp in FINGERPRINTS:
        if fp.matches(tokens, merges):
            return fp
    return None
