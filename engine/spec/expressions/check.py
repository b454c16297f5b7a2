"""Checking a parsed expression against the allow-list of the language."""
from __future__ import annotations

import ast
import keyword
import re
import types

from engine.spec.expressions.builtins import FUNCTIONS, METHODS
from engine.spec.expressions.errors import ExpressionError
from engine.spec.expressions.limits import MAX_EXPONENT, MAX_FORMAT_WIDTH, MAX_INT_BITS
from engine.spec.expressions.parse import Source, children, number

DEFAULT_NAMES = ("x",)
_KEY_FUNCTIONS = ("max", "min", "sorted")


def _attribute_names_of_builtin_types() -> frozenset[str]:
    """Names ``x.name`` must not mean a field by: those of built-in objects, frames and code."""
    kinds = (object, type, str, bytes, bytearray, int, float, complex, bool, list, tuple, dict,
             set, frozenset, type(None), types.FunctionType, types.BuiltinFunctionType,
             types.MethodType, types.CodeType, types.FrameType, types.GeneratorType,
             types.CoroutineType, types.AsyncGeneratorType, types.TracebackType,
             types.ModuleType, types.CellType, types.MappingProxyType)
    return frozenset(name for kind in kinds for name in dir(kind))


_BUILTIN_ATTRIBUTES = _attribute_names_of_builtin_types()

_COMPREHENSIONS = "comprehensions are not allowed; use a flat_map or an aggregate operator"
_REJECTED_NODES = {
    ast.Lambda: "lambda is not allowed", ast.NamedExpr: "assignment expressions (:=) are not allowed",
    ast.ListComp: _COMPREHENSIONS, ast.SetComp: _COMPREHENSIONS, ast.DictComp: _COMPREHENSIONS,
    ast.GeneratorExp: _COMPREHENSIONS, ast.Starred: "* unpacking is not allowed",
    ast.Await: "await is not allowed", ast.Yield: "yield is not allowed", ast.YieldFrom: "yield is not allowed",
}
_REJECTED_CONSTANTS = {
    bytes: "bytes literals are not allowed", complex: "complex numbers are not allowed",
    type(...): "... (Ellipsis) is not allowed",
}
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
              ast.LShift, ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd)
_CONSTANT_TYPES = (int, float, str, bool, type(None))


def _is_reserved(name: str) -> bool:
    """Names with double underscores belong to Python's machinery, never to expressions."""
    return name.startswith("__") or name.endswith("__")


