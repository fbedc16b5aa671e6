"""The KPQA keyphrase tagger network and its input layout (one place for both).

Paper (KPQA 3.1, appendix C): a BERT encoder over `[CLS] question [SEP] answer
[SEP]` (segment ids 0 for the question, 1 for the answer), one fully connected
layer with tanh, then a 2-way softmax (K = keyphrase, O = other) per answer
WordPiece. KPW of a WordPiece = P(K). The "-KP" ablation drops the question:
`[CLS] answer [SEP]`, segment id 0.

Training (qascore_lab.train.kpqa, the lab) and inference (qascore.weights.kpw) both build
inputs with `layout()` so the two can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import torch
from torch import nn

from qascore.runtime.partial import position_bias_of, run_stack

LABELS = ("O", "K")  # index 1 = keyphrase; KPW = softmax(...)[..., 1]
IGNORE = -100        # label of question / special positions (no loss)
MAX_QUESTION = 64    # question WordPieces kept (the rest is cut; documented in docs/kpqa.md)


@dataclass
class Layout:
    """One encoded (question, answer) pair: ids, segment ids and where the answer sits."""

    input_ids: list[int]
    token_type_ids: list[int]
    answer_start: int  # position of the first answer WordPiece
    answer_len: int


def layout(cls_id: int, sep_id: int, question_ids: Sequence[int], answer_ids: Sequence[int],
           use_question: bool = True) -> Layout:
    """[CLS] q [SEP] a [SEP] (segments 0/1) or, without the question, [CLS] a [SEP] (segment 0)."""
    if use_question:
        q = list(question_ids)[:MAX_QUESTION]
        ids = [cls_id, *q, sep_id, *answer_ids, sep_id]
        types = [0] * (len(q) + 2) + [1] * (len(answer_ids) + 1)
        return Layout(ids, types, len(q) + 2, len(answer_ids))
    ids = [cls_id, *answer_ids, sep_id]
    return Layout(ids, [0] * len(ids), 1, len(answer_ids))


def answer_room(max_len: int, n_question: int, use_question: bool) -> int:
    """How many answer WordPieces fit in `max_len` positions."""
    if use_question:
        return max_len - min(n_question, MAX_QUESTION) - 3
    return max_len - 2


def load_encoder(base: str) -> nn.Module:
    """A private float32 copy of the base encoder (a base stored in fp16 still trains and tags in fp32)."""
    from transformers import AutoModel

    return AutoModel.from_pretrained(base, attn_implementation="eager", dtype=torch.float32)


class KeyphraseTagger(nn.Module):
    """BERT-style encoder (BERT, MiniLM, MPNet) + FC/tanh + 2-way classifier over every position."""

    def __init__(self, encoder: Any, dropout: float = 0.1) -> None:
        super().__init__()
        self.encoder = encoder
        self.bias = position_bias_of(encoder)  # MPNet's per-layer relative-position bias; None for BERT
        hidden = encoder.config.hidden_size
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(hidden, hidden), nn.Tanh(),
                                  nn.Dropout(dropout), nn.Linear(hidden, len(LABELS)))

    @property
    def n_layers(self) -> int:
        return len(self.encoder.encoder.layer)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor,
                attention_mask: torch.Tensor) -> torch.Tensor:
        """Logits [batch, length, 2] through the whole encoder (inference path)."""
        out = self.encoder(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask)
        return self.head(out.last_hidden_state)

    # -- the split path used to train only the top layers over cached states --
    def lower(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor, attention_mask: torch.Tensor,
              n_frozen: int) -> torch.Tensor:
        """Hidden states after the embeddings and the first `n_frozen` layers."""
        h = self.encoder.embeddings(input_ids=input_ids, token_type_ids=token_type_ids)
        return run_stack(self.encoder.encoder.layer[:n_frozen], h, attention_mask, self.bias)

    def upper(self, hidden: torch.Tensor, attention_mask: torch.Tensor, n_frozen: int) -> torch.Tensor:
        """Logits from the states `lower()` returned, through the remaining layers and the head."""
        return self.head(run_stack(self.encoder.encoder.layer[n_frozen:], hidden, attention_mask, self.bias))

    def trained_names(self, n_frozen: int, lora: bool = False) -> list[str]:
        """State-dict names of what training changes (the delta): the head and the layers from `n_frozen` on,
        whole, or with `lora` only their adapters and LayerNorms (the linear weights stay the base's)."""
        names = [n for n, _ in self.named_parameters() if n.startswith("head.")]
        for i in range(n_frozen, self.n_layers):
            names += [n for n, _ in self.named_parameters() if n.startswith(f"encoder.encoder.layer.{i}.")
                      and (not lora or ".lora_" in n or "LayerNorm" in n)]
        return names

    def add_adapters(self, n_frozen: int, rank: int, alpha: float) -> int:
        """LoRA adapters (`runtime.lora`) on every linear layer of the layers from `n_frozen` on.

        Training and loading call this with the delta's rank/alpha before the delta's tensors go in,
        so the parameter names match; loading then merges them (no cost at inference).
        """
        from qascore.runtime.lora import add_lora

        return add_lora(self.encoder.encoder.layer[n_frozen:], rank, alpha)


def pad(rows: Sequence[Sequence[int]], value: int) -> torch.Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([list(r) + [value] * (width - len(r)) for r in rows], dtype=torch.long)
