"""Evaluating the parts of an expression that do not depend on the record when it is compiled,
within a CPU budget, so that ``9 ** 9 ** 9`` fails when it is written, not on the first record."""
from __future__ import annotations

import ast
import contextlib
import gc
import itertools
import sys
import time

from engine.spec.expressions import builtins
from engine.spec.expressions.builtins import GLOBALS
from engine.spec.expressions.codegen import make_function
from engine.spec.expressions.errors import ExpressionError
from engine.spec.expressions.limits import FOLD_CPU_SECONDS
from engine.spec.expressions.parse import Source, children


_PARTS_OF_A_WHOLE = (ast.keyword, ast.Slice, ast.FormattedValue)
"""Nodes that are no expression on their own: look inside them instead of evaluating them."""


def _depends_on_the_record(node: ast.AST, names: tuple[str, ...]) -> bool:
    """Whether a node of the rewritten tree reads a name of the record, or a temporary it does not bind itself."""
    read, bound = set(), set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            (bound if isinstance(inner.ctx, ast.Store) else read).add(inner.id)
    return any(name in names or (name not in GLOBALS and name not in bound) for name in read)


_FOLDED_FILES = frozenset({"<constant part>", builtins.__file__})
"""The code _cpu_deadline interrupts: constant parts and the guards they call."""


class _FoldingBudgetSpent(BaseException):
    """Raised inside a constant part once FOLD_CPU_SECONDS are spent (no ``except Exception`` stops it)."""



@contextlib.contextmanager
def _cpu_deadline(deadline: float):
    """Raise _FoldingBudgetSpent in constant parts and guards run inside, once the thread's CPU
    clock passes ``deadline``.

    A trace function looks at the clock every few dozen bytecodes, also in the guards'
    loops. One C operation runs to its end, but the guards bound each of those (integers
    of MAX_INT_BITS, MAX_GROWTH items) to about a millisecond.
    """
    ticks = itertools.count()

    def on_opcode(frame, event, argument):
        if next(ticks) % 32 == 0 and time.thread_time() > deadline:
            raise _FoldingBudgetSpent
        return on_opcode

    def on_call(frame, event, argument):
        if frame.f_code.co_filename not in _FOLDED_FILES:
            return None  # never raise inside someone else's code (a gc callback, a finalizer)
        frame.f_trace_opcodes = True
        return on_opcode

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        yield
    finally:
        sys.settrace(previous)


def check_constant_parts(body: ast.expr, names: tuple[str, ...], source: Source) -> None:
    """Evaluate the parts that do not depend on the record now, for at most FOLD_CPU_SECONDS.

    So ``9 ** 9 ** 9`` or ``"a" * 10 ** 10`` fail when the expression is written rather than
    on the first record. Other errors of a constant part (``1 / 0``) are left to evaluation:
    the part may sit in a branch never taken. Once the budget is spent the remaining parts
    are left to evaluation too, where the guards hold them: compiling never takes long.
    """
    spent = 0.0  # CPU seconds spent evaluating (compiling the parts is linear in their size: not counted)
    pending = [body]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Constant, ast.Name)):
            continue
        if isinstance(node, _PARTS_OF_A_WHOLE) or _depends_on_the_record(node, names):
            pending.extend(children(node) if not isinstance(node, ast.keyword) else [node.value])
            continue
        part = make_function(node, (), "<constant part>")
        collecting = gc.isenabled()
        gc.disable()  # a full collection of a big heap is not this expression's cost
        started = time.thread_time()
        try:
            with _cpu_deadline(started + FOLD_CPU_SECONDS - spent):
                part()
        except _FoldingBudgetSpent:
            return
        except OverflowError as exc:
            raise ExpressionError(f"{exc} (in a part that does not depend on the record)",
                                  source.node_offset(node)) from None
        except MemoryError:
            raise ExpressionError("a part that does not depend on the record is too large",
                                  source.node_offset(node)) from None
        except Exception:  # noqa: BLE001 - the same error will surface if evaluation reaches it
            pass
        finally:
            if collecting:
                gc.enable()
        spent += time.thread_time() - started
