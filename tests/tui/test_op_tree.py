"""The Graph tab at scale: repeats grouped by line and type, the filter's view, expansion kept."""

from __future__ import annotations

from textual.app import App, ComposeResult

from agexplorer.model.inventory import BodyInfo, Inventory, OpInfo
from agexplorer.tui.graph.op_groups import GraphIndex, OpGroup
from agexplorer.tui.graph.op_tree import SHOWN_AT_ONCE, OpTree

FILE, HELPER = "/lesson/step.py", "/lesson/helpers.py"


def op(name: str, type_: str, line: int | None, function: str = "fn", file: str | None = FILE):
    return OpInfo(name, type_, line, function, "", [f"{name}:0"], file=file if line else None)


def big_inventory(repeats: int = 40_000) -> Inventory:
    """An unrolled loop inside a while body: ``repeats`` Sin and AddV2 ops at lines 7 and 8."""
    outer = [op("x", "Placeholder", None), op("c", "Const", 5), op("while", "StatelessWhile", 6),
             op("norm", "Mul", 8, file=HELPER), op("out", "Identity", None)]
    body = [op("i", "Placeholder", None, "body")]
    for k in range(repeats):
        body += [op(f"sin_{k}", "Sin", 7, "body"), op(f"add_{k}", "AddV2", 8, "body")]
    body += [op(f"mul_{k}", "Mul", 8, "body", HELPER) for k in range(5)]
    cond = [op("less", "Less", 6, "cond")]
    return Inventory(outer + body + cond, [
        BodyInfo("fn", None, "outer", len(outer)), BodyInfo("body", "while", "body", len(body)),
        BodyInfo("cond", "while", "cond", len(cond))])


class TreeApp(App):
    def compose(self) -> ComposeResult:
        yield OpTree(id="ops")


def labels(node) -> list[str]:
    return [child.label.plain for child in node.children]


def test_repeats_are_grouped_by_line_and_type_in_each_body():
    index = GraphIndex(big_inventory(500), FILE)
    outer = index.entries["fn"]
    assert [e.name for e in outer] == ["x", "c", "while", "norm", "out"]  # fewer than 4: one by one
    sin, add, mul = [e for e in index.entries["body"] if isinstance(e, OpGroup)]
    assert (sin.type, sin.line, len(sin.ops), sin.ops[0].name) == ("Sin", 7, 500, "sin_0")
    assert (add.type, len(add.ops)) == ("AddV2", 500)
    assert (mul.file, len(mul.ops)) == (HELPER, 5)  # a helper's line is not the file's line 8
    assert [b.name for b in index.bodies_of(outer[2])] == ["body", "cond"]


def test_a_body_named_after_an_op_inside_it_makes_no_cycle():
    ops = [op("while", "While", 2), op("while", "While", 3, "body"), op("x", "Sin", 4, "inner")]
    bodies = [BodyInfo("fn", None, "outer"), BodyInfo("body", "while", "body"),
              BodyInfo("inner", "while", "body")]
    index = GraphIndex(Inventory(ops, bodies), FILE)
    assert [b.name for b in index.held[("fn", "while")]] == ["body", "inner"]
    assert ("body", "while") not in index.held
    assert index.view("sin").matches == 1


def test_the_filter_keeps_the_loop_that_holds_matches_and_counts_them():
    index = GraphIndex(big_inventory(500), FILE)
    view = index.view("sin")
    assert view.matches == 500
    assert [e.name for e in view.kept["fn"]] == ["while"]
    assert [e.type for e in view.kept["body"]] == ["Sin"] and view.kept["cond"] == []
    assert ("op", "fn", "while") in view.auto and ("body", "body") in view.auto
    assert view.first_at[7] == [("op", "fn", "while"), ("body", "body"),
                                ("group", "body", FILE, 7, "Sin")]
    assert 8 not in view.first_at  # AddV2 is filtered out, Mul at 8 is a helper's
    assert index.view("").first_at[8] == [("op", "fn", "while"), ("body", "body"),
                                          ("group", "body", FILE, 8, "AddV2")]


