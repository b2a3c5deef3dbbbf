"""HTTP client for ``aquarelle serve-hps`` (HPSv3), normalised 1/(1+exp(-mu/4)) like the published run."""

from __future__ import annotations

import base64
import math
import time
from typing import Sequence

import numpy as np

from .imageio import png_bytes


class PreferenceBackendError(RuntimeError):
    """The preference service did not give a usable answer."""


def normalise_mu(mu: float) -> float:
    """1/(1+exp(-mu/4)) for any finite mu, in [0, 1]: written as is, exp overflowed for mu below about -2839
    (a service answering -1e308 became "scorer failed: OverflowError"), so the exponent is never positive."""
    z = mu / 4.0
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _is_number(m: object) -> bool:
    """A JSON number: not a bool (``true`` is an int to Python, and passed as mu 1)."""
    return isinstance(m, (int, float)) and not isinstance(m, bool)


def _finite(m: int | float) -> float | None:
    """``m`` as a float, or None for a NaN, an infinity or an integer too big for a float."""
    try:
        f = float(m)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def _endpoint(url: str, segment: str) -> str:
    """``url`` with ``/segment`` added to its path, its query kept: a gateway may take the key in the query
    (``?key=...``), and ``url + "/score"`` sent the request to the path ``/?key=.../score``."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:  # "http://[bad" (refused at load by missing_service_url): as before
        return url.rstrip("/") + "/" + segment
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/" + segment, fragment=""))


class HPSv3Client:
    name = "hpsv3"

    def __init__(self, url: str | None, *, timeout_s: float = 60.0, retries: int = 2, backoff_s: float = 0.5,
                 image_size: int | None = None):
        if not url:
            raise PreferenceBackendError("the hpsv3 preference backend needs preference_url (or AQUARELLE_HPS_URL)")
        import httpx

        from .config import shown_url
        from .judge import url_secrets

        self.url = url
        self._secrets = url_secrets(url)  # masked in what a refusing service said (``server_said``)
        self.score_url, self.health_url = _endpoint(url, "score"), _endpoint(url, "health")
        self.shown_url = shown_url(self.url)  # for messages: an env client reads them, credentials stay here
        self.timeout_s, self.retries, self.backoff_s, self.image_size = timeout_s, retries, backoff_s, image_size
        self._http = httpx.Client(timeout=timeout_s)
        self._httpx = httpx

    def _post(self, payload: dict) -> dict:
        httpx = self._httpx
        last = "no attempt"
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                r = self._http.post(self.score_url, json=payload)
            except httpx.TimeoutException:
                last = f"hpsv3 service timed out after {self.timeout_s:g}s"
                continue
            except httpx.HTTPError as e:
                last = f"hpsv3 service unreachable at {self.shown_url}: {type(e).__name__}"
                continue
            if r.status_code >= 500 or r.status_code == 429:
                last = f"hpsv3 service answered HTTP {r.status_code}"
                continue
            if r.status_code != 200:
                from .judge import server_said

                try:  # a FastAPI refusal is {"detail": ...}: its words, not the JSON around them
                    body = r.json()
                except ValueError:
                    body = r.text
                said = server_said(body, self._secrets)  # one line; nothing after the code when it said nothing
                raise PreferenceBackendError(f"hpsv3 service refused the request: HTTP {r.status_code}"
                                             + (f" {said}" if said else ""))
            try:
                return r.json()
            except ValueError:
                last = "hpsv3 service answered malformed JSON"
        raise PreferenceBackendError(f"{last} ({self.retries + 1} attempt(s))")

    def score_raw(self, images: Sequence[np.ndarray], prompts: Sequence[str]) -> list[float]:
        """HPSv3 mu per image."""
        payload = {"images": [base64.b64encode(png_bytes(im, self.image_size)).decode("ascii") for im in images],
                   "prompts": list(prompts)}
        data = self._post(payload)
        mu = data.get("mu") if isinstance(data, dict) else None
        if not isinstance(mu, list) or len(mu) != len(images) or not all(_is_number(m) for m in mu):
            raise PreferenceBackendError(f"hpsv3 service answered without {len(images)} numeric 'mu' values")
        values = [_finite(m) for m in mu]
        if None in values:
            raise PreferenceBackendError("hpsv3 service answered a non-finite mu")
        return values  # type: ignore[return-value]

    def score(self, image: np.ndarray, prompt: str = "") -> tuple[float, str]:
        mu = self.score_raw([image], [prompt or "a watercolour painting"])[0]
        shown = f"{mu:+.2f}" if abs(mu) < 1e6 else f"{mu:+.3g}"  # -1e308 in full is 300 digits of critique
        return normalise_mu(mu), f"HPSv3 mu {shown}"

    def check(self) -> str | None:
        try:
            r = self._http.get(self.health_url)
        except self._httpx.HTTPError as e:
            return f"preference (hpsv3 at {self.shown_url}): unreachable ({type(e).__name__})"
        if r.status_code != 200:
            return f"preference (hpsv3 at {self.shown_url}): /health answered HTTP {r.status_code}"
        try:  # the path a score takes, normalisation included: check must not pass where score fails
            self.score(np.full((64, 64, 3), 200, np.uint8), "a watercolour painting")
        except PreferenceBackendError as e:
            return f"preference (hpsv3 at {self.shown_url}): {e}"
        return None

    def close(self) -> None:
        self._http.close()
