"""The judge's other names for a gold answer (`metrics.aliases`): tables of hand-checked cases against the shipped
WordNet, redirect, CLDR and GeoNames tables and transliteration, then the rules each case stands for on tables written here."""

from __future__ import annotations

import gzip
import json
import lzma
from pathlib import Path

import pytest

from qascore.metrics.aliases import (in_candidate_form, known_other, numbered, rank_forms, redirected, synonyms,
                                     transliterated)
from qascore.text.answer_match import fold

# (question, candidate, references, the references the judge adds); every synonym set named here is WordNet 3.0's
SHIPPED = [
    ("What were the Axis powers?", "Deutschland, Italia and Nippon.", ["Germany, Italy, Japan"],
     [(0, "Deutschland, Italia, Nippon")]),                                      # {Japan, Nippon, Nihon}, ...
    ("Which country is this?", "The PRC.", ["China"], [(0, "PRC")]),             # {China, People's Republic of China, PRC}
    ("Which country is this?", "Taiwan.", ["China"], []),                        # "China" is only a second name of Taiwan's set
    ("How many sides has a dodecagon?", "a dozen", ["12", "Twelve"], [(0, "dozen")]),  # {twelve, 12, XII, dozen}
    ("Which agency?", "NASA", ["National Aeronautics and Space Administration"], [(0, "NASA")]),
    ("What was Burma renamed?", "Burma", ["Myanmar"], []),                       # the question names it
    ("What is Myanmar's old name?", "Burma", ["Myanmar"], [(0, "Burma")]),
    ("Which element?", "He was sure it was helium's cousin", ["Helium"], []),    # "He" alone is a pronoun
    ("Which noble gases?", "He, Ne, Ar", ["Helium, Neon, Argon"], [(0, "He, Ne, Ar")]),
    ("Which element?", "OK, it is mercury", ["Oklahoma"], []),                  # "OK" counts only as the whole answer
    ("Who wrote it?", "Keynes", ["John Maynard Keynes"], []),                    # a part of the name: overlap reads it
    ("Which bones?", "Hammer, anvil and stirrup.", ["Malleus, Incus, Stapes"],
     [(0, "hammer, anvil, stirrup")]),                                           # common words' sets
    ("Which instrument?", "Cornet", ["Trumpet"], []),                            # an artifact's set names several devices
    ("Name the two basic folds in origami.", "The valley fold.", ["valley fold and mountain fold"],
     []),                                                                        # another item of the list is no other name
    ("Which country?", "Deutschland", ["Germany", "Deutschland"], []),           # a reference occurs whole
    ("Which country?", "Deutschland is where the Japanese and the Italians met and talked about it", ["Germany"],
     []),                                                                        # 13 words: a passage, not a short answer
    ("Which country?", "Deutschland, where the Japanese and the Italians met and talked about it", ["Germany"],
     [(0, "Deutschland")]),                                                      # ... read in its opening clause
    ("Which country?", "The country where the Japanese and the Italians met, Deutschland, talked about it",
     ["Germany"], []),                                                           # an opening clause of 9 words: prose
    ("Which powers?", "Nippon, Italy and Germany were the three Axis powers of the Second World War.",
     ["Germany, Italy, Japan"], []),                                             # a list's first item is no opening clause
    ("Which powers?", "The three Axis powers: Nazi Deutschland, Fascist Italy and Imperial Nippon.",
     ["Germany, Italy, Japan"], [(0, "Deutschland, Italy, Nippon")]),           # one sentence of short names: read whole
]


@pytest.mark.parametrize("question,candidate,references,expected", SHIPPED)
def test_the_shipped_table_adds_the_other_names_a_short_answer_gives(question, candidate, references, expected):
    assert in_candidate_form(question, candidate, references) == expected


