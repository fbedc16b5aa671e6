"""A gold number in another form (`text.quantities`): conversions checked by hand against the units' definitions."""

import pytest

from qascore.text.answer_match import fold
from qascore.text.quantities import clashes, convert, quantities, restated


@pytest.mark.parametrize("value, unit, target, expected", [
    (100, "celsius", "fahrenheit", 212.0),
    (37, "c", "f", 98.6),
    (78.37, "c", "k", 351.52),
    (1, "mile", "km", 1.609344),
    (18, "inches", "feet", 1.5),
    (760, "torr", "kpa", 101.325),
    (16, "octets", "bits", 128.0),
    (1, "gallon", "litres", 3.785411784),
    (26.2, "miles", "km", 42.1648128),
    (1, "mi2", "km2", 2.589988110336),          # (1.609344 km)^2
    (640, "acres", "mi2", 1.0),                 # a square mile is 640 acres
    (1, "ha", "m2", 10000.0),
    (1, "kwh", "kj", 3600.0),
    (1, "ev", "j", 1.602176634e-19),
    (0.44, "khz", "hz", 440.0),
    (1, "hp", "w", 745.69987),                 # the mechanical horsepower
    (2, "years", "months", 24.0),
    (1, "week", "days", 7.0),
])
def test_convert(value, unit, target, expected):
    assert convert(value, unit, target) == pytest.approx(expected)


@pytest.mark.parametrize("text, expected", [
    ("384,400 km", [(384400.0, 50.0, "km", False)]),           # two trailing zeros: rounded to the hundred
    ("In 1970.", [(1970.0, 0.5, None, False)]),                # one is not
    ("100 °C", [(100.0, 0.5, "c", False)]),                     # nor two below 1,000
    ("300 thousand", [(300000.0, 15000.0, None, True)]),        # ... unless scaled: half the place, 5% at most
    ("5.9 km", [(5.9, 0.05, "km", False)]),
    ("384 thousand kilometres", [(384000.0, 500.0, "kilometres", True)]),
    ("5.73 × 10³ yr", [(5730.0, 5.0, None, True)]),
    ("3 x 10^8 m/s", [(3e8, 1.5e7, "m/s", True)]),             # 5% of 3e8, not half of 1e8
    ("98.6 degrees Fahrenheit", [(98.6, 0.05, "fahrenheit", False)]),
    ("186,000 miles per second", [(186000.0, 500.0, "mi/s", False)]),
    ("3.5 million square miles", [(3.5e6, 5e4, "mi2", True)]),
    ("9.6 km²", [(9.6, 0.05, "km2", False)]),
    ("8,646 sq mi", [(8646.0, 0.5, "mi2", False)]),
    ("110,000 m2", [(110000.0, 5000.0, "m2", False)]),
    ("−89.2 °C", [(-89.2, 0.05, "c", False)]),                # a minus sign before a number is its sign ...
    ("12-15 degrees", [(12.0, 0.5, None, False), (15.0, 0.5, None, False)]),  # ... a hyphen after one is a range's
    ("1,000 mm", [(1000.0, 50.0, "mm", False)]),                # 5% of 1,000, not half of 1,000
    ("4 ft 8½ in", [(56.5, 0.05, "inches", False)]),             # feet and inches as inches, a fraction as decimals
    ("About 35½ miles.", [(35.5, 0.05, "miles", False)]),
    ("5′11″", [(71.0, 0.5, "inches", False)]),
    ("37° 9' 58\" N", [(37.0, 0.5, None, False), (9.0, 0.45, None, False), (58.0, 0.5, None, False)]),  # an angle
])
def test_quantities(text, expected):
    assert [(pytest.approx(v), pytest.approx(t), u, s) for v, t, u, s in quantities(text)] == expected


