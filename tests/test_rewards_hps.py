"""The HPSv3 client against the real serve-hps app (uvicorn on 127.0.0.1), the model replaced by a fixed function;
and against a stand-in speaking the same protocol for the answers the real app cannot give (``STANDIN["mode"]``)."""

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


#: what the stand-in answers POST /score with, by mode: (status, JSON body or None for an empty body, headers)
STANDIN_ANSWERS = {
    "bool": (200, {"mu": [True], "sigma": [0.1]}, {}),
    "huge-negative": (200, {"mu": [-1e308], "sigma": [0.1]}, {}),
    "redirect": (307, None, {"location": "/score2"}),
    "echo-key": (403, {"detail": "key sk-Q-123456 of user pat-99 may not score"}, {}),
}
STANDIN = {"mode": "bool"}


def standin_app():
    """GET /health and POST /score as serve-hps answers them, the /score answer picked by ``STANDIN["mode"]``."""
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, Response

    app = FastAPI()

    @app.get("/health")
    def health() -> dict:
        return {"ok": True, "model": "standin"}

    @app.post("/score")
    def score():
        status, body, headers = STANDIN_ANSWERS[STANDIN["mode"]]
        if body is None:
            return Response(status_code=status, headers=headers)
        return JSONResponse(body, status_code=status, headers=headers)

    return app


def recording(app, seen: list[tuple[str, str]]):
    """``app`` with the (path, query string) of each HTTP request it is sent appended to ``seen``."""
    async def asgi(scope, receive, send):
        if scope["type"] == "http":
            seen.append((scope["path"], scope["query_string"].decode()))
        await app(scope, receive, send)

    return asgi


@pytest.fixture(scope="module")
def standin_url():
    with serve_in_thread(standin_app()) as url:
        yield url


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


def test_a_bool_mu_is_a_malformed_answer_not_a_score(standin_url):
    """``{"mu": [true]}`` passed isinstance(m, (int, float)) and scored as mu 1."""
    STANDIN["mode"] = "bool"
    c = HPSv3Client(standin_url, retries=0)
    with pytest.raises(PreferenceBackendError, match=r"^hpsv3 service answered without 1 numeric 'mu' values"):
        c.score(grey(100))
    assert "numeric 'mu'" in c.check()
    cfg = RewardConfig(preset="hps-only", preference_backend="hpsv3", preference_url=standin_url, preference_retries=0)
    img = grey(250)
    img[:20] = (30, 80, 160)
    r = RewardModel(cfg).score(image=img, program=None, mode="tools", n_calls=100)
    assert r.reward is None and r.error.startswith("hpsv3 service answered without 1 numeric 'mu' values"), r.error


def test_any_finite_mu_normalises_into_0_1_and_check_takes_the_score_path(standin_url):
    """exp(-mu/4) overflowed for mu below about -2839: a service answering -1e308 made every reward None with
    "OverflowError: math range error", while scorers check (which stopped at the raw mu) passed."""
    for mu in (-1e308, -2840.0, -1e3, -4.0, 0.0, 4.0, 1e3, 2840.0, 1e308, 5e-324, -5e-324):
        assert 0.0 <= normalise_mu(mu) <= 1.0
    assert normalise_mu(-1e308) == 0.0 and normalise_mu(1e308) == 1.0
    assert normalise_mu(-4.0) == pytest.approx(1 / (1 + math.exp(1)))  # the same curve on the negative side
    STANDIN["mode"] = "huge-negative"
    c = HPSv3Client(standin_url, retries=0)
    assert c.score(grey(100)) == (0.0, "HPSv3 mu -1e+308")
    assert c.check() is None
    cfg = RewardConfig(preset="hps-only", preference_backend="hpsv3", preference_url=standin_url)
    img = grey(250)
    img[:20] = (30, 80, 160)
    r = RewardModel(cfg).score(image=img, program=None, mode="tools", n_calls=100)
    assert r.error is None and r.breakdown["preference"] == 0.0


def test_a_refusal_with_an_empty_body_has_no_trailing_detail(standin_url):
    STANDIN["mode"] = "redirect"
    c = HPSv3Client(standin_url, retries=0)
    with pytest.raises(PreferenceBackendError) as e:
        c.score(grey(100))
    assert str(e.value) == "hpsv3 service refused the request: HTTP 307"  # it ended "HTTP 307 "


def test_a_refusal_repeats_the_services_words_with_the_urls_secrets_masked(standin_url):
    """A gateway refusing a key may echo it: the refusal reaches the env client in its observation, so the
    URL's query values and user:password are masked there, as the judge's key is."""
    STANDIN["mode"] = "echo-key"
    host = standin_url.split("://", 1)[1]
    for url in (standin_url + "?key=sk-Q-123456&user=pat-99", f"http://pat-99:sk-Q-123456@{host}"):
        with pytest.raises(PreferenceBackendError) as e:
            HPSv3Client(url, retries=0).score(grey(100))
        assert str(e.value) == "hpsv3 service refused the request: HTTP 403 key *** of user *** may not score"
    with pytest.raises(PreferenceBackendError) as e:  # nothing secret in the URL: the words as said
        HPSv3Client(standin_url, retries=0).score(grey(100))
    assert str(e.value).endswith("HTTP 403 key sk-Q-123456 of user pat-99 may not score")


def test_a_service_url_with_a_query_keeps_it_on_every_request():
    """A gateway may take the key in the query (``?key=...``): the client sent url + "/score", the path
    ``/?key=.../score`` (and ``/?key=.../health``), so the real app answered 404/405 to every request."""
    seen: list[tuple[str, str]] = []
    with serve_in_thread(recording(create_app(fixed_scorer), seen)) as url:
        for given in (url + "?key=sk-Q", url + "/?key=sk-Q"):
            del seen[:]
            c = HPSv3Client(given, retries=0)
            assert c.check() is None
            assert c.score(grey(0), "a b")[0] == pytest.approx(normalise_mu(4.0 + 0.2), abs=1e-3)
            assert seen == [("/health", "key=sk-Q"), ("/score", "key=sk-Q"), ("/score", "key=sk-Q")], seen
            assert "sk-Q" not in c.shown_url
