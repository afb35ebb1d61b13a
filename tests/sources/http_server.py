"""A local HTTP server for the remote-reading tests: serves files with or without Range, through
redirects, behind a token, slowly, or closing mid-body; counts the body bytes it sends.

URL paths: ``/MODE/NAME`` where MODE is ``range`` (honours Range), ``norange`` (always 200 with
the whole file), ``redirect`` (302 to ``/range/NAME`` on another port-less path), ``auth`` (401
unless ``Authorization: Bearer secret``), ``slow`` (sleeps between 64 KB chunks), ``close``
(closes the connection after ``close_after`` body bytes), ``html`` (a 200 login page).
Anything unknown is a 404 HTML page. ``/api/models/OWNER/REPO`` answers the hub's file list.

Hostile modes: ``away`` (302 to ``/range/NAME`` on the server ``redirect_to``; ``api_redirect_to``
does the same for the file list), ``trickle`` (one body byte each ``slow_delay`` s, for at most
``trickle_for`` s), ``tricklehead`` (the status line and headers that way), ``raw`` (``raw_reply``
verbatim, then close), ``badrange`` (a 206 whose Content-Range starts 5 bytes late), ``echo`` (a 401
whose reason phrase repeats the Authorization header; ``api_echo`` for the file list); ``api_trickle``
trickles the file list's headers.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TOKEN = "secret"


@dataclass
class ServerState:
    files: dict[str, Path]
    repos: dict[str, list[str]] = field(default_factory=dict)
    bytes_sent: int = 0
    requests: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    """(path, Range header, Authorization header) of each request."""
    close_after: int = 100_000
    slow_delay: float = 0.05
    redirect_to: str = ""
    api_redirect_to: str = ""
    api_echo: bool = False
    api_trickle: bool = False
    claim_size: int = 0
    """When set, ``range`` answers claim the file has this many bytes (Content-Range's total)."""
    trickle_for: float = 6.0
    raw_reply: bytes = b""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, n: int) -> None:
        with self.lock:
            self.bytes_sent += n


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: ServerState

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        st = self.state
        st.requests.append((self.path, self.headers.get("Range"), self.headers.get("Authorization")))
        m = re.match(r"^/api/models/([^/]+/[^/]+)$", self.path)
        if m and st.api_redirect_to:
            return self._redirect(f"{st.api_redirect_to}{self.path}")
        if m and st.api_echo:
            return self._hostile("echo", "", Path())
        if m and st.api_trickle:
            self.close_connection = True
            end = time.monotonic() + st.trickle_for
            for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + b"X-Pad: x\r\n" * 1000:
                if time.monotonic() > end:
                    return None
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(st.slow_delay)
            return None
        if m and m.group(1) in st.repos:
            body = json.dumps({"siblings": [{"rfilename": f} for f in st.repos[m.group(1)]]}).encode()
            return self._send(200, body, "application/json")
        m = re.match(r"^/(\w+)/(.+)$", self.path)
        if m is None:
            return self._send(404, b"<html>Not found</html>", "text/html")
        mode, name = m.groups()
        if name.split("/")[-1] in st.files and "/resolve/" in name:  # hub-style OWNER/REPO/resolve/REV/FILE
            name, mode = name.split("/")[-1], "range"
        path = st.files.get(name)
        if mode == "html":
            return self._send(200, b"<!DOCTYPE html><html><body>Log in</body></html>", "text/html")
        if mode == "raw":
            self.close_connection = True
            self.wfile.write(st.raw_reply)
            return None
        if path is not None and mode in ("away", "trickle", "tricklehead", "badrange", "echo"):
            return self._hostile(mode, name, path)
        if path is None or mode not in ("range", "norange", "redirect", "auth", "slow", "close"):
            return self._send(404, b"<!DOCTYPE html><html>404 Not Found</html>", "text/html")
        if mode == "redirect":
            self.send_response(302)
            self.send_header("Location", f"/range/{name}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if mode == "auth" and self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(401, b"<html>Unauthorized</html>", "text/html")
        size = path.stat().st_size
        rng = self.headers.get("Range")
        start, stop = 0, size
        status = 200
        if rng and mode != "norange":
            r = re.match(r"bytes=(\d+)-(\d*)$", rng)
            assert r is not None
            start = int(r.group(1))
            stop = min(size, int(r.group(2)) + 1) if r.group(2) else size
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            status = 206
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(stop - start))
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{stop - 1}/{st.claim_size or size}")
        self.end_headers()
        sent = 0
        with open(path, "rb") as fh:
            fh.seek(start)
            while start + sent < stop:
                n = min(65536, stop - start - sent)
                if mode == "close":
                    n = min(n, st.close_after - sent)
                    if n <= 0:
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return None
                chunk = fh.read(n)
                try:
                    self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    return None
                finally:
                    st.count(len(chunk))
                sent += len(chunk)
                if mode == "slow":
                    time.sleep(st.slow_delay)
        return None

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _hostile(self, mode: str, name: str, path: Path) -> None:
        st = self.state
        if mode == "away":
            return self._redirect(f"{st.redirect_to}/range/{name}")
        if mode == "echo":
            self.send_response(401, f"no {self.headers.get('Authorization')}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        data = path.read_bytes()
        r = re.match(r"bytes=(\d+)-(\d+)$", self.headers.get("Range") or "")
        start, stop = (int(r.group(1)), min(len(data), int(r.group(2)) + 1)) if r else (0, len(data))
        late = 5 if mode == "badrange" else 0
        head = (
            f"HTTP/1.1 206 Partial Content\r\nContent-Length: {stop - start - late}\r\n"
            f"Content-Range: bytes {start + late}-{stop - 1}/{len(data)}\r\n\r\n"
        ).encode()
        body = data[start + late : stop]
        self.close_connection = True
        if mode == "badrange":
            self.wfile.write(head + body)
            return None
        trickled, plain = (head, body) if mode == "tricklehead" else (b"", head + body)
        if mode == "trickle":
            trickled, plain = body, head
            self.wfile.write(plain)
        end = time.monotonic() + st.trickle_for
        try:
            for i in range(len(trickled)):
                if time.monotonic() > end:
                    return None
                self.wfile.write(trickled[i : i + 1])
                self.wfile.flush()
                time.sleep(st.slow_delay)
            if mode == "tricklehead":
                self.wfile.write(plain)
        except OSError:
            pass
        return None

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serve(files: dict[str, Path], **kwargs: object) -> Iterator[tuple[str, ServerState]]:
    """Serve ``files`` (name -> path) on 127.0.0.1; yields (base URL, state)."""
    state = ServerState(files=dict(files), **kwargs)  # type: ignore[arg-type]
    handler = type("Handler", (_Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
