"""The HTML page, parsed back with the standard library: its sections, source lines coloured by
verdict, nothing fetched from anywhere, user text escaped (hand-made records, no TensorFlow)."""

from __future__ import annotations

from html.parser import HTMLParser

from share_records import HOSTILE, busy_summary, page, run_summary

from agexplorer.render.html import file_html, summary_html


class Page(HTMLParser):
    """What a browser would build: elements with their attributes, the text, the source rows."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.rows: list[tuple[str | None, list[str]]] = []  # source rows: (class, cells)
        self._row: tuple[str | None, list[str]] | None = None
        self._in_source = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        if tag == "table":
            self._in_source = attributes.get("class") == "source"
        elif tag == "tr" and self._in_source:
            self._row = (attributes.get("class"), [])
        elif tag == "td" and self._row is not None:
            self._row[1].append("")

    def handle_endtag(self, tag):
        if tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None
        elif tag == "table":
            self._in_source = False

    def handle_data(self, data):
        self.text.append(data)
        if self._row is not None and self._row[1]:
            self._row[1][-1] += data

    def ids(self, tag: str) -> list[str]:
        return [a["id"] for t, a in self.elements if t == tag and a.get("id")]


def test_the_page_has_its_sections():
    parsed = Page(file_html(page()))
    assert parsed.ids("section") == ["overview", "legend", "fn-train", "fn-broken", "module"]
    text = "".join(parsed.text)
    assert "graph mode traced 2 times" in text and "Not analysed:" in text
    assert "ValueError: the shapes | differ (train.py:30)" in text
    assert "needs_args" in text and "AGX004" in text and "AGX008" in text


def test_nothing_is_fetched_and_nothing_runs():
    html = file_html(page()) + summary_html(run_summary())
    for parsed in (Page(file_html(page())), Page(summary_html(run_summary()))):
        tags = {t for t, _ in parsed.elements}
        assert not tags & {"script", "link", "img", "iframe", "object", "embed", "base"}
        for _, attributes in parsed.elements:
            for name in ("src", "href", "action"):
                value = attributes.get(name) or ""
                assert "http" not in value and "//" not in value, value
    assert "url(" not in html and "@import" not in html


def test_a_hostile_string_stays_text():
    html = file_html(page())
    assert HOSTILE not in html  # never as markup...
    parsed = Page(html)
    assert any(HOSTILE in line for line in parsed.text)  # ...but as text, exactly
    assert [t for t, _ in parsed.elements].count("script") == 0


def test_source_lines_are_coloured_by_verdict_with_a_legend():
    parsed = Page(file_html(page()))
    coloured = {cells[0]: klass for klass, cells in parsed.rows if klass}
    assert coloured == {"13": "v-python", "15": "v-staged", "17": "v-unreached"}
    rows = {cells[0]: cells for _, cells in parsed.rows}
    assert rows["13"] == ["13", "unrolled x5", "", "    for i in range(n):"]
    assert rows["14"] == ["14", "", "10", "        s += i"]  # the ops its line made
    legend = [a.get("class") for t, a in parsed.elements if t == "span"
              and (a.get("class") or "").startswith("v-")]
    assert legend == ["v-staged", "v-python", "v-mixed", "v-unreached"]


def test_light_and_dark_colours():
    html = file_html(page())
    assert "prefers-color-scheme: dark" in html and 'name="color-scheme"' in html


def test_the_run_summary_page_has_its_sections():
    parsed = Page(summary_html(run_summary()))
    assert parsed.ids("section") == ["functions", "retraces", "loops", "fixes"]
    text = "".join(parsed.text)
    assert f"x: float32[8, 4] instead of float32[16, 4] {HOSTILE}" in text
    assert "train_step" in text and "30%" in text and "use tf.range" in text


def test_the_run_page_groups_retraces_and_counts_what_it_leaves_out():
    html = summary_html(busy_summary())
    parsed = Page(html)
    assert parsed.ids("section") == ["functions", "retraces", "loops"]
    text = "".join(parsed.text)
    assert "9 retraces, grouped by what changed." in text
    retraces = html.split('<section id="retraces">')[1].split("</section>")[0]
    assert retraces.count("<tr>") == 3  # the header, then one row per cause
    assert "lr: a new Python float each time (0.09, 0.081, 0.0729 and 5 more)" in text
    assert "traces 2-9" in text and "pass lr as a tensor (tf.constant(lr))" in text
    loops = html.split('<section id="loops">')[1].split("</section>")[0]
    assert loops.count("<tr>") == 11  # the header and the ten largest
    assert "... and 2 more unrolled loops, smaller than these (agexplorer summary LOG --all " \
           "lists them all)." in text
    assert "1 loop over variables unrolled as intended." in text
    assert "model.variables" not in text
    assert f"The program failed (exit status 1): ValueError at train.py:40: bad value {HOSTILE}" \
        in text


def test_a_function_autograph_refused_says_so_as_text():
    from dataclasses import replace

    from share_records import FILE, report

    from agexplorer.render.page import FilePage, FunctionPage

    note = f"AutoGraph could not transform pick: a `match` statement (`if mode == '{HOSTILE}':`)."
    refused = replace(report(), statements=[], conversion=None, conversion_note=note)
    html = file_html(FilePage(FILE, [FunctionPage(FILE, "pick", report=refused)]))
    assert HOSTILE not in html  # never as markup, but as text, exactly
    assert f"Not converted by AutoGraph: {note}" in "".join(Page(html).text)
