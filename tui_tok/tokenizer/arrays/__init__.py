"""numpy helpers that the families share: sorts and uniques faster than numpy's on this kind of data. No tokenizer knowledge."""