@pytest.mark.parametrize("question, candidate, references, expected", [
    ("How far is the Moon?", "Roughly 238,900 miles.", ["384,400 km"], True),  # 238,855 mi
    ("How far is the Moon?", "Roughly 238,000 miles.", ["384,400 km"], False),  # 855 mi off
    ("How far is the Moon?", "About 384 thousand kilometres.", ["384,400 km"], True),
    ("How many saunas?", "Around 3,300,000.", ["3.3 million"], True),  # the gold scaled, the answer in digits
    ("How many saunas?", "Around 3,300,000.", ["3 million"], False),  # 10% off: a number is read to 5% at most
    ("How many oarsmen?", "One hundred and seventy oarsmen.", ["170"], True),
    ("How many oarsmen?", "A hundred and seventy.", ["170"], True),  # "a" folds away: "hundred and 70"
    ("How many guns?", "Several hundred.", ["100"], False),
    ("How many years?", "Ten thousand.", ["1000"], False),  # "10 thousand", not a bare "thousand"
    ("How far is the Moon?", "About 300 km.", ["384,400 km"], False),
    ("How far is the Moon?", "About 150 million km.", ["384,400 km"], False),
    ("Boiling point of ethanol?", "About 351.5 K.", ["78.37 °C"], True),
    ("Body temperature?", "98.6 °F", ["37 °C"], True),
    ("Body temperature?", "100.4 °F", ["37 °C"], False),
    ("Boiling point of water?", "90 degrees Celsius", ["100 °C"], False),  # the same unit, another number
    ("Boiling point of water?", "212 degrees Fahrenheit", ["100 °C"], True),
    ("How many bits long is an IPv6 address?", "16 octets.", ["128"], True),  # the question's unit
    ("How many bits long is an IPv6 address?", "12 octets.", ["128"], False),
    ("How tall is Kilimanjaro?", "About 5.9 km.", ["5,895 m"], True),
    ("Half-life of carbon-14?", "5.73 × 10³ years", ["5,730 years"], True),
    ("Speed of light in m/s?", "299 792.458 km/s", ["299,792,458 m/s"], True),   # SI's groups of three
    ("Speed of light in m/s?", "299\u202f792 km/s", ["299,792,458 m/s"], True),
    ("Avogadro constant?", "6.02214076e23 per mole", ["6.022 × 10^23"], True),   # a power of ten as "e23"
    ("Avogadro constant?", "6.02e22 per mole", ["6.022 × 10^23"], False),
    ("Voltage of an AA cell?", "1500 mV", ["1.5 V"], True),
    ("Voltage of an AA cell?", "1200 mV", ["1.5 V"], False),
    ("Width of standard gauge in mm?", "4 ft 8½ in", ["1435 mm"], True),
    ("Width of standard gauge in mm?", "1,000 mm", ["4 ft 8½ in"], False),          # a rounding reads 5% at most
    ("Mass?", "About 1 kg", ["1.4 kilograms"], False),
    ("How many?", "3\n100", ["3100"], False),                                    # a line break is no group mark
    ("Which amendment abolished slavery?", "Amendment XIII.", ["13th Amendment"], True),
    ("Which amendment abolished slavery?", "The Thirteenth.", ["13th Amendment"], True),
    ("Which amendment abolished slavery?", "The Fourteenth.", ["13th Amendment"], False),
    ("When did Columbus reach the Americas?", "October 12, fourteen ninety-two.", ["1492"], True),
    ("When was the first iPhone released?", "Two thousand seven.", ["2007"], True),
    ("How many bones are in the adult skeleton?", "Two hundred and six.", ["206"], True),
    ("When did Haiti declare independence?", "Eighteen hundred and four.", ["1804"], True),
    ("How many bones are in the adult skeleton?", "Two hundred and eight.", ["206"], False),
    ("When did the Soviet Union dissolve?", "26 December '91.", ["1991"], True),
    ("When did the Soviet Union dissolve?", "In '92.", ["1991"], False),
    ("When was the Peace of Westphalia?", "24.10.1648", ["1648"], True),
    ("When?", "In 1970.", ["1969"], False),                    # digits as digits: number_miss's own reading
    ("When was Shakespeare born?", "In the 1500s.", ["16th century"], True),   # a century by its hundreds
    ("When was the Renaissance?", "14th to 17th century", ["1300s to 1600s"], True),
    ("When was Shakespeare born?", "In the 1600s.", ["16th century"], False),
    ("How large is the Sahara?", "Roughly 3.5 million square miles.", ["about 9.2 million square kilometres"], True),
    ("How large is the Sahara?", "Roughly 5 million square miles.", ["about 9.2 million square kilometres"], False),
    ("How big is the colony?", "Roughly 3.7 square miles.", ["about 2,385 acres"], True),   # 3.73 mi2
    ("What is silicon's band gap?", "About 1.8 × 10⁻¹⁹ J.", ["1.12 eV"], True),            # 1.794e-19 J
    ("What frequency is concert A?", "0.44 kHz", ["440 Hz"], True),
    ("How cold was Vostok in 1983?", "183.95 K.", ["−89.2 °C"], True),
    ("How cold was Vostok in 1983?", "362.35 K.", ["−89.2 °C"], False),   # +89.2 °C
    ("What is the Three Gorges Dam's capacity?", "22.5 million kilowatts.", ["22,500 MW"], True),
    ("How long is the Rhine?", "Roughly 765 miles.", ["about 1,230 km"], True),            # 1,231 km: 0.2% of it
    ("How long is the Rhine?", "Roughly 740 miles.", ["about 1,230 km"], False),           # 1,191 km
    ("How long is a marathon, in kilometres?", "42.165 km", ["42.195"], False),            # "km" is "kilometres"
    ("How many humps has a Bactrian camel?", "A pair.", ["2"], True),
    ("How many pairs of wings has a bee?", "Just one pair.", ["two pairs"], False),       # pairs counted
    ("How many rays ring the mole's snout?", "Eleven pairs.", ["22"], True),             # pairs are twice their number
    ("How many rays ring the mole's snout?", "Twelve pairs.", ["22"], False),
    ("How many legs has a crab?", "Ten pairs.", ["10"], False),
    ("How long does a chicken egg take to hatch?", "Three weeks.", ["21 days"], True),  # a number word with its unit
    ("How long does a chicken egg take to hatch?", "Two weeks.", ["21 days"], False),
    ("How long is it?", "About 1.5 km.", ["5 km"], False),                              # no decimal read apart
    ("What magnitude was it?", "Nine and a half.", ["9.5"], True),
    ("How long is the gestation?", "Roughly 95 weeks.", ["22 months"], True),               # 21.85 months
    ("How long must it age?", "At least 24 months.", ["2 years"], True),                 # a month a twelfth of a year
    ("How long must it age?", "18 months.", ["2 years"], False),
    ("How much power?", "Roughly 9 kW.", ["12 hp"], True),                                # 8.95 kW
    ("How fast is a Category 5 wind?", "137 kt.", ["157 mph"], True),                     # 157.66 mph
    ("How fast is a Category 5 wind?", "120 kt.", ["157 mph"], False),
    ("Wavelength of the sodium D line?", "5893 Å.", ["589.3 nm"], True),                  # an angstrom a tenth of a nm
    ("Wavelength of the sodium D line?", "5,800 Å.", ["589.3 nm"], False),                # 580 nm
    ("How thick is the hair?", "About 0.07 mm.", ["70 µm"], True),
    ("Speed of sound in air?", "About 1,125 feet per second.", ["343 m/s"], True),       # 1,125.3 ft/s
    ("Speed of sound in air?", "About 1,000 feet per second.", ["343 m/s"], False),
    ("What share of the air is argon?", "About 0.0093.", ["0.93%"], True),                # a bare figure: a share of one
    ("What share of the air is argon?", "About 0.093.", ["0.93%"], False),
    ("What share of the air is argon?", "9.3 parts per thousand.", ["0.93%"], True),
    ("What share of the water is fresh?", "About 25 per mille.", ["2.5 per cent"], True),
    ("How long is the term?", "Half a year.", ["6 months"], True),
    ("How long is the term?", "Half a month.", ["6 months"], False),
    ("In which year?", "In two hundred and one.", ["201"], True),                          # "one" after "hundred and"
    ("In which year?", "In three hundred and one.", ["302"], False),
    ("How high is the bar?", "7 ft 11⅝ in.", ["2.43 m"], True),                         # 95.625 in = 2.4289 m
])
def test_restated(question, candidate, references, expected):
    assert restated(question, candidate, fold(candidate), references) is expected


