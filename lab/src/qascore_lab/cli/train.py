"""`qascore-lab train TARGET`: seeded training commands of the learned parts."""

from __future__ import annotations

import argparse

from qascore_lab.cli.dispatch import add_targets, run_target

TARGETS: dict[str, tuple[str, str]] = {
    "ava": ("qascore_lab.train.ava", "AVA answer verifier (SVM, A0/A1/A2) on WikiQA; --config NAME"),
    "ava-system": ("qascore_lab.train.ava_system", "AVA system-wise P@1/MAP/MRR estimation on WikiQA (trains a reranker)"),
    "square": ("qascore_lab.train.square", "SQuArE and its AVA baselines on WikiQA (multi-reference verifier)"),
    "verifier-data": ("qascore_lab.train.verifier_corpus", "answer-verification corpus (AE, SQuAD v2, WikiQA/TREC-QA) for the verifiers"),
    "square-head": ("qascore_lab.train.square_head", "the shipped `square`: a head pooling `ava`'s reads of each positive "
                                                   "and negative reference, fitted on dev rows"),
    "verifier": ("qascore_lab.train.verifier_run", "the shipped `ava` / `square` verifiers on the verification corpus (all layers, LoRA)"),
    "probes": ("qascore_lab.train.probes", "behavioural probe suite for answer judges (assertion, negation, hedges, "
                                           "numbers, swaps, refusals, distractors, aliases, restated questions)"),
    "probe-styles": ("qascore_lab.train.probe_styles", "the probe suite's assertions, hedges and guesses composed in the "
                                                     "forms LLM answers take (markdown labels, lists, clauses in either order)"),
    "probe-dates": ("qascore_lab.train.probe_dates", "answers that state a date more precisely than the gold (SQuAD 1.1 "
                                                   "years and months inside a fuller date of their passage), with a wrong twin"),
    "probe-lists": ("qascore_lab.train.probe_lists", "bare lists that name the gold answer beside a wrong one "
                                                   "(\"A or B.\", \"A / B\", \"A (or B)\"), with the committed answer"),
    "probe-plain": ("qascore_lab.train.probe_plain", "a wrong answer stated plainly (\"It is B.\") beside the gold one in the "
                                                   "same words"),
    "probe-names": ("qascore_lab.train.probe_names", "a wrong answer that shares a word with the gold name (\"It is Louis "
                                                   "Armstrong.\" beside \"It is Neil Armstrong.\")"),
    "probe-generic": ("qascore_lab.train.probe_generic", "an answer that names only the kind asked for (\"It is a city.\", "
                                                       "\"A famous person.\") beside the gold in the same words"),
    "probe-relations": ("qascore_lab.train.probe_relations", "a wrong answer with the gold beside it in a lesser role "
                                                           "(\"B, often confused with A.\"), and the two exchanged"),
    "probe-comparisons": ("qascore_lab.train.probe_comparisons", "a wrong answer that wins a comparison with the "
                                                               "gold or is named as its something (\"B, better known "
                                                               "than A.\"), and the two exchanged"),
    "probe-described": ("qascore_lab.train.probe_described", "an answer that describes the kind asked for in words of its "
                                                           "own (\"An English playwright.\") beside the gold"),
    "probe-descriptions": ("qascore_lab.train.probe_descriptions", "`probe-described`'s pairs in adjectives and "
                                                                 "places the verifier never read, a \"who\" role that "
                                                                 "fits the question"),
    "probe-roles": ("qascore_lab.train.probe_roles", "a wrong answer given the question's role in a clause of its own, "
                                                   "the gold beside it in another (\"B is the one who wrote Hamlet; A is "
                                                   "another one.\"), and the two exchanged"),
    "judge": ("qascore_lab.train.judge", "the correctness judge (verifier, overlap, length, answer type) on the corpus dev split"),
    "judge-offset": ("qascore_lab.train.judge_offset", "one more rule feature on the shipped judge card, with its "
                                                     "log-odds offset fitted alone where it fires"),
    "judge-retire": ("qascore_lab.train.judge_retire", "rule features taken off the judge card, its trees read as "
                                                     "where the rule does not fire (no refit)"),
    "int8-ranges": ("qascore_lab.train.int8_ranges", "the activation ranges the judge's CPU reader and tagger read "
                                                     "int8 over (batched, a record read the same in any batch)"),
    "reopens": ("qascore_lab.train.reopens", "the judge's reading of where an answer reopens itself (revises, "
                                             "doubts or re-checks what it said), from hand-written answers"),
    "spellings": ("qascore_lab.train.spellings", "the judge's model of one name spelled otherwise (learned edit costs "
                                                 "from DBpedia's redirects)"),
    "aliases": ("qascore_lab.train.aliases", "the judge's table of other names for a thing (WordNet 3.0 synonym sets "
                                             "with a capitalised or numeric name)"),
    "asserted-data": ("qascore_lab.train.asserted_data", "answer texts labelled with the span each asserts as its answer "
                                                       "(SQuAD windows, EVOUNA-TQ, composed forms split by form)"),
    "asserted": ("qascore_lab.train.asserted", "the judge's asserted-answer reader (the answerability reader continued "
                                               "on `asserted-data`)"),
    "kpqa": ("qascore_lab.train.kpqa", "KPQA keyphrase tagger (SQuAD 2.0 dev, WikiQA answer phrases, "
                                       "answer-equivalence sentences; all layers, LoRA)"),
    "reader": ("qascore_lab.train.reader", "extractive QA reader of `answerability` (SQuAD 1.1 train + SQuAD 2.0 dev "
                                           "unanswerables; LoRA on all layers)"),
    "bertscore-baseline": ("qascore_lab.cli.bertscore_baseline", "BERTScore rescaling baseline (random SQuAD sentence pairs)"),
    "qrel-baselines": ("qascore_lab.cli.qrel_baselines", "QRelScore rescaling baselines b_LRM/b_GRG (random SQuAD question-passage pairs)"),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_targets(p, TARGETS)


def run(args: argparse.Namespace) -> int:
    return run_target(args)
