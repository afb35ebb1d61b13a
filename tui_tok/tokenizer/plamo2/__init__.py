"""PLaMo-2 (llama.cpp's llm_tokenizer_plamo2): its Aho-Corasick table and dynamic program."""
