"""Reference renderer: the real p5 2.3.4 + p5.brush 2.2.2 in headless Chromium.

The native renderer is only as good as its likeness to this one, and a painting
exported as code must look here the way it looked in training. The facts that make
it reliable (measured, see DESIGN.md): one long-lived browser and a pool of pages;
every file served through ``page.route`` from memory with ``charset=utf-8``, every
other request aborted and WebSockets closed, so a sketch reaches no network; the
page reloaded for each render (a reused WEBGL canvas smears); the PNG taken in a p5
``postdraw`` hook after p5.brush has flushed; an outer asyncio timeout per render
that throws away the page's whole context; a 512 MB JS heap; recovery after a
renderer or browser crash.

Playwright's async API runs on one private event loop thread, so the sync methods
here work from a CLI, from many threads at once and from inside other event loops.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import io
import os
import shutil
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from .errors import RenderError  # shared with the native renderer: the program's own fault

if TYPE_CHECKING:  # numpy and the program types stay out of module import time
    import numpy as np

    from aquarelle.brush.program import Program

__all__ = ["BrowserRenderer", "BrowserError", "RenderError", "CHROMIUM_FLAGS", "find_node_modules", "find_chromium"]

class BrowserError(RuntimeError):
    """The browser backend could not do its job (Chromium missing, crashed, unreachable): not the sketch's fault."""


#: The launch flags measured to work on these machines (DESIGN.md), plus the heap limit.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--js-flags=--max-old-space-size=512",
    # a third wall behind page.route and the page's CSP: anything that still escapes
    # goes to a proxy that is not there, loopback included, and UDP (WebRTC) is off
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--force-webrtc-ip-handling-policy",
)
#: The page's made-up origin: every request to it is answered from memory, nothing resolves.
ORIGIN = "http://aquarelle.invalid"
#: Belt and braces next to the route: the page itself may not open connections.
CSP = (
    "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:; "
    "connect-src 'none'; frame-src 'none'; object-src 'none'; form-action 'none'"
)
PAGE_DIR = Path(__file__).with_name("browser_page")
P5_FILE = ("p5", "lib", "p5.min.js")
BRUSH_FILE = ("p5.brush", "dist", "p5.brush.js")


def node_module_versions(root: Path) -> dict[str, str | None]:
    """The p5 and p5.brush versions a node_modules holds (None where it has none)."""
    import json

    out: dict[str, str | None] = {}
    for name in ("p5", "p5.brush"):
        try:
            out[name] = str(json.loads((root / name / "package.json").read_text(encoding="utf-8"))["version"])
        except (OSError, ValueError, KeyError, TypeError):
            out[name] = None
    return out


def _pinned(root: Path) -> str | None:
    """Why ``root`` is not a node_modules of the pinned p5 and p5.brush, or None when it is."""
    from ..brush.export import BRUSH_VERSION, P5_VERSION

    if not ((root.joinpath(*P5_FILE)).is_file() and (root.joinpath(*BRUSH_FILE)).is_file()):
        return "holds no p5 and p5.brush"
    v = node_module_versions(root)
    if (v["p5"], v["p5.brush"]) != (P5_VERSION, BRUSH_VERSION):
        return (f"holds p5 {v['p5']} and p5.brush {v['p5.brush']}, not the pinned {P5_VERSION} and "
                f"{BRUSH_VERSION}")
    return None


def find_node_modules(start: Path | None = None) -> Path:
    """The node_modules holding the pinned p5 and p5.brush: ``AQUARELLE_NODE_MODULES`` when set (only it: a
    folder named on purpose is not silently swapped for another), else the nearest beside the working directory
    or the package that holds the pinned versions: a project's own node_modules (p5 1.x, p5.brush 1.x) beside the
    working directory was taken, and `export` wrote a page that painted nothing, labelled p5.brush 2.2.2. Last, the
    copy an installed wheel carries (``aquarelle.bundled``): a wheel run outside a checkout could not export HTML."""
    env = os.environ.get("AQUARELLE_NODE_MODULES")
    if env:
        why = _pinned(Path(env))
        if why is None:
            return Path(env)
        raise BrowserError(f"AQUARELLE_NODE_MODULES={env} {why}: point it at a node_modules made by `npm ci` in the "
                           "repository, or unset it")
    here = (start or Path(__file__)).resolve()
    from ..bundled import bundled_node_modules

    candidates = [p / "node_modules" for p in [Path.cwd(), *here.parents]] + [bundled_node_modules()]
    for c in candidates:
        if _pinned(c) is None:
            return c
    raise BrowserError("p5 and p5.brush are not installed: run `npm ci` in the repository (make setup does it)")


