"""The judge's lexical signals: tables of inputs and hand-checked outputs."""

import pytest

from qascore.text import answer_match as am
from qascore.text.answer_match import Reading


@pytest.mark.parametrize("text, folded", [
    ("Château d’If", "chateau dif"),
    ("Chateau d'If", "chateau dif"),
    ("J.M.W. Turner's works", "jmw turner works"),
    ("The Great Barrier Reef", "great barrier reef"),
    ("  ", ""),
    ("3.6 km", "3\u066b6 km"),                         # a decimal point stays: "3.6" is not "36"
    ("−40 degrees, 12-18", "\u221240 degrees 1218"),    # a minus sign stays; a range's dash goes
])
def test_fold(text, folded):
    assert am.fold(text) == folded


@pytest.mark.parametrize("candidate, refs, expected", [
    ("It was built to house J.M.W. Turner’s works.", ["J.M.W. Turner"], 1.0),
    ("Edmond Dantès was held in the Château d’If.", ["Isle of If", "Chateau d'If"], 1.0),
    ("Turnerian painting", ["Turner"], 0.0),            # whole words only
    ("anything", [""], 0.0),                            # an empty reference never matches
    ("", ["Paris"], 0.0),
    ("3.6", ["36"], 0.0),                               # numbers, not digit strings
    ("40", ["−40"], 0.0),
    ("It is -40 degrees.", ["−40"], 1.0),
])
def test_contains(candidate, refs, expected):
    assert am.contains(candidate, refs) == expected


@pytest.mark.parametrize("candidate, refs, expected", [
    ("Vince and Dom DiMaggio", ["Dom & Vincent"], 0.5),   # "dom" of {"dom", "vincent"}; "&" is dropped
    ("Gregor Mendel's work", ["Gregor Johann Mendel", "Mendel"], 1.0),
    ("the cat sat", ["cat cat"], 0.5),                  # multiplicity counts
    ("x", [], 0.0),
])
def test_token_recall(candidate, refs, expected):
    assert am.token_recall(Reading("", candidate, refs)) == pytest.approx(expected)


# Each row: two folded words and whether they are spellings of one name (hand-labelled).
@pytest.mark.parametrize("a, b, expected", [
    ("kevin", "keven", True),                      # one edit, five letters
    ("superintendent", "superintendant", True),
    ("collarbone", "collarbones", True),          # a plural
    ("anchovy", "anchovies", False),              # two edits, not a plain plural
    ("austria", "australia", False),               # two edits
    ("iran", "iraq", False),                       # shorter than NEAR_LETTERS
    ("1968", "1969", False),                       # numbers are never near
    ("kevin", "devin", False),                     # another first letter
    ("paris", "paris", True),
])
def test_near(a, b, expected):
    assert am.near(a, b) is expected and am.near(b, a) is expected


@pytest.mark.parametrize("candidate, refs, expected", [
    ("The answer is Collarbones.", ["Clavicles", "Collar-bone"], 1.0),
    ("The answer is Superintendant.", ["Superintendent (disambiguation)"], 0.5),
    ("Austria", ["Australia"], 0.0),
    ("the cat sat", ["cat cat"], 0.5),             # multiplicity counts, as in token_recall
    ("x", [], 0.0),
])
def test_near_recall(candidate, refs, expected):
    assert am.near_recall(Reading("", candidate, refs)) == expected


@pytest.mark.parametrize("question, number", [
    ("How many moons does Mars have?", 1.0),
    ("In what year did the war end?", 1.0),
    ("When was the treaty signed?", 1.0),
    ("Who painted the Mona Lisa?", 0.0),
    ("What is the capital of France?", 0.0),
])
def test_wants_number(question, number):
    assert am.wants_number(question) == number


@pytest.mark.parametrize("candidate, number", [
    ("It ended in 1945.", 1.0),
    ("Two moons.", 1.0),
    ("It was painted by Leonardo da Vinci.", 0.0),
    ("no idea", 0.0),
])
def test_has_number(candidate, number):
    assert am.has_number(candidate) == number


