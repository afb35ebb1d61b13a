"""Chat templates rendered in bounded time and memory, by any jinja2 sandbox.

A chat template is untrusted text inside the file, rendered when the file is only opened (the
background lint). Two bounds, both needed:

- **Time**: a watchdog thread raises ``DeadlineExceeded`` in the rendering thread at the deadline
  (``PyThreadState_SetAsyncExc``), which stops any Python-level work: nested ``range(100000)`` loops,
  jinja's own filters, recursive macros. It cannot stop one long C call; the size checks keep every C
  call short.
- **Memory**: ``BoundedSandboxMixin`` checks, before each operation that can build a value far larger
  than its operands, the size of what it will build (``bounds_checks``): ``*``/``+``/``**``/``%``,
  ``str.format``, method calls (``center``, ``join``, ``replace``...), every filter (``tojson``'s indent,
  ``indent``, ``format``...), ``~``, printed containers; and caps the output of the render and of each
  ``{% set %}`` block or macro. It also charges what each of them built to the render's budget, which
  bounds what a loop keeping its results can hold.

Usage, by any renderer::

    class MyEnvironment(BoundedSandboxMixin, ImmutableSandboxedEnvironment): ...
    env = MyEnvironment(trim_blocks=True, ...)        # then add filters/globals as usual
    compiled = bounded_compile(env, source)           # TemplateBoundError: nests too deeply, deadline
    text = bounded_render(compiled, variables, DEFAULT_LIMITS.scaled(input_size(variables)))

``bounded_render`` raises ``TemplateBoundError`` (a ``jinja2.TemplateError``) with a one-line reason when
a bound is exceeded, and lets the template's own errors through. ``bounded_call(limits, what, fn, ...)``
runs any function (several renders, a renderer that is not jinja2) under one deadline and budget,
``with_deadline(seconds, what, fn, ...)`` under a deadline only. Messages read after "template: ".
"""

from __future__ import annotations

import ctypes
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from functools import update_wrapper
from typing import Any, TypeVar

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.sandbox import SandboxedEnvironment, SandboxedEscapeFormatter, SandboxedFormatter
from jinja2.utils import _PassArg, generate_lorem_ipsum
from markupsafe import Markup

from tui_tok.explore.chat.bounds_checks import (
    DEFAULT_LIMITS,
    Limits,
    TemplateBoundError,
    check_binop,
    check_filter,
    check_format_field,
    check_method,
    check_size,
    check_text,
    input_size,
    megabytes,
    result_size,
)

__all__ = ["DEFAULT_LIMITS", "BoundedSandbox", "BoundedSandboxMixin", "DeadlineExceeded", "Limits",
           "TemplateBoundError", "bounded_call", "bounded_compile", "bounded_render", "input_size",
           "with_deadline"]  # fmt: skip


T = TypeVar("T")


class DeadlineExceeded(BaseException):
    """Raised in a thread by the watchdog at its deadline. A ``BaseException``: no ``except Exception``
    in jinja or a filter can swallow it."""


# --- the deadline ------------------------------------------------------------------------------------


class _Alarm:
    __slots__ = ("thread_id", "at", "outer", "fired", "cleared")

    def __init__(self, thread_id: int, at: float, outer: tuple[_Alarm, ...]) -> None:
        self.thread_id, self.at, self.outer = thread_id, at, outer
        """``outer``: the alarms of the ``with_deadline`` calls this one runs inside, in this thread."""
        self.fired = self.cleared = False


class _Alarms(threading.local):
    active: tuple[_Alarm, ...] = ()
    """This thread's ``with_deadline`` calls, outermost first."""


_ACTIVE = _Alarms()


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None)


