"""llama.cpp's operators where they differ from Python's (``binary_expression::execute_impl`` and
``for_statement::execute_impl`` in common/jinja/runtime.cpp), and the rewrite of a parsed template
that routes ``~``, ``in`` and ``for`` through them (jinja2 compiles those to Python directly).

- ``+``: a string with anything concatenates (none and undefined as ""), numbers add, arrays join.
- ``~``: the same concatenation, but two non-strings fail (``1 ~ 2``).
- ``in``: anything in undefined is false; undefined in something fails; an array in an array fails;
  ``'a' in 'abc'`` is a substring test; a key in an object.
- ``for``: undefined runs zero times, an object gives its keys (or pairs), a string fails.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.visitor import NodeTransformer

from tui_tok.explore.chat.llama_server.stats import note_op, note_used
from tui_tok.explore.chat.llama_server.values import LlamaError, as_string, type_name

_type = type_name


def _null(value: Any) -> bool:
    return value is None or isinstance(value, jinja2.Undefined)


def add(left: Any, right: Any) -> Any:
    """``+`` as ``binary_expression`` computes it."""
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
        return as_string(left) + as_string(right)
    raise LlamaError(f'Unknown operator "+" between {_type(left)} and {_type(right)}')


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float))


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


def concat(*values: Any) -> str:
    """``a ~ b ~ c``, left to right."""
    acc = values[0]
    for value in values[1:]:
        if _null(acc) or _null(value):
            if not ((_null(acc) and isinstance(value, str)) or (_null(value) and isinstance(acc, str))):
                raise LlamaError("Cannot perform operation ~ on undefined values" if isinstance(acc, jinja2.Undefined)
                                 or isinstance(value, jinja2.Undefined) else "Cannot perform operation on null values")  # fmt: skip
            acc = ("" if _null(acc) else acc) + ("" if _null(value) else value)
        elif isinstance(acc, str) or isinstance(value, str):
            acc = as_string(acc) + as_string(value)
        else:
            raise LlamaError(f'Unknown operator "~" between {_type(acc)} and {_type(value)}')
    if not isinstance(acc, str):
        raise LlamaError(f'Unknown operator "~" on {_type(acc)}')
    return acc


def contains(needle: Any, haystack: Any) -> bool:
    """``needle in haystack``."""
    if isinstance(haystack, jinja2.Undefined):
        return False
    if isinstance(needle, jinja2.Undefined):
        raise LlamaError("Cannot perform operation in on undefined values")
    if haystack is None:
        raise LlamaError("Cannot perform operation on null values")
    if isinstance(haystack, (list, tuple)):
        if isinstance(needle, (list, tuple)):
            raise LlamaError(f'Unknown operator "in" between Array and {_type(haystack)}')
        return any(_equal(needle, item) for item in haystack)
    if isinstance(haystack, str) and isinstance(needle, str):
        return needle in haystack
    if isinstance(haystack, Mapping) and (isinstance(needle, str) or needle is None or isinstance(needle, int)):
        return needle in haystack
    raise LlamaError(f'Unknown operator "in" between {_type(needle)} and {_type(haystack)}')


def _equal(a: Any, b: Any) -> bool:
    """``==`` of two values: a number never equals a string or a boolean of another type."""
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b)


_GLOBALS = {"llama_for_iterable": _for_iterable, "llama_concat": concat, "llama_in": contains}
"""The globals the rewritten templates call."""


class _Rewrite(NodeTransformer):
    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        pairs = nodes.Const(isinstance(node.target, nodes.Tuple))
        node.iter = nodes.Call(nodes.Name("llama_for_iterable", "load"), [node.iter, pairs], [], None, None)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return nodes.Call(nodes.Name("llama_concat", "load"), list(node.nodes), [], None, None, lineno=node.lineno)

    def visit_Compare(self, node: nodes.Compare) -> nodes.Node:
        self.generic_visit(node)
        if len(node.ops) != 1 or node.ops[0].op not in ("in", "notin"):
            return node
        call = nodes.Call(
            nodes.Name("llama_in", "load"), [node.expr, node.ops[0].expr], [], None, None, lineno=node.lineno
        )
        return nodes.Not(call, lineno=node.lineno) if node.ops[0].op == "notin" else call


def rewrite(tree: nodes.Template) -> nodes.Template:
    """``tree`` with every ``for`` iterable, ``~`` and ``in`` going through this module's functions."""
    out = _Rewrite().visit(tree)
    assert isinstance(out, nodes.Template)
    return out


def globals_for_rewrite() -> dict[str, Any]:
    return dict(_GLOBALS)