@pytest.mark.parametrize("text, expected", [
    ("It cost 1,100 dollars.", {"1100"}),             # a thousands comma
    ("in the 1960s and the 19th century", {"1960", "19"}),
    ("3.50 or 07", {"3.5", "7"}),                    # trailing decimal zeros, leading zeros
    ("2,5 kg", {"2.5"}),                             # a decimal comma
    ("one hundred", set()),                          # number words are not read
])
def test_numbers(text, expected):
    assert am.numbers(text) == expected


@pytest.mark.parametrize("question, candidate, references, expected", [
    ("When did Apollo 11 land?", "Apollo 11 landed on the Moon in 1968.", ["1969", "July 20, 1969"], 1.0),
    ("When did Apollo 11 land?", "On 20 July 1969, watched by 600 million.", ["1969", "July 20, 1969"], 0.0),
    ("When did it land?", "In 1969, watched by 600 million.", ["July 20, 1969"], 0.5),  # 20 missing
    ("When did it land?", "In 1969.", ["July 20, 1969"], 0.0),      # no number beyond the gold's
    ("On what date did it land?", "In 1969.", ["July 20, 1969"], 0.5),  # the date asked: the day lacked
    ("On what date did it land?", "July 1969.", ["July 20, 1969"], 0.5),
    ("On what date did the Wall fall?", "On 09.11.1989.", ["9 November 1989"], 0.0),  # a day, in either order
    ("On what date is Bastille Day?", "july 14th", ["14 July"], 0.0),  # the day's number named
    ("What range?", "It was 12-15 degrees.", ["12-18 degrees"], 0.5),
    ("When?", "1756.", ["1768", "one thousand, seven hundred and sixty-eight"], 1.0),
    ("Who?", "Paris in 1900", ["Marie Curie"], 0.0),                # no gold number to miss
    ("In 1985, which ship?", "The Calcuta, in 1985.", ["Achille Lauro"], 0.0),
    ("How many in 1985?", "12 in 1985.", ["14"], 1.0),              # the question's 1985 is not the answer's
    ("How fast is light?", "About 300,000 km/s.", ["299,792 kilometers per second"], 0.0),  # rounded
    ("What is pi?", "Approximately 3.14", ["3.141592653589793"], 0.0),
    ("Circumference?", "40,075 km (24,901 mi)", ["24,900 miles"], 0.0),  # the gold is the rounded one
    ("When?", "In 1970.", ["1969"], 1.0),                           # one trailing zero is not a rounding
    ("How long do cats live?", "15 years", ["13 to 17 years"], 0.0),  # inside the gold range
    ("Body temperature?", "Between 36.5 and 37.5 degrees", ["37 degrees"], 0.0),  # the gold inside its range
    ("Who?", "Tiger Woods, 906 weeks in the top 10", ["Tiger Woods", "Ashes (2010 film)"], 0.0),  # holds gold
    ("How far is the Moon?", "Roughly 238,900 miles.", ["384,400 km"], 0.0),  # another unit (`quantities`)
    ("How far is the Moon?", "About 300 km.", ["384,400 km"], 1.0),
    ("At what temperature does water boil?", "90 degrees Celsius.", ["100 °C"], 1.0),  # "100" is exact, not 50-150
    ("At what temperature does water boil?", "About 100.", ["90 °C"], 1.0),
    ("At what temperature does water boil?", "At 212 °C.", ["212 °F"], 1.0),  # the gold's figure, another unit
    ("When did the USSR dissolve?", "26 December '91.", ["1991"], 0.0),
    ("When did James Dean die?", "He was killed in the crash on May 5, 1955.",
     ["The death of James Dean in a car crash in 1955 turned the 24-year-old star into a legend."], 0.0),  # a sentence
])
def test_number_miss(question, candidate, references, expected):
    assert am.number_miss(Reading(question, candidate, references)) == expected


@pytest.mark.parametrize("question, expected", [
    ("who wrote hamlet", "who wrote hamlet?"),                   # NQ / WikiQA / MS MARCO query
    ("  how many moons does mars have  ", "how many moons does mars have?"),
    ("what is the boiling point of water (celsius)", "what is the boiling point of water (celsius)?"),
    ("who wrote hamlet?", "who wrote hamlet?"),                  # already a question
    ("Who wrote Hamlet", "Who wrote Hamlet"),                    # a capital: written prose, left alone
    ("name the first man on the moon.", "name the first man on the moon."),  # closing punctuation kept
    ('"how many planets are there?"', '"how many planets are there?"'),
    ("", ""),
])
def test_as_question(question, expected):
    assert am.as_question(question) == expected


