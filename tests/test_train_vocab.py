"""Draft vocabulary: top-N by supervised frequency, deterministic ties, padding, coverage, hash."""
import numpy as np
import pytest

from eaglekit.vocab import build_vocab, count_supervised


def test_top_n_ties_padding_and_order():
    counts = np.zeros(20, dtype=np.int64)
    counts[[7, 3, 12, 5]] = [5, 5, 9, 1]
    v = build_vocab(counts, size=3)
    assert v.draft_ids.tolist() == [3, 7, 12]          # tie 3/7 kept both; 5 (count 1) dropped
    v = build_vocab(counts, size=2)
    assert v.draft_ids.tolist() == [3, 12]             # tie broken by the smaller id
    v = build_vocab(counts, size=6)
    assert v.draft_ids.tolist() == [0, 1, 3, 5, 7, 12]  # padded with the smallest unused ids
    assert (v.occurring, v.padded, v.coverage) == (4, 2, 1.0)


def test_size_from_coverage_and_hash():
    counts = np.array([0, 50, 30, 15, 5], dtype=np.int64)
    assert build_vocab(counts, coverage=0.8).draft_ids.tolist() == [1, 2]
    v = build_vocab(counts, coverage=0.9)
    assert v.draft_ids.tolist() == [1, 2, 3] and v.coverage == pytest.approx(0.95)
    other = counts.copy()
    other[4] += 1
    assert build_vocab(other, coverage=0.9).freq_hash != v.freq_hash
    with pytest.raises(ValueError, match="no supervised tokens"):
        build_vocab(np.zeros(5, dtype=np.int64), size=2)


def test_counts_only_supervised_tokens(tmp_path, tiny_target):
    from test_train_data import make_shards
    from eaglekit.shards import open_features
    ds = open_features(make_shards(tmp_path, tiny_target))
    counts = count_supervised(ds, 512)
    want = np.zeros(512, dtype=np.int64)
    for row in ds.iter_rows():
        np.add.at(want, row.input_ids[row.loss_mask].numpy(), 1)
    assert np.array_equal(counts, want) and counts.sum() > 0