class Checker(ast.NodeVisitor):
    """Walk a parsed expression and raise ExpressionError at the first thing outside the language."""

    def __init__(self, source: Source, names: tuple[str, ...]):
        self.source = source
        self.names = names
        self.format_width = 0

    def fail(self, node: ast.AST, message: str):
        raise ExpressionError(message, self.source.node_offset(node))

    def visit_children(self, node: ast.AST) -> None:
        for child in children(node):
            self.visit(child)

    def generic_visit(self, node: ast.AST) -> None:
        self.fail(node, _REJECTED_NODES.get(type(node), f"{type(node).__name__} is not allowed in an expression"))

    def visit_Expression(self, node: ast.Expression) -> None:
        self.visit(node.body)

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, _CONSTANT_TYPES):
            self.fail(node, _REJECTED_CONSTANTS.get(type(node.value), f"the literal {node.value!r} is not allowed"))

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.names:
            return
        if _is_reserved(node.id):
            self.fail(node, f"the name {node.id!r} is not allowed: names with double underscores are reserved")
        if node.id in FUNCTIONS:
            self.fail(node, f"{node.id!r} is a function: call it, as in {node.id}(...)")
        available = ", ".join(self.names) or "none"
        self.fail(node, f"unknown name {node.id!r}; the names available here are: {available}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.check_attribute_name(node)
        item = f"{ast.unparse(node.value)}[{node.attr!r}]"
        if node.attr in METHODS:
            self.fail(node, f"the method {node.attr!r} must be called, as in .{node.attr}(); "
                            f"for a field named {node.attr!r} write {item}")
        if node.attr in _BUILTIN_ATTRIBUTES:
            self.fail(node, f"{node.attr!r} is an attribute of built-in types and cannot be read; "
                            f"for a field named {node.attr!r} write {item}")
        self.visit(node.value)

    def check_attribute_name(self, node: ast.Attribute) -> None:
        if _is_reserved(node.attr):
            self.fail(node, f"the attribute {node.attr!r} is not allowed: names with double underscores are reserved")

    def visit_Call(self, node: ast.Call) -> None:
        self.check_callee(node.func)
        for argument in node.args:
            self.visit(argument)
        for keyword_ in node.keywords:
            self.check_keyword(node, keyword_)

    def check_callee(self, func: ast.expr) -> None:
        if isinstance(func, ast.Name):
            if func.id not in FUNCTIONS:
                self.fail(func, f"calling {func.id!r} is not allowed; the functions are: {', '.join(FUNCTIONS)}")
        elif isinstance(func, ast.Attribute):
            self.check_attribute_name(func)
            if func.attr not in METHODS:
                self.fail(func, f"the method {func.attr!r} is not allowed; the methods are: {', '.join(METHODS)}")
            self.visit(func.value)
        else:
            self.fail(func, "only the allowed functions and methods can be called")

    def check_keyword(self, call: ast.Call, keyword_: ast.keyword) -> None:
        if keyword_.arg is None:
            self.fail(keyword_.value, "** unpacking is not allowed in a call")
        if keyword_.arg.startswith("_"):
            self.fail(keyword_.value, f"the argument name {keyword_.arg!r} is not allowed")
        value = keyword_.value
        is_key_function = (keyword_.arg == "key" and isinstance(call.func, ast.Name)
                           and call.func.id in _KEY_FUNCTIONS and isinstance(value, ast.Name))
        if is_key_function and value.id in FUNCTIONS:
            return
        self.visit(value)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if not isinstance(node.op, _OPERATORS):
            self.fail(node, f"the operator {type(node.op).__name__} is not allowed")
        _check_constant_operands(self, node)
        self.visit_children(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for index, op in enumerate(node.ops):
            if isinstance(op, (ast.Is, ast.IsNot)) and not any(
                    _is_none(operand) for operand in operands[index:index + 2]):
                self.fail(node, "'is' and 'is not' only compare with None; use == or != for values")
        self.visit_children(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                self.visit(part.value)
                self.check_format_spec(part)
            elif not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                self.fail(part, "unexpected part in an f-string")

    def check_format_spec(self, part: ast.FormattedValue) -> None:
        spec = part.format_spec
        if spec is None:
            return
        if not all(isinstance(piece, ast.Constant) for piece in spec.values):
            self.fail(part, "an f-string format spec must be a constant, as in {x:.2f}")
        text = "".join(piece.value for piece in spec.values)
        self.format_width += sum(int(number) for number in re.findall(r"\d+", text))
        if self.format_width > MAX_FORMAT_WIDTH:
            self.fail(part, f"the widths and precisions of format specs add up to over {MAX_FORMAT_WIDTH:,}")

    def visit_Dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values):
            if key is not None:
                self.visit(key)
            self.visit(value)

    def allow(self, node: ast.AST) -> None:
        self.visit_children(node)

    visit_UnaryOp = visit_BoolOp = visit_IfExp = visit_Subscript = visit_Slice = allow
    visit_Tuple = visit_List = visit_Set = allow


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _check_constant_operands(checker: Checker, node: ast.BinOp) -> None:
    """Reject what the literals alone show is wrong: huge exponents and shifts, %-formatting."""
    right = number(node.right)
    if isinstance(node.op, ast.Pow) and isinstance(right, int) and right > MAX_EXPONENT:
        checker.fail(node.right, f"the exponent {right:,} is too large (at most {MAX_EXPONENT:,})")
    if isinstance(node.op, ast.LShift) and isinstance(right, int) and right > MAX_INT_BITS:
        checker.fail(node.right, f"the shift {right:,} is too large (at most {MAX_INT_BITS:,})")
    left_is_text = isinstance(node.left, ast.JoinedStr) or (
        isinstance(node.left, ast.Constant) and isinstance(node.left.value, str))
    if isinstance(node.op, ast.Mod) and left_is_text:
        checker.fail(node, "% formatting of strings is not allowed; use an f-string, as in f\"{x:.2f}\"")


def check_names(names) -> tuple[str, ...]:
    """Validate the names an operator declares; a bad one is a programming error, not user input."""
    if isinstance(names, str):
        raise TypeError(f"names must be a tuple of names, not the string {names!r}")
    names = tuple(names)
    for name in names:
        if not (isinstance(name, str) and name.isidentifier() and name.isascii()) or keyword.iskeyword(name) \
                or name.startswith("_") or name in FUNCTIONS:
            raise ValueError(f"{name!r} cannot be an expression variable name")
    if len(set(names)) != len(names):
        raise ValueError(f"expression variable names repeat: {names!r}")
    return names