@pytest.mark.parametrize("candidate, expected", [
    ("**Answer:** Paris", "Paris"),
    ("The capital of France is **Paris**.", "The capital of France is Paris."),
    ("Final answer: `42`", "42"),
    ("short ANSWER : yes", "yes"),
    ("## Summary\n- Suranne Jones\n* Lesley Sharp\n+ a third", "Summary\nSuranne Jones\nLesley Sharp\na third"),
    ("1. Suranne Jones\n2. Lesley Sharp", "Suranne Jones\nLesley Sharp"),
    ("1995. That was the year.", "1995. That was the year."),   # a year is not a list mark
    ("Oxygen (O\n2) is toxic", "Oxygen (O\n2) is toxic"),       # nor is "2)" after a line break
    ("The answer: yes", "The answer: yes"),                      # a label only where the text opens with it
    ("a - b * c", "a - b * c"),                                  # marks inside a line stay
    ("1. **Sydney** (correct)\n2. Canberra", "Sydney (correct)\nCanberra"),  # a verdict is the item's text here
    ("39. Catholic Bibles count 46.", "39. Catholic Bibles count 46."),  # one numbered line: the answer, no list
    ("", ""),
])
def test_undressed(candidate, expected):
    assert am.undressed(candidate) == expected


# Each row: a candidate and the item it commits to, read as the judge does, after `undressed` (None: not a list
# that gives every item a verdict).
@pytest.mark.parametrize("candidate, expected", [
    ("Sydney (correct)\nCanberra (incorrect)", "Sydney"),
    ("- Canberra: wrong\n- Sydney: right", "Sydney"),
    ("Correct: Sydney\nIncorrect: Canberra", "Sydney"),
    ("\u2705 Sydney\n\u274c Canberra", "Sydney"),
    ("Sydney \u2714\ufe0f / Canberra \u2716\ufe0f", "Sydney"),
    ("Candidate answers:\n* Canberra - incorrect\n* Sydney - correct", "Sydney"),  # a heading line is skipped
    ("| Answer | Correct? |\n|---|---|\n| Canberra | No |\n| Sydney | Yes |", "Sydney"),  # header row skipped
    ("Canberra (wrong), Sydney (right).", "Sydney"),
    ("True answer: Sydney. False answer: Canberra.", "Sydney"),
    ("P. Terentius Afer \u2714 / Seneca \u2716", "P. Terentius Afer"),  # an initial is not a sentence end
    ("| Country | Capital |\n|---|---|\n| Australia | Canberra |", None),  # cells that are not verdicts
    ("Sydney (correct)\nCanberra (correct)", None),             # two marked right: no single commitment
    ("Sydney (correct)\nCanberra", None),                       # an item without a verdict
    ("Canberra: correct", None),                                 # one item is not a list
    ("Washington, D.C. (correct)\nNew York (wrong)", "Washington, D.C."),
    ("The answer is Canberra.", None),
    ("", None),
])
def test_committed(candidate, expected):
    assert am.committed(am.undressed(candidate)) == expected


# Each row: a candidate and the item it picks by label from a list it offers (None: no pick).
@pytest.mark.parametrize("candidate, expected", [
    ("Option 1: Sydney. Option 2: Canberra. I'd go with option 2.", "Canberra"),
    ("Option A: Canberra / Option B: Sydney / I pick B.", "Sydney"),
    ("Two candidates: (a) Canberra, (b) Sydney. My pick is (a).", "Canberra"),
    ("a) Paris\nb) Lyon\nAnswer: b", "Lyon"),
    ("Option one: Paris. Option two: Lyon. Option two is correct.", "Lyon"),
    ("Sydney or Canberra? The latter.", None),                     # a pick by place is not read
    ("I'd go with option 3.", None),                               # a label no item has
    ("I'd say D-Day.", None),
    ("The answer is Canberra.", None),
    ("", None),
])
def test_picked(candidate, expected):
    assert am.picked(candidate) == expected


