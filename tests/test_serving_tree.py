"""Draft tree: selection, hand-checked attention mask and positions, greedy and sampled acceptance."""
import torch

from serving import tree as T


def _hand_tree():
    # root(0) -> a(1), b(2); a -> c(3); c -> d(4); b -> e(5)
    return T.DraftTree(tokens=torch.tensor([9, 10, 11, 12, 13, 14]), parents=torch.tensor([-1, 0, 0, 1, 3, 2]),
                       depth=torch.tensor([0, 1, 1, 2, 3, 2]), scores=torch.zeros(6))


def test_mask_and_positions_hand_checked():
    tree = _hand_tree()
    anc = T.ancestor_matrix(tree.parents).int().tolist()
    assert anc == [[1, 0, 0, 0, 0, 0],
                   [1, 1, 0, 0, 0, 0],
                   [1, 0, 1, 0, 0, 0],
                   [1, 1, 0, 1, 0, 0],
                   [1, 1, 0, 1, 1, 0],
                   [1, 0, 1, 0, 0, 1]]
    assert T.tree_positions(tree, 7).tolist() == [7, 8, 8, 9, 10, 9]
    bias = T.tree_attention_bias(tree, 3)
    assert bias.shape == (1, 1, 6, 9)
    visible = (bias[0, 0] == 0).int()
    assert visible[:, :3].all()                       # every node sees the whole prefix
    assert visible[:, 3:].tolist() == anc
    assert (bias[0, 0][visible == 0] < -1e30).all()


def test_select_tree_keeps_best_and_orders_parents_first():
    # pool: level 1 = x(-0.1), y(-1.0); level 2 children of x: (-0.3), (-2.5); of y: (-1.2), (-3.0)
    tokens = [5, 6, 7, 8, 9, 10]
    scores = [-0.1, -1.0, -0.3, -2.5, -1.2, -3.0]
    parents = [-1, -1, 0, 0, 1, 1]
    depth = [1, 1, 2, 2, 2, 2]
    tree = T.select_tree(4, tokens, scores, parents, depth, 4)
    assert tree.tokens.tolist() == [4, 5, 6, 7, 9]
    assert tree.parents.tolist() == [-1, 0, 0, 1, 2]
    # a tie between a parent and its child (probability 1.0) must not drop the parent
    tree = T.select_tree(4, [5, 7], [-0.5, -0.5], [-1, 0], [1, 2], 1)
    assert tree.tokens.tolist() == [4, 5]


def test_select_tree_min_score_cuts_unlikely_nodes_and_keeps_ancestors():
    tokens, scores = [5, 6, 7, 8, 9, 10], [-0.1, -1.0, -0.3, -2.5, -1.2, -3.0]
    parents, depth = [-1, -1, 0, 0, 1, 1], [1, 1, 2, 2, 2, 2]
    # of the best 4 (x, x's child, y, y's child) only those at least exp(-1.1) likely survive
    tree = T.select_tree(4, tokens, scores, parents, depth, 4, min_score=-1.1)
    assert tree.tokens.tolist() == [4, 5, 6, 7] and tree.parents.tolist() == [-1, 0, 0, 1]
    # nothing likely enough: the root alone (a plain decoding step)
    tree = T.select_tree(4, tokens, scores, parents, depth, 4, min_score=-0.05)
    assert tree.tokens.tolist() == [4] and tree.parents.tolist() == [-1]
    assert T.select_tree(4, [], [], [], [], 0).size == 1


def test_greedy_accept_follows_target_argmax():
    tree = _hand_tree()
    # target argmax per node: root->10 (a), a->12 (c), c->99 (not d) => path root,a,c; bonus 99
    argmax = torch.tensor([10, 12, 0, 99, 0, 0])
    assert T.greedy_accept(tree, argmax) == ([0, 1, 3], 99)
    assert T.greedy_accept(tree, torch.tensor([11, 0, 14, 0, 0, 77])) == ([0, 2, 5], 77)
    assert T.greedy_accept(tree, torch.tensor([3, 0, 0, 0, 0, 0])) == ([0], 3)


def test_sampled_accept_preserves_target_distribution():
    """The first emitted token (accepted child or bonus) is distributed as the target's p at the root."""
    V = 6
    tree = T.DraftTree(tokens=torch.tensor([0, 2, 4, 1]), parents=torch.tensor([-1, 0, 0, 1]),
                       depth=torch.tensor([0, 1, 1, 2]), scores=torch.zeros(4))
    probs = torch.tensor([[0.05, 0.1, 0.3, 0.05, 0.2, 0.3]] * 4)
    probs[1] = torch.tensor([0.5, 0.1, 0.1, 0.1, 0.1, 0.1])
    g = torch.Generator().manual_seed(0)
    n = 20000
    first = torch.zeros(V)
    second_given_2 = torch.zeros(V)
    for _ in range(n):
        path, bonus = T.sampled_accept(tree, probs, g)
        toks = [int(tree.tokens[i]) for i in path[1:]] + [bonus]
        first[toks[0]] += 1
        if toks[0] == 2 and len(toks) > 1:
            second_given_2[toks[1]] += 1
    chi2 = float((((first - n * probs[0]) ** 2) / (n * probs[0])).sum())
    assert chi2 < 20.5, (first / n, chi2)            # 5 dof, p ~ 0.001
    m = second_given_2.sum()
    chi2 = float((((second_given_2 - m * probs[1]) ** 2) / (m * probs[1])).sum())
    assert chi2 < 20.5, (second_given_2 / m, chi2)
