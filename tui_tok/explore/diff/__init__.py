"""Comparing two tokenizers: the same text through both, two vocabularies, a GGUF against Hugging Face.

* ``text_diff``: token lists compared as (start, end, piece); the first-difference rule.
* ``align``: both tokenizations laid under each other by byte offset.
* ``vocab_diff``: tokens, types, scores, merges, special ids and metadata keys of two files.
* ``hf``: the optional ``tokenizers`` package as side B (``pip install 'tui-tok[hf]'``).
* ``fuzz`` / ``shrink`` / ``known``: texts in the manner of llama.cpp's test-tokenizer-random.py,
  each mismatch cut down to a minimal text, and named when it is a known llama.cpp/HF difference.

Pure functions on plain data and tokenizer objects; nothing here prints or imports the UI.
"""
