"""``tui-tok info --json --full`` against gguf-py's ``GGUFReader`` (types, values, tensors), and the
bounded ``--json`` summary."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_support import run_cli

from support import ASSETS, gguf_py, vocab_files
from tui_tok.gguf import GGUFValue, GGUFValueType, write_gguf

_T = GGUFValueType


def _full(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    code, out, err = run_cli(capsys, "info", "--json", "--full", str(path))
    assert code == 0, err
    return json.loads(out)


def _as_bytes(v: Any) -> bytes:
    return bytes.fromhex(v["hex"]) if isinstance(v, dict) else v.encode("utf-8")


def _f32(x: Any) -> Any:
    """What the dump must print for an f32 read by gguf-py: the shortest round-trip decimal."""
    s = str(np.float32(x))
    return float(s) if math.isfinite(float(s)) else s


def _check_field(ours: dict[str, Any], field: Any, gg: Any) -> None:
    types = [gg.GGUFValueType(t) for t in field.types]
    assert ours["type"] == ("array" if types[0] == gg.GGUFValueType.ARRAY else _T(types[0]).short_name)
    if types[0] == gg.GGUFValueType.ARRAY:
        item = _T(types[-1]) if len(types) > 1 else _T.STRING
        assert ours["count"] == len(field.data)
        if item == _T.ARRAY:
            return  # nested arrays: gguf-py does not read them back as values either
        assert ours["item_type"] == item.short_name
        if item == _T.STRING:
            assert [_as_bytes(v) for v in ours["value"]] == [field.parts[i].tobytes() for i in field.data]
        elif item == _T.FLOAT32:
            assert ours["value"] == [_f32(x) for x in field.contents()]
        else:
            assert ours["value"] == field.contents()
        return
    raw = field.parts[-1]
    if types[0] == gg.GGUFValueType.STRING:
        assert _as_bytes(ours["value"]) == raw.tobytes()
    elif types[0] == gg.GGUFValueType.FLOAT32:
        assert ours["value"] == _f32(raw[0])
    elif types[0] == gg.GGUFValueType.BOOL:
        assert ours["value"] is bool(raw[0])
    else:
        assert ours["value"] == raw[0].item()


GGUF_PY_ALL = os.environ.get("TUI_TOK_GGUF_PY_ALL") == "1"
"""gguf-py takes 10-50 s to read each vocab over 2 MB: those run only when this is set (all 26 pass)."""


@pytest.mark.parametrize("vf", vocab_files(), ids=lambda v: v.name)
def test_full_dump_equals_gguf_py(vf, capsys: pytest.CaptureFixture[str]) -> None:
    gg = gguf_py()
    if vf.path.stat().st_size > 1_400_000 and not GGUF_PY_ALL:
        pytest.skip("gguf-py needs 10-50 s for this file: set TUI_TOK_GGUF_PY_ALL=1 to compare it")
    doc = _full(capsys, vf.path)
    reader = gg.GGUFReader(str(vf.path))
    fields = {k: f for k, f in reader.fields.items() if not k.startswith("GGUF.")}
    assert list(doc["metadata"]) == list(fields)
    for key, field in fields.items():
        _check_field(doc["metadata"][key], field, gg)
    assert doc["gguf_version"] == int(reader.fields["GGUF.version"].parts[-1][0])
    assert len(doc["tensors"]) == len(reader.tensors)
    for ours, t in zip(doc["tensors"], reader.tensors):
        assert (ours["name"], ours["shape"], ours["type"]) == (t.name, t.shape.tolist(), t.tensor_type.name)
        assert (doc["data_offset"] + ours["offset"], ours["bytes"]) == (t.data_offset, t.n_bytes)


def test_full_dump_of_types_and_tensors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """u32, i32 and f32 stay apart; f32 prints shortest; tensors listed with shape, type, offset, bytes."""
    gg = gguf_py()
    p = write_gguf(
        tmp_path / "t.gguf",
        {
            "u": GGUFValue(_T.UINT32, 7),
            "i": GGUFValue(_T.INT32, 7),
            "f": GGUFValue(_T.FLOAT32, 1e-6),
            "d": GGUFValue(_T.FLOAT64, 0.1),
            "b": True,
            "nan": GGUFValue(_T.FLOAT32, float("nan")),
            "a": np.arange(40, dtype=np.int16),
            "nested": GGUFValue(_T.ARRAY, [[1, 2], ["x"]], _T.ARRAY),
        },
        tensors=[("w", (64, 3), 8), ("b", (3,), 0)],
    )
    doc = _full(capsys, p)
    meta = doc["metadata"]
    assert meta["u"] == {"type": "u32", "value": 7} and meta["i"] == {"type": "i32", "value": 7}
    assert meta["f"] == {"type": "f32", "value": 1e-06} and meta["d"] == {"type": "f64", "value": 0.1}
    assert meta["b"] == {"type": "bool", "value": True} and meta["nan"] == {"type": "f32", "value": "nan"}
    assert meta["a"] == {"type": "array", "item_type": "i16", "count": 40, "value": list(range(40))}
    assert meta["nested"]["value"][1] == {"type": "array", "item_type": "string", "count": 1, "value": ["x"]}
    assert doc["tensors"] == [
        {"name": "w", "shape": [64, 3], "type": "Q8_0", "type_code": 8, "offset": 0, "bytes": 204},
        {"name": "b", "shape": [3], "type": "F32", "type_code": 0, "offset": 224, "bytes": 12},
    ]
    reader = gg.GGUFReader(str(p))
    assert [t.data_offset for t in reader.tensors] == [doc["data_offset"] + t["offset"] for t in doc["tensors"]]


def test_summary_caps_long_strings_and_says_how_long(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    big = "x" * 3_000_000 + "\udcff"  # invalid UTF-8 at the end: the old code printed it all, as hex too
    p = write_gguf(tmp_path / "s.gguf", {"big": big, "nested": GGUFValue(_T.ARRAY, [list(range(100))], _T.ARRAY)})
    code, out, _ = run_cli(capsys, "info", "--json", str(p))
    assert code == 0 and len(out) < 20_000
    meta = json.loads(out)["metadata"]
    assert meta["big"]["length"] == 3_000_001 and meta["big"]["head"] == "x" * 4096
    assert meta["nested"][0]["length"] == 100
    code, out, _ = run_cli(capsys, "info", "--json", "--full", str(p))
    assert json.loads(out)["metadata"]["big"]["value"]["hex"].endswith("78ff")


def test_assets_full_dump_roundtrips_f32(capsys: pytest.CaptureFixture[str]) -> None:
    """Every f32 score printed reads back as the same f32, in its shortest form."""
    doc = _full(capsys, ASSETS / "ggml-vocab-phi-3.gguf")
    scores = doc["metadata"]["tokenizer.ggml.scores"]["value"]
    assert all(float(str(np.float32(s))) == s for s in scores)
    assert -1e9 in scores and 1e-06 not in scores