# Wikipedia's redirects as shipped (DBpedia): other names no WordNet synonym set holds
REDIRECTS = [
    ("Which element has the symbol Sb?", "Stibium.", ["Antimony"], [(0, "stibium")]),         # its Latin name
    ("Who wrote Tom Sawyer?", "Samuel Clemens", ["Mark Twain"], [(0, "samuel clemens")]),     # his own name
    ("What is the capital of Mizoram?", "Aijal", ["Aizawl"], [(0, "Aijal")]),  # an older spelling (GeoNames has it too)
    ("What is the capital of Mizoram?", "Imphal", ["Aizawl"], []),                            # another city
    ("Who wrote Tom Sawyer?", "Samuel Clemens", ["Samuel Clemens"], []),                      # a reference occurs whole
]


@pytest.mark.parametrize("question,candidate,references,expected", REDIRECTS)
def test_the_shipped_redirects_add_the_names_wikipedia_redirects(question, candidate, references, expected):
    assert in_candidate_form(question, candidate, references) == expected


# a rank in a name written otherwise (`numbered`)
RANKS = [
    ("Which article of the US Constitution vests executive power?", "Article II.", ["Article Two"], [(0, "article ii")]),
    ("Which king had six wives?", "Henry the Eighth", ["Henry VIII"], [(0, "henry eighth")]),
    ("Which king had six wives?", "Henry the Seventh", ["Henry VIII"], []),                 # another rank
    ("Who succeeded Louis XIV?", "Louis 15th.", ["Louis XV"], [(0, "louis 15th")]),
]


@pytest.mark.parametrize("question,candidate,references,expected", RANKS)
def test_a_rank_in_a_name_is_read_in_its_other_forms(question, candidate, references, expected):
    assert in_candidate_form(question, candidate, references) == expected


@pytest.mark.parametrize("name,expected", [
    ("article 2", ["article ii", "article second", "article 2nd"]),
    ("2 1", []),                     # no word of a name
    ("x", []),                       # one word
    ("apollo 17", []),               # past sixteen: no rank read
])
def test_numbered_writes_the_rank_otherwise(name, expected):
    assert numbered(name) == expected


# A name of three words or more written as its initials, in capitals (hand-labelled)
INITIALS = [
    ("Which pathway do cacti use?", "CAM.", ["crassulacean acid metabolism"], [(0, "CAM")]),
    ("Who watches for icebergs?", "The IIP, run by the US Coast Guard.", ["International Ice Patrol"], [(0, "IIP")]),
    ("Which scale?", "The MMI scale.", ["Modified Mercalli intensity scale"], [(0, "MMI scale")]),
    ("Which department?", "The DOE.", ["Department of Energy"], [(0, "DOE")]),       # little words in or out
    ("Which pathway do cacti use?", "The cam.", ["crassulacean acid metabolism"], []),  # a word, not a code
    ("Which pathway do cacti use?", "C4.", ["crassulacean acid metabolism"], []),
    ("Who won it?", "DB.", ["Don Budge"], []),                                        # two letters: too short
]


@pytest.mark.parametrize("question,candidate,references,expected", INITIALS)
def test_initials_in_capitals_name_the_gold(question, candidate, references, expected):
    assert in_candidate_form(question, candidate, references) == expected


# Unicode CLDR's names of countries, languages and currencies in other languages, and their ISO codes, as shipped
CLDR = [
    ("Which four countries founded Mercosur?", "AR, BR, PY and UY.", ["Argentina, Brazil, Paraguay, Uruguay"],
     [(0, "AR, BR, PY, UY")]),                                                               # ISO 3166 alpha-2
    ("What is the currency of Peru?", "PEN", ["Peruvian sol"], [(0, "PEN")]),                  # ISO 4217
    ("What is the currency of Peru?", "a pen", ["Peruvian sol"], []),                          # a code only in capitals
    ("What is the currency of Albania?", "all of them", ["Albanian lek"], []),                 # "ALL" is its code
    ("Which language?", "Avañe'ẽ.", ["Guarani"], [(0, "avañe\u2019ẽ")]),                         # its name for itself
    ("Which country?", "Allemagne", ["Germany"], [(0, "Allemagne")]),                           # French
    ("Which gas?", "CO₂", ["Carbon dioxide"], [(0, "CO2")]),                                   # WordNet's, read NFKC
]


