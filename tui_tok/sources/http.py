"""Read the first bytes of a remote GGUF file with HTTP range requests (standard library only).

``HttpSource`` is a ``ByteSource`` (see ``tui_tok.gguf.source``): the reader asks for the first n
bytes, this fetches only the ones it does not have yet (``Range: bytes=have-(n-1)``), so a 40 GB
model costs about its header. Redirects are followed by hand, keeping the Range header (hubs
redirect to CDNs). A server that ignores Range (status 200) is read as a stream and the connection
closed as soon as the metadata is parsed: tensors are never downloaded.

The token (``Authorization: Bearer``) goes only to ``token_origin`` (scheme, host, port: the
caller passes ``HF_ENDPOINT``'s, see ``token_for``), as huggingface_hub does: a redirect to another
host, or from https to http, drops it, and no error message holds it. A URL's ``user:password@`` is
refused without being echoed. Time is bounded twice: ``timeout`` per socket operation, and
``deadline`` for the whole header (a watchdog shuts the socket down: a server trickling a byte a
second gets no further).

Errors are one line with the URL and the HTTP status (``GGUFOpenError``, exit 2): a 404, a login
page, an HTML page where GGUF was expected, a server that closes the connection mid-header, a reply
that is not HTTP (a line past 64 KiB, no status line, more than 100 headers), a 206 that does not
start where it was asked to.

Leaves out: which URL a shorthand means (resolve.py), parsing (``tui_tok.gguf``).
"""

from __future__ import annotations

import http.client
import os
import re
import socket
import threading
import time
import urllib.request
from typing import Any
from urllib.parse import urljoin, urlsplit

from tui_tok.errors import GGUFOpenError
from tui_tok.gguf.source import Progress

FIRST_READ = 256 * 1024
"""The first request's size; each later one at least doubles what is held."""
CHUNK = 64 * 1024
WINDOW = 32 * 1024 * 1024
"""The most one range request asks for (the reader's caps bound the total)."""
MAX_REDIRECTS = 10
DEADLINE = 300.0
"""Seconds for a whole header (``$TUI_TOK_HTTP_DEADLINE`` changes it): Gemma 4's 16 MB at 60 KB/s."""
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)$")
_TOKEN_CHARS = re.compile(r"[\x21-\x7e]+")
_NOT_HTTP = {
    "LineTooLong": "a line longer than 64 KiB",
    "BadStatusLine": "no valid status line",
    "UnknownProtocol": "an unknown protocol version",
    "IncompleteRead": "a body cut short",
    "InvalidURL": "a URL that cannot be requested",
}
Origin = tuple[str, str, int]
"""(scheme, host in lower case, port): where a token may go."""


def origin(url: str) -> Origin:
    """``https://Hub.example/x`` -> ``('https', 'hub.example', 443)``; a bad port is a ``GGUFOpenError``."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        raise GGUFOpenError(f"{redact(url)}: the port is not a number") from None
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or (443 if scheme == "https" else 80)


def redact(url: str) -> str:
    """``url`` with any ``user:password@`` replaced by ``***@`` (for messages)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]).geturl()