# Each row: a candidate and what it settles on after taking something back (None: nothing taken back).
@pytest.mark.parametrize("candidate, expected", [
    ("Six. Wait, no: eight.", "eight."),
    ("Canberra? Actually, no. Sydney.", "Sydney."),
    ("I first said Sydney. No, that's wrong. The answer is Canberra.", "The answer is Canberra."),
    ("Sydney, or rather Canberra.", "Canberra."),
    ("Sydney - scratch that, Canberra.", "Canberra."),
    ("Sydney, no wait, Canberra.", "Canberra."),
    ("Sydney. Correction: Canberra.", "Canberra."),               # a correction label
    ("First answer: Sydney. Corrected answer: Canberra.", "Canberra."),
    ("Sydney. Sorry, I meant Canberra.", "Canberra."),            # "I meant" starts the new answer
    ("Sydney... I mean Canberra.", "Canberra."),
    ("It's Sydney - just kidding, it's Canberra.", "it's Canberra."),
    ("It's Sydney. Hold on, that's not right. It's Canberra.", "It's Canberra."),  # filler before the rejection
    ("I said Sydney earlier, but I was wrong; it's Canberra.", "it's Canberra."),
    ("Sydney? That's a common myth. The real answer is Canberra.", "The real answer is Canberra."),
    ("Hmm, Sydney. Nope, Canberra.", "Canberra."),
    ("Shakespeare. I mean, who else could it be?", None),          # "I mean" with no answer after it
    ("Sydney. No, that's wrong. It's Canberra.", "It's Canberra."),  # "no" and "that's wrong": one take-back
    ("Canberra. No, not Sydney.", None),                          # "no" stresses: what follows negates another
    ("Sydney... no, sorry, Canberra.", "Canberra."),             # filler after the take-back is not the answer
    ("Sydney? No, not Sydney. Canberra.", "not Sydney. Canberra."),  # after a question, "no" answers it
    ("Possibly Sydney, but more likely Canberra.", "Canberra."),   # a choice among what the clause before offers
    ("It could be Sydney, but I think it's probably Canberra.", "Canberra."),
    ("I was torn between Sydney and Canberra, and I'm going with Canberra.", "Canberra."),
    ("Sydney is possible, but my answer is Canberra.", "Canberra."),
    ("Sydney was the first capital, but most likely it is Canberra now.", None),  # nothing offered before
    ("Possibly Canberra, though it could also be Sydney.", None),  # a hedge, no choice
    ("It is Canberra, probably.", None),
    ("As of January 2016[update], the largest known prime has 22,338,618 digits.", None),  # a word, not a label
    ("No, it was Canberra.", None),                               # nothing before the "no" to take back
    ("Sydney. (I considered Canberra, but ruled it out.)", None),  # nothing after the rejection
    ("It is Canberra. That's not wrong.", None),
    ("The legend says the red of Bahrain's flag faded in the sun into the maroon of Qatar's flag. However, "
     "this is not true. Qatar's flag dates from 1971.", None),    # a long clause is not an answer taken back
    ("", None),
])
def test_self_correction_settles_on(candidate, expected):
    parts = am.self_correction(candidate)
    assert (parts[2] if parts else None) == expected


# Each row: an undressed candidate, its references, what the judge's models read (`settled`).
@pytest.mark.parametrize("candidate, references, expected", [
    ("Sydney? No, it's Canberra.", ["Canberra"], "it's Canberra."),    # a wrong name taken back
    ("Canberra? No, it's Sydney.", ["Canberra"], "it's Sydney."),      # the gold taken back
    ("It's Canberra. Some say Sydney, but that's wrong. Hope this helps.", ["Canberra"],
     "It's Canberra. Some say Sydney, but that's wrong. Hope this helps."),  # the gold stands before: whole
    ("Final answer: Hong Kong, China Some say Macau, but that's wrong.", ["Hong Kong, China"],
     "Final answer: Hong Kong, China Some say Macau, but that's wrong."),  # a reference across the clauses: whole
    ("Canberra (correct)\nSydney (incorrect)", ["Canberra"], "Canberra"),
    ("Sydney (correct)\nCanberra (incorrect)", ["Canberra"], "Sydney"),  # the item marked right, gold or not
    ("Option 1: Canberra. Option 2: Sydney. I'd go with option 2.", ["Canberra"], "Sydney"),  # the item picked
    ("Possibly Canberra, but more likely Sydney.", ["Canberra"], "Sydney."),  # the gold not chosen
    ("The capital is Canberra.", ["Canberra"], "The capital is Canberra."),
    # against a yes/no gold a "no" is the answer, not a take-back: the whole answer is read
    ("Madagascar grows most of it, but no: vanilla is native to Mexico.", ["No"],
     "Madagascar grows most of it, but no: vanilla is native to Mexico."),
    ("Madagascar grows most of it, but no: vanilla is native to Mexico.", ["Mexico"], "vanilla is native to Mexico."),
])
def test_settled(candidate, references, expected):
    assert am.settled(candidate, references) == expected


