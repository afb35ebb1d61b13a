"""llama.cpp's Jinja dialect (common/jinja/ in llama-cpp-python 0.3.36) on top of jinja2.

llama-server does not run Python's jinja2: it runs its own engine, and templates see a different
language. What differs, and is copied here:

- Its operators (``operators.py``): ``+`` and ``~`` concatenate a string with anything, ``in`` and
  ``for`` have their own rules.
- Missing attributes and keys are undefined, and so is anything read from an undefined value
  (``member_expression``); undefined answers its builtins with empty values.
- ``obj.key`` reads the object's key before any method (``object->at(property)`` then builtins).
- The methods a value has are llama.cpp's builtins (value.cpp ``get_builtins``), not Python's: lists
  can ``append``/``pop`` (Python's sandbox refuses the mutation), strings have no ``find``.
- Its printing (``values.py``): ``{{ none }}`` and ``{{ {} }}`` print nothing, an array its items;
  ``|string`` of a number is its JSON; ``|default`` replaces none too; ``tojson`` writes ``", "``/``": "``
  without escaping non-ASCII (``value_to_json``).
- the lexer's ``trim_blocks`` and ``lstrip_blocks`` are on (lexer.cpp), as in jinja2's options.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.ext
from jinja2.sandbox import SandboxedEnvironment

from tui_tok.explore.chat.bounds import (
    DEFAULT_LIMITS,
    BoundedSandboxMixin,
    bounded_compile,
    bounded_render,
    input_size,
)
from tui_tok.explore.chat.llama_server.operators import add, globals_for_rewrite, rewrite
from tui_tok.explore.chat.llama_server.stats import note_op, note_used
from tui_tok.explore.chat.llama_server.values import LlamaError, as_string, printed, string_filter, tojson, type_name

_STR_METHODS = frozenset(
    "upper lower strip rstrip lstrip title capitalize startswith endswith split rsplit replace format".split()
)
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


def _raise_exception(message: Any = "") -> None:
    raise LlamaError(as_string(message))


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


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
            return add(left, right)
        if operator != "*":
            return super().call_binop(context, operator, left, right)
        if isinstance(left, str) and isinstance(right, int) and not isinstance(right, bool):
            return left * max(right, 0)
        if isinstance(right, str) and isinstance(left, int) and not isinstance(left, bool):
            return right * max(left, 0)
        if isinstance(left, (int, float)) and isinstance(right, (int, float)):
            return left * right
        raise LlamaError(f'Unknown operator "*" between {type_name(left)} and {type_name(right)}')

    def _parse(self, source: str, name: str | None, filename: str | None) -> jinja2.nodes.Template:
        """The template's tree with ``for``, ``~`` and ``in`` routed through ``operators.py`` (jinja2
        compiles them to Python's own)."""
        return rewrite(super()._parse(source, name, filename))

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


def _tracking_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(value: Any, *args: Any, **kwargs: Any) -> Any:
        note_used(value)
        note_op(value, name)
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
    return printed(value)


def _default(value: Any, default_value: Any = "", boolean: bool = False) -> Any:
    """``default_value`` (value.cpp): undefined or none, or with ``boolean`` anything false."""
    missing = not value if boolean else (value is None or isinstance(value, jinja2.Undefined))
    return default_value if missing else value


class BoundedLlamaEnvironment(BoundedSandboxMixin, LlamaEnvironment):
    """llama.cpp's dialect within the renderer's bounds (``chat/bounds.py``): a template is untrusted
    text, and llama-server's runtime renders it several times per request (the capability probes)."""


@lru_cache(maxsize=1)
def environment() -> LlamaEnvironment:
    env = BoundedLlamaEnvironment(trim_blocks=True, lstrip_blocks=True, undefined=LlamaUndefined, finalize=_finalize,
                           extensions=[_GenerationTag, jinja2.ext.loopcontrols])  # fmt: skip
    for name, fn in list(env.filters.items()):  # in place: a subclass may guard what is set here
        env.filters[name] = _tracking_filter(name, fn)
    env.filters["tojson"] = _tracking_filter("tojson", tojson)
    env.filters["string"] = _tracking_filter("string", string_filter)
    env.filters["default"] = env.filters["d"] = _tracking_filter("default", _default)
    env.filters["safe"] = _tracking_filter("safe", as_string)  # a plain string: no Markup escaping after
    env.tests = {name: _tracking_test(name, fn) for name, fn in env.tests.items()}  # type: ignore[arg-type]
    env.globals.update(globals_for_rewrite())
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["namespace"] = jinja2.utils.Namespace
    env.globals["dict"] = dict
    return env


@lru_cache(maxsize=32)
def compile_template(source: str) -> jinja2.Template:
    """The compiled template; raises ``jinja2.TemplateSyntaxError`` (``TemplateBoundError`` when it nests too
    deeply or takes too long to compile)."""
    return bounded_compile(environment(), source)


def render(source: str, variables: Mapping[str, Any]) -> str:
    """``source`` rendered on ``variables``: every render of this runtime (probes included) goes
    through here, each within the bounds (deadline, sizes) scaled to the conversation's size."""
    return bounded_render(compile_template(source), variables, DEFAULT_LIMITS.scaled(input_size(variables)))
