"""What llama-server feeds the model when a chat template writes the BOS text: ``double-bos`` (the
model sees two BOS tokens) or ``bos-text-dropped`` (it sees one; worth knowing for other clients).

llama.cpp's chat code renders the template and then drops one leading BOS text when the vocabulary
adds BOS itself (common/chat.cpp, ``common_chat_template_direct_apply``: ``if (inputs.add_bos &&
string_starts_with(result, tmpl.bos_token())) result = result.substr(...)``; llama.cpp PR #15086),
before tokenizing with ``add_special``. The Chat view does the same (``chat/prompt.py``,
``strip_added``), so both say the same thing: only a BOS text left after that drop (written twice,
or after leading whitespace) reaches the model as a second BOS.
"""

from __future__ import annotations

from collections.abc import Iterator

from tui_tok.explore.chat.prompt import strip_added
from tui_tok.explore.display import display_piece
from tui_tok.explore.lint.finding import Finding, finding


def bos_findings(key: str, rendered: str, bos_text: str, *, adds_bos: bool, special: bool,
                 token_id: int | None) -> Iterator[Finding]:  # fmt: skip
    """The BOS finding for one rendered conversation (none when the vocab does not add BOS).

    ``special``: the BOS text tokenizes as one special token with parse special (else a BOS text
    left in the prompt is plain text to the model, not a second BOS)."""
    if not bos_text or not adds_bos:
        return
    text, dropped, _ = strip_added(rendered, bos_text, "", add_bos=True, add_eos=False)
    shown = repr(display_piece(bos_text))
    if special and text.lstrip().startswith(bos_text):
        how = "the BOS text " + shown + (" twice" if dropped else " after leading whitespace")
        yield finding("double-bos", f"the vocabulary adds BOS and {key} starts the prompt with {how}: llama-server "
                      "drops only one BOS text at the very start, so the model sees two BOS tokens.", key=key,
                      line=1, token_id=token_id)  # fmt: skip
    elif dropped:
        yield finding("bos-text-dropped", f"{key} starts the prompt with the BOS text {shown} and the vocabulary adds "
                      "BOS: llama-server drops that text, so the model sees one BOS token.", key=key, line=1,
                      token_id=token_id)  # fmt: skip
