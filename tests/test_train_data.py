"""Feature shards for the trainer's tests, made with the real writer (eaglekit.shards) from a target
forward pass; plus tests of the trainer's data path (packing, cursors, held-out split)."""
from __future__ import annotations

import torch

from eaglekit import __version__
from eaglekit.models import default_aux_layers

ANSWERS = [
    ("What is the capital of France?", "Paris is the capital of France."),
    ("How many days are in a week?", "There are seven days in a week."),
    ("Write a Python function that adds two numbers.", "def add(a, b): return a + b"),
    ("Explain speculative decoding.", "A small draft model proposes tokens and the target verifies them."),
    ("Solve 12 * 7.", "12 * 7 = 84."),
    ("Translate hello into German.", "Guten Tag!"),
    ("Say something about the fox.", "The quick brown fox jumps over the lazy dog."),
    ("Summarise this paragraph.", "Please summarise this paragraph in one sentence."),
]


def encode_pair(tokenizer, prompt: str, answer: str) -> tuple[list[int], list[int]]:
    head = tokenizer.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                         tokenize=False)
    a = tokenizer.encode(head, add_special_tokens=False)
    b = tokenizer.encode(answer + "<|im_end|>", add_special_tokens=False)
    tail = tokenizer.encode("\n", add_special_tokens=False)
    return a + b + tail, [0] * len(a) + [1] * len(b) + [0] * len(tail)


def feature_meta(target, teacher_kind: str = "final_hidden_postnorm", topk: int = 0, codec: str = "bf16") -> dict:
    c = target.config
    return {"eaglekit_version": __version__, **target.metadata(), "num_hidden_layers": c.num_hidden_layers,
            "hidden_size": c.hidden_size, "vocab_size": c.vocab_size,
            "aux_layer_ids": list(default_aux_layers(c.num_hidden_layers).hf), "aux_layer_convention": "hf",
            "hidden_codec": codec, "teacher_kind": teacher_kind, "teacher_topk": topk}


@torch.no_grad()
def feature_rows(target, pairs, teacher_kind: str = "final_hidden_postnorm"):
    """One row per (prompt, answer): aux states at the default layers and the chosen teacher."""
    aux_ids = default_aux_layers(target.config.num_hidden_layers).hf
    for i, (prompt, answer) in enumerate(pairs):
        ids, mask = encode_pair(target.tokenizer, prompt, answer)
        out = target.model(torch.tensor([ids]), output_hidden_states=True)
        hs = [h[0] for h in out.hidden_states]
        row = {"id": f"row-{i}", "source": "test", "input_ids": ids, "loss_mask": mask,
               "aux_low": hs[aux_ids[0]], "aux_mid": hs[aux_ids[1]], "aux_high": hs[aux_ids[2]]}
        if teacher_kind == "topk_logprobs":
            row["teacher_logits"] = out.logits[0]
        else:  # HF's last hidden state is after the final norm
            row["teacher_hidden"] = hs[-1]
        yield row


def make_shards(tmp_path, target, pairs=ANSWERS, teacher_kind="final_hidden_postnorm", topk=0,
                max_shard_tokens=None, name="feats"):
    from eaglekit.shards import write_feature_shards
    out = tmp_path / name
    write_feature_shards(out, feature_meta(target, teacher_kind, topk), feature_rows(target, pairs, teacher_kind),
                         max_shard_tokens=max_shard_tokens)
    return out


# ---------------------------------------------------------------------------------------------

def test_pack_resumes_from_any_cursor(tmp_path, tiny_target):
    from eaglekit.shards import open_features
    from eaglekit.train import Cursor, iter_docs, pack
    ds = open_features(make_shards(tmp_path, tiny_target, max_shard_tokens=60))
    assert len(ds.shards) > 1
    keep = lambda rid: True  # noqa: E731
    full = []
    for i, (row, cur) in enumerate(pack(iter_docs(ds, Cursor(), keep), 16, ds.meta)):
        full.append((row, cur))
        if i == 12:
            break
    # Restart from the cursor after row 4 (mid-document, since rows are 16 tokens): same rows follow.
    resumed = pack(iter_docs(ds, full[4][1], keep), 16, ds.meta)
    for (want, _), (got, _) in zip(full[5:], resumed):
        for key in ("ids", "mask", "seg", "pos", "aux", "teacher"):
            assert torch.equal(want[key], got[key]), key


def test_pack_keeps_every_token_once(tmp_path, tiny_target):
    from eaglekit.shards import open_features
    from eaglekit.train import Cursor, iter_docs, pack, count_packed_rows
    ds = open_features(make_shards(tmp_path, tiny_target))
    rows = list(pack(iter_docs(ds, Cursor(), lambda r: True, loop=False), 24, ds.meta))
    assert len(rows) == count_packed_rows(ds, lambda r: True, 24)
    assert sum(int((r["seg"] >= 0).sum()) for r, _ in rows) == ds.num_tokens
    assert sum(int(r["mask"].sum()) for r, _ in rows) == sum(
        int(r.loss_mask.sum()) for r in ds.iter_rows())
