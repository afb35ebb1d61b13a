"""Read the first bytes of a remote GGUF file with HTTP range requests (standard library only).

``HttpSource`` is a ``ByteSource`` (see ``tui_tok.gguf.source``): the reader asks for the first n
bytes, this fetches only the ones it does not have yet (``Range: bytes=have-(n-1)``), so a 40 GB
model costs about its header. Redirects are followed by hand, keeping the Range header (hubs
redirect to CDNs); ``Authorization: Bearer <token>`` goes only to the host first named. A server
that ignores Range (status 200) is read as a stream and the connection closed as soon as the
metadata is parsed: tensors are never downloaded.

Errors are one line with the URL and the HTTP status (``GGUFOpenError``, exit 2): a 404, a login
page, an HTML page where GGUF was expected, a server that closes the connection mid-header.

Leaves out: which URL a shorthand means (resolve.py), parsing (``tui_tok.gguf``).
"""

from __future__ import annotations

import http.client
import re
import socket
from urllib.parse import urljoin, urlsplit

from tui_tok.errors import GGUFOpenError
from tui_tok.gguf.source import Progress

FIRST_READ = 256 * 1024
"""The first request's size; each later one at least doubles what is held."""
CHUNK = 64 * 1024
MAX_REDIRECTS = 10
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")


