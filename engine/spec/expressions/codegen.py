"""Compiling a rewritten tree into a function, and verifying the compiled code itself.

Every form (one record, a batch, a filter, maps and filters in one comprehension, a
router, a keyed fold) is built around the checked body, compiled with nothing but
:data:`~engine.spec.expressions.builtins.GLOBALS`, and its code objects are checked
again, independently of the checks on the tree.
"""
from __future__ import annotations

import ast
import copy
import dis
import types
import warnings
from collections.abc import Callable

from engine.spec.expressions.builtins import GLOBALS
from engine.spec.expressions.errors import ExpressionError


def _arguments(names: tuple[str, ...]) -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=name) for name in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def make_function(body: ast.expr, names: tuple[str, ...], filename: str) -> Callable:
    """Compile ``lambda <names>: <body>`` with nothing but the allowed globals."""
    return _compile_lambda(ast.Lambda(args=_arguments(names), body=body), filename, nesting=1)


def make_batch_function(body: ast.expr, name: str, filename: str) -> Callable:
    """Compile ``lambda _batch: [<body> for <name> in _batch]``: the body inline, no call per record."""
    loop = ast.comprehension(target=ast.Name(id=name, ctx=ast.Store()), iter=ast.Name(id="_batch", ctx=ast.Load()),
                             ifs=[], is_async=0)
    return _compile_lambda(ast.Lambda(args=_arguments(("_batch",)), body=ast.ListComp(elt=body, generators=[loop])),
                           filename, nesting=2)


def make_batch_filter(body: ast.expr, name: str, filename: str) -> Callable:
    """Compile ``lambda _batch: [<name> for <name> in _batch if <body>]``: the predicate inline."""
    loop = ast.comprehension(target=ast.Name(id=name, ctx=ast.Store()), iter=ast.Name(id="_batch", ctx=ast.Load()),
                             ifs=[body], is_async=0)
    kept = ast.ListComp(elt=ast.Name(id=name, ctx=ast.Load()), generators=[loop])
    return _compile_lambda(ast.Lambda(args=_arguments(("_batch",)), body=kept), filename, nesting=2)


def make_batch_steps(steps: list[tuple[str, ast.expr]], name: str, filename: str) -> Callable:
    """Compile ``lambda _batch: [<name> for <name> in _batch for <name> in [<map>] if <predicate> ...]``:
    maps and filters one after another in one comprehension (CPython turns ``for <name> in [<map>]``
    into an assignment)."""
    def target() -> ast.Name:
        return ast.Name(id=name, ctx=ast.Store())

    generators = [ast.comprehension(target=target(), iter=ast.Name(id="_batch", ctx=ast.Load()), ifs=[], is_async=0)]
    for kind, body in steps:
        if kind == "map":
            generators.append(ast.comprehension(target=target(), iter=ast.List(elts=[body], ctx=ast.Load()), ifs=[],
                                                is_async=0))
        else:
            generators[-1].ifs.append(body)
    kept = ast.ListComp(elt=ast.Name(id=name, ctx=ast.Load()), generators=generators)
    return _compile_lambda(ast.Lambda(args=_arguments(("_batch",)), body=kept), filename, nesting=2)


def make_router(body: ast.expr, name: str, filename: str) -> Callable[[list, dict, list], None]:
    """Compile ``for <name> in _batch: _appends[_routes[<body>]](<name>)`` as a function of
    ``(_batch, _routes, _appends)``: the key inline, its channel looked up, the record appended."""
    def load(identifier: str) -> ast.Name:
        return ast.Name(id=identifier, ctx=ast.Load())

    channel = ast.Subscript(value=load("_routes"), slice=body, ctx=ast.Load())
    append = ast.Call(func=ast.Subscript(value=load("_appends"), slice=channel, ctx=ast.Load()), args=[load(name)],
                      keywords=[])
    loop = ast.For(target=ast.Name(id=name, ctx=ast.Store()), iter=load("_batch"), body=[ast.Expr(value=append)],
                   orelse=[])
    function = ast.FunctionDef(name="route", args=_arguments(("_batch", "_routes", "_appends")), body=[loop],
                               decorator_list=[], returns=None, type_comment=None)
    module = _compile_tree(ast.Module(body=[function], type_ignores=[]), filename, "exec")
    code = next(const for const in module.co_consts if isinstance(const, types.CodeType))
    _verify_code(code, nesting=0)  # the function itself: no code object inside it
    return types.FunctionType(code, dict(GLOBALS), "route")  # never runs the module: nothing else is defined


