"""Fake model stores in a temporary home, laid out as ollama, the Hugging Face hub cache,
LM Studio and llama.cpp lay them out (with real GGUF files from assets/)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from support import ASSETS

PHI3 = ASSETS / "ggml-vocab-phi-3.gguf"
QWEN3 = ASSETS / "qwen3-vocab.gguf"
BERT = ASSETS / "ggml-vocab-bert-bge.gguf"
T5 = ASSETS / "t5-botchan-en-unigram-1000.gguf"


def _blob(folder: Path, src: Path) -> str:
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, folder / f"sha256-{digest}")
    return f"sha256:{digest}"


def ollama_model(models: Path, name: str, tag: str, src: Path, *, namespace: str = "library") -> None:
    """``manifests/registry.ollama.ai/NAMESPACE/NAME/TAG`` naming a model blob (and a template blob)."""
    model = _blob(models / "blobs", src)
    template = models / "blobs" / "sha256-0000"
    template.write_text("{{ .Prompt }}")
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": "sha256:0000"},
        "layers": [
            {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:0000", "size": 13},
            {"mediaType": "application/vnd.ollama.image.model", "digest": model, "size": src.stat().st_size},
        ],
    }
    path = models / "manifests" / "registry.ollama.ai" / namespace / name / tag
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest))


def hf_cached(hub: Path, repo: str, filename: str, src: Path) -> Path:
    """``models--OWNER--REPO/snapshots/REV/FILE`` as a symlink into ``blobs/`` (how the hub caches)."""
    root = hub / ("models--" + repo.replace("/", "--"))
    blobs = root / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    shutil.copyfile(src, blobs / digest)
    snap = root / "snapshots" / "0123abcd" / filename
    snap.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(blobs / digest, snap.parent), snap)
    (root / "refs").mkdir(exist_ok=True)
    (root / "refs" / "main").write_text("0123abcd")
    return snap


def build_home(home: Path) -> dict[str, Path]:
    """One model in each store (two in ollama); returns where each landed."""
    ollama = home / ".ollama" / "models"
    ollama_model(ollama, "phi3", "mini", PHI3)
    ollama_model(ollama, "qwen3", "latest", QWEN3)
    hf = hf_cached(home / ".cache" / "huggingface" / "hub", "Qwen/Qwen3-GGUF", "Qwen3-Q4_K_M.gguf", QWEN3)
    lms = home / ".lmstudio" / "models" / "bge" / "bge-GGUF" / "bge-small.gguf"
    lms.parent.mkdir(parents=True)
    shutil.copyfile(BERT, lms)
    lcpp = home / ".cache" / "llama.cpp" / "ggml-org_t5-GGUF_t5-unigram.gguf"
    lcpp.parent.mkdir(parents=True)
    shutil.copyfile(T5, lcpp)
    return {"hf": hf, "lmstudio": lms, "llama.cpp": lcpp}


def home_env(home: Path) -> dict[str, str]:
    """An environment whose stores are all under ``home`` (no variable overriding them)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OLLAMA_MODELS", "HF_HOME", "HF_HUB_CACHE", "LLAMA_CACHE", "XDG_CACHE_HOME")
    }
    env["HOME"] = str(home)
    return env


def sparse_liar(path: Path, *, claimed: int = 20 * 1024**3, size: int = 21 * 1024**3) -> Path | None:
    """A GGUF file of ``size`` bytes (sparse: a hole after its header) whose ``general.name`` claims a
    ``claimed``-byte string; None when this filesystem does not make sparse files."""
    import struct

    key = b"general.name"
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key + struct.pack("<IQ", 8, claimed)
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)
    if path.stat().st_blocks * 512 > 64 * 1024**2:
        path.unlink()
        return None
    return path


def limited_run(args: list[str], env: dict[str, str], *, memory: int = 3 * 1024**3, timeout: float = 60):  # type: ignore[no-untyped-def]
    """``python -m tui_tok ARGS`` with its address space capped at ``memory`` bytes, so a regression
    that allocates what a file claims fails with MemoryError instead of taking the machine's memory."""
    import resource
    import subprocess
    import sys

    from support import ROOT

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = dict(env, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "tui_tok", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
        preexec_fn=cap,
    )
