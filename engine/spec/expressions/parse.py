"""Reading the source: bounds checked before the parser sees the text, the parse itself, and
the conversion of the parser's positions to character offsets for error messages."""
from __future__ import annotations

import ast
import io
import keyword
import tokenize
import warnings

from engine.spec.expressions.errors import ExpressionError
from engine.spec.expressions.limits import MAX_BRACKET_DEPTH, MAX_DEPTH, MAX_LENGTH


def parse(source: str) -> tuple[Source, ast.Expression]:
    """The source and its syntax tree, once the text passed the bounds that keep the parser and
    every later recursive walk shallow."""
    if len(source) > MAX_LENGTH:
        raise ExpressionError(f"the expression is longer than {MAX_LENGTH:,} characters ({len(source):,})")
    text = Source(source)
    if not text.text.strip():
        raise ExpressionError("the expression is empty", 0)
    _scan_tokens(text)
    tree = _parse(text)
    depth, deepest = _deepest_node(tree)
    if depth > MAX_DEPTH:
        raise ExpressionError(f"the expression nests deeper than {MAX_DEPTH} levels; split it up",
                              text.node_offset(deepest))
    return text, tree


class Source:
    """The text being compiled, and the conversion of parser positions to character offsets."""

    def __init__(self, text: str):
        stripped = text.lstrip(" \t\r\n\f")
        self.text = stripped
        self.base = len(text) - len(stripped)
        self.lines = stripped.split("\n")

    def offset(self, lineno: int | None, column: int | None) -> int | None:
        """Return the offset of a 1-based line and a 0-based character column."""
        if lineno is None or column is None:
            return None
        lineno = min(max(lineno, 1), len(self.lines))
        start = sum(len(line) + 1 for line in self.lines[:lineno - 1])
        return self.base + min(max(start + column, 0), len(self.text))

    def node_offset(self, node: ast.AST) -> int | None:
        """Return the offset of a node; for an attribute, of its name after the dot."""
        if isinstance(node, ast.Attribute) and node.end_col_offset is not None:
            end = self.byte_offset(node.end_lineno, node.end_col_offset)
            return None if end is None else max(end - len(node.attr), 0)
        return self.byte_offset(getattr(node, "lineno", None), getattr(node, "col_offset", None))

    def byte_offset(self, lineno: int | None, column: int | None) -> int | None:
        """Return the offset of a parser position, whose columns count UTF-8 bytes."""
        if lineno is None or column is None:
            return None
        line = self.lines[min(max(lineno, 1), len(self.lines)) - 1]
        return self.offset(lineno, len(line.encode()[:column].decode(errors="ignore")))


def _scan_tokens(source: Source) -> None:
    """Check bracket depth and identifiers before parsing.

    The tokenizer is iterative, so this is safe on any input; the parser is recursive
    and must only see shallow text. Identifiers must be ASCII: Python folds ``ｘ`` into
    ``x`` and ``__ｃlass__`` into ``__class__``, which would hide what a reader sees.
    """
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source.text).readline):
            if token.type == tokenize.NAME and not token.string.isascii():
                raise ExpressionError(f"the name {token.string!r} must be plain ASCII",
                                      source.offset(token.start[0], token.start[1]))
            if token.type == tokenize.OP and token.string in ("(", "[", "{"):
                depth += 1
                if depth > MAX_BRACKET_DEPTH:
                    raise ExpressionError(f"brackets nest deeper than {MAX_BRACKET_DEPTH} levels",
                                          source.offset(token.start[0], token.start[1]))
            elif token.type == tokenize.OP and token.string in (")", "]", "}"):
                depth -= 1
    except (tokenize.TokenError, SyntaxError):
        pass  # the parser reports malformed text with a better message


def _parse(source: Source) -> ast.Expression:
    """Parse one expression, turning every parser complaint into an ExpressionError.

    An expression may span lines (the editor's expression field is multi-line): it is parsed
    inside brackets, as Python joins lines there, with positions moved back to the text's own."""
    multiline = "\n" in source.text.rstrip()
    text = f"(\n{source.text}\n)" if multiline else source.text
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" and the like; the user sees errors only
            warnings.simplefilter("ignore")
            tree = ast.parse(text, "<expression>", mode="eval")
    except SyntaxError as exc:
        if multiline and exc.lineno:
            exc.lineno -= 1
        raise _syntax_error(source, exc) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"cannot parse the expression: {exc}") from None
    if multiline:
        ast.increment_lineno(tree, -1)
    return tree


def children(node: ast.AST) -> list[ast.AST]:
    """Return the sub-expressions of a node (not its operators or contexts)."""
    return [child for child in ast.iter_child_nodes(node) if isinstance(child, (ast.expr, ast.keyword))]


def _syntax_error(source: Source, exc: SyntaxError) -> ExpressionError:
    """Translate the parser's error; it reports column 0 when the text ended too early."""
    message = exc.msg or "invalid syntax"
    if not exc.offset:
        position = source.base + len(source.text.rstrip())
        if message == "invalid syntax":
            message = "invalid syntax: the expression ends too early"
    else:
        position = source.offset(exc.lineno, exc.offset - 1)
    if message == "invalid syntax" and source.text.split(None, 1)[0] in keyword.kwlist:
        message = "invalid syntax: an expression cannot be a statement"
    return ExpressionError(f"syntax error: {message}", position)


def _deepest_node(tree: ast.Expression) -> tuple[int, ast.AST]:
    """Return how deep expressions nest in a tree, and the deepest one, without recursion."""
    deepest, found, pending = 0, tree.body, [(tree.body, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > deepest:
            deepest, found = depth, node
        pending.extend((child, depth + 1) for child in children(node))
    return deepest, found


def number(node: ast.expr) -> int | float | None:
    """Return the value of a number literal, also a negated one; None for anything else."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return sign * node.value
    return None
