"""``ui.heap``: after a long text's whole layout, the next key's blocks are on mapped pages (in the
app the layout's own freed temporaries had been taken by other blocks; here they are unmapped)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    from tui_tok.explore.layout import layout_arrays
    from tui_tok.ui import heap

    if not heap.reuse_freed_memory():
        print("skip"); sys.exit()
    text = ("Hello world, tokens and 日本語 text\\n" * 200_000)
    n = len(text.encode())
    starts = np.arange(0, n, 4, dtype=np.int64)
    ends = np.minimum(starts + 4, n)
    ends[-1] = n
    data = text.encode()
    starts = starts[(np.frombuffer(data, np.uint8)[starts] & 0xC0) != 0x80]  # character starts
    ends = np.append(starts[1:], n)
    layout = layout_arrays(text, ids=np.zeros(len(starts), np.int64), starts=starts, ends=ends,
                           kinds=np.zeros(len(starts), np.uint8))
    import ctypes, ctypes.util
    ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim(0)  # the layout's freed temporaries unmapped: as in the app, taken
    if sys.argv[1] == "warm":
        heap.warm_for_next_key(layout)
    if sys.argv[1] == "again":  # warmed, then the pages given back (as other blocks take them), then again
        heap.warm_for_next_key(layout)
        ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim(0)
        heap.warm_again()
    size = sum(c.nbytes for c in (layout.ids, layout.starts, layout.ends, layout.kinds, layout.phases))
    def rss():
        status = open("/proc/self/status").read()
        return int(status.split("VmRSS:")[1].split()[0]) * 1024
    before = rss()
    block = np.ones(size, dtype=np.uint8)
    print(rss() - before, size)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc thresholds (Linux only)")
def test_a_warmed_heap_gives_the_next_key_mapped_pages() -> None:
    out = {}
    for mode in ("cold", "warm", "again"):
        run = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, check=True)
        if run.stdout.strip() == "skip":
            pytest.skip("the C library took no malloc thresholds")
        grown, size = map(int, run.stdout.split())
        out[mode] = grown / size
    assert out["cold"] > 0.5  # fresh pages: the resident memory grew by most of the block
    assert out["warm"] < 0.1  # the pages were mapped by the warm-up
    assert out["again"] < 0.1  # and by ``warm_again`` after the background builds
