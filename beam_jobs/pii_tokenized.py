"""Text printed token by token, as NER corpora and news-wire feeds print it ("Wood , 28 , joined the club",
"From : Smith , Anna", "Gallacher ( 14th minute )"): its prose copy, and where each of the copy's
characters stands in the original.

The name rules and the NER key on punctuation written against a word ("Anna,", "Wood, 28", "Hirst (80th)"); in
tokenized text each stands apart, and names those rules find in prose leaked (18 of 419 probe texts, 5 as
prose). So the filter reads such a text twice: as printed, and as this copy, and maps the copy's names back.
"""
from __future__ import annotations

import re

from beam_jobs.pii_plain import copy_without

# a space that tokenization put before a closing mark or a clitic, or after an opening bracket
_BEFORE = r" (?=[,.;:!?%)\]}]|'s\b|’s\b|n't\b|n’t\b|'re\b|'ve\b|'ll\b|'d\b|'m\b)"
_AFTER = r"(?<=[(\[{$]) "
_JOIN = re.compile(f"{_BEFORE}|{_AFTER}")
# the marks that tell a tokenized text: a comma or full stop standing apart after a word, a clitic apart
_TOKENIZED = re.compile(r"\w (?:,|\.(?=\s|$)|;|:(?= )|'s\b|n't\b)| \( \w| \w+ \)")
_QUOTE = re.compile(r'(?:^|(?<= ))"(?= |$)', re.M)
# the same marks written against a word, as prose writes them
_AGAINST = re.compile(r"\w[,;)]|\w\.(?=\s|$)|\w's\b")


def is_tokenized(text: str) -> bool:
    """Whether `text` reads as printed token by token: at least two marks apart (one in a text of under 12
    words), and more such marks than marks written against a word, so prose with a stray " , " is no such
    text."""
    apart = len(_TOKENIZED.findall(text))
    if apart < 2 and not (apart == 1 and len(text.split()) < 12):
        return False
    return apart > len(_AGAINST.findall(text))


def prose_copy(text: str) -> tuple[str, list[int]] | None:
    """`text` with the spaces tokenization added taken out, and for each character of the copy its offset in
    `text`; None when nothing changes. Straight double quotes pair up: an opening one loses the space after it,
    a closing one the space before it."""
    drop = {m.start() for m in _JOIN.finditer(text)}
    for k, m in enumerate(_QUOTE.finditer(text)):
        at = m.start()
        if k % 2 == 0 and text[at + 1:at + 2] == " ":
            drop.add(at + 1)
        elif k % 2 == 1 and at and text[at - 1] == " ":
            drop.add(at - 1)
    return copy_without(text, drop) if drop else None
