"""WordNet antonyms for the negation perturbation, read straight from WordNet's database files.

No WordNet data comes from PyPI and nothing may be downloaded, so the
dictionary files are found on disk: $QASCORE_WORDNET, else /usr/share/wordnet
(Debian's `wordnet-base`). The files are read here (format: wndb(5WN)), not
through NLTK: NLTK's reader wants a `lexnames` file Debian does not ship and,
since 3.9, refuses corpus roots outside its NLTK_DATA sandbox. Only direct
antonyms (pointer "!" between two words) are used, as NLTK's
`Lemma.antonyms()` gives. Without WordNet, `antonyms` returns nothing and
`available()` is False; callers fall back to "not".
"""

from __future__ import annotations

import os
from pathlib import Path

from qascore.runtime.cache import shared

DEFAULT_DIR = Path("/usr/share/wordnet")
_WN_POS = {"ADJ": "adj", "ADV": "adv", "VERB": "verb"}   # spaCy coarse POS -> WordNet file suffix
_FILE_POS = {"a": "adj", "s": "adj", "r": "adv", "v": "verb", "n": "noun"}


def wordnet_dir() -> Path | None:
    """The directory holding WordNet's data.* and index.* files, or None."""
    d = Path(os.environ.get("QASCORE_WORDNET", DEFAULT_DIR))
    ok = all((d / f"{kind}.{pos}").is_file() for kind in ("data", "index") for pos in ("adj", "adv", "verb"))
    return d if ok else None


def available() -> bool:
    return wordnet_dir() is not None


def _index(root: Path, pos: str) -> dict[str, list[int]]:
    """lemma -> synset byte offsets in data.<pos>, most frequent sense first."""
    def build() -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        with open(root / f"index.{pos}", encoding="utf-8") as f:
            for line in f:
                if line.startswith(" "):
                    continue  # licence header
                parts = line.split()
                n_synsets, n_ptrs = int(parts[2]), int(parts[3])
                offsets = parts[6 + n_ptrs:6 + n_ptrs + n_synsets]
                out[parts[0]] = [int(o) for o in offsets]
        return out

    return shared(("wordnet-index", str(root), pos), build)


def _synset(root: Path, pos: str, offset: int) -> tuple[list[str], list[tuple[str, str, int, int, int]]]:
    """(words, pointers) of the synset at `offset`; a pointer is (symbol, file pos, offset, source, target)."""
    with open(root / f"data.{pos}", "rb") as f:
        f.seek(offset)
        parts = f.readline().decode("utf-8").split(" | ")[0].split()
    n_words = int(parts[3], 16)
    words = [parts[4 + 2 * i].split("(")[0].lower() for i in range(n_words)]
    k = 4 + 2 * n_words
    n_ptrs = int(parts[k])
    ptrs = []
    for j in range(n_ptrs):
        sym, off, p, st = parts[k + 1 + 4 * j:k + 5 + 4 * j]
        ptrs.append((sym, _FILE_POS[p], int(off), int(st[:2], 16), int(st[2:], 16)))
    return words, ptrs


def antonyms(word: str, pos: str) -> list[str]:
    """Direct antonyms of `word` (spaCy POS ADJ/ADV/VERB) in its most frequent sense that has any."""
    root = wordnet_dir()
    if root is None or pos not in _WN_POS:
        return []
    lemma = word.lower().replace(" ", "_")
    for offset in _index(root, _WN_POS[pos]).get(lemma, []):
        words, ptrs = _synset(root, _WN_POS[pos], offset)
        if lemma not in words:
            continue
        me = words.index(lemma) + 1
        found = {_synset(root, fpos, off)[0][tgt - 1].replace("_", " ")
                 for sym, fpos, off, src, tgt in ptrs if sym == "!" and src == me}
        if found:
            return sorted(found)
    return []
