"""Metadata rows and the chat template layout."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from support import vocab_file
from tui_tok.explore.metadata import filter_rows, full_lines, header_line, metadata_rows, readable_template


def test_rows_of_a_real_file() -> None:
    from tui_tok import read_gguf

    gguf = read_gguf(vocab_file("qwen3-vocab").path)
    tokens = gguf["tokenizer.ggml.tokens"]
    rows = metadata_rows([(k, f.type_name, f.value) for k, f in gguf.fields.items()], tokens=tokens)
    by_key = {r.key: r for r in rows}
    assert list(by_key) == list(gguf.fields)
    eos = gguf["tokenizer.ggml.eos_token_id"]
    assert by_key["tokenizer.ggml.eos_token_id"].summary == f"{eos}  {tokens[eos]}"
    assert by_key["tokenizer.ggml.tokens"].length == len(tokens)
    assert by_key["tokenizer.ggml.tokens"].summary.endswith(f"({len(tokens):,} items)")
    assert [r.key for r in filter_rows(rows, "EOS_TOKEN_ID")] == ["tokenizer.ggml.eos_token_id"]
    # a value found only deep inside the chat template
    assert "tokenizer.chat_template" in [r.key for r in filter_rows(rows, "tool_call", values=gguf.metadata)]
    assert full_lines("tokenizer.ggml.tokens", tokens[:3]) == ["0  '!'", "1  '\"'", "2  '#'"]
    assert "qwen3-vocab.gguf" in header_line(gguf.metadata, file_name="qwen3-vocab.gguf")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["{%- if x %}", "{% for a in b %}", "{% endfor %}", "{%- endif %}", "{{ y }}", "text", "{% else %}"]
        ),
        max_size=20,
    )
)
def test_readable_template_keeps_every_character(parts: list[str]) -> None:
    """Laying a template out only adds indentation and line breaks."""
    template = "".join(parts)
    lines = readable_template(template)
    assert "".join(line.lstrip() for line in lines) == template