@pytest.mark.parametrize("question,candidate,references,expected", CLDR)
def test_the_shipped_cldr_table_adds_names_in_other_languages_and_codes(question, candidate, references, expected):
    assert in_candidate_form(question, candidate, references) == expected


# GeoNames' names of cities in other languages and scripts, as shipped
PLACES = [
    ("What is the capital of Russia?", "Москва", ["Moscow"], [(0, "Москва")]),
    ("What is the capital of Austria?", "Wien", ["Vienna"], [(0, "Wien")]),
    ("Where does the Tagus meet the sea?", "Lisboa.", ["Lisbon"], [(0, "Lisboa")]),
    ("In which city is the Alhambra?", "Grenada", ["Granada"], []),                        # a country's own name
    ("Which city hosted the 1992 Summer Olympics?", "Barça", ["Barcelona"], []),           # a club, not a city's name
]


@pytest.mark.parametrize("question,candidate,references,expected", PLACES)
def test_the_shipped_places_table_adds_the_names_of_cities_in_other_languages(question, candidate, references,
                                                                              expected):
    assert in_candidate_form(question, candidate, references) == expected


# (candidate, references, what `transliterated` adds): a run of words in another script spelling a reference
TRANSLITERATED = [
    ("Валентина Терешкова.", ["Valentina Tereshkova"], [(0, "Валентина Терешкова")]),
    ("Лев Толстой", ["Leo Tolstoy", "Tolstoy"], [(1, "Толстой")]),                          # "Lev" is not "Leo"
    ("It is Σωκράτης, I think", ["Sokratis"], [(0, "Σωκράτης")]),
    ("Αριστοτέλης", ["Aristotle"], []),                                                     # "Aristotelis": no
    ("Tereshkova, Valentina", ["Valentina Tereshkova"], []),                                # Latin only: no
    ("東京", ["Tokyo"], []),                                                                 # read as Mandarin
]


@pytest.mark.parametrize("candidate,references,expected", TRANSLITERATED)
def test_words_in_another_script_are_read_transliterated(candidate, references, expected):
    assert transliterated(candidate, references) == expected


def test_only_a_short_answer_that_names_nothing_else_is_read_transliterated():
    q, refs = "Who was the first woman in space?", ["Valentina Tereshkova"]
    assert in_candidate_form(q, "Валентина Терешкова.", refs) == [(0, "Валентина Терешкова")]
    long = "It was Валентина Терешкова, in June 1963 aboard Vostok 6, after months of training for it."
    assert in_candidate_form(q, long, refs) == []


# (question, candidate, references, the references the judge adds): a reference of one number, restated otherwise
NUMBERS = [
    ("In what year did the Berlin Wall fall?", "November 9th, '89.", ["1989"], [(0, "November 9th, '89")]),
    ("When was the first iPhone released?", "Two thousand seven.", ["2007"], [(0, "Two thousand seven")]),
    ("How many bones are in the adult skeleton?", "Two hundred and six.", ["206"], [(0, "Two hundred and six")]),
    ("What is normal body temperature?", "98.6 °F.", ["37 °C"], [(0, "98.6 °F")]),            # 37 °C in Fahrenheit
    ("When was Magna Carta sealed?", "MCCXV", ["1215"], [(0, "MCCXV")]),
    ("When was Magna Carta sealed?", "MCCXVI", ["1215"], []),                                 # 1216
    ("How high was it?", "3,000 m (9,070 ft)", ["3,000 m (9,843 ft)"], []),                    # two numbers: not read
    ("When was the first iPhone released?", "Two thousand seven \u2014 it went on sale in the US that June.", ["2007"],
     [(0, "Two thousand seven")]),                                                          # a long answer's opening
    ("How many bones are in the adult skeleton?", "After the fusions of childhood an adult has two hundred and six "
     "of them.", ["206"], []),                                                              # ... not its middle
    ("When was the first iPhone released?", "It went on sale in the US that June of two thousand seven.", ["2007"],
     [(0, "June of two thousand seven")]),                  # a date is read anywhere, as its digits are (`dates`)
]