class HttpSource:
    """The first bytes of ``url``, fetched on demand; ``bytes_received`` counts body bytes."""

    def __init__(
        self, url: str, *, token: str | None = None, timeout: float = 30.0, progress: Progress | None = None
    ) -> None:
        self.url = url
        self.name = url
        self.size: int | None = None
        self.first_read = FIRST_READ
        self.token = token
        self.timeout = timeout
        self.progress = progress
        self.bytes_received = 0
        self.requests = 0
        self._host = urlsplit(url).netloc
        self._final_url = url  # after redirects: later ranges go straight there
        self._conn: http.client.HTTPConnection | None = None
        self._conn_key: tuple[str, str] | None = None
        self._stream: http.client.HTTPResponse | None = None  # a server that ignored Range
        self._parts: list[bytes] = []
        self._have = 0
        self._eof = False
        self._data = b""
        self._checked = False

    # -- ByteSource ---------------------------------------------------------------------

    def prefix(self, n: int) -> bytes:
        if self.size is not None:
            n = min(n, self.size)
        if n > self._have and not self._eof:
            if self._stream is not None:
                self._read_body(self._stream, n - self._have, 200)
            else:
                self._fetch(self._have, n)
        if len(self._parts) != 1:
            self._data = b"".join(self._parts)
            self._parts = [self._data]
        elif self._parts[0] is not self._data:
            self._data = self._parts[0]
        return self._data if n >= len(self._data) else self._data[:n]

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- requests -----------------------------------------------------------------------

    def _fetch(self, start: int, stop: int) -> None:
        """Bytes [start, stop) appended; a server that ignores Range turns into a stream."""
        for attempt in range(2):  # one retry of what a dropped connection did not deliver
            resp = self._get(start, stop)
            if resp.status == 206:
                self._content_range(resp)
                got = self._read_body(resp, stop - start, 206, allow_short=attempt == 0)
                if got == stop - start or self._eof:
                    return
                start += got
                self._drop_connection()
                continue
            if resp.status == 200:
                if self.size is None:
                    length = resp.getheader("Content-Length")
                    self.size = int(length) if length and length.isdigit() else None
                self._stream = resp
                if start:  # we hold the first `start` bytes already: skip them
                    self._skip(resp, start)
                self._read_body(resp, stop - start, 200)
                return
            if resp.status == 416:  # asked past the end: the file ends at `start`
                resp.read()
                self._eof = True
                self.size = start
                return
            self._fail_status(resp)
        raise GGUFOpenError(f"{self.url}: the server closed the connection after {self._have} bytes "
                            "of the header, twice; try again")

    def _get(self, start: int, stop: int) -> http.client.HTTPResponse:
        url = self._final_url
        for _ in range(MAX_REDIRECTS + 1):
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https"):
                raise GGUFOpenError(f"{self.url}: redirected to {url!r}, which is not http(s)")
            headers = {"Range": f"bytes={start}-{stop - 1}", "User-Agent": "tui-tok",
                       "Accept-Encoding": "identity"}
            if self.token and parts.netloc == self._host:
                headers["Authorization"] = f"Bearer {self.token}"
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            resp = self._request(parts.scheme, parts.netloc, path, headers)
            if resp.status in (301, 302, 303, 307, 308):
                location = resp.getheader("Location")
                resp.read()
                if not location:
                    raise GGUFOpenError(f"{self.url}: HTTP {resp.status} redirect without a Location")
                url = urljoin(url, location)
                continue
            self._final_url = url
            return resp
        raise GGUFOpenError(f"{self.url}: more than {MAX_REDIRECTS} redirects")

    def _request(self, scheme: str, netloc: str, path: str, headers: dict[str, str]) -> http.client.HTTPResponse:
        for attempt in range(2):  # a kept-alive connection the server has since closed: once more
            conn = self._connection(scheme, netloc)
            try:
                conn.request("GET", path, headers=headers)
                self.requests += 1
                return conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self._drop_connection()
                if attempt:
                    raise GGUFOpenError(f"{self.url}: the server closed the connection without answering") from None
            except socket.timeout:
                self._drop_connection()
                raise GGUFOpenError(f"{self.url}: no answer within {self.timeout:g} s") from None
            except OSError as exc:
                self._drop_connection()
                raise GGUFOpenError(f"{self.url}: cannot connect to {netloc}: {exc.strerror or exc}") from None
        raise AssertionError("unreachable")

    def _connection(self, scheme: str, netloc: str) -> http.client.HTTPConnection:
        if self._conn is None or self._conn_key != (scheme, netloc):
            self._drop_connection()
            cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
            self._conn = cls(netloc, timeout=self.timeout)
            self._conn_key = (scheme, netloc)
        return self._conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None

    def _content_range(self, resp: http.client.HTTPResponse) -> None:
        m = _CONTENT_RANGE.match(resp.getheader("Content-Range") or "")
        if m and m.group(3) != "*":
            self.size = int(m.group(3))

    def _read_body(self, resp: http.client.HTTPResponse, n: int, status: int, allow_short: bool = False) -> int:
        """Append up to ``n`` bytes of ``resp``; returns how many came (fewer: it ended or dropped)."""
        got = 0
        while got < n:
            try:
                chunk = resp.read(min(CHUNK, n - got))
            except http.client.IncompleteRead as exc:
                chunk = exc.partial
                self._append(chunk, resp, status)
                got += len(chunk)
                if allow_short:
                    return got
                raise GGUFOpenError(self._closed_message()) from None
            except socket.timeout:
                raise GGUFOpenError(f"{self.url}: no data for {self.timeout:g} s after {self._have} bytes") from None
            except OSError as exc:
                if allow_short:
                    return got
                raise GGUFOpenError(f"{self.url}: {exc.strerror or exc} after {self._have} bytes") from None
            if not chunk:
                if status == 200 or (self.size is not None and self._have >= self.size):
                    self._eof = True
                    return got
                if allow_short:
                    return got
                raise GGUFOpenError(self._closed_message())
            self._append(chunk, resp, status)
            got += len(chunk)
        return got

    def _append(self, chunk: bytes, resp: http.client.HTTPResponse, status: int) -> None:
        if not chunk:
            return
        self._parts.append(chunk)
        self._have += len(chunk)
        self.bytes_received += len(chunk)
        if not self._checked and self._have >= 4:
            self._checked = True
            head = b"".join(self._parts)[:4]
            if head != b"GGUF":
                self._not_gguf(resp, status)
        if self.progress is not None:
            self.progress(self._have, self.size)

    def _skip(self, resp: http.client.HTTPResponse, n: int) -> None:
        while n > 0:
            chunk = resp.read(min(CHUNK, n))
            if not chunk:
                raise GGUFOpenError(self._closed_message())
            self.bytes_received += len(chunk)
            n -= len(chunk)

    def _closed_message(self) -> str:
        total = f" of {self.size}" if self.size is not None else ""
        return f"{self.url}: the server closed the connection after {self._have}{total} bytes, before the metadata ended"

    def _not_gguf(self, resp: http.client.HTTPResponse, status: int) -> None:
        kind = resp.getheader("Content-Type") or "no content type"
        head = b"".join(self._parts)[:32]
        raise GGUFOpenError(f"{self.url}: HTTP {status} ({kind}) is not a GGUF file (it starts with {head!r})")

    def _fail_status(self, resp: http.client.HTTPResponse) -> None:
        kind = resp.getheader("Content-Type") or "no content type"
        resp.read(4096)
        hint = ""
        if resp.status in (401, 403):
            hint = (" (a private or gated model? set HF_TOKEN)" if not self.token
                    else " (HF_TOKEN was sent: does it grant access to this repository?)")
        elif resp.status == 404:
            hint = " (check the owner, repository and file name)"
        self._drop_connection()
        raise GGUFOpenError(f"{self.url}: HTTP {resp.status} {resp.reason} ({kind}){hint}")
