"""p5.brush's random streams, reproduced: the same numbers as p5.brush 2.2.2's ``core/utils.js``.

The expected values were printed by p5.brush's own ``_hashSeed``/``_makePRNG`` code run in node
(the browser test ``test_native_fills_draw_as_many_numbers_as_p5_brush`` checks the streams in the
real library end to end).
"""

from __future__ import annotations

import math

import numpy as np

from aquarelle.render.brush_random import (LUT_COS, LUT_SIN, Stream2, advance, dist, draws, fill_pools, gauss,
                                           hash_seed, js_hypot, js_string, lut_index, make_state, rnd)


def test_seed_hash_and_first_draws_are_p5_brushs():
    assert hash_seed(0) == 315636437 and hash_seed(42) == 1016842590 and hash_seed("abc") == 2044804051
    st = make_state(0)
    assert [rnd(st) for _ in range(3)] == [0.8055809221696109, 0.8758013788610697, 0.054195898585021496]
    st = make_state(123456789)
    assert rnd(st) == 0.0068350909277796745
    assert Stream2(0).random() == 0.1959970851894468 and Stream2(42).random() == 0.3999240731354803


def test_the_seed_is_hashed_as_javascript_writes_it():
    assert js_string(3.0) == "3" and js_string(0.5) == "0.5" and js_string("x") == "x"
    assert hash_seed(7.0) == hash_seed(7) != hash_seed(7.5)


def test_stream2_blocks_continue_the_single_draws():
    a, b = Stream2(5), Stream2(5)
    one = [a.random() for _ in range(7)]
    assert np.array_equal(b.block(3), one[:3]) and np.array_equal(b.random(4), one[3:])


def test_numbers_drawn_ahead_are_the_streams_next_and_advance_skips_them():
    st = make_state(3)
    s0 = int(st[0])
    ahead = np.empty(1000)
    draws(s0, ahead)
    one = [rnd(st) for _ in range(1000)]
    assert ahead.tolist() == one and len(set(one)) == 1000
    assert advance(s0, 1000) == int(st[0]) and advance(s0, 0) == s0


def test_gaussian_keeps_its_second_value_and_reseeding_forgets_it():
    st = make_state(1)
    u, v = rnd(make_state(1)), None
    st2 = make_state(1)
    rnd(st2)
    v = rnd(st2)
    r = math.sqrt(-2.0 * math.log(1.0 - u))
    k = int(360.0 * v * 4.0)
    assert gauss(st, 0.0, 1.0) == r * LUT_COS[k]
    assert gauss(st, 10.0, 2.0) == r * LUT_SIN[k] * 2.0 + 10.0  # the cached sine: no new draws
    assert st[0] == st2[0]
    fresh = make_state(1)
    assert fresh[1] == 0.0


#: (a, b, Math.hypot(a, b)) printed by node 20 (V8): pairs where a correctly rounded hypot differs in the last bit
_V8_HYPOT = [(-12.900000000000006, -18.400000000000002, 22.47153755309147),
             (61.69999999999999, 4.999999999999993, 61.9022616711215),
             (58.39999999999996, 13.299999999999976, 59.89532536016475),
             (-17.300000000000026, 24.999999999999993, 30.402138082707282),
             (-18.40000000000005, 60.09999999999999, 62.853559962821514),
             (-50.2, -30.1, 58.532469621569874)]


def test_hypot_is_v8s_to_the_last_bit():
    """p5.brush ceils and rounds lengths from Math.hypot (the fill's trim bridge, ``dist``): on a self-crossing
    polygon at low bleed, a last-bit difference inserted one vertex more and every later draw shifted."""
    assert any(math.hypot(a, b) != h for a, b, h in _V8_HYPOT)  # the pairs do tell the two apart
    for a, b, h in _V8_HYPOT:
        assert js_hypot(a, b) == h
        assert js_hypot.py_func(a, b) == h
    assert dist(3.0, 4.0, 3.0 + a, 4.0 + b) == js_hypot((3.0 + a) - 3.0, (4.0 + b) - 4.0)
    assert js_hypot(0.0, -0.0) == 0.0 and js_hypot(math.inf, math.nan) == math.inf
    assert math.isnan(js_hypot(math.nan, 1.0))