class _Watchdog:
    """One daemon thread for all deadlines; it wakes at the earliest one, not once per render.

    The rendering thread touches only C-level locks here (``threading.Lock``, whose ``with`` cannot
    be interrupted between acquiring and protecting): an outer deadline's exception raised inside a
    Python-level ``Condition.__enter__`` would leave its lock held and the watchdog blocked for good."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._signal = threading.Lock()
        """Held while there is nothing new; released to wake the watchdog early."""
        self._signal.acquire()
        self._alarms: set[_Alarm] = set()
        self._wake_at = float("inf")
        self._started = False

    def arm(self, alarm: _Alarm) -> None:
        """From here on, the alarm may fire: call this inside the ``try`` that disarms it."""
        with self._lock:
            start, self._started = not self._started, True
        if start:  # before the first alarm: it must not fire while this thread waits for the start
            threading.Thread(target=self._run, name="tui-tok template deadline", daemon=True).start()
        with self._lock:
            self._alarms.add(alarm)
            wake = alarm.at < self._wake_at
        if wake:
            try:
                self._signal.release()
            except RuntimeError:  # already released, not yet seen
                pass

    def disarm(self, alarm: _Alarm) -> bool:
        """The alarm will not fire, and no exception of it (or of an outer alarm that fired: a thread
        holds one pending asynchronous exception, shared by all) is pending in this thread.
        Returns whether an outer alarm fired, decided with the clearing: the caller then raises
        ``DeadlineExceeded`` itself, for the outer call."""
        with self._lock:
            self._alarms.discard(alarm)
            outer_fired = any(a.fired for a in alarm.outer)
            if not alarm.cleared and (alarm.fired or outer_fired):
                alarm.cleared = True
                _raise_in(alarm.thread_id, None)
            return outer_fired

    def _run(self) -> None:
        while True:
            with self._lock:
                now = time.monotonic()
                for alarm in [a for a in self._alarms if a.at <= now]:
                    self._alarms.discard(alarm)
                    alarm.fired = True
                    _raise_in(alarm.thread_id, DeadlineExceeded)
                self._wake_at = min((a.at for a in self._alarms), default=float("inf"))
                timeout = -1 if self._wake_at == float("inf") else self._wake_at - now
            self._signal.acquire(timeout=timeout)


_WATCHDOG = _Watchdog()


def with_deadline(seconds: float, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``, stopped after ``seconds``: then ``TemplateBoundError('<what> exceeded N s')``.

    Stops Python code only (a C call finishes first). The error's ``lineno`` is the template line the
    render was at when a compiled template's frame is on the traceback. Nests: an outer deadline
    passing inside an inner call ends the outer call (the inner one lets it through).

    A call, not a ``with`` block: the watchdog's exception can be raised at any bytecode, also on the
    way into a context manager's ``__exit__``, where no handler of the block sees it; here every
    point until the alarm is disarmed is inside this frame's ``try``."""
    alarm = _Alarm(threading.get_ident(), time.monotonic() + seconds, _ACTIVE.active)
    try:
        try:
            _ACTIVE.active = (*alarm.outer, alarm)
            _WATCHDOG.arm(alarm)
            return fn(*args, **kwargs)
        finally:
            _ACTIVE.active = alarm.outer
            if _WATCHDOG.disarm(alarm):
                raise DeadlineExceeded  # for the outer call (its own may have been cleared)
    except DeadlineExceeded as exc:
        outer_fired = _WATCHDOG.disarm(alarm)  # again: the exception may have come before the finally's
        _ACTIVE.active = alarm.outer
        if outer_fired or not alarm.fired:
            raise  # an outer call's deadline: it wins
        raise TemplateBoundError(f"{what} exceeded {seconds:g} s", _template_line(exc.__traceback__)) from None


def _template_line(tb: Any) -> int | None:
    """The innermost compiled-template frame's template line (jinja maps generated code to it)."""
    line = None
    for frame, lineno in traceback.walk_tb(tb):
        template = frame.f_globals.get("__jinja_template__")
        if template is not None and frame.f_code.co_filename == "<template>":
            line = template.get_corresponding_lineno(lineno)
    return line


# --- the per-thread limits ----------------------------------------------------------------------------


class _Render(threading.local):
    limits: Limits = DEFAULT_LIMITS
    spent: int = 0
    active: bool = False


_RENDER = _Render()


def _charge(value: Any) -> Any:
    """Add ``value``'s size to this render's budget; return it."""
    n = result_size(value)
    if n:
        state = _RENDER
        state.spent += n
        if state.active and state.spent > state.limits.budget:
            raise TemplateBoundError(f"values built exceed {megabytes(state.limits.budget)} in all")
    return value


