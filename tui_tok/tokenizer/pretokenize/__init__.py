"""BPE pre-tokenization as llama.cpp does it: the pre table, custom splitters, std::regex emulation.

``table.pre_spec(pre)`` says which regexes a ``tokenizer.ggml.pre`` value uses;
``split.split_words(text, regexes)`` cuts text into words exactly as ``unicode_regex_split``.
"""
