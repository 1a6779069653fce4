"""The child process of :func:`pipeline.ask.program.run_program`: evaluates one checked program.

Reads ``{"source", "limits"}`` as JSON on stdin, sets its own resource limits (CPU seconds, address
space, file size, no core), then runs the program with a maintained restricted evaluator — simpleeval
for a one-statement program, asteval for anything longer — never Python's ``exec``/``eval``. Both get
the same guards: every arithmetic result is a finite number of magnitude ≤ ``max_magnitude`` (a power
or shift is refused *before* it is computed, from its size), lists and strings are capped, lists hold
only scalars (so no doubling ``a = [a, a]``), and loop iterations are counted across all loops.
Writes one JSON object on stdout. Standard library plus the two evaluators; numpy is kept out.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import resource
import sys
from collections.abc import Callable
from typing import Any

from pipeline.ask.program_check import (
    Refused,
    assignment_labels,
    check,
    input_names,
    result_label,
)
from pipeline.ask.simulations import SIMULATIONS

BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
}
SCALARS = (bool, int, float, str)
# asteval handlers for constructs the static check refuses: off here as well
ASTEVAL_OFF = ("arg", "assert", "attribute", "delete", "dict", "dictcomp", "excepthandler", "functiondef",
               "import", "importfrom", "lambda", "listcomp", "raise", "repr", "return", "set", "setcomp",
               "try", "with", "formattedvalue", "joinedstr", "print")


class LimitExceeded(BaseException):
    """A guard stopped the program. A BaseException, so neither evaluator's ``except Exception`` turns
    it into an ordinary error of the program: it ends the run."""


class FunctionFailed(BaseException):
    """A function the program called raised: ``sqrt(): ValueError: math domain error``. Raised past
    asteval, whose own message repeats every argument (a 1,000-item list included)."""


class Guard:
    """The value, size and iteration caps, shared by both evaluators."""

    def __init__(self, limits: dict):
        self.max_magnitude = float(limits["max_magnitude"])
        self.max_bits = math.log2(self.max_magnitude)
        self.max_list, self.max_str = limits["max_list"], limits["max_str"]
        self.max_iterations, self.iterations = limits["max_iterations"], 0
        plain = {"min": min, "max": max, "abs": abs, "int": int, "float": float, "len": len, "sum": sum,
                 "sorted": sorted, "ceil": math.ceil, "floor": math.floor, "log2": math.log2, "log": math.log,
                 "sqrt": math.sqrt, **SIMULATIONS}
        self.functions = {name: self._checked(fn) for name, fn in plain.items()}
        self.functions.update(pow=self._checked(self.pow), range=self._checked(self.range),
                              round=self._checked(self.round))

    def _checked(self, fn: Callable) -> Callable:
        def call(*args, **kwargs):
            try:
                result = fn(*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - any error of the call is the program's error
                raise FunctionFailed(f"{fn.__name__}(): {type(e).__name__}: {e}") from None
            return self.value(result)

        call.__name__ = fn.__name__
        return call

    def value(self, v: Any) -> Any:
        if isinstance(v, (bool, range)):
            return v
        if isinstance(v, int):
            if abs(v) > self.max_magnitude:
                raise LimitExceeded(f"a value larger than {self.max_magnitude:g}")
        elif isinstance(v, float):
            if not math.isfinite(v) or abs(v) > self.max_magnitude:
                raise LimitExceeded(f"a value that is not finite or larger than {self.max_magnitude:g}")
        elif isinstance(v, str):
            if len(v) > self.max_str:
                raise LimitExceeded(f"a string longer than {self.max_str} characters")
        elif isinstance(v, (list, tuple)):
            if len(v) > self.max_list:
                raise LimitExceeded(f"a list longer than {self.max_list} items")
        else:
            raise LimitExceeded(f"a value of type {type(v).__name__}")
        return v

    def flat(self, items: Any) -> Any:
        """A list or tuple literal: scalars only, so nothing grows by nesting."""
        if any(not isinstance(x, SCALARS) for x in items):
            raise LimitExceeded("a list may hold only numbers, booleans and strings")
        return self.value(items)

    def binop(self, op: type, a: Any, b: Any) -> Any:
        number = (int, float)
        if op is ast.Pow and isinstance(a, number) and isinstance(b, number) and a != 0:
            if b * math.log2(abs(a)) > self.max_bits + 1:  # log2 |a ** b|, known before computing it
                raise LimitExceeded(f"{a} ** {b} is larger than {self.max_magnitude:g}")
        elif op is ast.LShift and isinstance(a, int) and isinstance(b, int) and a and b > 0:
            if abs(a).bit_length() + b > self.max_bits + 1:
                raise LimitExceeded(f"{a} << {b} is larger than {self.max_magnitude:g}")
        elif op is ast.Mult:
            seq, n = (a, b) if isinstance(a, (list, tuple, str)) else (b, a)
            if isinstance(seq, (list, tuple, str)) and isinstance(n, int):
                self._length(seq, len(seq) * max(n, 0))
        elif op is ast.Mod and isinstance(a, str):  # '%999999999d' % 1 allocates a gigabyte
            raise LimitExceeded("string formatting with % is not supported")
        elif op is ast.Add and isinstance(a, (list, tuple, str)) and isinstance(b, (list, tuple, str)):
            self._length(a, len(a) + len(b))
        return self.value(BINOPS[op](a, b))

    def _length(self, seq: Any, n: int) -> None:
        cap = self.max_str if isinstance(seq, str) else self.max_list
        if n > cap:
            raise LimitExceeded(f"a {'string' if isinstance(seq, str) else 'list'} of {n} items; at most {cap}")

    def pow(self, a: Any, b: Any) -> Any:
        return self.binop(ast.Pow, a, b)

    def range(self, *args: int) -> range:
        r = range(*args)
        if len(r) > self.max_iterations:
            raise LimitExceeded(f"range of {len(r)} numbers; at most {self.max_iterations}")
        return r

    def round(self, x: Any, digits: Any = None) -> Any:
        if digits is not None and (not isinstance(digits, int) or abs(digits) > 30):
            raise ValueError("round() takes 0 to 30 digits")  # round(5, -10**9) computes 10**(10**9)
        return self.value(round(x) if digits is None else round(x, digits))

    def count_iteration(self) -> None:
        self.iterations += 1
        if self.iterations > self.max_iterations:
            raise LimitExceeded(f"more than {self.max_iterations} loop iterations")


class Tracker:
    """Per name: when first assigned, the source of its last executed assignment."""

    def __init__(self, labels: dict[int, tuple[str, str]]):
        self.labels, self.last = labels, {}  # last keeps first-assignment order (dicts keep insertion)

    def record(self, node: ast.AST) -> None:
        if (label := self.labels.get(id(node))) is not None:
            self.last[label[0]] = label[1]


def _asteval_class():
    import asteval

    class Interpreter(asteval.Interpreter):
        """asteval with the guards: arithmetic, literals and loops go through :class:`Guard`."""

        def __init__(self, guard: Guard, tracker: Tracker):
            super().__init__(symtable=dict(guard.functions), use_numpy=False, builtins_readonly=True,
                             config={name: False for name in ASTEVAL_OFF})
            self.guard, self.tracker, self.line = guard, tracker, 1

        def run(self, node, expr=None, lineno=None, with_raise=True):
            self.line = getattr(node, "lineno", self.line)
            return super().run(node, expr=expr, lineno=lineno, with_raise=with_raise)

        def on_assign(self, node):
            super().on_assign(node)
            self.tracker.record(node)

        def on_augassign(self, node):
            super().on_augassign(node)
            self.tracker.record(node)

        def node_assign(self, node, val):
            if isinstance(node, ast.Subscript) and not isinstance(val, SCALARS):
                raise LimitExceeded("a list may hold only numbers, booleans and strings")
            super().node_assign(node, val)

        def on_binop(self, node):
            return self.guard.binop(type(node.op), self.run(node.left), self.run(node.right))

        def on_unaryop(self, node):
            return self.guard.value(super().on_unaryop(node))

        def on_list(self, node):
            return self.guard.flat(super().on_list(node))

        def on_tuple(self, node):
            return self.guard.flat(super().on_tuple(node))

        def _loop_body(self, node) -> bool:
            """Run one iteration; True when a ``break`` ends the loop."""
            self.guard.count_iteration()
            self._interrupt = None
            for statement in node.body:
                self.run(statement)
                if self._interrupt is not None:
                    break
            return isinstance(self._interrupt, ast.Break)

        def on_for(self, node):
            for item in self.run(node.iter):
                self.node_assign(node.target, item)
                if self._loop_body(node):
                    break
            self._interrupt = None

        def on_while(self, node):
            while self.run(node.test):
                if self._loop_body(node):
                    break
            self._interrupt = None

    return Interpreter


def _run_simpleeval(tree: ast.Module, source: str, guard: Guard) -> Any:
    from simpleeval import DEFAULT_OPERATORS, EvalWithCompoundTypes

    operators = {op: fn for op, fn in DEFAULT_OPERATORS.items() if op not in (ast.Is, ast.IsNot)}
    operators.update({op: (lambda a, b, op=op: guard.binop(op, a, b)) for op in BINOPS})
    for op in (ast.USub, ast.UAdd, ast.Invert):
        operators[op] = lambda a, fn=DEFAULT_OPERATORS[op]: guard.value(fn(a))
    evaluator = EvalWithCompoundTypes(operators=operators, functions={}, names={})
    evaluator.functions = dict(guard.functions)  # the class adds list/tuple/dict/set: not ours
    for node_type in (ast.Dict, ast.Set, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.Attribute):
        evaluator.nodes.pop(node_type, None)
    evaluator.nodes[ast.List] = lambda node: guard.flat([evaluator._eval(e) for e in node.elts])
    evaluator.nodes[ast.Tuple] = lambda node: guard.flat(tuple(evaluator._eval(e) for e in node.elts))
    return evaluator.eval(source, previously_parsed=tree.body[0].value)


def evaluate(source: str, limits: dict) -> dict:
    """Check and run one program; the reply the parent turns into a ProgramResult."""
    try:
        tree = check(source, max_chars=limits["max_source_chars"], max_depth=limits["max_depth"],
                     max_magnitude=limits["max_magnitude"])
    except Refused as e:
        return {"ok": False, "error": str(e)}
    guard, tracker = Guard(limits), Tracker(assignment_labels(tree, source))
    names: dict[str, Any] = {}
    last_value, line = None, 1
    try:
        only = tree.body[0]
        if len(tree.body) == 1 and (isinstance(only, ast.Expr) or isinstance(only, ast.Assign)
                                    and isinstance(only.targets[0], ast.Name)):
            last_value = _run_simpleeval(tree, source, guard)
            tracker.record(only)
            if isinstance(only, ast.Assign):
                names[only.targets[0].id] = last_value
        else:
            interpreter = _asteval_class()(guard, tracker)
            try:
                last_value = interpreter.run(tree, expr=source, with_raise=False)
            finally:
                line = interpreter.line
            if interpreter.error:
                err = interpreter.error[0]
                if err.exc is MemoryError:
                    return {"ok": False, "error": f"line {err.lineno or line}: stopped: more than "
                                                  f"{limits['memory_mb']} MB of memory"}
                return {"ok": False, "error": f"line {err.lineno or line}: {err.exc.__name__}: {err.msg}"}
            names = interpreter.symtable
    except LimitExceeded as e:
        return {"ok": False, "error": f"line {line}: stopped: {e}"}
    except FunctionFailed as e:
        return {"ok": False, "error": f"line {line}: {e}"}
    except MemoryError:
        return {"ok": False, "error": f"line {line}: stopped: more than {limits['memory_mb']} MB of memory"}
    except Exception as e:  # noqa: BLE001 - the program's own error in simpleeval: ZeroDivisionError, ...
        return {"ok": False, "error": f"line 1: {type(e).__name__}: {e}"}
    steps = [{"name": n, "expression": text, "value": _plain(names[n])} for n, text in tracker.last.items()]
    name, expression = result_label(tree, source)
    result = next((s for s in steps if s["name"] == name), None)
    if result is None:  # a bare expression (``_``), or a name the program never assigned as it ran
        result = {"name": name, "expression": expression, "value": _plain(guard.value(last_value))}
    return {"ok": True, "steps": steps, "inputs": input_names(tree), "result": result}


def _plain(v: Any) -> Any:
    """JSON for a value: a tuple is a list, a range its ``range(a, b)`` text."""
    return list(v) if isinstance(v, tuple) else str(v) if isinstance(v, range) else v


def _limit_resources(limits: dict) -> None:
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU at the soft limit, SIGKILL at the hard
    memory = int(limits["memory_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    output = int(limits["output_bytes"]) + 4096
    resource.setrlimit(resource.RLIMIT_FSIZE, (output, output))  # stdout and stderr are files
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main() -> None:
    request = json.loads(sys.stdin.read(1_000_000))
    limits = request["limits"]
    _limit_resources(limits)
    sys.modules.update(numpy=None, numpy_financial=None)  # asteval imports numpy if it can: 100 ms, 30 MB
    reply = evaluate(request["source"], limits)
    text = json.dumps(reply, allow_nan=False)  # ASCII: the parent reads it whatever the locale
    if len(text.encode()) > limits["output_bytes"]:
        text = json.dumps({"ok": False, "error": f"the result is larger than {limits['output_bytes']} bytes"})
    sys.stdout.write(text)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
