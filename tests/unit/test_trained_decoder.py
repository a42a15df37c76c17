"""attn_core.trained_decoder: the NumPy pass equals the torch model it was trained as, the shipped
weights hold an induction head, every head is a Step-by-step source, and any text is safe."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import attn_core as ac
from attn_core import trained_decoder as dec
from attn_core import walkthrough as wt
from tests.conftest import ROOT
from tests.support.hostile_corpus import HOSTILE

N_SEQUENCES = 20  # fresh seeds: random_repeated draws from its own stream, never training's
N_WORDS = 20


@pytest.fixture(scope="module")
def decoder() -> dec.Decoder:
    return dec.load_decoder()


def repeated_ids(decoder: dec.Decoder, seed: int, replace: bool) -> np.ndarray:
    words = dec.random_repeated(decoder, N_WORDS, seed=seed, replace=replace)
    return np.array(dec.encode(decoder, words))


# --------------------------------------------------------------------------- parity with torch


def test_numpy_pass_equals_the_torch_model(decoder):
    torch = pytest.importorskip("torch")
    from attn_core.models.train_decoder import TinyDecoder

    with np.load(dec.default_decoder_dir() / "weights.npz") as npz:
        model = TinyDecoder.from_arrays({name: npz[name] for name in npz.files}, dtype=torch.float64)
    rng = np.random.default_rng(7)
    for ids in (repeated_ids(decoder, 0, True), rng.integers(0, len(decoder.vocab), 64), np.array([3])):
        ours = dec.run(decoder, ids)
        with torch.no_grad():
            logits, att = model(torch.from_numpy(ids[None].astype(np.int64)))
        np.testing.assert_allclose(ours.logits, logits[0].numpy(), atol=1e-5, rtol=0)
        np.testing.assert_allclose(ours.attentions, att[0].numpy(), atol=1e-5, rtol=0)


def test_held_out_ids_are_the_training_scripts_batch():
    pytest.importorskip("torch")
    from attn_core.models import train_decoder as td

    assert td.EVAL_BATCH == dec.HELD_OUT_ROWS
    np.testing.assert_array_equal(dec.held_out_ids(0, period=td.EVAL_PERIOD), td.eval_batch(0))


def test_torch_parity_is_the_training_scripts_evaluation_done_in_numpy(decoder):
    """The NumPy pass on the held-out batch gives the loss and head scores the torch model
    (float32, as it trained) gives on it, and those are training.json's last entry."""
    torch = pytest.importorskip("torch")
    from attn_core.models import train_decoder as td

    training = dec.load_training()
    parity = dec.torch_parity(decoder, training)
    with np.load(dec.default_decoder_dir() / "weights.npz") as npz:
        model = td.TinyDecoder.from_arrays({name: npz[name] for name in npz.files}, dtype=torch.float32)
    again = td.evaluate(model, td.eval_batch(decoder.config["seed"]), training.period)
    assert (parity.rows, parity.T) == (td.EVAL_BATCH, 2 * td.EVAL_PERIOD)
    assert parity.torch_loss == training.loss[-1] == pytest.approx(again["loss"], abs=1e-5)
    assert parity.loss == pytest.approx(again["loss"], abs=1e-5) and parity.loss_gap < 1e-5
    assert parity.score_gap <= 0.5 * 10.0**-dec.RECORD_DECIMALS + 1e-6


# --------------------------------------------------------------------------- the induction head


@pytest.mark.parametrize("replace", [True, False], ids=["with-replacement", "distinct-words"])
def test_shipped_weights_hold_an_induction_head(decoder, replace):
    lessons = [
        dec.decoder_lesson(decoder, " ".join(dec.random_repeated(decoder, N_WORDS, seed=s, replace=replace)), period=20)
        for s in range(N_SEQUENCES)
    ]
    assert all(lesson.T == 2 * N_WORDS and lesson.known.all() for lesson in lessons)
    induction = np.mean([lesson.induction for lesson in lessons], axis=0)  # (L, H)
    layer, head = np.unravel_index(np.argmax(induction), induction.shape)
    assert layer == 1, f"the induction head should be in layer 2, scores {induction.round(2)}"
    assert induction[layer, head] >= 0.5
    # positions 20..38 predict 21..39, which the repeat determines
    correct = np.concatenate([lesson.correct[N_WORDS:] for lesson in lessons])
    assert correct.size == N_SEQUENCES * (N_WORDS - 1)
    assert correct.mean() >= 0.9
    assert np.mean([lesson.loss_repeat for lesson in lessons]) < np.mean([lesson.loss_first for lesson in lessons])


