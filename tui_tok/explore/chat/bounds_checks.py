"""The size checks the bounded Jinja sandbox (``bounds.py``) makes before an operation builds a value.

A chat template is untrusted text: ``'a' * 10**9``, ``'{:>2000000000}'.format(1)``, ``tojson(indent=
10**9)`` or ``str()`` of a list holding one string a million times each allocate gigabytes in one C
call, which no deadline can interrupt. So every operation that can make its result much larger than its
operands is checked *before* it runs, from the operands' sizes: sequence repetition and concatenation,
big-integer powers and products, ``%``/``str.format`` widths and repeated fields, the padding methods
and filters, ``join``, ``replace``, ``translate``, ``tojson``'s indent, and the text of a container
about to be printed (``text_size``). The limits are ``Limits`` (one render's caps); a check that fails
raises ``TemplateBoundError`` (a ``jinja2.TemplateError``, so the renderer reports the template line).

Does not keep time (``bounds.py`` does) nor know which environment calls it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Set as AbstractSet, Sized
from dataclasses import dataclass, replace
from typing import Any

import jinja2
from jinja2.utils import Namespace


class TemplateBoundError(jinja2.TemplateError):
    """A template went past a limit of ``Limits``; ``str()`` is one line with the reason.

    ``lineno``: the template line when known without a traceback (the deadline), else None.
    """

    def __init__(self, message: str, lineno: int | None = None) -> None:
        super().__init__(message)
        self.lineno = lineno


@dataclass(frozen=True, slots=True)
class Limits:
    """What one render may spend. Sizes count characters (strings), items (lists, dicts) or bits (ints).

    The defaults let the largest real templates (gemma-4, Kimi-K2, command-r's tool use: a few KB of
    output from a few KB of tools) through a thousand times over, and stop a hostile one within
    ``seconds`` and some tens of MB; ``scaled`` raises them for conversations that are large themselves.
    """

    seconds: float = 2.0
    """Wall-clock deadline of one render (and of one compile)."""
    max_output: int = 1_000_000
    """Characters of output, also of one ``{% set %}`` block, macro or ``caller()``."""
    max_size: int = 1_000_000
    """Characters of any string, items of any list/dict, width/indent/precision of any format."""
    max_int_bits: int = 100_000
    """Bits of any integer a product or power builds."""
    budget: int = 32_000_000
    """Characters and items all checked operations of one render may build together (a bound on the
    memory a loop keeping what it builds can hold)."""

    def scaled(self, input_size: int) -> Limits:
        """These limits for a render whose variables hold ``input_size`` characters: output and
        strings may be four times the input, the budget sixteen times."""
        if input_size <= 0:
            return self
        return replace(self, max_output=max(self.max_output, 4 * input_size),
                       max_size=max(self.max_size, 4 * input_size), budget=max(self.budget, 16 * input_size))  # fmt: skip


DEFAULT_LIMITS = Limits()

MAX_DEPTH = 1_000
"""Deeper values are not walked (``str()`` of them fails with RecursionError, reported as such)."""


def megabytes(n: int) -> str:
    """``1 MB``, ``2.5 MB``: a limit in the words of an error message."""
    mb = n / 1_000_000
    return f"{mb:g} MB" if mb >= 1 else f"{n:,} characters"


def check_size(n: int, limits: Limits, what: str) -> None:
    """``what`` (``a str repeated to length``) of ``n`` is within ``max_size``."""
    if n > limits.max_size:
        raise TemplateBoundError(f"{what} {n:,} exceeds the limit of {limits.max_size:,}")


def check_int_bits(bits: int, limits: Limits) -> None:
    if bits > limits.max_int_bits:
        raise TemplateBoundError(f"an integer of about {bits:,} bits exceeds the limit of {limits.max_int_bits:,}")


def input_size(value: Any) -> int:
    """Characters and items of template variables (messages, tools...): what ``Limits.scaled`` takes."""
    return text_size(value, 1 << 62)


def text_size(value: Any, cap: int, *, indent: int = 0) -> int:
    """About ``len(str(value))`` (or of its JSON with ``indent``), without building it; stops counting
    once past ``cap``. Strings count their length and quotes, containers their brackets and
    separators; a value reached twice counts twice, as ``str()`` prints it twice."""
    if isinstance(value, str):
        return len(value)
    total = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, str):
            total += len(v) + 2
        elif isinstance(v, (bool, float)) or v is None:
            total += 5
        elif isinstance(v, int):
            total += v.bit_length() * 3 // 10 + 2
        elif isinstance(v, (bytes, bytearray)):
            total += len(v) + 3
        elif depth >= MAX_DEPTH:
            continue
        elif isinstance(v, Namespace):
            stack.append((object.__getattribute__(v, "_Namespace__attrs"), depth + 1))
            total += 13
        elif isinstance(v, Mapping):
            total += 2 + len(v) * (4 + indent * (depth + 1))
            stack.extend((k, depth + 1) for k in v.keys())
            stack.extend((x, depth + 1) for x in v.values())
        elif isinstance(v, (list, tuple, AbstractSet)) or type(v).__name__.startswith("dict_"):
            total += 2 + len(v) * (2 + indent * (depth + 1))
            stack.extend((x, depth + 1) for x in v)
        else:
            total += 40  # an object's default repr: <jinja2.utils.Cycler object at 0x...>
        if total > cap:
            return total
    return total


def check_text(value: Any, limits: Limits, cap: int | None = None) -> None:
    """``str(value)`` will not be longer than ``cap`` (default ``max_size``)."""
    if isinstance(value, str):
        return
    limit = limits.max_size if cap is None else cap
    if text_size(value, limit) > limit:
        raise TemplateBoundError(f"a value printed as text exceeds {megabytes(limit)}")


def result_size(value: Any) -> int:
    """What a result adds to the render's budget: its length if it has one."""
    if isinstance(value, (str, bytes, bytearray, list, tuple, dict, AbstractSet)):
        return len(value)
    return 0


