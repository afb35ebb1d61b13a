"""Byte-pair encoding (llama.cpp's llm_tokenizer_bpe): merge ranks, the batch merge, gemma4's ▁ cut and the hybrid models.

Pre-tokenizing (the pre regexes) lives in ../pretokenize; the special-token partition in ../special."""
