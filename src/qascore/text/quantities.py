"""A gold number in another form, which `answer_match.number_miss` must not read as a miss: another unit ("238,900
miles" for 384,400 km, "183.95 K" for −89.2 °C, "3.5 million square miles" for 9 million km², "0.44 kHz" for 440 Hz,
"1500 mV" for 1.5 V, "4 ft 8½ in" for 1,435 mm, "0.593" for 59.3%), digits grouped by spaces ("299 792 458"), a
multiplier or a power of ten ("384 thousand", "5.73 × 10³", "6.022e23"), words ("fourteen ninety-two", "thirteenth"),
Roman numerals ("XIII"), a year's last two digits ("'91"), a century by its hundreds ("1500s" for "16th century"). SI
unit sizes."""

from __future__ import annotations

import math
import re
from typing import Iterator, Sequence

# each unit's dimension and size (with an offset: temperatures) in the dimension's base unit
_TABLE: dict[str, dict[str, float | tuple[float, float]]] = {
    "length": {"m metre metres meter meters": 1, "km kilometre kilometres kilometer kilometers": 1e3, "ft foot feet": 0.3048,
               "cm centimetre centimetres centimeter centimeters": 1e-2, "mm millimetre millimetres": 1e-3, "inch inches": 0.0254,
               "mi mile miles": 1609.344, "yd yard yards": 0.9144, "nm nanometre nanometres nanometer nanometers": 1e-9,
               "µm μm micron microns micrometre micrometres micrometer micrometers": 1e-6, "å angstrom angstroms ångström": 1e-10},
    "mass": {"kg kilogram kilograms": 1, "g gram grams": 1e-3, "lb lbs pound pounds": 0.45359237, "tonne tonnes": 1e3,
             "oz ounce ounces": 0.028349523125},
    "volume": {"l litre litres liter liters": 1, "ml millilitre millilitres milliliter milliliters": 1e-3,
               "gal gallon gallons": 3.785411784, "pint pints": 0.473176473, "quart quarts": 0.946352946},
    "pressure": {"pa pascal pascals": 1, "kpa": 1e3, "hpa": 1e2, "mpa": 1e6, "bar": 1e5, "mbar": 1e2, "psi": 6894.757293168,
                 "atm atmosphere atmospheres": 101325, "mmhg torr": 101325 / 760},
    "speed": {"m/s": 1, "km/s": 1e3, "km/h kph": 1 / 3.6, "mph mi/h": 0.44704, "mi/s": 1609.344, "knot knots kt": 0.514444,
              "ft/s fps": 0.3048},
    "share": {"% percent": 1e-2, "‰ permille": 1e-3},  # a bare figure under 1 is a share of one where the gold is a share
    "area": {"m2": 1, "km2": 1e6, "cm2": 1e-4, "ft2": 0.09290304, "mi2": 2589988.110336, "ha hectare hectares": 1e4,
             "acre acres": 4046.8564224},
    "frequency": {"hz hertz": 1, "khz kilohertz": 1e3, "mhz megahertz": 1e6, "ghz gigahertz": 1e9},
    "power": {"w watt watts": 1, "kw kilowatt kilowatts": 1e3, "mw megawatt megawatts": 1e6, "gw gigawatt gigawatts": 1e9,
              "hp horsepower": 745.69987},
    "energy": {"j joule joules": 1, "kj kilojoule kilojoules": 1e3, "cal calorie calories": 4.184, "kcal": 4184,
               "ev": 1.602176634e-19, "wh": 3600, "kwh": 3.6e6},
    "information": {"bit bits": 1, "byte bytes octet octets": 8},
    "voltage": {"v volt volts": 1, "mv millivolt millivolts": 1e-3, "kv kilovolt kilovolts": 1e3},
    "time": {"s sec second seconds": 1, "min minute minutes": 60, "h hr hour hours": 3600, "day days": 86400, "week weeks": 604800,
             "month months": 2629746, "year years": 31556952},  # a month a twelfth of a Gregorian year
    "temperature": {"k kelvin kelvins": 1, "c celsius centigrade": (1, 273.15), "f fahrenheit": (5 / 9, 273.15 - 160 / 9)}}