# (candidate, references, expected): a gold figure in a unit that makes it another quantity (hand-worked)
@pytest.mark.parametrize("candidate, references, expected", [
    ("Water boils at 212 °C at sea level.", ["212 °F"], True),
    ("101.325 Pa", ["101.325 kPa"], True),                                 # the figure, a thousandth of the gold
    ("About 9.46 billion km", ["About 9.46 trillion km"], True),           # another multiplier
    ("5 mi", ["5 km"], True),
    ("212 °F", ["212 °F"], False),                                         # the gold itself
    ("5,000 m", ["5 km"], False),                                          # the gold in another unit
    ("-40 °F", ["-40 °C"], False),                                         # the one temperature both scales share
    ("212 °C", ["212"], False),                                            # the gold names no unit
    ("About 300 km", ["384,400 km"], False),                               # another figure: `number_miss` reads it
])
def test_clashes(candidate, references, expected):
    assert clashes(candidate, references) is expected


def test_a_power_of_ten_past_a_floats_range_is_no_power():
    """A float ends at 1e308: "1e999" and "× 10^400" are read without their powers, not as an overflow."""
    assert [v for v, *_ in quantities("1e999 or 6.022e23, 5 × 10^400 and 3 × 10^8")] == \
        pytest.approx([1.0, 6.022e23, 5.0, 10.0, 400.0, 3e8])


def test_number_miss_reads_a_huge_power_without_failing():
    from qascore.text.answer_match import Reading, number_miss

    assert number_miss(Reading("How many grains?", "About 1e999 of them.", ["5"])) == 1.0