# Each row: a candidate, where it reopens what it said (the judge's learned reading), what the models read.
@pytest.mark.parametrize("candidate, at, expected", [
    ("Hobart. Thinking it over, Launceston.", 8, "Thinking it over, Launceston."),  # away from the gold
    ("Launceston. Thinking it over, Hobart.", 12, "Thinking it over, Hobart."),     # to the gold
    ("Hobart. Thinking it over, yes, Hobart.", 8, "Hobart. Thinking it over, yes, Hobart."),  # both sides: whole
    ("Launceston. Thinking it over, Devonport.", 12, "Launceston. Thinking it over, Devonport."),  # neither: whole
    ("Launceston? No, Hobart. Thinking it over, Devonport.", 24, "Hobart. Thinking it over, Devonport."),  # take-back first
])
def test_settled_after_a_reopening(candidate, at, expected):
    assert am.settled(candidate, ["Hobart"], at) == expected


# Each row: a candidate, the references, whether every mention of a gold answer is disowned (hand-labelled).
@pytest.mark.parametrize("candidate, references, expected", [
    ("It is Sydney, not Canberra.", ["Canberra"], 1.0),
    ("It is Canberra, not Sydney.", ["Canberra"], 0.0),
    ("The capital of Australia is Sydney. Many people assume it is Canberra, but that is a misconception.",
     ["Canberra"], 1.0),
    ("Many people think it is Sydney, but it is actually Canberra.", ["Canberra"], 0.0),
    ("Canberra is not the answer; the answer is Sydney.", ["Canberra"], 1.0),
    ("It isn't Canberra. It's Sydney.", ["Canberra"], 1.0),
    ("It was never Canberra; it is Sydney.", ["Canberra"], 1.0),
    ("Although Canberra is often suggested, the answer is Sydney.", ["Canberra"], 1.0),
    ("Sydney. Some sources wrongly give Canberra.", ["Canberra"], 1.0),
    ("Canberra. Some sources wrongly give Sydney.", ["Canberra"], 0.0),
    ("Not Sydney or Melbourne: it is Canberra.", ["Canberra"], 0.0),
    ("While some say Sydney, the correct answer is Canberra.", ["Canberra"], 0.0),
    ("No, it was Canberra.", ["Canberra"], 0.0),              # "no" opens the answer; it negates nothing
    ("The capital is Canberra.", ["Canberra"], 0.0),
    ("Correct: Sydney\nIncorrect: Canberra", ["Canberra"], 1.0),  # a list that labels its items
    ("Correct: Canberra\nIncorrect: Sydney", ["Canberra"], 0.0),
    ("Sydney. Some people mention Canberra, but that's not correct.", ["Canberra"], 1.0),
    ("Sydney. Canberra is often named, but it only hosts the parliament.", ["Canberra"], 1.0),
    ("It's usually listed as Canberra, but the real seat is Sydney.", ["Canberra"], 1.0),
    ("It is often described as Canberra, but Sydney is the answer.", ["Canberra"], 1.0),
    ("Canberra. Sydney is often named, but it is only the largest city.", ["Canberra"], 0.0),
    ("Although many quizzes give Canberra, it is actually Sydney.", ["Canberra"], 1.0),
    ("Sydney. Note: Canberra is a frequent wrong guess.", ["Canberra"], 1.0),
    ("Canberra. Note: Sydney is a common wrong answer.", ["Canberra"], 0.0),
    ("Canberra\n\n*Note:* Sydney is a frequent wrong guess.", ["Canberra"], 0.0),  # a line is a clause
    ("\u2705 Sydney\n\u274c Canberra", ["Canberra"], 1.0),          # a cross marks the item wrong
    ("\u2705 Canberra\n\u274c Sydney", ["Canberra"], 0.0),
    ("Canberra? No, it's Sydney.", ["Canberra"], 1.0),         # the next clause rejects it
    ("Sydney. (I considered Canberra, but ruled it out.)", ["Canberra"], 1.0),
    ("Sydney. Canberra comes up in some sources, though that seems to be a mix-up.", ["Canberra"], 1.0),
    ("It is Canberra. That's not wrong.", ["Canberra"], 0.0),
    ("8 (some say 6)", ["8"], 0.0),                            # a bracket closes a clause: the aside attributes 6 only
    ("6 (some say 8)", ["8"], 1.0),
    ("It is Sydney [not Canberra]", ["Canberra"], 1.0),
    ("Although Bok (crater) is often suggested, it is Cortina.", ["Bok (crater)"], 1.0),  # a reference's own brackets
    ("Canberra? Actually no, Sydney.", ["Canberra"], 1.0),     # "actually no" rejects it too
    ("Shakespeare, although some credit Marlowe.", ["Shakespeare"], 0.0),
    ("Although it is credited to Shakespeare, Marlowe wrote it.", ["Marlowe"], 0.0),
    ("Sydney (correct)\nCanberra (incorrect)", ["Canberra"], 1.0),  # a verdict after the item
    ("Canberra (correct)\nSydney (incorrect)", ["Canberra"], 0.0),
    ("| Answer | Correct? |\n|---|---|\n| Canberra | No |\n| Sydney | Yes |", ["Canberra"], 1.0),  # a verdict cell
    ("| Answer | Correct? |\n|---|---|\n| Sydney | No |\n| Canberra | Yes |", ["Canberra"], 0.0),
    ("* Canberra - wrong\n* Sydney - right", ["Canberra"], 1.0),  # a spaced dash closes a clause
    ("Sydney \u2713\nCanberra \u2717", ["Canberra"], 1.0),       # a cross after the item
    ("Canberra \u2713\nSydney \u2717", ["Canberra"], 0.0),
    ("Canberra? Actually, no. Sydney.", ["Canberra"], 1.0),    # filler between the item and its rejection
    ("Canberra. Well, it is the capital.", ["Canberra"], 0.0),  # filler, then no rejection
    ("Hong Kong - China is the answer.", ["Hong Kong - China"], 0.0),  # a reference's own dash
    ("Rome. Chopin \u2013 The Women is a popular misconception.", ["Chopin \u2013 The Women"], 1.0),  # en dash
    ("Canberra is not the only name people give, but it is the answer.", ["Canberra"], 0.0),  # not a denial
    ("Canberra isn't just a city; it is the capital.", ["Canberra"], 0.0),
    ("Canberra, or rather Sydney.", ["Canberra"], 1.0),        # taken back by what follows
    ("Sydney, or rather Canberra.", ["Canberra"], 0.0),
    ("Canberra - scratch that, Sydney.", ["Canberra"], 1.0),
    ("Canberra. Correction: Sydney.", ["Canberra"], 1.0),        # a correction label takes it back
    ("Canberra. Sorry, I meant Sydney.", ["Canberra"], 1.0),
    ("Canberra? That's a popular misconception. It's Sydney.", ["Canberra"], 1.0),
    ("Most people would say Canberra, and they'd be right.", ["Canberra"], 0.0),  # an attribution agreed with
    ("Canberra. No, not Sydney.", ["Canberra"], 0.0),           # "no" stresses Canberra
    ("Canberra? No, not Canberra. Sydney.", ["Canberra"], 1.0),   # "no" answers the question
    ("Most people would say Canberra, but it's Sydney.", ["Canberra"], 1.0),
    ("You'd think Canberra, but it's Sydney.", ["Canberra"], 1.0),   # an attribution to the reader
    ("Sydney. You'll sometimes see Canberra, but that is the capital.", ["Canberra"], 1.0),
    ("Canberra. You'll sometimes see Sydney, but that is the largest city.", ["Canberra"], 0.0),
    ("In Canberra you'll see the parliament.", ["Canberra"], 0.0),  # "you'll see" alone attributes nothing
    ("Paris", ["Canberra"], 0.0),                              # no mention: nothing disowned
    ("", ["Canberra"], 0.0),
])
def test_disowned(candidate, references, expected):
    assert am.disowned(Reading("", candidate, references)) == expected