async def test_80000_ops_fill_grouped_and_a_group_opens_a_page_at_a_time():
    app = TreeApp()
    async with app.run_test(size=(100, 30)) as pilot:
        tree = app.query_one(OpTree)
        tree.source_file = FILE
        tree.show(big_inventory(40_000))
        await pilot.pause()
        assert tree.root.label.plain == "fn (5 ops)"
        assert labels(tree.root)[2].startswith(" StatelessWhile while :6")
        assert labels(tree.root)[3].endswith("norm helpers.py:8")
        loop = tree.root.children[2]
        loop.expand()
        await pilot.pause()
        body = loop.children[0]
        body.expand()
        await pilot.pause()
        assert labels(body)[1:] == [" Sin x40,000 at line 7", " AddV2 x40,000 at line 8",
                                    " Mul x5 at helpers.py:8"]
        sin = body.children[1]
        assert "Sin x40,000 at line 7" in tree.describe(sin.data)
        sin.expand()
        await pilot.pause()
        assert len(sin.children) == SHOWN_AT_ONCE + 1
        assert sin.children[-1].label.plain == "… 39,000 more (open to show)"
        sin.children[-1].expand()
        await pilot.pause()
        assert sin.children[-1].children[0].data.name == f"sin_{SHOWN_AT_ONCE}"
        assert tree.line_of(body.children[3].data.ops[0]) is None  # a helper's: no source link


async def test_filtering_shows_body_matches_and_clearing_keeps_what_was_open():
    app = TreeApp()
    async with app.run_test(size=(100, 30)) as pilot:
        tree = app.query_one(OpTree)
        tree.source_file = FILE
        inventory = big_inventory(2_000)
        tree.show(inventory)
        await pilot.pause()
        loop = tree.root.children[2]
        loop.expand()  # the user opens the loop (not its body)
        await pilot.pause()
        tree.show(inventory, "sin")
        await pilot.pause()
        assert tree.root.label.plain == "fn (2,000 of 4,012 ops)"
        loop = tree.root.children[0]
        body = loop.children[0]
        assert loop.is_expanded and body.is_expanded  # the match inside the loop shows
        assert labels(body) == [" Sin x2,000 at line 7"]
        tree.move_cursor(body.children[0])
        await pilot.pause()
        tree.show(inventory, "")
        await pilot.pause()
        assert tree.root.label.plain == "fn (5 ops)"
        loop = tree.root.children[2]
        assert loop.is_expanded and loop.children[0].is_expanded  # the user's place is kept
        assert not loop.children[1].is_expanded  # cond: opened by nobody
        assert tree.cursor_node.data.type == "Sin"
        loop.collapse()
        await pilot.pause()
        tree.show(inventory, "add")
        await pilot.pause()
        tree.show(inventory, "")
        await pilot.pause()
        assert not tree.root.children[2].is_expanded  # closed by the user: stays closed


async def test_moving_to_a_line_opens_the_loop_that_holds_its_ops():
    app = TreeApp()
    async with app.run_test(size=(100, 30)) as pilot:
        tree = app.query_one(OpTree)
        tree.source_file = FILE
        tree.show(big_inventory(1_000))
        await pilot.pause()
        tree.select_line(8)
        await pilot.pause()
        assert tree.cursor_node.label.plain == " AddV2 x1,000 at line 8"
        assert tree.cursor_node.parent.parent.data.name == "while"
        tree.select_line(6)
        assert tree.cursor_node.data.name == "while"  # the shallowest op of line 6


def test_an_op_holding_bodies_stands_alone_beside_its_repeats():
    ops = [op(f"if_{k}", "If", 3) for k in range(5)] + [op("y", "Sin", 4, "then")]
    index = GraphIndex(Inventory(ops, [BodyInfo("fn", None, "outer"),
                                       BodyInfo("then", "if_2", "then")]), FILE)
    entries = index.entries["fn"]
    assert [type(e).__name__ for e in entries] == ["OpGroup", "OpInfo"]
    assert [o.name for o in entries[0].ops] == ["if_0", "if_1", "if_3", "if_4"]
    assert entries[1].name == "if_2" and index.bodies_of(entries[1])[0].name == "then"