def check_url(url: str, what: str) -> None:
    """An http(s) URL with a host and no credentials, else one ``GGUFOpenError`` (``what`` says whence)."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise GGUFOpenError(f"{what}: {redact(url)!r} is not http(s)")
    if "@" in parts.netloc:
        raise GGUFOpenError(
            f"{what}: {redact(url)}: a user:password@ in the URL is not supported (set HF_TOKEN for the hub)"
        )
    if not parts.hostname:
        raise GGUFOpenError(f"{what}: {redact(url)!r} names no host")
    origin(url)


def token_for(url: str, token: str | None, token_origin: Origin) -> str | None:
    """``token`` when ``url`` is on ``token_origin`` (scheme, host and port), else None; a token no
    HTTP header can carry is refused (without being shown)."""
    if not token or origin(url) != token_origin:
        return None
    if not _TOKEN_CHARS.fullmatch(token):
        raise GGUFOpenError(
            "HF_TOKEN holds characters an HTTP header cannot carry (spaces, control characters "
            "or non-ASCII): check how it was set"
        )
    return token


def deadline_from_env(env: object = None) -> float:
    """``$TUI_TOK_HTTP_DEADLINE`` seconds, else ``DEADLINE``."""
    value = (os.environ if env is None else env).get("TUI_TOK_HTTP_DEADLINE")  # type: ignore[attr-defined]
    try:
        seconds = float(value) if value else DEADLINE
    except ValueError:
        raise GGUFOpenError(f"TUI_TOK_HTTP_DEADLINE={value!r} is not a number of seconds") from None
    return seconds if seconds > 0 else DEADLINE


class Watchdog:
    """A deadline for blocking HTTP: once ``seconds`` have passed since ``start``, the sockets of the
    connections it made (``connection_class``) are shut down, which wakes any read blocked on them
    (a per-read timeout never fires on a server that sends a byte a second)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._timer: threading.Timer | None = None
        self._conns: list[http.client.HTTPConnection] = []

    def start(self) -> None:
        if self._timer is None:
            self._timer = threading.Timer(self.seconds, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def connection_class(self, cls: type[http.client.HTTPConnection]) -> Any:
        """A factory like ``cls`` whose connections are watched."""

        def make(host: str, **kwargs: Any) -> http.client.HTTPConnection:
            conn = cls(host, **kwargs)
            self._conns = [c for c in self._conns if c.sock is not None] + [conn]
            return conn

        return make

    def _fire(self) -> None:
        self.expired = True
        for conn in self._conns:
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def handlers(self) -> list[urllib.request.BaseHandler]:
        """urllib handlers whose connections are watched."""
        dog = self

        class Http(urllib.request.HTTPHandler):
            def http_open(self, req: Any) -> Any:
                return self.do_open(dog.connection_class(http.client.HTTPConnection), req)

        class Https(urllib.request.HTTPSHandler):
            def https_open(self, req: Any) -> Any:
                return self.do_open(dog.connection_class(http.client.HTTPSConnection), req, context=self._context)  # type: ignore[attr-defined]

        return [Http(), Https()]


class TokenRedirects(urllib.request.HTTPRedirectHandler):
    """urllib's redirects, with the token kept only on its own origin (scheme, host, port): another
    host, or https -> http, never sees it; only http(s) targets are followed."""

    def __init__(self, token_origin: tuple[str, str, int]) -> None:
        self.token_origin = token_origin

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        check_url(newurl, f"{req.full_url}: redirected")
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and origin(newurl) != self.token_origin:
            new.remove_header("Authorization")
        return new


def read_until(resp: Any, limit: int, deadline: float) -> bytes:
    """At most ``limit`` bytes of ``resp``, read as they come (``read1``): past ``deadline``, TimeoutError."""
    parts: list[bytes] = []
    have = 0
    while have <= limit:
        if time.monotonic() > deadline:
            raise TimeoutError
        chunk = resp.read1(65536)
        if not chunk:
            break
        parts.append(chunk)
        have += len(chunk)
    return b"".join(parts)


class HttpSource:
    """The first bytes of ``url``, fetched on demand; ``bytes_received`` counts body bytes."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        timeout: float = 30.0,
        progress: Progress | None = None,
        deadline: float = DEADLINE,
        token_origin: Origin | None = None,
    ) -> None:
        check_url(url, "URL")
        self.url = url
        self.name = url
        self.size: int | None = None
        self.first_read = FIRST_READ
        self.token = token
        self.timeout = timeout
        self.deadline = deadline
        self.progress = progress
        self.bytes_received = 0
        self.requests = 0
        self._token_origin = origin(url) if token_origin is None else token_origin
        self._sent_token = False
        self._watchdog = Watchdog(deadline)
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
            self._watchdog.start()
            try:
                while self._have < n and not self._eof:
                    if self._stream is not None:  # a server that ignored Range: read on, to n or its end
                        self._read_body(self._stream, n - self._have, 200)
                        break
                    self._fetch(self._have, min(n, self._have + WINDOW))  # one range of WINDOW at most
            except GGUFOpenError as exc:
                if self._watchdog.expired:
                    raise self._late() from None
                if self.token and self.token in str(exc):
                    raise GGUFOpenError(str(exc).replace(self.token, "<HF_TOKEN>")) from None
                raise
            except http.client.HTTPException as exc:
                raise self._late() if self._watchdog.expired else self._not_http(exc) from None
            except (OSError, ValueError) as exc:
                if self._watchdog.expired:
                    raise self._late() from None
                raise GGUFOpenError(f"{self.url}: {type(exc).__name__} after {self._have} bytes") from None
        if len(self._parts) != 1:
            self._data = b"".join(self._parts)
            self._parts = [self._data]
        elif self._parts[0] is not self._data:
            self._data = self._parts[0]
        return self._data if n >= len(self._data) else self._data[:n]

    def close(self) -> None:
        self._watchdog.cancel()
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- the deadline -------------------------------------------------------------------

    def _late(self) -> GGUFOpenError:
        return GGUFOpenError(
            f"{self.url}: the header did not arrive within {self.deadline:g} s ({self._have} bytes "
            "came); set TUI_TOK_HTTP_DEADLINE to wait longer"
        )

    def _not_http(self, exc: http.client.HTTPException) -> GGUFOpenError:
        """One line for a reply http.client cannot parse; the exception's text (server bytes) is left out."""
        host = urlsplit(self._final_url).netloc
        name = type(exc).__name__
        what = _NOT_HTTP.get(name, "malformed headers (more than 100, or broken lines)")
        return GGUFOpenError(f"{self.url}: the reply of {host} is not valid HTTP: {what}")

    # -- requests -----------------------------------------------------------------------

    def _fetch(self, start: int, stop: int) -> None:
        """Bytes [start, stop) appended; a server that ignores Range turns into a stream."""
        for attempt in range(2):  # one retry of what a dropped connection did not deliver
            resp = self._get(start, stop)
            if resp.status == 206:
                self._content_range(resp, start)
                got = self._read_body(resp, stop - start, 206, allow_short=attempt == 0)
                if not resp.isclosed():  # the server sent more than was asked: the connection is out of step
                    self._drop_connection()
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
        raise GGUFOpenError(
            f"{self.url}: the server closed the connection after {self._have} bytes of the header, twice; try again"
        )

    def _get(self, start: int, stop: int) -> http.client.HTTPResponse:
        url = self._final_url
        for _ in range(MAX_REDIRECTS + 1):
            parts = urlsplit(url)
            if url is not self._final_url:
                check_url(url, f"{self.url}: redirected")
            headers = {"Range": f"bytes={start}-{stop - 1}", "User-Agent": "tui-tok", "Accept-Encoding": "identity"}
            token = token_for(url, self.token, self._token_origin)  # never to another host, nor https -> http
            self._sent_token = token is not None
            if token:
                headers["Authorization"] = f"Bearer {token}"
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
            if self._watchdog.expired:  # the watchdog fired between two requests
                raise self._late()
            conn = self._connection(scheme, netloc)
            try:
                conn.request("GET", path, headers=headers)
                self.requests += 1
                return conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self._drop_connection()
                if attempt:
                    raise GGUFOpenError(f"{self.url}: the server closed the connection without answering") from None
            except TimeoutError:
                self._drop_connection()
                raise GGUFOpenError(f"{self.url}: no answer within {self.timeout:g} s") from None
            except OSError as exc:
                self._drop_connection()
                if self._watchdog.expired:
                    raise self._late() from None
                raise GGUFOpenError(f"{self.url}: cannot connect to {netloc}: {exc.strerror or exc}") from None
            except http.client.HTTPException as exc:
                self._drop_connection()
                raise self._late() if self._watchdog.expired else self._not_http(exc) from None
        raise AssertionError("unreachable")

    def _connection(self, scheme: str, netloc: str) -> http.client.HTTPConnection:
        if self._conn is None or self._conn_key != (scheme, netloc):
            self._drop_connection()
            cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
            self._conn = self._watchdog.connection_class(cls)(netloc, timeout=self.timeout)
            self._conn_key = (scheme, netloc)
        return self._conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None

    def _content_range(self, resp: http.client.HTTPResponse, start: int) -> None:
        """The 206's range must start at ``start`` (anything else would splice wrong bytes in)."""
        value = resp.getheader("Content-Range") or ""
        m = _CONTENT_RANGE.match(value.strip())
        if m is None or int(m.group(1)) != start or int(m.group(2)) < start:
            self._drop_connection()
            host = urlsplit(self._final_url).netloc
            raise GGUFOpenError(
                f"{self.url}: {host} answered a request for the bytes from {start} with "
                f"Content-Range {value[:80]!r}; refusing it"
            )
        if m.group(3) != "*":
            self.size = int(m.group(3))

    def _read_body(self, resp: http.client.HTTPResponse, n: int, status: int, allow_short: bool = False) -> int:
        """Append up to ``n`` bytes of ``resp``; returns how many came (fewer: it ended or dropped)."""
        got = 0
        while got < n:
            if self._watchdog.expired:
                raise self._late()
            try:
                chunk = resp.read(min(CHUNK, n - got))
            except http.client.IncompleteRead as exc:
                chunk = exc.partial
                self._append(chunk, resp, status)
                got += len(chunk)
                if allow_short:
                    return got
                raise GGUFOpenError(self._closed_message()) from None
            except TimeoutError:
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
        return (
            f"{self.url}: the server closed the connection after {self._have}{total} bytes, before the metadata ended"
        )

    def _not_gguf(self, resp: http.client.HTTPResponse, status: int) -> None:
        kind = resp.getheader("Content-Type") or "no content type"
        head = b"".join(self._parts)[:32]
        raise GGUFOpenError(f"{self.url}: HTTP {status} ({kind}) is not a GGUF file (it starts with {head!r})")

    def _fail_status(self, resp: http.client.HTTPResponse) -> None:
        kind = resp.getheader("Content-Type") or "no content type"
        resp.read(4096)
        hint = ""
        if resp.status in (401, 403):
            scheme, host, port = self._token_origin
            hint = (
                " (HF_TOKEN was sent: does it grant access to this repository?)"
                if self._sent_token
                else f" (HF_TOKEN is sent only to {scheme}://{host}:{port}, HF_ENDPOINT's host)"
                if self.token
                else " (a private or gated model? set HF_TOKEN)"
            )
        elif resp.status == 404:
            hint = " (check the owner, repository and file name)"
        self._drop_connection()
        raise GGUFOpenError(f"{self.url}: HTTP {resp.status} {resp.reason} ({kind}){hint}")