@pytest.mark.parametrize("candidate, references, expected", [
    ("Canberra or Sydney.", ["Canberra"], 1.0),                # a bare list: gold and another
    ("It's Sydney / Canberra", ["Canberra"], 1.0),
    ("Canberra (or Sydney)", ["Canberra"], 1.0),
    ("Canberra/Sydney", ["Canberra"], 1.0),
    ("Myanmar (or Burma)", ["Myanmar", "Burma"], 0.0),         # every item is gold: aliases
    ("Myanmar (or Burma)", ["Myanmar"], 1.0),                  # an alias the references lack reads as a hedge
    ("Sydney or Melbourne", ["Canberra"], 0.0),                # no item names the gold: nothing hedged
    ("Rock or Pop", ["Rock or Pop"], 0.0),                     # the reference is itself "A or B"
    ("AC/DC", ["AC/DC"], 0.0),
    ("110/70 mmHg", ["110"], 0.0),                             # a slash between numbers is not a list
    ("Canberra, Australia", ["Canberra"], 0.0),                # a comma alone is not a list
    ("Canberra.", ["Canberra"], 0.0),
    ("The capital is Canberra, which was chosen over Sydney or Melbourne.", ["Canberra"], 0.0),  # prose
    ("Canberra\nor Sydney", ["Canberra"], 0.0),               # a line break: not a bare list
    ("Canberra or Sydney.", [], 0.0),                          # no references: nothing is gold
    ("Around 1912 or 1913.", ["1912"], 1.0),                   # an estimate's list
    ("Probably Vivaldi or Corelli.", ["Vivaldi"], 1.0),
    ("Au or Ag, I always mix them up.", ["Au"], 1.0),          # a note that names no item
    ("1912 or 1913; not sure which.", ["1912"], 1.0),
    ("Au or Ag, but Au is right.", ["Au"], 0.0),               # the note names an item: it chooses
    ("Au or Ag, a question that comes up in every chemistry class I have taught.", ["Au"], 0.0),  # a long note
    ("In 1912, or so I read.", ["1912"], 0.0),                 # "or" inside the note: no list before it
    ("Vivaldi or Corelli.", ["Antonio Vivaldi"], 1.0),         # part of a gold name, in capitals
    ("Da Vinci or Raphael.", ["Leonardo da Vinci"], 1.0),
    ("magma or lava", ["magma or lava flows"], 0.0),           # part of a phrase, not of a name
    ("Designer or Architect.", ["Architect and designer"], 0.0),
    ("Probably Einstein, or maybe Max Planck.", ["Albert Einstein", "Einstein"], 1.0),  # a hedge word per item
])
def test_bare_list(candidate, references, expected):
    assert am.bare_list(Reading("", candidate, references)) == expected


