"""The expression language of pipeline definitions: what a user may write per record.

Operators take small expressions for map projections (``x * 2``,
``{"user": x % 10, "amount": x}``), filter predicates (``x % 3 != 0``), flat maps
(``[x, x + 1]``), key selectors (``x["user"]``), timestamp extractors (``x["ts"]``) and
aggregate values. A pipeline definition is untrusted input, so an expression is Python
expression syntax cut down to an allow-list. It is checked once and compiled once into
a plain Python function, which then runs per record about as fast as a lambda.

What you can write
------------------
Names
    ``x`` is the current record. Some operators provide more names (for example ``key``
    or ``window_end``); no other names exist.
Values
    Numbers (``1``, ``2.5``, ``1_000``, ``0xff``), strings (``"a"``, ``'b'``), ``True``,
    ``False``, ``None``. Tuples ``(1, 2)``, lists ``[x, x + 1]``, sets ``{"a", "b"}`` and
    dicts ``{"user": x % 10}``; ``{**x, "big": True}`` copies a dict record and adds keys.
    f-strings: ``f"{x['user']}: {x['amount']:.2f}"``; a format spec must be a constant.
Operators
    ``+ - * / // % **``, bitwise ``& | ^ ~ << >>``, comparisons ``== != < <= > >=``
    (chains such as ``0 <= x < 10`` too), ``in`` and ``not in``, ``is None`` and
    ``is not None``, ``and``, ``or``, ``not``, and ``a if condition else b``.
Items and fields
    ``x["user"]``, ``x[0]``, ``x[-1]``, ``x[1:3]``. ``x.user`` is short for ``x["user"]``,
    except for names that built-in types use (``x.count``, ``x.title``, ``x.real``):
    write ``x["count"]`` for those.
Functions
    ``abs all any bool dict float int len list max min round set sorted str sum tuple``.
    The ``key=`` of ``max``, ``min`` and ``sorted`` names one of them: ``max(x, key=len)``.
Methods
    Of strings: ``lower upper title strip lstrip rstrip startswith endswith split
    replace join find isdigit isalpha isalnum``. Of dicts: ``get keys values items``.

What you cannot write
---------------------
Other names, functions or methods; any other attribute; names with double underscores;
``lambda``; comprehensions (use a flat map or an aggregate operator); ``:=``; ``*args``
and ``**kwargs`` in calls; ``%`` formatting of strings (use an f-string); bytes and
complex literals; statements (``import``, ``;``); argument names starting with ``_``.
An expression has at most 2,000 characters, 50 levels of brackets and 100 levels of
nesting, and its format specs' widths and precisions add up to at most 1,000.

The budget of one evaluation
----------------------------
A definition is untrusted, and a small expression could otherwise make a huge result
or run for minutes. So every operation that can grow a value or cost more than linear
time is bounded, and one evaluation over a record of size R (its items written out:
characters of text, elements of lists, two per dict entry) keeps to these bounds:

- **Size**: its result, and every value made on the way, holds at most 1,000 copies of
  the record plus 100,000 items, and integers of at most 32,768 bits (about 10,000
  digits; or four times the bits of the record's largest integer, for a small power).
  ``[x, x]`` holds two copies; ``x * 1000`` a thousand. ``*`` refuses to repeat a
  string, list or tuple, and ``join`` and ``replace`` refuse to add text, beyond what is
  left of the 100,000 items, which all the guarded operations of one expression share;
  format widths add at most 1,000 characters in all. ``str()`` and f-strings refuse to write out a value of over
  1,000,000 items (a record holding one list a thousand times a thousand times is tiny
  in memory but not written out), and ``strip()`` takes at most 1,000 different characters.
- **Time**: every operation takes time linear in the sizes of its operands and result
  (``sorted`` n log n; ``sum`` of lists is linear, not quadratic as in Python), and
  arithmetic on integers within the size bound takes at most about a millisecond; an
  expression has at most a few hundred operations.

A guarded operation that would break a bound raises :class:`ResultTooLarge`. A
constant part that breaks one (``9 ** 9 ** 9``, ``"a" * 10 ** 10``) is rejected when the
expression is compiled: compiling evaluates the parts that do not depend on the record,
for at most 50 ms of CPU time (parts past that are left to evaluation, where the guards
hold them). CPython's own compiler folds only small constants (128-bit integers, 4,096
characters).

Guards cost time per record, so they sit only where a result can grow, and are inline
tests where they can be:

- ``*`` runs inline when one side is a float literal, or an integer literal and the other
  side a number (``len(x) * 2``); when one side is an integer literal of at most 1,000
  and the other holds no guarded operation, as long as the expression's copies of the
  record stay within 1,000 (``x["ts"] * 1000`` costs what it costs in Python; in
  ``[x * 1000, x]`` the product is guarded); and after a test that both sides are numbers
  under 16,384 bits when both can only be numbers (``(x + 1) * (x - 1)``).
- ``**`` runs inline for a float or negative constant exponent (the result is a float),
  and for a constant exponent of at most 4 on a base without guarded operations;
  ``<<`` for a constant shift of at most 64 on such a value.
- ``%`` formats when its left side is a string, with widths that come from the data
  (``"%999999999d" % 3``), so it is refused. It runs inline when its left side cannot be
  a string (``(x + 1) % 7``); otherwise a type test sends integers down the inline path.
- ``str(v)`` and ``f"{v}"`` write numbers, strings, booleans and None inline after a
  type test; other values are measured first.

The budget bounds what one evaluation makes out of its record. A pipeline that chains
operators can still grow records step by step (a map ``[x, x]`` after a map
``[x, x]``), as it can with ordinary Python code; memory limits on the workers are the
backstop for that, and the studio validates and previews in worker processes with
their own CPU, time and memory limits.

Errors
------
:func:`compile_expression` raises :class:`ExpressionError` for anything outside the
language, with a message naming the problem and the position. Errors while evaluating
(``KeyError`` for a missing field, ``ZeroDivisionError``, ``TypeError``, ``ValueError``,
``ResultTooLarge``) propagate as the ordinary Python exceptions; the runtime turns them
into a failure of the task, naming the operator. The compiled code's file name is
``<expression: source>``, so a traceback shows which expression failed.

Why this is safe
----------------
Evaluation only reaches the record, the values the expression makes from it, and the
functions above. The compiled function has an empty ``__builtins__`` and only the allowed
functions and the guards (:mod:`.builtins`) in its globals. Field reads become item reads and
method calls become calls of the unbound built-in methods (``str.lower``), so the
compiled code reads no attribute except ``__class__`` in the type tests the rewriter writes.
That is checked again on the compiled bytecode, independently of the checks on the tree.
"""
from engine.spec.expressions.builtins import FUNCTIONS, METHODS
from engine.spec.expressions.check import DEFAULT_NAMES
from engine.spec.expressions.compile import (KEYED_FOLDS, Expression, check_expression, compile_batch_expression,
                                             compile_batch_filter, compile_batch_router, compile_batch_steps,
                                             compile_expression, compile_fields_batch, compile_keyed_fold)
from engine.spec.expressions.errors import ExpressionError, ResultTooLarge
from engine.spec.expressions.limits import MAX_COPIES, MAX_GROWTH, MAX_LENGTH

__all__ = [
    "Expression", "ExpressionError", "ResultTooLarge", "compile_expression", "check_expression",
    "compile_batch_expression", "compile_batch_filter", "compile_batch_router", "compile_batch_steps",
    "compile_fields_batch", "compile_keyed_fold", "KEYED_FOLDS", "FUNCTIONS", "METHODS", "DEFAULT_NAMES", "MAX_LENGTH", "MAX_COPIES",
    "MAX_GROWTH",
]
