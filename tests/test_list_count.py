"""`text.list_count`: a list answer with fewer or more items than the question asks for, or that sets a gold item aside;
cases counted by hand."""

from __future__ import annotations

import pytest

from qascore.text.list_count import items, list_aside, long_list, short_list, stated_list

# (question, candidate, references, fires)
CASES = [
    ("What are the two moons of Mars?", "Phobos.", ["Phobos and Deimos"], 1.0),
    ("What are the two moons of Mars?", "Phobos and Deimos.", ["Phobos and Deimos"], 0.0),
    ("Name the four blood groups of the ABO system.", "A, B and O.", ["A, B, AB, O"], 1.0),
    ("Name the four blood groups of the ABO system.", "Type A / Type B / Type AB / Type O", ["A, B, AB, O"], 0.0),
    ("Name the three disciplines of a triathlon.", "Swim → bike → run.", ["Swimming, cycling and running"], 0.0),
    ("Name the three bones of the middle ear.", "Hammer, anvil and stirrup.", ["Malleus, incus, stapes"], 0.0),  # counted
    ("Which 3 countries border Luxembourg?", "France and Germany", ["Belgium, France and Germany"], 1.0),
    ("Which astronomer formulated the three laws of planetary motion?", "Kepler", ["Johannes Kepler"], 0.0),
    ("Who composed The Four Seasons?", "Vivaldi.", ["Antonio Vivaldi"], 0.0),
    ("Which four-field crop rotation did Townshend use?", "Norfolk system.", ["Norfolk four-course system"], 0.0),
    ("Without looking, what three letters are on the 5 key?", "JKL.", ["J K L"], 0.0),      # letters, not items
    ("Name the Baltic states.", "Latvia and Lithuania.", ["Estonia, Latvia and Lithuania"], 1.0),  # a listed reference
    ("Name the year: Kennedy was elected.", "1960", ["one thousand, nine hundred and sixty"], 0.0),  # a number
    ("Where is Boeing based?", "Seattle", ["Seattle, Washington"], 0.0),                 # the question asks for one
    ("What are the basic functions of proteins?", "catalysis", ["Proteins catalyse reactions, replicate DNA and "
                                                              "transport molecules from one place to another."], 0.0),
    ("What are the two moons of Mars?", " ".join(["word"] * 31), ["Phobos and Deimos"], 0.0),  # prose, not a list
    ("What are the two terminal cities of the Trans-Siberian?", "Vladivostok, on the Pacific end.",
     ["Moscow and Vladivostok"], 1.0),                                                      # a clause is no item
    ("Which two countries share Patagonia?", "Argentina — it's the south of the country, and of Chile too.",
     ["Argentina and Chile"], 1.0),                                                         # nor what follows a dash
    ("What are the two moons of Mars?", "- Phobos – the inner one\n- Deimos – the outer one", ["Phobos and Deimos"], 0.0),
    ("What are the two moons of Mars?", "Phobos and, in the outer orbit, Deimos.", ["Phobos and Deimos"], 0.0),
    ("In Go, what is the term for a position in which the two players repeat?", "Ko.", ["ko"], 0.0),  # a relative clause
    ("Besides Genoa, name the other three maritime republics.", "Venice and Pisa.", ["Venice, Pisa and Amalfi"], 1.0),
    ("Besides Genoa, name the other three maritime republics.", "Venice, Pisa and Amalfi.", ["Venice, Pisa and Amalfi"],
     0.0),
    ("What are the two genera of sloths?", "Three-toed sloths, like the brown-throated sloth.",
     ["two-toed and three-toed sloths"], 1.0),                                              # an example is no item
    ("The Khazars had two rulers. Name their titles.", "The khagan.", ["Khagan and Bek"], 1.0),  # a later sentence asks
    ("The Khazars had two rulers. Name their titles.", "The khagan and the bek.", ["Khagan and Bek"], 0.0),
    ("Which two gases make up most of the air?", "Not argon or CO2 — both are traces. The two are nitrogen and oxygen.",
     ["nitrogen and oxygen"], 0.0),                                                         # a first sentence set aside
    ("Which two gases make up most of the air?", "Not argon — a trace. Nitrogen.", ["nitrogen and oxygen"], 1.0),
    ("Which two letters stand for the poles?", "N.", ["N and S"], 1.0),                      # letters the gold lists
    ("Which two letters stand for the poles?", "N and S.", ["N and S"], 0.0),
    ("Who were the two founders?", "Marx, together with a few friends.", ["Marx and Engels"], 1.0),  # "together with"
]


