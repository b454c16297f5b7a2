"""The frontend's style sheets close every block they open.

They are appended to by many hands: a rule left open (a merge that dropped its closing brace)
nests every rule after it, in its file and in the sheets bundled after it, and the run page lost
its whole layout that way (no graph, no checkpoints panel) with every build still green."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

STYLES = Path(__file__).resolve().parents[1] / "frontend" / "src" / "styles"


def unclosed(text: str) -> list[int]:
    """The lines of the blocks left open (a negative line: a brace closing nothing), comments and strings aside."""
    text = re.sub(r"/\*.*?\*/", lambda comment: re.sub(r"[^\n]", " ", comment.group()), text, flags=re.S)
    text = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"", '""', text)
    opened, line = [], 1
    for character in text:
        if character == "\n":
            line += 1
        elif character == "{":
            opened.append(line)
        elif character == "}":
            if not opened:
                return [-line]
            opened.pop()
    return opened


def test_the_sheets_are_found():
    assert len(list(STYLES.glob("*.css"))) >= 4


@pytest.mark.parametrize("sheet", sorted(STYLES.glob("*.css")), ids=lambda path: path.name)
def test_a_style_sheet_closes_every_block_it_opens(sheet):
    assert unclosed(sheet.read_text()) == [], f"{sheet.name}: blocks opened on these lines are never closed"


def test_an_open_block_is_found():
    assert unclosed(".a {\n  color: red;\n\n/* a } in a comment */\n.b { content: '}'; }\n") == [1]
    assert unclosed(".a { }\n}\n") == [-2]
