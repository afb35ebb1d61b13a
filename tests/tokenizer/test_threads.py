"""One ``Tokenizer`` shared by 8 threads gives the ids a lone thread gives.

The explorer tokenizes in worker threads with one tokenizer per file, and ``Tokenizer`` says it
can be shared. Its encoders keep caches that fill up as text is met (symbol tables, pair
memos, word results); an update that is not atomic (read a length, then append) gave other
threads wrong ids or an ``IndexError``. Each round here takes a *fresh* tokenizer (warm caches
hide the race), starts 8 threads at a barrier, each encoding or tokenizing its own slice of a
mixed text (the conformance inputs: scripts, bytes, whitespace runs, special-token texts), and
compares with the same calls made one after the other on another fresh tokenizer. The switch
interval is shortened so that threads interleave inside the cache updates. Each code-path mode
(``Tokenizer(paths=...)``) is tested: "eager" takes the batches' shared tables from the first text.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from support import conformance_rows, llama_test_cases, vocab_files
from tui_tok.tokenizer import Tokenizer
from tui_tok.tokenizer.core.paths import MODES

THREADS = 8
ROUNDS = 6
FAMILY_VOCABS = ("qwen3-vocab", "phi-3", "t5-botchan-en-unigram-1000", "bert-bge", "rwkv-world-vocab", "gpt-2")
"""One bundled vocab per family (always tested); ../shared adds the others when present."""
SHARED_VOCABS = (
    "llama-spm",
    "gemma3-270m-vocab",
    "gemma-4",
    "baichuan",
    "mistral-spm-v1",
    "mistral-spm-v3",
    "mistral-tekken-240718",
    "llama-bpe",
    "deepseek-coder",
    "command-r",
    "nomic-bert-moe",
    "qwen35",
)


def _available(names: tuple[str, ...]) -> list[Path]:
    have = {v.name: v.path for v in vocab_files()}
    return [have[n] for n in names if n in have]


def _text(name: str) -> str:
    """Every conformance input of the vocab (or llama.cpp's test inputs), in a fixed order."""
    texts = [row["text"] for row in conformance_rows(name)] + [t for t, _ in llama_test_cases(name)]
    return "\n".join(texts) + "\n\t\f  \u3000 \x00 <0x0A> \U0001f600" * 3


def _jobs(text: str) -> list[tuple[str, bool, bool, str]]:
    """(call, add_special, parse_special, slice): different overlapping slices per thread, so
    the threads meet the same new words at the same time and different ones too."""
    n = len(text)
    jobs = []
    for i in range(THREADS):
        start = (i * n) // (2 * THREADS)
        end = n - ((THREADS - 1 - i) * n) // (3 * THREADS)
        call = "encode" if i % 2 else "tokenize"
        jobs.append((call, i % 3 == 0, i % 4 == 1, text[start:end]))
    return jobs


def _run(tok: Tokenizer, job: tuple[str, bool, bool, str]) -> object:
    call, add_special, parse_special, text = job
    try:
        if call == "encode":
            return tok.encode(text, add_special=add_special, parse_special=parse_special)
        return [tuple(t) for t in tok.tokenize(text.encode(), add_special=add_special, parse_special=parse_special)]
    except Exception as exc:  # a race that raises is a wrong answer too
        return f"{type(exc).__name__}: {exc}"


@contextmanager
def _fast_switching() -> Iterator[None]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _threaded(tok: Tokenizer, jobs: list) -> list[object]:
    results: list[object] = [None] * len(jobs)
    barrier = threading.Barrier(len(jobs))

    def work(i: int) -> None:
        barrier.wait()
        results[i] = _run(tok, jobs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _check(path: Path, load_cached, mode: str) -> None:  # type: ignore[no-untyped-def]
    vocab = load_cached(path).vocab
    name = path.name.removesuffix(".gguf").removeprefix("ggml-vocab-")
    jobs = _jobs(_text(name))
    fresh = Tokenizer(vocab, paths=mode)
    expected = [_run(fresh, job) for job in jobs]
    assert not any(isinstance(e, str) for e in expected), expected
    with _fast_switching():
        for round_ in range(ROUNDS if mode != "reference" else 2):  # the reference shares no batch tables
            got = _threaded(Tokenizer(vocab, paths=mode), jobs)
            for i, (g, e) in enumerate(zip(got, expected)):
                assert g == e, f"{name}: round {round_}, thread {i} ({jobs[i][0]}): {str(g)[:200]}"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", _available(FAMILY_VOCABS), ids=lambda p: p.name)
def test_shared_tokenizer_in_threads_bundled(path: Path, load_cached, mode: str) -> None:  # type: ignore[no-untyped-def]
    _check(path, load_cached, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", SHARED_VOCABS)
def test_shared_tokenizer_in_threads_shared(name: str, load_cached, mode: str) -> None:  # type: ignore[no-untyped-def]
    paths = _available((name,))
    if not paths:
        pytest.skip(f"{name} not available (../shared missing or has no such vocab)")
    _check(paths[0], load_cached, mode)


@pytest.mark.parametrize("mode", MODES)
def test_plamo2_tokenizer_in_threads(tmp_path: Path, load_cached, mode: str) -> None:  # type: ignore[no-untyped-def]
    from fixtures.plamo2_vocab import write_plamo2_gguf

    path = write_plamo2_gguf(tmp_path / "plamo2.gguf")
    vocab = load_cached(path).vocab
    jobs = _jobs("Hello world, こんにちは\n" * 50 + "naïve café \x00\xff" * 30)
    expected = [_run(Tokenizer(vocab, paths=mode), job) for job in jobs]
    with _fast_switching():
        for _ in range(ROUNDS):
            assert _threaded(Tokenizer(vocab, paths=mode), jobs) == expected