FOLD_STEPS = {
    "sum": "_a = _get(_k, 0) + VALUE",
    "count": "_a = _get(_k, 0) + 1",
    "min": "_v = VALUE\n        _a = _get(_k, _missing)\n        if _a is _missing or _v < _a:\n            _a = _v",
    "max": "_v = VALUE\n        _a = _get(_k, _missing)\n        if _a is _missing or _v > _a:\n            _a = _v",
}
"""Each running aggregate's step, as ``min(current, value)`` and ``max(current, value)`` decide
(the current aggregate unless the value is strictly smaller or larger)."""

_FOLD_EMIT = "\n        _append([_k, _a])"
_FOLD_TEMPLATE = f"""
def fold(_batch, _get, _entries, _append, _missing):
    for x in _batch:
        _k = KEY
        STEP
        _entries[_k] = _a{_FOLD_EMIT}
"""


class _Inline(ast.NodeTransformer):
    """Puts checked expression bodies in place of the template's ``KEY`` and ``VALUE`` names."""

    def __init__(self, bodies: dict[str, ast.expr]):
        self.bodies = bodies

    def visit_Name(self, node: ast.Name) -> ast.AST:
        body = self.bodies.get(node.id)
        return copy.deepcopy(body) if body is not None else node


def make_keyed_fold(key: ast.expr, value: ast.expr, function: str, name: str, filename: str,
                    rolling: bool = True) -> Callable:
    """Compile ``_FOLD_TEMPLATE`` with ``function``'s step, the key and value bodies inline; without
    its ``_append`` line unless ``rolling`` (batch mode keeps only each key's final aggregate)."""
    template = _FOLD_TEMPLATE if rolling else _FOLD_TEMPLATE.replace(_FOLD_EMIT, "")
    tree = ast.parse(template.replace("STEP", FOLD_STEPS[function]))
    loop = tree.body[0].body[0]
    loop.target = ast.Name(id=name, ctx=ast.Store())
    tree = _Inline({"KEY": key, "VALUE": value}).visit(tree)
    module = _compile_tree(tree, filename, "exec")
    code = next(const for const in module.co_consts if isinstance(const, types.CodeType))
    _verify_code(code, nesting=0)  # the function itself: no code object inside it
    return types.FunctionType(code, dict(GLOBALS), "fold")  # never runs the module: nothing else is defined


class _FieldsAsAttributes(ast.NodeTransformer):
    """Turns each read of a field by a constant name (``x["user"]``, what the rewriter makes of
    ``x.user`` too) into a read of the attribute that holds it (``x._field2``); ``complete`` turns
    False where the record is used any other way."""

    def __init__(self, name: str, attributes: dict[str, str]):
        self.name, self.attributes, self.complete = name, attributes, True

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if (isinstance(node.value, ast.Name) and node.value.id == self.name and isinstance(node.slice, ast.Constant)
                and type(node.slice.value) is str and node.slice.value in self.attributes):
            return ast.Attribute(value=ast.Name(id=self.name, ctx=ast.Load()), attr=self.attributes[node.slice.value],
                                 ctx=ast.Load())
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.name:
            self.complete = False
        return node


