"""``tui-tok explain``: the readable report, --json (the issue's object), --jsonl, why-not, errors."""

from __future__ import annotations

import io
import json

from support import ASSETS
from tui_tok.cli import main

GPT2 = str(ASSETS / "ggml-vocab-gpt-2.gguf")


def test_json_object(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["explain", GPT2, "Hello world<|endoftext|>", "--parse-special", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert set(obj) == {"ids", "fragments"}
    assert [f["special"] for f in obj["fragments"]] == [False, True]
    chunk = obj["fragments"][0]["chunks"][1]
    assert set(chunk) == {"start", "end", "ids", "steps"} and (chunk["start"], chunk["end"]) == (5, 11)
    assert chunk["steps"][0] == {"left": "Ġ", "right": "w", "rank": 10}
    assert obj["fragments"][1] == {"start": 11, "end": 24, "special": True, "ids": [50256], "chunks": []}


def test_jsonl(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    stdin = io.TextIOWrapper(io.BytesIO(b'{"text": "a b"}\n\n{"text": "<|endoftext|>", "parse_special": true}\n'))
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["explain", GPT2, "--jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["ids"] for x in lines] == [[64, 275], [50256]]


def test_report_and_why_not(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["explain", GPT2, "Hello", "--why-not", "Hel|lo"]) == 0
    out = capsys.readouterr().out
    assert "merge 'l' + 'l'  (rank 41)" in out
    assert "why not 'Hel|lo'?" in out and "erased by step 1" in out


def test_bad_jsonl_is_one_line(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"nope\n")))
    assert main(["explain", GPT2, "--jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tui-tok: error: stdin line 1: not JSON") and err.count("\n") == 1


def test_why_not_tells_what_the_trace_did(capsys) -> None:  # type: ignore[no-untyped-def]
    qwen3 = str(ASSETS / "qwen3-vocab.gguf")
    assert main(["explain", qwen3, " tokenization", "--why-not-token", "ation"]) == 0
    out = capsys.readouterr().out
    assert "     7. merge 'at' + 'ion'  (rank 111)" in out
    assert (
        "'ation' was built at step 7 ('at' + 'ion', rank 111), then absorbed into 'ization' by step 9 ('iz' + 'ation', rank 1766)"
        in out
    )
    assert "would need" not in out
    assert main(["explain", qwen3, " tokenization", "--why-not", "|"]) == 0
    tail = capsys.readouterr().out.split("why not")[1]
    assert "empty piece" in tail and tail.count("\n") == 1
