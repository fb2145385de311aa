"""The embedded EAGLE-3 engine: a faithful PyTorch implementation of EAGLE-3 decoding for HF targets.

Per verify step: the draft head expands a tree (topk children per node, num_steps levels, the best
num_draft_tokens - 1 nodes kept by cumulative score); the target verifies root + tree in ONE forward pass
with a tree attention mask and tree positions; the longest accepted path is kept (greedy: exact match
with the target's argmax; sampling: lossless tree speculative sampling); the target's KV cache is compacted
to that path; the head then runs over the accepted tokens with the target's aux hidden states.

Without a head (head=None) the same step interface does plain one-token decoding: the baseline.
Requests are independent `Generation` objects, so a scheduler may interleave steps of many of them.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field

import torch

from eaglekit import cpu_linear
from eaglekit.masks import bias_from_mask
from eaglekit.models import align_cpu_weights
from serving import kv as KV
from serving import tree as T
from serving.launch import check_draft_shape


class EngineError(ValueError):
    """A request or engine setting is invalid; the message says which and why."""


@dataclass
class SamplingParams:
    max_new_tokens: int = 64
    temperature: float = 0.0          # 0 = greedy
    top_p: float = 1.0
    seed: int | None = None
    stop_token_ids: tuple[int, ...] = ()  # added to the tokenizer's end-of-sequence ids
    ignore_eos: bool = False


@dataclass
class Generation:
    """One request in flight: its caches and counters. Drive it with EagleEngine.step until finished."""
    prompt_ids: list[int]
    params: SamplingParams
    output_ids: list[int] = field(default_factory=list)
    finished: bool = False
    finish_reason: str | None = None
    verify_steps: int = 0
    spec_tokens: int = 0              # tokens produced by verify steps (bonus included)
    started: float = field(default_factory=time.perf_counter)
    first_token_time: float | None = None
    # decoding state
    target_kv: object = None
    prefilled: int = 0                # prompt tokens already in the target cache (prefill runs in chunks)
    root: int | None = None           # last committed token, not yet in the target cache
    past_len: int = 0                 # tokens in the target cache
    draft_kv: tuple | None = None
    draft_hidden: torch.Tensor | None = None   # [H] out_hidden of the last committed draft slot
    draft_logits: torch.Tensor | None = None   # [draft_vocab] logits of the last committed draft slot
    generator: torch.Generator | None = None
    accept_lengths: list[int] = field(default_factory=list)

    @property
    def accept_length(self) -> float:
        """SGLang's spec_accept_length: tokens from verify steps / verify steps (bonus included)."""
        return self.spec_tokens / self.verify_steps if self.verify_steps else 0.0


def compact_cache(cache, keep: torch.Tensor) -> None:
    """Keep only sequence positions `keep` (sorted) in every layer of an HF DynamicCache, in place."""
    if all(isinstance(layer, KV.GrowingLayer) for layer in cache.layers):
        moved = (keep != torch.arange(keep.numel())).nonzero()  # keep = [0..start) + rows: only rows move
        start = int(moved[0]) if moved.numel() else keep.numel()
        for layer in cache.layers:
            layer.keep(start, keep[start:])
        return
    for layer in cache.layers:
        if getattr(layer, "keys", None) is None or layer.keys.numel() == 0:
            continue
        idx = keep.to(layer.keys.device)
        layer.keys = layer.keys.index_select(-2, idx)
        layer.values = layer.values.index_select(-2, idx)


