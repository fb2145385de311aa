"""The EAGLE-2/3 draft tree: node selection from the draft's candidate pool, and the tree attention mask
and positions the target verifies it with in one forward pass.

A tree is stored flat: index 0 is the root (the last committed token, not yet in the target's KV cache),
nodes 1..N-1 are draft tokens sorted so that a parent always precedes its children.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from eaglekit.masks import bias_from_mask, causal_bias  # noqa: F401 - T.causal_bias for the engine


@dataclass
class DraftTree:
    tokens: torch.Tensor    # [N] int64 target-vocab ids; tokens[0] is the root
    parents: torch.Tensor   # [N] int64 index of the parent node; -1 for the root
    depth: torch.Tensor     # [N] int64; 0 for the root
    scores: torch.Tensor    # [N] float: log of the product of draft probabilities on the path (root 0)

    @property
    def size(self) -> int:
        return int(self.tokens.numel())

    def children(self) -> list[list[int]]:
        kids: list[list[int]] = [[] for _ in range(self.size)]
        for i, p in enumerate(self.parents.tolist()):
            if p >= 0:
                kids[p].append(i)
        return kids


def select_tree(root: int, pool_tokens, pool_scores, pool_parents, pool_depth, num_nodes: int,
                min_score: float = float("-inf")) -> DraftTree:
    """Keep the best `num_nodes` pool candidates by cumulative score (as EAGLE-2 and SGLang do), and of
    those only the ones scoring at least `min_score` (a log probability; -inf keeps all).

    pool_parents index into the pool (-1 = child of the root). Scores never increase along a path, so the
    best set (and any score cut of it) is closed under ancestors; ties are broken towards shallower nodes,
    which keeps it closed even when a probability rounds to exactly 1.
    """
    pool_tokens = torch.as_tensor(pool_tokens, dtype=torch.long)
    pool_scores = torch.as_tensor(pool_scores, dtype=torch.float32)
    pool_parents = torch.as_tensor(pool_parents, dtype=torch.long)
    pool_depth = torch.as_tensor(pool_depth, dtype=torch.long)
    n = min(int(num_nodes), pool_tokens.numel())
    order = sorted(range(pool_tokens.numel()), key=lambda i: (-float(pool_scores[i]), int(pool_depth[i]), i))
    keep = sorted(i for i in order[:n] if float(pool_scores[i]) >= min_score)  # level order: parents first
    where = {p: i + 1 for i, p in enumerate(keep)}
    parents = [-1]
    for p in keep:
        parent = int(pool_parents[p])
        if parent >= 0 and parent not in where:
            raise AssertionError("draft tree selection lost an ancestor")  # cannot happen: see docstring
        parents.append(0 if parent < 0 else where[parent])
    idx = torch.tensor(keep, dtype=torch.long)
    return DraftTree(tokens=torch.cat([torch.tensor([root]), pool_tokens[idx]]),
                     parents=torch.tensor(parents, dtype=torch.long),
                     depth=torch.cat([torch.tensor([0]), pool_depth[idx]]),
                     scores=torch.cat([torch.tensor([0.0]), pool_scores[idx]]))


def ancestor_matrix(parents: torch.Tensor) -> torch.Tensor:
    """[N, N] bool: entry (i, j) is True when node j is node i itself or one of its ancestors."""
    n = parents.numel()
    out = torch.eye(n, dtype=torch.bool)
    for i, p in enumerate(parents.tolist()):
        if p >= 0:
            out[i] |= out[p]  # parents precede children, so row p is complete
    return out


def tree_positions(tree: DraftTree, past_len: int) -> torch.Tensor:
    """Rotary position of each node: the root sits right after the cached prefix, a node at depth d d further."""
    return past_len + tree.depth


def tree_attention_bias(tree: DraftTree, past_len: int, dtype=torch.float32, device=None) -> torch.Tensor:
    """[1, 1, N, past_len + N] additive mask: each node sees the whole prefix, its ancestors and itself."""
    visible = torch.cat([torch.ones(tree.size, past_len, dtype=torch.bool), ancestor_matrix(tree.parents)], dim=1)
    return bias_from_mask(visible, dtype)[None, None].to(device)


def greedy_accept(tree: DraftTree, target_argmax: torch.Tensor) -> tuple[list[int], int]:
    """Walk from the root, following the child whose token equals the target's argmax at its parent.

    Returns (accepted node indices starting with the root, bonus token = target argmax at the last one).
    """
    kids = tree.children()
    tokens = tree.tokens.tolist()
    path, cur = [0], 0
    while True:
        want = int(target_argmax[cur])
        nxt = next((c for c in kids[cur] if tokens[c] == want), None)
        if nxt is None:
            return path, want
        path.append(nxt)
        cur = nxt


def sampled_accept(tree: DraftTree, target_probs: torch.Tensor, generator: torch.Generator | None = None
                   ) -> tuple[list[int], int]:
    """Lossless tree speculative sampling for deterministic (top-k) draft candidates.

    At each accepted node one uniform draw u is compared with the target's cumulative probability over the
    node's children (in tree order): the first child whose cumulative mass exceeds u is accepted. If none
    does, the bonus token is drawn from the target with those children removed. Marginally this draws the
    next token from exactly the target's distribution, so the output distribution is the target's.
    """
    kids = tree.children()
    tokens = tree.tokens.tolist()
    path, cur = [0], 0
    while True:
        p = target_probs[cur]
        children = kids[cur]
        u = float(torch.rand((), generator=generator))
        cum = 0.0
        chosen = None
        for c in children:
            cum += float(p[tokens[c]])
            if u < cum:
                chosen = c
                break
        if chosen is None:
            rest = p.clone()
            if children:
                rest[torch.tensor([tokens[c] for c in children])] = 0.0
            if float(rest.sum()) <= 0:  # the target put all its mass on the children: float round-off only
                rest = p.clone()
            bonus = int(torch.multinomial(rest / rest.sum(), 1, generator=generator))
            return path, bonus
        path.append(chosen)
        cur = chosen
