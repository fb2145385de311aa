"""Text laid out as mail clients and note systems lay it out: hard-wrapped ("... by a\nMoldavian national, Ion
Pârlog") and quoted in a reply ("> " opening every line). Its copies as written prose: the quote marks taken
out (with where each of the copy's characters stands in the text), and each soft line break read as a space.

The NER reads a line break as a token of its own, so a name or its cue that a wrap splits ("Dr. Ruiz at
bedside,\nGardner to be paged", "her representative, Ms Ana\nPreobrazhenskiy") went unseen, and the rules that
keep to one line or open one ("--Dave" under a message) missed it. Of 481 probe texts, 29 leaked wrapped at 40
characters and 31 wrapped and quoted; 5 as written. The filter reads the copies beside the text and merges
what any reading finds.
"""
from __future__ import annotations

import re

from beam_jobs.pii_plain import copy_without

# a break inside a paragraph: a long line before it, not closing a list's item (";") or opening a list or table
# (":"), and a line of text after it that opens no list item ("e. Pickup trucks;" would read as an initial and a
# surname). Neither line is written in capitals, and the one before holds a word in lower case: a headline, a
# dateline ("STUTTGART 1996-08-24") or a line of results ("Barnsley 2 Charlton 0") is no wrapped prose. A break
# that ends a sentence is read as a space too: the copy is read beside the text, never instead of it
_SOFT_BREAK = re.compile(r"(?<=[^\s;:])\n(?![ \t]*(?:[A-Za-z0-9]{1,3}[.)]|[-*•–])[ \t])(?=[ \t]*[^\W_])")
_MIN_LINE = 20  # letters and marks, not counting indentation: shorter lines are headers, labels, signatures
_MAX_LINE = 100  # longer lines are paragraphs of their own: clients and note systems wrap at 60-80 characters
_LOWER_WORD = re.compile(r"(?<![^\W\d_])[a-z]{2,}(?![^\W\d_])")
_QUOTE_MARKS = re.compile(r"^(?:>[ \t]?)+", re.MULTILINE)
_COLUMN_GAP = re.compile(r"[ ]{3,}|\t")  # two table rows are no wrapped prose ("...   Analyst\nAquila Merchant   $25MM")


def unquoted_copy(text: str) -> tuple[str, list[int]] | None:
    """`text` without the quote marks that open its lines ("> ", ">> "), and for each character of the copy its
    offset in `text`; None unless most of its non-empty lines are quoted (a reply's quoted part) or three or more
    are (a thread whose last message quotes the one before: "> ...\n> D." signs it)."""
    lines = [line for line in text.split("\n") if line.strip()]
    marks = list(_QUOTE_MARKS.finditer(text))
    if not marks or len(marks) * 2 < len(lines) and len(marks) < 3:
        return None
    return copy_without(text, {i for m in marks for i in range(m.start(), m.end())})


def unwrapped_copy(text: str) -> str | None:
    """`text` with its soft line breaks read as spaces, same length; None when it has none."""
    out = list(text)
    for m in _SOFT_BREAK.finditer(text):
        at = m.start()
        before = text[text.rfind("\n", 0, at) + 1:at]
        after_end = text.find("\n", at + 1)
        after = text[at + 1:len(text) if after_end < 0 else after_end]
        if _MIN_LINE <= len(before.strip()) <= _MAX_LINE and _LOWER_WORD.search(before) \
                and any(c.islower() for c in after) \
                and not (_COLUMN_GAP.search(before.strip()) and _COLUMN_GAP.search(after.strip())):
            out[at] = " "
    copy = "".join(out)
    return copy if copy != text else None
