"""RWKV world (llama.cpp's llm_tokenizer_rwkv): greedy longest match over bytes through a trie."""
