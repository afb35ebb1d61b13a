"""Chat templates written to hurt: each hangs or allocates gigabytes without the renderer's bounds.

``HOSTILE`` maps a name to (template, a word of the one-line error it must give). The first five are
issue 25's; the others reach the same harm by other roads. Shared by the render, CLI and UI tests.
"""

from __future__ import annotations

DEADLINE = 2.0
"""The renderer's default deadline (``bounds.DEFAULT_LIMITS.seconds``)."""

SLACK = 1.5
"""Seconds a bounded failure may take past the deadline on a loaded machine."""

MAX_EXTRA_MB = 200

_BIG = "{% set s = 'a' * 1000000 %}"
_NS = "{% set ns = namespace(s='ab', l=[]) %}"

HOSTILE: dict[str, tuple[str, str]] = {
    # issue 25, point 6
    "nested-loops": (
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
        "exceeded 2 s",
    ),
    "str-times-huge": ("{{ 'a' * 10**9 }}", "repeated"),
    "format-width": ("{{ '{:>2000000000}'.format(1) }}", "format width"),
    "tojson-indent": ("{{ messages|tojson(indent=10**9) }}", "tojson"),
    "nested-parens": ("{{ " + "(" * 70 + "1" + ")" * 70 + " }}", "nests too deeply"),
    # other roads to the same harm
    "percent-width": ("{{ '%2000000000d' % 1 }}", "%-format width"),
    "concat-doubling": (_NS + "{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "joined by ~"),
    "capture-doubling": (
        _NS + "{% for i in range(64) %}{% set c %}{{ ns.s }}{{ ns.s }}{% endset %}{% set ns.s = c %}{% endfor %}",
        "output exceeds",
    ),  # fmt: skip
    "join-amplified": (_BIG + "{{ s.join(['x'] * 1000) }}", "join output"),
    "replace-amplified": ("{% set s = 'a' * 100000 %}{{ s.replace('', s) }}", "replace output"),
    "print-heavy-list": (_BIG + "{{ [s] * 1000 }}", "printed as text"),
    "huge-power": ("{{ 9 ** 999999999 }}", "integer"),
    "list-growth": (
        _NS + "{% for i in range(100000) %}{% set ns.l = ns.l + [('a' * 99999) ~ i] %}{% endfor %}",
        "in all",
    ),  # fmt: skip
    "center-filter": ("{{ 'a'|center(2000000000) }}", "center filter"),
    "lipsum": ("{{ lipsum(n=100000) }}", "lorem"),
    "to-bytes": ("{{ (1).to_bytes(2000000000, 'big') }}", "to_bytes"),
    "slice-filter": ("{{ [1]|slice(1000000000)|list }}", "slice filter"),
    "format-repeated-field": (_BIG + "{{ ('{0}' * 1000).format(s) }}", "str.format output"),
    "sum-of-lists": ("{{ ([[1]] * 100000)|sum(start=[]) }}", "sum of sequences"),
}

ISSUE = ("nested-loops", "str-times-huge", "format-width", "tojson-indent", "nested-parens")