@pytest.mark.parametrize("question,candidate,references,expected", CASES)
def test_a_list_shorter_than_asked_fires(question, candidate, references, expected):
    assert short_list(question, candidate, references) == expected


# "and" in other languages, a middle dot; "Y" is a name; "e.g." is no "e"
@pytest.mark.parametrize("text,n", [("A, B and C.", 3), ("A; B & C", 3), ("A / B", 2), ("A -> B", 2), ("1,000 and 2", 2),
                                    ("- A\n- B\n- C", 3), ("France plus Italy", 2), ("Paris", 1),
                                    ("Bleu, Blanc et Rouge", 3), ("Castellano y guarani", 2), ("X and Y", 2),
                                    ("\u6606\u5e03\u3068\u9c39\u7bc0", 2),
                                    ("\u6f22\u5b57\u30fb\u304b\u306a", 2), ("Rosso e verde", 2), ("Qizil va yashil", 2),
                                    ("Pupa \u00e0ti funfun", 2), ("Rye, e.g. dark", 2), ("R&B and soul", 2)])
def test_items_are_split_on_a_lists_separators(text, n):
    assert len(items(text)) == n


# (question, candidate, fires): more items than the number the question writes
LONG = [
    ("What are the three primary colours of light?", "Red, green, blue and yellow", 1.0),
    ("What are the three primary colours of light?", "Red, green and blue.", 0.0),
    ("Which 2 countries share Lake Titicaca?", "Peru, Bolivia and Chile.", 1.0),
    ("Name the Baltic states.", "Estonia, Latvia, Lithuania and Finland", 0.0),           # no number asked
    ("Name two of the Great Lakes.", "Erie, Huron and Ontario", 0.0),                      # "two of": at least two
    ("Which three countries are on Borneo?", "Indonesia (Kalimantan), Malaysia (Sabah and Sarawak) and Brunei.", 0.0),
    ("Name the five Great Lakes.", "HOMES:\n- Huron\n- Ontario\n- Michigan\n- Erie\n- Superior", 0.0),  # a heading
    ("What are the two city-states in Germany?", "Not Freistaaten, but Hamburg and Bremen.", 0.0),       # contrast
    ("Which two heavier isotopes of hydrogen are named?", "2H and 3H, i.e. D and T.", 0.0),
    ("What two countries emerged?", "After the Congress of Vienna, Austria and Prussia emerged as two.", 0.0),  # clauses
    ("Which three countries border Luxembourg?", ", ".join(["Belgium"] * 31), 0.0),      # over LIST_WORDS: prose
    ("Name the three Brontë sisters.", "Charlotte, Emily & Anne — a.k.a. Currer, Ellis and Acton Bell.", 0.0),  # restated
    ("Which two players share the try record?", "Lomu (NZ) and Habana (RSA), with 15 apiece.", 0.0),  # a remark
    ("Which two rivers meet at Khartoum?", "The Blue Nile, the White Nile and the Atbara — three rivers.", 1.0),
    ("What are the three primary colours of light?", "- Red\n- Green\n- Blue\n- Yellow", 1.0),  # a bullet is no dash
    ("Which two rivers meet at Khartoum?", "The Blue Nile and the White Nile, which join to form the Nile.", 0.0),
    ("What are the three primary colours of light?", "Red, green, blue and yellow, which mix to white.", 1.0),  # a clause is no item
    ("What are the three primary colours of light?", "Red, green and blue, unlike cyan and magenta.", 0.0),  # contrast
]


