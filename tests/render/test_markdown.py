"""The Markdown page, parsed back with markdown-it-py (GitHub's tables): its tables, headings,
code blocks and escaping, from hand-made records (no TensorFlow)."""

from __future__ import annotations

from markdown_it import MarkdownIt
from share_records import HOSTILE, busy_summary, page, run_summary

from agexplorer.render.markdown import file_markdown, summary_markdown


def _tokens(text: str) -> list:
    return MarkdownIt("commonmark").enable("table").parse(text)


def _plain(inline) -> str:
    """An inline token's text as a reader sees it (code spans unwrapped, escapes resolved)."""
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))


def tables(text: str) -> list[list[list[str]]]:
    """Every table: its rows (the header first), each a list of cell texts."""
    found, rows, row = [], None, None
    for token in _tokens(text):
        if token.type == "table_open":
            rows = []
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append(_plain(token))
        elif token.type == "tr_close":
            rows.append(row)
            row = None
        elif token.type == "table_close":
            found.append(rows)
    return found


def headings(text: str, level: str) -> list[str]:
    tokens = _tokens(text)
    return [_plain(tokens[i + 1]) for i, t in enumerate(tokens)
            if t.type == "heading_open" and t.tag == level]


def _table_with(text: str, header: str) -> list[list[str]]:
    (found,) = [t for t in tables(text) if header in t[0]]
    return found


def test_the_verdict_counts_table_has_a_row_per_function():
    text = file_markdown(page())
    counts = tables(text)[0]
    assert counts[0] == ["function", "ops", "staged", "python", "mixed", "unreached",
                         "unrolled loops", "traces", "findings", "analysis"]
    assert counts[1] == ["train", "20", "1", "1", "0", "1", "1", "2", "1", "ok"]
    assert counts[2] == ["broken", "-", "0", "0", "0", "0", "0", "-", "0", "failed"]


def test_a_heading_per_function_and_the_file_as_title():
    text = file_markdown(page())
    assert headings(text, "h1") == ["agexplorer report: train.py"]
    assert headings(text, "h2") == ["train", "broken", "Module-level findings"]


def test_unrolled_loops_with_their_count_and_share_of_the_ops():
    loops = _table_with(file_markdown(page()), "share of the function's ops")
    assert loops[1:] == [["train train.py:13", "for i in range(n):", "5", "10", "50%"]]


def test_a_pipe_in_a_statement_stays_in_its_cell():
    flow = _table_with(file_markdown(page()), "why, and the fix")
    assert all(len(row) == 5 for row in flow)
    assert flow[3][:4] == ["17", "if (n > 1000) | flag:", "unreached", "0"]
    assert flow[1][4] == "for at 13 Fix: iterate over tf.range(n) instead"


def test_findings_retraces_and_timings():
    text = file_markdown(page())
    assert tables(text)[3][1] == ["13", "AGX004 loop unrolled while tracing",
                                            "a Python range loop unrolls into the graph",
                                            "use tf.range(n)"]
    assert _table_with(text, "median")[1:] == [
        ["eager", "int32[] 100", "2.00 ms", "300.0 µs", "900", "-", "1.00x"],
        ["graph", "int32[] 100", "50.00 ms", "100.0 µs", "2000", "2", "3x"]]
    assert "graph mode traced 2 times: a later call's arguments had a new signature" in text
    assert tables(text)[-1][1] == ["40", "AGX008 tf.function made repeatedly",
                                   "tf.function made in a loop", "make it once"]
    assert "needs_args" in text


def test_the_source_is_a_code_block_with_a_verdict_column_and_a_longer_fence():
    text = file_markdown(page())
    (block,) = [t for t in _tokens(text) if t.type == "fence"]
    assert block.markup == "````"  # the source holds a ``` run: the fence must outlast it
    lines = block.content.splitlines()
    assert lines[3] == "   13  unrolled x5      for i in range(n):"
    assert lines[5] == "   15  staged           while s < 100:"
    assert HOSTILE in lines[8]  # user code stays text, exactly