@pytest.mark.parametrize("candidate, items", [
    ("Canberra or Sydney.", ["Canberra", "Sydney"]),
    ("The answer is Canberra (or Sydney).", ["Canberra", "Sydney"]),
    ("Canberra / Sydney / Perth", ["Canberra", "Sydney", "Perth"]),
    ("It is Canberra, the capital", []),
    ("Canberra or the federal capital territory of Australia itself", []),   # an item of more than 5 words
    ("in isolation (or Beringia)", ["in isolation", "Beringia"]),  # the plain reading first: "in" stays
    ("Hess, Rudolf or Lee Ang.", ["Hess, Rudolf", "Lee Ang"]),     # a comma inside an item
    ("4 °C or below.", []),                                        # a bound, not a second answer
    ("A fortnight or so.", []),
    ("1900 or Under-23.", ["1900", "Under-23"]),
    ("More or less.", ["More", "less"]),
])
def test_listed(candidate, items):
    assert am.listed(candidate) == items


@pytest.mark.parametrize("candidate, items", [
    ("Sometime in 1969 or 1970, roughly.", ["1969", "1970"]),       # estimate words and a note
    ("Probably Vivaldi or Corelli; I always mix them up.", ["Vivaldi", "Corelli"]),
    ("Vivaldi or Corelli, but Vivaldi wrote it.", []),              # the note names an item
    ("Canberra or Sydney.", ["Canberra", "Sydney"]),
])
def test_listed_hedged(candidate, items):
    assert am.listed(candidate, hedged=True) == items