class EagleEngine:
    """EAGLE-3 decoding of `target` (eaglekit.models.Target) with draft `head` (eaglekit.draft.Eagle3Draft).

    steps/topk/num_draft_tokens mean what SGLang's --speculative-num-steps/-eagle-topk/-num-draft-tokens
    mean: topk 1 is a chain (num_draft_tokens is then steps + 1), topk > 1 a tree.
    On CPU the target's and head's linear layers are swapped in place for oneDNN pre-packed ones
    (eaglekit.cpu_linear: verifying 8 tokens of SmolLM2 then costs ~1.2-1.4x one token, not ~2x); packed_linear=False
    leaves the models untouched.

    min_draft_prob > 0 (off by default, as in SGLang) verifies only draft nodes whose path probability under
    the head reaches it, and stops drafting once no frontier node can: where the head is unsure, a cycle
    verifies fewer tokens or none (the step is then a plain decoding step that also feeds the head). A node
    is worth verifying when its acceptance chance exceeds what one more verified token costs relative to a
    plain step (~5% on a 2-core CPU, far less on a GPU). Outputs are unchanged: any tree verifies exactly.
    """

    def __init__(self, target, head=None, steps: int = 3, topk: int = 1, num_draft_tokens: int = 4,
                 min_draft_prob: float = 0.0, packed_linear: bool = True, prefill_chunk: int = 512):
        self.target = target
        self.model = target.model
        self.tokenizer = target.tokenizer
        self.head = head
        steps, topk, num_draft_tokens = int(steps), int(topk), int(num_draft_tokens)
        if head is not None:
            if topk == 1:
                num_draft_tokens = steps + 1  # SGLang forces a chain to steps + 1 tokens
            try:
                check_draft_shape(steps, topk, num_draft_tokens)
            except ValueError as err:
                raise EngineError(str(err)) from None
            cfg = getattr(head, "cfg", None) or getattr(head, "config", None)
            self.aux_ids = tuple(int(i) for i in cfg.aux_layer_ids_hf)
            n_layers = self.model.config.num_hidden_layers
            if max(self.aux_ids) > n_layers:
                raise EngineError(f"head reads aux layers {self.aux_ids} (hf) but the target has {n_layers} layers")
            if int(cfg.target_hidden_size) != int(self.model.config.hidden_size):
                raise EngineError(f"head expects target hidden size {cfg.target_hidden_size}, target has "
                                  f"{self.model.config.hidden_size}")
        if not 0.0 <= float(min_draft_prob) < 1.0:
            raise EngineError(f"min_draft_prob must be within [0, 1), got {min_draft_prob}")
        if int(prefill_chunk) < 1:
            raise EngineError(f"prefill_chunk must be >= 1, got {prefill_chunk}")
        # A long prompt is prefilled `prefill_chunk` tokens per step, so a scheduler interleaving steps of
        # several requests keeps decoding the others between chunks (one step is never a whole long prompt).
        self.prefill_chunk = int(prefill_chunk)
        self.steps, self.topk, self.num_draft_tokens = steps, topk, num_draft_tokens
        self.min_draft_prob = float(min_draft_prob)
        self.min_score = math.log(self.min_draft_prob) if self.min_draft_prob > 0 else -math.inf
        align_cpu_weights(self.model)  # targets built outside load_target too
        KV.install(self.model)
        if packed_linear:  # in place on the shared target (and head): same math, oneDNN pre-packed weights
            cpu_linear.pack_linears(self.model)
            if head is not None:
                cpu_linear.pack_linears(head)
        self.device = next(self.model.parameters()).device
        self.dtype = next(self.model.parameters()).dtype
        eos = self.model.config.eos_token_id
        eos = [eos] if isinstance(eos, int) else list(eos or [])
        if getattr(self.tokenizer, "eos_token_id", None) is not None:
            eos.append(self.tokenizer.eos_token_id)
        self.eos_ids = tuple(sorted(set(eos)))
        self.lock = threading.Lock()   # a model forward is not re-entrant with shared caches: serialise steps
        self.stats = {"requests": 0, "verify_steps": 0, "spec_tokens": 0, "output_tokens": 0}

    @property
    def speculative(self) -> bool:
        return self.head is not None

    def describe(self) -> dict:
        return {"speculative": self.speculative, "num_steps": self.steps, "topk": self.topk,
                "num_draft_tokens": self.num_draft_tokens, "tree": self.speculative and self.topk > 1,
                "min_draft_prob": self.min_draft_prob}

    # ------------------------------------------------------------------------------------------
    # public API

    def start(self, prompt_ids, params: SamplingParams | None = None) -> Generation:
        params = params or SamplingParams()
        prompt_ids = [int(t) for t in prompt_ids]
        if not prompt_ids:
            raise EngineError("the prompt is empty")
        vocab = self.model.config.vocab_size
        if min(prompt_ids) < 0 or max(prompt_ids) >= vocab:
            raise EngineError(f"prompt token ids must be within 0..{vocab - 1}")
        if params.max_new_tokens < 1:
            raise EngineError("max_new_tokens must be >= 1")
        if params.temperature < 0 or not 0 < params.top_p <= 1:
            raise EngineError("temperature must be >= 0 and top_p within (0, 1]")
        gen = Generation(prompt_ids=prompt_ids, params=params)
        if params.temperature > 0:
            gen.generator = torch.Generator(device="cpu")
            gen.generator.manual_seed(params.seed if params.seed is not None else torch.seed())
        return gen

    @torch.inference_mode()
    def step(self, gen: Generation) -> list[int]:
        """Advance one request by one step (a prefill chunk or one verify); return the tokens it produced
        (none for a prefill chunk that is not the prompt's last)."""
        if gen.finished:
            return []
        with self.lock:
            if gen.prefilled < len(gen.prompt_ids):
                new = self._prefill(gen)
            elif self.head is None:
                new = self._plain_step(gen)
            else:
                new = self._verify_step(gen)
        return self._commit(gen, new)

    def generate(self, prompt_ids, params: SamplingParams | None = None) -> Generation:
        gen = self.start(prompt_ids, params)
        while not gen.finished:
            self.step(gen)
        return gen

    def stream(self, prompt_ids, params: SamplingParams | None = None):
        """Yield lists of new token ids as they are produced; the last Generation is in .gen afterwards."""
        gen = self.start(prompt_ids, params)
        while not gen.finished:
            new = self.step(gen)
            if new:
                yield new

    # ------------------------------------------------------------------------------------------
    # decoding

    def _commit(self, gen: Generation, new: list[int]) -> list[int]:
        stops = set(gen.params.stop_token_ids) | (set() if gen.params.ignore_eos else set(self.eos_ids))
        out = []
        for t in new:
            out.append(t)
            if t in stops:
                gen.finished, gen.finish_reason = True, "stop"
                break
            if len(gen.output_ids) + len(out) >= gen.params.max_new_tokens:
                gen.finished, gen.finish_reason = True, "length"
                break
        if out and gen.first_token_time is None:
            gen.first_token_time = time.perf_counter()
        gen.output_ids.extend(out)
        self.stats["output_tokens"] += len(out)
        if gen.finished:
            self.stats["requests"] += 1
            gen.target_kv = gen.draft_kv = None  # free memory early
        return out

    def _choose(self, logits: torch.Tensor, gen: Generation) -> int:
        if gen.params.temperature <= 0:
            return int(logits.argmax())
        return int(torch.multinomial(self._probs(logits[None], gen.params)[0], 1, generator=gen.generator))

    @staticmethod
    def _probs(logits: torch.Tensor, params: SamplingParams) -> torch.Tensor:
        """[n, V] target sampling distribution (temperature, then nucleus), float32 on CPU."""
        probs = torch.softmax(logits.float().cpu() / params.temperature, dim=-1)
        if params.top_p < 1.0:
            sorted_p, order = probs.sort(dim=-1, descending=True)
            drop = sorted_p.cumsum(-1) - sorted_p >= params.top_p
            sorted_p[drop] = 0.0
            probs = torch.zeros_like(probs).scatter_(-1, order, sorted_p)
            probs = probs / probs.sum(-1, keepdim=True)
        return probs

    def _target(self, ids, positions, bias, cache, hidden: bool):
        cache = cache if cache is not None else KV.growing_cache(self.model.config.num_hidden_layers)
        out = self.model(input_ids=ids, position_ids=positions, attention_mask=bias, past_key_values=cache,
                         use_cache=True, output_hidden_states=hidden)
        return out, cache

    def _aux(self, out, index) -> torch.Tensor:
        """[n, 3*Ht] the head's aux features (residual stream, pre-norm) at sequence `index` of this forward."""
        hs = out.hidden_states
        return torch.cat([hs[i][0, index] for i in self.aux_ids], dim=-1)

    def _prefill(self, gen: Generation) -> list[int]:
        """The next chunk of the prompt into the target (and head) caches; the first token after the last."""
        n, start = len(gen.prompt_ids), gen.prefilled
        end = min(n, start + self.prefill_chunk)
        m = end - start
        ids = torch.tensor([gen.prompt_ids[start:end]], device=self.device)
        pos = torch.arange(start, end, device=self.device)[None]
        bias = T.causal_bias(m, start, self.dtype, self.device)
        out, cache = self._target(ids, pos, bias, gen.target_kv, hidden=self.head is not None)
        gen.target_kv, gen.prefilled, gen.past_len = cache, end, end
        if end < n:
            if self.head is not None:
                self._draft_extend(gen, self._aux(out, slice(0, m)), gen.prompt_ids[start + 1:end + 1], start=start)
            return []
        first = self._choose(out.logits[0, -1], gen)
        gen.root = first
        if self.head is not None:
            self._draft_extend(gen, self._aux(out, slice(0, m)), gen.prompt_ids[start + 1:] + [first], start=start)
        return [first]

    def _plain_step(self, gen: Generation) -> list[int]:
        ids = torch.tensor([[gen.root]], device=self.device)
        pos = torch.tensor([[gen.past_len]], device=self.device)
        bias = T.causal_bias(1, gen.past_len, self.dtype, self.device)
        out, _ = self._target(ids, pos, bias, gen.target_kv, hidden=False)
        gen.past_len += 1
        gen.root = self._choose(out.logits[0, -1], gen)
        return [gen.root]

    def _draft_extend(self, gen: Generation, aux: torch.Tensor, next_tokens: list[int], start: int) -> None:
        """Run the head over newly committed positions start.. with their aux features and next tokens."""
        m = aux.shape[0]
        hidden = self.head.fuse(aux[None].to(self.dtype))
        ids = torch.tensor([next_tokens], device=self.device)
        pos = torch.arange(start, start + m, device=self.device)[None]
        past = 0 if gen.draft_kv is None else gen.draft_kv[0].shape[-2]
        bias = T.causal_bias(m, past, self.dtype, self.device)
        out_hidden, logits, gen.draft_kv = self.head(hidden, ids, pos, bias, gen.draft_kv)
        gen.draft_hidden, gen.draft_logits = out_hidden[0, -1], logits[0, -1]

    def _draft_tree(self, gen: Generation) -> T.DraftTree:
        """Expand the draft tree from the last committed draft slot (EAGLE-2 / SGLang selection)."""
        K, head = self.topk, self.head
        logp = torch.log_softmax(gen.draft_logits.float(), -1)
        top = logp.topk(K)
        pool_tok = head.draft_to_target(top.indices).tolist()
        pool_score = top.values.tolist()
        pool_parent = [-1] * K
        pool_depth = [1] * K
        if pool_score[0] < self.min_score:             # not even the head's best guess is worth verifying
            return T.select_tree(gen.root, [], [], [], [], 0)
        frontier = list(range(K))                      # pool indices of the nodes to expand next
        f_hidden = gen.draft_hidden[None].expand(K, -1)
        f_anc: list[list[int]] = [[] for _ in range(K)]  # draft-KV columns of each frontier node's ancestors
        kv = gen.draft_kv
        base = kv[0].shape[-2]
        last_pos = gen.past_len - 1                    # position of the last committed draft slot
        for step in range(1, self.steps):
            cols = base + (step - 1) * K               # first column of this step's slots
            visible = torch.zeros(K, cols + K, dtype=torch.bool)
            visible[:, :base] = True
            for j in range(K):
                visible[j, f_anc[j]] = True
                visible[j, cols + j] = True
            bias = bias_from_mask(visible, self.dtype)
            ids = torch.tensor([[pool_tok[f] for f in frontier]], device=self.device)
            pos = torch.tensor([[last_pos + pool_depth[f] for f in frontier]], device=self.device)
            out_hidden, logits, kv = head(f_hidden[None], ids, pos, bias[None, None].to(self.device), kv)
            child = torch.log_softmax(logits[0].float(), -1).topk(K)         # [K, K]
            cand = torch.tensor([pool_score[f] for f in frontier])[:, None] + child.values.cpu()
            cand_tok = head.draft_to_target(child.indices).cpu()
            first_new = len(pool_tok)
            for j, f in enumerate(frontier):
                pool_tok.extend(cand_tok[j].tolist())
                pool_score.extend(cand[j].tolist())
                pool_parent.extend([f] * K)
                pool_depth.extend([step + 1] * K)
            if step == self.steps - 1:
                break
            best = cand.flatten().topk(K)
            if float(best.values[0]) < self.min_score:  # scores only fall along a path: nothing deeper qualifies
                break
            best = best.indices.tolist()
            frontier = [first_new + b for b in best]
            f_hidden = out_hidden[0, [b // K for b in best]]
            f_anc = [f_anc[b // K] + [cols + b // K] for b in best]
        return T.select_tree(gen.root, pool_tok, pool_score, pool_parent, pool_depth, self.num_draft_tokens - 1,
                             min_score=self.min_score)

    def _verify_step(self, gen: Generation) -> list[int]:
        tree = self._draft_tree(gen)
        L = gen.past_len
        ids = tree.tokens[None].to(self.device)
        pos = T.tree_positions(tree, L)[None].to(self.device)
        bias = T.tree_attention_bias(tree, L, self.dtype, self.device)
        out, cache = self._target(ids, pos, bias, gen.target_kv, hidden=True)
        if gen.params.temperature <= 0:
            path, bonus = T.greedy_accept(tree, out.logits[0].argmax(-1).cpu())
        else:
            path, bonus = T.sampled_accept(tree, self._probs(out.logits[0], gen.params), gen.generator)
        if all(isinstance(layer, KV.GrowingLayer) for layer in cache.layers):
            rows = L + torch.tensor(path)
            for layer in cache.layers:
                layer.keep(L, rows)
        else:
            compact_cache(cache, torch.cat([torch.arange(L), L + torch.tensor(path)]))
        accepted = [int(tree.tokens[i]) for i in path[1:]]
        new = accepted + [bonus]
        gen.verify_steps += 1
        gen.spec_tokens += len(new)
        gen.accept_lengths.append(len(new))
        self.stats["verify_steps"] += 1
        self.stats["spec_tokens"] += len(new)
        # the head sees the aux states of root + accepted nodes, each paired with the token that follows it
        self._draft_extend(gen, self._aux(out, torch.tensor(path, device=self.device)), new, start=L)
        gen.past_len = L + len(path)
        gen.root = bonus
        return new

    def mean_accept_length(self) -> float:
        s = self.stats
        return s["spec_tokens"] / s["verify_steps"] if s["verify_steps"] else 0.0


def load_head(path: str, target):
    """Load an exported head onto the target's embedding, device and dtype (eaglekit.export.load_head checks
    every tensor). Lives here, not in serving.server, so a GPU box without the HTTP stack can load one."""
    try:
        from eaglekit.export import load_head as _load
    except ImportError as err:
        raise EngineError(f"cannot load {path}: eaglekit.export is not available ({err})") from err
    head = _load(path, target)
    p = next(target.model.parameters())
    return head.to(device=p.device, dtype=p.dtype).eval()


def plain_greedy(target, prompt_ids, max_new_tokens: int, eos_ids=()) -> list[int]:
    """Reference greedy decoding with HF generate (for equivalence tests)."""
    model = target.model
    ids = torch.tensor([list(prompt_ids)], device=next(model.parameters()).device)
    with torch.inference_mode():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new_tokens,
                             do_sample=False, eos_token_id=list(eos_ids) or None,
                             pad_token_id=target.tokenizer.pad_token_id)
    return out[0, ids.shape[1]:].tolist()
