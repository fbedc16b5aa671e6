"""Hand-written QA examples shared by the lexical metric tests (candidate vs references)."""

RECORDS = [
    {"question": "where is the eiffel tower?", "candidate": "The Eiffel Tower is in Paris, France.",
     "references": ["It is in Paris.", "The Eiffel tower stands in Paris, the capital of France."]},
    {"question": "how long to boil an egg?", "candidate": "boil the egg for about 10 minutes",
     "references": ["You should boil an egg for 9 to 12 minutes.", "about ten minutes",
                    "boil it for 10 minutes in water"]},
    {"question": "who wrote hamlet?", "candidate": "Hamlet was written by William Shakespeare around 1600.",
     "references": ["William Shakespeare wrote Hamlet."]},
    {"question": "is he wearing glasses ?", "candidate": "no he is not wearing glasses",
     "references": ["yes , he has glasses on", "he does n't wear glasses", "no glasses that i can see",
                    "i do n't think he is wearing glasses", "no , he is not"]},
    {"question": "what color is the sky?", "candidate": "the the the sky sky is blue blue",
     "references": ["the sky is blue", "blue"]},
    {"question": "what does the man do?", "candidate": "he walks into the room and sits down on the couch",
     "references": ["he enters the room , then he sits on a couch and reads a book",
                    "the man walks in and sits on the sofa"]},
]
