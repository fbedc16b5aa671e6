"""`names.name_clash`: a candidate naming something else that shares a word with the gold (hand-written table)."""

from __future__ import annotations

import pytest

from qascore.text.answer_match import Reading
from qascore.text.names import name_clash, same_word

CLASHES = [  # (question, candidate, references, clash)
    ("Who was the first US president?", "George Bush", ["George Washington"], 1),
    ("Who was the first US president?", "The first president was George Bush, who served two terms.",
     ["George Washington", "Washington"], 1),
    ("Who first walked on the Moon?", "Louis Armstrong", ["Neil Armstrong"], 1),
    ("Which king had six wives?", "Henry VII", ["Henry VIII"], 1),
    ("Which test detects pregnancy?", "HCG Test", ["Human Chorionic Gonadotropin Test"], 0),  # initials of its words
    ("Which test detects pregnancy?", "HPV Test", ["Human Chorionic Gonadotropin Test"], 1),
    ("What is the nickname of the Merchant Navy's flag?", "The Merchant Navy's flag is known as the Red Ensign.",
     ["Red Duster", "The Red Duster"], 1),
    ("What does FBI stand for?", "Federal Agency of Inquiry", ["Federal Bureau of Investigation"], 1),
    ("Which city?", "New Paltz", ["New Rochelle"], 1),
    ("Which queen?", "Queen Victoria", ["Queen Elizabeth II"], 1),
    ("Which country?", "United Kingdom", ["United States"], 1),
    ("Which lab?", "The Thomas Edison National Historical Park in West Orange.", ["Menlo Park"], 1),
    # leaving a word out, adding one that contradicts nothing, or spelling it otherwise is no clash
    ("Who was the first US president?", "Washington", ["George Washington"], 0),
    ("Who was the 35th president?", "John Fitzgerald Kennedy", ["John F. Kennedy"], 0),
    ("Who was the 35th president?", "John Kennedy", ["John F. Kennedy"], 0),
    ("Who discovered penicillin?", "Sir Alexander Fleming", ["Alexander Fleming"], 0),
    ("Who was president in 2010?", "Barack Obama", ["President Obama"], 0),
    ("What is the tallest mountain?", "Mt. Everest", ["Mount Everest"], 0),
    ("What is the capital of Germany?", "Berlin, Germany", ["Berlin"], 0),
    ("Which king had six wives?", "Henry the Eighth", ["Henry VIII"], 0),
    ("Which king is buried in Gloucester?", "Edward II, King of England", ["Edward the Second"], 0),
    ("Which article of the Constitution sets up the executive?", "Article II", ["Article Two"], 0),
    ("Which article of the Constitution sets up the executive?", "Article III", ["Article Two"], 1),
    ("What were Joe DiMaggio's brothers called?", "Dom and Vince", ["Dom & Vincent"], 0),
    ("Which post did she hold?", "Director General of MI5", ["Head of MI5"], 0),
    ("Which test detects hCG?", "HCG Test", ["Human Chorionic Gonadotropin Test"], 0),
    ("Colonel Blood is known for what?", "Stolen the Crown Jewels", ["Trying to steal the Crown Jewels"], 0),
    ("Who painted it?", "Leonardo painted it in Florence.", ["Leonardo da Vinci"], 0),
    ("Who wrote Emma?", "Jane Austen wrote Emma in 1815.", ["Jane Austen"], 0),   # holds the gold whole
    ("Which team?", "The South African Springboks rugby team", ["South African rugby union national team"], 0),
    ("Who?", "Charles Darwin", [], 0),
]


@pytest.mark.parametrize("question,candidate,references,clash", CLASHES)
def test_name_clash(question, candidate, references, clash):
    assert name_clash(Reading(question, candidate, references)) == clash


@pytest.mark.parametrize("a,b,same", [
    ("viii", "eighth", True), ("vii", "viii", False), ("ii", "2", True), ("2", "second", True), ("3", "ii", False),
    ("f", "fitzgerald", True), ("vince", "vincent", True), ("louis", "neil", False), ("john", "joseph", False),
])
def test_same_word(a, b, same):
    assert same_word(a, b) is same
