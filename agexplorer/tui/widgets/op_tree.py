"""OpTree: the function's ops, a while/if/case op's bodies as its children; details on select."""

from __future__ import annotations

from collections import defaultdict

from textual.widgets import Input, Tree
from textual.widgets.tree import TreeNode


class OpFilter(Input):
    """The Graph tab's filter by op type, above the tree (a class of its own, so that its
    events are told from other inputs' by type)."""


class OpTree(Tree):
    """The graph of the current report as a tree."""

    def __init__(self, **kwargs) -> None:
        super().__init__("graph", **kwargs)
        self.inventory = None
        self.type_filter = ""
        self.shades: dict[int, str] = {}
        self._by_line: dict[int, list[TreeNode]] = defaultdict(list)
        self._pending = False  # shown while hidden: filled when the Graph tab is opened
        self._line: int | None = None

    def show(self, inventory, type_filter: str = "") -> None:
        """Fill the tree from an Inventory (None: nothing traced).

        ``type_filter`` keeps the ops whose type contains it (any case); ops that
        hold bodies stay, so that matches inside a loop keep their place. While the
        tree is hidden (another tab is open) the fill waits until it is shown: a
        hidden tree's new size still made Textual lay out the whole screen again
        after every analysis.
        """
        self.inventory = inventory
        self.type_filter = type_filter
        if self.region.area == 0:
            self._pending = True
            return
        self._fill()

    def on_show(self) -> None:
        if self._pending:
            self._fill()
            if self._line is not None:
                self.select_line(self._line)

    def _fill(self) -> None:
        self._pending = False
        inventory = self.inventory
        wanted = self.type_filter.strip().lower()
        self.clear()
        self._by_line.clear()
        if inventory is None or not inventory.bodies:
            self.root.set_label("graph (not traced)")
            return
        outer = inventory.bodies[0]
        self.root.set_label(f"{outer.name} ({outer.op_count} ops)")
        bodies = defaultdict(list)
        for body in inventory.bodies[1:]:
            bodies[body.parent_op].append(body)
        ops_in = defaultdict(list)
        for op in inventory.ops:
            ops_in[op.function].append(op)

        def fill(node: TreeNode, function: str) -> None:
            for op in ops_in[function]:
                where = f" :{op.line}" if op.line else ""
                color = self.shades.get(op.line) if op.line else None
                mark = f"[{color}]▌[/]" if color else " "
                label = f"{mark}{op.type} [dim]{op.name}{where}[/]"
                children = bodies.get(op.name, []) if op.function == function else []
                if wanted and wanted not in op.type.lower() and not children:
                    continue
                if children:
                    child = node.add(label, data=op, expand=False)
                    for body in children:
                        sub = child.add(f"[bold]{body.role}[/] {body.name} ({body.op_count} ops)")
                        fill(sub, body.name)
                else:
                    child = node.add_leaf(label, data=op)
                if op.line:
                    self._by_line[op.line].append(child)

        fill(self.root, outer.name)
        self.root.expand()

    def select_line(self, line: int) -> None:
        """Move to the first op the source line created."""
        self._line = line
        if self._pending:
            return
        nodes = self._by_line.get(line)
        if nodes:
            node = nodes[0]
            parent = node.parent
            while parent is not None:
                parent.expand()
                parent = parent.parent
            self.move_cursor(node)
            self.scroll_to_node(node)

    @staticmethod
    def describe(op) -> str:
        """An op's detail: type, outputs, device, body, source line."""
        return (f"{op.type}  {op.name}\noutputs: {', '.join(op.outputs) or '-'}\n"
                f"device: {op.device or '(placed at run time)'}\nin: {op.function}"
                f"\nsource line: {op.line if op.line else '- (made by tf.function)'}")