def test_a_layer_one_head_looks_at_the_previous_word(decoder):
    scores = dec.previous_token_scores(dec.run(decoder, repeated_ids(decoder, 1, True)))  # (L, H)
    assert scores[0].max() >= 0.5


def test_training_record_shows_when_the_head_formed():
    training = json.loads((dec.default_decoder_dir() / "training.json").read_text())
    history = training["history"]
    assert [p["step"] for p in history] == sorted(p["step"] for p in history)
    assert np.array(history[-1]["induction_score"]).shape == (2, 4)
    assert np.max(history[-1]["induction_score"]) > np.max(history[0]["induction_score"]) + 0.4
    assert history[-1]["repeat_accuracy"] >= 0.9


def test_shipped_weights_are_small_and_hold_only_the_forward_pass_arrays(decoder):
    """weights.npz stays under 5 MB, and holds exactly the arrays ``run`` uses: embeddings,
    the heads, W_O and the unembedding. No MLP or LayerNorm weights, as config.json says."""
    path = dec.default_decoder_dir() / "weights.npz"
    assert path.stat().st_size <= 5 * 1024 * 1024
    config = decoder.config
    expected = dec.weight_shapes(
        len(decoder.vocab), config["n_layers"], config["n_heads"], config["d_model"], config["d_k"]
    )
    with np.load(path) as npz:
        assert {name: npz[name].shape for name in npz.files} == expected
    assert decoder.attention_only and "no MLP" in config["layers"] and "no LayerNorm" in config["layers"]
    assert isinstance(decoder.vocab, tuple) and decoder.vocab == tuple(config["vocab"])


def test_shipped_files_are_what_the_training_script_wrote(decoder):
    """The training script's own held-out evaluation (its seed, batch and period) on the
    shipped weights gives the last entry of training.json: the files belong together."""
    torch = pytest.importorskip("torch")
    from attn_core.models import train_decoder as td

    record = json.loads((dec.default_decoder_dir() / "training.json").read_text())
    config = decoder.config
    last = record["history"][-1]
    assert last["step"] == config["steps"] and record["eval_period"] == td.EVAL_PERIOD
    assert (config["seed"], config["batch"], config["threads"]) == (td.SEED, td.BATCH, td.THREADS)
    with np.load(dec.default_decoder_dir() / "weights.npz") as npz:
        arrays = {name: npz[name] for name in npz.files}
    assert all(a.dtype == np.float32 for a in arrays.values())  # as the script saves them
    threads = torch.get_num_threads()
    torch.set_num_threads(td.THREADS)
    try:
        model = td.TinyDecoder.from_arrays(arrays, dtype=torch.float32)  # the dtype it trained and evaluated in
        held_out = td.eval_batch(config["seed"])
        assert held_out.shape == (td.EVAL_BATCH, 2 * record["eval_period"])
        again = td.evaluate(model, held_out, record["eval_period"])
    finally:
        torch.set_num_threads(threads)
    for name in ("loss", "loss_first", "loss_repeat", "repeat_accuracy"):
        assert again[name] == pytest.approx(last[name], abs=1e-5), name
    for name in ("induction_score", "previous_token_score"):  # stored rounded to 5 decimals
        np.testing.assert_allclose(again[name], last[name], atol=1e-5, rtol=0, err_msg=name)


def test_training_summaries_read_the_record():
    training = dec.load_training()
    history = json.loads((dec.default_decoder_dir() / "training.json").read_text())["history"]
    best = np.array([np.max(p["induction_score"]) for p in history])
    repeat = np.array([p["loss_repeat"] for p in history])
    assert training.steepest_induction_rise == int(np.argmax(best[1:] - best[:-1]))
    assert training.steepest_repeat_drop == int(np.argmin(repeat[1:] - repeat[:-1]))
    formed = next(p["step"] for p, b in zip(history, best, strict=True) if b > dec.INDUCTION_THRESHOLD)
    assert training.formed_at() == formed
    assert training.formed_at(2.0) is None


def test_induction_heads_lists_the_heads_above_the_threshold():
    scores = np.array([[0.1, 0.6], [0.5, 0.9]])
    assert dec.induction_heads(scores) == [(0, 1), (1, 1)]  # 0.5 itself has not passed 0.5
    assert dec.induction_heads(scores, threshold=0.05) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert dec.induction_heads(np.zeros((2, 4))) == []


