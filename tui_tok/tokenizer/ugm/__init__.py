"""Unigram (llama.cpp's llm_tokenizer_ugm): the precompiled charsmap normalizer, the token trie and the Viterbi best path."""
