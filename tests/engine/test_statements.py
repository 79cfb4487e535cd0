"""Static discovery of if/for/while statements (no TensorFlow)."""

import ast

from agexplorer.engine.statements import find_statements
from agexplorer.source.targets import find_function_node

SOURCE = '''
def f(x, n):
    for i in range(n):
        if x > i:
            x = x + 1
        elif x < 0:
            x = -x
        else:
            while x > 10:
                x = x - 1
    try:
        if n:
            pass
    except ValueError:
        for k in x:
            pass
    return x
'''


def statements():
    tree = ast.parse(SOURCE)
    return find_statements(find_function_node(tree, "f"))


def test_finds_every_statement_with_its_line_and_kind():
    found = [(s.kind, s.line) for s in statements()]
    assert found == [("for", 3), ("if", 4), ("if", 6), ("while", 9), ("if", 12), ("for", 15)]


def test_parents_and_parts_describe_nesting():
    s = statements()
    assert s[1].parent == 0 and s[1].part == "body"
    assert s[2].parent == 1 and s[2].part == "orelse"  # elif lives in the else branch
    assert s[3].parent == 2 and s[3].part == "orelse"
    assert s[0].parent is None and s[4].parent is None


def test_expression_names_and_header():
    s = statements()
    assert s[0].header == "for i in range(n):"
    assert s[0].names == ("range", "n")
    assert s[3].expr == "x > 10"
    assert s[0].spans(9) and not s[0].spans(12)


def test_a_loop_knows_the_values_it_carries_that_start_as_python_numbers():
    """``acc = 0.0`` before a loop that reassigns it: a staged loop would keep its shape.
    A counter (stepped by a constant, or read by a while's condition) stays a scalar."""
    tree = ast.parse(
        "def g(x, n):\n"
        "    acc = 0.0\n"
        "    total = 0\n"
        "    k = 0\n"
        "    flag = True\n"
        "    y = x\n"
        "    for i in range(n):\n"
        "        acc = acc + x\n"
        "        total += x[0]\n"
        "        k += 1\n"
        "        flag = False\n"
        "        y = y * 2\n"
        "    j = 0\n"
        "    while j < n:\n"
        "        j = j + 1\n"
        "    return acc\n")
    loop, again = find_statements(find_function_node(tree, "g"))
    assert loop.numbers_carried == (("acc", "0.0"), ("total", "0"))
    assert again.numbers_carried == ()  # j is the condition's counter


def test_headers_read_as_written_where_the_source_is_at_hand():
    """ast.unparse prints ``for (i, a) in ...`` and ``1e-06``: with the file's text each
    header is the user's own (a multi-line one falls back to one line)."""
    source = ("def g(xs, y):\n"
              "    for i, a in enumerate(xs):\n"
              "        if abs(a - y) < 1e-6:\n"
              "            pass\n"
              "    while (y >\n"
              "           0):\n"
              "        y -= 1\n")
    func = find_function_node(ast.parse(source), "g")
    assert [s.header for s in find_statements(func, source)] == [
        "for i, a in enumerate(xs):", "if abs(a - y) < 1e-6:", "while y > 0:"]
    assert [s.header for s in find_statements(func)][:2] == [
        "for (i, a) in enumerate(xs):", "if abs(a - y) < 1e-06:"]


CONDITIONAL_EXPRESSIONS = '''
def g(x, flags, training):
    y = x * 2.0 if training else x
    if x > 0:
        z = (y
             if y > 1.0
             else -y)
    ys = [a if a > 0 else -a for a in flags]
    w = x if training else (y if x > 1 else z)
    for i in range(3 if training else 1):
        pass
    return lambda v: v if v else 0
'''


def test_conditional_expressions_are_found_with_their_place_and_text():
    text = CONDITIONAL_EXPRESSIONS
    found = find_statements(find_function_node(ast.parse(text), "g"), text)
    assert [(s.kind, s.line) for s in found] == [
        ("ifexp", 3), ("if", 4), ("ifexp", 5), ("ifexp", 8), ("ifexp", 10), ("for", 10),
        ("ifexp", 12)]
    y, branch, z, comp, count, loop, lam = found
    assert y.header == "x * 2.0 if training else x" and y.expr == "training"
    assert y.names == ("training",) and y.parent is None
    # multi-line: its header on one line, its branches where they are
    assert z.header == "y if y > 1.0 else -y" and z.end_line == 7
    assert (z.parent, z.part) == (1, "body") and branch.children == [2]
    assert z.body_lines == (5, 5) and z.orelse_lines == (7, 7)
    # a loop's header's is evaluated before the loop: it is not inside it
    assert count.header == "3 if training else 1" and count.parent is None
    assert not loop.children
    assert comp.header == "a if a > 0 else -a" and lam.header == "v if v else 0"


def test_a_line_of_two_conditional_expressions_gives_neither():
    """The trace tells lines apart, not columns: line 9's two (nested) cannot be told apart."""
    found = find_statements(find_function_node(ast.parse(CONDITIONAL_EXPRESSIONS), "g"))
    assert 9 not in {s.line for s in found}
