"""`dates.written`: a gold date the answer writes in another form, read as a table of hand-worked cases."""

import pytest

from qascore.metrics.dates import written

# (candidate, references, expected (index, the answer's words) pairs)
CASES = [
    ("It opened in the summer of eighteen ninety-five.", ["1895"], [(0, "eighteen ninety-five")]),
    ("12 December, nineteen-oh-one.", ["1901"], [(0, "12 December, nineteen-oh-one")]),
    ("Fifteen hundred and one.", ["1501"], [(0, "Fifteen hundred and one")]),
    ("On April 26, twelve forty-eight.", ["1248"], [(0, "April 26, twelve forty-eight")]),
    ("Twenty twenty-four.", ["2024"], [(0, "Twenty twenty-four")]),
    ("In July of two thousand five.", ["2005"], [(0, "July of two thousand five")]),
    ("On 10/10/70.", ["1970"], [(0, "10/10/70")]),                       # two digits: the reference's century
    ("12/9/64, in one session.", ["December 1964"], [(0, "12/9/64")]),   # month first
    ("21.11.1783", ["21 November 1783"], [(0, "21.11.1783")]),           # day first
    ("On March 11th, '90.", ["11 March 1990"], [(0, "March 11th, '90")]),
    ("11/09, the Diada.", ["11 September"], [(0, "11/09")]),
    ("It was 1783.", ["1783", "the Treaty of Paris"], [(0, "1783")]),   # only date references are read
    ("2012-12-21.", ["21 December 2012"], [(0, "2012-12-21")]),         # ISO 8601
    ("2012-12-20", ["21 December 2012"], []),
    ("12/9/64", ["1864"], [(0, "12/9/64")]),                            # a two-digit year is any century's
    ("In the spring of 1349.", ["1348"], []),                            # another year
    ("12/9/64", ["9 November 1964"], []),                                # neither 12 September nor 9 December
    ("About 3.5 million.", ["5 March"], []),                             # a decimal is no day and month
    ("The score was 3/4 at half time.", ["4 March"], []),                # a day and month without a year: 2 digits each
    ("Eighteen.", ["1800"], []),                                         # one pair is no year
]


@pytest.mark.parametrize("candidate,references,expected", CASES)
def test_a_date_written_in_another_form(candidate, references, expected):
    assert written(candidate, references) == expected