def make_fields_batch_function(body: ast.expr, name: str, filename: str, attributes: dict[str, str],
                               kind: str) -> Callable | None:
    """``make_batch_function`` (kind "map") or ``make_batch_filter`` ("filter") over records whose
    fields are attributes (``attributes``: field name -> attribute name), or None when the body
    uses the record otherwise than by reading one of those fields by its constant name."""
    rewritten = _FieldsAsAttributes(name, attributes)
    body = rewritten.visit(copy.deepcopy(body))
    if not rewritten.complete:
        return None
    loop = ast.comprehension(target=ast.Name(id=name, ctx=ast.Store()), iter=ast.Name(id="_batch", ctx=ast.Load()),
                             ifs=[body] if kind == "filter" else [], is_async=0)
    element = ast.Name(id=name, ctx=ast.Load()) if kind == "filter" else body
    function = ast.Lambda(args=_arguments(("_batch",)), body=ast.ListComp(elt=element, generators=[loop]))
    return _compile_lambda(function, filename, nesting=2, attributes=frozenset(attributes.values()))


def _compile_lambda(function: ast.Lambda, filename: str, nesting: int, attributes: frozenset = frozenset()) -> Callable:
    code = _compile_tree(ast.Expression(body=function), filename, "eval")
    _verify_code(code, nesting, attributes)
    return eval(code, dict(GLOBALS))  # noqa: S307 - our own checked code, empty builtins


def _compile_tree(tree: ast.AST, filename: str, mode: str) -> types.CodeType:
    """Compile a built tree without the compiler's syntax warnings (the checks said what is wrong)."""
    ast.fix_missing_locations(tree)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile(tree, filename, mode, dont_inherit=True)


def _verify_code(code: types.CodeType, nesting: int = 1, attributes: frozenset = frozenset()) -> None:
    """Check the compiled code itself, independently of the checks on the tree.

    Every global or attribute a code object touches is named in its co_names. The only
    names allowed are the allowed globals and ``__class__``, and ``__class__`` only in the
    type tests the rewriter writes (``... .__class__ is _int``, ``... .__class__ in
    _scalars``), patterns user text cannot produce because those are no names of the language. So even a hole in the checks
    could not reach builtins, module globals, frames or dunder attributes. Code objects
    nest exactly as deep as the compiler's own wrapping: ``nesting`` 1 for the lambda,
    2 for the list comprehension of a batch function, 0 for a router's own code; user
    text defines none. ``attributes``: the attribute names the compiler itself wrote for field
    reads (``make_fields_batch_function``; ``_field<n>``, which no name of the language can be).
    """
    pending = [(code, 0)]
    while pending:
        inner, depth = pending.pop()
        stray = [name for name in inner.co_names if name not in GLOBALS and name != "__class__"
                 and name not in attributes]
        if "__builtins__" in inner.co_names or stray:
            raise ExpressionError(f"the expression uses something that is not allowed: {', '.join(stray)}")
        nested = [const for const in inner.co_consts if isinstance(const, types.CodeType)]
        if nested and depth >= nesting:
            raise ExpressionError("the expression defines a function, which is not allowed")
        pending.extend((function, depth + 1) for function in nested)
        if "__class__" in inner.co_names:
            _verify_type_tests(inner)


_TYPE_TESTS = ([("LOAD_GLOBAL", "_int"), ("IS_OP", 0)], [("LOAD_GLOBAL", "_scalars"), ("CONTAINS_OP", 0)])
"""What may follow a read of ``__class__``: the rewriter's ``is _int`` and ``in _scalars`` tests."""


def _verify_type_tests(code: types.CodeType) -> None:
    """Check that ``__class__`` is only read to compare it with int or the scalar types, as the rewriter does."""
    instructions = list(dis.get_instructions(code))
    for index, instruction in enumerate(instructions):
        if instruction.opcode not in dis.hasname or instruction.argval != "__class__":
            continue
        following = [(step.opname, step.argval) for step in instructions[index + 1:index + 3]]
        if instruction.opname != "LOAD_ATTR" or following not in _TYPE_TESTS:
            raise ExpressionError("the expression reads an attribute that is not allowed: __class__")
