"""llama.cpp's Jinja dialect (common/jinja/ in llama-cpp-python 0.3.36) on top of jinja2.

llama-server does not run Python's jinja2: it runs its own engine, and templates see a different
language. What differs, and is copied here:

- ``+`` and ``~`` concatenate a string with anything (``'a' + 1`` is ``a1``, ``'a' + none`` is ``a``:
  ``binary_expression::execute_impl`` in runtime.cpp); numbers add as numbers; lists as lists.
- Missing attributes and keys are undefined, and so is anything read from an undefined value
  (``member_expression``); a ``for`` over undefined runs zero times.
- ``obj.key`` reads the object's key before any method (``object->at(property)`` then builtins).
- The methods a value has are llama.cpp's builtins (value.cpp ``get_builtins``), not Python's: lists
  can ``append``/``pop`` (Python's sandbox refuses the mutation), strings have no ``find``.
- ``{{ none }}`` prints ``None``, booleans ``True``/``False``, floats as ``std::to_string`` with the
  trailing zeros cut; ``tojson`` writes ``", "``/``": "`` without escaping non-ASCII (``value_to_json``).
- the lexer's ``trim_blocks`` and ``lstrip_blocks`` are on (lexer.cpp), as in jinja2's options.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.ext
from jinja2.sandbox import SandboxedEnvironment

from tui_tok.explore.chat.llama_server.stats import note_op, note_used, quiet

_STR_METHODS = frozenset("upper lower strip rstrip lstrip title capitalize startswith endswith split rsplit replace format".split())
_LIST_METHODS = frozenset("append pop sort reverse".split())
_DICT_METHODS = frozenset("get keys values items".split())
"""Python methods that are also llama.cpp builtins of the type (value.cpp ``get_builtins``)."""


_UNDEFINED_BUILTINS: dict[str, Callable[[], Any]] = {
    **dict.fromkeys("capitalize join lower replace safe string strip title truncate upper".split(), str),
    **dict.fromkeys("items list map reject rejectattr reverse select selectattr sort".split(), list),
    **dict.fromkeys("length sum wordcount".split(), int),
}
"""What llama.cpp's undefined value answers to its builtins (``value_undefined_t::get_builtins``):
empty values (``first``/``last``/``min``/``max`` stay undefined)."""


class LlamaError(Exception):
    """A render llama.cpp's engine refuses (its ``std::runtime_error``)."""


class LlamaUndefined(jinja2.ChainableUndefined):
    """llama.cpp's ``value_undefined``: prints nothing, iterates as empty, chains on attributes, and
    concatenates with a string as the empty string (``workaround_concat_null_with_str``)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name[:2] == "__":
            raise AttributeError(name)
        empty = _UNDEFINED_BUILTINS.get(name)
        if empty is not None:
            return lambda *args, **kwargs: empty()
        return self

    def __add__(self, other: Any) -> Any:
        if isinstance(other, str):
            return other
        raise LlamaError("Cannot perform operation + on undefined values")

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, str):
            return other
        raise LlamaError("Cannot perform operation + on undefined values")

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, jinja2.Undefined)

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return 0

    def __len__(self) -> int:
        return 0


def as_string(value: Any) -> str:
    """How llama.cpp prints a value (``as_string`` of each value type in value.h)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        out = f"{value:f}".rstrip("0")
        return out + "0" if out.endswith(".") else out
    if isinstance(value, jinja2.Undefined):
        return ""
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_repr(v) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_repr(k)}: {_repr(v)}" for k, v in value.items()) + "}"
    return str(value)


def _repr(value: Any) -> str:
    """``value_to_string_repr``: strings quoted ('' unless they hold a quote, then JSON)."""
    if isinstance(value, str):
        return to_json(value) if "'" in value else f"'{value}'"
    if value is None or isinstance(value, jinja2.Undefined):
        return "None" if value is None else "Undefined"
    return as_string(value)


def to_json(value: Any, indent: int | None = None, item_sep: str | None = None, key_sep: str = ": ") -> str:
    """``value_to_json``: keys in insertion order, ``", "`` between items without indent, floats as
    C++ streams print them, undefined as ``null``."""
    ind = -1 if indent is None else indent
    sep = item_sep if item_sep is not None else (", " if ind < 0 else ",")
    out: list[str] = []
    _json_into(out, value, 0, ind, sep, key_sep)
    return "".join(out)


