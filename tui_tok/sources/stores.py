"""Find the GGUF files other tools already downloaded: ollama, the Hugging Face cache, LM Studio,
llama.cpp's cache.

Layouts (the directories honour the tools' own environment variables):

- ollama: ``$OLLAMA_MODELS`` or ``~/.ollama/models``; ``manifests/HOST/NAMESPACE/MODEL/TAG`` is JSON
  whose layer of media type ``application/vnd.ollama.image.model`` names ``blobs/sha256-HEX``.
- Hugging Face: ``$HF_HUB_CACHE``, or ``$HF_HOME/hub``, or ``~/.cache/huggingface/hub``;
  ``models--OWNER--REPO/snapshots/REV/…/*.gguf`` (symlinks into ``blobs/``).
- LM Studio: ``~/.lmstudio/models`` and ``~/.cache/lm-studio/models``: ``PUBLISHER/REPO/*.gguf``.
- llama.cpp: ``$LLAMA_CACHE``, or ``$XDG_CACHE_HOME/llama.cpp``, or ``~/.cache/llama.cpp``.

Only paths are found here; reading them is the caller's (``tui-tok --list`` reads each header).
A manifest is read as bounded JSON (``tui_tok.json_input``: regular files only, 1 MiB, 32 deep) and a
digest must be ``sha256:`` and 64 hex digits: one bad entry (a FIFO, a deeply nested or lying
manifest) is left out of the list, and is a one-line error when named.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from tui_tok.errors import GGUFOpenError
from tui_tok.json_input import JSONInputError, read_json_file

OLLAMA_MODEL_MEDIA = "application/vnd.ollama.image.model"
OLLAMA_HOST = "registry.ollama.ai"
_MAX_FILES = 10_000  # a walk stops here: a store is not a whole disk
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_MANIFEST_LIMITS = {"max_bytes": 1 << 20, "max_depth": 32, "max_containers": 4096}


@dataclass(frozen=True, slots=True)
class StoredModel:
    """A GGUF file found in a tool's store."""

    store: str
    """``ollama``, ``huggingface``, ``lmstudio`` or ``llama.cpp``."""
    name: str
    """How that tool names it (``qwen3:8b``, ``Qwen/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf``)."""
    path: Path
    """The file (for ollama, its blob)."""
    size: int
    """Its size in bytes."""

    @property
    def spec(self) -> str:
        """What to pass to ``tui-tok`` to open it again."""
        return f"ollama:{self.name}" if self.store == "ollama" else str(self.path)


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def ollama_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env["OLLAMA_MODELS"]) if env.get("OLLAMA_MODELS") else _home(env) / ".ollama" / "models"


def hf_hub_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("HF_HUB_CACHE"):
        return Path(env["HF_HUB_CACHE"])
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]) / "hub"
    return _home(env) / ".cache" / "huggingface" / "hub"


def lmstudio_dirs(env: Mapping[str, str] | None = None) -> list[Path]:
    env = os.environ if env is None else env
    return [_home(env) / ".lmstudio" / "models", _home(env) / ".cache" / "lm-studio" / "models"]


def llama_cpp_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("LLAMA_CACHE"):
        return Path(env["LLAMA_CACHE"])
    cache = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else _home(env) / ".cache"
    return cache / "llama.cpp"


def find_models(env: Mapping[str, str] | None = None) -> list[StoredModel]:
    """Every GGUF file in the four stores, store by store, names sorted."""
    env = os.environ if env is None else env
    found: list[StoredModel] = []
    found += sorted(_ollama_models(env), key=lambda m: m.name)
    hub = hf_hub_dir(env)
    found += sorted(
        (StoredModel("huggingface", _hf_name(hub, p), p, _size(p)) for p in _ggufs(hub)), key=lambda m: m.name
    )
    for d in lmstudio_dirs(env):
        found += sorted(
            (StoredModel("lmstudio", str(p.relative_to(d)), p, _size(p)) for p in _ggufs(d)), key=lambda m: m.name
        )
    cache = llama_cpp_dir(env)
    found += sorted(
        (StoredModel("llama.cpp", str(p.relative_to(cache)), p, _size(p)) for p in _ggufs(cache)), key=lambda m: m.name
    )
    return found


