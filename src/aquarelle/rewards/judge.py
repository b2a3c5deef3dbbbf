"""The pairwise judge: is this painting better than a reference from the pool?

Each reference is compared twice, the painting first (as A) and second (as B), so
a judge that favours a position cannot decide the score: winning both orders
scores 1, a split 0.5, losing both 0; the judge term is the mean over references.
A split where the same letter won both times is a position-bias event, counted.
A backend may also answer ``tie`` (the local critic, when both paintings score exactly
equal): half a win in that order, and never a position bias, since the order did not
decide it.

Backends answer one question, ``compare(a, b) -> Verdict``: ``local`` (the
deterministic critic in critic.py) and ``openai`` (any OpenAI-compatible chat
endpoint with image input, e.g. vLLM serving Qwen3-VL-30B-A3B-Instruct).
A backend that cannot answer raises ``JudgeBackendError``: the reward becomes
None with the reason, never a silent 0.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal, Protocol, Sequence

import numpy as np

from .imageio import data_url, digest


class JudgeBackendError(RuntimeError):
    """The judge backend did not give a usable answer (down, timeout, 5xx, malformed)."""


@dataclass(frozen=True)
class Verdict:
    """One answer to "which is better, A or B?"; ``tie`` only from a backend that can measure equality (the
    local critic): the openai backend's parser accepts A or B alone."""

    winner: Literal["A", "B", "tie"]
    reason: str = ""


