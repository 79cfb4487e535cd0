"""The Graph tab at 80,000 ops: filling the op tree against a bare Tree fill of the same ops.

In one process, headless (``App.run_test`` at 120x40), on a hand-built inventory with no
TensorFlow: a Python loop unrolled 10,000 times (8 ops an iteration from 4 lines: Const,
Mul, Sin, AddV2 and their Identity/Cast/Reshape/Sub companions), plus a ``tf.while_loop``
whose body holds 1,000 more ops, 81,007 ops in all. Interleaved in every repeat, 5 repeats
(2 with ``--quick``), medians of wall time:

- **op tree fill**: ``OpTree.show(inventory)`` and the refresh that paints it (the clock
  stops after ``pilot.pause()``), on a fresh tree: the index (grouping by line and type,
  the bodies each op holds) is built inside the timing, as after every analysis;
- **bare Tree fill**: a plain ``textual.widgets.Tree`` given every op as a leaf, one
  ``add_leaf`` each, and painted: what a tree without grouping costs for the same ops
  (the op tree before issue 13 also made every body's nodes up front);
- diagnostics: typing the filter ``sin`` (one refill) and clearing it, on the filled tree.

Goal: op tree fill <= 1 s (the issue's "fills within a second"); the bare fill is the yard-
stick printed beside it. The script checks the tree shows the groups (so that it measures
real work); timings are printed, never asserted.

Run: ``python benchmarks/bench_graph_tab.py [--quick]``
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

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Tree  # noqa: E402

from agexplorer.model.inventory import BodyInfo, Inventory, OpInfo  # noqa: E402
from agexplorer.tui.graph.op_tree import OpTree  # noqa: E402

GOAL_S = 1.0
FILE = "/lesson/unrolled.py"
LINES = {7: ("Const", "Mul"), 8: ("Sin", "Identity"), 9: ("AddV2", "Cast"), 10: ("Reshape", "Sub")}


def inventory(iterations: int = 10_000) -> Inventory:
    """The unrolled loop's ops in the outer body, and a while loop's body of 1,000 ops."""
    ops = [OpInfo("x", "Placeholder", None, "fn", "", ["x:0"])]
    for k in range(iterations):
        for line, types in LINES.items():
            ops += [OpInfo(f"{t.lower()}_{k}", t, line, "fn", "", [f"{t.lower()}_{k}:0"],
                           file=FILE) for t in types]
    ops += [OpInfo("while", "StatelessWhile", 12, "fn", "", ["while:0"], file=FILE),
            OpInfo("out", "Identity", None, "fn", "", ["out:0"])]
    outer = len(ops)
    ops += [OpInfo(f"b{k}", "Sin" if k % 2 else "Mul", 13, "body", "", [f"b{k}:0"], file=FILE)
            for k in range(1000)]
    ops += [OpInfo(f"c{k}", "Less", 12, "cond", "", [f"c{k}:0"], file=FILE) for k in range(4)]
    return Inventory(ops, [BodyInfo("fn", None, "outer", outer),
                           BodyInfo("body", "while", "body", 1000),
                           BodyInfo("cond", "while", "cond", 4)])


class Bench(App):
    def compose(self) -> ComposeResult:
        yield OpTree(id="ops")
        yield Tree("bare", id="bare")


async def once(inv: Inventory) -> dict[str, float]:
    app = Bench()
    times: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        tree, bare = app.query_one(OpTree), app.query_one("#bare", Tree)
        tree.source_file = FILE
        start = time.perf_counter()
        tree.show(inv)
        await pilot.pause()
        times["op tree fill"] = time.perf_counter() - start
        labels = [child.label.plain for child in tree.root.children]
        assert " Sin x10,000 at line 8" in labels, labels[:5]

        start = time.perf_counter()
        for op in inv.ops:
            bare.root.add_leaf(f"{op.type} {op.name}", data=op)
        bare.root.expand()
        await pilot.pause()
        times["bare Tree fill"] = time.perf_counter() - start

        start = time.perf_counter()
        tree.show(inv, "sin")
        await pilot.pause()
        times["filter 'sin'"] = time.perf_counter() - start
        assert tree.root.label.plain.startswith("fn (10,500 of"), tree.root.label.plain
        start = time.perf_counter()
        tree.show(inv, "")
        await pilot.pause()
        times["filter cleared"] = time.perf_counter() - start
    return times


def main(argv: list[str] | None = None) -> None:
    repeats = repeats_from_args(__doc__, argv)
    inv = inventory()
    rows: dict[str, list[float]] = {}
    for _ in range(repeats):
        for name, seconds in asyncio.run(once(inv)).items():
            rows.setdefault(name, []).append(seconds)
    print(f"{len(inv.ops):,} ops, {repeats} repeats, medians:")
    for name, values in rows.items():
        print(f"  {name:<16} {statistics.median(values) * 1000:9.1f} ms")
    fill = statistics.median(rows["op tree fill"])
    bare = statistics.median(rows["bare Tree fill"])
    print(f"RESULT graph_tab fill_s={fill:.3f} goal<={GOAL_S:g} bare_tree_s={bare:.3f} "
          f"ratio={fill / bare:.3f}")


if __name__ == "__main__":
    main()
