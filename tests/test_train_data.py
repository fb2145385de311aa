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


def _ids(docs):
    return [row.id for _, row in docs]


def test_shuffled_epochs_differ_are_deterministic_and_cover_every_row(tmp_path, tiny_target):
    from itertools import islice

    from eaglekit.shards import open_features
    from eaglekit.train import Cursor, iter_docs
    from eaglekit.train.data import epoch_order
    ds = open_features(make_shards(tmp_path, tiny_target, max_shard_tokens=60))
    assert len(ds.shards) > 2
    keep = lambda rid: rid != "row-3"  # noqa: E731 - the held-out filter still applies
    n = ds.num_rows - 1
    stored = _ids(iter_docs(ds, Cursor(), keep, loop=False))
    three = list(islice(iter_docs(ds, Cursor(), keep, shuffle_seed=7), 3 * n))
    epochs = [_ids(three[e * n:(e + 1) * n]) for e in range(3)]
    assert [c.epoch for c, _ in three] == [e for e in range(3) for _ in range(n)]
    for e in epochs:  # each epoch: every kept row exactly once
        assert sorted(e) == sorted(stored) and "row-3" not in e
    assert len({tuple(e) for e in epochs}) == 3 and tuple(stored) not in {tuple(e) for e in epochs}
    # deterministic by seed and epoch; another seed, another order
    again = _ids(islice(iter_docs(ds, Cursor(), keep, shuffle_seed=7), 3 * n))
    assert again == sum(epochs, [])
    assert _ids(islice(iter_docs(ds, Cursor(), keep, shuffle_seed=8), n)) != epochs[0]
    assert epoch_order(ds.shard_rows, 7, 1) == epoch_order(ds.shard_rows, 7, 1) != epoch_order(ds.shard_rows, 7, 2)
    # resumable: from any cursor the same rows follow (mid-epoch, and mid-document through pack below)
    for k in (0, 1, n - 1, n, n + 2):
        cur = three[k][0]
        assert _ids(islice(iter_docs(ds, cur, keep, shuffle_seed=7), 3 * n - k)) == sum(epochs, [])[k:]


def test_shuffled_pack_resumes_mid_document(tmp_path, tiny_target):
    from eaglekit.shards import open_features
    from eaglekit.train import Cursor, iter_docs, pack
    ds = open_features(make_shards(tmp_path, tiny_target, max_shard_tokens=60))
    keep = lambda rid: True  # noqa: E731
    full = []
    for i, item in enumerate(pack(iter_docs(ds, Cursor(), keep, shuffle_seed=3), 16, ds.meta)):
        full.append(item)
        if i == 30:
            break
    assert any(cur.offset for _, cur in full)  # some cursors point inside a document
    for k in (4, 17):
        resumed = pack(iter_docs(ds, full[k][1], keep, shuffle_seed=3), 16, ds.meta)
        for (want, _), (got, _) in zip(full[k + 1:], resumed):
            for key in ("ids", "mask", "seg", "pos", "aux", "teacher"):
                assert torch.equal(want[key], got[key]), key


def test_warmup_has_a_floor_but_never_more_than_a_tenth():
    from eaglekit.train.loop import warmup_steps
    assert warmup_steps(490, 0.015, 50) == 49          # the H100 run: 7 steps before, now a tenth
    assert warmup_steps(20000, 0.015, 50) == 300       # large runs: the ratio
    assert warmup_steps(5000, 0.015, 50) == 75
    assert warmup_steps(10, 0.015, 50) == 1 and warmup_steps(0, 0.0, 50) == 1
