"""featurize: the ids that reach the shards are exactly the generated ones, the captured states are
the target's (aux layers, pre-norm teacher, top-k), over-long rows are truncated or dropped and counted."""
import glob
import os

import pyarrow.parquet as pq
import pytest
import torch

from tests.test_generate import PROMPTS, write_prompts


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    from beam_jobs.generate import GenerateConfig, run_generate
    root = tmp_path_factory.mktemp("feat")
    write_prompts(root / "clean", PROMPTS)
    run_generate(GenerateConfig(input=str(root / "clean"), output=str(root / "gen"), target="tiny",
                                max_new_tokens=5, batch_size=4))
    convs = sum((pq.read_table(f).to_pylist() for f in glob.glob(str(root / "gen" / "conversations-*.parquet"))), [])
    return root, {c["id"]: c for c in convs}


def _direct(model, ids):
    cap = {}
    h = model.model.norm.register_forward_pre_hook(lambda m, a: cap.__setitem__("pre", a[0]))
    try:
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_hidden_states=True)
    finally:
        h.remove()
    return out, cap["pre"][0]


def test_featurize_bf16_prenorm_matches_the_target(generated, tiny_target):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from eaglekit.models import default_aux_layers
    from eaglekit.shards import open_features
    root, convs = generated
    m = run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(root / "f1"), target="tiny"))
    assert m["counts"]["featurize"] == {"in": 3, "out": 3, "dropped": {}}
    ds = open_features(root / "f1")
    assert ds.meta["aux_layer_convention"] == "hf" and ds.meta["aux_layer_ids"] == list(default_aux_layers(6).hf)
    H = 64
    for row in ds.iter_rows():
        conv = convs[row.id]
        want_ids = sum((t["prompt_ids"] + t["response_ids"] for t in conv["turns"]), [])
        want_mask = sum(([0] * len(t["prompt_ids"]) + [1] * len(t["response_ids"]) for t in conv["turns"]), [])
        assert row.input_ids.tolist() == want_ids          # token-exact: generated ids straight into features
        assert row.loss_mask.int().tolist() == want_mask
        out, pre = _direct(tiny_target.model, want_ids)
        for j, layer in enumerate(ds.meta["aux_layer_ids"]):
            ref = out.hidden_states[layer][0].to(torch.bfloat16).float()
            assert torch.allclose(row.aux[:, j * H:(j + 1) * H], ref, rtol=2e-2, atol=1e-3)
        assert torch.allclose(row.teacher_hidden, pre.to(torch.bfloat16).float(), rtol=2e-2, atol=1e-3)
        # and pre-norm really differs from HF's last hidden state (which is after the final norm)
        assert not torch.allclose(pre, out.hidden_states[-1][0])


def test_topk_teacher_equals_the_targets_topk(generated, tiny_target):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from eaglekit.shards import open_features
    root, convs = generated
    run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(root / "f2"), target="tiny",
                                  teacher="topk_logprobs", topk=8, hidden_codec="fp8"))
    ds = open_features(root / "f2")
    assert ds.meta["hidden_codec"] == "fp8_e4m3" and ds.meta["teacher_topk"] == 8
    for row in ds.iter_rows():
        out, _ = _direct(tiny_target.model, row.input_ids.tolist())
        vals, ids = torch.log_softmax(out.logits[0], -1).topk(8, -1)
        assert torch.equal(row.topk_ids, ids)
        assert torch.allclose(row.topk_logprobs, vals, atol=1e-2)


@pytest.mark.parametrize("overflow", ["truncate", "drop"])
def test_over_long_rows_are_truncated_or_dropped_and_counted(generated, overflow):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    root, convs = generated
    lengths = {k: sum(len(t["prompt_ids"]) + len(t["response_ids"]) for t in c["turns"]) for k, c in convs.items()}
    limit = max(lengths.values()) - 2  # the longest loses 2 of its 5 response tokens
    longer = sum(1 for n in lengths.values() if n > limit)
    m = run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(root / f"f-{overflow}"), target="tiny",
                                      max_length=limit, overflow=overflow))
    c = m["counts"]["featurize"]
    assert c["in"] == 3 and c["in"] == c["out"] + sum(c["dropped"].values())
    if overflow == "drop":
        assert c["dropped"] == {"too_long": longer}
    else:
        assert m["truncated"] == longer and c["out"] == 3 and m["num_tokens"] <= 3 * limit


def test_other_tokenizer_is_refused(generated):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from eaglekit.contract import ContractError
    root, _ = generated
    with pytest.raises(ContractError, match="tokenizer_hash"):
        run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(root / "fx"), target="tiny:vocab=400"))
