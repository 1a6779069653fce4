"""The static check of a calculation program: a whitelist of syntax, before anything runs.

Imported by the parent (a refusal needs no child process) and again by the child, which never
evaluates text this check did not pass. Standard library only, so the child starts in ~50 ms.

What a program may hold (everything else is refused with ``line N: <construct> ...``):
- statements: ``name = expr``, ``lst[i] = expr``, ``name += expr`` (any arithmetic operator), ``if``,
  ``for name in <range(...) | [..] | (..) | name>``, ``while`` (both without ``else``), ``break``,
  ``continue``, ``pass``; a bare expression only as the last statement;
- expressions: numbers, True/False, strings of at most 64 characters, names, flat list and tuple
  literals, ``+ - * / // % ** << >> & | ^ ~``, ``and or not``, comparisons (``is`` excluded), ``a if c
  else b``, subscripts and slices, and calls of the plain names in :data:`FUNCTIONS`;
- names: ASCII identifiers not starting with ``_``, each read only if the program assigns it (or
  calls it, for a function). Non-ASCII names are refused: Python folds ``ｅｘｅｃ`` to ``exec`` and
  a Cyrillic ``е`` makes a different name that looks the same.
- no comprehensions: a ``for`` loop says the same and its iterations are counted against the cap.
- the last statement carries the result: an assignment or an expression, not a loop or ``if``.
"""

from __future__ import annotations

import ast
import io
import math
import tokenize
from typing import Optional

MATH_FUNCTIONS = ("ceil", "floor", "log2", "log", "sqrt")
BUILTIN_FUNCTIONS = ("min", "max", "abs", "round", "int", "float", "len", "sum", "range", "sorted", "pow")
SIMULATION_FUNCTIONS = ("fifo_faults", "lru_faults", "opt_faults", "huffman_wpl", "linear_probe", "linear_probe_table",
                        "linear_probe_probes", "linear_probe_misses", "hamming_bits", "binary_search_asl",
                        "binary_search_comparisons",
                        "crc_remainder", "to_bits", "to_hex", "fraction_text", "ip_value", "to_dotted", "tcp_windows",
                        "schedule_order", "avg_turnaround", "avg_weighted_turnaround", "avg_waiting",
                        "catalan", "fcfs_seek", "sstf_seek", "float_bits", "float_hex")
FUNCTIONS = frozenset(MATH_FUNCTIONS + BUILTIN_FUNCTIONS + SIMULATION_FUNCTIONS)
ARG_COUNTS = {"pow": (2, 2), "round": (1, 2), "range": (1, 3), "log": (1, 2), "linear_probe": (2, 3),
              "linear_probe_table": (2, 3), "linear_probe_probes": (2, 3), "linear_probe_misses": (2, 3),
              "crc_remainder": (2, 2), "fraction_text": (2, 2),
              "fifo_faults": (2, 2), "tcp_windows": (3, 3), "lru_faults": (2, 2), "opt_faults": (2, 2), "min": (1, 100),
              "max": (1, 100), "schedule_order": (3, 3), "avg_turnaround": (3, 3), "avg_weighted_turnaround": (3, 3),
              "avg_waiting": (3, 3), "fcfs_seek": (2, 2), "sstf_seek": (2, 2),
              "float_bits": (1, 2), "float_hex": (1, 2)}  # every other function takes exactly one argument
KEYWORDS = {"sorted": {"reverse"}}

ALLOWED = (
    ast.Module, ast.Assign, ast.AugAssign, ast.Expr, ast.If, ast.For, ast.While, ast.Break, ast.Continue,
    ast.Pass, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.keyword,
    ast.Constant, ast.Name, ast.List, ast.Tuple, ast.Subscript, ast.Slice, ast.Load, ast.Store,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift,
    ast.BitOr, ast.BitXor, ast.BitAnd, ast.UAdd, ast.USub, ast.Not, ast.Invert, ast.And, ast.Or,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn,
)
MAX_LITERAL_STR = 64
NAMES = {ast.Import: "import", ast.ImportFrom: "import", ast.Attribute: "attribute access",
         ast.Lambda: "lambda", ast.FunctionDef: "def", ast.ClassDef: "class", ast.JoinedStr: "f-string",
         ast.ListComp: "comprehension", ast.SetComp: "comprehension", ast.DictComp: "comprehension",
         ast.GeneratorExp: "comprehension", ast.Starred: "starred expression", ast.NamedExpr: ":=",
         ast.Is: "'is'", ast.IsNot: "'is not'", ast.MatMult: "'@'"}


class Refused(ValueError):
    """A program the check does not let run; ``str()`` is the one-line reason."""