def _json_into(out: list[str], value: Any, level: int, indent: int, sep: str, key_sep: str) -> None:
    note_used(value, deep=True)
    newline = "\n" if indent >= 0 else ""
    pad = " " * (level * indent) if indent > 0 else ""
    step = " " * indent if indent > 0 else ""
    if value is None or isinstance(value, jinja2.Undefined):
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(f"{value:g}")
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False).replace("\x7f", "\x7f"))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        if value:
            out.append(newline)
            for i, item in enumerate(value):
                out.append(pad + step)
                _json_into(out, item, level + 1, indent, sep, key_sep)
                if i < len(value) - 1:
                    out.append(sep)
                out.append(newline)
            out.append(pad)
        out.append("]")
    elif isinstance(value, Mapping):
        out.append("{")
        if value:
            out.append(newline)
            for i, (k, v) in enumerate(value.items()):
                out.append(pad + step)
                _json_into(out, as_string(k), level + 1, indent, sep, key_sep)
                out.append(key_sep)
                _json_into(out, v, level + 1, indent, sep, key_sep)
                if i < len(value) - 1:
                    out.append(sep)
                out.append(newline)
            out.append(pad)
        out.append("}")
    elif isinstance(value, Iterator):  # a filter's generator (map, select ...) is an array in llama.cpp
        _json_into(out, list(value), level, indent, sep, key_sep)
    else:
        out.append("null")


def _tojson(value: Any, ensure_ascii: Any = False, indent: Any = None, separators: Any = None,
            sort_keys: Any = False) -> str:  # fmt: skip
    if sort_keys and not isinstance(sort_keys, jinja2.Undefined):
        raise LlamaError("tojson sort_keys=true not implemented")
    ind = indent if isinstance(indent, int) and not isinstance(indent, bool) else None
    seps = list(separators) if isinstance(separators, (list, tuple)) else []
    text = to_json(value, ind, as_string(seps[0]) if seps else None, as_string(seps[1]) if len(seps) > 1 else ": ")
    if ensure_ascii and not isinstance(ensure_ascii, jinja2.Undefined):
        text = "".join(c if ord(c) < 0x80 else _escape_ascii(c) for c in text)
    return text


def _escape_ascii(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _raise_exception(message: Any = "") -> None:
    raise LlamaError(as_string(message))


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


def _add(left: Any, right: Any) -> Any:
    """``+``/``~`` as ``binary_expression`` computes them."""
    left_null = left is None or isinstance(left, jinja2.Undefined)
    right_null = right is None or isinstance(right, jinja2.Undefined)
    if left_null or right_null:
        if (left_null and isinstance(right, str)) or (right_null and isinstance(left, str)):
            return ("" if left_null else left) + ("" if right_null else right)
        raise LlamaError("Cannot perform operation + on undefined values" if isinstance(left, jinja2.Undefined)
                         or isinstance(right, jinja2.Undefined) else "Cannot perform operation on null values")  # fmt: skip
    if _is_number(left) and _is_number(right):
        if isinstance(left, float) or isinstance(right, float):
            return float(left) + float(right)
        return int(left) + int(right)
    if isinstance(left, list) and isinstance(right, list):
        return [*left, *right]
    if isinstance(left, str) or isinstance(right, str):
        with quiet():
            return as_string(left) + as_string(right)
    raise LlamaError(f'Unknown operator "+" between {_type(left)} and {_type(right)}')


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _type(value: Any) -> str:
    if isinstance(value, str):
        return "String"
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, float):
        return "Float"
    if isinstance(value, (list, tuple)):
        return "Array"
    if isinstance(value, Mapping):
        return "Object"
    return "None" if value is None else "Undefined"


