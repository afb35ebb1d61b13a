"""The shared core every family uses: the vocab read from metadata (and llama.cpp's name/text overrides), token types, decoding, streaming, byte spans.

Holds no algorithm of a family: those live in bpe/, spm/, ugm/, wpm/, rwkv/, plamo2/."""
