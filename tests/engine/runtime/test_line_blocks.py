"""Block-wise line reading and JSON-lines decoding give what line-by-line reading gave."""
from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime.io import line_blocks
from engine.runtime.io.line_blocks import LineBlockReader, decode_json_lines, decode_json_lines_slowly

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6)


def read_all(data: bytes, start: int, count: int) -> list[tuple[bytes, int]]:
    reader = LineBlockReader(io.BytesIO(data[start:]), start, min_block_bytes=16)  # lines longer than a block too
    blocks = []
    while True:
        block, offset = reader.read(count)
        if not block:
            return blocks
        blocks.append((block, offset))


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.text(alphabet="ab \r", max_size=300), max_size=40), trailing_break=st.booleans(),
       count=st.integers(1, 9), start_line=st.integers(0, 40))
def test_blocks_hold_whole_lines_and_offsets_sit_after_them(lines, trailing_break, count, start_line):
    data = "\n".join(lines).encode() + (b"\n" if trailing_break and lines else b"")
    start = len("".join(line + "\n" for line in lines[:start_line]).encode()) if start_line < len(lines) else len(data)
    blocks = read_all(data, start, count)
    assert b"".join(block for block, _ in blocks) == data[start:]
    for block, offset in blocks:
        assert data[:offset].endswith(block)
        assert offset == len(data) or data[offset - 1:offset] == b"\n"  # a restore seeks to a line start
        assert block.count(b"\n") <= count


@settings(max_examples=200, deadline=None)
@given(values=st.lists(json_values, max_size=20), blanks=st.lists(st.sampled_from(["", " ", "\r", " \t"]), max_size=3),
       crlf=st.booleans())
def test_decoded_blocks_equal_json_loads_per_line(values, blanks, crlf):
    lines = [json.dumps(value) for value in values] + blanks
    end = "\r\n" if crlf else "\n"
    block = "".join(line + end for line in lines).encode()
    assert decode_json_lines(block) == decode_json_lines_slowly(block) == [json.loads(x) for x in lines if x.strip()]


@pytest.mark.parametrize("text, expected", [
    ('NaN\n{"a": 1e400}\n', [float("nan"), {"a": float("inf")}]),  # only the standard library takes these
    ('{"s": "\\ud800"}\n', [{"s": "\ud800"}]),
    ('{"a": 1}\n\n{"b": 2}', [{"a": 1}, {"b": 2}]),  # a blank line; the last line without a break
])
def test_what_only_json_loads_takes_is_still_taken(text, expected):
    assert repr(decode_json_lines(text.encode())) == repr(expected)


@pytest.mark.parametrize("text", ['[1] [2]\n', '"ab\ncd"\n', '{"a": 1,}\n', 'nul\n',
                                  '[1\n2]\n', '{"a": 1\n"b": 2}', '{"a": 1}\n{"b": [2\n3]}\n',
                                  '[1\n2],3\n', '[1,\n2]\n3 4\n', '{"a": [1, {"x": 2}\n{"y": 3}]}\n{"p": 1}, {"q": 2}\n'])
def test_what_json_loads_refuses_is_refused(text):
    with pytest.raises(json.JSONDecodeError):
        decode_json_lines(text.encode())


comma_free_values = st.recursive(
    st.integers(-9, 99) | st.booleans() | st.text(alphabet="ab", max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet="k", max_size=2), inner, max_size=2),
    max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(comma_free_values, min_size=1, max_size=5), breaks=st.lists(st.booleans(), max_size=40))
def test_json_split_into_lines_at_its_commas_decodes_as_json_loads_decodes_each_line(values, breaks):
    """Some commas of a JSON array's body become line breaks: ``[[1,2],3]`` gives the lines
    ``[1`` and ``2],3``, which together look like two values and alone are not JSON."""
    pieces = json.dumps(values, separators=(",", ":"))[1:-1].split(",")
    text = pieces[0] + "".join(("\n" if cut else ",") + piece
                               for cut, piece in zip(breaks + [False] * len(pieces), pieces[1:]))
    lines = text.split("\n")
    try:
        expected = [json.loads(line) for line in lines if line.strip()]
    except json.JSONDecodeError:
        with pytest.raises(json.JSONDecodeError):
            decode_json_lines(text.encode())
    else:
        assert decode_json_lines(text.encode()) == expected


@pytest.mark.parametrize("number", [1, 2, 50, 99, 100])
def test_a_block_is_cut_after_its_numbered_line_break_near_or_far_from_its_end(number):
    data = b"".join(b"%d\n" % i for i in range(120))
    assert line_blocks._end_of_line(data, number, 120) == len(b"".join(b"%d\n" % i for i in range(number)))


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=2000) | st.text(alphabet="\n\r aé€", max_size=500).map(str.encode))
def test_line_breaks_are_counted_as_bytes_count_counts_them(data):
    assert line_blocks.count_line_breaks(data) == data.count(b"\n")