class PairwiseBackend(Protocol):
    name: str

    def compare_many(self, pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[Verdict]: ...

    def check(self) -> str | None: ...


@dataclass
class JudgeResult:
    score: float
    per_reference: list[float]
    reference_ids: list[str]
    reasons: list[str] = field(default_factory=list)
    position_bias: int = 0


def _points(verdict: Verdict, painting_slot: str) -> float:
    """The painting's share of one verdict: 1 if its slot won, 0.5 for a tie, else 0."""
    return 0.5 if verdict.winner == "tie" else float(verdict.winner == painting_slot)


def pair_score(painting_first: Verdict, painting_second: Verdict) -> float:
    """Wins of the painting over both orders / 2 (a tie is half a win): 1, 0.5 or 0 (0.75 or 0.25 where only
    one order tied)."""
    return (_points(painting_first, "A") + _points(painting_second, "B")) / 2.0


def is_position_bias(painting_first: Verdict, painting_second: Verdict) -> bool:
    """The verdict flipped with the order (the same slot won both times). A tie in both orders is not one: the
    local critic answered "A" for two equal paintings, and every copy of a reference counted as biased."""
    return painting_first.winner == painting_second.winner != "tie"


def _outcome(score: float, painting_first: Verdict, painting_second: Verdict) -> str:
    """The pair's outcome in a word, for the reasons."""
    if painting_first.winner == painting_second.winner == "tie":
        return "tied"
    return {1.0: "won", 0.0: "lost"}.get(score, "split")


def judge_against(backend: PairwiseBackend, image: np.ndarray,
                  references: Sequence[tuple[str, np.ndarray]]) -> JudgeResult:
    """Score ``image`` against each reference in both orders (one batch to the backend)."""
    if not references:
        raise JudgeBackendError("no references to judge against (is the pool rendered?)")
    pairs: list[tuple[np.ndarray, np.ndarray]] = []
    for _, ref in references:
        pairs.append((image, ref))
        pairs.append((ref, image))
    verdicts = backend.compare_many(pairs)
    per, reasons, bias = [], [], 0
    for i, (rid, _) in enumerate(references):
        first, second = verdicts[2 * i], verdicts[2 * i + 1]
        s = pair_score(first, second)
        per.append(s)
        bias += is_position_bias(first, second)
        outcome = _outcome(s, first, second)
        why = first.reason if first.winner == "A" or s == 0.0 else second.reason
        reasons.append(f"vs {rid}: {outcome} ({why})" if why else f"vs {rid}: {outcome}")
    return JudgeResult(score=float(np.mean(per)), per_reference=per, reference_ids=[r for r, _ in references],
                       reasons=reasons, position_bias=bias)


# ---------------------------------------------------------------- openai backend

JUDGE_SYSTEM = (
    "You are an exacting watercolour critic. You compare two paintings and pick the better watercolour: "
    "soft, bleeding edges; translucent layered washes; a harmonious palette; paper left to breathe; a clear "
    "composition; no mud. Answer with JSON only."
)
JUDGE_QUESTION = (
    'Which painting is the better watercolour, A or B? Reply with a JSON object only: '
    '{"winner": "A" or "B", "reason": "one short sentence"}.'
)

_DECODER = json.JSONDecoder()


def _json_objects(text: str) -> tuple[list[dict], str | None]:
    """Every JSON object that starts at one of the reply's ``{`` (nested ones too), and the first decoding error.

    Each ``{`` is tried in turn, not the span from the first to the last: a reply that mentions braces
    before its verdict ("Comparing {A} and {B}...") or after its fence was refused as malformed."""
    found, error = [], None
    for i, ch in enumerate(text):
        if ch != "{":
            continue
        try:
            obj, _ = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as e:
            error = error or e.msg
            continue
        found.append(obj)
    return found, error


def _winner(data: dict) -> str | None:
    """``A`` or ``B`` from an object's "winner" (``"Painting A"``, quotes and a full stop tolerated), else None."""
    winner = str(data.get("winner", "")).strip().upper().strip("\"' .")
    if winner.startswith("PAINTING "):
        winner = winner[len("PAINTING "):]
    return winner if winner in ("A", "B") else None


def parse_verdict(text: str | None) -> Verdict:
    """Read ``{"winner": "A"|"B", "reason": ...}`` from a reply: the first JSON object in it with a valid
    winner, whatever text, fences or other braces surround it."""
    if not text:
        raise ValueError("empty reply")
    if "{" not in text:
        raise ValueError(f"no JSON object in reply {text[:80]!r}")
    objects, error = _json_objects(text)
    if not objects:
        raise ValueError(f"reply is not valid JSON ({error}): {text[:80]!r}")
    for data in objects:
        winner = _winner(data)
        if winner is not None:
            return Verdict(winner=winner, reason=str(data.get("reason", ""))[:300])  # type: ignore[arg-type]
    said = next((d["winner"] for d in objects if "winner" in d), None)
    raise ValueError(f"reply's winner is {said!r}, not 'A' or 'B'")


def reply_content(resp: object) -> str | None:
    """The first choice's message content, or ValueError naming what is wrong with the reply's shape.

    A proxy or a half-compatible server answers any shape with HTTP 200 (a choice without a message, a message
    that is a string, content that is a number): each must be retried and reported as a malformed reply, as a
    reply that is not JSON is; read blindly, they raised AttributeError or TypeError, neither retried nor naming
    the judge."""
    if isinstance(resp, (str, bytes)) or not hasattr(resp, "choices"):  # e.g. a proxy's HTML page with 200
        raise ValueError(f"reply is not a chat completion: {str(resp)[:80]!r}")
    choices = resp.choices
    if not choices:
        raise ValueError("reply has no choices")
    if not isinstance(choices, list):
        raise ValueError(f"reply's choices are {type(choices).__name__}, not a list")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise ValueError("reply's choice has no message")
    if not hasattr(message, "content"):
        raise ValueError(f"reply's message is {type(message).__name__}, not an object with content")
    content = message.content
    if content is not None and not isinstance(content, str):
        raise ValueError(f"reply's content is {type(content).__name__}, not text")
    return content


#: the most of a server's own error message an error repeats (it reaches the env client's observation)
SERVER_SAID_CHARS = 160
#: the shortest secret masked in it: a shorter "key" (``k``, a query's ``team=a``) is no credential, and masking it
#: would star out every such letter of the message
MIN_SECRET_CHARS = 4


def server_said(body: object, secrets: Sequence[str] = ()) -> str:
    """The server's own words about an HTTP error it answered, on one line and at most SERVER_SAID_CHARS long
    ("" when it said nothing), with any of ``secrets`` masked: "HTTP 404" alone hid vLLM's "The model `X` does
    not exist.", and a gateway may echo the key it refused.

    ``body`` is the openai client's: the ``error`` object of an OpenAI-style body, the JSON body, or its text."""
    if isinstance(body, dict):
        said = next((body[k] for k in ("message", "detail", "error") if isinstance(body.get(k), str)), None)
        body = said if said is not None else json.dumps(body, default=str)
    text = " ".join(str(body or "").split())
    for secret in secrets:
        if len(secret) >= MIN_SECRET_CHARS:
            text = text.replace(secret, "***")
    return text if len(text) <= SERVER_SAID_CHARS else text[:SERVER_SAID_CHARS - 3] + "..."


def split_query(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its query and fragment, and the query's parameters (the last of a repeated name).

    A gateway may take the key in the query (``/v1?api_key=...``): the openai client appends its path to the
    base URL as text, so that sent ``/v1/?api_key=...chat/completions``; the query goes as its ``default_query``."""
    from urllib.parse import parse_qsl, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:  # "http://[bad" (refused at load by missing_service_url): left whole, as before
        return url, {}
    return urlunsplit(parts._replace(query="", fragment="")), dict(parse_qsl(parts.query, keep_blank_values=True))


def url_secrets(url: str) -> list[str]:
    """What in ``url`` may be a credential, to mask wherever a server's words are repeated (``server_said``): the
    query's values (``?api_key=...``) and the user and password of ``user:password@``, which a gateway refusing
    them may echo back."""
    from urllib.parse import unquote, urlsplit

    _, query = split_query(url)
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:
        user = password = None
    return [v for v in (*query.values(), *(unquote(x) for x in (user, password) if x)) if v and v != "none"]


class OpenAIJudge:
    """Pairwise verdicts from an OpenAI-compatible chat endpoint (temperature 0).

    Retries with exponential backoff on timeouts, connection errors, 5xx/429 and
    malformed replies; a bounded thread pool limits concurrent requests; an LRU
    cache keyed by (model, image A, image B) avoids asking the same pair twice.
    """

    name = "openai"

    def __init__(self, *, base_url: str, model: str, api_key: str = "none", timeout_s: float = 60.0,
                 retries: int = 2, backoff_s: float = 1.0, concurrency: int = 8, image_size: int = 512,
                 cache_size: int = 4096):
        if not base_url:
            raise JudgeBackendError("the openai judge needs judge_url (or AQUARELLE_JUDGE_URL)")
        import openai

        self._openai = openai
        from .config import shown_url

        self.base_url, self.model = base_url, model
        self.shown_url = shown_url(base_url)  # for messages: an env client reads them, credentials stay here
        self.timeout_s, self.retries, self.backoff_s = timeout_s, retries, backoff_s
        self.image_size = image_size
        base, query = split_query(base_url)
        self._secrets = [v for v in (api_key, *url_secrets(base_url)) if v and v != "none"]  # masked in server_said
        self.client = openai.OpenAI(base_url=base, api_key=api_key, timeout=timeout_s, max_retries=0,
                                    default_query=query or None)
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="judge")
        self._cache: OrderedDict[tuple[str, str, str], Verdict] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self.requests = 0  # HTTP requests sent, for tests and stats

    def _ask_once(self, url_a: str, url_b: str) -> Verdict:
        self.requests += 1
        resp = self.client.chat.completions.create(
            model=self.model,
            temperature=0,
            max_tokens=200,
            messages=[
                {"role": "system", "content": JUDGE_SYSTEM},
                {"role": "user", "content": [
                    {"type": "text", "text": "Painting A:"},
                    {"type": "image_url", "image_url": {"url": url_a}},
                    {"type": "text", "text": "Painting B:"},
                    {"type": "image_url", "image_url": {"url": url_b}},
                    {"type": "text", "text": JUDGE_QUESTION},
                ]},
            ],
        )
        return parse_verdict(reply_content(resp))

    def _ask(self, a: np.ndarray, b: np.ndarray) -> Verdict:
        key = (self.model, digest(a), digest(b))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        url_a, url_b = data_url(a, self.image_size), data_url(b, self.image_size)
        o = self._openai
        last, tries = "no attempt", 0
        for attempt in range(self.retries + 1):
            tries += 1
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                v = self._ask_once(url_a, url_b)
            except o.APITimeoutError:
                last = f"judge timed out after {self.timeout_s:g}s"
            except o.APIConnectionError as e:
                last = f"judge unreachable at {self.shown_url}: {str(e).splitlines()[0]}"
            except o.APIStatusError as e:
                said = server_said(e.body, self._secrets)
                last = f"judge server answered HTTP {e.status_code}" + (f": {said}" if said else "")
                if e.status_code < 500 and e.status_code != 429:
                    break  # a 4xx will not change on retry
            except ValueError as e:
                last = f"judge reply malformed: {e}"
            else:
                with self._lock:
                    self._cache[key] = v
                    if len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
                return v
        raise JudgeBackendError(f"{last} ({tries} attempt(s), model {self.model})")

    def compare_many(self, pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[Verdict]:
        futures = [self._pool.submit(self._ask, a, b) for a, b in pairs]
        return [f.result() for f in futures]

    def check(self) -> str | None:
        """None when the endpoint answers a real pairwise question, else the problem."""
        white = np.full((64, 64, 3), 255, np.uint8)
        grey = np.full((64, 64, 3), 128, np.uint8)
        try:
            self.compare_many([(white, grey)])
        except JudgeBackendError as e:
            return f"judge (openai at {self.shown_url}): {e}"
        return None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.client.close()
