"""The text as the PII filter's rules and NER read it. plain_text (same length): line breaks, spaces and dashes
the plain ones, markup around words and quoted-printable codes spaces, HTML's character references their
character. single_spaced (with an offset table back to the text): runs of spaces one space, invisible
characters, soft line breaks and the rest of a character reference gone, letters composed. As Windows, word
processors, court websites, PDFs, mail archives, web pages and markdown write text ("From: Smith, Anna\r\n",
"Mr\xa0Stone", "Thanks Ingeborg.  I will", "*Imran Okafor*", "O&#39;Brien"). The rules read lines ending in
"\n" and words parted by one " ", and the NER never saw the rest in training; the redactions are made in the
text as written. Here too the offset tables through which every copy of another length (this one, the
tokenized and the unquoted readings) maps its spans back: copy_without, to_original, to_copy.
"""
from __future__ import annotations

import bisect
import html
import re
import unicodedata

# Line breaks and spaces as Windows, old Macs, word processors and court websites write them, each read as the
# plain one of the same length: the rules read lines that end in "\n" and words parted by " " ("Mr\xa0Smith",
# "From: Smith, Anna\r\n"), and a copy of the same length keeps every offset for the redaction
_PLAIN_WHITESPACE = str.maketrans({"\r": "\n", "\x0b": "\n", "\x0c": "\n", "\x85": "\n", "\u2028": "\n",
                                   "\u2029": "\n", "\xa0": " ", "\u1680": " ", "\u2000": " ", "\u2001": " ",
                                   "\u2002": " ", "\u2003": " ", "\u2004": " ", "\u2005": " ", "\u2006": " ",
                                   "\u2007": " ", "\u2008": " ", "\u2009": " ", "\u200a": " ", "\u202f": " ",
                                   "\u205f": " ", "\u3000": " ",
                                   # dashes: the rules' "W - Smoltz", "Kay -" and "Kowalska-Nowak" take "-"
                                   "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
                                   "\u2015": "-", "\u2212": "-"})
# two spaces inside a line, as typists put after a full stop: read as one (three or more align a table's columns,
# which the table rule reads: they stay);
# and the characters no reader sees (soft hyphens, zero-width spaces and joiners, a byte-order mark), which part
# a name's letters ("Kowal\xadski", "Dubbz\ufeff"), and what plain_text marked to take out
_TAKEN_OUT = re.compile(r"(?<=\S)  (?=\S)|[\xad\u200b\u200c\u200d\u2060\ufeff\ue001]+")
# ... but not before a number on a line whose columns a wider gap or a tab aligns: there two spaces part a cell of
# digits from the last ("Oil Products  4403   07700 900 109": an extension's column); the rules that read words in
# such a table ("Under 18?  Emergency contact", "E   LD  -") were written for them single-spaced
_TABLE_LINE = re.compile(r"(?m)^[^\n]*(?:\S {3,}\S|\t)[^\n]*$")
_DROP_MARK = "\ue001"  # a private-use character (no text holds it): plain_text's "take this out" (_TAKEN_OUT)


# Markup around words, which the NER never saw in training and the rules do not expect ("*Imran Chaudry*",
# "`Lise Delmas`", "<p>Dear Mr. Brzeczek,</p>"): read as spaces. Emphasis hugs its words, so an "*" with a space
# on both sides stays (chat's "* LIT SCHMOOD *", sums' "2 * 3"), and so does an "_" inside a word ("j_doe@x.org").
# An "_" emphasises in pairs ("_Imran_"): one alone at a word's end is an account's ("fenrir_", "lmartinez_").
# Three stars or more before digits mask a number's other digits ("card ****4417"): they stay, the mask is the cue
_MARKUP = re.compile(r"`+|(?<![\w*])(?!\*{3,}\d)\*+(?=[^\s*])|(?<=[^\s*])\*+(?![\w*])|"
                     r"</?(?i:p|br|div|span|b|i|u|em|strong|li|ul|ol|td|tr|th|table|tbody|thead|h[1-6]|blockquote|"
                     r"font|a)(?:[ \t][^<>\n]{0,200})?/?>")

_EMPHASIS = re.compile(r"(?<![\w@.])(__?)([^\W_](?:[^\n_]*?[^\W_])?)\1(?![\w@.])")


def _unemphasised(m: re.Match) -> str:
    return " " * len(m.group(1)) + m.group(2) + " " * len(m.group(1))


# Quoted-printable mail as mail archives keep it undecoded: "=20" a space at a line's end, "=09" a tab, "=3D" an
# "=", and "=" closing a line a soft break inside a word ("Sunniva Haug=\nland"). Two such marks tell the
# encoding ("x =\n  y" in code is one, and has a space before the "=")
_QP_MARK = re.compile(r"=(?:20|09|3D)|(?<=\S)=\n")
_QP_CODE = re.compile(r"=(?:20|09|3D)")
_QP_SOFT_BREAK = re.compile(r"(?<=\S)=\n")