UNITS: dict[str, tuple[str, float, float]] = {name: (dim, *(size if isinstance(size, tuple) else (size, 0.0)))
                                              for dim, table in _TABLE.items() for names, size in table.items() for name in names.split()}
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
ROUNDED_SHARE = 0.05  # a number is read to 5% of its value at most: "1,000 mm" is not 1,435 mm, "1 kg" not 1.4 kg
CONVERTED_SHARE = 0.002  # a figure converted from another unit is read to 0.2% of it ("1,770 miles" for 2,850 km)
ROUNDING_FROM = 1000  # trailing zeros read as a rounding only from here ("300,000 km/s"): "100 °C" is exact, not 50-150
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻−", "0123456789--")
_UNIT = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
_GROUP_MARKS = "[, \u00a0\u2009\u202f]"  # what may part a number's groups of three: a comma, a space (SI's "299 792 458")
# digits in groups of three, a power of ten of two digits at most as "× 10^8" or "e8" (a float ends at 1e308)
_QUANTITY = re.compile(rf"(?<![\w.,])([-−]?\d{{1,3}}(?:{_GROUP_MARKS}\d{{3}}(?!\d))+(?:\.\d+)?|[-−]?\d+(?:\.\d+)?)"
                       rf"(?:\s*[×x*]\s*10\s*(?:\^|\*\*)?\s*([-⁻−]?[\d⁰¹²³⁴⁵⁶⁷⁸⁹]{{1,2}})(?![\d⁰¹²³⁴⁵⁶⁷⁸⁹])|e([-+]?\d{{1,2}})(?![\w.]))?"
                       rf"(?:\s+({'|'.join(_SCALE)})\b)?(?:\s*({_UNIT})(?![\w/]))?")
_ROMAN = re.compile(r"\b(?=[MDCLXVI]{2,}\b)M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})\b")
_TENS = dict(zip("twenty thirty forty fifty sixty seventy eighty ninety".split(), range(20, 100, 10)))
# "first" and "second" are too often no number ("at first", "a second opinion"): read only after a ten
ORDINALS = {**{w: k for k, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
                                          "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth".split(), 1)},
            **{w[:-1] + "ieth": k for w, k in _TENS.items()}}
_ORDINAL = re.compile(rf"\b(?:({'|'.join(_TENS)})[- ])?({'|'.join(ORDINALS)})\b")
_SQUARED = re.compile(r"\b(?:square|sq\.?) (kilo|centi|met|mi|f(?=ee|oo))\w*|\b(km|cm|mi|ft|m)(?:²|\^2)")  # "sq mi", "km²"
_HALF = re.compile(r"(?i)\bhalf an? (?=\w)")  # "half a year"
_FRACTIONS = {"½": 1 / 2, "¼": 1 / 4, "¾": 3 / 4, "⅓": 1 / 3, "⅔": 2 / 3, "⅛": 1 / 8, "⅜": 3 / 8, "⅝": 5 / 8, "⅞": 7 / 8}
# not an angle's minutes and seconds ("37° 9' 58\"")
_FEET_INCHES = re.compile(r"(?<![\d°º])(?<![°º]\s)(\d+)\s*(?:ft|feet|foot|′|')\s*(\d+(?:\.\d+)?)\s*(?:in\b|inch(?:es)?|″|\")")
_LENGTHS = {"kilo": "km", "met": "m", "mi": "mi", "km": "km", "m": "m", "f": "ft", "ft": "ft", "centi": "cm", "cm": "cm"}


NUMBER_WORDS = dict(zip("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
                        "seventeen eighteen nineteen".split(), map(str, range(20)))) | {w: str(k) for w, k in _TENS.items()}
# number words up to ninety-nine, "one" left out but after "hundred and" ("three hundred and one"): it is too often no number
_NUMBER_WORD = re.compile(rf"\b(?:({'|'.join(list(NUMBER_WORDS)[20:])})(?:[ -]({'|'.join(list(NUMBER_WORDS)[1:10])}))?"
                          rf"|({'|'.join(w for w in list(NUMBER_WORDS)[:20] if w != 'one')})|(?<=hundred and )(one))\b")


def in_digits(text: str) -> str:
    """`text` lower-cased, its number words up to ninety-nine in digits ("Thirty-nine weeks" -> "39 weeks")."""
    return _NUMBER_WORD.sub(lambda m: str(sum(int(NUMBER_WORDS[w]) for w in m.groups() if w)), text.lower())