@pytest.mark.parametrize("question,candidate,expected", LONG)
def test_a_list_longer_than_asked_fires(question, candidate, expected):
    assert long_list(question, candidate) == expected


# (question, candidate, references, fires): the stated list holds a thing no gold item is, and a gold item it leaves
# out is named after it
ASIDE = [
    ("Name the three primary colours of light.", "Red, green and yellow. Blue is often listed, but it is a mix.",
     ["red, green and blue"], 1.0),
    ("Which planets have rings?", "Saturn and Uranus. Jupiter's faint rings came up once.", ["Jupiter, Saturn, Uranus, "
                                                                                          "Neptune"], 0.0),  # none
    ("What are the two moons of Mars?", "Phobos and Europa. Deimos is only a captured asteroid, not a moon.",
     ["Phobos and Deimos"], 1.0),
    ("What are the two moons of Mars?", "Phobos and Deimos. Europa is Jupiter's.", ["Phobos and Deimos"], 0.0),  # all gold
    ("What are the two moons of Mars?", "Io and Europa. Phobos and Deimos orbit Mars.", ["Phobos and Deimos"], 0.0),
    ("What are the two moons of Mars?", "Phobos and Europa.", ["Phobos and Deimos"], 0.0),      # no gold named after it
    ("Who was the first man on the Moon?", "Buzz Aldrin, then Neil Armstrong.", ["Neil Armstrong, Buzz Aldrin"], 0.0),
    ("List the three states of matter.", "The classic three:\n- Solid\n- Liquid\n- Plasma\n\nGas is a special "
     "case of liquid.", ["solid, liquid and gas"], 1.0),                                     # lines after a heading
    ("Name the three states of matter.", "Solid, liquid (as in water) and plasma. The gas-phase is rarer.",
     ["solid, liquid and gas"], 1.0),                                                        # hyphenated after it
    ("Name the two ingredients.", "Flour and sugar. Butter (or ghee) comes last.", ["flour, butter (or ghee)"], 1.0),
    ("Name the three primary colours of light.", "The three primaries are red, green and yellow. Blue is a mix.",
     ["red, green and blue"], 1.0),                                                          # after its lead
    ("Name the three primary colours of light.", "Red, green and blue are the primaries, and yellow is not.",
     ["red, green and blue"], 0.0),                                                          # no lead before a comma
    ("Who were the Beatles?", "Lennon, McCartney, Harrison and Best. Starr joined later.",
     ["John Lennon, Paul McCartney, George Harrison, Ringo Starr"], 1.0),                    # a word of one item alone
    ("Name the three Baltic states.", "Estonia, Latvia and Finland. Lithuania's capital is Vilnius.",
     ["Estonia, Latvia, Lithuania"], 1.0),                                                   # a possessive folds away
]


@pytest.mark.parametrize("question,candidate,references,expected", ASIDE)
def test_a_gold_item_set_aside_after_the_stated_list_fires(question, candidate, references, expected):
    assert list_aside(question, candidate, references) == expected


@pytest.mark.parametrize("candidate,said,rest", [
    ("Oak, ash and elm. Yew is not.", ["Oak", "ash", "elm"], " Yew is not."),
    ("J. Watt, M. Boulton (i.e. Soho) and W. Murdoch. Then more.", ["J. Watt", "M. Boulton", "W. Murdoch"], " Then more."),
    ("It is 3.5 m, 2 m and 1 m. Then more.", ["It is 3.5 m", "2 m", "1 m"], " Then more."),  # no end at "3.5"
    ("Three:\n1. A – first\n2. B: second\n\nC after.", ["A", "B"], "C after."),
    ("The first one was discovered by astronomers in the nineteenth century, and B.", [], ""),
])
def test_the_stated_list_is_the_first_sentence_or_the_first_lines(candidate, said, rest):
    assert stated_list(candidate) == (said, rest)