def ollama_blob(name: str, *, env: Mapping[str, str] | None = None) -> Path:
    """The model blob of ollama's ``NAME[:TAG]`` (``qwen3``, ``qwen3:8b``, ``user/m:tag``, ``host/ns/m:tag``)."""
    root = ollama_dir(env)
    manifest = root / "manifests" / _ollama_manifest_path(name)
    if not os.path.lexists(manifest):
        have = ", ".join(m.name for m in _ollama_models(os.environ if env is None else env)) or "none"
        raise GGUFOpenError(f"ollama:{name}: no such model in {root} (models there: {have})")
    try:
        data = read_json_file(manifest, **_MANIFEST_LIMITS)
    except JSONInputError as exc:
        raise GGUFOpenError(f"ollama:{name}: its manifest {manifest}: {exc}") from None
    digest = _model_digest(data)
    if digest is None:
        raise GGUFOpenError(f"ollama:{name}: its manifest {manifest} names no model layer (as sha256:HEX)")
    return root / "blobs" / digest.replace(":", "-")


def _ollama_manifest_path(name: str) -> Path:
    base, _, tag = name.rpartition(":") if ":" in name.rsplit("/", 1)[-1] else (name, "", "latest")
    parts = base.split("/")
    if len(parts) == 1:
        parts = [OLLAMA_HOST, "library", *parts]
    elif len(parts) == 2:
        parts = [OLLAMA_HOST, *parts]
    if any(p in ("", ".", "..") or any(ord(c) < 0x20 for c in p) for p in [*parts, tag]):
        raise GGUFOpenError(f"ollama:{name!r}: not a model name (NAME[:TAG])")
    return Path(*parts, tag)


def _model_digest(data: object) -> str | None:
    layers = data.get("layers") if isinstance(data, dict) else None
    for layer in layers if isinstance(layers, list) else []:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_MEDIA:
            digest = layer.get("digest")
            if isinstance(digest, str) and _DIGEST.fullmatch(digest):
                return digest
    return None


def _ollama_models(env: Mapping[str, str]) -> Iterator[StoredModel]:
    root = ollama_dir(env)
    manifests = root / "manifests"
    if not manifests.is_dir():
        return
    for manifest in _walk(manifests, lambda p: True):
        rel = manifest.relative_to(manifests).parts
        if len(rel) != 4:
            continue
        host, ns, model, tag = rel
        try:
            digest = _model_digest(read_json_file(manifest, **_MANIFEST_LIMITS))
        except JSONInputError:
            continue
        if digest is None:
            continue
        blob = root / "blobs" / digest.replace(":", "-")
        if not blob.is_file():
            continue
        name = (
            f"{model}:{tag}"
            if (host, ns) == (OLLAMA_HOST, "library")
            else (f"{ns}/{model}:{tag}" if host == OLLAMA_HOST else f"{host}/{ns}/{model}:{tag}")
        )
        yield StoredModel("ollama", name, blob, _size(blob))


def _hf_name(hub: Path, p: Path) -> str:
    rel = p.relative_to(hub).parts  # models--OWNER--REPO, snapshots, REV, *file
    repo = rel[0].removeprefix("models--").replace("--", "/")
    return f"{repo}/{'/'.join(rel[3:])}"


def _ggufs(root: Path) -> Iterator[Path]:
    if root.is_dir():
        yield from _walk(root, lambda p: p.name.lower().endswith(".gguf") and ".incomplete" not in p.name)


def _walk(root: Path, want: object) -> Iterator[Path]:
    n = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "blobs")
        for f in sorted(filenames):
            p = Path(dirpath) / f
            if callable(want) and want(p) and p.is_file():
                yield p
                n += 1
                if n >= _MAX_FILES:
                    return


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0
