"""WordPiece (llama.cpp's llm_tokenizer_wpm): BERT's pre-tokenizer and greedy longest-prefix match."""
