"""An indefinite description in place of the name asked for.

"An American astronaut." for "Who was the first person to walk on the Moon?" and "A mountain in Nepal." for the
tallest mountain describe a kind of thing and identify none: "a/an" says there are many such. A verifier reads
them as fitting the question, and no overlap feature sees them, since they share no word with the gold:
`describes` reads the form. A pure function of a `Reading` of the record; its tests are a table.
"""

from __future__ import annotations

import re

from qascore.text.answer_match import Reading

_LEAD = re.compile(r"^\s*(?:(?:it|this|that|he|she|they|the answer)(?:'s|\s+is|\s+was|\s+were|\s+are|\s+would be)\s+"
                   r"|(?:probably|maybe|perhaps|possibly|likely)\s+)*", re.IGNORECASE)
_INDEFINITE = re.compile(r"^(?:a|an)\s+", re.IGNORECASE)
# where the head noun phrase ends: a preposition, a relative word, a participle's lead or a clause mark
_NP_END = re.compile(r"\s+(?:in|on|at|of|from|for|with|by|between|near|who|which|that|whose|known|called|born|based|"
                     r"and|or|to|during|under|over)\b|[,;:(]")
# a question that asks for a kind, where "a/an ..." is the answer's form
_ASKS_KIND = re.compile(r"\b(?:kind|type|sort|class|category|genre|species|breed|form|description)s?\s+of\b|"
                        r"^\s*what\s+(?:is|was|are|were)\s+(?:a|an)\s+|^\s*(?:describe|define|how would you describe)\b",
                        re.IGNORECASE)
MAX_WORDS = 12  # a longer answer is prose, which the verifier reads
NAME_WORDS = 5  # a longer reference is a sentence that holds the answer, not a name


def _named(reference: str) -> bool:
    """The reference is a name: at most NAME_WORDS words opened by a capital, not by "A"/"An"."""
    ref = reference.strip()
    return bool(ref) and ref[0].isupper() and not _INDEFINITE.match(ref) and len(ref.split()) <= NAME_WORDS


def describes(r: Reading) -> float:
    """1.0 if the candidate is only an indefinite description ("An English playwright.", "A city in Europe.")
    where the question asks for a name: past a lead ("It is", "He was"), one noun phrase after "a"/"an" whose
    head noun is a lower-case word ("a Florentine sculptor", not the title "A Tale of Two Cities"; no number, "a
    dozen"), in at most MAX_WORDS words and one sentence, holding no reference; every non-blank reference is a
    name (which a kind cannot be), and the question does not ask for a kind ("What kind of animal ...?", "What is
    a koala?": there a description is the answer). 0.0 otherwise."""
    text = r.text.strip().rstrip(".!")
    refs = [ref for ref in r.references if ref.strip()]
    if (not refs or not text or len(text.split()) > MAX_WORDS or re.search(r"[.!?;]\s", text)
            or _ASKS_KIND.search(r.question) or r.contains or not all(map(_named, refs))):
        return 0.0
    body = _LEAD.sub("", text)
    if not _INDEFINITE.match(body):
        return 0.0
    phrase = _NP_END.split(_INDEFINITE.sub("", body), maxsplit=1)[0].split()
    return float(bool(phrase) and phrase[-1][:1].islower() and phrase[-1].isalpha())