def test_a_failed_function_shows_its_sentence():
    tokens = _tokens(file_markdown(page()))
    texts = [_plain(t) for t in tokens if t.type == "inline"]
    assert "Not analysed: ValueError: the shapes | differ (train.py:30)" in texts


def test_the_run_summary_page():
    text = summary_markdown(run_summary())
    assert headings(text, "h2") == ["Functions by trace time", "Retraces",
                                    "Largest unrolled loops", "Fixes"]
    assert _table_with(text, "trace time")[1] == ["train_step", "train.py:29", "2", "0.750 s",
                                                  "60", "yes"]
    assert _table_with(text, "what changed")[1] == [
        "train_step", "train.py:29", "1", f"x: float32[8, 4] instead of float32[16, 4] {HOSTILE}",
        "trace 2", "-"]
    assert _table_with(text, "share of its trace's ops")[1] == [
        "normalize", "helpers.py:7", "for i in range(len(xs)):", "3", "9", "30%", "0.150 s"]
    assert "- `normalize` (helpers.py:7): use tf.range" in text.splitlines()


def test_an_interrupted_run_says_so_on_both_pages():
    from agexplorer.render.html import summary_html

    summary = run_summary()
    assert "interrupted" not in summary_markdown(summary)
    summary["program"]["interrupted"] = True
    assert "**interrupted** (Ctrl-C)" in summary_markdown(summary)
    assert "<strong>interrupted</strong> (Ctrl-C)" in summary_html(summary)


def test_retraces_are_grouped_by_cause_with_their_count_and_fix():
    text = summary_markdown(busy_summary())
    assert "9 retraces, grouped by what changed." in text.splitlines()
    rows = _table_with(text, "what changed")
    assert rows[0] == ["function", "where", "retraces", "what changed", "traces", "fix"]
    assert rows[1:] == [
        ["train_step", "train.py:29", "8",
         "lr: a new Python float each time (0.09, 0.081, 0.0729 and 5 more)", "traces 2-9",
         "pass lr as a tensor (tf.constant(lr)): one trace serves every value"],
        ["train_step", "train.py:29", "1", "x: a new shape [8, 4]", "trace 10",
         "a None dimension for x in input_signature, or reduce_retracing=True, lets one trace "
         "serve every shape"]]


def test_a_cut_list_of_loops_says_how_many_more_and_counts_the_intended_ones():
    text = summary_markdown(busy_summary())
    loops = _table_with(text, "share of its trace's ops")[1:]
    assert [row[1] for row in loops] == [f"train.py:{100 + i}" for i in range(10)]  # largest
    assert "train.py:99" not in text  # the loop over the variables is not a problem to fix
    paragraphs = [_plain(t) for t in _tokens(text) if t.type == "inline"]
    assert "... and 2 more unrolled loops, smaller than these (agexplorer summary LOG --all " \
           "lists them all)." in paragraphs
    assert "1 loop over variables unrolled as intended." in paragraphs
    assert "and 1 more" not in text  # a list shown whole says nothing more


def test_a_failed_program_says_what_raised_and_where():
    paragraphs = [_plain(t) for t in _tokens(summary_markdown(busy_summary()))
                  if t.type == "inline"]
    assert f"The program failed (exit status 1): ValueError at train.py:40: bad value {HOSTILE}" \
        in paragraphs
    assert not any("failed" in p for p in [_plain(t) for t in _tokens(
        summary_markdown(run_summary())) if t.type == "inline"])


def test_a_function_autograph_refused_says_so_with_its_fix():
    """The refusal (and the fix) is what matters about such a function: not only "No
    if/for/while"; the user's text in it stays text."""
    from dataclasses import replace

    from share_records import FILE, report

    from agexplorer.render.page import FilePage, FunctionPage

    note = (f"train.py:6: AutoGraph could not transform pick: a `match` statement; write the "
            f"`match` as `if`/`elif` (`if mode == '{HOSTILE}':`).")
    refused = replace(report(), statements=[], conversion=None, conversion_note=note)
    text = file_markdown(FilePage(FILE, [FunctionPage(FILE, "pick", report=refused)]))
    texts = [_plain(t) for t in _tokens(text) if t.type == "inline"]
    assert f"Not converted by AutoGraph: {note}" in texts