def _quoted_printable(text: str) -> bool:
    return "=" in text and len(_QP_MARK.findall(text)) >= 2


# HTML's character references in scraped text ("Mr&nbsp;Okafor", "O&#39;Brien", "Teodor &amp; Sunniva"): read as
# their character, the rest of the reference marked for single_spaced to take out
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});")


def _entity(m: re.Match) -> str:
    char = html.unescape(m.group(0))
    return char + _DROP_MARK * (len(m.group(0)) - 1) if len(char) == 1 and char != m.group(0) else m.group(0)


# block elements end a line: "Dear Mr. Okafor,</p><p>Imran wrote" is two lines, not "Okafor, Imran"
_BLOCK_TAG = re.compile(r"(?i)</?(?:p|br|div|li|ul|ol|tr|table|tbody|thead|h[1-6]|blockquote)\b")


def _unmarked(m: re.Match) -> str:
    mark = m.group(0)
    return ("\n" + " " * (len(mark) - 1)) if _BLOCK_TAG.match(mark) else " " * len(mark)


def plain_text(text: str) -> str:
    """`text` as the rules and the NER read it, character for character: line breaks, spaces and dashes the
    plain ones ("\r\n" reads " \n": one line break, not two), markup around words spaces."""
    if "&" in text and ";" in text:
        text = _ENTITY.sub(_entity, text)
    if not (text.isascii() and "\r" not in text and "\x0b" not in text and "\x0c" not in text):
        text = text.replace("\r\n", " \n").translate(_PLAIN_WHITESPACE)
    if "*" in text or "`" in text or "<" in text:
        text = _MARKUP.sub(_unmarked, text)
    if "_" in text:
        text = _EMPHASIS.sub(_unemphasised, text)
    if _quoted_printable(text):
        text = _QP_CODE.sub(lambda m: "=  " if m.group(0) == "=3D" else "   ", text)
        text = _QP_SOFT_BREAK.sub(_DROP_MARK * 2, text)  # single_spaced takes it out: the word it cut is whole
    return text


def single_spaced(text: str) -> tuple[str, list[int] | None]:
    """`text` with two spaces inside a line read as one ("Thanks Ingeborg.  I will", "Brightwater,  Sunita"),
    without invisible characters, and with letters written as a base and its combining marks (as macOS and some
    PDFs write "Zupanc\u030cic\u030c") composed into one; and for each character of the copy the
    offset in `text` where it starts (None when nothing changes). The rules and the NER read single spaces and
    composed letters: two spaces after a full stop cost my probes 3 leaks of 419, and a decomposed name was
    cut at its first mark."""
    if "  " not in text and text.isascii():
        return text, None
    table_lines = [m.span() for m in _TABLE_LINE.finditer(text)] if "   " in text or "\t" in text else []
    drop = {i for m in _TAKEN_OUT.finditer(text) for i in range(m.start() + (m.group(0)[0] == " "), m.end())
            if m.group(0) != "  " or not text[m.end()].isdigit() or not any(a <= m.start() < b for a, b in table_lines)}
    if text.isascii() or not any(unicodedata.combining(c) for c in text):
        return copy_without(text, drop) if drop else (text, None)
    chars, offsets, i = [], [], 0
    while i < len(text):
        if i in drop:
            i += 1
            continue
        j = i + 1
        while j < len(text) and unicodedata.combining(text[j]) and j not in drop:
            j += 1
        for ch in unicodedata.normalize("NFC", text[i:j]):
            chars.append(ch)
            offsets.append(i)
        i = j
    return "".join(chars), offsets


def copy_without(text: str, drop: set[int]) -> tuple[str, list[int]]:
    """`text` without the characters at the offsets `drop`, and for each character of the copy its offset in
    `text` (what to_original and to_copy map through)."""
    offsets = [i for i in range(len(text)) if i not in drop]
    return "".join(text[i] for i in offsets), offsets


def to_original(spans, offsets: list[int]) -> list[tuple[int, int]]:
    """Spans of the copy as spans of the original text: a span runs from its first character's place to just
    past its last one's, so it covers the spaces taken out inside it."""
    return [(offsets[s], offsets[e - 1] + 1) for s, e in spans if e > s]


def to_copy(spans, offsets: list[int]) -> list[tuple[int, int]]:
    """Spans of the original text as spans of the copy (a span over removed spaces only is dropped)."""
    out = []
    for s, e in spans:
        a, b = bisect.bisect_left(offsets, s), bisect.bisect_left(offsets, e)
        if b > a:
            out.append((a, b))
    return out


def past_marks(text: str, end: int) -> int:
    """`end` moved past the combining marks that follow it in `text`: a span mapped back from a composed copy
    ends at its last letter's base, and its marks belong to it."""
    while end < len(text) and unicodedata.combining(text[end]):
        end += 1
    return end
