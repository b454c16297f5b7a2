"""Rewriting the checked tree into the tree that is compiled: fields into items, methods
and risky operators into guards, decided on the user's tree (see "The budget of one
evaluation" in :mod:`engine.spec.expressions` for where guards go and where operations run
inline)."""
from __future__ import annotations

import ast
import copy

from engine.spec.expressions.builtins import GROWING_GUARDS
from engine.spec.expressions.limits import INLINE_EXPONENT, INLINE_FACTOR, INLINE_SHIFT, MAX_COPIES, MAX_GROWTH
from engine.spec.expressions.parse import number

_STRIPPING_METHODS = ("strip", "lstrip", "rstrip")


_NUMBER_OPERATORS = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow, ast.LShift, ast.RShift,
                     ast.BitOr, ast.BitXor, ast.BitAnd)
_NUMBER_FUNCTIONS = frozenset({"abs", "all", "any", "bool", "dict", "float", "int", "len", "round", "set"})


def _never_sequence(node: ast.expr) -> bool:
    """Whether a node can never be a str, list or tuple, the types ``*`` repeats and ``%`` formats.

    ``x + 1`` qualifies: if it does not raise, x was a number. ``x * 2`` does not.
    """
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, str)
    if isinstance(node, (ast.UnaryOp, ast.Compare, ast.Dict, ast.Set)):
        return True
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, _NUMBER_OPERATORS):
            return True
        if isinstance(node.op, ast.Add):
            return _never_sequence(node.left) or _never_sequence(node.right)
        if isinstance(node.op, ast.Mult):
            return _never_sequence(node.left) and _never_sequence(node.right)
        return _never_sequence(node.left)  # %
    if isinstance(node, ast.BoolOp):
        return all(_never_sequence(value) for value in node.values)
    if isinstance(node, ast.IfExp):
        return _never_sequence(node.body) and _never_sequence(node.orelse)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in _NUMBER_FUNCTIONS
    return False


def _is_amplifier(node: ast.AST) -> bool:
    """Whether a node can make a result much larger than its operands."""
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, (ast.Pow, ast.LShift)):
            return True
        if isinstance(node.op, ast.Mult):
            return not _scales_a_number(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("join", "replace")
    return False


def _has_amplifier(node: ast.AST) -> bool:
    return any(_is_amplifier(inner) for inner in ast.walk(node))


def _scales_a_number(node: ast.BinOp) -> bool:
    """Whether a product is a number times a literal: it grows by the literal's digits, no more."""
    for factor, other in ((node.left, node.right), (node.right, node.left)):
        value = number(factor)
        if isinstance(value, float) or (isinstance(value, int) and _never_sequence(other)):
            return True
    return False


def _makes_a_float(node: ast.BinOp) -> bool:
    """Whether one factor is surely a float (a float() call, a division) and the other never repeats."""
    def is_float(operand: ast.expr) -> bool:
        return (isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Div)) or (
            isinstance(operand, ast.Call) and isinstance(operand.func, ast.Name) and operand.func.id == "float")
    return any(is_float(factor) and _never_sequence(other)
               for factor, other in ((node.left, node.right), (node.right, node.left)))


def _references(node: ast.AST, names: tuple[str, ...]) -> int:
    """How many times a node names the record (or another of the expression's names)."""
    return sum(isinstance(inner, ast.Name) and inner.id in names for inner in ast.walk(node))


def _inline_power(node: ast.BinOp) -> bool:
    """A power runs inline for a float or negative exponent (the result is a float) or a small one on a tame base."""
    exponent = number(node.right)
    if isinstance(exponent, float) or (isinstance(exponent, int) and exponent < 0):
        return True
    return isinstance(exponent, int) and exponent <= INLINE_EXPONENT and not _has_amplifier(node.left)


def _inline_shift(node: ast.BinOp) -> bool:
    amount = number(node.right)
    return isinstance(amount, int) and 0 <= amount <= INLINE_SHIFT and not _has_amplifier(node.left)


def _inline_modulo(node: ast.BinOp) -> bool:
    return _never_sequence(node.left)


