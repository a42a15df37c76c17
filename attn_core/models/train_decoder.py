"""torch layer: imports torch, transformers, numpy, the standard library and attn_core's NumPy modules.

Train the tiny decoder that ``attn_core.trained_decoder`` runs, and write assets/decoder/.

    python -m attn_core.models.train_decoder [--out DIR] [--steps N] [--seed S]

Torch on the CPU, one thread (THREADS), fixed seeds and deterministic algorithms: the same
command gives the same weights. The model is the one ``attn_core.trained_decoder`` documents (2 layers x
4 heads, d_model 64, d_k 16, attention-only, sinusoidal positions, no LayerNorm); its
parameters have the NumPy shapes of weights.npz, so saving is a plain copy.

The data are made on the fly: random words (drawn with replacement, <unk> included) where
part of each sequence repeats an earlier stretch, with periods 1..32 and repeats starting
anywhere, so that an induction head pays off. Every ``--eval-every`` steps a fixed held-out
batch (its own random stream) records the loss, each head's induction and previous-token
scores and the accuracy on the repeat into training.json.

This is the only module besides ``attn_core.models`` that imports torch.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ..engine import positional_encoding
from ..trained_decoder import MAX_TOKENS, VOCAB, default_decoder_dir, weight_shapes

SEED = 0
STEPS = 5000
BATCH = 64
LR = 3e-3
WARMUP = 200
WEIGHT_DECAY = 0.01
EVAL_EVERY = 100
EVAL_BATCH = 128
EVAL_PERIOD = 32  # held-out sequences: 32 random words, then the same 32 again (T = 64)
N_LAYERS, N_HEADS, D_MODEL, D_K = 2, 4, 64, 16
THREADS = 1  # one thread: the sums run in a fixed order, so the same seed gives the same weights


# --------------------------------------------------------------------------- data


def make_batch(rng: np.random.Generator, batch: int, T: int = MAX_TOKENS, V: int = len(VOCAB)) -> np.ndarray:
    """Random word ids where part of each row repeats an earlier stretch.

    Per row, one of: a stretch of p words repeated to the end after some random words
    (50%); a stretch copied once after a gap (35%); no planned repeat (15%).

    Returns: ids (batch, T) int64
    """
    out = rng.integers(0, V, size=(batch, T))  # (batch, T) random words everywhere first
    for row in out:
        kind = rng.random()
        if kind < 0.5:  # noise, then seg seg seg ... (period p)
            p = int(rng.integers(1, T // 2 + 1))
            start = 0 if rng.random() < 0.5 else int(rng.integers(0, T - 2 * p + 1))
            for t in range(start + p, T):
                row[t] = row[t - p]
        elif kind < 0.85:  # noise, seg, noise, seg, noise
            p = int(rng.integers(2, T // 2 + 1))
            start = int(rng.integers(0, T - 2 * p + 1))
            copy_at = int(rng.integers(start + p, T - p + 1))
            row[copy_at : copy_at + p] = row[start : start + p]
    return out.astype(np.int64)


def eval_batch(seed: int) -> np.ndarray:
    """The fixed held-out batch: EVAL_PERIOD random words then the same again, per row.

    Returns: ids (EVAL_BATCH, 2 * EVAL_PERIOD) int64
    """
    rng = np.random.default_rng([seed, 1])  # training draws from [seed, 0]
    first = rng.integers(1, len(VOCAB), size=(EVAL_BATCH, EVAL_PERIOD))  # real words, no <unk>
    return np.concatenate([first, first], axis=1).astype(np.int64)


# --------------------------------------------------------------------------- the model


class TinyDecoder(nn.Module):
    """The torch twin of ``attn_core.trained_decoder.run``: parameters named and shaped as in weights.npz."""

    def __init__(
        self,
        V: int = len(VOCAB),
        L: int = N_LAYERS,
        H: int = N_HEADS,
        d_model: int = D_MODEL,
        d_k: int = D_K,
        max_len: int = MAX_TOKENS,
    ) -> None:
        super().__init__()
        shapes = weight_shapes(V, L, H, d_model, d_k)
        self.w_e = nn.Parameter(torch.randn(shapes["w_e"]))
        std = 1.0 / math.sqrt(d_model)
        for name in ("w_q", "w_k", "w_v"):
            setattr(self, name, nn.Parameter(torch.randn(shapes[name]) * std))
        self.w_o = nn.Parameter(torch.randn(shapes["w_o"]) / math.sqrt(H * d_k) / math.sqrt(2 * L))
        self.w_u = nn.Parameter(torch.randn(shapes["w_u"]) * std)
        self.b_u = nn.Parameter(torch.zeros(shapes["b_u"]))
        self.register_buffer("pe", torch.from_numpy(positional_encoding(max_len, d_model)).float())
        self.register_buffer("causal", torch.ones(max_len, max_len).tril().bool())

    def forward(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """ids (B, T) -> logits (B, T, V), attentions (B, L, H, T, T)."""
        T = ids.shape[1]
        d_k = self.w_q.shape[-1]
        x = self.w_e[ids] + self.pe[:T].to(self.w_e.dtype)  # (B, T, d_model)
        attentions = []
        for layer in range(self.w_q.shape[0]):
            q = torch.einsum("btd,hdk->bhtk", x, self.w_q[layer])  # (B, H, T, d_k)
            k = torch.einsum("btd,hdk->bhtk", x, self.w_k[layer])
            v = torch.einsum("btd,hdk->bhtk", x, self.w_v[layer])
            scaled = q @ k.transpose(-1, -2) / math.sqrt(d_k)  # (B, H, T, T)
            weights = torch.softmax(scaled.masked_fill(~self.causal[:T, :T], float("-inf")), dim=-1)
            out = weights @ v  # (B, H, T, d_v)
            concat = out.transpose(1, 2).reshape(ids.shape[0], T, -1)  # (B, H, T, d_v) -> (B, T, H*d_v)
            x = x + concat @ self.w_o[layer]  # (B, T, d_model)
            attentions.append(weights)
        logits = x @ self.w_u + self.b_u  # (B, T, V)
        return logits, torch.stack(attentions, dim=1)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], dtype: torch.dtype = torch.float64) -> TinyDecoder:
        """A model holding the given weights.npz arrays (e.g. to check the NumPy pass)."""
        V, d_model = arrays["w_e"].shape
        L, H, _, d_k = arrays["w_q"].shape
        model = cls(V, L, H, d_model, d_k)
        with torch.no_grad():
            for name, param in model.named_parameters():
                param.copy_(torch.from_numpy(np.asarray(arrays[name])))
        return model.to(dtype).eval()

    def arrays(self) -> dict[str, np.ndarray]:
        """The parameters as float32 NumPy arrays, named as in weights.npz."""
        return {name: p.detach().float().numpy().copy() for name, p in self.named_parameters()}


# --------------------------------------------------------------------------- evaluation


def evaluate(model: TinyDecoder, ids: np.ndarray, period: int) -> dict[str, object]:
    """Loss, per-head induction and previous-token scores, and top-1 accuracy on the repeat.

    ids (B, T) repeating with ``period``; accuracy counts positions t >= period.
    """
    model.eval()
    with torch.no_grad():
        x = torch.from_numpy(ids)
        logits, att = model(x)  # (B, T, V), (B, L, H, T, T)
        loss = nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), x[:, 1:], reduction="none")  # (B, T-1)
        T = ids.shape[1]
        t = torch.arange(period, T)
        induction = att[..., t, t - period + 1].mean(dim=(0, -1))  # (B, L, H, n) -> (L, H)
        t1 = torch.arange(1, T)
        previous = att[..., t1, t1 - 1].mean(dim=(0, -1))  # (L, H)
        correct = logits[:, :-1].argmax(-1) == x[:, 1:]  # (B, T-1)
    model.train()
    return {
        "loss": float(loss.mean()),
        "loss_first": float(loss[:, :period].mean()),
        "loss_repeat": float(loss[:, period:].mean()),
        "repeat_accuracy": float(correct[:, period:].float().mean()),
        "induction_score": np.round(induction.numpy(), 5).tolist(),
        "previous_token_score": np.round(previous.numpy(), 5).tolist(),
    }


# --------------------------------------------------------------------------- training


def train(steps: int = STEPS, seed: int = SEED, out: Path | None = None, eval_every: int = EVAL_EVERY) -> dict:
    """Train from ``seed`` for ``steps`` steps and write weights.npz, config.json and training.json to ``out``.

    Returns: the config dict that was written
    """
    out = default_decoder_dir() if out is None else Path(out)
    torch.set_num_threads(THREADS)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(seed)
    rng = np.random.default_rng([seed, 0])
    held_out = eval_batch(seed)

    model = TinyDecoder()
    decay = [p for n, p in model.named_parameters() if n != "b_u"]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": WEIGHT_DECAY}, {"params": [model.b_u], "weight_decay": 0.0}], lr=LR
    )

    def lr_at(step: int) -> float:  # linear warm-up, then cosine down to 10%
        if step < WARMUP:
            return (step + 1) / WARMUP
        done = (step - WARMUP) / max(1, steps - WARMUP)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * done))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    history: list[dict] = []
    running: list[float] = []
    started = time.perf_counter()
    for step in range(steps + 1):
        if step % eval_every == 0 or step == steps:
            point = {"step": step, "train_loss": float(np.mean(running)) if running else None}
            point.update(evaluate(model, held_out, EVAL_PERIOD))
            point["seconds"] = round(time.perf_counter() - started, 2)
            history.append(point)
            running = []
            print(
                f"step {step:5d}  train {point['train_loss'] or float('nan'):.3f}  held-out {point['loss']:.3f}"
                f"  repeat acc {point['repeat_accuracy']:.3f}"
                f"  best induction {np.max(point['induction_score']):.3f}  {point['seconds']:.0f}s",
                flush=True,
            )
        if step == steps:
            break
        ids = torch.from_numpy(make_batch(rng, BATCH))
        logits, _ = model(ids)
        loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        running.append(loss.item())
    seconds = time.perf_counter() - started

    config = {
        "vocab": list(VOCAB),
        "n_layers": N_LAYERS,
        "n_heads": N_HEADS,
        "d_model": D_MODEL,
        "d_k": D_K,
        "d_v": D_K,
        "positions": "sinusoidal (attn_core.engine.positional_encoding), added to the token embeddings",
        "layers": "attention-only: x + concat(heads) @ w_o; no MLP, no LayerNorm, no biases in the heads",
        "unembedding": "logits = x @ w_u + b_u",
        "train_length": MAX_TOKENS,
        "seed": seed,
        "steps": steps,
        "batch": BATCH,
        "learning_rate": LR,
        "weight_decay": WEIGHT_DECAY,
        "threads": THREADS,
        "training_seconds": round(seconds, 1),
        "torch_version": torch.__version__,
    }
    training = {
        "eval_every": eval_every,
        "eval_batch": f"{EVAL_BATCH} rows of {EVAL_PERIOD} random words (no <unk>) then the same {EVAL_PERIOD} again",
        "eval_period": EVAL_PERIOD,
        "score_shape": "(L, H): induction_score[l][h], previous_token_score[l][h]",
        "history": history,
    }
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "weights.npz", **model.arrays())
    (out / "config.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    (out / "training.json").write_text(json.dumps(training, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} in {seconds:.0f}s")
    return config


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: assets/decoder/)")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"training steps (default {STEPS})")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    parser.add_argument("--eval-every", type=int, default=EVAL_EVERY, help=f"default {EVAL_EVERY}")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.eval_every < 1:
        parser.error("--steps and --eval-every must be >= 1")
    train(steps=args.steps, seed=args.seed, out=args.out, eval_every=args.eval_every)


if __name__ == "__main__":
    main()
