"""OpTree: the function's ops, repeats grouped by line and type, a while/if/case op's bodies below it."""

from __future__ import annotations

import os
from collections import defaultdict
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual.widgets import Input, Tree
from textual.widgets.tree import TreeNode

from agexplorer.tui.graph.op_groups import GraphIndex, Key, OpGroup, View, key_of

SHOWN_AT_ONCE = 1000  # a group opens this many ops at a time: 80,000 nodes would freeze the tab


class OpFilter(Input):
    """The Graph tab's filter by op type, above the tree (a class of its own, so that its
    events are told from other inputs' by type)."""


class OpTree(Tree):
    """The graph of the current report as a tree.

    Nodes are made when their parent opens (a group's ops, a loop's bodies), so that the
    tab fills at once however many ops the trace has. What the user opened is remembered
    by key, so that typing and clearing the filter, or a new report, keeps it open.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("graph", **kwargs)
        self.inventory = None
        self.type_filter = ""
        self.source_file: str | None = None  # the explored file; ops of others are helpers'
        # The function and call the trace was made with (``bad_loop(5) [AGX_CALLS]``): the
        # root names it, so the tree says which call it is the graph of.
        self.made_from: str | None = None
        self.shades: dict[int, str] = {}
        self._by_line: dict[int, list[TreeNode]] = defaultdict(list)  # made nodes, by line
        self._pending = False  # shown while hidden: filled when the Graph tab is opened
        self._line: int | None = None
        self._index: GraphIndex | None = None
        self._view: View | None = None
        self._by_key: dict[Key, TreeNode] = {}
        self._key_at: dict[int, Key] = {}  # id(node) -> its key
        self._unmade: dict[int, tuple[TreeNode, Any, int]] = {}  # node id -> what it holds
        self._open: set[Key] = set()  # opened by the user (or by a move to a line)
        self._auto: set[Key] = set()  # opened by the filter, to show the matches inside

    def show(self, inventory, type_filter: str = "") -> None:
        """Fill the tree from an Inventory (None: nothing traced).

        ``type_filter`` keeps the ops whose type contains it (any case); ops that
        hold bodies with matches stay, opened, so that matches inside a loop keep their
        place. While the tree is hidden (another tab is open) the fill waits until it is
        shown: a hidden tree's new size still made Textual lay out the whole screen again
        after every analysis.
        """
        self.inventory = inventory
        self.type_filter = type_filter
        if self.region.area == 0:
            self._pending = True
            return
        self._fill()

    def on_show(self) -> None:
        self.shown()

    def holds(self, node: Any) -> bool:
        """Whether ``node`` is still one of this tree's (a refill makes new nodes: a
        highlight queued before it names an op of another analysis)."""
        from textual.widgets.tree import UnknownNodeID

        try:
            return self.get_node_by_id(node.id) is node
        except UnknownNodeID:
            return False

    def shown(self) -> None:
        """On screen: fill the tree if an inventory waited (also called by the workspace
        after the Graph tab is activated; see ``Workspace.on_tabbed_content_tab_activated``)."""
        if self._pending:
            self._fill()
            if self._line is not None:
                self.select_line(self._line)

    def _fill(self) -> None:
        self._pending = False
        inventory = self.inventory
        cursor = self._remember()
        self.clear()
        self._by_line.clear()
        self._by_key.clear()
        self._key_at.clear()
        self._unmade.clear()
        if inventory is None or not inventory.bodies:
            self._index = self._view = None
            self.root.set_label("graph (not traced)")
            return
        index = self._index
        if index is None or index.inventory is not inventory or index.source_file != self.source_file:
            index = self._index = GraphIndex(inventory, self.source_file)
        view = self._view = index.view(self.type_filter)
        self._auto = view.auto - self._open
        outer = index.outer
        if self.type_filter.strip():
            ops = f"{view.matches:,} of {index.total:,} ops"
        else:
            ops = f"{outer.op_count:,} ops"
        # The call first: a narrow tab cuts the label's end, and tf.function's graph name
        # (``__inference_f_9``) says less. Text: names and calls are the user's.
        self.root.set_label(Text(f"{self.made_from}: {ops} ({outer.name})" if self.made_from
                                 else f"{outer.name} ({ops})"))
        self._add_entries(self.root, outer.name)
        self.root.expand()
        node = self._by_key.get(cursor) if cursor is not None else None
        if node is not None:
            self._goto(node)

    def _goto(self, node: TreeNode) -> None:
        """Move the cursor to ``node``, laid out first: a node added or shown since the last
        layout has no line yet, and the cursor would land on the wrong one."""
        if self.last_line >= 0:  # (reading it lays the tree's lines out)
            self.move_cursor(node)
            self.scroll_to_node(node)

    def _remember(self) -> Key | None:
        """Note what the user opened and closed, and where the cursor is (its key)."""
        for key, node in self._by_key.items():
            if not node.is_expanded:
                self._open.discard(key)
            elif key not in self._auto:
                self._open.add(key)
        cursor = self.cursor_node
        if cursor is None or cursor.data is None:
            return None
        parent = cursor.parent
        while parent is not None and parent is not self.root:  # keep the cursor's place
            held = self._key_at.get(id(parent))
            if held is not None:
                self._open.add(held)
            parent = parent.parent
        return key_of(cursor.data)

    def _add_entries(self, node: TreeNode, function: str) -> None:
        index, view = self._index, self._view
        assert index is not None and view is not None  # entries are added once built
        for entry in view.kept.get(function, []):
            if isinstance(entry, OpGroup):
                child = node.add(self._group_label(entry), data=entry)
                self._unmade[child.id] = (child, entry, 0)
            elif index.bodies_of(entry):
                child = node.add(self._op_label(entry), data=entry)
                self._unmade[child.id] = (child, entry, 0)
            else:
                child = node.add_leaf(self._op_label(entry), data=entry)
            self._made(key_of(entry), child, entry)

    def _made(self, key: Key, node: TreeNode, entry: Any = None) -> None:
        self._by_key[key] = node
        self._key_at[id(node)] = key
        if entry is not None and self._explored(entry):
            self._by_line[entry.line].append(node)
        if key in self._open or key in self._auto:
            self._make(node)
            node.expand()

    def _make(self, node: TreeNode) -> None:
        """Add the children of ``node`` the first time it opens."""
        held = self._unmade.pop(node.id, None)
        if held is None or held[0] is not node:  # (ids start again after a refill)
            return
        _, what, start = held
        if isinstance(what, OpGroup):
            end = min(start + SHOWN_AT_ONCE, len(what.ops))
            for op in what.ops[start:end]:
                self._made(key_of(op), node.add_leaf(self._op_label(op), data=op), op)
            if end < len(what.ops):
                more = node.add(f"[dim]… {len(what.ops) - end:,} more (open to show)[/]")
                self._unmade[more.id] = (more, what, end)
        elif hasattr(what, "role"):  # a body: its entries
            self._add_entries(node, what.name)
        else:  # an op that holds bodies
            for body in self._index.bodies_of(what) if self._index is not None else []:
                sub = node.add(f"[bold]{body.role}[/] {escape(body.name)} ({body.op_count:,} ops)")
                self._unmade[sub.id] = (sub, body, 0)
                self._made(key_of(body), sub)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded) -> None:
        self._make(event.node)

    def _explored(self, entry: Any) -> bool:
        """Whether ``entry`` was made by the explored function's own lines."""
        return self._index is not None and self._index.explored(entry)

    def _where(self, entry: Any, group: bool) -> str:
        """Where ``entry`` was made, as plain text (the labels escape it: a file may be
        named ``we[ird].py``; the op detail shows it as it is)."""
        if entry.line is None:
            return "made by tf.function" if group else ""
        if not self._explored(entry):
            return f"{'at ' if group else ''}{os.path.basename(entry.file)}:{entry.line}"
        return f"at line {entry.line}" if group else f":{entry.line}"

    def _mark(self, entry: Any) -> str:
        color = self.shades.get(entry.line) if self._explored(entry) else None
        return f"[{color}]▌[/]" if color else " "

    def _op_label(self, op: Any) -> str:
        where = self._where(op, False)
        return (f"{self._mark(op)}{escape(op.type)} "
                f"[dim]{escape(op.name)}{' ' + escape(where) if where else ''}[/]")

    def _group_label(self, group: OpGroup) -> str:
        return (f"{self._mark(group)}[bold]{escape(group.type)}[/] x{len(group.ops):,} "
                f"[dim]{escape(self._where(group, True))}[/]")

    def select_line(self, line: int) -> None:
        """Move to the first op (or group) the source line created, opening what holds it."""
        self._line = line
        if self._pending or self._view is None:
            return
        path = self._view.first_at.get(line)
        if not path:
            return
        for key in path[:-1]:
            node = self._by_key.get(key)
            if node is None:
                return
            self._make(node)
            if not node.is_expanded:
                node.expand()
        node = self._by_key.get(path[-1])
        if node is not None:
            self._goto(node)

    def line_of(self, op: Any) -> int | None:
        """The explored file's line that made ``op`` (None: a helper's, or tf.function's)."""
        if self._index is None:
            return op.line
        return op.line if self._index.explored(op) else None

    def describe(self, op: Any) -> str:
        """An op's detail (type, outputs, device, body, source line), or a group's."""
        where = self._where(op, True) if self._index is not None else f"at line {op.line}"
        if isinstance(op, OpGroup):
            first, last = op.ops[0].name, op.ops[-1].name
            return (f"{op.type} x{len(op.ops):,} {where}\nin: {op.function}\n"
                    f"ops: {first} … {last}\n(open the group to see each op)")
        line = where.removeprefix("at ").removeprefix("line ") if op.line else None
        return (f"{op.type}  {op.name}\noutputs: {', '.join(op.outputs) or '-'}\n"
                f"device: {op.device or '(placed at run time)'}\nin: {op.function}"
                f"\nsource line: {line or '- (made by tf.function)'}")
