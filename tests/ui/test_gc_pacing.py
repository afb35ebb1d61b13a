"""The app collects garbage from a timer between frames, and gives the collector back on exit."""

from __future__ import annotations

import gc

from ui_support import make_app, settle

from support import vocab_file


async def test_collector_is_paced_while_running_and_restored_after() -> None:
    assert gc.isenabled()
    app = make_app(vocab_file("qwen3-vocab").path, text="hello")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert not gc.isenabled()  # no collection can start in the middle of a frame
        before = app.gc_pacer.collections
        for _ in range(3):
            cycles = []
            for _ in range(5_000):  # cyclic garbage only the collector can free
                a: list[object] = []
                a.append(a)
                cycles.append(a)
            del cycles, a
            await pilot.pause(0.12)
        assert app.gc_pacer.collections > before
        assert gc.get_count()[0] < gc.get_threshold()[0] + 5_000
    assert gc.isenabled()
