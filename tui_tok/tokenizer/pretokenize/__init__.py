"""BPE pre-tokenization exactly as llama.cpp's ``unicode_regex_split`` (unicode.cpp).

- ``table.pre_spec(pre)``: a ``tokenizer.ggml.pre`` value -> pre_type, flags and regex list
  (``regexes.py`` holds the strings verbatim).
- ``split.split_words(text, regexes)``: the words, applying each regex to each chunk in turn;
  lists with an exact one-pass form (``onepass.py``: one ``findall`` via ``tiled.py``, or numpy
  cut positions for the deepseek lists, ``cuts.py``) skip the per-chunk work.
- ``fast.py``: llama.cpp's hand-written splitters (GPT2, LLAMA3, QWEN2, QWEN35, Kimi-K2) as one
  small pattern each over a collapsed text; ``reference.py``: their literal C++ ports (oracles).
- ``stdregex.py``: the std::regex (collapsed categories) and std::wregex fallbacks.
- ``offsets.py``: lenient UTF-8 decoding with byte offsets, for token spans.

Checked against llama.cpp's compiled C++ in ``tests/tokenizer/pretokenize/test_pretokenize_oracle.py``.
"""
