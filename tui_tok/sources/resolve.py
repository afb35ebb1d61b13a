"""What a model argument names: a local path, a URL, or a shorthand that resolves to one.

- ``http://…`` / ``https://…``: read by range (http.py).
- ``hf:OWNER/REPO/FILE.gguf`` (or ``hf://…``): the hub's download URL for that file
  (``$HF_ENDPOINT``, default https://huggingface.co; ``@REV`` after REPO picks a revision).
- ``OWNER/REPO:QUANT`` (llama.cpp's ``-hf`` syntax, when no such local path exists): asks the hub
  which ``.gguf`` files the repository has and picks the one whose name holds QUANT as a word
  (Q4_K does not match Q4_K_M); of a split model, the first shard.
- ``ollama:NAME[:TAG]``: the model blob in ollama's store (stores.py).
- anything else: a local path.

Network modules are imported only when a hub is asked (a local open pays nothing for them).
Split models (``-00001-of-00003.gguf``): the first shard holds the model's metadata;
``split_of`` says which shard a file is.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui_tok.errors import GGUFOpenError

DEFAULT_ENDPOINT = "https://huggingface.co"
_SPLIT = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)
_REPO_QUANT = re.compile(r"^([\w.-]+)/([\w.-]+):([\w.-]+)$")
_REPO_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,95}")
"""An owner or repository name as the hub allows them (huggingface_hub's ``validate_repo_id``)."""
_REVISION = re.compile(r"[A-Za-z0-9_.\-/]{1,255}")


@dataclass(frozen=True, slots=True)
class Resolved:
    """Where a model argument's bytes are."""

    spec: str
    """The argument as given."""
    path: Path | None = None
    """A local file, or None for a URL."""
    url: str | None = None
    """The URL to read by range, or None for a local file."""


def hf_endpoint(env: Any = None) -> str:
    env = os.environ if env is None else env
    return str(env.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def resolve(spec: str, *, env: Any = None) -> Resolved:
    """Map a model argument to a local path or a URL (may ask the hub which files a repo has)."""
    env = os.environ if env is None else env
    if spec.startswith(("http://", "https://")):
        from tui_tok.sources.http import check_url

        check_url(spec, "URL")
        return Resolved(spec, url=spec)
    if spec.startswith("hf:"):
        return Resolved(spec, url=hf_file_url(spec.removeprefix("hf:").removeprefix("//"), env=env))
    if spec.startswith("ollama:"):
        from tui_tok.sources.stores import ollama_blob

        return Resolved(spec, path=ollama_blob(spec.removeprefix("ollama:"), env=env))
    m = _REPO_QUANT.match(spec)
    if m and not os.path.exists(spec):
        owner, repo, quant = m.groups()
        return Resolved(spec, url=hf_quant_url(owner, repo, quant, env=env))
    return Resolved(spec, path=Path(spec))


def hf_file_url(rest: str, *, env: Any = None) -> str:
    """``OWNER/REPO[@REV]/PATH/FILE.gguf`` -> ``{endpoint}/OWNER/REPO/resolve/REV/PATH/FILE.gguf``."""
    import urllib.parse

    parts = rest.split("/")
    if len(parts) < 3 or not all(parts):
        raise GGUFOpenError(f"hf:{rest!r}: expected hf:OWNER/REPO/FILE.gguf")
    owner, repo, *path = parts
    repo, _, rev = repo.partition("@")
    check_repo(owner, repo, f"hf:{rest!r}")
    if rev and (not _REVISION.fullmatch(rev) or ".." in rev):
        raise GGUFOpenError(f"hf:{rest!r}: {rev!r} is not a revision (a branch, tag or commit)")
    if any(p in (".", "..") or any(ord(c) < 0x20 or c == "\x7f" for c in p) for p in path):
        raise GGUFOpenError(f"hf:{rest!r}: the file path holds '.', '..' or control characters")
    quoted = "/".join(urllib.parse.quote(p, safe="") for p in path)
    return f"{hf_endpoint(env)}/{owner}/{repo}/resolve/{urllib.parse.quote(rev or 'main', safe='')}/{quoted}"


def check_repo(owner: str, repo: str, what: str) -> None:
    """OWNER and REPO as the hub names them: letters, digits, ``_.-``, no ``..`` or ``--``, at most
    96 characters (a ``?``, ``#``, ``/`` or control character would change the URL asked for)."""
    for name in (owner, repo):
        if not _REPO_PART.fullmatch(name) or ".." in name or "--" in name or name.endswith((".", "-")):
            raise GGUFOpenError(
                f"{what}: {name!r} is not a hub owner or repository name (letters, digits, '_', '.', '-')"
            )


def hf_quant_url(owner: str, repo: str, quant: str, *, env: Any = None) -> str:
    """The download URL of REPO's GGUF file for QUANT (its first shard when split)."""
    files = hf_repo_files(owner, repo, env=env)
    word = re.compile(rf"(?<![A-Za-z0-9]){re.escape(quant)}(?![A-Za-z0-9_])", re.IGNORECASE)
    ggufs = [f for f in files if f.lower().endswith(".gguf")]
    hits = [f for f in ggufs if word.search(f.rsplit("/", 1)[-1]) and "mmproj" not in f.lower()]
    firsts = [f for f in hits if (s := split_of(f)) is None or s[0] == 1]
    if not firsts:
        have = ", ".join(sorted({f.rsplit("/", 1)[-1] for f in ggufs})[:12]) or "none"
        raise GGUFOpenError(
            f"{owner}/{repo}:{quant}: no GGUF file for {quant!r} in the repository (GGUF files: {have})"
        )
    if len(firsts) > 1:
        raise GGUFOpenError(
            f"{owner}/{repo}:{quant}: {len(firsts)} files match ({', '.join(sorted(firsts))}); "
            f"name one with hf:{owner}/{repo}/FILE.gguf"
        )
    return hf_file_url(f"{owner}/{repo}/{firsts[0]}", env=env)


def hf_repo_files(owner: str, repo: str, *, env: Any = None) -> list[str]:
    """The file names of a hub repository (its model API: ``siblings[].rfilename``)."""
    import http.client
    import time
    import urllib.error
    import urllib.request

    from tui_tok.json_input import JSONInputError, load_json
    from tui_tok.sources.http import (
        TokenRedirects,
        Watchdog,
        check_url,
        deadline_from_env,
        origin,
        read_until,
        token_for,
    )

    env = os.environ if env is None else env
    check_repo(owner, repo, f"{owner}/{repo}")
    endpoint = hf_endpoint(env)
    url = f"{endpoint}/api/models/{owner}/{repo}"
    check_url(url, "HF_ENDPOINT")
    token_origin = origin(endpoint)
    req = urllib.request.Request(url, headers={"User-Agent": "tui-tok"})
    token = token_for(url, env.get("HF_TOKEN"), token_origin)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    deadline = deadline_from_env(env)
    watchdog = Watchdog(deadline)  # a server trickling its headers meets it too
    opener = urllib.request.build_opener(TokenRedirects(token_origin), *watchdog.handlers())
    watchdog.start()
    try:
        with opener.open(req, timeout=min(30.0, deadline)) as resp:
            body = read_until(resp, 16 << 20, time.monotonic() + deadline)
        data = load_json(body, max_bytes=16 << 20, max_depth=32)
    except urllib.error.HTTPError as exc:
        hint = " (a private or gated model? set HF_TOKEN)" if exc.code in (401, 403) else ""
        raise GGUFOpenError(_scrub(f"{owner}/{repo}: HTTP {exc.code} {exc.reason} from {url}{hint}", token)) from None
    except JSONInputError as exc:
        if watchdog.expired:  # the watchdog cut the reply short
            raise GGUFOpenError(f"{owner}/{repo}: {url} did not answer within {deadline:g} s") from None
        raise GGUFOpenError(f"{owner}/{repo}: {url} did not answer with JSON: {exc}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
        if watchdog.expired or isinstance(exc, TimeoutError):  # read_until's deadline, or the watchdog's
            raise GGUFOpenError(f"{owner}/{repo}: {url} did not answer within {deadline:g} s") from None
        why = getattr(exc, "reason", None) or type(exc).__name__
        raise GGUFOpenError(_scrub(f"{owner}/{repo}: cannot reach {url}: {why}", token)) from None
    finally:
        watchdog.cancel()
    siblings = data.get("siblings") if isinstance(data, dict) else None
    if not isinstance(siblings, list):
        raise GGUFOpenError(f"{owner}/{repo}: {url} lists no files")
    return [s["rfilename"] for s in siblings if isinstance(s, dict) and isinstance(s.get("rfilename"), str)]


def _scrub(message: str, token: str | None) -> str:
    """``message`` without the token (a server's reason phrase may repeat what it was sent)."""
    return message.replace(token, "<HF_TOKEN>") if token else message


def split_of(name: str) -> tuple[int, int] | None:
    """``model-00001-of-00003.gguf`` -> ``(1, 3)``; None for a file that is not a shard.

    >>> split_of("x/Qwen3-Q8_0-00002-of-00004.gguf"), split_of("a.gguf")
    ((2, 4), None)
    """
    m = _SPLIT.search(name)
    return (int(m.group(1)), int(m.group(2))) if m else None