@pytest.mark.parametrize("question,candidate,references,expected", NUMBERS)
def test_a_gold_number_restated_is_read_in_the_answers_words(question, candidate, references, expected):
    assert in_candidate_form(question, candidate, references) == expected


def test_a_redirect_table_is_bisected_for_every_page_a_name_belongs_to(tmp_path):
    """The format `qascore-lab train aliases --redirects` writes, by hand: a header, one line per page (its names),
    then "folded name<TAB>page line" sorted by the folded name; "ay" redirects to two pages."""
    path = tmp_path / "redirects.tsv.xz"
    with lzma.open(path, "wb") as f:
        f.write(b'{"groups": 3}\nalpha\tay\tthe alpha\nbeta\tbee land\ngamma\tay\n'
                b"alpha\t0\nay\t0\nay\t2\nbee land\t1\nbeta\t1\ngamma\t2\n")
    table = str(path)
    assert redirected("ay", table) == ("alpha", "the alpha", "gamma")
    assert redirected("alpha", table) == ("ay",)                 # "the alpha" folds to the name looked up
    assert redirected("gamma", table) == ("ay",)                 # the last line
    assert [redirected(k, table) for k in ("0", "b", "beta land", "zeta")] == [()] * 4  # before, between, after
    assert in_candidate_form("q?", "Bee land.", ["Beta"], redirects=table) == [(0, "bee land")]


# (candidate, references, what the judge adds): a yes/no gold in the answer's opening words
POLARITY = [
    ("Correct — that war is how it became landlocked.", ["Yes"], [(0, "Correct")]),
    ("That's right, only bats.", ["Yes"], [(0, "That's right")]),
    ("Not at all. Sound needs a medium.", ["No"], [(0, "Not at all")]),
    ("It isn't — primes need exactly two distinct divisors, and 1 has only one of them, itself.", ["No"],
     [(0, "It isn't")]),                                          # 15 words: the opening is read whatever the length
    ("Yep, Spanish.", ["No"], []),                                # the other sense: nothing added
    ("No doubt about it: amoxicillin clears it.", ["No"], []),    # "No doubt about it" is no polarity phrase
    ("Not since December 1991.", ["No"], []),                     # the clause says more than its polarity
    ("Not anymore: Brasilia is.", ["No"], [(0, "Not anymore")]),   # a "no" that says it changed
    ("Correct — it did.", ["Paris"], []),                         # not a yes/no gold
    ("Yes, it did.", ["Yes"], []),                                # the gold occurs
    ("No, it did.", ["No"], []),                                  # ... as its opening
    ("Nope, it has no words.", ["No"], [(0, "Nope")]),            # ... not as its opening: a "no" in passing
    ("Sí.", ["yes"], [(0, "Sí")]),                                # yes and no in other languages (`polarity_words`)
    ("Evet, başkent Ankara.", ["Yes"], [(0, "Evet")]),
    ("Нет, ни разу.", ["No"], [(0, "Нет")]),
    ("Nein — Glas ist amorph.", ["Yes"], []),                     # the other sense
    ("\u2714\ufe0f \u2014 the border runs across the lake.", ["Yes"], [(0, "\u2714\ufe0f")]),  # a mark
    ("Aye, same Belfast yard.", ["yes"], [(0, "Aye")]),
    ("Si.", ["yes"], []),                                         # unaccented "si" is an English noun: not read
]


@pytest.mark.parametrize("candidate,references,expected", POLARITY)
def test_a_yes_no_gold_is_read_in_the_answers_opening_words(candidate, references, expected):
    assert in_candidate_form("Did it?", candidate, references) == expected


def small_table(tmp_path: Path, groups: list[list[str]]) -> str:
    path = tmp_path / "aliases.json.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump({"groups": groups, "folded": [[fold(n) for n in g] for g in groups], "nouns": []}, f)
    return str(path)


