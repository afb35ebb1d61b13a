"""SentencePiece BPE (llama.cpp's llm_tokenizer_spm): symbol merges by score, then byte fallback."""
