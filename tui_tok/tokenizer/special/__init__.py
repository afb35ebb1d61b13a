"""Step 1 of the pipeline: the special-token partition (llama.cpp's tokenizer_st_partition), before any pre-tokenizer or model."""
