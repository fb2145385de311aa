"""Synthesize user prompts from the target model itself (Magpie: Xu et al., 2024), for when there is no
prompt set to train a draft head on, or the one there is covers too little.

An instruct model given its chat template only up to the start of a user turn writes a plausible user
message: sampled at temperature ~1 the messages are as varied as the chats the model was tuned on, and
they come from the target's own idea of what users ask, which is what its draft head has to learn.
A system prompt per category steers the topic (code, math, ...); the conversations written later keep
only the user message. Each prompt records how it was made (model, category, seed) as provenance, and
goes through `eaglekit beam run clean` like any other input: sampled text can hold made-up names,
phone numbers or benchmark questions, and the clean stage redacts, dedupes and decontaminates it.
"""
from __future__ import annotations

from eaglekit.config import DTYPES, ConfigError, config, setting


# system prompts that steer the synthesized user turn; None keeps the template's own default
DEFAULT_STEERING: dict[str, str | None] = {
    "chat": None,
    "code": "You are a programming assistant. Users ask you to write, explain, review and debug code.",
    "math": "You are a patient math tutor. Users ask you arithmetic, algebra, geometry and word problems.",
    "writing": "You are a writing assistant. Users ask you for poems, stories, emails, summaries and rewrites.",
    "knowledge": "You are a knowledgeable assistant. Users ask you factual questions about science, history, "
                 "geography and how things work.",
}


@config
class SynthConfig:
    target: str = setting("embedded", "Target model (the one the head will serve).")
    out: str | None = setting(None, "JSONL to write ({id, category, messages, provenance}).")
    n: int = setting(1000, "Prompts to write (fewer if sampling keeps failing).", ge=0)
    steering: dict[str, str | None] = setting(factory=lambda: dict(DEFAULT_STEERING), cli=False,
                                              help="category -> system prompt that steers the sampled user turns")
    temperature: float = setting(1.0, "Sampling temperature.", gt=0.0)
    top_p: float = setting(1.0, "Nucleus sampling.", gt=0.0, le=1.0)
    max_new_tokens: int = setting(64, "Longest user message kept; longer ones are dropped, never cut.", ge=1)
    batch_size: int = setting(32, "Rows per generate() call (categories mixed); 256+ keeps a GPU busy.", ge=1)
    seed: int = setting(0, "Sampling seed.")
    min_words: int = setting(3, "Shorter user messages are dropped.", ge=1, cli=False)
    device: str | None = setting(None, "cpu, cuda or cuda:N (default: cpu; in the library: where the model is).")
    dtype: DTYPES | None = setting(None, "Model dtype (default float32 on cpu, bfloat16 on cuda).")

    def __post_init__(self):
        if self.device is not None and not (self.device == "cpu" or self.device.startswith(("cuda", "mps"))):
            raise ConfigError(f"must be cpu, cuda, cuda:N or mps, got {self.device!r}", key="device")
        if not self.steering:
            raise ConfigError("needs at least one category", key="steering")


_MARK = "\x00EAGLEKIT_QUERY\x00"


def pre_query_text(tokenizer, system: str | None) -> str:
    """The chat template rendered up to where the user's words begin (the template decides the rest)."""
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": _MARK}]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)
    if _MARK not in text:
        raise ValueError("the chat template does not place the user message verbatim: cannot synthesize prompts")
    return text[: text.index(_MARK)]


def end_of_turn_ids(tokenizer, model) -> list[int]:
    ids = set()
    for tok in ("<|im_end|>", "<|eot_id|>", "<end_of_turn>", "</s>"):
        i = tokenizer.convert_tokens_to_ids(tok)
        if isinstance(i, int) and i != tokenizer.unk_token_id and i is not None and i >= 0:
            ids.add(i)
    eos = model.generation_config.eos_token_id if model.generation_config is not None else None
    ids.update([eos] if isinstance(eos, int) else list(eos or []))
    if tokenizer.eos_token_id is not None:
        ids.add(tokenizer.eos_token_id)
    return sorted(ids)


