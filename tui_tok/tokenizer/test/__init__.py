"""llama.cpp's TEST vocabulary type: a dummy tokenizer for tests (``reference.py``)."""