def decimal_fractions(text: str) -> str:
    """`text` with each vulgar fraction as decimals ("35½" -> "35.5", "¾" -> "0.75")."""
    return re.sub(rf"(\d*)([{''.join(_FRACTIONS)}])", lambda m: f"{int(m[1] or 0) + _FRACTIONS[m[2]]:g}", text)


def _symbols(text: str) -> str:
    """`text` lower-cased, unit phrases as symbols ("miles per hour" -> "mi/h", "sq mi" -> "mi2", "km²" -> "km2"), no
    degree sign or word ("°C" -> "c"), fractions as decimals ("35½" -> "35.5"), feet and inches as inches ("5′11″")."""
    text = decimal_fractions(text.lower())
    text = _FEET_INCHES.sub(lambda m: f"{12 * int(m[1]) + float(m[2]):g} inches", text)
    text = re.sub(r"\b(mi|kilo|met|f(?=ee|oo))\w* per (h|s)\w*", lambda m: f"{_LENGTHS[m[1]]}/{m[2]}", text)
    text = re.sub(r"\bper (?:cent|mille)\b|\bparts? per thousand\b", lambda m: "percent" if "cent" in m[0] else "‰", text)
    text = _SQUARED.sub(lambda m: _LENGTHS[m[1] or m[2]] + "2", text)
    return re.sub(r"[°º]|\bdegrees? ", "", text)


def rounding_zeros(digits: str, scaled: bool = False) -> int:
    """How many trailing zeros of a whole number written as `digits` round it: two or more, where it is scaled or
    ROUNDING_FROM or more ("300000", "300 thousand"); else 0 ("1970", "100")."""
    zeros = len(digits) - len(digits.rstrip("0"))
    return zeros if zeros >= 2 and (scaled or float(digits) >= ROUNDING_FROM) else 0


def quantities(text: str) -> Iterator[tuple[float, float, str | None, bool]]:
    """Each number in `text` as (value, tolerance, unit or None, scaled): the tolerance is half the place of its
    last written digit (of its trailing zeros when there are two or more and it is scaled or ROUNDING_FROM or more:
    "300,000" and "300 thousand" are roundings, "1970" and "100" are not), ROUNDED_SHARE of the value at most; `scaled`
    when a multiplier or a power of ten wrote it ("384 thousand", "3 × 10^8")."""
    for m in _QUANTITY.finditer(_symbols(text)):
        digits, power, scale, unit = re.sub(_GROUP_MARKS, "", m[1]).replace("−", "-"), m[2] or m[3], m[4], m[5]
        factor = (10.0 ** int(power.translate(_SUPERSCRIPT)) if power else 1.0) * _SCALE.get(scale or "", 1.0)
        place = -len(digits.split(".")[1]) if "." in digits else rounding_zeros(digits, factor != 1.0)
        value = float(digits) * factor
        yield value, min(0.5 * 10.0 ** place * factor, ROUNDED_SHARE * abs(value) or 0.5), unit, factor != 1.0


def convert(value: float, unit: str, target: str) -> float:
    """`value` in `unit` expressed in `target`, a unit of the same dimension."""
    return (value * UNITS[unit][1] + UNITS[unit][2] - UNITS[target][2]) / UNITS[target][1]


def _worded(text: str, folded: str, pair: bool) -> set[float]:
    """Numbers `fold` leaves apart: years and hundreds in words ("14 92", "2 thousand and 7", "one hundred and 70" once
    folded) or dd.mm.yyyy, ordinals ("thirteenth", "twenty-first"), Roman numerals of two letters or more ("XIII"), halves
    ("9 and half"), `pair`s ("11 pairs")."""
    out = {float(a + b) for a, b in re.findall(r"(?=\b(1\d|20) (\d\d)\b)", folded)}
    out |= {float(y) for y in re.findall(r"\b[0-3]?\d\.[01]?\d\.(\d{4})\b", text)}
    # "one hundred and 70", "hundred and 70" ("a" folds away); not "10 thousand" nor "several hundred"
    out |= {size * int(NUMBER_WORDS.get(k, k or "1")) + int(rest or 0)
            for size, word, head in ((1000.0, "thousand", r"\d"), (100.0, "hundred", r"\d{1,2}"))
            for k, rest in re.findall(rf"(?:\b({head}|one) |(?<!\d )(?<!few )(?<!several ))\b{word}(?: and)?(?: (\d{{1,2}}))?\b", folded)}
    out |= {int(n) + 0.5 for n in re.findall(r"\b(\d+) and half\b", folded)}
    out |= {2.0 * int(n or 1) for n in re.findall(r"\b(?:(\d+) pairs|pair)\b", folded)} if pair else set()
    out |= {float(_TENS.get(tens, 0) + ORDINALS[unit]) for tens, unit in _ORDINAL.findall(text.lower())
            if tens or ORDINALS[unit] > 2}
    for m in _ROMAN.finditer(text):
        values = [{"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}[c] for c in m.group(0)]
        out.add(float(sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))))
    return out