def bounded_call(limits: Limits, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` with the bounded environments it renders with held to ``limits``
    (fresh budget) and within their deadline."""
    state = _RENDER
    saved = (state.limits, state.spent, state.active)
    state.limits, state.spent, state.active = limits, 0, True
    try:
        return with_deadline(limits.seconds, what, fn, *args, **kwargs)
    finally:
        state.limits, state.spent, state.active = saved


def bounded_compile(environment: jinja2.Environment, source: str, limits: Limits = DEFAULT_LIMITS) -> jinja2.Template:
    """``environment.from_string(source)`` within the deadline; nesting too deep for the parser is a
    ``TemplateBoundError`` instead of a RecursionError (seventy nested parentheses are enough)."""
    try:
        return bounded_call(limits, "compile", environment.from_string, source)
    except RecursionError:
        raise TemplateBoundError("nests too deeply to compile") from None
    except MemoryError:
        raise TemplateBoundError("too large to compile") from None


def bounded_render(template: jinja2.Template, variables: Mapping[str, Any], limits: Limits = DEFAULT_LIMITS) -> str:
    """``template.render(variables)`` within ``limits`` (deadline, sizes, output, budget)."""
    return bounded_call(limits, "render", template.render, variables)


# --- the environment -------------------------------------------------------------------------------------


class _BoundedCodeGenerator(CodeGenerator):
    """Compiles ``a ~ b`` to the environment's bounded concatenation instead of jinja's ``str_join``."""

    @optimizeconst
    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        if frame.eval_ctx.volatile or frame.eval_ctx.autoescape:
            super().visit_Concat(node, frame)
            return
        self.write("environment.bounded_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class _Filters(dict[str, Any]):
    """An environment's filters, each wrapped by ``check_filter`` as it is added."""

    def __setitem__(self, name: str, func: Any) -> None:
        super().__setitem__(name, _guard_filter(name, func))

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        for name, func in dict(*args, **kwargs).items():
            self[name] = func

    def setdefault(self, name: str, func: Any = None) -> Any:
        if name not in self:
            self[name] = func
        return self[name]


def _guard_filter(name: str, func: Any) -> Any:
    if getattr(func, "_tui_tok_guarded", False) or not callable(func):
        return func
    skip = 1 if _PassArg.from_obj(func) is not None else 0

    def guarded(*args: Any, **kwargs: Any) -> Any:
        limits = _RENDER.limits
        checked = check_filter(name, args[skip:], kwargs, limits)
        return _charge(_check_result(func(*args[:skip], *checked, **kwargs), limits))

    update_wrapper(guarded, func)
    guarded._tui_tok_guarded = True  # type: ignore[attr-defined]
    return guarded


def _check_result(value: Any, limits: Limits) -> Any:
    if isinstance(value, str):
        check_size(len(value), limits, "a string of length")
    elif isinstance(value, (list, tuple, dict)):
        check_size(len(value), limits, f"a {type(value).__name__} of length")
    return value


def _bounded_lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    check_size(n * max * 12, _RENDER.limits, "lorem ipsum of length up to")
    return generate_lorem_ipsum(n, html, min, max)


class BoundedSandboxMixin(SandboxedEnvironment):
    """Put before a jinja2 sandbox class: every operation checked by ``bounds_checks``, output capped.

    Renders the same text as the sandbox it is mixed into; only refuses what exceeds the limits of
    the ``bounded`` block it runs in (``DEFAULT_LIMITS`` outside one)."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})
    code_generator_class = _BoundedCodeGenerator

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.filters = _Filters(self.filters)
        for name in list(self.filters):
            self.filters[name] = self.filters[name]
        self.globals["lipsum"] = _bounded_lipsum
        inner = self.finalize
        self.finalize = self._finalize if inner is None else lambda value: self._finalize(inner(value))
        self.concat = self._bounded_output  # type: ignore[method-assign]

    @staticmethod
    def _finalize(value: Any) -> Any:
        """Every ``{{ value }}``: its text must fit before ``str()`` builds it."""
        check_text(value, _RENDER.limits)
        return value

    @staticmethod
    def _bounded_output(pieces: Iterable[str]) -> str:
        """The render's (or a block's, a macro's) output, stopped at ``max_output`` characters."""
        limit = _RENDER.limits.max_output
        out: list[str] = []
        total = 0
        for piece in pieces:
            total += len(piece)
            if total > limit:
                raise TemplateBoundError(f"output exceeds {megabytes(limit)}")
            out.append(piece)
        return _charge("".join(out))

    @staticmethod
    def bounded_concat(values: tuple[Any, ...]) -> str:
        """``a ~ b ~ c``."""
        limits = _RENDER.limits
        total = 0
        for v in values:
            check_text(v, limits)
            total += len(v) if isinstance(v, str) else 0
        check_size(total, limits, "a string joined by ~ of length")
        text = "".join(map(str, values))
        check_size(len(text), limits, "a string joined by ~ of length")
        return _charge(text)

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        check_binop(operator, left, right, _RENDER.limits)
        return _charge(super().call_binop(context, operator, left, right))

    def call(__self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        limits = _RENDER.limits
        args = check_method(__obj, args, kwargs, limits)
        return _charge(_check_result(super().call(__context, __obj, *args, **kwargs), limits))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``str.format``/``format_map`` as the sandbox does it, each field's width and text checked."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        f_self: str = value.__self__
        is_format_map = value.__name__ == "format_map"
        formatter: _BoundedFormatter = (_BoundedEscapeFormatter(self, escape=f_self.escape)
                                        if isinstance(f_self, Markup) else _BoundedFormatter(self))  # fmt: skip

        def wrapper(*args: Any, **kwargs: Any) -> str:
            if is_format_map:
                if kwargs or len(args) != 1:
                    return wrapped(*args, **kwargs)  # the sandbox's own TypeError
                kwargs, args = args[0], ()
            formatter.total = 0
            return _charge(type(f_self)(formatter.vformat(f_self, args, kwargs)))

        return update_wrapper(wrapper, value)


class _BoundedFormatter(SandboxedFormatter):
    total = 0

    def format_field(self, value: Any, format_spec: str) -> Any:
        limits = _RENDER.limits
        self.total += check_format_field(value, format_spec, limits)
        check_size(self.total, limits, "str.format output of length up to")
        return super().format_field(value, format_spec)


class _BoundedEscapeFormatter(_BoundedFormatter, SandboxedEscapeFormatter):
    pass


class BoundedSandbox(BoundedSandboxMixin, jinja2.sandbox.ImmutableSandboxedEnvironment):
    """jinja2's ``ImmutableSandboxedEnvironment`` with the bounds (what transformers renders with)."""
