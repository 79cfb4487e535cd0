"""agexplorer.explain on each kind of callable, what it holds, how it shows, and bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest

import agexplorer
from tests.notebook.live_fixtures import code, code_line  # noqa: F401 - the fixtures


@pytest.fixture(scope="module")
def x(tf):
    return tf.ones([2, 3])


@pytest.fixture(scope="module")
def explained(code, tf, x):
    """One explanation of each kind of callable, made once for the module."""
    return {
        "function": agexplorer.explain(code.unrolled, x),
        "tf.function": agexplorer.explain(code.decorated, x, tf.constant(3)),
        "method": agexplorer.explain(code.Scaler(3).scale, x),
        "keras": agexplorer.explain(code.Tiny(), x, training=True),
        "raises": agexplorer.explain(code.broken, x),
    }


def test_each_kind_gets_its_verdicts(explained, code_line):
    unrolled = explained["function"]
    [loop] = unrolled.verdicts
    assert (loop.line, loop.verdict, loop.iterations) == (code_line("for _ in range(5)"),
                                                           "python", 5)
    assert loop.unrolled and loop.hint and "tf.range" in loop.hint
    assert unrolled.converted_code.startswith("def tf__unrolled(x):")
    assert (code_line("x = x + 1.0") in {s for _, s in unrolled.source_map})
    assert unrolled.ops_by_line[code_line("x = x + 1.0")] == 10  # AddV2 and its constant, x5
    assert unrolled.trace_s > 0 and unrolled.error is None

    staged = explained["tf.function"]
    assert [(v.kind, v.verdict, v.graph_op) for v in staged.verdicts] == \
        [("for", "staged", "StatelessWhile")]
    assert staged.report.decorated

    method = explained["method"]
    assert [(v.verdict, v.iterations) for v in method.verdicts] == [("python", 3)]
    assert method.report.instance == "the Scaler it is bound to"

    keras = explained["keras"]
    assert keras.function == "Tiny.call" and keras.report.instance == "the Tiny given"
    [branch] = keras.verdicts  # `if training:` on a Python bool: Keras 3 runs call as Python
    assert (branch.line, branch.branch, branch.unconverted) == \
        (code_line("if training:"), "true", "keras3")
    assert len(keras.report.inventory.ops) > 10


def test_a_tf_function_of_a_lambda_follows_its_calls_into_the_layers(code, code_line, x):
    """``tf.function(lambda x: model(x))``: the lambda is the root, and the loop of the
    layer the model calls is reached (the lambda's lines found by where its code starts)."""
    explained = agexplorer.explain(code.forward, x)
    assert explained.error is None
    [loop] = explained.verdicts
    assert (loop.function, loop.line, loop.iterations) == \
        ("Blocks.call", code_line("for block in self.blocks:"), 2)
    assert loop.hint is None  # over Keras's list of layers: the unrolling is the point


def test_a_tf_function_method_the_user_already_called(code, x):
    holder = code.Holder()
    holder.step(x)  # traced: AutoGraph's converted code now stands in for the method
    explained = agexplorer.explain(holder.step, x)
    assert explained.report.file == code.__file__ and explained.function == "Holder.step"
    assert [(v.verdict, v.iterations) for v in explained.verdicts] == [("python", 3)]
    assert holder.step.experimental_get_tracing_count() == 1


def test_a_call_that_raises_is_the_users_error_at_the_users_line(explained, code_line):
    error = explained["raises"].error
    assert error.line == code_line("return y.numpy()")
    assert "tracing broken raised AttributeError" in error.message
    assert "live_code.py" in error.message


class _Tags(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_it_shows_as_rich_text_html_and_json(explained):
    from rich.console import Console

    unrolled = explained["function"]
    console = Console(width=80, record=True, file=open("/dev/null", "w"))
    console.print(unrolled)
    text = console.export_text()
    assert "unrolled x5" in text and "tf.range(5)" in text
    assert max(len(line) for line in text.splitlines()) <= 80

    html = unrolled._repr_html_()
    tags = _Tags(html).tags
    assert tags[0] == ("div", {"class": "agx-page"})  # one element, no document around it
    assert not {t for t, _ in tags} & {"script", "link", "img", "iframe", "html", "body"}
    assert "url(" not in html and "@import" not in html and "http" not in html
    assert "unrolled x5" in html and "for _ in range(5):" in html
    # Every rule is scoped to the element; its own background, dark in a dark JupyterLab.
    style = re.search(r"<style>(.*)</style>", html, re.S).group(1)
    assert re.search(r"\.agx-page\.agx-page \{[^}]*background: var\(--bg\)", style)
    assert re.search(r'body\[data-jp-theme-light="false"\] \.agx-page\.agx-page[^{]*'
                     r"\{ --bg: #0d1117", style)
    rules = re.findall(r"([^{}]+)\{[^{}]*\}", re.sub(r"@media[^{]*\{", "", style))
    assert all(".agx-page" in sel for rule in rules for sel in rule.split(",")
               if sel.strip()), rules

    data = json.loads(json.dumps(unrolled.to_dict()))
    assert data["statements"][0]["verdict"] == "python"
    assert data["call"]["origin"] == "agexplorer.explain's arguments"
    assert data["notes"] == []
    assert "unrolled x5" in repr(unrolled)
    assert "error" in explained["raises"].to_dict()


def test_run_times_the_three_modes(code, x):
    ran = agexplorer.explain(code.unrolled, x, run=True)
    assert set(ran.lab.runs) == {"eager", "graph", "xla"}
    assert all(r.ok and r.median_s for r in ran.lab.runs.values()), ran.lab.runs
    assert ran.lab.results_match is True and not ran.lab.fresh_module
    assert "graph" in ran.to_dict()["runs"]


@pytest.mark.parametrize("bad, sentence", [
    (42, "expected a function, a tf.function, a bound method or a Keras layer, got int 42."),
    (len, "expected a function, a tf.function, a bound method or a Keras layer, got "
          "builtin_function_or_method <built-in function len>."),
])
def test_bad_input_is_one_sentence(bad, sentence):
    with pytest.raises(TypeError) as caught:
        agexplorer.explain(bad)
    assert str(caught.value) == sentence


def test_what_cannot_be_explained_says_why(code, tf, x):
    import keras

    with pytest.raises(TypeError, match=r"^Dense.call is Keras's own code .*not yours"):
        agexplorer.explain(keras.layers.Dense(2), x)
    with pytest.raises(TypeError, match=r"got the class Tiny: pass an instance"):
        agexplorer.explain(code.Tiny, x)
    with pytest.raises(TypeError, match=r"^reuse=True .* unrolled is not a tf.function"):
        agexplorer.explain(code.unrolled, x, reuse=True)
    with pytest.raises(TypeError, match=r"^run must be True or False, got 'yes'\.$"):
        agexplorer.explain(code.unrolled, x, run="yes")
    made = {}
    exec("def nowhere(x):\n    return x\n", made)  # no file, no cell: no source to convert
    with pytest.raises(TypeError, match=r"^nowhere has no .py source file"):
        agexplorer.explain(made["nowhere"], x)


def test_importing_agexplorer_stays_light():
    code = ("import sys, agexplorer; agexplorer.explain; agexplorer.load_ipython_extension; "
            "import agexplorer.notebook; print(sorted(m for m in ('tensorflow', 'IPython', "
            "'rich', 'textual', 'keras') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == "[]"


def test_an_unrolled_loops_fix_is_tried_with_the_calls_own_arguments(explained, code, x):
    """As `agexplorer report` does, the fix of a function of a .py file is traced once
    (rewritten copy, the live arguments passed as they are): kept where it stages the loop,
    not offered where it fails (a Python list indexed by a tensor counter); a method's is
    left as written (a rewritten copy's class has no instance)."""
    [loop] = explained["function"].verdicts
    assert loop.hint.endswith("Tried: the rewrite stages the loop as a StatelessWhile op.")
    modules, path = dict(sys.modules), list(sys.path)
    [indexed] = agexplorer.explain(code.summed, [x, x, x]).verdicts
    # the trial's load of a rewritten copy leaves the session's modules and path as they were
    assert sys.modules["live_code"] is code and sys.path == path
    assert not [m for m in sys.modules.keys() - modules.keys() if m.startswith("agx_user_")]
    assert indexed.hint.startswith("the body does not work with a tensor counter"), indexed.hint
    assert "Tried: the rewrite fails to trace" in indexed.hint
    assert "list indices must be integers" in indexed.hint
    [method] = explained["method"].verdicts
    assert "Tried:" not in method.hint
    # annotated under `from __future__ import annotations` with a name set only for type
    # checkers: the rewritten def is made with the module's future features
    [loop] = agexplorer.explain(code.annotated, x).verdicts
    assert loop.hint.endswith("Tried: the rewrite stages the loop as a StatelessWhile op."), \
        loop.hint
    # under a decorator of its own (one that registers what it wraps): not made again, so
    # nothing is registered twice; its fix stays untried
    [loop] = agexplorer.explain(code.registered, x).verdicts
    assert "Tried:" not in loop.hint and code.REGISTRY == ["registered"]


def test_the_live_doctor_tries_its_rewrites_with_the_calls_own_arguments(code, x):
    """`%agx doctor f(x)` on a function of a .py file tries each rewrite as `agexplorer
    doctor` does (staged, or failing with what to do instead); a cell's function and a
    method keep their rewrites untried."""
    from agexplorer.notebook.live import diagnose_call

    staged = diagnose_call(code.unrolled, (x,), {}, "test")
    [loop] = [f for f in staged.findings if f.code == "AGX004"]
    assert loop.tried is not None and loop.tried.outcome == "staged", loop.tried
    failed = diagnose_call(code.summed, ([x, x, x],), {}, "test")
    [loop] = [f for f in failed.findings if f.code == "AGX004"]
    assert loop.tried.outcome == "fails" and "list indices must be integers" in loop.tried.error
    method = diagnose_call(code.Scaler(3).scale, (x,), {}, "test")
    assert all(f.tried is None for f in method.findings)