def test_angle_table_index_truncates_like_p5_brush():
    assert lut_index(0.0) == 0 and lut_index(359.99) == 1439 and lut_index(360.0) == 0
    assert lut_index(-0.1) == 1439 and lut_index(-90.0) == 1080 and lut_index(-400.0) == 1280
    assert lut_index(725.0) == 20 and lut_index(1500.0) == 240
    assert LUT_COS.dtype == np.float64 and float(np.float32(LUT_COS[7])) == LUT_COS[7]  # float32 values


def test_angle_just_below_zero_indexes_the_nan_past_the_table_as_in_p5_brush():
    """``angleToIdx(-3e-15)`` is ``~~((-3e-15 + 360) * 4)`` = 1440, one past p5.brush's tables, where JavaScript
    reads undefined (NaN). A field angle of -2.9e-15 does reach it (three of the bench paintings), and reading
    past our table found different memory in a fresh compile and a cached one: the pixels changed between runs.
    Every index stays in [0, 1440], NaN and infinities truncate to 0 as ``~~`` does, compiled or not."""
    assert LUT_COS.shape == LUT_SIN.shape == (1441,)
    assert math.isnan(LUT_COS[1440]) and math.isnan(LUT_SIN[1440]) and np.isfinite(LUT_COS[:1440]).all()
    for f in (lut_index, lut_index.py_func):
        assert f(-2.895104827123048e-15) == 1440 and f(-1e-300) == 1440 and f(-720.0 - 1e-13) == 1439
        assert f(math.nan) == 0 and f(math.inf) == 0 and f(-math.inf) == 0 and f(-720.0) == 0 and f(-0.0) == 0
    angles = np.concatenate([np.random.default_rng(0).uniform(-5000, 5000, 2000), -np.logspace(-300, 3, 300),
                             np.logspace(-300, 300, 300), [1e308, -1e308, 1080.0, 719.9999999999999]])
    for a in angles:
        assert 0 <= lut_index(float(a)) == lut_index.py_func(float(a)) <= 1440
        if abs(a) < 1e6 and lut_index(float(a)) < 1440:  # the table's cosine (0.25-degree steps, truncated)
            assert abs(math.cos(math.radians(float(a))) - LUT_COS[lut_index(float(a))]) < 0.005


def test_fill_pools_take_1024_draws_in_gaussian_pairs():
    st = make_state(9)
    pools = fill_pools(st)
    assert pools.shape == (2, 512)
    assert abs(pools[0].mean() - 0.5) < 0.03 and abs(pools[0].std() - 0.2) < 0.03
    assert abs(pools[1].std() - 0.02) < 0.003
    ref = make_state(9)
    for _ in range(1024):
        rnd(ref)
    assert st[0] == ref[0]


def test_field_noise_is_simplex_noise_seeded_as_p5_brush_seeds_it():
    """Values printed by simplex-noise 4.0.3's createNoise2D with p5.brush's PRNG for noiseSeed(7) (in node)."""
    from aquarelle.render.fields import Noise2

    got = Noise2(7)(np.array([0.5, 3.0, -12.3, 100.01]), np.array([0.25, 4.0, 7.9, -0.02]))
    assert got.tolist() == [0.11290708449984081, 0.1804491474878531, 0.6127238947152239, -0.23148467874018305]
    assert not np.array_equal(Noise2(8)(np.array([0.5]), np.array([0.25])), got[:1])


def test_a_field_is_generated_when_named_and_again_on_refresh():
    from aquarelle.render.fields import FieldBank

    bank, rng2 = FieldBank(600, 600, 3), Stream2(3)
    assert bank.cols == 200 and bank.rows == 200
    bank.activate("zigzag", 0, {}, rng2)
    first = bank.get("zigzag", 0, {}, rng2)
    bank.activate("zigzag", 0, {}, rng2)  # named again: kept, no draws
    assert bank.get("zigzag", 0, {}, rng2) is first
    bank.activate("zigzag", 0, {}, rng2, refresh=True)  # refreshField: new draws, a new field
    assert not np.array_equal(bank.get("zigzag", 0, {}, rng2), first)
    assert first.dtype == np.float64 and np.array_equal(first, first.astype(np.float32))