def find_chromium() -> str:
    """Debian's chromium (``AQUARELLE_CHROMIUM`` when set: only it, as ``AQUARELLE_NODE_MODULES``, so a browser named
    on purpose is not silently swapped for another); never a Playwright download."""
    env = os.environ.get("AQUARELLE_CHROMIUM")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise BrowserError(f"AQUARELLE_CHROMIUM={env} is not an executable file: point it at a Chromium, or unset it "
                           "for /usr/bin/chromium")
    for c in ["/usr/bin/chromium", shutil.which("chromium") or "", shutil.which("chromium-browser") or ""]:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise BrowserError("chromium is not installed: apt-get install chromium (make setup does it)")


@dataclass(eq=False)
class _Slot:
    """One pool member: a context with one page, rebuilt after a timeout or crash."""

    index: int
    context: Any = None
    page: Any = None
    files: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    blocked: list[str] = field(default_factory=list)
    crashed: bool = False


@dataclass
class RenderStats:
    """What the last renders cost, for benchmarks and logs."""

    renders: int = 0
    timeouts: int = 0
    crashes: int = 0
    restarts: int = 0
    last_ms: float = 0.0
    blocked_requests: list[str] = field(default_factory=list)


class BrowserRenderer:
    """Render command programs (or raw sketches) with the real p5.brush.

    ``render(program)`` exports the program to the published-skeleton sketch
    (``aquarelle.brush.export.to_sketch``) and runs it. Sketch faults (throws,
    time-out, heap exhaustion) raise ``RenderError``; a browser that cannot start
    or dies raises ``BrowserError`` and is relaunched on the next call.
    """

    def __init__(
        self,
        pool_size: int = 2,
        timeout_s: float = 10.0,
        *,
        executable_path: str | None = None,
        node_modules: str | Path | None = None,
        launch_timeout_s: float = 30.0,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        if pool_size < 1:
            raise ValueError(f"pool_size must be >= 1, got {pool_size}")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        self.pool_size = pool_size
        self.timeout_s = float(timeout_s)
        self.launch_timeout_s = float(launch_timeout_s)
        self._executable = executable_path
        self._node_modules = Path(node_modules) if node_modules else None
        self._extra_args = tuple(extra_args)
        self.stats = RenderStats()
        self._static: dict[str, tuple[bytes, str]] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pw = None
        self._browser = None
        self._slots: asyncio.Queue | None = None
        self._all_slots: list[_Slot] = []
        self._launch_lock: asyncio.Lock | None = None
        self._closed = False

    # ------------------------------------------------------------------ public API

    def render(self, program: "Program", size: int | None = None, seed: int | None = None) -> "np.ndarray":
        """The program as the real p5.brush paints it: H x W x 3 uint8."""
        from aquarelle.brush.export import to_sketch

        if seed is None:
            seed = program.seed if program.seed is not None else 0
        return self.render_sketch(to_sketch(program, seed=seed), size=size)

    def render_sketch(self, source: str, size: int | None = None) -> "np.ndarray":
        """Run a p5.brush sketch (global-mode JS with setup/draw) and return its first frame."""
        if not isinstance(source, str):
            raise RenderError(f"sketch source must be text, got {type(source).__name__}")
        from .resample import render_size

        render_size(size)  # a bad size before the render (it was found after one, 0.6 s later), as native does
        png = self._call(self._render_files({"/sketch.js": (source.encode("utf-8"), "text/javascript")}))
        return _decode(png, size)

    def render_html(self, html: str, size: int | None = None, *, ready: str = "window.aquarelleDone === true") -> "np.ndarray":
        """Open a whole HTML page (e.g. an export) offline and screenshot its canvas once ``ready`` holds."""
        from .resample import render_size

        render_size(size)
        png = self._call(self._render_page(html.encode("utf-8"), ready))
        return _decode(png, size)

    def check(self) -> None:
        """Start the browser now, with p5 and p5.brush read (raises BrowserError with the reason when it cannot:
        a missing node_modules is a set-up problem to say before the first render, not each render's error)."""
        self._static_files()
        self._call(self._ensure_browser())

    def close(self) -> None:
        """Close the browser and stop the loop thread; safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=30)
        except Exception:  # noqa: BLE001 - closing must not raise; the process is going away
            pass
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=10)

    def __enter__(self) -> "BrowserRenderer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort; atexit covers interpreter exit
        if sys.is_finalizing():
            return
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass

    # ------------------------------------------------------------------ loop plumbing

    def _call(self, coro: Any) -> Any:
        # every await inside is bounded (launch, page set-up, render, close) except the wait for a
        # free page, which is as long as the renders queued before this one: no outer limit here
        try:
            loop = self._ensure_loop()
        except BrowserError:
            coro.close()  # never to run: closed, not left for "coroutine ... was never awaited" at collection
            raise
        return asyncio.run_coroutine_threadsafe(coro, loop).result()

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise BrowserError("this BrowserRenderer is closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                t = threading.Thread(target=loop.run_forever, name="aquarelle-browser", daemon=True)
                t.start()
                self._loop, self._thread = loop, t
                # close Chromium while the loop thread still runs (a forgotten renderer must not hang exit)
                ref = weakref.ref(self)
                atexit.register(lambda: (r := ref()) is not None and r.close())
            return self._loop

    # ------------------------------------------------------------------ browser lifecycle

    def _static_files(self) -> dict[str, tuple[bytes, str]]:
        if self._static is None:
            nm = self._node_modules or find_node_modules()
            self._static = {
                "/index.html": ((PAGE_DIR / "index.html").read_bytes(), "text/html"),
                "/capture.js": ((PAGE_DIR / "capture.js").read_bytes(), "text/javascript"),
                "/p5.min.js": (nm.joinpath(*P5_FILE).read_bytes(), "text/javascript"),
                "/p5.brush.js": (nm.joinpath(*BRUSH_FILE).read_bytes(), "text/javascript"),
            }
        return self._static

    async def _ensure_browser(self) -> None:
        if self._browser is not None and self._browser.is_connected():
            return
        if self._launch_lock is None:
            self._launch_lock = asyncio.Lock()
        async with self._launch_lock:  # concurrent renders must not launch two browsers
            if self._browser is not None and self._browser.is_connected():
                return
            await self._launch()

    async def _launch(self) -> None:
        if self._browser is not None:  # it died: start over
            self.stats.restarts += 1
            await self._shutdown(keep_playwright=True)
        self._static_files()
        exe = self._executable or find_chromium()
        try:
            from playwright.async_api import async_playwright
        except ImportError:
            raise BrowserError("python playwright is not installed: pip install -e '.[browser]'") from None
        try:
            if self._pw is None:
                self._pw = await asyncio.wait_for(async_playwright().start(), self.launch_timeout_s)
            self._browser = await self._pw.chromium.launch(
                executable_path=exe,
                headless=True,
                args=list(CHROMIUM_FLAGS) + list(self._extra_args),
                timeout=self.launch_timeout_s * 1000,
            )
        except Exception as e:  # noqa: BLE001 - any launch failure is infrastructure
            self._browser = None
            raise BrowserError(f"could not start chromium ({exe}): {_one_line(e)}") from None
        # one queue for the renderer's life: renders already waiting on it get the new slots
        if self._slots is None:
            self._slots = asyncio.Queue()
        while not self._slots.empty():
            self._slots.get_nowait()
        self._all_slots = [_Slot(i) for i in range(self.pool_size)]
        for s in self._all_slots:
            self._slots.put_nowait(s)

    async def _shutdown(self, keep_playwright: bool = False) -> None:
        for s in self._all_slots:
            await self._drop_context(s)
        self._all_slots = []
        if self._browser is not None:
            try:
                await asyncio.wait_for(self._browser.close(), 10)
            except Exception:  # noqa: BLE001 - a dead browser cannot be closed politely
                pass
            self._browser = None
        if not keep_playwright and self._pw is not None:
            try:
                await asyncio.wait_for(self._pw.stop(), 10)
            except Exception:  # noqa: BLE001
                pass
            self._pw = None

    async def _open_context(self, slot: _Slot) -> None:
        ctx = await self._browser.new_context(
            viewport={"width": 1024, "height": 1024},
            device_scale_factor=1,
            java_script_enabled=True,
            service_workers="block",
            offline=False,
        )
        page = await ctx.new_page()
        slot.context, slot.page, slot.crashed = ctx, page, False

        def on_crash(_page: Any) -> None:
            slot.crashed = True

        page.on("crash", on_crash)

        async def serve(route: Any) -> None:
            url = route.request.url
            u = urlparse(url)
            hit = slot.files.get(u.path) if f"{u.scheme}://{u.netloc}" == ORIGIN else None
            if hit is None:
                slot.blocked.append(url[:200])
                await route.abort("blockedbyclient")
                return
            body, ctype = hit
            headers = {"content-type": f"{ctype}; charset=utf-8", "cache-control": "no-store"}
            if ctype == "text/html":
                headers["content-security-policy"] = CSP
            await route.fulfill(status=200, body=body, headers=headers)

        async def no_socket(ws: Any) -> None:
            slot.blocked.append(ws.url[:200])
            await ws.close()

        await page.route("**/*", serve)
        await page.route_web_socket("**/*", no_socket)

    async def _drop_context(self, slot: _Slot) -> None:
        ctx, slot.context, slot.page = slot.context, None, None
        if ctx is None:
            return
        try:
            await asyncio.wait_for(ctx.close(), 10)
        except Exception:  # noqa: BLE001 - a wedged context is abandoned; the browser may be relaunched
            pass

    # ------------------------------------------------------------------ one render

    async def _acquire(self) -> _Slot:
        await self._ensure_browser()
        assert self._slots is not None
        while True:
            slot = await self._slots.get()
            if slot in self._all_slots:  # not a leftover from before a relaunch
                break
            await self._ensure_browser()
        if slot.context is None or slot.crashed or slot.page is None or slot.page.is_closed():
            await self._drop_context(slot)
            try:
                await asyncio.wait_for(self._open_context(slot), self.launch_timeout_s)
            except Exception as e:  # noqa: BLE001
                self._slots.put_nowait(slot)
                if self._browser is None or not self._browser.is_connected():
                    raise BrowserError(f"chromium died: {_one_line(e)}") from None
                raise BrowserError(f"could not open a page: {_one_line(e)}") from None
        return slot

    def _release(self, slot: _Slot) -> None:
        if self._slots is not None and slot in self._all_slots:
            self._slots.put_nowait(slot)

    async def _render_files(self, extra: dict[str, tuple[bytes, str]]) -> bytes:
        files = dict(self._static_files())
        files.update(extra)
        return await self._guarded(files, "/index.html", self._grab_capture)

    async def _render_page(self, html: bytes, ready: str) -> bytes:
        async def grab(page: Any, slot: _Slot) -> bytes:
            await page.wait_for_function(ready, polling=50)
            canvas = page.locator("canvas").first
            return await canvas.screenshot(type="png")

        return await self._guarded({"/index.html": (html, "text/html")}, "/index.html", grab)

    @staticmethod
    async def _grab_capture(page: Any, slot: _Slot) -> bytes:
        result = await page.evaluate("window.__aq ? window.__aq.done : {error: 'the page did not load its scripts'}")
        if not isinstance(result, dict):
            raise RenderError("the sketch returned nothing")
        slot.blocked.extend(str(u)[:200] for u in result.get("blocked") or [])
        if result.get("error"):
            raise RenderError(f"sketch error: {_one_line(result['error'])}")
        data = result.get("png") or ""
        if not data.startswith("data:image/png;base64,"):
            raise RenderError("the sketch produced no image")
        return base64.b64decode(data.split(",", 1)[1])

    async def _guarded(self, files: dict[str, tuple[bytes, str]], path: str, grab: Any) -> bytes:
        slot = await self._acquire()
        slot.files, slot.blocked = files, []
        t0 = time.perf_counter()
        try:
            try:
                return await asyncio.wait_for(self._load_and_grab(slot, path, grab), self.timeout_s)
            except asyncio.TimeoutError:
                self.stats.timeouts += 1
                await self._drop_context(slot)  # the renderer may be spinning: kill it with its context
                raise RenderError(f"render timed out after {self.timeout_s:g}s (endless loop or too much work)") from None
            except RenderError:
                raise
            except Exception as e:  # noqa: BLE001 - sort playwright's errors into ours
                if self._browser is None or not self._browser.is_connected():
                    self._browser_gone()
                    raise BrowserError(f"chromium died during the render: {_one_line(e)}") from None
                if slot.crashed or "crash" in str(e).lower():
                    self.stats.crashes += 1
                    await self._drop_context(slot)
                    raise RenderError("the page crashed while rendering (out of memory?)") from None
                await self._drop_context(slot)
                if "context was destroyed" in str(e) or "navigat" in str(e).lower():
                    raise RenderError("the sketch navigated away from its page (not allowed)") from None
                raise RenderError(f"the page failed: {_one_line(e)}") from None
        finally:
            self.stats.renders += 1
            self.stats.last_ms = (time.perf_counter() - t0) * 1000
            self.stats.blocked_requests = list(slot.blocked)
            slot.files = {}
            self._release(slot)

    async def _load_and_grab(self, slot: _Slot, path: str, grab: Any) -> bytes:
        page = slot.page
        await page.goto(ORIGIN + path, wait_until="domcontentloaded")
        return await grab(page, slot)

    def _browser_gone(self) -> None:
        # keep the dead handle: _ensure_browser sees is_connected() False and relaunches
        for s in self._all_slots:
            s.context, s.page = None, None


def _decode(png: bytes, size: int | None) -> "np.ndarray":
    """PNG bytes -> H x W x 3 uint8, transparent pixels composited over white."""
    import numpy as np
    from PIL import Image

    img = Image.open(io.BytesIO(png))
    if img.mode in ("RGBA", "LA", "P"):
        img = img.convert("RGBA")
        bg = Image.new("RGBA", img.size, (255, 255, 255, 255))
        img = Image.alpha_composite(bg, img)
    from .resample import resample

    return resample(np.asarray(img.convert("RGB"), dtype=np.uint8).copy(), size)


def _one_line(e: Any) -> str:
    s = str(e).strip().splitlines()
    text = s[0] if s else type(e).__name__
    return text[:300]