class _GenerationTag(jinja2.ext.Extension):
    """``{% generation %}``: rendered as its body (llama.cpp's parser reads it as a plain block)."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.Scope(body, lineno=lineno)


class LlamaEnvironment(SandboxedEnvironment):
    """A sandbox speaking llama.cpp's dialect (see the module docstring)."""

    intercepted_binops = frozenset(["+", "*"])

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "+":
            return _add(left, right)
        if operator != "*":
            return super().call_binop(context, operator, left, right)
        if isinstance(left, str) and isinstance(right, int) and not isinstance(right, bool):
            return left * max(right, 0)
        if isinstance(right, str) and isinstance(left, int) and not isinstance(left, bool):
            return right * max(left, 0)
        if _is_number(left) and _is_number(right):
            return left * right
        raise LlamaError(f'Unknown operator "*" between {_type(left)} and {_type(right)}')

    def _parse(self, source: str, name: str | None, filename: str | None) -> jinja2.nodes.Template:
        """The template's tree with every ``for`` iterable wrapped in ``_for_iterable`` (jinja2 has
        no hook for the iteration itself)."""
        tree = super()._parse(source, name, filename)
        for node in tree.find_all(jinja2.nodes.For):
            pairs = jinja2.nodes.Const(isinstance(node.target, jinja2.nodes.Tuple))
            node.iter = jinja2.nodes.Call(jinja2.nodes.Name(_FOR_ITERABLE, "load"), [node.iter, pairs], [], None, None)
        return tree

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if attr.startswith("_"):
            return False
        if isinstance(obj, str):
            return attr in _STR_METHODS
        if isinstance(obj, list):
            return attr in _LIST_METHODS
        if isinstance(obj, dict):
            return attr in _DICT_METHODS
        return super().is_safe_attribute(obj, attr, value)

    def is_safe_callable(self, obj: Any) -> bool:
        return True

    def getattr(self, obj: Any, attribute: str) -> Any:
        if isinstance(obj, Mapping) and not isinstance(obj, jinja2.Undefined):
            if attribute in obj and attribute not in _DICT_METHODS:
                value = obj[attribute]
                note_used(value)
                note_used(obj)
                note_op(obj, "object_access")
                return value
        if obj is None:
            raise LlamaError(f"Cannot access property '{attribute}' of None")
        value = super().getattr(obj, attribute)
        if not isinstance(value, jinja2.Undefined):
            note_used(obj)
            note_op(obj, attribute)
        return value

    def getitem(self, obj: Any, argument: Any) -> Any:
        if isinstance(obj, Mapping) and not isinstance(obj, jinja2.Undefined):
            if isinstance(argument, str) and argument in obj:
                value = obj[argument]
                note_used(value)
                note_used(obj)
                note_op(obj, "object_access")
                return value
            if not isinstance(argument, str):
                return self.undefined(obj=obj, name=str(argument))
        if isinstance(obj, (list, str)) and isinstance(argument, str) and argument.isdigit():
            argument = int(argument)
        if isinstance(obj, (list, str)) and isinstance(argument, int):
            if isinstance(obj, str) and argument < 0:
                return self.undefined(obj=obj, name=str(argument))
            try:
                value = obj[argument]
            except IndexError:
                return self.undefined(obj=obj, name=str(argument))
            note_used(value)
            note_used(obj)
            note_op(obj, "array_access")
            return value
        if obj is None:
            raise LlamaError("Cannot access property of None")
        return super().getitem(obj, argument)


def _for_iterable(value: Any, pairs: bool) -> Any:
    """What a ``for`` loop runs over (``for_statement::execute_impl``): undefined is empty, an object
    gives its keys (``for k, v in obj``: its pairs), anything but an array or object fails."""
    note_used(value)
    note_op(value, "array_access")
    if isinstance(value, jinja2.Undefined):
        return []
    if isinstance(value, Mapping):
        return list(value.items()) if pairs else list(value.keys())
    if isinstance(value, Iterable) and not isinstance(value, str):  # arrays (and range, items(), generators)
        return value
    raise LlamaError(f"Expected iterable or object type in for loop: got {_type(value)}")


_FOR_ITERABLE = "llama_for_iterable"
"""The global a ``for`` loop's iterable is passed through (see ``LlamaEnvironment._parse``)."""


def _tracking_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(value: Any, *args: Any, **kwargs: Any) -> Any:
        note_used(value)
        note_op(value, name)
        with quiet():
            return fn(value, *args, **kwargs)

    run.__name__ = fn.__name__
    run.__doc__ = fn.__doc__
    for attr in ("jinja_pass_arg",):
        if hasattr(fn, attr):
            setattr(run, attr, getattr(fn, attr))
    return run


def _tracking_test(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(value: Any, *args: Any) -> Any:
        note_used(value)
        note_op(value, "test_is_" + name)
        return fn(value, *args)

    return run


def _finalize(value: Any) -> str:
    note_used(value)
    with quiet():
        return as_string(value)


class _Namespace(jinja2.utils.Namespace):
    pass


@lru_cache(maxsize=1)
def environment() -> LlamaEnvironment:
    env = LlamaEnvironment(trim_blocks=True, lstrip_blocks=True, undefined=LlamaUndefined, finalize=_finalize,
                           extensions=[_GenerationTag, jinja2.ext.loopcontrols])  # fmt: skip
    for name, fn in list(env.filters.items()):  # in place: a subclass may guard what is set here
        env.filters[name] = _tracking_filter(name, fn)
    env.filters["tojson"] = _tracking_filter("tojson", _tojson)
    env.filters["string"] = _tracking_filter("string", as_string)
    env.filters["safe"] = _tracking_filter("safe", as_string)  # a plain string: no Markup escaping after
    env.tests = {name: _tracking_test(name, fn) for name, fn in env.tests.items()}  # type: ignore[arg-type]
    env.globals[_FOR_ITERABLE] = _for_iterable
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["namespace"] = jinja2.utils.Namespace
    env.globals["dict"] = dict
    return env


@lru_cache(maxsize=32)
def compile_template(source: str) -> jinja2.Template:
    """The compiled template; raises ``jinja2.TemplateSyntaxError``."""
    return environment().from_string(source)


def render(source: str, variables: Mapping[str, Any]) -> str:
    """``source`` rendered on ``variables``: every render of this runtime (probes included) goes
    through here."""
    return compile_template(source).render(**variables)