def test_a_second_name_that_heads_another_set_is_not_looked_up(tmp_path):
    table = small_table(tmp_path, [["Alpha", "Ay"], ["Beta", "Alpha", "Bee land"]])
    assert synonyms(table) == {"alpha": ("Ay",), "ay": ("Alpha",), "beta": ("Bee land", "Alpha"),
                               "bee land": ("Alpha", "Beta")}
    assert in_candidate_form("q?", "Bee land", ["Alpha"], table) == []
    assert in_candidate_form("q?", "Bee land", ["Beta"], table) == [(0, "Bee land")]


def test_the_longest_synonym_the_answer_names_is_taken(tmp_path):
    table = small_table(tmp_path, [["Gamma", "Big Gam", "Gam"]])
    assert in_candidate_form("q?", "It is Big Gam.", ["Gamma"], table) == [(0, "Big Gam")]
    assert in_candidate_form("q?", "It is Gam.", ["Gamma"], table) == [(0, "Gam")]


def test_items_of_a_listed_reference_are_rewritten_one_by_one(tmp_path):
    table = small_table(tmp_path, [["Gamma", "Gee"], ["Delta", "Dee"]])
    assert in_candidate_form("q?", "Gee and Delta", ["Gamma and Delta"], table) == [(0, "Gee, Delta")]
    assert in_candidate_form("q?", "Gee or Dee", ["Gamma or Delta"], table) == []  # an "or" is no list


# (candidate, references, known_other): the tables as shipped (WordNet 3.0, the redirects, CLDR, GeoNames)
KNOWN_OTHER = [
    ("It's *Amanita muscaria*.", ["Amanita phalloides"], 1.0),  # two species; the genus alone is shared
    ("Nimrud (ancient Kalhu).", ["Nineveh"], 1.0),               # the aside in brackets set aside
    ("Capers.", ["cloves"], 1.0),                                # plurals read as WordNet's singulars
    ("Osmium, at a little over 3,000 °C.", ["Tungsten"], 1.0),  # the opening clause of a longer answer
    ("Answer: Perl", ["Python"], 1.0),                           # after a label
    ("Imphal", ["Aizawl"], 1.0),                                 # two cities GeoNames knows
    ("Corundum.", ["Topaz"], 1.0),                               # two minerals, two WordNet senses
    ("Ir", ["Fe"], 1.0),                                         # a code this short: only as the whole answer
    ("Ir, I think.", ["Fe"], 0.0),
    ("NT", ["Northern Territory"], 0.0),                         # the gold's initials
    ("Hex.", ["Hexadecimal"], 0.0),                              # the start of its one word
    ("Hammer", ["Malleus"], 0.0),                                # {malleus, hammer}: one WordNet sense
    ("Nethou.", ["Aneto"], 0.0),                                 # a redirect to the gold's page
    ("Caernarvon", ["Caernarfon"], 0.0),                         # the gold spelled otherwise
    ("Tigers", ["Tiger"], 0.0),                                  # every word shares a stem
    ("Twain", ["Mark Twain"], 0.0),
    ("They're called creances.", ["Jesses"], 0.0),               # a word no table knows
    ("Yes.", ["No"], 0.0),                                       # yes/no, numbers and lists: other features
    ("1066", ["1067"], 0.0),
    ("Italy", ["France and Spain"], 0.0),
    ("Opponent: the Italian army under General Oreste Baratieri", ["Menelik II"], 0.0),  # no name: too long
]


@pytest.mark.parametrize("candidate,references,expected", KNOWN_OTHER)
def test_an_opening_the_tables_know_as_another_thing(candidate, references, expected):
    assert known_other(candidate, references) == expected


@pytest.mark.parametrize("word,forms", [
    ("viii", ["8", "eighth", "8th"]),
    ("2", ["ii", "second", "2nd"]),
    ("14th", ["xiv", "14", "fourteenth"]),
    ("eleventh", ["xi", "11", "11th"]),
    ("17", []),                       # past sixteen
    ("mix", []),                      # a word, not a numeral
])
def test_a_rank_is_written_three_more_ways(word, forms):
    assert rank_forms(word) == forms
