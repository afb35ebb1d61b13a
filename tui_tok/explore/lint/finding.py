"""What a lint check reports: ``Finding`` (code, severity, one-sentence message, hint, jump target).

Every code has a fixed severity and a default hint naming the llama.cpp issue where the pain is
discussed (``CODES``); a check may give a more specific hint. Does not run any check: see the
``checks_*`` modules and ``run.lint``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui_tok.explore.fix.edits import Edit


class Severity(enum.IntEnum):
    """How bad a finding is; ordered so ``max()`` gives the worst."""

    INFO = 0
    """Worth knowing."""
    WARNING = 1
    """Very likely wrong."""
    ERROR = 2
    """llama.cpp refuses the file, crashes, or certainly misbehaves (the model cannot stop)."""

    @property
    def label(self) -> str:
        """``error``, ``warning``, ``info``: what the command line and JSON print."""
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """A finding code's fixed facts."""

    severity: Severity
    title: str
    """A few words: what the code is about."""
    hint: str
    """What to change, and the llama.cpp issue or pull request where it is discussed."""


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

CODES: dict[str, CodeInfo] = {
    "pre-missing": CodeInfo(
        W,
        "BPE vocab without tokenizer.ggml.pre",
        "re-convert with a current convert_hf_to_gguf.py, or set tokenizer.ggml.pre; llama.cpp uses "
        "'default' and warns GENERATION QUALITY WILL BE DEGRADED (llama.cpp #11341)",
    ),
    "pre-unknown": CodeInfo(
        E,
        "pre-tokenizer llama.cpp does not know",
        "llama.cpp refuses to load it ('unknown pre-tokenizer type'): set tokenizer.ggml.pre to a known "
        "name or update llama.cpp (llama.cpp #12021, #12122)",
    ),
    "model-unknown": CodeInfo(
        E,
        "tokenizer model llama.cpp does not know",
        "llama.cpp refuses to load it ('unknown tokenizer'): tokenizer.ggml.model must be llama, gpt2, "
        "bert, t5, rwkv, plamo2, gemma4, ... (llama.cpp #11341)",
    ),
    "model-mismatch": CodeInfo(
        E,
        "tokens do not look like the declared model",
        "re-convert: the converter chose the wrong tokenizer class for this vocabulary "
        "(a byte-level vocab written as llama crashes in llama_vocab::byte_to_token with unordered_map::at; llama-vocab.cpp)",
    ),
    "special-id-out-of-range": CodeInfo(
        E,
        "special token id beyond the vocabulary",
        "llama.cpp ignores the key and falls back to its default id ('bad special token'); "
        "fix the id or drop the key (llama.cpp #7898)",
    ),
    "special-id-not-special": CodeInfo(
        W,
        "special token id names a normal token",
        "the id is probably off by one or from another vocabulary; set token_type CONTROL or fix the id "
        "(llama.cpp #7898)",
    ),
    "duplicate-token": CodeInfo(
        E,
        "the same token text at two ids",
        "llama.cpp aborts: GGML_ASSERT(id_to_token.size() == token_to_id.size()); "
        "re-convert and make token texts unique (llama-vocab.cpp, llama_vocab::impl::load)",
    ),
    "empty-token": CodeInfo(
        W,
        "empty token text",
        "llama.cpp renames it [EMPTY_<id>] and warns; give the token its real text (llama-vocab.cpp, llama_vocab::impl::load)",
    ),
    "token-type-invalid": CodeInfo(
        W,
        "token_type outside llama.cpp's enum",
        "llama.cpp treats it as UNDEFINED (neither normal nor special); use 1-6 "
        "(NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE)",
    ),
    "vocab-size-mismatch": CodeInfo(
        E,
        "token count differs from the embedding rows",
        "llama.cpp refuses the tensor ('wrong shape'); pad or trim the vocabulary to the embedding rows "
        "(llama.cpp #5910)",
    ),
    "template-error": CodeInfo(
        E,
        "chat template fails on a conversation",
        "fix the template or override it with --chat-template (llama.cpp #6772)",
    ),
    "check-not-run": CodeInfo(
        W,
        "a check could not run",
        "the file was not fully checked: fix what the message names, or report the crash to tui-tok",
    ),
    "double-bos": CodeInfo(
        W,
        "BOS added twice",
        "llama.cpp's chat code drops only one leading BOS text when the vocab adds BOS: write bos_token once, "
        "at the very start of the template (llama.cpp PR #15086, #7107)",
    ),
    "runtimes-differ": CodeInfo(
        I,
        "llama-server and transformers render the template differently",
        "compare outputs of llama-server with those of a transformers/vLLM deployment with care: the prompts differ "
        "(tui-tok chat --json shows where; the Chat view's runtime selector shows both)",
    ),
    "bos-text-dropped": CodeInfo(
        I,
        "template writes the BOS text the vocab adds",
        "nothing to change for llama-server's chat endpoints, which drop it; a client that renders the template "
        "itself must tokenize the text without adding BOS (llama.cpp PR #15086, #7107)",
    ),
    "template-marker-not-special": CodeInfo(
        W,
        "template marker is not one special token",
        "mark the marker's token CONTROL/USER_DEFINED (or add it) so parse special makes it one token "
        "(llama.cpp #6551, PR #8506)",
    ),
    "turn-end-not-eog": CodeInfo(
        E,
        "end of turn is not an end-of-generation token",
        "the model will not stop: set tokenizer.ggml.eot_token_id (or eos) to the turn-end token "
        "(llama.cpp #6772, #9606)",
    ),
    "user-defined-whitespace": CodeInfo(
        W,
        "USER_DEFINED whitespace tokens",
        "llama.cpp matches them in the text before the model sees it, unlike the original tokenizer "
        "(the Gemma 3 case; llama-vocab.cpp tokenizer_st_partition): expect different ids for runs of spaces/newlines",
    ),
    "unreachable-tokens": CodeInfo(
        I,
        "normal tokens no text can produce",
        "harmless for tokenizing, but their embeddings are untrained: models may misbehave if they ever "
        "see them ('Fishing for Magikarp', Land & Bartolo 2024)",
    ),
    "pre-default": CodeInfo(
        W,
        "BPE vocab of a known family split with the 'default' pre-tokenizer",
        "set tokenizer.ggml.pre to the family's value (tui-tok fix, or --override-kv in llama.cpp); 'default' "
        "splits numbers, contractions and punctuation differently: GENERATION QUALITY WILL BE DEGRADED (llama.cpp #11341)",
    ),
    "eog-contains-marker": CodeInfo(
        E,
        "a marker the template writes mid-conversation is end-of-generation",
        "generation stops as soon as the model writes it (a start of turn, a tool-call opener): drop it from "
        "the EOG set (its eos/eot/eom key) and name the turn-end token instead (llama-vocab.cpp builds the EOG "
        "set from those ids, llama_vocab::impl::load)",
    ),
    "bos-missing": CodeInfo(
        W,
        "a family that needs BOS gets none",
        "set tokenizer.ggml.add_bos_token true: without BOS Gemma's quality collapses; llama.cpp forces it "
        "for Gemma 4 since PR #21500, other runtimes and older builds read the flag",
    ),
    "merges-format": CodeInfo(
        E,
        "BPE merges missing or not 'left right' strings",
        "llama.cpp needs tokenizer.ggml.merges as an array of 'left right' strings ('cannot find tokenizer "
        "merges', llama.cpp #9692): re-convert with a current convert_hf_to_gguf.py, or join pairs with tui-tok fix",
    ),
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in a file, with where to look.

    >>> f = finding("empty-token", "token 7 has an empty text", token_id=7)
    >>> f.severity.label, f.as_json()["token_id"]
    ('warning', 7)
    """

    code: str
    """Stable code name (a key of ``CODES``)."""
    severity: Severity
    message: str
    """One sentence naming the key and ids concerned."""
    hint: str
    """What to change, and the llama.cpp issue where it is discussed."""
    key: str | None = None
    """The metadata key to show (for template findings: the template's key)."""
    token_id: int | None = None
    """The vocabulary token to show."""
    line: int | None = None
    """1-based line of the template in ``key``."""
    context: str = ""
    """Extra lines for a detail view (template source around ``line``, example tokens)."""
    fix: Edit | None = None
    """The metadata edit that repairs it (``tui-tok fix``), None when no edit can (``fixes.py``)."""

    def as_json(self) -> dict[str, Any]:
        """The JSON object ``tui-tok lint --json`` prints (no None fields)."""
        out: dict[str, Any] = {"code": self.code, "severity": self.severity.label, "message": self.message,
                               "hint": self.hint}  # fmt: skip
        for name in ("key", "token_id", "line"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.context:
            out["context"] = self.context
        out["fix"] = None if self.fix is None else self.fix.as_json()
        return out


def sentence(text: str) -> str:
    """``text`` ending in one full stop: an error quoted at the end of a message may have its own
    (jinja2's "... is unsafe.").

    >>> sentence("is unsafe."), sentence("no end")
    ('is unsafe.', 'no end.')
    """
    return text if text.endswith((".", "!", "?")) else text + "."


def finding(code: str, message: str, *, hint: str | None = None, key: str | None = None,
            token_id: int | None = None, line: int | None = None, context: str = "",
            severity: Severity | None = None, fix: Edit | None = None) -> Finding:  # fmt: skip
    """A ``Finding`` of ``code`` with (unless given) the code's severity and hint."""
    info = CODES[code]
    return Finding(
        code,
        info.severity if severity is None else severity,
        message,
        hint or info.hint,
        key,
        token_id,
        line,
        context,
        fix,
    )