def _batch_categories(want: dict[str, int], batch_size: int) -> list[str]:
    """The categories of one generate() call's rows: round-robin over the categories still short, up to twice
    what each still wants (sampling fails sometimes), so every call is full while anything is wanted."""
    need = {c: 2 * w for c, w in want.items() if w > 0}
    rows: list[str] = []
    while len(rows) < batch_size and any(need.values()):
        for c in need:
            if need[c] > 0 and len(rows) < batch_size:
                rows.append(c)
                need[c] -= 1
    return rows


def synthesize(target, cfg: SynthConfig, echo=None) -> list[dict]:
    """[{"id", "category", "messages": [user], "provenance"}]: `cfg.n` user prompts sampled from the target,
    spread evenly over the steering categories; only messages that ended on their own (end-of-turn token
    within max_new_tokens) and hold at least `min_words` words are kept; exact repeats are skipped.

    Batched on `cfg.device` (the model is moved there, in `cfg.dtype`, when given): each generate() call holds
    `cfg.batch_size` rows, categories mixed and left-padded, so a GPU stays full until the last prompts."""
    import torch
    tok, model = target.tokenizer, target.model
    if cfg.device is not None or cfg.dtype is not None:
        dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}.get(cfg.dtype or "")
        model.to(**({"device": cfg.device} if cfg.device else {}), **({"dtype": dtype} if dtype else {}))
    device = next(model.parameters()).device
    stops = end_of_turn_ids(tok, model)
    pad = tok.pad_token_id if tok.pad_token_id is not None else stops[0]
    cats = list(cfg.steering)
    prefixes = {c: tok(pre_query_text(tok, cfg.steering[c]), add_special_tokens=False).input_ids for c in cats}
    out, seen = [], set()
    want = {c: cfg.n // len(cats) + (i < cfg.n % len(cats)) for i, c in enumerate(cats)}
    batch_no, failures = 0, 0
    while any(want[c] > 0 for c in cats) and failures < 20:
        row_cats = _batch_categories(want, cfg.batch_size)
        width = max(len(prefixes[c]) for c in row_cats)
        ids = torch.full((len(row_cats), width), int(pad), dtype=torch.long)
        mask = torch.zeros((len(row_cats), width), dtype=torch.long)
        for r, c in enumerate(row_cats):  # left padding: every row's next token is at the same column
            ids[r, width - len(prefixes[c]):] = torch.tensor(prefixes[c], dtype=torch.long)
            mask[r, width - len(prefixes[c]):] = 1
        torch.manual_seed(cfg.seed * 1_000_003 + batch_no)  # each batch reproducible on its own
        with torch.inference_mode():
            gen = model.generate(ids.to(device), attention_mask=mask.to(device), do_sample=True,
                                 temperature=cfg.temperature, top_p=cfg.top_p, top_k=0,
                                 max_new_tokens=cfg.max_new_tokens, eos_token_id=stops, pad_token_id=pad)
        kept = 0
        for row_no, (c, row) in enumerate(zip(row_cats, gen[:, width:].tolist())):
            ended = next((k for k, t in enumerate(row) if t in stops), None)
            if ended is None:
                continue  # ran past max_new_tokens: a cut message is not a prompt
            text = tok.decode(row[:ended], skip_special_tokens=True).strip()
            if len(text.split()) < cfg.min_words or text in seen or want[c] <= 0:
                continue
            seen.add(text)
            want[c] -= 1
            kept += 1
            out.append({"id": f"synth-{c}-{cfg.seed}-{batch_no}-{row_no}", "category": c,
                        "messages": [{"role": "user", "content": text}],
                        "provenance": {"source": "synthesized", "model": getattr(target, "model_id", None),
                                       "method": "magpie", "category": c, "seed": cfg.seed,
                                       "batch": batch_no, "row": row_no, "temperature": cfg.temperature,
                                       "top_p": cfg.top_p}})
        failures = failures + 1 if kept == 0 else 0
        batch_no += 1
        if echo:
            echo(f"synthesized {len(out)}/{cfg.n} prompts")
    return out