def _agree(said: tuple[float, float, str | None, bool], gold: tuple[float, float, str | None, bool], asked: str | None) -> bool:
    """A said quantity is a gold one in another unit (the question's where the gold names none), as far as both are
    written ("5.9 km" for "5,895 m"), or either one scaled ("384 thousand" for 384,400, "3,300,000" for 3.3 million)."""
    (s, s_tol, unit, scaled), (g, g_tol, g_unit, g_scaled) = said, gold
    g_unit = g_unit or asked
    if unit is None and g_unit and UNITS[g_unit][0] == "share" and 0 < s < 1:  # "0.593" for 59.3%
        return abs(s - g * UNITS[g_unit][1]) < s_tol + g_tol * UNITS[g_unit][1]
    if unit and g_unit and unit != g_unit and UNITS[unit][0] == UNITS[g_unit][0]:
        slack = CONVERTED_SHARE * abs(s) if UNITS[unit] != UNITS[g_unit] else 0.0  # a conversion, not "m" for "metres"
        return abs(s - convert(g, g_unit, unit)) < max(s_tol + g_tol * UNITS[g_unit][1] / UNITS[unit][1], slack)
    return (scaled or g_scaled) and abs(s - g) < s_tol + g_tol


def _centuries(text: str) -> set[int]:
    """The centuries `text` names, as an ordinal ("16th century") or by their hundreds ("1500s")."""
    return ({int(n) for n in re.findall(r"\b(\d{1,2})(?:st|nd|rd|th)\s+century", text, re.IGNORECASE)}
            | {int(n) + 1 for n in re.findall(r"\b(\d{1,2})00s\b", text)})


def restated(question: str, text: str, folded: str, references: Sequence[str]) -> bool:
    """Whether the candidate (`text`; `folded` as `fold` gives it) states a number of the references in another form
    than its digits (`_agree`, its number words in digits too: "Three weeks"; `_worded`, a year's last two digits, a
    century: "16 octets" for "How many bits ...?" and "128", "1500s" for "16th century"); a pair is 2 where no reference
    counts pairs ("one pair" is no "two pairs")."""
    asked = next((w for w in re.findall(r"[\w/]+", _symbols(question)) if len(w) > 1 and w in UNITS), None)
    worded, said = _worded(text, folded, pair="pair" not in " ".join(references)), list(quantities(in_digits(_HALF.sub("0.5 ", text))))
    years = {int(y) for y in re.findall(r"(?<![\w'])'(\d\d)\b", text)}
    golds = [q for reference in references for q in quantities(reference)]
    return any(g in worded or g == int(g) and 1000 <= g < 2100 and int(g) % 100 in years for g, *_ in golds) \
        or any(_agree(s, g, asked) for s in said for g in golds) \
        or bool(_centuries(text) & set().union(*map(_centuries, references)))


def clashes(text: str, references: Sequence[str]) -> bool:
    """`text` writes a gold quantity's figure (or it times a power of 1000) in a unit of its dimension that makes it
    another quantity: "212 °C" for 212 °F, "101.325 Pa" for 101.325 kPa, "9.46 billion km" for 9.46 trillion."""
    golds = [(g, unit) for reference in references for g, _, unit, _ in quantities(reference) if unit]
    return any(UNITS[u][0] == UNITS[gu][0] and any(math.isclose(s, g * 1000.0 ** k) for k in range(-4, 5))
               and not math.isclose(s, convert(g, gu, u), rel_tol=ROUNDED_SHARE) for s, _, u, _ in quantities(text) if u for g, gu in golds)
