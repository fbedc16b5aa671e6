"""A gold date written in another form than any reference: "eighteen ninety-five" for 1895, "12/9/64" for December
1964, "11/09" for 11 September, "March 11th, '90" for 11 March 1990, "21.11.1783" for 21 November 1783, "2012-12-21"
(ISO 8601) for 21 December 2012.

`contains` reads a date only as written; the verifier, taught dates in the forms the training answers wrote them,
reads a year said in words or a day and month in figures as another number. `written` finds each date the answer
writes, in words or figures, and returns the references it states in every part they state; `aliases` adds them
as the answer's own words, as it does a gold number in another form. A two-digit year ("'90", "12/9/64") is read
in the reference's century; a day and month in figures are read in either order ("11/09": 11 September or 9
November), as the answer's locale is unknown.
"""

from __future__ import annotations

import re
from typing import Iterator, Sequence

from qascore.text.answer_match import DAY_FORM, MONTH_FORM, MONTHS, as_date

_UNITS = "one two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_VALUE = {**{w: k for k, w in enumerate(_UNITS, 1)}, **{w: k for k, w in enumerate(_TEENS, 10)},
          **{w: k for k, w in zip(range(20, 100, 10), _TENS)}}
_PAIR = rf"(?:(?:{'|'.join(_TENS)})(?:[\s-]+(?:{'|'.join(_UNITS)}))?|{'|'.join(_TEENS)})"  # 10-99 in words
_UNIT = rf"(?:{'|'.join(_UNITS)})"
# a year said as two pairs ("eighteen ninety-five"), with "hundred" ("fifteen hundred and one"), "oh"
# ("nineteen-oh-one") or "thousand" ("two thousand and five")
_SPOKEN = (rf"(?:(?P<hi>{_PAIR})[\s-]+(?:hundred(?:\s+and)?(?:[\s-]+(?P<lo_h>{_PAIR}|{_UNIT}))?"
           rf"|o(?:h)?[\s-]+(?P<oh>{_UNIT})|(?P<lo>{_PAIR}))"
           rf"|(?P<k>one|two)[\s-]+thousand(?:(?:\s+and)?[\s-]+(?P<lo_k>{_PAIR}|{_UNIT}))?)")
_YEAR = rf"(?:(?P<y>[12]\d{{3}})|['\u2019](?P<yy>\d\d)|{_SPOKEN})"
_FORMS = [re.compile(rf"(?<![\w'-]){form}(?![\w-])", re.IGNORECASE) for form in (
    rf"{MONTH_FORM}\s+{DAY_FORM},?\s+{_YEAR}", rf"{DAY_FORM}\s+(?:of\s+)?{MONTH_FORM},?\s+{_YEAR}",
    rf"{MONTH_FORM},?\s+(?:of\s+)?{_YEAR}",
    r"(?P<a>[0-3]?\d)(?P<sep>[/.])(?P<b>[0-3]?\d)(?:(?P=sep)(?:(?P<y2>[12]\d{3})|(?P<yy2>\d\d)))(?!\.?\d)",
    r"(?P<a1>[0-3]\d)/(?P<b1>[0-3]\d)(?![/\d])", r"(?P<iy>[12]\d{3})-(?P<im>[01]\d)-(?P<id>[0-3]\d)", _YEAR)]


def _words(pair: str | None) -> int:
    """The value of a number of words under 100 ("ninety-five" -> 95); 0 for None."""
    return sum(_VALUE[w] for w in re.split(r"[\s-]+", pair.lower()) if w) if pair else 0


def _year(g: dict[str, str]) -> dict[str, int]:
    """The year a match's groups state: in figures ("y"), its last two digits ("yy"), or in words; {} for none."""
    if "y" in g or "y2" in g:
        return {"y": int(g.get("y") or g["y2"])}
    if "yy" in g or "yy2" in g:
        return {"yy": int(g.get("yy") or g["yy2"])}
    if "hi" in g:
        return {"y": 100 * _words(g["hi"]) + _words(g.get("lo") or g.get("lo_h") or g.get("oh"))}
    return {"y": 1000 * _words(g["k"]) + _words(g.get("lo_k"))} if "k" in g else {}


def _readings(m: re.Match[str]) -> Iterator[dict[str, int]]:
    """The parts (year "y" or its last two digits "yy", month "m", day "d") a date match may state."""
    g = {k: v for k, v in m.groupdict().items() if v}
    year = _year(g)
    if "m" in g:
        said = g["m"].rstrip(".").lower()
        month = next(i for i, name in enumerate(MONTHS, 1) if name.lower().startswith(said))
        yield {**year, "m": month, **({"d": int(g["d"])} if "d" in g else {})}
    elif "iy" in g:
        yield {"y": int(g["iy"]), "m": int(g["im"]), "d": int(g["id"])}
    elif "a" in g or "a1" in g:
        a, b = int(g.get("a") or g["a1"]), int(g.get("b") or g["b1"])
        for d, mo in {(a, b), (b, a)}:
            if 1 <= d <= 31 and 1 <= mo <= 12:
                yield {**year, "m": mo, "d": d}
    else:
        yield year


def written(candidate: str, references: Sequence[str]) -> list[tuple[int, str]]:
    """(index, the answer's words) of each reference that is a date (`answer_match.as_date`) which a date the
    answer writes states in every part, in a form other than the reference's: the longest form where forms
    overlap ("March 11th, '90", not "'90")."""
    gold = [(i, g) for i, g in enumerate(map(as_date, references)) if g]
    if not gold:
        return []
    found = sorted(((m.start(), -m.end(), m) for form in _FORMS for m in form.finditer(candidate)), key=lambda t: t[:2])
    out: list[tuple[int, str]] = []
    end = -1
    for start, neg_end, m in found:
        if start < end:
            continue
        end = -neg_end
        for i, g in gold:
            if i not in {k for k, _ in out} and any(
                    all(s.get(k) == v or k == "y" and s.get("yy") == v % 100 for k, v in g.items())
                    for s in _readings(m)):
                out.append((i, m.group(0)))
    return out