# --- operators --------------------------------------------------------------------------------------

_SEQUENCES = (str, bytes, bytearray, list, tuple)


def check_binop(op: str, left: Any, right: Any, limits: Limits) -> None:
    """Before ``left <op> right`` (the operators the sandbox intercepts: ``*``, ``**``, ``+``, ``%``)."""
    if op == "*":
        if isinstance(left, int) and isinstance(right, _SEQUENCES):
            left, right = right, left
        if isinstance(left, _SEQUENCES) and isinstance(right, int):
            check_size(len(left) * max(right, 0), limits, f"a {type(left).__name__} repeated to length")
        elif isinstance(left, int) and isinstance(right, int):
            check_int_bits(left.bit_length() + right.bit_length(), limits)
    elif op == "**":
        if isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1:
            check_int_bits(left.bit_length() * min(right, 1 << 40), limits)
    elif op == "+":
        if isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
            check_size(len(left) + len(right), limits, f"a {type(left).__name__} of length")
    elif op == "%" and isinstance(left, str):
        check_percent(left, right, limits)


_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.)", re.DOTALL)


def check_percent(fmt: str, args: Any, limits: Limits) -> None:
    """Before ``fmt % args`` (and the ``format`` filter): every width and precision, and the output
    when each field takes the widest argument."""
    values = list(args.values()) if isinstance(args, Mapping) else list(args) if isinstance(args, tuple) else [args]
    widest_arg = max((text_size(v, limits.max_size) for v in values), default=0)
    fields = 0
    widest = 0
    for m in _PERCENT.finditer(fmt):
        if m.group(3) == "%":
            continue
        fields += 1
        for n in (m.group(1), m.group(2)):
            if n == "*":
                widest = max([widest] + [v for v in values if isinstance(v, int) and not isinstance(v, bool)])
            elif n:
                widest = max(widest, int(n))
    check_size(widest, limits, "a %-format width or precision of")
    check_size(len(fmt) + fields * (widest + widest_arg), limits, "%-format output of length up to")


_SPEC_NUMBER = re.compile(r"\d+")


def check_format_field(value: Any, spec: str, limits: Limits) -> int:
    """Before ``format(value, spec)`` (one ``str.format`` field): its width, precision and text.
    Returns the field's largest possible length."""
    widest = max((int(n) for n in _SPEC_NUMBER.findall(spec)), default=0)
    check_size(widest, limits, "a format width or precision of")
    return widest + text_size(value, limits.max_size)


# --- methods of values -----------------------------------------------------------------------------

_PADDING = frozenset({"center", "ljust", "rjust", "zfill"})


def check_method(obj: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any], limits: Limits) -> tuple[Any, ...]:
    """Before calling ``obj`` (a bound method reached from the template); returns the arguments to
    call it with (``join``'s iterable made a list, to measure it)."""
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if isinstance(owner, (str, bytes, bytearray)):
        n = len(owner)
        if name in _PADDING and args and isinstance(args[0], int):
            check_size(args[0], limits, f"{name} to width")
        elif name == "expandtabs":
            tab = args[0] if args else kwargs.get("tabsize", 8)
            if isinstance(tab, int):
                tabs = owner.count("\t") if isinstance(owner, str) else owner.count(b"\t")
                check_size(n + tabs * tab, limits, "expandtabs output of length up to")
        elif name == "replace" and len(args) >= 2:
            check_replace(owner, args[0], args[1], limits)
        elif name == "join" and args:
            items = list(args[0])
            check_join(owner, items, limits)
            return (items, *args[1:])
        elif name == "translate" and args and isinstance(args[0], Mapping):
            longest = max((text_size(v, limits.max_size) for v in args[0].values()), default=1)
            check_size(n * max(longest, 1), limits, "translate output of length up to")
    elif isinstance(owner, int) and name == "to_bytes":
        length = args[0] if args else kwargs.get("length", 1)
        if isinstance(length, int):
            check_size(length, limits, "to_bytes of length")
    return args


