"""The instruction sandbox: every render bounded (output, nested calls, loop work, time),
and `fdc check` reporting statically what the sandbox would refuse (J605-J607)."""

from __future__ import annotations

import threading
import time

import pytest

from fdc.compiler.check import check_sources
from fdc.core.limits import Limits, set_current
from fdc.core.problems import SourceFile
from fdc.instructions.render import (
    EntityText,
    Renderer,
    RenderError,
    RenderLimitError,
    thread_renderer,
)

MUG = {"o": EntityText("mug", "m", "the mug")}


@pytest.mark.parametrize(("text", "limit"), [
    ("{{ 'x' * 10**9 }}", "render_chars"),
    ("{{ o * 100000 }}", "render_chars"),
    ("{{ o | center(10**9) }}", "render_chars"),
    ("{{ 'x'.ljust(10**9) }}", "render_chars"),
    ("{{ '%0999999999d' % 1 }}", "render_chars"),
    ("{{ '%0999999999d' | format(1) }}", "render_chars"),
    ("{{ '{:>999999999}'.format(1) }}", "render_chars"),
    ("{% for i in range(5000) %}{{ o }} and {% endfor %}", "render_chars"),
    ("{{ 2 ** 100000 }}", "number_digits"),
    ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(o) }}", "render_depth"),
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
     "render_steps"),
    ("{% set s = 'x' * 9000 %}{% for a in s %}{% for b in s %}{% for c in s %}"
     "{% endfor %}{% endfor %}{% endfor %}", "render_seconds"),
])
def test_a_render_past_a_limit_stops_early_naming_it(text: str, limit: str) -> None:
    previous = set_current(Limits(render_seconds=0.5))
    try:
        start = time.monotonic()
        with pytest.raises(RenderLimitError) as e:
            Renderer().render(text, MUG)
        assert time.monotonic() - start < 3
        assert e.value.limit == limit
        assert f"`fdc --limit {limit}=N ...`" in str(e.value)
    finally:
        set_current(previous)


def test_ordinary_instructions_render_and_the_sandbox_still_holds() -> None:
    r = Renderer()
    assert r.render("Take {{ o | ref }} {% for i in range(3) %}{{ i }}{% endfor %}.", MUG) \
        == "Take the mug 012."
    with pytest.raises(RenderError, match="unsafe"):
        r.render("{{ o.__class__ }}", MUG)
    with pytest.raises(RenderError):  # Jinja's lipsum, cycler, joiner, namespace are gone
        r.render("{% set ns = namespace(s='x') %}{{ ns.s }}", MUG)
    assert r.env.budget is None  # no budget left over between renders


def check(instruction: str) -> list[tuple[str, str]]:
    text = ("(define (template t) (:domain fdc-home) (:parameters ?o - movable)\n"
            f"  (:goal (holding ?o)) (:instruction \"{instruction}\"))\n")
    from fdc.domain import builtin_domain_files

    library = [SourceFile.read(str(p)) for p in builtin_domain_files()]
    result = check_sources([SourceFile("t.pddl", text)], library)
    return [(d.code, d.message) for d in result.diagnostics if d.is_error]


@pytest.mark.parametrize(("instruction", "code", "words"), [
    ("Take {{ o.__class__ }}.", "J605", "forbids `__class__`"),
    ("Take {{ o['_secret'] }}.", "J605", "forbids `_secret`"),
    ("{{ [].append(o) }}Take {{ o }}.", "J605", "forbids `append`"),
    ("Take {{ o }}{{ '!' * 10**9 }}.", "J606", "a repetition of 1000000000"),
    ("{% for i in range(10**9) %}{{ o }}{% endfor %}", "J606", "render_steps"),
    ("Take {{ o | center(10**9) }}.", "J606", "an argument of 1000000000"),
    ("Take {{ o }}{{ '%0999999999d' % 1 }}.", "J606", "a format width of 999999999"),
    ("Take {{ o }}{{ 7 ** 1000 }}.", "J606", "number_digits"),
    ("{% macro a(x) %}{{ b(x) }}{% endmacro %}{% macro b(x) %}{{ a(x) }}{% endmacro %}"
     "Take {{ a(o) }}.", "J607", "macro `a` calls itself"),
])
def test_check_reports_what_the_sandbox_would_refuse(instruction: str, code: str,
                                                     words: str) -> None:
    found = check(instruction)
    assert any(c == code and words in m for c, m in found), found


def test_instructions_within_the_limits_check_clean() -> None:
    assert check("Take {{ o | ref }}{{ '!' * 3 }} {{ 2 ** 10 }} {{ o | center(20) }}.") == []


def test_a_thread_keeps_one_renderer_and_threads_do_not_share_it() -> None:
    mine = thread_renderer()
    assert thread_renderer() is mine
    theirs: list[object] = []
    worker = threading.Thread(target=lambda: theirs.append(thread_renderer()))
    worker.start()
    worker.join()
    assert theirs and theirs[0] is not mine
