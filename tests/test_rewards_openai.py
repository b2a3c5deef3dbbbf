"""The real ``openai`` judge backend against a local OpenAI-compatible server on 127.0.0.1.

The server speaks the chat-completions protocol and decodes the two images it is
sent; its behaviour is picked by the model name: ``paint`` (the image with more
paint wins), ``always-a`` (a position-biased judge), ``malformed``, ``slow``
(sleeps past the client's timeout), ``error500``, the reply shapes of MALFORMED_SHAPES and
the HTTP errors of ERRORS.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json

import numpy as np
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from PIL import Image
from serve_process import serve_in_thread

from aquarelle.rewards.composite import RewardModel
from aquarelle.rewards.config import RewardConfig
from aquarelle.rewards.judge import JudgeBackendError, OpenAIJudge, Verdict, judge_against, pair_score

#: The failure tests' judge timeout, and how long the ``slow`` judge takes: far apart, so a quick answer (a malformed
#: one, a 500) never runs out of time on a loaded machine and a slow one always does.
TIMEOUT_S = 2.0
SLOW_S = 6.0


#: Chatty replies around the ``paint`` judge's verdict (VERDICT), by model name: braces before it or after it.
REPLY_SHAPES = {
    "braces-first": "Comparing {A} and {B}: A has more paint. VERDICT",
    "fenced-after-text": "Reading {Painting A} against {Painting B}:\n```json\nVERDICT\n```\n{end}",
    "object-first": '{"painting": "A", "notes": "soft edges"} then VERDICT',
    "schema-echo": 'You asked for {"winner": "A" or "B"}, so: VERDICT',
    "no-verdict": 'Comparing {A} and {B}: {"score": 3} {"winner": "both"}, I cannot choose.',
}


#: Chat completions of a shape no reading of a reply may take, by model name: the first choice's part that is wrong.
MALFORMED_SHAPES = {
    "no-message": {"index": 0, "finish_reason": "stop"},
    "message-str": {"index": 0, "finish_reason": "stop", "message": "A"},
    "content-number": {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": 5}},
    "content-list": {"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": [{"type": "text", "text": '{"winner": "A"}'}]}},
}

#: HTTP errors with the server's own message, by model name: (status, body). vLLM's 404 for a model it does not
#: serve; a gateway's 401 that echoes the key it refused, over lines and past any length an error should carry.
ERRORS = {
    "not-served": (404, {"object": "error", "message": "The model `not-served` does not exist.",
                         "type": "NotFoundError", "param": None, "code": 404}),
    "echo-key": (401, {"error": {"message": "Incorrect API key provided: sk-test-KEY.\nSee " + "x" * 400}}),
}


def _decode(url: str) -> np.ndarray:
    data = base64.b64decode(url.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def make_app(hits: list[str]) -> FastAPI:
    app = FastAPI()
    app.state.in_flight = 0
    app.state.max_in_flight = 0
    app.state.queries = []  # (model, query string) of each request

    @app.post("/v1/chat/completions")
    async def chat(req: Request):
        body = await req.json()
        model = body["model"]
        hits.append(model)
        app.state.queries.append((model, req.url.query))
        assert body["temperature"] == 0
        parts = body["messages"][-1]["content"]
        imgs = [_decode(p["image_url"]["url"]) for p in parts if p["type"] == "image_url"]
        assert len(imgs) == 2
        if model == "error500":
            return JSONResponse({"error": {"message": "boom"}}, status_code=500)
        if model == "error400":
            return JSONResponse({"error": {"message": "no such model"}}, status_code=400)
        if model in ERRORS:
            return JSONResponse(ERRORS[model][1], status_code=ERRORS[model][0])
        if model == "slow":
            await asyncio.sleep(SLOW_S)
        if model == "counted":
            app.state.in_flight += 1
            app.state.max_in_flight = max(app.state.max_in_flight, app.state.in_flight)
            await asyncio.sleep(0.05)
            app.state.in_flight -= 1
        winner = "A" if imgs[0].mean() < imgs[1].mean() else "B"
        verdict = json.dumps({"winner": winner, "reason": "more paint"})
        if model == "malformed":
            content = "I think A is nicer {winner: A"
        elif model == "always-a":
            content = json.dumps({"winner": "A", "reason": "first one"})
        elif model in REPLY_SHAPES:
            content = REPLY_SHAPES[model].replace("VERDICT", verdict)
        else:
            content = "```json\n" + verdict + "\n```"
        choice = MALFORMED_SHAPES.get(model, {"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": content}})
        return {"id": "x", "object": "chat.completion", "created": 0, "model": model, "choices": [choice],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    return app


def write_pool(root, paint: dict[str, tuple[str, float]]):
    """A real pool directory whose cached images are canvases with the given paint fractions."""
    from aquarelle.rewards.imageio import save_png
    from aquarelle.rewards.pool import Pool

    (root / "sketches").mkdir(parents=True)
    (root / "images").mkdir()
    ents = []
    for pid, (tier, frac) in paint.items():
        (root / "sketches" / f"{pid}.js").write_text(f"// {pid}\n")
        ents.append({"id": pid, "subject": "abstract", "tier": tier, "why": "test", "hf10": True,
                     "split": "design"})
    (root / "pool.json").write_text(json.dumps({"paintings": ents}))
    pool = Pool(root)
    for e in pool.entries:
        save_png(canvas(paint[e.id][1]), pool.image_path(e))
        pool.image_path(e).with_suffix(".json").write_text(json.dumps({"key": pool._key(e, "native")}))
    return root


@pytest.fixture(scope="module")
def tiny_pool(tmp_path_factory):
    return write_pool(tmp_path_factory.mktemp("pool"), {
        "l1": ("love", 0.1), "l2": ("love", 0.9), "o1": ("okay", 0.2), "o2": ("okay", 0.8), "r1": ("reject", 0.0)})


server_app: list[FastAPI] = []


@pytest.fixture(scope="module")
def server():
    hits: list[str] = []
    server_app[:] = [make_app(hits)]
    with serve_in_thread(server_app[0]) as url:
        yield url + "/v1", hits


def canvas(paint: float) -> np.ndarray:
    """A 64x64 canvas with the given fraction of its rows painted dark blue."""
    img = np.full((64, 64, 3), 250, np.uint8)
    img[: int(64 * paint)] = (40, 60, 150)
    return img


def judge(url: str, model: str, **kw) -> OpenAIJudge:
    return OpenAIJudge(base_url=url, model=model, retries=kw.pop("retries", 1), backoff_s=0, timeout_s=kw.pop(
        "timeout_s", 5), image_size=64, **kw)


def test_both_orders_arithmetic():
    a, b = Verdict("A"), Verdict("B")
    assert pair_score(a, b) == 1.0  # painting first wins, painting second wins
    assert pair_score(b, a) == 0.0
    assert pair_score(a, a) == 0.5 and pair_score(b, b) == 0.5


def test_a_local_judge_tie_is_a_tie_not_position_bias(tmp_path):
    """A painting equal to every reference: the local critic scores both exactly equal, answered "A" in both
    orders, and each such pair (0.5, right) was counted as the judge flipping with the order (wrong)."""
    from aquarelle.rewards.critic import LocalJudge

    img = canvas(0.5)
    assert [v.winner for v in LocalJudge().compare_many([(img, img.copy()), (img.copy(), img)])] == ["tie", "tie"]
    assert pair_score(Verdict("tie"), Verdict("tie")) == 0.5
    root = write_pool(tmp_path / "pool", {"l1": ("love", 0.5), "l2": ("love", 0.5), "o1": ("okay", 0.5),
                                          "o2": ("okay", 0.5)})
    r = RewardModel(RewardConfig(pool_dir=str(root))).score(image=img, program=None, mode="tools", n_calls=210)
    assert r.breakdown["judge"] == 0.5 and len(r.references) == 4
    assert r.judge_position_bias == 0 and r.critique.count(": tied") == 4, r.critique


def test_good_answers_score_and_cache(server):
    url, hits = server
    j = judge(url, "paint")
    refs = [("less1", canvas(0.1)), ("less2", canvas(0.2)), ("more1", canvas(0.8)), ("more2", canvas(0.9))]
    n0 = len(hits)
    r = judge_against(j, canvas(0.5), refs)
    assert r.per_reference == [1.0, 1.0, 0.0, 0.0]
    assert r.score == 0.5 and r.position_bias == 0
    assert len(hits) - n0 == 8  # 4 references x 2 orders
    assert "vs less1: won" in r.reasons[0] and "more paint" in r.reasons[0]
    r2 = judge_against(j, canvas(0.5), refs)  # identical pairs: answered from the cache
    assert r2.score == 0.5 and len(hits) - n0 == 8


def test_concurrency_limit_holds(server):
    url, _ = server
    app = server_app[0]
    j = judge(url, "counted", concurrency=2)
    refs = [(f"r{i}", canvas(0.1 * i)) for i in range(1, 7)]
    judge_against(j, canvas(0.55), refs)  # 12 requests through a pool of 2
    assert 1 <= app.state.max_in_flight <= 2


def test_position_biased_judge_splits_every_pair(server):
    url, _ = server
    r = judge_against(judge(url, "always-a"), canvas(0.5), [("r1", canvas(0.1)), ("r2", canvas(0.9))])
    assert r.per_reference == [0.5, 0.5] and r.position_bias == 2


@pytest.mark.parametrize("model", ["braces-first", "fenced-after-text", "object-first", "schema-echo"])
def test_a_verdict_among_other_braces_is_read(server, model):
    """The parser took the span from the first '{' to the last '}': braces before the verdict or after its fence
    made a good answer 'not valid JSON', so the judge retried and the reward was None."""
    url, hits = server
    n0 = len(hits)
    r = judge_against(judge(url, model), canvas(0.5), [("less", canvas(0.2)), ("more", canvas(0.8))])
    assert r.per_reference == [1.0, 0.0] and r.position_bias == 0
    assert "more paint" in r.reasons[0] and len(hits) - n0 == 4  # one request per order: nothing retried


def test_a_reply_without_a_verdict_among_its_braces_is_still_malformed(server):
    """Looking past other braces must not take an object without a valid winner as a verdict."""
    url, hits = server
    n0 = len(hits)
    with pytest.raises(JudgeBackendError, match=r"judge reply malformed: .*\(2 attempt"):
        judge(url, "no-verdict").compare_many([(canvas(0.5), canvas(0.2))])
    assert hits[n0:].count("no-verdict") == 2  # retried once, as before


@pytest.mark.parametrize("model, words, attempts", [
    ("malformed", "malformed", 2), ("error500", "HTTP 500", 2), ("slow", "timed out", 2)])
def test_failures_raise_with_reason_after_retries(server, model, words, attempts):
    url, hits = server
    n0 = len(hits)
    j = judge(url, model, timeout_s=TIMEOUT_S)
    with pytest.raises(JudgeBackendError, match=words):
        judge_against(j, canvas(0.5), [("r", canvas(0.2))])
    assert hits[n0:].count(model) >= attempts  # retried, and the second order too
    assert j.check() is not None


def test_a_4xx_is_not_retried_and_the_error_counts_the_tries_made(server):
    url, hits = server
    n0 = len(hits)
    j = judge(url, "error400", timeout_s=TIMEOUT_S)
    with pytest.raises(JudgeBackendError, match=r"HTTP 400: no such model \(1 attempt\(s\)"):  # "3 attempt(s)"
        j.compare_many([(canvas(0.5), canvas(0.2))])
    assert hits[n0:].count("error400") == 1


def test_reward_is_none_with_reason_when_judge_fails(server, tiny_pool):
    url, _ = server
    for model, words in (("malformed", "malformed"), ("error500", "HTTP 500"), ("slow", "timed out")):
        cfg = RewardConfig(judge_backend="openai", judge_url=url, judge_model=model, judge_timeout_s=TIMEOUT_S,
                           judge_retries=0, judge_backoff_s=0, pool_dir=str(tiny_pool))
        r = RewardModel(cfg).score(image=canvas(0.5), program=None, source=None, mode="tools", n_calls=50,
                                   violations=[], error=None, action_space=None)
        assert r.reward is None and words in r.error, (model, r)
        assert r.breakdown["gate"] == 1.0


def test_reward_with_working_judge(server, tiny_pool):
    url, _ = server
    cfg = RewardConfig(judge_backend="openai", judge_url=url, judge_model="paint", pool_dir=str(tiny_pool),
                       judge_retries=0)
    r = RewardModel(cfg).score(image=canvas(0.5), program=None, mode="tools", n_calls=420)
    # the tiny pool's love/okay references have 0.1, 0.2 (less paint) and 0.8, 0.9 (more)
    assert r.breakdown["judge"] == 0.5 and r.breakdown["length"] == 1.0
    w = r.weights
    expect = w["gate"] + w["length"] * 1.0 + w["judge"] * 0.5 + w["preference"] * r.breakdown["preference"]
    assert r.reward == pytest.approx(expect)
    assert len(r.references) == 4


@pytest.mark.parametrize("model, why", [("no-message", "reply's choice has no message"),
                                        ("message-str", "reply's message is str, not an object with content"),
                                        ("content-number", "reply's content is int, not text"),
                                        ("content-list", "reply's content is list, not text")])
def test_every_malformed_reply_shape_is_retried_and_named_malformed(server, tiny_pool, model, why):
    """A choice without a message, a message that is a string or content that is a number raised AttributeError
    or TypeError out of the reply's reading: not retried, and the reward's reason was "AttributeError: ..."
    without the judge; each is a malformed reply, as one that is not JSON is."""
    url, hits = server
    n0 = len(hits)
    with pytest.raises(JudgeBackendError) as e:
        judge(url, model).compare_many([(canvas(0.5), canvas(0.2))])
    assert str(e.value) == f"judge reply malformed: {why} (2 attempt(s), model {model})"
    assert hits[n0:].count(model) == 2  # retried once, as any malformed reply
    cfg = RewardConfig(judge_backend="openai", judge_url=url, judge_model=model, judge_retries=0, judge_backoff_s=0,
                       pool_dir=str(tiny_pool))
    r = RewardModel(cfg).score(image=canvas(0.5), program=None, mode="tools", n_calls=50)
    assert r.reward is None and r.error.startswith(f"judge reply malformed: {why} (1 attempt(s)"), r.error


def test_a_judge_url_with_a_query_keeps_it_on_every_request(server):
    """A gateway may take the key in the query (``/v1?api_key=...``): the openai client appends its path to the
    base URL as text, so the request went to ``/v1/?api_key=...chat/completions`` (a 404 here)."""
    url, _ = server
    j = judge(url + "?api_key=sk-Q&team=a", "queried", retries=0)  # a model name of its own: answers as "paint"
    assert j.compare_many([(canvas(0.5), canvas(0.2))]) == [Verdict("A", "more paint")]
    assert j.check() is None and "sk-Q" not in j.shown_url
    assert [q for m, q in server_app[0].state.queries if m == "queried"] == ["api_key=sk-Q&team=a"] * 2


def test_an_http_error_says_what_the_server_said_on_one_short_line(server):
    """"judge server answered HTTP 404" hid vLLM's own reason (the model it was asked for is not served); the
    server's message is kept, on one line, capped, and with the key masked where a gateway echoes it."""
    url, _ = server
    with pytest.raises(JudgeBackendError) as e:
        judge(url, "not-served").compare_many([(canvas(0.5), canvas(0.2))])
    assert str(e.value) == ("judge server answered HTTP 404: The model `not-served` does not exist. "
                            "(1 attempt(s), model not-served)")
    with pytest.raises(JudgeBackendError) as short:  # a one-letter key is no credential: no letter starred out
        judge(url, "not-served", api_key="e").compare_many([(canvas(0.5), canvas(0.2))])
    assert str(short.value) == str(e.value)
    with pytest.raises(JudgeBackendError) as e:
        judge(url, "echo-key", api_key="sk-test-KEY").compare_many([(canvas(0.5), canvas(0.2))])
    said = str(e.value)
    assert said.startswith("judge server answered HTTP 401: Incorrect API key provided: ***. See xxx"), said
    assert "\n" not in said and "sk-test-KEY" not in said and said.endswith("... (1 attempt(s), model echo-key)")
    assert len(said) < 250


def test_every_credential_a_service_url_may_carry_is_masked_where_a_server_is_quoted():
    from aquarelle.rewards.judge import server_said, url_secrets

    got = url_secrets("http://u%40x-1234:p-5678@h:9/v1?api_key=sk-Q99&team=a")
    assert got == ["sk-Q99", "a", "u@x-1234", "p-5678"]
    assert server_said("u@x-1234 and p-5678 refused, sk-Q99, team a", got) == "*** and *** refused, ***, team a"
    assert url_secrets("http://h/v1") == [] and url_secrets("http://[bad") == []
