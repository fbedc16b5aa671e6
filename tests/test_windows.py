"""Long candidates in overlapping windows (runtime.windows), with a tokenizer whose counts are known:
every word is one token per started 4 characters."""

from qascore.runtime.windows import candidate_windows


class FourCharTokenizer:
    @staticmethod
    def _pieces(word: str) -> int:
        return (len(word) + 3) // 4

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return [0] * sum(self._pieces(w) for w in text.split())

    def __call__(self, words: list[str], add_special_tokens: bool):
        return {"input_ids": [[0] * self._pieces(w) for w in words]}


TOK = FourCharTokenizer()


def test_a_candidate_that_fits_is_one_window():
    assert candidate_windows(TOK, "q", "r", "a b c", max_len=16) == (["a b c"], False)


def test_windows_overlap_by_half_and_cover_the_end():
    # question and reference take 1 + 1 + 3 special tokens: room = max(16 // 2, 16 - 5) = 11 one-token words
    words = [f"w{i}" for i in range(20)]
    wins, unread = candidate_windows(TOK, "q", "r", " ".join(words), max_len=16)
    assert wins == [" ".join(words[0:11]), " ".join(words[5:16]), " ".join(words[10:20])]
    assert unread is False


def test_room_is_at_least_half_the_input_whatever_the_question():
    words = [f"w{i}" for i in range(10)]
    wins, _ = candidate_windows(TOK, "q " * 40, "r", " ".join(words), max_len=16)
    assert wins[0] == " ".join(words[:8])


def test_multi_piece_words_are_counted_and_kept_whole():
    # "abcdefgh" is 2 tokens: a room of 11 holds 5 such words; the next window starts 2 words on
    words = [f"abcdefg{i}" for i in range(7)]
    wins, _ = candidate_windows(TOK, "q", "r", " ".join(words), max_len=16)
    assert wins == [" ".join(words[0:5]), " ".join(words[2:7])]


def test_at_most_max_windows_and_the_rest_is_reported_unread():
    words = [f"w{i}" for i in range(200)]
    wins, unread = candidate_windows(TOK, "q", "r", " ".join(words), max_len=16, max_windows=3)
    assert len(wins) == 3 and unread is True
    assert wins[-1].split()[-1] == "w20"


def test_a_word_longer_than_the_room_is_a_window_of_its_own():
    wins, unread = candidate_windows(TOK, "q", "r", "x" * 80 + " tail", max_len=16)
    assert wins[0] == "x" * 80 and unread is False


def test_real_tokenizer_counts_words_as_in_context():
    """The per-word piece counts equal the pieces of the whole text (WordPiece splits words alone)."""
    from transformers import AutoTokenizer

    from qascore.runtime import defaults

    tok = AutoTokenizer.from_pretrained(defaults.resolve(defaults.ENCODER))
    words = "Röntgen's unbelievably long-winded answer, in 1901: 12,345 photons!".split()
    counts = [len(ids) for ids in tok(words, add_special_tokens=False)["input_ids"]]
    assert sum(counts) == len(tok.encode(" ".join(words), add_special_tokens=False))
