"""GGUF files an attacker would write: Rich markup and terminal control sequences in every
string a view or a command shows (keys, architecture, template names, token texts).

Built from the bundled assets by the tests that use them, so the tokenizer still loads.
"""

from __future__ import annotations

from pathlib import Path

from support import ASSETS
from tui_tok.gguf import read_gguf
from tui_tok.gguf.writer import GGUFValue, field_value, write_gguf

OSC_TITLE = "\x1b]2;PWNED\x1b\\"
"""Sets the terminal's title (OSC 2), ended by ST."""
RAW_CONTROLS = ("\x1b", "\x9b", "\x9d", "\x07", "\x85")
"""What must never reach a terminal: ESC, 8-bit CSI and OSC, BEL, NEL (all in the files below)."""
HOSTILE_TOKEN = "\x1b[7m[/]\x9b7m"
"""A vocabulary entry (id ``HOSTILE_ID``) that is markup, an escape sequence and an 8-bit CSI."""
HOSTILE_ID = 500
TEMPLATE_NAME = "rag[/]" + OSC_TITLE
"""A named chat template (``tokenizer.chat_templates``)."""


def spm_file(folder: Path) -> Path:
    """phi-3's vocab with hostile metadata: architecture, name, a key, templates, BOS text, a token."""
    src = read_gguf(ASSETS / "ggml-vocab-phi-3.gguf")
    meta = {k: field_value(f) for k, f in src.fields.items()}
    meta["general.architecture"] = "phi3[/]" + OSC_TITLE + "\x1b[7m\x9b7m"
    meta["general.name"] = "name[bold]\x9d2;NAME\x07"
    meta["a.key[/]"] = "value[/]" + OSC_TITLE
    meta["b.key\x1b[7m\x85"] = "x"
    meta["tokenizer.chat_template"] = (
        "{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}\n"
        "{{ raise_exception('no[/]" + OSC_TITLE + "\x9b7m') }}"
    )
    meta["tokenizer.chat_templates"] = [TEMPLATE_NAME]
    meta["tokenizer.chat_template." + TEMPLATE_NAME] = "rag{{ messages[0]['content'] }}[/]" + OSC_TITLE
    tokens = list(meta["tokenizer.ggml.tokens"].value)
    tokens[1] = "<s" + OSC_TITLE + "[/]>"
    tokens[HOSTILE_ID] = HOSTILE_TOKEN
    meta["tokenizer.ggml.tokens"] = GGUFValue(meta["tokenizer.ggml.tokens"].type, tokens,
                                              meta["tokenizer.ggml.tokens"].item_type)  # fmt: skip
    return write_gguf(folder / "hostile-spm.gguf", meta)


def ugm_file(folder: Path) -> Path:
    """T5's unigram vocab with a token ``[/]`` (scored to win), drawn by F8's lattice table."""
    src = read_gguf(ASSETS / "t5-botchan-en-unigram-1000.gguf")
    meta = {k: field_value(f) for k, f in src.fields.items()}
    meta["general.architecture"] = "t5" + OSC_TITLE
    tokens, scores = list(meta["tokenizer.ggml.tokens"].value), meta["tokenizer.ggml.scores"].value.copy()
    tokens[107], scores[107] = "[/]", -1.0
    tokens[108], scores[108] = "▁[/]", -1.0
    meta["tokenizer.ggml.tokens"] = GGUFValue(meta["tokenizer.ggml.tokens"].type, tokens,
                                              meta["tokenizer.ggml.tokens"].item_type)  # fmt: skip
    meta["tokenizer.ggml.scores"] = GGUFValue(meta["tokenizer.ggml.scores"].type, scores,
                                              meta["tokenizer.ggml.scores"].item_type)  # fmt: skip
    return write_gguf(folder / "hostile-ugm.gguf", meta)


def raw_controls(text: str) -> list[str]:
    """The controls of ``RAW_CONTROLS`` found in ``text`` (empty: none reached it)."""
    return [c for c in RAW_CONTROLS if c in text]