# --------------------------------------------------------------------------- causal heads


def test_attentions_are_causal_and_each_head_is_a_step_by_step_source(decoder):
    r = dec.run(decoder, repeated_ids(decoder, 2, True))
    L, H, T = decoder.n_layers, decoder.n_heads, 2 * N_WORDS
    assert r.attentions.shape == (L, H, T, T)
    assert r.layer_inputs.shape == (L, T, decoder.d_model) and r.logits.shape == (T, len(decoder.vocab))
    above = ~np.tril(np.ones((T, T), dtype=bool))
    assert np.all(r.attentions[..., above] == 0.0)
    np.testing.assert_allclose(r.attentions.sum(axis=-1), 1.0, atol=1e-12)
    for layer in range(L):
        for head in range(H):
            w = dec.head_weights(decoder, layer, head)
            steps = ac.attention_steps(r.layer_inputs[layer], w.w_q, w.w_k, w.w_v, mask="causal")
            np.testing.assert_array_equal(steps.weights, r.attentions[layer, head])
            lesson = wt.lesson(dec.head_source(decoder, r, layer, head), causal=True)
            np.testing.assert_array_equal(lesson.steps.weights, r.attentions[layer, head])
            assert lesson.tokens == r.tokens


def test_scores_read_the_right_diagonals(decoder):
    r = dec.run(decoder, repeated_ids(decoder, 3, False))
    T = r.T
    t = np.arange(20, T)
    np.testing.assert_allclose(dec.induction_scores(r, 20), r.attentions[..., t, t - 19].mean(-1))
    t = np.arange(1, T)
    np.testing.assert_allclose(dec.previous_token_scores(r), r.attentions[..., t, t - 1].mean(-1))
    with pytest.raises(ValueError, match="period"):
        dec.induction_scores(r, T)


# --------------------------------------------------------------------------- training script


def _train(out) -> dict[str, np.ndarray]:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "attn_core.models.train_decoder",
            "--steps",
            "3",
            "--eval-every",
            "2",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    with np.load(out / "weights.npz") as npz:
        return {name: npz[name] for name in npz.files}


def test_training_script_runs_and_is_deterministic(tmp_path):
    first, second = _train(tmp_path / "a"), _train(tmp_path / "b")
    expected = dec.weight_shapes(len(dec.VOCAB), 2, 4, 64, 16)
    assert {name: a.shape for name, a in first.items()} == expected
    for name in expected:
        np.testing.assert_array_equal(first[name], second[name])
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    assert config["vocab"] == list(dec.VOCAB) and config["steps"] == 3 and config["train_length"] == 64
    for key in ("positions", "layers", "seed", "training_seconds", "torch_version", "n_layers", "n_heads", "d_k"):
        assert key in config
    history = json.loads((tmp_path / "a" / "training.json").read_text())["history"]
    assert [p["step"] for p in history] == [0, 2, 3]
    assert np.array(history[0]["induction_score"]).shape == (2, 4)
    assert np.array(history[0]["previous_token_score"]).shape == (2, 4)
    assert dec.load_decoder(tmp_path / "a").n_heads == 4


def test_importing_the_decoder_does_not_import_torch():
    code = "import sys, attn_core.trained_decoder; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    assert done.stdout.strip() == "False"


# --------------------------------------------------------------------------- loading and input


def test_missing_or_broken_files_raise_a_clear_error(tmp_path):
    with pytest.raises(dec.DecoderLoadError, match="not found"):
        dec.load_decoder(tmp_path)
    (tmp_path / "config.json").write_text((dec.default_decoder_dir() / "config.json").read_text())
    (tmp_path / "weights.npz").write_bytes(b"not a zip file")
    with pytest.raises(dec.DecoderLoadError, match="could not be read"):
        dec.load_decoder(tmp_path)


def test_encode_maps_unknown_words_to_unk(decoder):
    assert dec.encode(decoder, ["The", "zebra", "CAT", "<unk>", ""]) == [
        decoder.vocab.index("the"),
        0,
        decoder.vocab.index("cat"),
        0,
        0,
    ]


def test_bad_ids_name_the_expected_shape(decoder):
    with pytest.raises(ValueError, match=r"shape \(T,\)"):
        dec.run(decoder, np.zeros((2, 3), dtype=int))
    with pytest.raises(ValueError, match=r"T <= 64"):
        dec.run(decoder, np.zeros(65, dtype=int))
    with pytest.raises(ValueError, match=r"0\.\.100"):
        dec.run(decoder, [1, 101])


