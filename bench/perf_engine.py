"""engine: attn_core.attention_steps (NumPy, float64, every step kept) against torch's
fused scaled_dot_product_attention on the CPU, both including the Q, K, V projections.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

# One thread for NumPy's BLAS and for torch: on a small shared machine, two libraries each
# spinning two threads make the numbers swing by 10x. Set before NumPy is imported.
THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
if __name__ == "__main__":
    os.environ.update(THREADS)

import numpy as np  # noqa: E402

SIZES = (16, 128, 512)
D_MODEL = 64
D_K = 64


def _per_call_ms(fn, repeats: int) -> float:
    """timeit-style: enough calls per batch for ~20 ms, median over ``repeats`` batches."""
    timer = timeit.Timer(fn)
    once = max(timer.timeit(number=1), 1e-7)
    number = max(1, int(0.02 / once))
    runs = timer.repeat(repeat=repeats, number=number)
    return round(statistics.median(runs) / number * 1000.0, 4)


def run(quick: bool = False) -> dict:
    """Measure in a fresh interpreter with one BLAS/torch thread; returns the engine section."""
    cmd = [sys.executable, str(Path(__file__).resolve())] + (["--quick"] if quick else [])
    done = subprocess.run(cmd, env={**os.environ, **THREADS}, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode:
        raise RuntimeError(f"the engine bench failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(quick: bool = False) -> dict:
    import torch
    import torch.nn.functional as F

    import attn_core as ac

    torch.set_num_threads(1)
    repeats = 5 if quick else 15
    result: dict = {
        "d_model": D_MODEL,
        "d_k": D_K,
        "device": "cpu",
        "threads": torch.get_num_threads(),
        "what": "Q,K,V projections + scores + softmax + output for one head; attention_steps in float64 "
        "(keeps every intermediate); torch SDPA in float64 and in float32",
    }
    rng = np.random.default_rng(0)
    for T in SIZES:
        x = rng.standard_normal((T, D_MODEL))
        w = ac.init_weights(D_MODEL, d_k=D_K, seed=0)
        ours = _per_call_ms(lambda x=x, w=w: ac.attention_steps(x, w.w_q, w.w_k, w.w_v), repeats)
        row = {"attention_steps_f64_ms": ours}
        for name, dtype in (("f64", torch.float64), ("f32", torch.float32)):
            tx = torch.from_numpy(x).to(dtype)
            tq, tk, tv = (torch.from_numpy(m).to(dtype) for m in (w.w_q, w.w_k, w.w_v))

            def sdpa(tx=tx, tq=tq, tk=tk, tv=tv):
                with torch.inference_mode():
                    q, k, v = tx @ tq, tx @ tk, tx @ tv  # (T, d_k)
                    return F.scaled_dot_product_attention(q[None], k[None], v[None])

            # Same numbers as attn_core (up to rounding), or the comparison would be meaningless.
            expected = ac.attention_steps(x, w.w_q, w.w_k, w.w_v).output
            got = sdpa()[0].double().numpy()
            if not np.allclose(got, expected, atol=1e-3 if dtype == torch.float32 else 1e-9):
                raise AssertionError(f"SDPA {name} disagrees with attention_steps at T={T}")
            row[f"sdpa_{name}_ms"] = _per_call_ms(sdpa, repeats)
            row[f"ratio_{name}"] = round(ours / row[f"sdpa_{name}_ms"], 2)  # > 1: attention_steps is slower
        result[f"T{T}"] = row
    return result


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    print(json.dumps(measure("--quick" in sys.argv)))