def check(source: str, *, max_chars: int, max_depth: int, max_magnitude: float) -> ast.Module:
    """The parsed program if every construct in it is allowed; raises :class:`Refused` otherwise."""
    if len(source) > max_chars:
        raise Refused(f"program is {len(source)} characters; the limit is {max_chars}")
    _check_names_ascii(source)
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        where = f"line {e.lineno}: " if e.lineno else ""
        raise Refused(f"{where}syntax error: {e.msg}") from None
    except (RecursionError, MemoryError):
        raise Refused("program nests too deeply to parse") from None
    except ValueError as e:  # e.g. an integer literal of more than 4,300 digits
        raise Refused(f"cannot parse: {str(e)[:80]}") from None
    if not tree.body:
        raise Refused("empty program")
    assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    stack: list[tuple[ast.AST, Optional[ast.AST], int, int]] = [(tree, None, 0, 1)]
    while stack:  # iterative, so depth is measured before anything recurses over the tree
        node, parent, depth, line = stack.pop()
        line = getattr(node, "lineno", line)
        if depth > max_depth:
            raise Refused(f"line {line}: expression nests deeper than {max_depth}")
        _check_node(node, parent, line, tree, assigned, max_magnitude)
        stack.extend((child, node, depth + 1, line) for child in reversed(list(ast.iter_child_nodes(node))))
    last = tree.body[-1]
    if not isinstance(last, (ast.Assign, ast.AugAssign, ast.Expr)):
        raise Refused(f"line {last.lineno}: the program must end with its result (an assignment or an "
                      f"expression), not {_describe(last)}")
    return tree


def _check_names_ascii(source: str) -> None:
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NAME and not tok.string.isascii():
                raise Refused(f"line {tok.start[0]}: name {tok.string!r} is not ASCII")
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return  # ast.parse reports it with a line number


def _describe(node: ast.AST) -> str:
    return NAMES.get(type(node)) or {ast.For: "a for loop", ast.While: "a while loop", ast.If: "an if"}.get(
        type(node), type(node).__name__.lower())  # with, try, global, dict, set, return, ...


def _check_node(node: ast.AST, parent: Optional[ast.AST], line: int, tree: ast.Module,
                assigned: set[str], max_magnitude: float) -> None:
    if not isinstance(node, ALLOWED):
        raise Refused(f"line {line}: {_describe(node)} is not allowed")
    if isinstance(node, ast.Expr) and node is not tree.body[-1]:
        raise Refused(f"line {line}: an expression whose value is unused (only the last statement may be one)")
    if isinstance(node, ast.Assign):
        if len(node.targets) != 1:
            raise Refused(f"line {line}: one assignment target at a time")
        _check_target(node.targets[0], line)
    elif isinstance(node, ast.AugAssign):
        _check_target(node.target, line)
    elif isinstance(node, (ast.For, ast.While)):
        if node.orelse:
            raise Refused(f"line {line}: {_describe(node)} with else is not allowed")
        if isinstance(node, ast.For):
            if not isinstance(node.target, ast.Name):
                raise Refused(f"line {line}: a for loop assigns one plain name")
            it = node.iter
            if not (isinstance(it, (ast.List, ast.Tuple, ast.Name))
                    or isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
                raise Refused(f"line {line}: a for loop runs over range(...), a list or a name")
    elif isinstance(node, ast.Name):
        _check_name(node, parent, line, assigned)
    elif isinstance(node, ast.Call):
        _check_call(node, line)
    elif isinstance(node, ast.Constant):
        _check_constant(node, line, max_magnitude)
    elif isinstance(node, (ast.List, ast.Tuple)):
        if any(isinstance(e, (ast.List, ast.Tuple)) for e in node.elts):
            raise Refused(f"line {line}: nested lists are not allowed")
        if isinstance(node.ctx, ast.Store):
            raise Refused(f"line {line}: unpacking assignment is not allowed; assign one name at a time")
    elif isinstance(node, ast.Slice) and not (isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load)):
        raise Refused(f"line {line}: slice assignment is not allowed")


def _check_target(target: ast.AST, line: int) -> None:
    if isinstance(target, ast.Name):
        return
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
            and not isinstance(target.slice, ast.Slice):
        return
    raise Refused(f"line {line}: assign to a plain name or a list element, not {_describe(target)}")


def _check_name(node: ast.Name, parent: Optional[ast.AST], line: int, assigned: set[str]) -> None:
    name = node.id
    if not name.isascii() or not name.isidentifier():
        raise Refused(f"line {line}: name {name!r} is not ASCII")
    if name.startswith("_"):
        raise Refused(f"line {line}: name {name!r} starts with an underscore")
    called = isinstance(parent, ast.Call) and parent.func is node
    if name in FUNCTIONS:
        if isinstance(node.ctx, ast.Store):
            raise Refused(f"line {line}: {name!r} is a function and cannot be assigned")
        if not called:
            raise Refused(f"line {line}: function {name!r} can only be called")
    elif called:
        raise Refused(f"line {line}: call of {name!r} is not allowed (allowed: {', '.join(sorted(FUNCTIONS))})")
    elif isinstance(node.ctx, ast.Load) and name not in assigned:
        raise Refused(f"line {line}: name {name!r} is never assigned")