def check_replace(s: Any, old: Any, new: Any, limits: Limits) -> None:
    if isinstance(s, (str, bytes)) and isinstance(old, type(s)) and isinstance(new, type(s)) and len(new) > len(old):
        text: Any = s
        hits = text.count(old) if old else len(s) + 1
        check_size(len(s) + hits * (len(new) - len(old)), limits, "replace output of length")


def check_join(separator: Any, items: list[Any], limits: Limits) -> None:
    size = len(separator) * max(len(items) - 1, 0)
    for item in items:
        size += text_size(item, limits.max_size)
        if size > limits.max_size:
            break
    check_size(size, limits, "join output of length")


# --- filters -----------------------------------------------------------------------------------------

STRINGIFYING = frozenset({
    "capitalize", "center", "e", "escape", "forceescape", "format", "indent", "lower", "pprint", "replace",
    "safe", "string", "striptags", "title", "trim", "truncate", "upper", "urlize", "wordcount", "wordwrap",
})  # fmt: skip
"""Filters that call ``str()`` on their value (a container's text can be far larger than it)."""


def check_filter(name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any], limits: Limits) -> tuple[Any, ...]:
    """Before the filter ``name`` runs on ``args[0]`` (its value, after any context argument);
    returns the arguments to run it with."""
    if not args:
        return args
    value, rest = args[0], args[1:]
    for arg in (*rest, *kwargs.values()):
        if isinstance(arg, int) and not isinstance(arg, bool) and arg > limits.max_size:
            raise TemplateBoundError(f"{name} filter argument {arg:,} exceeds the limit of {limits.max_size:,}")
    if name in STRINGIFYING:
        check_text(value, limits)
    if name == "tojson":
        indents = [kwargs.get("indent"), *rest]  # renderers order tojson's arguments differently
        step = max([len(i) if isinstance(i, str) else i for i in indents
                    if isinstance(i, (int, str)) and not isinstance(i, bool)] + [0])  # fmt: skip
        if text_size(value, limits.max_size, indent=step) > limits.max_size:
            raise TemplateBoundError(f"tojson output exceeds {megabytes(limits.max_size)}")
    elif name == "indent":
        width = rest[0] if rest else kwargs.get("width", 4)
        step = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
        text = value if isinstance(value, str) else ""
        check_size(len(text) + (text.count("\n") + 1) * step, limits, "indent output of length up to")
    elif name == "format":
        if isinstance(value, str):
            check_percent(value, kwargs if kwargs else tuple(rest), limits)
    elif name == "replace" and len(rest) >= 2:
        check_replace(value, rest[0], rest[1], limits)
    elif name == "join":
        items = list(value) if isinstance(value, Iterable) and not isinstance(value, str) else value
        separator = rest[0] if rest else kwargs.get("d", "")
        if isinstance(items, list) and isinstance(separator, str) and len(rest) < 2 and "attribute" not in kwargs:
            check_join(separator, items, limits)
        return (items, *rest)
    elif name == "wordwrap":
        wrap = kwargs.get("wrapstring", rest[2] if len(rest) > 2 else None)
        if isinstance(wrap, str) and isinstance(value, str):
            check_size(len(value) * (1 + len(wrap)), limits, "wordwrap output of length up to")
    elif name in ("slice", "batch") and rest and isinstance(rest[0], int):
        # slice loops over its count; batch pads the last batch to its size
        n = len(value) if isinstance(value, Sized) else 0
        if rest[0] > n + 10_000:
            raise TemplateBoundError(f"{name} filter asked for {rest[0]:,} parts of {n:,} items")
    elif name == "sum":
        return check_sum(value, rest, kwargs, limits)
    return args


def check_sum(value: Any, rest: tuple[Any, ...], kwargs: Mapping[str, Any], limits: Limits) -> tuple[Any, ...]:
    """``sum`` of sequences concatenates them one by one, in time quadratic in their count."""
    items = list(value) if isinstance(value, Iterable) else value
    start = kwargs.get("start", rest[1] if len(rest) > 1 else 0)
    if isinstance(items, list) and isinstance(start, _SEQUENCES):
        total = len(start) + sum(len(x) for x in items if isinstance(x, _SEQUENCES))
        check_size(total, limits, "sum of sequences of length")
        check_size(total * len(items) // 1000, limits, "sum of sequences copying (thousands of items)")
    return (items, *rest)