def test_detect_period():
    assert dec.detect_period(["a", "b", "c", "a", "b", "c", "a"]) == 3
    assert dec.detect_period(["a", "b", "c", "a", "b"]) == 3
    assert dec.detect_period(["a", "a", "a"]) == 1
    assert dec.detect_period(["a", "a"]) is None
    assert dec.detect_period(["a", "b", "c"]) is None
    assert dec.detect_period(["a", "b", "a"]) is None
    assert dec.detect_period([]) is None


def _assert_finite(lesson: dec.DecoderLesson) -> None:
    for value in vars(lesson).values():
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            assert np.all(np.isfinite(value))
        if isinstance(value, float):
            assert np.isfinite(value)
    for value in vars(lesson.run).values():
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            assert np.all(np.isfinite(value))


@pytest.mark.parametrize("text", [*HOSTILE.values(), "猫が好き", "the cat 😀 the cat 😀"])
def test_any_text_gives_a_finite_lesson(decoder, text):
    lesson = dec.decoder_lesson(decoder, text)
    _assert_finite(lesson)
    T = lesson.T
    assert T <= 64 and lesson.run.attentions.shape == (2, 4, T, T) and lesson.loss.shape == (max(T - 1, 0),)
    assert lesson.top_probs.shape == (T, 5) and len(lesson.top_words) == T
    assert lesson.empty == (T == 0)


def test_empty_text_gives_an_empty_lesson(decoder):
    lesson = dec.decoder_lesson(decoder, "   ")
    assert lesson.empty and lesson.period is None and lesson.induction is None and lesson.previous_token is None
    assert lesson.run.logits.shape == (0, len(decoder.vocab))


def test_long_text_is_truncated_and_unknown_words_listed(decoder):
    lesson = dec.decoder_lesson(decoder, "The zebra saw the cat. " * 20)
    assert lesson.truncated and lesson.T == 64
    assert lesson.unknown == ("zebra", "saw", ".")
    assert lesson.words[:2] == ("the", "zebra") and lesson.run.tokens[:2] == ("the", "<unk>")
    assert lesson.period == 6 and lesson.induction.shape == (2, 4)
    assert not dec.decoder_lesson(decoder, "the cat " * 32).truncated


def test_lesson_guesses_are_the_softmax_of_the_logits(decoder):
    lesson = dec.decoder_lesson(decoder, "red cat big dog sun red cat big dog")
    assert lesson.period == 5
    np.testing.assert_allclose(lesson.probs, ac.softmax(lesson.run.logits), atol=1e-15)
    assert np.all(np.diff(lesson.top_probs, axis=1) <= 0)
    ids = lesson.run.ids
    np.testing.assert_allclose(lesson.loss, -np.log(lesson.probs[np.arange(8), ids[1:]]))
    assert lesson.loss_first == pytest.approx(lesson.loss[:5].mean())
    assert lesson.loss_repeat == pytest.approx(lesson.loss[5:].mean())
    assert lesson.top_words[-1][0] == "sun"  # after "... big dog", the repeat says "sun"


def test_random_repeated(decoder):
    words = dec.random_repeated(decoder, 20, seed=5, replace=False)
    assert words[:20] == words[20:] and len(set(words)) == 20 and "<unk>" not in words
    assert words == dec.random_repeated(decoder, 20, seed=5, replace=False)
    with pytest.raises(ValueError, match="n_words"):
        dec.random_repeated(decoder, 33)


def test_the_lesson_counts_distance_and_the_weight_above_the_diagonal():
    """The page's head-grid table and its "above the diagonal" caption come from the lesson:
    sum_j A_ij |i - j| averaged over i, and the largest weight on a later word (0: causal)."""
    decoder = dec.load_decoder()
    lesson = dec.decoder_lesson(decoder, " ".join(dec.random_repeated(decoder, 10, seed=3)))
    a = lesson.run.attentions  # (L, H, T, T)
    L, H, T, _ = a.shape
    by_hand = np.zeros((L, H))
    for layer in range(L):
        for h in range(H):
            by_hand[layer, h] = np.mean([sum(a[layer, h, i, j] * abs(i - j) for j in range(T)) for i in range(T)])
    np.testing.assert_allclose(lesson.mean_distance, by_hand, rtol=1e-12)
    assert lesson.max_above_diagonal == 0.0
