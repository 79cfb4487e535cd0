"""A keystroke in the explorer's source pane against the same keystroke in Textual's own
TextArea, on a sample and on a long file: what typing costs before the screen can change.

Both panes sit in one headless app (160x45), each given the same text, the same language
(Python) and the same edits, alternated: a one-line statement inserted near the top (the
line count and every line below it move, as typing a new line does), then one character
typed at its end. Each edit is timed from the call to ``insert`` until it returns: the
document's change, tree-sitter's incremental parse and the highlighting worked out again
(the pane's own share of a keystroke; the frame that shows it comes after, for both). The
long file is the lesson's ``s6_2_bad_loop.py`` followed by 150 generated tf.functions with
a loop each (1,277 lines, a real training script's size). Medians over ``EDITS`` edits of
each kind (``--quick``: fewer), and their ratio, printed; nothing asserted.

Run: ``python benchmarks/bench_typing.py [--quick]``
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

SAMPLE = os.path.join(ROOT, "samples", "s6_2_bad_loop.py")


def long_text() -> str:
    base = open(SAMPLE, encoding="utf-8").read()
    return base + "".join(
        f"\n\n@tf.function\ndef f{i}(n):\n    s = tf.constant(0)\n    for k in tf.range(n):\n"
        f"        s += k * {i}\n    return s\n" for i in range(150))


async def keystrokes(text: str, edits: int) -> dict[str, float]:
    """Median seconds per edit, for each pane ("ours", "textual")."""
    from textual.app import App
    from textual.widgets import TextArea

    from agexplorer.tui.code.source_pane import SourcePane

    class Panes(App):
        def compose(self):
            yield SourcePane(id="ours")
            yield TextArea(text, language="python", show_line_numbers=True, soft_wrap=False,
                           id="textual")

    app = Panes()
    times: dict[str, list[float]] = {"ours": [], "textual": []}
    async with app.run_test(size=(160, 45)) as pilot:
        ours = app.query_one(SourcePane)
        ours.load_text(text)
        panes = {"ours": ours, "textual": app.query_one("#textual", TextArea)}
        await pilot.pause()
        for n in range(edits):
            for name, pane in panes.items():
                t0 = time.perf_counter()
                pane.insert(f"x{n} = {n}\n", (12, 0))  # a new line: the lines below move
                times[name].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                pane.insert("1", (12, len(f"x{n} = {n}")))  # a character typed
                times[name].append(time.perf_counter() - t0)
            await pilot.pause(0.02)  # the frames of the edits, between them
    return {name: statistics.median(spans) for name, spans in times.items()}


def main(argv: list[str] | None = None) -> None:
    edits = repeats_from_args(__doc__, argv, full=30, quick=8)
    sample = open(SAMPLE, encoding="utf-8").read()
    rows = []
    for label, text in (("sample (s6_2_bad_loop.py)", sample), ("long file", long_text())):
        medians = asyncio.run(keystrokes(text, edits))
        rows.append((label, len(text.splitlines()), medians["ours"], medians["textual"]))
    print(f"{'file':28} {'lines':>6} {'source pane':>12} {'TextArea':>10} {'ratio':>7}")
    for label, lines, ours, textual in rows:
        print(f"{label:28} {lines:6d} {1000 * ours:9.2f} ms {1000 * textual:7.2f} ms "
              f"{ours / textual:6.2f}x")
    print("RESULT typing " + " ".join(
        f"{'sample' if i == 0 else 'long'}_ratio={ours / textual:.2f}"
        for i, (_, _, ours, textual) in enumerate(rows))
        + "  (a keystroke in the source pane / in Textual's TextArea, medians)")


if __name__ == "__main__":
    main()