def _check_call(node: ast.Call, line: int) -> None:
    if not isinstance(node.func, ast.Name):
        raise Refused(f"line {line}: only plain function names can be called")
    name = node.func.id
    if name not in FUNCTIONS:
        return  # _check_name refuses it, naming the allowed ones
    lo, hi = ARG_COUNTS.get(name, (1, 1))
    if not lo <= len(node.args) <= hi:
        raise Refused(f"line {line}: {name}() takes {lo}" + (f" to {hi}" if hi != lo else "") + " arguments")
    for kw in node.keywords:
        if kw.arg not in KEYWORDS.get(name, ()):
            raise Refused(f"line {line}: keyword argument {kw.arg or '**'}= is not allowed in {name}()")


def _check_constant(node: ast.Constant, line: int, max_magnitude: float) -> None:
    value = node.value
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or abs(value) > max_magnitude:
            raise Refused(f"line {line}: a number literal larger than {max_magnitude:g}")
        return
    if isinstance(value, str):
        if len(value) > MAX_LITERAL_STR:
            raise Refused(f"line {line}: a string of {len(value)} characters; at most {MAX_LITERAL_STR}")
        return
    raise Refused(f"line {line}: constant {type(value).__name__} is not allowed")


OPERATOR_SIGNS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
                  ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^",
                  ast.BitAnd: "&"}


def _target_name(target: ast.AST) -> str:
    return target.id if isinstance(target, ast.Name) else target.value.id  # a list element: the list


def assignment_labels(tree: ast.Module, source: str) -> dict[int, tuple[str, str]]:
    """``id(statement) -> (name, expression text)`` for every assignment: ``x = a + b`` gives
    ``("x", "a + b")``, ``x += 2`` gives ``("x", "x + 2")``; a list element's, ``lst[i] = v`` or
    ``lst[i] += 1``, is a step of the list with the statement's text."""
    labels = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            target = node.targets[0]
            text = ast.get_source_segment(source, node.value if isinstance(target, ast.Name) else node)
            labels[id(node)] = (_target_name(target), text or "")
        elif isinstance(node, ast.AugAssign) and not isinstance(node.target, ast.Name):
            labels[id(node)] = (_target_name(node.target), ast.get_source_segment(source, node) or "")
        elif isinstance(node, ast.AugAssign):
            rhs = ast.get_source_segment(source, node.value) or ""
            if _needs_parentheses(node.value, type(node.op)):
                rhs = f"({rhs})"
            labels[id(node)] = (node.target.id, f"{node.target.id} {OPERATOR_SIGNS[type(node.op)]} {rhs}")
    return labels


PRECEDENCE = {ast.BitOr: 0, ast.BitXor: 1, ast.BitAnd: 2, ast.LShift: 3, ast.RShift: 3, ast.Add: 4, ast.Sub: 4,
              ast.Mult: 5, ast.Div: 5, ast.FloorDiv: 5, ast.Mod: 5, ast.Pow: 6}


def _needs_parentheses(rhs: ast.AST, op: type) -> bool:
    """Whether ``x op= rhs`` written as ``x op rhs`` needs ``(rhs)``: ``t += r * 2`` is ``t + r * 2``."""
    if isinstance(rhs, (ast.BoolOp, ast.Compare, ast.IfExp)):
        return True
    if not isinstance(rhs, ast.BinOp):
        return False
    inner, outer = PRECEDENCE[type(rhs.op)], PRECEDENCE[op]
    return inner < outer or inner == outer and op not in (ast.Add, ast.Mult, ast.BitOr, ast.BitXor, ast.BitAnd)


def _literal(node: ast.AST) -> bool:
    """A number literal, or a string of digits (a bit string the question gives: ``"101001"``)."""
    if isinstance(node, ast.Constant) and type(node.value) is str:
        return node.value.isascii() and node.value.isdigit()
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def input_names(tree: ast.Module) -> list[str]:
    """The program's given quantities: names assigned exactly once, at the top level, a number literal
    (or a string of digits) or a list of them (``page = 1024``, ``refs = [7, 0, 1]``). ``faults = 0`` followed by
    ``faults += 1`` is a counter, not an input."""
    stores: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if not isinstance(target, ast.Name):  # lst[i] = v changes lst
                stores[_target_name(target)] = stores.get(_target_name(target), 0) + 2
    names = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) \
                and stores[node.targets[0].id] == 1:
            value = node.value
            if _literal(value) or isinstance(value, (ast.List, ast.Tuple)) and value.elts \
                    and all(_literal(e) for e in value.elts):
                names.append(node.targets[0].id)
    return names


def result_label(tree: ast.Module, source: str) -> tuple[str, str]:
    """The name the last statement gives its result to, and that statement's expression text.
    A bare expression that is not a name is reported as ``_`` (the REPL's name for the last value)."""
    last = tree.body[-1]
    if isinstance(last, ast.Assign):
        return _target_name(last.targets[0]), ""
    if isinstance(last, ast.AugAssign):
        return _target_name(last.target), ""
    if isinstance(last.value, ast.Name):
        return last.value.id, ""
    return "_", ast.get_source_segment(source, last.value) or ""
