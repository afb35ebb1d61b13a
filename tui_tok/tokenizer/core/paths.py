"""Which code path an encoder takes for an input of a given size: every size threshold in one object.

The encoders have fast paths (batches merged together in numpy, whole-array rounds, cuts that
provably do not change the result, list scans instead of a heap...) that are worth their set-up
only from some input size; each is equal to llama.cpp's loop by construction, and the tests check
that (``tests/tokenizer/test_paths.py``). One ``Paths`` holds every threshold by name and goes to
every encoder, so one switch, ``Tokenizer(vocab, paths=...)``, chooses:

- ``"auto"``: the tuned sizes (what ``Tokenizer`` uses unless told otherwise);
- ``"eager"``: every fast path from the smallest input it can take (thresholds at 0, 1 or
  never), so that short test inputs run the big-input code;
- ``"reference"``: no fast path at all; ``Tokenizer`` then runs the family's named reference
  (``<family>/reference.py``).

The environment variable ``TUI_TOK_PATHS`` sets the default mode (CI runs the tests in each).
Limits that bound memory or a cache (``_CACHE_LIMIT``, ``_FRAGMENT_MAX``, block sizes) are no
path choice and stay in their modules.

>>> EAGER.bpe_batch_from, REFERENCE.bpe_batch_from == NEVER, paths_for("auto") is AUTO
(1, True, True)
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from typing import Literal

PathsMode = Literal["reference", "auto", "eager"]
MODES: tuple[PathsMode, ...] = ("reference", "auto", "eager")
ENV = "TUI_TOK_PATHS"
NEVER = sys.maxsize
"""A threshold no input reaches ("from NEVER": the path is off; "max NEVER": always on)."""


@dataclass(frozen=True, slots=True)
class Paths:
    """Every size from which (``*_from``) or up to which (``*_max``) an encoder takes a fast path.
    A ``*_from`` of ``NEVER`` or a ``*_max`` of -1 turns the path off."""

    mode: PathsMode = "auto"
    # --- pair merges (batch/merge.py, used by BPE and SPM)
    rounds_from: int = 1024
    """Words (chunks) of at least this many symbols merge in whole-array rounds before the heap."""
    tail_words: int = 12
    """Below this many unfinished words, a batch merges the rest word by word with the heap."""
    run_keys_from: int = 4096
    """From this many pairs, a batch round first looks up one key per run of equal keys."""
    # --- BPE (bpe/encoder.py)
    bpe_list_max: int = 150
    """Words of up to this many symbols merge by a list scan (faster in Python for short words); longer
    ones with llama.cpp's heap."""
    bpe_batch_from: int = 48
    """From this many distinct new words in a long text (``bpe_cut_from``) or once the batch exists,
    they merge together; fewer are cheaper one by one (ranks from ``bpe/ranks.py`` until the dict exists)."""
    bpe_batch_word_max: int = 1023
    """Words of up to this many symbols merge in the batch loop; longer ones alone (``merge_long``: rounds
    from ``rounds_from``). Even words of ~1000 symbols merge faster together than one by one with the heap."""
    bpe_cut_from: int = 256
    """Texts of this many characters build the cut before ▁ (``bpe/subword_cut.py``: it only helps the word
    cache, and building it walks all of gemma4's merges); NEVER: no cut."""
    # --- SPM (spm/encoder.py)
    spm_batch_from: int = 48
    """From this many distinct new chunks of a text, they merge together (``batch/merge.py``)."""
    spm_list_max: int = 1023
    """Chunks of up to this many characters merge in the batch; longer ones alone (``merge_long``)."""
    spm_fine_per_tokens: int = 16
    """Chunks are cut finer after ``max(n_tokens // this, spm_fine_after_min)`` distinct chunks (2k for 32k
    tokens): then the vocab's pair set (built over every token) pays for itself in shared sub-chunks."""
    spm_fine_after_min: int = 1000
    spm_fine_min_len: int = 3
    """Chunks shorter than this are never cut finer."""
    # --- UGM (ugm/encoder.py)
    ugm_batch_from: int = 16
    """From this many new units a fragment is encoded whole (``ugm/textids.py``), not unit by unit; 0: always."""
    ugm_whole_from: int = 16384
    """Fragments from this many bytes take the whole-text path (``ugm/textids.py``), ids and spans."""
    # --- PLaMo2, WPM, RWKV
    plamo2_split_from: int = 64
    """Fragments of this many code points are cut where no token crosses, each piece solved once."""
    wpm_tail_max: int = 48
    """A WPM walk's last words, at most this many, finish in one lookup of all their positions."""
    rwkv_python_max: int = 64
    """The greedy match's last chunks, at most this many, finish in Python."""
    wpm_arrays_from: int = 4096
    """Texts of this many bytes take WPM's arrays path for spans (``wpm/spans.py``); shorter ones
    the plain word walk (same spans; faster with a warm word cache)."""


AUTO = Paths()
EAGER = Paths(
    mode="eager", rounds_from=2, tail_words=0, run_keys_from=1,
    bpe_list_max=NEVER, bpe_batch_from=1, bpe_batch_word_max=NEVER, bpe_cut_from=0,
    spm_batch_from=1, spm_list_max=NEVER, spm_fine_per_tokens=NEVER, spm_fine_after_min=-1,
    spm_fine_min_len=0,
    ugm_batch_from=0, ugm_whole_from=0,
    plamo2_split_from=0, wpm_tail_max=0, rwkv_python_max=0, wpm_arrays_from=0,
)  # fmt: skip
"""Every fast path from the smallest input it takes."""
REFERENCE = replace(
    AUTO, mode="reference", rounds_from=NEVER, tail_words=NEVER, run_keys_from=NEVER,
    bpe_list_max=-1, bpe_batch_from=NEVER, bpe_batch_word_max=-1, bpe_cut_from=NEVER,
    spm_batch_from=NEVER, spm_list_max=-1, spm_fine_after_min=NEVER,
    spm_fine_min_len=NEVER,
    ugm_batch_from=NEVER, ugm_whole_from=NEVER,
    plamo2_split_from=NEVER, wpm_tail_max=NEVER, rwkv_python_max=NEVER, wpm_arrays_from=NEVER,
)  # fmt: skip
"""No fast path (``Tokenizer`` runs each family's ``reference.py`` in this mode)."""

_BY_MODE: dict[str, Paths] = {"auto": AUTO, "eager": EAGER, "reference": REFERENCE}


def paths_for(mode: str | Paths | None) -> Paths:
    """The ``Paths`` of a mode name (None: ``$TUI_TOK_PATHS``, else ``"auto"``); a ``Paths`` as is."""
    if isinstance(mode, Paths):
        return mode
    if mode is None:
        mode = os.environ.get(ENV, "").strip() or "auto"
    found = _BY_MODE.get(mode)
    if found is None:
        where = f" (from ${ENV})" if mode == os.environ.get(ENV, "").strip() else ""
        raise ValueError(f"paths must be one of {', '.join(MODES)}, not {mode!r}{where}")
    return found