@pytest.mark.parametrize("question, candidate, references, expected", [
    ("On what date did the Berlin Wall fall?", "1989.", ["9 November 1989"], 1.0),      # a year for the date asked
    ("On what date did the Berlin Wall fall?", "In November 1989.", ["9 November 1989"], 1.0),
    ("On what date did the Berlin Wall fall?", "November 9, 1989.", ["9 November 1989"], 0.0),
    ("When did the Berlin Wall fall?", "1989.", ["9 November 1989"], 0.0),               # "when" takes a year
    ("How tall is Menara?", "Somewhere between 80 and 110 metres.", ["100.8 metres"], 1.0),  # a range brackets it
    ("How long was the Titanic?", "Over 250 metres.", ["269 m"], 1.0),                    # a bound brackets it
    ("How many stars are on the flag?", "More than 20.", ["27"], 1.0),
    ("How many stars are on the flag?", "Fewer than 20.", ["27"], 0.0),                    # a bound at odds: a miss
    ("What is body temperature?", "Between 36.5 and 37.5 degrees.", ["37 degrees"], 0.0),  # narrower than 5%
    ("How long was the Titanic?", "269 m, so well over 250 m.", ["269 m"], 0.0),           # the gold is stated
    ("How long was the Titanic?", "About 882 feet, over 250 metres.", ["269 m", "882 feet"], 0.0),
    ("What band does FM radio use?", "87.5 to 108 MHz.", ["87.5-108 MHz"], 0.0),          # the gold is a range
    ("When did Cyprus become independent?", "In the early 1960s.", ["1960"], 1.0),        # the gold year's decade
    ("When did Cyprus become independent?", "In 1960, early in the 1960s.", ["1960"], 0.0),  # the year said too
    ("When did rock and roll emerge?", "The 1950s.", ["the late 1950s"], 0.0),            # the gold is a decade
])
def test_imprecise(question, candidate, references, expected):
    assert am.imprecise(Reading(question, candidate, references)) == expected



@pytest.mark.parametrize("candidate, references, expected", [
    ("The textbook line is 'no, it's the men', but in practice, yes, it's the women.", ["No"], 1.0),  # quoted
    ("You'll read \u201cyes\u201d in popular histories, but strictly speaking it wasn't.", ["Yes"], 1.0),
    ("The answer is yes for Bulgaria and Romania, but Albania joined a year later.", ["Yes"], 1.0),  # said of others
    ("No. You may have heard 'yes', but it drives on the right.", ["No"], 0.0),         # its own "No" stands
    ("Yes, for the most part.", ["Yes"], 0.0),                                          # "Yes," is its polarity
    ("The answer is 'yes' for Bulgaria.", ["No"], 0.0),                                 # no reference named
    ("Not 'Paris' but Lyon.", ["Paris"], 0.0),                                          # yes/no references only
    ("No doubt about it: it was founded in Detroit.", ["No"], 1.0),                     # "no" as a determiner
    ("No two are alike, and the spots are there at birth.", ["No"], 1.0),
    ("Yes, you'll get no output without phantom power.", ["No"], 1.0),
    ("No it isn't.", ["No"], 0.0),                                                      # an answer's "no", no comma
    ("No way, it's in Chicago.", ["No"], 0.0),
    ("No\nIt is in Chicago.", ["No"], 0.0),                                             # a line of its own
])
def test_polarity_aside(candidate, references, expected):
    assert am.polarity_aside(Reading("Was it?", candidate, references)) == expected
