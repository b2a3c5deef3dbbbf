"""The HPSv3 client against the real serve-hps app (uvicorn on 127.0.0.1), the model replaced by a fixed function."""

from __future__ import annotations

import math

import numpy as np
import pytest
from serve_process import serve_in_thread

from aquarelle.rewards.composite import RewardModel
from aquarelle.rewards.config import RewardConfig
from aquarelle.rewards.hps_client import HPSv3Client, PreferenceBackendError, normalise_mu
from aquarelle.rewards.hps_server import create_app


def fixed_scorer(images, prompts):
    """mu = 8 x (darkness - 0.5) + 0.1 x words in the prompt: deterministic and image-dependent."""
    out = []
    for im, p in zip(images, prompts):
        dark = 1.0 - np.asarray(im, np.float32).mean() / 255.0
        out.append((8.0 * (dark - 0.5) + 0.1 * len(p.split()), 0.5))
    return out


@pytest.fixture(scope="module")
def hps_url():
    with serve_in_thread(create_app(fixed_scorer)) as url:
        yield url


def grey(v: int) -> np.ndarray:
    return np.full((48, 48, 3), v, np.uint8)


def test_normalisation_is_the_published_one():
    assert normalise_mu(0.0) == 0.5
    assert normalise_mu(4.0) == pytest.approx(1 / (1 + math.exp(-1)))


def test_client_scores_through_the_real_app(hps_url):
    c = HPSv3Client(hps_url, retries=0)
    assert c.check() is None
    white, black = c.score(grey(255), "a b"), c.score(grey(0), "a b")
    assert white[0] == pytest.approx(normalise_mu(-4.0 + 0.2), abs=1e-3)
    assert black[0] == pytest.approx(normalise_mu(4.0 + 0.2), abs=1e-3)
    assert "mu" in white[1]
    mus = c.score_raw([grey(255), grey(0)], ["x", "x y z"])
    assert mus == pytest.approx([-4.0 + 0.1, 4.0 + 0.3], abs=1e-3)


def test_bad_requests_are_refused_clearly(hps_url):
    import httpx

    r = httpx.post(hps_url + "/score", json={"images": ["bm90IGFuIGltYWdl"], "prompts": ["p"]})
    assert r.status_code == 422 and "images[0]" in r.text
    r = httpx.post(hps_url + "/score", json={"images": ["bm90"], "prompts": []})
    assert r.status_code == 422


def test_down_service_gives_none_with_reason(hps_url):
    with serve_in_thread(create_app(fixed_scorer)) as url:
        pass  # the service was there and is gone
    c = HPSv3Client(url, retries=1, backoff_s=0, timeout_s=2)
    with pytest.raises(PreferenceBackendError, match="unreachable"):
        c.score(grey(100))
    assert "unreachable" in c.check()
    cfg = RewardConfig(preset="hps-only", preference_backend="hpsv3", preference_url=url, preference_retries=0)
    model = RewardModel(cfg)
    img = grey(250)
    img[:20] = (30, 80, 160)
    r = model.score(image=img, program=None, mode="tools", n_calls=100)
    assert r.reward is None and "unreachable" in r.error
    assert any("preference" in p for p in model.check())


def test_reward_uses_hpsv3_term(hps_url):
    cfg = RewardConfig(preset="hps-only", preference_backend="hpsv3", preference_url=hps_url)
    img = grey(250)
    img[:24] = (30, 80, 160)
    r = RewardModel(cfg).score(image=img, program=None, mode="tools", n_calls=420, prompt="blue sky")
    mu = fixed_scorer([img], ["blue sky"])[0][0]
    assert r.breakdown["preference"] == pytest.approx(normalise_mu(mu), abs=1e-3)
    assert r.breakdown["judge"] is None  # weight 0 in hps-only: not computed
    assert r.reward == pytest.approx(0.05 + 0.05 + 0.90 * normalise_mu(mu), abs=1e-3)
