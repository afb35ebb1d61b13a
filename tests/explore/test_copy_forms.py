"""The copied and exported text forms: lossless for partial UTF-8, byte offsets as the tokenizer counts."""

from __future__ import annotations

import doctest
import json

from support import ASSETS
from tui_tok import load_tokenizer, read_gguf
from tui_tok.explore import copy_forms
from tui_tok.explore.copy_forms import bytes_of, ids_list, json_str, pieces_list, text_of, token_records


def test_doctests() -> None:
    assert doctest.testmod(copy_forms).failed == 0


def test_pieces_keep_partial_utf8() -> None:
    pieces = [b"\xe6\x97", b"\xa5", "日本".encode(), b'"\n\t\x00']
    listed = pieces_list(pieces)
    assert "日本" in listed and "\n" not in listed and "\x00" not in listed
    assert [bytes_of(s) for s in json.loads(listed)] == pieces


def test_json_str_round_trips_invalid_bytes() -> None:
    data = b"a\r\nb\xff\xfe \xed\xa0\x80 \xf0\x9f\x99\x82"
    assert bytes_of(json.loads(json_str(text_of(data)))) == data


def test_ids_list_reads_as_json() -> None:
    assert json.loads(ids_list([0, 151643, 7])) == [0, 151643, 7]


def test_token_records_have_byte_offsets() -> None:
    tok = load_tokenizer(read_gguf(ASSETS / "qwen3-vocab.gguf"))
    data = "héllo 日本語 🙂\n".encode() + b"\xff"
    ids, starts, ends = tok.tokenize_arrays(data, add_special=False, parse_special=False)[:3]
    rows = [
        json.loads(line) for line in token_records(ids.tolist(), starts.tolist(), ends.tolist(), tok.token_to_piece)
    ]
    tokens = tok.tokenize(data, add_special=False, parse_special=False)
    assert [(r["id"], r["start"], r["end"]) for r in rows] == [(t.id, t.start, t.end) for t in tokens]
    assert rows[-1]["end"] == len(data)
    assert [bytes_of(r["piece"]) for r in rows] == [tok.token_to_piece(t.id) for t in tokens]
    # the text's bytes come back (llama.cpp reads the invalid byte 0xFF as U+FFFD)
    assert b"".join(bytes_of(r["piece"]) for r in rows) == data[:-1] + "\ufffd".encode()
