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
    return 1.0 / (1.0 + math.exp(-mu / 4.0))


class HPSv3Client:
    name = "hpsv3"

    def __init__(self, url: str | None, *, timeout_s: float = 60.0, retries: int = 2, backoff_s: float = 0.5,
                 image_size: int | None = None):
        if not url:
            raise PreferenceBackendError("the hpsv3 preference backend needs preference_url (or AQUARELLE_HPS_URL)")
        import httpx

        from .config import shown_url

        self.url = url.rstrip("/")
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
                r = self._http.post(self.url + "/score", json=payload)
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
                raise PreferenceBackendError(f"hpsv3 service refused the request: HTTP {r.status_code} "
                                             f"{r.text[:120]}")
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
        if not isinstance(mu, list) or len(mu) != len(images) or not all(isinstance(m, (int, float)) for m in mu):
            raise PreferenceBackendError(f"hpsv3 service answered without {len(images)} numeric 'mu' values")
        if not all(math.isfinite(m) for m in mu):
            raise PreferenceBackendError("hpsv3 service answered a non-finite mu")
        return [float(m) for m in mu]

    def score(self, image: np.ndarray, prompt: str = "") -> tuple[float, str]:
        mu = self.score_raw([image], [prompt or "a watercolour painting"])[0]
        return normalise_mu(mu), f"HPSv3 mu {mu:+.2f}"

    def check(self) -> str | None:
        try:
            r = self._http.get(self.url + "/health")
        except self._httpx.HTTPError as e:
            return f"preference (hpsv3 at {self.shown_url}): unreachable ({type(e).__name__})"
        if r.status_code != 200:
            return f"preference (hpsv3 at {self.shown_url}): /health answered HTTP {r.status_code}"
        try:
            self.score_raw([np.full((64, 64, 3), 200, np.uint8)], ["a watercolour painting"])
        except PreferenceBackendError as e:
            return f"preference (hpsv3 at {self.shown_url}): {e}"
        return None

    def close(self) -> None:
        self._http.close()
