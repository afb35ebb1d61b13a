"""Bounded template rendering (``explore/chat/bounds.py``): every hostile template is a one-line
``ChatTemplateError`` within the deadline and 200 MB, measured in a fresh process each; what is
within the bounds renders exactly as jinja2's plain sandbox renders it; the deadline works for any
Python code and leaves the thread clean."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from typing import Any

import jinja2.ext
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from hostile_templates import DEADLINE, HOSTILE, MAX_EXTRA_MB, SLACK
from support import ROOT
from tui_tok.explore.chat.bounds import (
    DEFAULT_LIMITS,
    BoundedSandbox,
    Limits,
    TemplateBoundError,
    bounded_compile,
    bounded_render,
    with_deadline,
)
from tui_tok.explore.chat.render import ChatTemplateError, render_chat

MEMORY_CAP = 2 << 30
"""Address space the measuring process may take: a renderer without bounds fails instead of
swapping the machine."""

_MEASURE = """
import json, resource, sys, time
from tui_tok.explore.chat.render import ChatTemplateError, render_chat
render_chat("{{ messages[0].content }}", [{"role": "user", "content": "warm up"}])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
try:
    render_chat(sys.stdin.read(), [{"role": "user", "content": "Hello"}])
    error = None
except ChatTemplateError as exc:
    error = str(exc)
seconds = time.perf_counter() - start
extra_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps({"error": error, "seconds": seconds, "extra_mb": extra_mb}))
"""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def measure(template: str) -> dict[str, Any]:
    """Render ``template`` in a fresh interpreter: its error, seconds and extra peak RSS (MB)."""
    proc = subprocess.run([sys.executable, "-c", _MEASURE], input=template, capture_output=True, text=True,
                          timeout=DEADLINE + 30, cwd=ROOT, preexec_fn=_limit_memory)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_template_is_one_line_within_deadline_and_memory(name: str) -> None:
    template, reason = HOSTILE[name]
    result = measure(template)
    error = result["error"]
    assert error is not None, f"{name} rendered"
    assert "\n" not in error and reason in error, error
    assert result["seconds"] < DEADLINE + SLACK, result
    assert result["extra_mb"] < MAX_EXTRA_MB, result


# --- what is within the bounds is untouched ---------------------------------------------------------

SAME = [
    "{{ 'ab' * 3 }}|{{ [1, 2] * 2 }}|{{ 2 ** 10 }}|{{ 7 * 6 }}|{{ 'a' + 'b' }}|{{ [1] + [2] }}|{{ 7 % 3 }}",
    "{{ '%05.1f|%s|%-4d|%%' % (3.14159, 'x', 7) }}|{{ '%(a)s' % {'a': 1} }}|{{ 'v=%s'|format(3) }}",
    "{{ '{:>6}|{:.2f}|{!r}'.format('ab', 2.5, 'q') }}|{{ '{x}'.format_map({'x': 1}) }}",
    "{{ 'a' ~ 1 ~ [2] ~ none }}|{% set c %}{{ 'x' }}{{ 'y' }}{% endset %}{{ c }}",
    "{{ messages|tojson }}|{{ messages|tojson(indent=2) }}|{{ {'b': 1, 'a': [1, 2]}|tojson(4) }}",
    "{{ '-'.join(['a', 'b']) }}|{{ ['a', 'b']|join(', ') }}|{{ 'abc'.replace('b', 'XX') }}|{{ 'ab'.center(6) }}",
    "{{ 'a\nb'|indent(2, first=true) }}|{{ 'x'|center(5) }}|{{ [1, 2, 3]|batch(2)|list }}|{{ [[1], [2]]|sum(start=[]) }}",
    "{% macro m(x) %}<{{ x }}>{% endmacro %}{{ m(1) }}{% for i in range(3) %}{{ loop.index }}{% endfor %}",
    "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}|{{ ns }}",
    "{{ [1, 'a', {'k': (1, 2)}] }}|{{ {'a': none} }}|{{ 'tab\there'.expandtabs(4) }}|{{ (255).to_bytes(2, 'big') }}",
]


def _environments() -> tuple[jinja2.Environment, jinja2.Environment]:
    options: dict[str, Any] = {"trim_blocks": True, "lstrip_blocks": True, "extensions": [jinja2.ext.loopcontrols]}
    return ImmutableSandboxedEnvironment(**options), BoundedSandbox(**options)


@pytest.mark.parametrize("template", SAME)
def test_bounded_sandbox_renders_what_the_plain_sandbox_renders(template: str) -> None:
    plain, bounded = _environments()
    variables = {"messages": [{"role": "user", "content": 'Hi "there" 日本'}]}
    expected = plain.from_string(template).render(variables)
    assert bounded_render(bounded_compile(bounded, template), variables) == expected


def test_limits_scale_with_a_large_conversation() -> None:
    """A 3 MB message renders (output past 1 MB) and the same output from a small one is refused."""
    big = "word " * 600_000
    out = render_chat("{{ messages[0].content }}{{ messages[0].content }}", [{"role": "user", "content": big}])
    assert len(out) == 2 * len(big)
    with pytest.raises(ChatTemplateError, match="output exceeds 1 MB"):
        render_chat("{% for i in range(300) %}{{ 'x' * 10000 }}{% endfor %}", [{"role": "user", "content": "Hi"}])


def test_limits_are_the_callers() -> None:
    env = BoundedSandbox()
    tight = Limits(seconds=5, max_output=10, max_size=10)
    with pytest.raises(TemplateBoundError, match="exceeds the limit of 10"):
        bounded_render(env.from_string("{{ 'a' * 11 }}"), {}, tight)
    assert bounded_render(env.from_string("{{ 'a' * 11 }}"), {}, DEFAULT_LIMITS) == "a" * 11


# --- the deadline ------------------------------------------------------------------------------------


def test_deadline_stops_any_python_code() -> None:
    def spin() -> None:
        while True:
            pass

    start = time.perf_counter()
    with pytest.raises(TemplateBoundError, match=r"^spin exceeded 0\.2 s$"):
        with_deadline(0.2, "spin", spin)
    assert time.perf_counter() - start < 0.2 + SLACK


def test_deadline_names_the_template_line() -> None:
    env = BoundedSandbox()
    template = env.from_string("a\nb\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
    with pytest.raises(TemplateBoundError) as info:
        bounded_render(template, {}, Limits(seconds=0.2))
    assert info.value.lineno == 3


def test_a_render_ending_at_its_deadline_leaves_the_thread_clean() -> None:
    """Renders that finish around their deadline: the watchdog's exception is either the render's
    error or cleared, never raised later in the caller's code."""
    env = BoundedSandbox()
    template = env.from_string("{% for i in range(n) %}{{ i }}{% endfor %}")
    outcomes = set()
    for n in range(0, 8000, 40):
        try:
            bounded_render(template, {"n": n}, Limits(seconds=0.001))
            outcomes.add("rendered")
        except TemplateBoundError:
            outcomes.add("stopped")
        total = 0
        for i in range(20_000):  # plenty of bytecode for a stray pending exception to surface in
            total += i
    assert outcomes == {"rendered", "stopped"}