_SCALAR_OPERATORS = (ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift)
_SCALAR_FUNCTIONS = frozenset({"abs", "bool", "float", "int", "len", "round"})


def _is_scalar(node: ast.expr) -> bool:
    """Whether a node is surely a number, a bool, None or text it wrote itself: cheap to write out."""
    if isinstance(node, (ast.Constant, ast.Compare, ast.UnaryOp, ast.JoinedStr)):
        return True
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _SCALAR_OPERATORS)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SCALAR_FUNCTIONS


def _name(identifier: str, node: ast.AST) -> ast.Name:
    return ast.copy_location(ast.Name(id=identifier, ctx=ast.Load()), node)


def _call(function: str, arguments: list[ast.expr], node: ast.AST, keywords=()) -> ast.Call:
    return ast.copy_location(ast.Call(func=_name(function, node), args=arguments, keywords=list(keywords)), node)


class Rewriter(ast.NodeTransformer):
    """Turn a checked tree into the compiled one: fields into items, methods and risky operators into guards.

    Decisions read the user's tree, so every ``visit_`` decides before rewriting children.
    ``copies_left`` is what inline products may still add to MAX_COPIES; ``allowances``
    are the growing guards' shares of MAX_GROWTH, set once all of them are known.
    """

    def __init__(self, names: tuple[str, ...], tree: ast.AST):
        self.names = names
        self.temporaries = 0
        self.copies_left = MAX_COPIES - _references(tree, names)
        self.allowances: list[ast.Constant] = []

    def rewrite(self, tree: ast.Expression) -> ast.expr:
        body = self.visit(tree).body
        for allowance in self.allowances:
            allowance.value = MAX_GROWTH // len(self.allowances)
        return body

    def allowance(self, function: str) -> list[ast.keyword]:
        if function not in GROWING_GUARDS:
            return []
        share = ast.Constant(MAX_GROWTH)
        self.allowances.append(share)
        return [ast.keyword(arg=GROWING_GUARDS[function], value=share)]

    def temporary(self, value: ast.expr) -> tuple[ast.expr, ast.expr]:
        """``(probe, subject)``: evaluate ``value`` once in ``probe``, read it again as ``subject``."""
        if isinstance(value, (ast.Name, ast.Constant)):
            return value, copy.deepcopy(value)
        name = f"_t{self.temporaries}"
        self.temporaries += 1
        target = ast.copy_location(ast.Name(id=name, ctx=ast.Store()), value)
        return ast.copy_location(ast.NamedExpr(target=target, value=value), value), _name(name, value)

    def scalar_test(self, value: ast.expr, fast, slow) -> ast.expr:
        """``fast(v) if v.__class__ in _scalars else slow(v)``, ``v`` evaluated once."""
        probe, subject = self.temporary(value)
        kind = ast.Attribute(value=probe, attr="__class__", ctx=ast.Load())
        test = ast.Compare(left=kind, ops=[ast.In()], comparators=[_name("_scalars", value)])
        return ast.copy_location(ast.IfExp(test=test, body=fast(subject), orelse=slow(copy.deepcopy(subject))), value)

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        value = self.visit(node.value)
        return ast.copy_location(ast.Subscript(value=value, slice=ast.Constant(node.attr), ctx=ast.Load()), node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1 and not node.keywords:
            return self.scalar_test(self.visit(node.args[0]), lambda subject: _call("_text", [subject], node),
                                    lambda subject: _call("str", [subject], node))
        if not isinstance(node.func, ast.Attribute):
            return self.generic_visit(node)
        receiver = self.visit(node.func.value)
        arguments = [self.visit(argument) for argument in node.args]
        keywords = [self.visit(keyword_) for keyword_ in node.keywords]
        if node.func.attr in _STRIPPING_METHODS and arguments:
            arguments[0] = _call("_strip_characters", [arguments[0]], node)
        function = f"_method_{node.func.attr}"
        return _call(function, [receiver, *arguments], node, keywords + self.allowance(function))

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.FormattedValue:
        scalar = _is_scalar(node.value)
        node = self.generic_visit(node)
        if not scalar:
            node.value = self.scalar_test(node.value, lambda subject: subject,
                                          lambda subject: _call("_written", [subject], node))
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        guard, runs_inline = _GUARDED_OPERATORS.get(type(node.op), (None, None))
        inline = guard is None or runs_inline(self, node)
        numbers = _never_sequence(node.left) and _never_sequence(node.right)
        node = self.generic_visit(node)
        if inline:
            return node
        if guard == "_modulo":
            return self.type_tested_modulo(node)
        if guard == "_multiply" and numbers:
            return self.size_tested_product(node)
        return _call(guard, [node.left, node.right], node, self.allowance(guard))

    def size_tested_product(self, node: ast.BinOp) -> ast.expr:
        """``a * b`` of two numbers: inline when both are below _HALF_INT, else through the guard.

        ``a * b if (-H < (a := ...) < H) & (-H < (b := ...) < H) else _multiply(a, b)``: each
        operand is evaluated once, in order, and written once (copying an operand into both
        branches would double the code at every level of nesting).
        """
        def below_half(probe: ast.expr) -> ast.Compare:
            return ast.Compare(left=_name("_minus_half_int", node), ops=[ast.Lt(), ast.Lt()],
                               comparators=[probe, _name("_half_int", node)])

        left_probe, left = self.temporary(node.left)
        right_probe, right = self.temporary(node.right)
        test = ast.BinOp(below_half(left_probe), ast.BitAnd(), below_half(right_probe))
        fast = ast.BinOp(left, ast.Mult(), right)
        guarded = _call("_multiply", [copy.deepcopy(left), copy.deepcopy(right)], node, self.allowance("_multiply"))
        return ast.copy_location(ast.IfExp(test=test, body=fast, orelse=guarded), node)

    def type_tested_modulo(self, node: ast.BinOp) -> ast.expr:
        """``a % b`` inline when ``a`` is an int, else through the guard; each operand evaluated once.

        A right operand other than a name or a constant is bound first, with
        ``(... .__class__ is _int) & ((b := ...) is b)``, so that it is written once.
        """
        left_probe, left = self.temporary(node.left)
        test = ast.Compare(left=ast.Attribute(value=left_probe, attr="__class__", ctx=ast.Load()), ops=[ast.Is()],
                           comparators=[_name("_int", node)])
        if isinstance(node.right, (ast.Name, ast.Constant)):
            right_in_fast, right = node.right, copy.deepcopy(node.right)
        else:
            right_probe, right = self.temporary(node.right)
            test = ast.BinOp(test, ast.BitAnd(), ast.Compare(left=right_probe, ops=[ast.Is()],
                                                             comparators=[copy.deepcopy(right)]))
            right_in_fast = copy.deepcopy(right)
        fast = ast.BinOp(left, ast.Mod(), right_in_fast)
        guarded = _call("_modulo", [copy.deepcopy(left), right], node)
        return ast.copy_location(ast.IfExp(test=test, body=fast, orelse=guarded), node)

    def inline_multiply(self, node: ast.BinOp) -> bool:
        """A product runs inline when it scales a number or makes a float, or repeats a tame operand at
        most INLINE_FACTOR times within what MAX_COPIES leaves."""
        if _scales_a_number(node) or _makes_a_float(node):
            return True
        for factor, other in ((node.left, node.right), (node.right, node.left)):
            value = number(factor)
            if isinstance(value, int) and abs(value) <= INLINE_FACTOR and not _has_amplifier(other):
                extra = max(abs(value) - 1, 0) * _references(other, self.names)
                if extra <= self.copies_left:
                    self.copies_left -= extra
                    return True
        return False


_GUARDED_OPERATORS = {
    ast.Mult: ("_multiply", Rewriter.inline_multiply),
    ast.Pow: ("_power", lambda rewriter, node: _inline_power(node)),
    ast.LShift: ("_shift_left", lambda rewriter, node: _inline_shift(node)),
    ast.Mod: ("_modulo", lambda rewriter, node: _inline_modulo(node)),
}
