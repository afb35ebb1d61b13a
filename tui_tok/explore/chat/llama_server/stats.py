"""Which input values a template touched, for llama.cpp's capability probes (common/jinja/caps.cpp).

llama.cpp decides whether a template supports a system role, tools, typed content ... by rendering
probe conversations with ``ctx.is_get_stats`` on and looking at each input value's ``stats``: ``used``
(read by a member access, a loop, a filter or a test: ``value_t::stats_t::mark_used`` in runtime.cpp)
and ``ops`` (the operations applied: ``array_access``, ``object_access``, ``test_is_string``, a
builtin's name). Probe inputs here are ``Tracked*`` copies of the JSON; the dialect reports what it
does to them; nothing is recorded outside a probe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Stats:
    used: bool = False
    ops: set[str] = field(default_factory=set)


class TrackedStr(str):
    """A probe string: a str that carries its own stats."""

    __slots__ = ("stats",)

    def __new__(cls, value: str) -> TrackedStr:
        obj = super().__new__(cls, value)
        obj.stats = Stats()
        return obj

    stats: Stats

    # a template reading the value in a test, a comparison or an output uses it (identifier lookups
    # mark it in llama.cpp; jinja2 resolves names without a hook, these are where the value is read)
    def __bool__(self) -> bool:
        self.stats.used = True
        return len(self) > 0

    def __eq__(self, other: object) -> bool:
        self.stats.used = True
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        self.stats.used = True
        return str.__ne__(self, other)

    __hash__ = str.__hash__


class TrackedList(list[Any]):
    """A probe array. A template's ``for`` over it is an ``array_access`` (``operators._for_iterable``
    notes it); Python iterating it (a builtin, printing, a size check) is not."""

    stats: Stats

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.stats = Stats()

    def __bool__(self) -> bool:
        self.stats.used = True
        return len(self) > 0


class TrackedDict(dict[str, Any]):
    """A probe object."""

    stats: Stats

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.stats = Stats()

    def __bool__(self) -> bool:
        self.stats.used = True
        return len(self) > 0


def tracked(value: Any) -> Any:
    """A JSON value as probe input: every string, array and object tracked."""
    if isinstance(value, str):
        return TrackedStr(value)
    if isinstance(value, list):
        return TrackedList(tracked(v) for v in value)
    if isinstance(value, dict):
        return TrackedDict((k, tracked(v)) for k, v in value.items())
    return value


_TRACKED = (TrackedStr, TrackedList, TrackedDict)


def note_used(value: Any, *, deep: bool = False) -> None:
    if isinstance(value, _TRACKED):
        value.stats.used = True
        if deep:
            children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
            for child in list.__iter__(children) if isinstance(children, list) else children:
                note_used(child, deep=True)


def note_op(value: Any, op: str) -> None:
    if isinstance(value, _TRACKED):
        value.stats.ops.add(op)


def stats_of(value: Any) -> Stats:
    return value.stats if isinstance(value, _TRACKED) else Stats()