def test_an_outer_deadline_ends_the_outer_block() -> None:
    """Several renders under one deadline (the Chat view's prompt): when it passes inside one of
    them, the whole block ends, not just that render (which a caller might catch and go on)."""
    env = BoundedSandbox()
    spin = env.from_string("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
    renders = []

    def prompt() -> None:
        for _ in range(5):
            renders.append(1)
            try:
                bounded_render(spin, {}, Limits(seconds=10))
            except TemplateBoundError:
                pass  # a caller going on with the next render

    start = time.perf_counter()
    with pytest.raises(TemplateBoundError, match="^prompt exceeded 0.3 s$"):
        with_deadline(0.3, "prompt", prompt)
    assert len(renders) == 1 and time.perf_counter() - start < 0.3 + SLACK


def test_nested_deadlines_passing_together_end_the_outer_call() -> None:
    """Inner and outer deadlines passing at about the same time (one pending exception per thread):
    the outer call still ends, every time."""
    env = BoundedSandbox()
    spin = env.from_string("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")

    def prompt(inner: float) -> None:
        while True:
            try:
                bounded_render(spin, {}, Limits(seconds=inner))
            except TemplateBoundError:
                pass

    for k in range(20):
        with pytest.raises(TemplateBoundError, match="^prompt exceeded"):
            with_deadline(0.05, "prompt", prompt, 0.049 + k * 0.0001)


def test_filters_a_renderer_adds_are_bounded_too() -> None:
    """Another renderer's own filters (llama-server's tojson) get the same checks, however added."""
    env = BoundedSandbox()
    env.filters["pad"] = lambda value, width: value.center(width)
    env.filters.update(pad2=lambda value, width: value.center(width))
    env.filters.setdefault("pad3", lambda value, width: value.center(width))
    for name in ("pad", "pad2", "pad3"):
        assert bounded_render(env.from_string("{{ 'a'|%s(3) }}" % name), {}) == " a "
        with pytest.raises(TemplateBoundError, match="exceeds the limit"):
            bounded_render(env.from_string("{{ 'a'|%s(2000000000) }}" % name), {})
