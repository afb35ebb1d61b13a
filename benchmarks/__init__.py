"""Benchmarks: ``python -m benchmarks NAME [args]`` (NAME: gguf, encode, load, ui ...)."""
