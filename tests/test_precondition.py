"""fc trained in standardized-input coordinates: exactly the reparametrization W = W' / c, with W kept."""
from types import SimpleNamespace

import torch
from torch import nn

from eaglekit.train.precondition import FcPreconditioner, aux_rms


def _steps(n_steps, use_precond, c, x, y, w0, other0, wd=0.1, clip=0.5):
    """AdamW + clip over fc and one other parameter: on W' with input x / c (use_precond False), or on W with
    input x and the preconditioner (True). Returns fc's weight in W's coordinates and the other parameter."""
    fc = nn.Linear(x.shape[1], y.shape[1], bias=False)
    other = nn.Parameter(other0.clone())
    with torch.no_grad():
        fc.weight.copy_(w0)
    pre = FcPreconditioner(fc, c) if use_precond else None
    if pre is not None:
        pre.init_columns()
    opt = torch.optim.AdamW([fc.weight, other], lr=1e-2, weight_decay=wd, betas=(0.9, 0.95))
    for _ in range(n_steps):
        out = fc(x if pre is not None else x / c) * other
        loss = (out - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        if pre is not None:
            pre.scale_grad()
        torch.nn.utils.clip_grad_norm_([fc.weight, other], clip)
        if pre is not None:
            pre.step(opt)
        else:
            opt.step()
    w = fc.weight.detach() if pre is not None else fc.weight.detach() / c
    return w, other.detach()


def test_preconditioner_equals_training_on_standardized_inputs():
    torch.manual_seed(0)
    c = torch.tensor([1.0, 300.0, 0.5, 2000.0, 6.0], dtype=torch.float64)
    x = torch.randn(64, 5, dtype=torch.float64) * c
    y = torch.randn(64, 3, dtype=torch.float64)
    w0, other0 = torch.randn(3, 5, dtype=torch.float64) * 0.02, torch.ones(3, dtype=torch.float64)
    torch.set_default_dtype(torch.float64)
    try:
        ref_w, ref_o = _steps(20, False, c, x, y, w0, other0)
        w, o = _steps(20, True, c, x, y, w0, other0)
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.allclose(w, ref_w, rtol=1e-9, atol=1e-12)
    assert torch.allclose(o, ref_o, rtol=1e-9, atol=1e-12)   # the clip saw the same gradient norm
    assert not torch.allclose(w * c, w0 / c * c)                 # it trained


def test_aux_rms_reads_the_kept_finite_rows_up_to_a_token_budget():
    rows = [SimpleNamespace(id="a", aux=torch.tensor([[3.0, 0.0], [4.0, 2.0]])),
            SimpleNamespace(id="held", aux=torch.tensor([[100.0, 100.0]])),
            SimpleNamespace(id="nan", aux=torch.tensor([[float("nan"), 1.0]])),
            SimpleNamespace(id="b", aux=torch.tensor([[0.0, 2.0], [0.0, 2.0], [9.0, 9.0]]))]
    ds = SimpleNamespace(iter_rows=lambda: iter(rows))
    keep = lambda rid: rid != "held"  # noqa: E731
    assert torch.allclose(aux_rms(ds, keep), torch.tensor([(9 + 16 + 81) / 5, (4 + 4 + 4 + 81) / 5]).sqrt())
    assert torch.allclose(aux_rms(ds, keep, max_tokens=4), torch.tensor([25 / 4, 12 / 4]).sqrt())
