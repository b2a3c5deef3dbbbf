// aquarelle: report the first finished frame (or a sketch error) back to Python.
// Loaded after p5.brush, so its postdraw hook runs after p5.brush has flushed
// its watercolour composite onto the canvas. Python awaits window.__aq.done.
(function () {
  "use strict";
  let resolve;
  const done = new Promise((r) => { resolve = r; });
  let settled = false;
  function finish(result) {
    if (settled) return;
    if (!result.blocked) result.blocked = blocked.slice();
    settled = true;
    resolve(result);
  }
  function message(e) {
    if (!e) return "unknown error";
    if (typeof e === "string") return e;
    return String(e.message || e.reason || e);
  }
  const blocked = [];  // what the page's content policy refused (the route aborts the rest)
  window.__aq = { done: done };
  document.addEventListener("securitypolicyviolation", (ev) => {
    if (blocked.length < 100) blocked.push(String(ev.blockedURI || ev.violatedDirective));
  });
  window.addEventListener("error", (ev) => finish({ error: message(ev.error || ev.message) }));
  window.addEventListener("unhandledrejection", (ev) => finish({ error: message(ev.reason) }));

  function grab(inst) {
    const canvas = (inst._renderer && inst._renderer.canvas) || document.querySelector("canvas");
    if (!canvas) { finish({ error: "the sketch made no canvas" }); return; }
    finish({ png: canvas.toDataURL("image/png"), width: canvas.width, height: canvas.height, blocked: blocked.slice() });
  }

  p5.registerAddon(function (_p5, _fn, lifecycles) {
    lifecycles.postsetup = function () {
      const context = this._isGlobal ? window : this;
      if (typeof context.draw !== "function") grab(this);  // a sketch that paints in setup() only
    };
    lifecycles.postdraw = function () {
      if (settled) return;
      grab(this);
      this.noLoop();
    };
  });
})();
