// aquarelle sandbox prelude: p5 shims + a recording `brush`, evaluated in a fresh
// V8 context before the sketch. Everything the host reads back lives in this
// closure; built-ins are captured here and frozen before user code runs, so a
// sketch cannot hide its calls or violations by tampering with prototypes.
(function () {
  "use strict";
  const G = globalThis;
  const M = Math;
  const stringify = JSON.stringify;
  const isArray = Array.isArray;
  const defineProperty = Object.defineProperty;
  const objKeys = Object.keys;
  // copies of a sketch's objects have no prototype: Object.prototype is frozen, so assigning a key it has
  // (`toString`, `valueOf`, `constructor`) to a plain `{}` threw "Cannot assign to read only property", and
  // `__proto__` would have set the copy's prototype instead of copying a key
  const objCreate = Object.create;
  const bare = () => objCreate(null);
  const freeze = Object.freeze;
  const getProto = Object.getPrototypeOf;
  const getOwnNames = Object.getOwnPropertyNames;
  const isFinite_ = Number.isFinite;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const ArrayFrom = Array.from;
  const ProxyC = Proxy;
  const ErrorC = Error;
  const StringC = String;

  // ------------------------------------------------------------------ records
  const calls = []; // [method, args] with plain data only
  const violations = [];
  let limitHit = null;
  let cfg = { seed: 0, maxCommands: 200000 };  // the host's own (maxFieldCells too) arrive with init
  let nRecorded = 0;
  const canvas = { w: 100, h: 100, created: false, webgl: false, mode: null };
  let phase = "load"; // load | setup | draw | done
  let angleUnits = "radians"; // p5's default
  let inRecord = 0;

  function push_(arr, v) { arr[arr.length] = v; }
  function violate(msg) {
    for (let i = 0; i < violations.length; i++) if (violations[i] === msg) return;
    if (violations.length < 50) push_(violations, msg);
  }
  function sandboxError(msg) {
    const e = new ErrorC(msg);
    defineProperty(e, "name", { value: "SandboxViolation" });
    return e;
  }
  function limitError() {
    const e = new ErrorC("command limit reached: more than " + cfg.maxCommands + " brush calls");
    defineProperty(e, "name", { value: "LimitError" });
    return e;
  }

  // ------------------------------------------------------------------ RNG, noise
  function mulberry32(a) {
    return function () {
      a |= 0; a = (a + 0x6d2b79f5) | 0;
      let t = M.imul(a ^ (a >>> 15), 1 | a);
      t = (t + M.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  function seedInt(s) {
    if (typeof s === "number" && isFinite_(s)) return M.floor(s) | 0;
    const str = StringC(s);
    let h = 2166136261;
    for (let i = 0; i < str.length; i++) { h ^= str.charCodeAt(i); h = M.imul(h, 16777619); }
    return h | 0;
  }
  // p5's own generator for random/randomGaussian/shuffle and for noise's table: the linear congruential
  // generator of p5.js 2.x (Numerical Recipes constants; the state an unsigned 32-bit integer, the product
  // exact in doubles), seeded as p5 seeds it (seed >>> 0). A seeded sketch run raw in p5.js then draws the
  // numbers its program was made with. Unseeded, p5 draws from Math.random; the sandbox from the run's seed.
  function p5Lcg(seed) {
    let z = (seed == null ? 0 : seed) >>> 0;
    return function () { z = (1664525 * z + 1013904223) % 4294967296; return z / 4294967296; };
  }
  let rng = p5Lcg(0);
  let queryRng = mulberry32(1);
  let mathRng = mulberry32(3);  // Math.random: a stream of its own, as in p5, where it is not random()'s
  let gaussSpare = null;

  const PERLIN_YWRAPB = 4, PERLIN_YWRAP = 1 << PERLIN_YWRAPB;
  const PERLIN_ZWRAPB = 8, PERLIN_ZWRAP = 1 << PERLIN_ZWRAPB;
  const PERLIN_SIZE = 4095;
  let perlinOctaves = 4, perlinFalloff = 0.5;
  let perlin = null;
  let noiseRng = p5Lcg(0);
  const scaledCos = (i) => 0.5 * (1.0 - M.cos(i * M.PI));
  function noise(x, y, z) {
    x = +x || 0; y = +y || 0; z = +z || 0;
    if (perlin === null) {
      perlin = new Array(PERLIN_SIZE + 1);
      for (let i = 0; i < PERLIN_SIZE + 1; i++) perlin[i] = noiseRng();
    }
    if (x < 0) x = -x; if (y < 0) y = -y; if (z < 0) z = -z;
    let xi = M.floor(x), yi = M.floor(y), zi = M.floor(z);
    let xf = x - xi, yf = y - yi, zf = z - zi;
    let r = 0, ampl = 0.5;
    for (let o = 0; o < perlinOctaves; o++) {
      let of = xi + (yi << PERLIN_YWRAPB) + (zi << PERLIN_ZWRAPB);
      const rxf = scaledCos(xf), ryf = scaledCos(yf);
      let n1 = perlin[of & PERLIN_SIZE];
      n1 += rxf * (perlin[(of + 1) & PERLIN_SIZE] - n1);
      let n2 = perlin[(of + PERLIN_YWRAP) & PERLIN_SIZE];
      n2 += rxf * (perlin[(of + PERLIN_YWRAP + 1) & PERLIN_SIZE] - n2);
      n1 += ryf * (n2 - n1);
      of += PERLIN_ZWRAP;
      n2 = perlin[of & PERLIN_SIZE];
      n2 += rxf * (perlin[(of + 1) & PERLIN_SIZE] - n2);
      let n3 = perlin[(of + PERLIN_YWRAP) & PERLIN_SIZE];
      n3 += rxf * (perlin[(of + PERLIN_YWRAP + 1) & PERLIN_SIZE] - n3);
      n2 += ryf * (n3 - n2);
      n1 += scaledCos(zf) * (n2 - n1);
      r += n1 * ampl;
      ampl *= perlinFalloff;
      xi <<= 1; xf *= 2; yi <<= 1; yf *= 2; zi <<= 1; zf *= 2;
      if (xf >= 1.0) { xi++; xf--; }
      if (yf >= 1.0) { yi++; yf--; }
      if (zf >= 1.0) { zi++; zf--; }
    }
    return r;
  }

  // ------------------------------------------------------------------ angles, transforms
  const D2R = M.PI / 180;
  const toRad = (a) => (angleUnits === "degrees" ? a * D2R : a);
  const fromRad = (a) => (angleUnits === "degrees" ? a / D2R : a);
  const toDeg = (a) => (angleUnits === "degrees" ? a : a / D2R);

  let mat = [1, 0, 0, 1, 0, 0]; // x' = a x + c y + e ; y' = b x + d y + f
  const stack = [];
  function resetMatrix() {
    mat = canvas.webgl ? [1, 0, 0, 1, canvas.w / 2, canvas.h / 2] : [1, 0, 0, 1, 0, 0];
  }
  function mul(m, n) { // m then n applied in local frame: result = m * n
    return [
      m[0] * n[0] + m[2] * n[1], m[1] * n[0] + m[3] * n[1],
      m[0] * n[2] + m[2] * n[3], m[1] * n[2] + m[3] * n[3],
      m[0] * n[4] + m[2] * n[5] + m[4], m[1] * n[4] + m[3] * n[5] + m[5],
    ];
  }
  const isNum = (v) => typeof v === "number";
  const linearIdentity = () => mat[0] === 1 && mat[1] === 0 && mat[2] === 0 && mat[3] === 1;
  const axisAligned = () => mat[1] === 0 && mat[2] === 0;
  function tx(x, y) { return mat[0] * x + mat[2] * y + mat[4]; }
  function ty(x, y) { return mat[1] * x + mat[3] * y + mat[5]; }
  function tpoint(p) {
    if (isArray(p) && p.length >= 2 && isNum(p[0]) && isNum(p[1])) {
      const out = [tx(p[0], p[1]), ty(p[0], p[1])];
      for (let i = 2; i < p.length; i++) push_(out, p[i]);
      return out;
    }
    return p;
  }
  function tpoints(ps) {
    if (!isArray(ps)) return ps;
    const out = [];
    for (let i = 0; i < ps.length; i++) push_(out, tpoint(ps[i]));
    return out;
  }
  const scaleOf = () => M.sqrt(M.abs(mat[0] * mat[3] - mat[1] * mat[2]));
  // p5.brush angles: degrees, counter-clockwise on screen (direction (cos a, -sin a)).
  function tangle(a) { return isNum(a) ? tangleDeg(toDeg(a)) : a; }
  function tangleDeg(deg) {
    if (linearIdentity()) return deg;
    const r = deg * D2R;
    const vx = M.cos(r), vy = -M.sin(r);
    const wx = mat[0] * vx + mat[2] * vy, wy = mat[1] * vx + mat[3] * vy;
    if (axisAligned() && mat[0] > 0 && mat[3] > 0 && mat[0] === mat[3]) return deg;
    return M.atan2(-wy, wx) / D2R;
  }
  function tlength(len, a) { // a length along direction a (in user units)
    if (!isNum(len) || linearIdentity()) return len;
    const r = isNum(a) ? toDeg(a) * D2R : 0;
    const vx = M.cos(r), vy = -M.sin(r);
    const wx = mat[0] * vx + mat[2] * vy, wy = mat[1] * vx + mat[3] * vy;
    return len * M.sqrt(wx * wx + wy * wy);
  }

  // ------------------------------------------------------------------ colours
  // every CSS colour name p5 knows (the host fills the table in from Pillow's, which colors.py reads too), in an
  // object without a prototype so that "constructor" is no colour
  const NAMES = bare();
  const cssNames = /*CSS_NAMES*/{};
  for (const k of objKeys(cssNames)) NAMES[k] = cssNames[k];
  // p5.Color, so that ``c instanceof p5.Color`` holds; a colour is made with color(), as p5's docs ask
  function ColorClass() { throw new ErrorC("new p5.Color() is not supported in the sandbox; use color()"); }
  // colorMode as p5 2.x keeps it: a maximum per channel for each mode (RGB's 255s, HSB's and HSL's 360, 100, 100
  // and an alpha of 1), changed only by colorMode(mode, max...) for that mode
  const MAXES = { rgb: [255, 255, 255, 255], hsb: [360, 100, 100, 1], hsl: [360, 100, 100, 1] };
  let cmode = "rgb";
  const plainRgb = () => cmode === "rgb" && MAXES.rgb.every((v) => v === 255);
  // A colour's state, out of the sketch's reach (WeakMap is frozen before the sketch runs): r, g, b, a in 0-255;
  // ``mode``, whose alpha maximum alpha() answers in; ``space`` and its ``coords`` in p5's colour library's units
  // (HSB's and HSL's hue in degrees, the others 0-100), in which lerpColor mixes two colours of one space. The
  // accessors and methods live on the prototype: a sketch that makes a colour per pixel makes 360,000 of them.
  const colorState = new WeakMap();
  const stateOf = (c) => colorState.get(c);
  const colorProto = ColorClass.prototype;
  for (const k of ["r", "g", "b", "a"]) defineProperty(colorProto, k, { get() { return stateOf(this)[k]; }, enumerable: true });
  defineProperty(colorProto, "__mode", { get() { return stateOf(this).mode; } });
  defineProperty(colorProto, "__space", { get() { return stateOf(this).space; } });
  defineProperty(colorProto, "__coords", { get() { return stateOf(this).coords; } });
  defineProperty(colorProto, "toString", { value: function () {
    const st = stateOf(this);
    return "rgba(" + st.r + "," + st.g + "," + st.b + "," + st.a / 255 + ")";
  } });
  // p5 2.x: the new value is read in RGB's maximum for that channel (alpha too) unless one is given, unclamped; a
  // channel of an HSB or HSL colour is set through sRGB and the colour converted back to its space
  function setChannel(st, i, v, max) {
    const u = v / (max || MAXES.rgb[i]);
    if (i === 3) { st.a = u * 255; return; }
    if (st.space === "rgb") { st["rgb"[i]] = u * 255; return; }
    const rgb = spaceRgb01(st.space, st.coords);
    rgb[i] = u;
    st.coords = st.space === "hsb" ? hsbOf01(rgb) : hslOf({ r: rgb[0] * 255, g: rgb[1] * 255, b: rgb[2] * 255 });
    const back = spaceRgb01(st.space, st.coords);
    st.r = back[0] * 255; st.g = back[1] * 255; st.b = back[2] * 255;
  }
  ["setRed", "setGreen", "setBlue", "setAlpha"].forEach((m, i) => {
    defineProperty(colorProto, m, { value: function (v, max) { setChannel(stateOf(this), i, v, max); } });
  });
  freeze(colorProto);
  function makeColor(r, g, b, a, mode, space, coords) {
    const c = objCreate(colorProto);
    colorState.set(c, { r: r, g: g, b: b, a: a, mode: mode || "rgb", space: space || "rgb", coords: coords || null });
    return c;
  }
  function hsbOf01(rgb) {  // sRGB 0-1 to HSB (degrees, %, %), as p5 2.x's HSB space converts
    const val = M.max(rgb[0], rgb[1], rgb[2]), chroma = val - M.min(rgb[0], rgb[1], rgb[2]);
    let hue = 0, sat = 0;
    if (chroma !== 0) {
      sat = chroma / val;
      hue = rgb[0] === val ? (rgb[1] - rgb[2]) / chroma : rgb[1] === val ? 2 + (rgb[2] - rgb[0]) / chroma
        : 4 + (rgb[0] - rgb[1]) / chroma;
      if (hue < 0) hue += 6; else if (hue >= 6) hue -= 6;
    }
    return [(hue / 6) * 360, sat * 100, val * 100];
  }
  const isColor = (v) => v !== null && typeof v === "object" && colorState.has(v);
  const clamp255 = (v) => M.max(0, M.min(255, v));
  // a CSS number or percentage, the percentage of ``full``
  const cssPart = (t, full) => (t[t.length - 1] === "%" ? (parseFloat(t) / 100) * full : +t);
  function hsl01(hsl) {  // HSL (degrees, %, %) to sRGB 0-1, as p5's colour library converts (CSS Color 4)
    const h = (((hsl[0] % 360) + 360) % 360) / 30, s = hsl[1] / 100, l = hsl[2] / 100;
    const a = s * M.min(l, 1 - l);
    const f = (n) => { const k = (n + h) % 12; return l - a * M.max(-1, M.min(k - 3, 9 - k, 1)); };
    return [f(0), f(8), f(4)];
  }
  function hsb01(hsb) {  // HSB (degrees, %, %) to sRGB 0-1, as p5 2.x's own HSB space converts, sector by sector
    const hue = (hsb[0] / 360) * 6, sat = hsb[1] / 100, val = hsb[2] / 100;
    if (sat === 0) return [val, val, val];
    const sector = M.floor(hue);
    const t1 = val * (1 - sat), t2 = val * (1 - sat * (hue - sector)), t3 = val * (1 - sat * (1 + sector - hue));
    return sector === 1 ? [t2, val, t1] : sector === 2 ? [t1, val, t3] : sector === 3 ? [t1, t2, val]
      : sector === 4 ? [t3, t1, val] : sector === 5 ? [val, t1, t2] : [val, t3, t1];
  }
  // sRGB 0-1 of an HSB or HSL colour's coordinates, and of a colour, as exact as its space holds it
  const spaceRgb01 = (space, coords) => (space === "hsb" ? hsb01 : hsl01)(coords);
  const rgb01 = (c) => (c.__space === "rgb" ? [c.r / 255, c.g / 255, c.b / 255] : spaceRgb01(c.__space, c.__coords));
  function fromSpace(space, coords, a, mode) {
    const u = spaceRgb01(space, coords);
    return makeColor(u[0] * 255, u[1] * 255, u[2] * 255, a, mode, space, coords);
  }
  // p5's map(v, 0, max, 0, to, true)
  const toRange = (v, max, to) => M.max(0, M.min(to, (v / max) * to));
  // numbers in a colour mode's units: p5 clamps each to its maximum, a lone number is a grey (HSB's brightness)
  function fromNumbers(v, mode) {
    const max = MAXES[mode];
    const alpha = v.length === 2 || v.length >= 4 ? v[v.length === 2 ? 1 : 3] : undefined;
    const a = alpha === undefined ? 255 : max[3] === 255 ? clamp255(alpha) : toRange(alpha, max[3], 1) * 255;
    if (mode === "rgb") {
      const ch = (x, i) => (max[i] === 255 ? clamp255(x) : toRange(x, max[i], 1) * 255);
      if (v.length <= 2) { const g = ch(v[0], 2); return makeColor(g, g, g, a); }
      return makeColor(ch(v[0], 0), ch(v[1], 1), ch(v[2], 2), a);
    }
    const coords = v.length <= 2 ? [0, 0, toRange(v[0], max[2], 100)]
      : [toRange(v[0], max[0], 360), toRange(v[1], max[1], 100), toRange(v[2], max[2], 100)];
    return fromSpace(mode, coords, a, mode);
  }
  // ``mode``: the colour mode numbers are read in (the sketch's; a custom tip's graphics keep RGB, as a p5.Graphics does)
  function parseColorArgs(args, mode) {
    const n = args.length;
    if (n === 1 && isColor(args[0])) return args[0];
    if (n === 1 && isArray(args[0])) return parseColorArgs(args[0], mode);
    if (n >= 1 && isNum(args[0])) {
      const v = [];
      for (let i = 0; i < M.min(n, 4); i++) push_(v, args[i]);
      return fromNumbers(v, mode || "rgb");
    }
    if (typeof args[0] === "string") {
      const s = args[0].trim().toLowerCase();
      let m = /^#([0-9a-f]{3,8})$/.exec(s);
      if (m) {
        let h = m[1];
        if (h.length === 3 || h.length === 4) { let e = ""; for (let i = 0; i < h.length; i++) e += h[i] + h[i]; h = e; }
        if (h.length === 6 || h.length === 8) {
          const a = h.length === 8 ? parseInt(h.slice(6, 8), 16) : 255;
          return makeColor(parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16), a);
        }
      }
      // rgb()/rgba() with numbers or percentages, hsl()/hsla(): CSS's functional forms, as p5 reads them
      m = /^rgba?\(\s*([\d.]+%?)\s*,\s*([\d.]+%?)\s*,\s*([\d.]+%?)\s*(?:,\s*([\d.]+%?)\s*)?\)$/.exec(s);
      if (m) return makeColor(clamp255(cssPart(m[1], 255)), clamp255(cssPart(m[2], 255)), clamp255(cssPart(m[3], 255)),
                              m[4] === undefined ? 255 : clamp255(cssPart(m[4], 1) * 255));
      m = /^hsla?\(\s*([\d.]+)(?:deg)?\s*,\s*([\d.]+)%\s*,\s*([\d.]+)%\s*(?:,\s*([\d.]+%?)\s*)?\)$/.exec(s);
      if (m) {
        return fromSpace("hsl", [((+m[1] % 360) + 360) % 360, M.min(+m[2], 100), M.min(+m[3], 100)],
                         m[4] === undefined ? 255 : clamp255(cssPart(m[4], 1) * 255), "hsl");
      }
      const nm = NAMES[s];
      if (nm) return makeColor(nm[0], nm[1], nm[2], n === 2 && isNum(args[1]) ? clamp255(args[1]) : 255);
      throw new ErrorC("color(): unknown colour " + stringify(args[0]));
    }
    throw new ErrorC("color(): cannot make a colour from " + stringify(plain(args, 0)));
  }
  // channels past 0-255 (lerpColor beyond its ends) are clamped when the colour is painted, as a canvas does
  const hex2 = (v) => { const s = M.round(clamp255(v)).toString(16); return s.length < 2 ? "0" + s : s; };
  const colorHex = (c) => "#" + hex2(c.r) + hex2(c.g) + hex2(c.b) + (c.a < 255 ? hex2(c.a) : "");

  // ------------------------------------------------------------------ plain data
  function plain(v, depth) {
    if (depth > 8) throw new ErrorC("argument nested too deeply");
    if (v === undefined || v === null) return null;
    const t = typeof v;
    // JSON has no NaN/Infinity (stringify writes null); the host turns this marker back into the number
    if (t === "number") return isFinite_(v) ? v : { __aq_number__: StringC(v) };
    if (t === "string" || t === "boolean") return v;
    if (t === "function") return { __function__: true };
    if (t === "bigint" || t === "symbol") return StringC(v);
    if (isColor(v)) return colorHex(v);
    if (isArray(v) || ArrayBufferIsView(v)) {
      const out = [];
      const n = v.length;
      if (n > 100000) throw new ErrorC("argument array too long (" + n + " items)");
      for (let i = 0; i < n; i++) push_(out, plain(v[i], depth + 1));
      return out;
    }
    const out = bare();
    const ks = objKeys(v);
    for (let i = 0; i < ks.length; i++) out[ks[i]] = plain(v[ks[i]], depth + 1);
    return out;
  }

  function put(method, args) {
    if (limitHit) throw limitError();
    if (nRecorded >= cfg.maxCommands) { limitHit = "commands"; throw limitError(); }
    nRecorded++;
    push_(calls, [method, args]);
    if (method === "hatch") hatchRec = args;
  }
  // p5.brush lays a stroke's stamps in the sketch's units and draws them through the canvas transform: each stamp's
  // size times the length of the transformed x-axis (its snapshotMatrix's scale), its spacing and scatter scaled
  // with the points. Under a similarity a stroke is framed (below); one left on the canvas's coordinates under a
  // scale s (a massing shape's outline) is recorded between scaleBrushes(s) and scaleBrushes(1 / s), which scale
  // those three (measured before the frames: a 2B line under scale(2) painted half the width, a spray 0.041 of the
  // canvas against p5.brush's 0.057). Shapes are wrapped only while they stroke or hatch (a fill takes nothing from
  // the brushes). Under a scale that differs by axis p5.brush's stamps grow with the x-axis and its steps with the
  // stroke's direction, which one factor cannot say: left as it was (a line under scale(2, 0.5): 0.55 mean pixel
  // difference from p5.brush as it was, 0.72 wrapped).
  function strokes(method) {
    switch (method) {
      case "line": case "flowLine": case "spline": case "endStroke": case "arc": case "hatchArray": return true;
      case "rect": case "circle": case "polygon": case "endShape": return strokeOn || hatchOn;
      default: return false;
    }
  }
  // p5.brush builds a shape or stroke in its own coordinates (a fill's sizes, centre offset, texture holes and border
  // widths; a stroke's walk, field and scatter) and draws it through the canvas transform, so under a similarity (a
  // rotation and one scale, mirrored or not, or a move alone) the calls in FRAMED, and a hatching hatchArray, are
  // recorded in their own coordinates after a `frame` command holding the transform (a, b, c, d, e, f). Measured
  // raw in Chromium against the program before: a rect rotated 30 degrees painted 0.118 of the canvas where
  // p5.brush paints 0.146, one under scale(1.5) 0.147 against 0.168. The frame recorded last is `frameRec` (null:
  // the canvas's), and a call drawn without one after a framed one is preceded by the identity frame.
  // p5.brush hatches a shape (and a hatchArray's polygons) in its own axes too, with the distance and angle hatch()
  // was given: hatch() is recorded as given, a hatching shape is framed as a filled one is, and a hatching shape
  // left on the canvas's coordinates (under a shear, a scale that differs by axis) is preceded by the hatch as the
  // transform there takes it to the canvas; a hatch is recorded only when the one recorded last (`hatchRec`) is
  // another. A shape that masses stays on the canvas's coordinates.
  let frameRec = null, shapeOwn = false, fillSet = false, washSet = false, massSet = false;
  let hatchRec = null;
  function same(x, y) {
    if (x === y) return true;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
    const kx = objKeys(x), ky = objKeys(y);
    if (kx.length !== ky.length) return false;
    for (let i = 0; i < kx.length; i++) if (!same(x[kx[i]], y[kx[i]])) return false;
    return true;
  }
  function brushFlags() {
    return [fillSet, washSet, massSet, hatchOn, hatchArgs, hatchRec, strokeOn, currentField];
  }
  function setBrushFlags(f) {
    fillSet = f[0]; washSet = f[1]; massSet = f[2]; hatchOn = f[3]; hatchArgs = f[4]; hatchRec = f[5];
    strokeOn = f[6]; currentField = f[7];
  }
  function hatchFor(own) {
    if (!hatchOn || hatchArgs === null) return;
    let want = hatchArgs;
    if (!own && !linearIdentity()) {
      want = hatchArgs.slice();
      if (isNum(want[0])) want[0] = want[0] * scaleOf();
      if (want.length > 1 && isNum(want[1])) want[1] = tangleDeg(want[1]);
    }
    if (!same(want, hatchRec)) put("hatch", want);
  }
  function ownFrame(hatching) {
    // (a move alone is framed too: the same pixels natively, and p5.brush's own arithmetic in its coordinates: a
    // Polygon's hatch under translate() laid another last line at the canvas's, 1.08 mean pixel difference)
    if (!(hatching ? hatchOn : (fillSet || washSet || hatchOn || strokeOn) && !massSet) ||
        (linearIdentity() && mat[4] === 0 && mat[5] === 0)) return null;
    const a = mat[0], b = mat[1], c = mat[2], d = mat[3];
    const s = M.sqrt(a * a + b * b);
    const tol = 1e-9 * s;  // a similarity: a rotation and one scale, mirrored or not
    const turn = M.abs(a - d) <= tol && M.abs(b + c) <= tol, mirror = M.abs(a + d) <= tol && M.abs(b - c) <= tol;
    if (!(turn || mirror) || !(s >= 1e-4 && s <= 1e4)) return null;
    if (!isFinite_(mat[4]) || !isFinite_(mat[5]) || M.abs(mat[4]) > 1e5 || M.abs(mat[5]) > 1e5) return null;
    return [a, b, c, d, mat[4], mat[5]];
  }
  function setFrame(f) {
    if (f === null ? frameRec === null : frameRec !== null && f.every((v, i) => v === frameRec[i])) return;
    put("frame", f === null ? [1, 0, 0, 1, 0, 0] : f);
    frameRec = f;
  }
  function record(method, args, own) {
    switch (method) {
      case "rect": case "circle": case "polygon": case "beginShape": case "spline": case "hatchArray":
        hatchFor(own);
        setFrame(own || null);
        break;
      case "line": case "flowLine": case "arc": case "beginStroke":  // strokes are framed as shapes are
        setFrame(own || null);
        break;
      default:
    }
    // (a framed shape's strokes are scaled by its frame, as p5.brush's are by the transform: no wrap)
    const s = M.sqrt(mat[0] * mat[0] + mat[1] * mat[1]);
    if (!own && M.abs(s - 1) > 1e-9 && s >= 1e-4 && s <= 1e4 && strokes(method) && similarity()) {
      put("scaleBrushes", [s]);
      put(method, args);
      put("scaleBrushes", [1 / s]);
      return;
    }
    put(method, args);
  }

  // ------------------------------------------------------------------ custom tip raster
  const TIP_N = 32;
  // A pressure curve written as a function, ``(t) => value`` or ``{type: "custom", min_max, curve: (t) => value}``
  // (p5.brush's README), kept as its values at PRESSURE_N even steps of t; p5.brush maps the curve's value from
  // 0-1 onto min_max ([0, 1] for a bare function) and the renderers read between the samples linearly.
  const PRESSURE_N = 101;
  function samplePressure(pr) {
    let curve = null, out = null;
    if (typeof pr === "function") { curve = pr; out = { type: "custom", min_max: [0, 1] }; }
    else if (pr !== null && typeof pr === "object" && !isArray(pr) && typeof pr.curve === "function" &&
             (pr.type === "custom" || pr.mode === "custom")) {
      curve = pr.curve;
      out = bare();
      const ks = objKeys(pr);
      for (let i = 0; i < ks.length; i++) if (ks[i] !== "curve") out[ks[i]] = pr[ks[i]];
    }
    if (curve === null) return pr;
    const samples = [];
    for (let i = 0; i < PRESSURE_N; i++) {
      const v = +curve(i / (PRESSURE_N - 1));
      push_(samples, isFinite_(v) ? M.round(v * 1e6) / 1e6 : v);
    }
    out.samples = samples;
    return out;
  }
  function sampleTip(fn) {
    const grid = new Array(TIP_N * TIP_N);
    for (let i = 0; i < grid.length; i++) grid[i] = 0;
    let fillC = makeColor(255, 255, 255, 255), fillOn = true, strokeC = makeColor(0, 0, 0, 255), strokeOn = false;
    let sw = 1, m = [1, 0, 0, 1, 0, 0];
    const st = [];
    let shape = null;
    const dark = (c) => 1 - (0.299 * c.r + 0.587 * c.g + 0.114 * c.b) / 255;
    function paintPoly(pts, c) {
      const a = c.a / 255, d = dark(c);
      const P = [];
      for (let i = 0; i < pts.length; i++) {
        const x = pts[i][0], y = pts[i][1];
        push_(P, [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]);
      }
      for (let j = 0; j < TIP_N; j++) {
        for (let i = 0; i < TIP_N; i++) {
          const px = -50 + (i + 0.5) * (100 / TIP_N), py = -50 + (j + 0.5) * (100 / TIP_N);
          let inside = false;
          for (let k = 0, l = P.length - 1; k < P.length; l = k++) {
            const xi = P[k][0], yi = P[k][1], xj = P[l][0], yj = P[l][1];
            if ((yi > py) !== (yj > py) && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
          }
          if (inside) { const q = j * TIP_N + i; grid[q] = grid[q] * (1 - a) + d * a; }
        }
      }
    }
    function ellipsePts(x, y, w, h) {
      const pts = [];
      for (let i = 0; i < 32; i++) { const t = (i / 32) * 2 * M.PI; push_(pts, [x + (w / 2) * M.cos(t), y + (h / 2) * M.sin(t)]); }
      return pts;
    }
    function shape_(pts) {
      if (fillOn) paintPoly(pts, fillC);
      if (strokeOn) for (let i = 0; i < pts.length; i++) seg(pts[i], pts[(i + 1) % pts.length]);
    }
    function seg(p, q) {
      const dx = q[0] - p[0], dy = q[1] - p[1], L = M.sqrt(dx * dx + dy * dy) || 1;
      const nx = (-dy / L) * sw / 2, ny = (dx / L) * sw / 2;
      paintPoly([[p[0] + nx, p[1] + ny], [q[0] + nx, q[1] + ny], [q[0] - nx, q[1] - ny], [p[0] - nx, p[1] - ny]], strokeC);
    }
    const g = {
      background() { const c = parseColorArgs(arguments); const d = dark(c); for (let i = 0; i < grid.length; i++) grid[i] = d; },
      fill() { fillC = parseColorArgs(arguments); fillOn = true; },
      noFill() { fillOn = false; },
      stroke() { strokeC = parseColorArgs(arguments); strokeOn = true; },
      noStroke() { strokeOn = false; },
      strokeWeight(w) { sw = +w || 0; },
      push() { push_(st, [m, fillC, fillOn, strokeC, strokeOn, sw]); },
      pop() { const s = st.pop(); if (s) { m = s[0]; fillC = s[1]; fillOn = s[2]; strokeC = s[3]; strokeOn = s[4]; sw = s[5]; } },
      translate(x, y) { m = mul(m, [1, 0, 0, 1, +x || 0, +y || 0]); },
      rotate(a) { const r = toRad(+a || 0); m = mul(m, [M.cos(r), M.sin(r), -M.sin(r), M.cos(r), 0, 0]); },
      scale(x, y) { m = mul(m, [+x, 0, 0, y === undefined ? +x : +y, 0, 0]); },
      rect(x, y, w, h) { if (h === undefined) h = w; shape_([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]); },
      square(x, y, s) { shape_([[x, y], [x + s, y], [x + s, y + s], [x, y + s]]); },
      circle(x, y, d) { shape_(ellipsePts(x, y, d, d)); },
      ellipse(x, y, w, h) { shape_(ellipsePts(x, y, w, h === undefined ? w : h)); },
      triangle(a, b, c, d, e, f) { shape_([[a, b], [c, d], [e, f]]); },
      quad(a, b, c, d, e, f, h, i) { shape_([[a, b], [c, d], [e, f], [h, i]]); },
      line(a, b, c, d) { if (strokeOn) seg([a, b], [c, d]); },
      point(x, y) { if (strokeOn) paintPoly(ellipsePts(x, y, sw, sw), strokeC); },
      beginShape() { shape = []; },
      vertex(x, y) { if (shape) push_(shape, [x, y]); },
      endShape() { if (shape && shape.length >= 3) shape_(shape); else if (shape && shape.length === 2 && strokeOn) seg(shape[0], shape[1]); shape = null; },
      pixelDensity() {}, noSmooth() {}, smooth() {}, angleMode() {}, rectMode() {}, ellipseMode() {}, blendMode() {},
      width: 100, height: 100,
    };
    const proxy = new ProxyC(g, {
      get(t, k) {
        if (typeof k === "string" && !(k in t)) throw new ErrorC("custom brush tip: g." + k + "() is not supported in the sandbox (use fill, rect, circle, ellipse, triangle, quad, line, point, beginShape/vertex/endShape, push/pop/translate/rotate/scale)");
        return t[k];
      },
    });
    fn(proxy);
    const rows = [];
    for (let j = 0; j < TIP_N; j++) {
      const row = [];
      for (let i = 0; i < TIP_N; i++) push_(row, M.round(M.max(0, M.min(1, grid[j * TIP_N + i])) * 1000) / 1000);
      push_(rows, row);
    }
    return rows;
  }

  // ------------------------------------------------------------------ fields
  // p5.brush's field grid: 200 columns at any canvas size, rows in proportion (200 x 125 on a 400 x 250 canvas). A
  // program keeps every 4th cell along an axis whose length 4 divides (50 of 200), else every 3rd or 2nd, else all,
  // so the renderers, which spread the kept cells evenly over the grid, put each kept value on its own cell
  function fieldStep(n, other) {  // cfg.maxFieldCells: commands.MAX_FIELD_CELLS, from the host
    for (const d of [4, 3, 2, 1]) if (n % d === 0 && M.ceil(n / d) * other <= cfg.maxFieldCells) return d;
    return 4; // a canvas over 4 times taller than wide: kept as evenly as may be
  }
  const BUILTIN_FIELDS = ["hand", "curved", "zigzag", "waves", "seabed", "spiral", "columns"];
  const BUILTIN_BRUSHES = ["pen", "rotring", "2B", "HB", "2H", "cpencil", "pastel", "crayon", "charcoal", "spray", "marker"];
  const customFields = bare(); // name -> {fn, radians}
  const fieldNames = BUILTIN_FIELDS.slice();
  const brushNames = BUILTIN_BRUSHES.slice();
  let currentField = null;
  function sampleField(fn, radians, t) {
    const cell = canvas.w * 0.01;  // p5.brush's field resolution
    const cols = M.round((2 * canvas.w) / cell), rows = M.round((2 * canvas.h) / cell);
    const full = new Array(cols);
    for (let c = 0; c < cols; c++) full[c] = new Float32Array(rows);
    const res = fn(t, full);
    const src = isArray(res) ? res : full;
    const dc = fieldStep(cols, 1), dr = fieldStep(rows, M.ceil(cols / dc));
    const out = [];
    for (let c = 0; c < cols; c += dc) {
      const col = [];
      const sc = src[c];
      for (let r = 0; r < rows; r += dr) {
        let v = sc ? +sc[r] : NaN;
        if (radians) v = v / D2R;
        push_(col, M.round(v * 1000) / 1000);
      }
      push_(out, col);
    }
    return out;
  }

  // ------------------------------------------------------------------ the brush object
  const SPEC_NAMES = [
    "instance", "load", "scaleBrushes", "seed", "noiseSeed", "wRand", "field", "noField", "addField", "refreshField",
    "listFields", "wiggle", "box", "add", "clip", "noClip", "set", "pick", "stroke", "strokeWeight", "noStroke",
    "fill", "noFill", "fillBleed", "fillTexture", "wash", "noWash", "hatch", "hatchStyle", "noHatch", "hatchArray",
    "mass", "noMass", "massArray", "line", "flowLine", "beginStroke", "move", "endStroke", "spline", "rect", "circle",
    "arc", "beginShape", "vertex", "endShape", "polygon",
  ];
  const LEGACY = { bleed: "fillBleed", setHatch: "hatchStyle", segment: "move" };
  const NOT_IN_SPACE = { Polygon: 1, Plot: 1, Position: 1 };

  function argsOf(a) { const out = []; for (let i = 0; i < a.length; i++) push_(out, a[i]); return out; }

  const queried = []; // query/no-op methods used (not recorded, but still subject to the action space)
  function queried_(m) { if (queried.indexOf(m) < 0) push_(queried, m); }
  const special = {
    instance() { queried_("instance"); return undefined; },
    load() { queried_("load"); return undefined; },
    box() { queried_("box"); return brushNames.slice(); },
    listFields() { queried_("listFields"); return fieldNames.slice(); },
    wRand(weights) {
      queried_("wRand");
      let total = 0; const entries = [];
      for (const k in weights) { total += +weights[k]; push_(entries, [k, total]); }
      const rnd = queryRng() * total;
      // as p5.brush answers: a key that reads as a number comes back as one (parseInt), and none when no weight
      // is positive (its loop finds no entry)
      for (let i = 0; i < entries.length; i++) {
        if (rnd < entries[i][1]) return isNaN(entries[i][0]) ? entries[i][0] : parseInt(entries[i][0]);
      }
      return undefined;
    },
    add(name, params) {
      let p = params;
      if (p !== null && typeof p === "object" && !isArray(p)) {
        p = bare();
        const ks = objKeys(params);
        for (let i = 0; i < ks.length; i++) p[ks[i]] = params[ks[i]];
        if (typeof p.tip === "function") p.tip = sampleTip(p.tip);
        p.pressure = samplePressure(p.pressure);
      }
      record("add", [plain(name, 0), plain(p, 0)]);
      if (typeof name === "string" && brushNames.indexOf(name) < 0) push_(brushNames, name);
    },
    addField(name, fn, options) {
      if (typeof fn !== "function") { record("addField", [plain(name, 0), plain(fn, 0)]); return; }
      const radians = options === "radians" || (options && options.angleMode === "radians");
      if (typeof name === "string") customFields[name] = { fn: fn, radians: radians };
      record("addField", [plain(name, 0), sampleField(fn, radians, 0)]);
      if (typeof name === "string" && fieldNames.indexOf(name) < 0) push_(fieldNames, name);
    },
    field(name) { record("field", [plain(name, 0)]); currentField = name; },
    noField() { record("noField", []); },
    wiggle(n) { record("wiggle", n === undefined ? [] : [plain(n, 0)]); currentField = "hand"; },
    refreshField(t) {
      const cf = currentField !== null && typeof currentField === "string" ? customFields[currentField] : undefined;
      // the custom field's grid at t, marked: the host keeps it as an addField only where the custom field is in
      // effect (p5.brush's built-in fields overwrite a same-named one added before they were made, and then refresh
      // the built-in) and its grid is new (an exported field, the same at every t, would grow a copy per round trip)
      if (cf && isNum(t) && t !== 0) record("p5.refreshSample", [currentField, sampleField(cf.fn, cf.radians, t)]);
      record("refreshField", t === undefined ? [] : [plain(t, 0)]);
    },
    rect(x, y, w, h, mode) {
      // p5.brush's rect is beginShape(0), four vertices in this order, endShape(true): rotated, or with a side
      // that is negative on the canvas (a negative size, a mirroring scale), the same shape is recorded, in the
      // same vertex order (it decides where the fill starts and which way it bleeds; a rect command's sides are
      // non-negative). A filled rect under a rotation or scale is recorded in its own frame (see `ownFrame`).
      const own = isNum(x) && isNum(y) && isNum(w) && isNum(h) ? ownFrame(false) : null;
      if (own !== null) {
        if (w < 0 || h < 0) {
          let x0 = x, y0 = y;
          if (mode === "center") { x0 = x - w / 2; y0 = y - h / 2; }
          record("beginShape", [0], own);
          const pts = [[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]];
          for (let i = 0; i < 4; i++) record("vertex", pts[i]);
          record("endShape", [true], own);
        } else {
          record("rect", argsOf(arguments).map((v) => plain(v, 0)), own);
        }
        return;
      }
      if ((!axisAligned() || (isNum(w) && w * mat[0] < 0) || (isNum(h) && h * mat[3] < 0)) &&
          isNum(x) && isNum(y) && isNum(w) && isNum(h)) {
        let x0 = x, y0 = y;
        if (mode === "center") { x0 = x - w / 2; y0 = y - h / 2; }
        record("beginShape", [0]);
        const pts = [[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]];
        for (let i = 0; i < 4; i++) record("vertex", tpoint(pts[i]));
        record("endShape", [true]);
        return;
      }
      const a = argsOf(arguments).map((v) => plain(v, 0));
      if (isNum(a[0]) && isNum(a[1])) {
        const p = tpoint([a[0], a[1]]);
        a[0] = p[0]; a[1] = p[1];
        if (isNum(a[2]) && isNum(a[3])) { a[2] *= mat[0]; a[3] *= mat[3]; }  // both >= 0 here (see above)
      }
      record("rect", a);
    },
  };

  // `new brush.Polygon(points)`: the real p5.brush's hatchArray/massArray want Polygon objects (plain point arrays
  // crash there), so sketches (and our exports) pass them; here a Polygon is its points, as p5.brush keeps them in .a
  // A Polygon (``new brush.Polygon(points)``, or what ``brush.polygon(points)`` returns) can hatch itself, as
  // p5.brush's does: ``hatch(dist, angle, options)`` hatches it under those settings for this call only (p5.brush
  // keeps the hatch state and puts it back after), ``hatch()`` with the active state, if any: a hatchArray of it.
  // draw() strokes its sides; fill/wash are refused (each puts p5.brush's whole fill state back after it), and so is mass():
  // p5.brush masses a lone Polygon otherwise than massArray does a list of one (measured: far darker).
  let hatchOn = false, hatchArgs = null, strokeOn = false;
  function PolygonCtor(points) {
    const poly = { a: plain(points, 0) };
    defineProperty(poly, "hatch", { value: function (dist, angle, options) {
      if (inRecord) throw sandboxError("a Polygon's hatch() called while converting another call's arguments");
      const on = hatchOn, prev = hatchArgs;
      if (dist) target.hatch.apply(null, argsOf(arguments));
      if (hatchOn) {
        const own = ownFrame(true);
        record("hatchArray", [[own !== null && isArray(poly.a) ? poly.a : polyPoints(poly)]], own);
      }
      if (dist) {
        record("hatch", prev === null ? [] : prev);
        hatchArgs = prev;
        if (!on) record("noHatch", []);
        hatchOn = on;
      }
      return poly;
    } });
    // draw(): each side a line of the current brush, if a stroke is on; draw(brush, colour, weight) would put
    // p5.brush's stroke state back after it, which is refused with fill/wash/mass below
    defineProperty(poly, "draw", { value: function (brushName) {
      if (inRecord) throw sandboxError("a Polygon's draw() called while converting another call's arguments");
      if (brushName) {
        throw new ErrorC("brush.Polygon's draw(brush, color, weight) is not supported in the sandbox; " +
                         "brush.set() the brush, then call draw()");
      }
      const p = poly.a;
      if (strokeOn && isArray(p)) {
        for (let i = 0; i < p.length; i++) {
          const q = p[(i + 1) % p.length];
          target.line(p[i][0], p[i][1], q[0], q[1]);
        }
      }
      return poly;
    } });
    for (const m of ["fill", "wash", "mass"]) {
      defineProperty(poly, m, { value: function () {
        throw new ErrorC("brush.Polygon's " + m + "() is not supported in the sandbox; set the state and call " +
                         "brush.polygon(points)" + (m === "mass" ? " or brush.massArray([polygon])" : ""));
      } });
    }
    return freeze(poly);
  }
  let pointsOwn = false;  // a framed hatchArray's polygons keep their own coordinates
  function polyPoints(p) {
    const pts = p !== null && typeof p === "object" && !isArray(p) && isArray(p.a) ? p.a : p;
    return pointsOwn ? pts : tpoints(pts);
  }
  // in a sketch, what p5.brush takes: a plain point list passes here but throws inside the real p5.brush ("Cannot
  // read properties of undefined (reading 'length')"), so a sketch that paints here would fail anywhere else
  function polygonsArg(method, v) {
    if (!isArray(v)) return v;  // validation names what is wrong with it
    return v.map((p) => {
      if (isArray(p)) {
        throw new ErrorC(method + ": p5.brush needs brush.Polygon objects here (" + method +
          "([new brush.Polygon(points), ...])); a plain list of points throws inside it");
      }
      return polyPoints(p);
    });
  }

  // per-method argument transforms (args already plain). Only arguments the call passed are transformed: a missing
  // one filled in as undefined reached validation as null, and the message read "end must be a number, got None"
  // where it names the missing argument
  function xy(a, i) {
    if (isNum(a[i]) && isNum(a[i + 1])) { const p = tpoint([a[i], a[i + 1]]); a[i] = p[0]; a[i + 1] = p[1]; }
  }
  function at(a, i, f) { if (i < a.length) a[i] = f(a[i]); }
  const XF = {
    line(a) { if (isNum(a[0]) && isNum(a[1]) && isNum(a[2]) && isNum(a[3])) { xy(a, 0); xy(a, 2); } },
    flowLine(a) { xy(a, 0); at(a, 2, (v) => tlength(v, a[3])); at(a, 3, tangle); },
    beginStroke(a) { xy(a, 1); },
    move(a) { at(a, 1, (v) => tlength(v, a[0])); at(a, 0, tangle); },
    endStroke(a) { at(a, 0, tangle); },
    spline(a) { a[0] = tpoints(a[0]); },
    polygon(a) { a[0] = tpoints(a[0]); },
    hatchArray(a) { a[0] = polygonsArg("hatchArray", a[0]); },
    massArray(a) { a[0] = polygonsArg("massArray", a[0]); },
    circle(a) { xy(a, 0); if (isNum(a[2])) a[2] = a[2] * scaleOf(); },
    arc(a) { xy(a, 0); if (isNum(a[2])) a[2] = a[2] * scaleOf(); at(a, 3, tangle); at(a, 4, tangle); },
    vertex(a) { xy(a, 0); },
    clip(a) {
      const r = a[0];
      if (isArray(r) && r.length === 4 && r.every(isNum)) {
        const xs = [tx(r[0], r[1]), tx(r[2], r[1]), tx(r[0], r[3]), tx(r[2], r[3])];
        const ys = [ty(r[0], r[1]), ty(r[2], r[1]), ty(r[0], r[3]), ty(r[2], r[3])];
        a[0] = [M.min.apply(null, xs), M.min.apply(null, ys), M.max.apply(null, xs), M.max.apply(null, ys)];
      }
    },
    // as given (the angle in degrees): p5.brush hatches each shape in its own axes (see `hatchFor`)
    hatch(a) { if (a.length > 1 && isNum(a[1])) a[1] = toDeg(a[1]); },
    // p5.brush keeps the bleed's angle as given and reads it in the shape's own axes, which a filled shape under a
    // rotation keeps (its frame); only a shape under a shear or a scale that differs by axis is on the canvas's
    fillBleed(a) { if (a.length > 2 && isNum(a[2])) a[2] = toDeg(a[2]); },
  };
  // The calls framed in their own coordinates (`ownFrame`), and what those keep of their transform: angles in degrees
  const FRAMED = { rect: 1, circle: 1, polygon: 1, beginShape: 1, spline: 1, line: 1, flowLine: 1, arc: 1,
                   beginStroke: 1 };
  const inDeg = (v) => (isNum(v) ? toDeg(v) : v);
  const XF_OWN = {
    flowLine(a) { at(a, 3, inDeg); },
    move(a) { at(a, 0, inDeg); },
    endStroke(a) { at(a, 0, inDeg); },
    arc(a) { at(a, 3, inDeg); at(a, 4, inDeg); },
  };
  let strokeOwn = false;
  // Trailing undefined arguments are dropped so defaults apply.
  function trimArgs(a) { while (a.length && a[a.length - 1] === null) a.length = a.length - 1; return a; }

  // Outside plain RGB (colorMode(HSB), or RGB with other maximums) p5.brush reads a colour's numbers through p5's
  // color(), in the sketch's colour mode: the call records the colour that makes, so a program holds sRGB. fill and
  // wash keep p5.brush's reading of their opacity, ``(arguments.length < 4 ? b : d)``.
  function brushColorArgs(name, a) {
    if (plainRgb()) return a;
    const num = (v) => isNum(v) || (isArray(v) && v.length > 0 && isNum(v[0]));
    const hex = (args) => colorHex(colorOf(args));
    if (name === "fill" || name === "wash") {
      const n = a.length;
      if (n >= 3 && isNum(a[0])) return [hex([a[0], a[1], a[2]]), n < 4 ? a[1] : a[3]];
      if (n >= 1 && num(a[0])) return n === 2 ? [hex([a[0]]), a[1]] : [hex([a[0]])];
    } else if (name === "stroke") {
      if (a.length && num(a[0])) return [hex(a)];
    } else if ((name === "set" || name === "hatchStyle" || name === "mass") && a.length > 1 && num(a[1])) {
      const out = a.slice();
      out[1] = hex([a[1]]);
      return out;
    }
    return a;
  }

  const target = {};
  for (let i = 0; i < SPEC_NAMES.length; i++) {
    const name = SPEC_NAMES[i];
    if (special[name]) { target[name] = special[name]; continue; }
    const xf = XF[name];
    target[name] = function () {
      if (inRecord) throw sandboxError("brush." + name + "() called while converting another call's arguments");
      inRecord++;
      let a;
      try { a = trimArgs(brushColorArgs(name, argsOf(arguments)).map((v) => plain(v, 0))); } finally { inRecord--; }
      // a shape or stroke under a rotation, one scale or a move keeps its own coordinates (see `ownFrame`)
      const own = FRAMED[name] === 1 ? ownFrame(false) : name === "hatchArray" ? ownFrame(true) : null;
      if (name === "beginShape") shapeOwn = own !== null;
      if (name === "beginStroke") strokeOwn = own !== null;
      const inOwn = own !== null || (name === "vertex" && shapeOwn) || ((name === "move" || name === "endStroke") && strokeOwn);
      if (!inOwn) {
        if (xf) xf(a);
      } else if (name === "hatchArray") {  // its Polygons read as points, in their own coordinates
        pointsOwn = true;
        try { xf(a); } finally { pointsOwn = false; }
      } else if (XF_OWN[name]) {
        XF_OWN[name](a);  // angles in degrees, nothing else
      }
      record(name, a, name === "endShape" && shapeOwn ? frameRec : name === "endStroke" && strokeOwn ? frameRec : own);
      if (name === "endShape") shapeOwn = false;
      if (name === "endStroke") strokeOwn = false;
      if (name === "hatch") { hatchOn = true; hatchArgs = a; } else if (name === "noHatch") hatchOn = false;
      else if (name === "set" || name === "stroke") strokeOn = true; else if (name === "noStroke") strokeOn = false;
      else if (name === "fill") fillSet = true; else if (name === "noFill") fillSet = false;
      else if (name === "wash") washSet = true; else if (name === "noWash") washSet = false;
      else if (name === "mass") massSet = true; else if (name === "noMass") massSet = false;
    };
  }
  // Under a transform that is not a similarity (scale(2, 0.5), a shear) p5.brush draws its circle through the canvas
  // transform: an ellipse. A program's circle is round, so the sketch's circle is recorded as the closed shape of
  // that ellipse (ELLIPSE_N vertices); its irregularity is not carried. (It was a circle of the mean scale: painted
  // area overlap 0.07 with p5.brush's.)
  const ELLIPSE_N = 48;
  function similarity() {
    const a = mat[0], b = mat[1], c = mat[2], d = mat[3];
    const tol = 1e-9 * M.sqrt(a * a + b * b);  // as ownFrame tests (and commands._frame), so a frame it writes is
    // one under which a circle stays a circle
    return (M.abs(a - d) <= tol && M.abs(b + c) <= tol) || (M.abs(a + d) <= tol && M.abs(b - c) <= tol);
  }
  const circleCall = target.circle;
  target.circle = function (x, y, r) {
    if (similarity() || !isNum(x) || !isNum(y) || !isNum(r) || !(r > 0) || !isFinite_(x + y + r)) {
      return circleCall.apply(null, argsOf(arguments));
    }
    record("beginShape", [0]);
    for (let i = 0; i < ELLIPSE_N; i++) {
      const t = (2 * M.PI * i) / ELLIPSE_N;
      record("vertex", tpoint([x + r * M.cos(t), y + r * M.sin(t)]));
    }
    record("endShape", [true]);
  };
  // An arc under such a transform is an elliptical arc in p5.brush: recorded as a stroke through ARC_STEP-degree
  // chords of it (an arc is a stroke only in p5.brush, as beginStroke/move/endStroke is), at pressure 1 as p5.brush
  // draws arcs
  const ARC_STEP = 7.5;
  const arcCall = target.arc;
  target.arc = function (x, y, r, start, end) {
    if (similarity() || ![x, y, r, start, end].every(isNum) || !(r > 0) || !isFinite_(x + y + r + start + end)) {
      return arcCall.apply(null, argsOf(arguments));
    }
    const s0 = toDeg(start);
    const sweep = (((toDeg(end) - s0) % 360) + 360) % 360;
    if (sweep === 0) return;  // p5.brush draws nothing
    const n = M.max(2, M.ceil(sweep / ARC_STEP));
    const pts = [];
    for (let k = 0; k <= n; k++) {
      const t = (s0 + (sweep * k) / n) * D2R;
      push_(pts, tpoint([x + r * M.cos(t), y - r * M.sin(t)]));
    }
    const heading = (k) => M.atan2(-(pts[k + 1][1] - pts[k][1]), pts[k + 1][0] - pts[k][0]) / D2R;
    record("beginStroke", ["curve", pts[0][0], pts[0][1]]);
    for (let k = 0; k < n; k++) {
      record("move", [heading(k), M.hypot(pts[k + 1][0] - pts[k][0], pts[k + 1][1] - pts[k][1]), 1]);
    }
    record("endStroke", [heading(n - 1), 1]);
  };
  const polygonCall = target.polygon;  // p5.brush's polygon() returns the Polygon it painted
  target.polygon = function (points) { polygonCall.apply(null, argsOf(arguments)); return PolygonCtor(points); };
  freeze(target);
  const brush = new ProxyC(target, freeze({
    get(t, k) {
      if (typeof k !== "string") return undefined;
      if (k in t) return t[k];
      if (k === "then") return undefined; // `await brush` must not look like a promise
      if (LEGACY[k]) return function () { violate("brush." + k + "() is p5.brush 1.x; use brush." + LEGACY[k] + "()"); };
      if (k === "Polygon") return PolygonCtor;
      if (NOT_IN_SPACE[k]) return function () { violate("brush." + k + " is not part of the action space"); };
      return function () { violate("unknown brush method brush." + k + "()"); };
    },
    set() { return false; },
    defineProperty() { return false; },
    deleteProperty() { return false; },
  }));

  // ------------------------------------------------------------------ p5 globals
  const p5 = {};
  const def = (name, v) => { p5[name] = v; };
  const C = {
    PI: M.PI, TWO_PI: 2 * M.PI, TAU: 2 * M.PI, HALF_PI: M.PI / 2, QUARTER_PI: M.PI / 4,
    DEGREES: "degrees", RADIANS: "radians", WEBGL: "webgl", WEBGL2: "webgl2", P2D: "p2d",
    CLOSE: "close", CENTER: "center", CORNER: "corner", CORNERS: "corners", RADIUS: "radius",
    RGB: "rgb", HSB: "hsb", HSL: "hsl", BLEND: "source-over", MULTIPLY: "multiply", ADD: "lighter",
  };
  // the rest of p5 2.3.4's constants, with p5's values (a sketch that names ROUND, DEG_TO_RAD or LAB was a
  // ReferenceError here; most name what a still brush painting never uses, so they change nothing)
  const MORE_C = {
    ALT: "Alt", ARROW: "default", AUTO: "auto", AXES: "axes", BACKSPACE: "Backspace", BASELINE: "alphabetic",
    BEVEL: "bevel", BEZIER: "bezier", BLUR: "blur", BOLD: "bold", BOLDITALIC: "bold italic", BOTTOM: "bottom",
    BURN: "color-burn", CHAR: "CHAR", CHORD: "chord", CLAMP: "clamp", CONTAIN: "contain", CONTROL: "Control",
    COVER: "cover", CROSS: "crosshair", CURVE: "curve", DARKEST: "darken", DEG_TO_RAD: 0.017453292519943295,
    DELETE: "Delete", DIFFERENCE: "difference", DILATE: "dilate", DODGE: "color-dodge", DOWN_ARROW: "ArrowDown",
    EMPTY_PATH: 7, ENTER: "Enter", ERODE: "erode", ESCAPE: "Escape", EXCLUSION: "exclusion", FALLBACK: "fallback",
    FILL: "fill", FLAT: "flat", FLOAT: "float", FULL: "full", GRAY: "gray", GRID: "grid", HALF_FLOAT: "half-float",
    HAND: "pointer", HARD_LIGHT: "hard-light", IMAGE: "image", IMMEDIATE: "immediate", INVERT: "invert",
    ITALIC: "italic", LABEL: "label", LANDSCAPE: "landscape", LEFT: "left", LEFT_ARROW: "ArrowLeft",
    LIGHTEST: "lighten", LINEAR: "linear", LINEAR_MIPMAP: "linear_mipmap", LINES: 1, LINE_LOOP: 2, LINE_STRIP: 3,
    MIRROR: "mirror", MITER: "miter", MOVE: "move", NEAREST: "nearest", NORMAL: "normal", OPAQUE: "opaque",
    OPEN: "open", OPTION: "Alt", OVERLAY: "overlay", P2DP3: "p2d-p3", PATH: 8, PIE: "pie", POINTS: 0,
    PORTRAIT: "portrait", POSTERIZE: "posterize", PROJECT: "square", QUADRATIC: "quadratic", QUADS: "quads",
    QUAD_STRIP: "quad_strip", RAD_TO_DEG: 57.29577951308232, REMOVE: "destination-out", REPEAT: "repeat",
    REPLACE: "copy", RETURN: "Enter", RIGHT: "right", RIGHT_ARROW: "ArrowRight", ROUND: "round", SCREEN: "screen",
    SHIFT: "Shift", SIMPLE: "simple", SMOOTH: "smooth", SOFT_LIGHT: "soft-light", SQUARE: "butt", STROKE: "stroke",
    SUBTRACT: "subtract", TAB: "Tab", TESS: "tess", TEXT: "text", TEXTURE: "texture", THRESHOLD: "threshold",
    TOP: "top", TRIANGLES: 4, TRIANGLE_FAN: 6, TRIANGLE_STRIP: 5, UNSIGNED_BYTE: "unsigned-byte",
    UNSIGNED_INT: "unsigned-int", UP_ARROW: "ArrowUp", VERSION: "2.3.4", WAIT: "wait", WEBGPU: "webgpu",
    WORD: "WORD", RGBP3: "rgbp3", HWB: "hwb", LAB: "lab", LCH: "lch", OKLAB: "oklab", OKLCH: "oklch", RGBA: "rgba",
    VIDEO: "video", AUDIO: "audio",
  };
  for (const k in MORE_C) if (!(k in C)) C[k] = MORE_C[k];
  for (const k in C) def(k, C[k]);
  def("sin", (x) => M.sin(toRad(x)));
  def("cos", (x) => M.cos(toRad(x)));
  def("tan", (x) => M.tan(toRad(x)));
  def("asin", (x) => fromRad(M.asin(x)));
  def("acos", (x) => fromRad(M.acos(x)));
  def("atan", (x) => fromRad(M.atan(x)));
  def("atan2", (y, x) => fromRad(M.atan2(y, x)));
  def("degrees", (r) => r / D2R);
  def("radians", (d) => d * D2R);
  def("abs", M.abs); def("sqrt", M.sqrt); def("pow", M.pow); def("exp", M.exp); def("log", M.log);
  def("floor", M.floor); def("ceil", M.ceil);
  def("round", (n, d) => { if (!d) return M.round(n); const f = M.pow(10, d); return M.round(n * f) / f; });
  def("sq", (n) => n * n);
  def("fract", (n) => n - M.floor(n));
  def("min", function () { return isArray(arguments[0]) ? M.min.apply(null, arguments[0]) : M.min.apply(null, arguments); });
  def("max", function () { return isArray(arguments[0]) ? M.max.apply(null, arguments[0]) : M.max.apply(null, arguments); });
  def("map", (v, a, b, c, d, within) => {
    const r = ((v - a) / (b - a)) * (d - c) + c;
    if (!within) return r;
    return c < d ? M.max(M.min(r, d), c) : M.max(M.min(r, c), d);
  });
  def("lerp", (a, b, t) => t * (b - a) + a);
  def("constrain", (n, lo, hi) => M.max(M.min(n, hi), lo));
  def("dist", function () {
    const a = arguments;
    if (a.length >= 6) return M.hypot(a[3] - a[0], a[4] - a[1], a[5] - a[2]);
    return M.hypot(a[2] - a[0], a[3] - a[1]);
  });
  def("mag", (x, y) => M.hypot(x, y));
  def("norm", (v, a, b) => (v - a) / (b - a));
  def("random", function (a, b) {  // p5's argument forms, bounds swapped when min > max as p5 does
    const r = rng();
    if (a === undefined) return r;
    if (b === undefined) return isArray(a) ? a[M.floor(r * a.length)] : r * a;
    if (a > b) { const t = a; a = b; b = t; }
    return r * (b - a) + a;
  });
  // p5.brush's p5 add-on hooks randomSeed/noiseSeed to reseed p5.brush itself. A whole-number randomSeed before
  // anything is recorded becomes the program's seed (an exported sketch opens with one); any other is recorded
  // as the brush.seed/brush.noiseSeed call it amounts to, so every renderer reseeds where the sketch did.
  let leadSeed = null;
  function brushSeed(method, s) {
    const v = plain(s, 0);
    if (method === "seed" && nRecorded === 0 && typeof v === "number" && Number.isSafeInteger(v) && v >= 0) {
      leadSeed = v;
      return;
    }
    if (method === "noiseSeed" && nRecorded === 0 && v === (leadSeed === null ? cfg.seed : leadSeed)) return;
    record(method === "seed" ? "p5.randomSeed" : "p5.noiseSeed", [v]);  // p5's own: outside any action space
  }
  def("randomSeed", (s) => { rng = p5Lcg(s); gaussSpare = null; brushSeed("seed", s); });
  def("randomGaussian", (mean, sd) => {
    let y;
    if (gaussSpare !== null) { y = gaussSpare; gaussSpare = null; } else {
      let x1, x2, w;
      // p5's polar method (it loops on w >= 1 only; w == 0, a NaN there, is drawn again here)
      do { x1 = rng() * 2 - 1; x2 = rng() * 2 - 1; w = x1 * x1 + x2 * x2; } while (w >= 1 || w === 0);
      w = M.sqrt((-2 * M.log(w)) / w); y = x1 * w; gaussSpare = x2 * w;
    }
    return y * (sd === undefined ? 1 : sd) + (mean === undefined ? 0 : mean);
  });
  def("shuffle", (arr, modify) => {  // p5's Fisher-Yates: the same draws, a copy unless ``modify``
    const a = modify ? arr : arr.slice();
    for (let i = a.length - 1; i > 0; i--) { const j = M.floor(rng() * (i + 1)); const t = a[i]; a[i] = a[j]; a[j] = t; }
    return a;
  });
  def("noise", noise);
  def("noiseSeed", (s) => { noiseRng = p5Lcg(s); perlin = null; brushSeed("noiseSeed", s); });
  def("noiseDetail", (lod, falloff) => {  // p5 2.x: an omitted falloff is 0.5
    if (lod > 0) perlinOctaves = M.min(lod | 0, 16);
    if (falloff === undefined) falloff = 0.5;
    if (falloff > 0) perlinFalloff = falloff;
  });
  // p5's: a number is truncated to 32 bits (n | 0: int(1e-7) is 0, where parseInt read "1e-7" as 1), a boolean is
  // 0 or 1, an array is mapped
  def("int", function int_(n, radix) {
    const r = radix === undefined ? 10 : radix;
    if (n === Infinity || n === "Infinity") return Infinity;
    if (n === -Infinity || n === "-Infinity") return -Infinity;
    if (typeof n === "string") return parseInt(n, r);
    if (typeof n === "number") return n | 0;
    if (typeof n === "boolean") return n ? 1 : 0;
    if (isArray(n)) return n.map((x) => int_(x, r));
    return undefined;
  });
  def("float", (v) => (isArray(v) ? v.map((x) => parseFloat(x)) : parseFloat(v)));
  def("str", (v) => StringC(v));
  // p5.Vector as p5 2.x behaves, written from its documented and observed behaviour: a vector holds n values
  // (createVector(1, 2) is 2-D: its z reads 0 and a write to it is dropped; createVector() is 3-D zeros); add/sub
  // take a vector, an array or numbers and shrink the vector to the smaller dimension (add(5) leaves a 1-D
  // vector), mult/div/rem also take one number (div by 0 does nothing); non-finite arguments do nothing.
  // heading, rotate and angleBetween follow the sketch's angleMode for createVector's vectors, while
  // setHeading and the static fromAngle take radians; random2D/random3D draw from Math.random, as p5's do.
  const allFinite = (a) => { for (let i = 0; i < a.length; i++) if (typeof a[i] !== "number" || !isFinite_(a[i])) return false; return true; };
  const IN_SKETCH = {};  // the marker createVector passes: its vectors convert angles with angleMode
  function vecArgs(args, solo) {  // the operand as p5's argument check makes it, or null for "do nothing"
    if (args.length === 0) return null;
    let a = args;
    if (args[0] instanceof Vector) a = args[0].values;
    else if (isArray(args[0])) a = args[0];
    else if (args.length === 1 && solo) a = args[0];
    if (isArray(a) ? !allFinite(a) : typeof a !== "number" || !isFinite_(a)) return null;
    return a;
  }
  function shrink(v, a) {  // to the smaller dimension; a single number (no length) leaves it as it is
    const d = M.min(v.values.length, a.length);
    while (v.values.length > d) v.values.pop();
  }
  // add/sub/mult/div/rem: the operand checked, the vector shrunk to it, then f(value, operand) per value; an
  // operand that ``refuse`` finds in the values the vector keeps (div's zero) leaves the vector as it was
  function vecOp(v, args, solo, f, refuse) {
    const a = vecArgs(args, solo);
    if (a === null) return v;
    if (refuse) {
      if (isArray(a)) { for (let i = 0; i < M.min(v.values.length, a.length); i++) if (refuse(a[i])) return v; }
      else if (refuse(a)) return v;
    }
    shrink(v, a);
    for (let i = 0; i < v.values.length; i++) v.values[i] = f(v.values[i], isArray(a) ? a[i] : a);
    return v;
  }
  class Vector {
    constructor(...args) {
      const inSketch = args[0] === IN_SKETCH;
      if (inSketch) args.shift();
      this.values = allFinite(args) ? args : [];
      this.isPInst = inSketch;
      this.isVector = true;
    }
    get dimensions() { return this.values.length; }
    get x() { return this.values[0] || 0; }
    set x(v) { if (this.values.length > 1) this.values[0] = v; }
    get y() { return this.values[1] || 0; }
    set y(v) { if (this.values.length > 1) this.values[1] = v; }
    get z() { return this.values[2] || 0; }
    set z(v) { if (this.values.length > 2) this.values[2] = v; }
    get w() { return this.values[3] || 0; }
    set w(v) { if (this.values.length > 3) this.values[3] = v; }
    toString() { return "vector[" + this.values.join(", ") + "]"; }
    set(...args) {
      if (args[0] instanceof Vector) this.values = args[0].values.slice();
      else this.values = (isArray(args[0]) ? args[0] : args).map((u) => u || 0);
      return this;
    }
    copy() { return this.isPInst ? new Vector(IN_SKETCH, ...this.values) : new Vector(...this.values); }
    add(...args) { return vecOp(this, args, false, (u, w) => u + w); }
    sub(...args) { return vecOp(this, args, false, (u, w) => u - w); }
    mult(...args) { return vecOp(this, args, true, (u, w) => u * w); }
    div(...args) { return vecOp(this, args, true, (u, w) => u / w, (w) => w === 0); }
    rem(...args) { return vecOp(this, args, true, (u, w) => (w > 0 ? u % w : u)); }
    magSq() { let s = 0; for (let i = 0; i < this.values.length; i++) s += this.values[i] * this.values[i]; return s; }
    mag() { return M.sqrt(this.magSq()); }
    dot(...args) {
      const a = args[0] instanceof Vector ? args[0].values : args;
      let s = 0;
      for (let i = 0; i < M.min(this.values.length, a.length); i++) s += this.values[i] * a[i];
      return s;
    }
    cross(v) {
      const out = [this.y * v.z - this.z * v.y, this.z * v.x - this.x * v.z, this.x * v.y - this.y * v.x];
      return this.isPInst ? new Vector(IN_SKETCH, ...out) : new Vector(...out);
    }
    dist(v) {
      let s = 0;
      for (let i = 0; i < M.min(this.values.length, v.values.length); i++) {
        const d = this.values[i] - v.values[i];
        s += d * d;
      }
      return M.sqrt(s);
    }
    normalize() { const m = this.mag(); if (m !== 0) this.mult(1 / m); return this; }
    limit(max) { const q = this.magSq(); if (q > max * max) this.div(M.sqrt(q)).mult(max); return this; }
    setMag(n) { return this.normalize().mult(n); }
    heading() { const h = M.atan2(this.y, this.x); return this.isPInst ? fromRad(h) : h; }
    setHeading(a) {
      if (this.values.length < 2) return this;
      const m = this.mag();
      this.x = m * M.cos(a);
      this.y = m * M.sin(a);
      return this;
    }
    rotate(a) {
      let h = this.heading() + a;
      if (this.isPInst) h = toRad(h);
      const m = this.mag();
      this.x = M.cos(h) * m;
      this.y = M.sin(h) * m;
      return this;
    }
    angleBetween(v) {
      if (this.magSq() * v.magSq() === 0) return NaN;
      const u = this.cross(v);
      const a = M.atan2(u.mag(), this.dot(v)) * M.sign(u.z || 1);
      return this.isPInst ? fromRad(a) : a;
    }
    lerp(x, y, z, amt) {
      if (x instanceof Vector) return this.lerp(x.x, x.y, x.z, y);
      this.x += (x - this.x) * amt || 0;
      this.y += (y - this.y) * amt || 0;
      this.z += (z - this.z) * amt || 0;
      return this;
    }
    array() { return [this.x || 0, this.y || 0, this.z || 0]; }
    equals(...args) {
      const a = args[0] instanceof Vector ? args[0].values : isArray(args[0]) ? args[0] : args;
      for (let i = 0; i < this.values.length; i++) if (this.values[i] !== (a[i] || 0)) return false;
      return true;
    }
    static fromAngle(angle, length) {
      const l = length === undefined ? 1 : length;
      return new Vector(l * M.cos(angle), l * M.sin(angle));
    }
    static random2D() { return Vector.fromAngle(mathRng() * 2 * M.PI); }
    static random3D() {
      const a = mathRng() * 2 * M.PI, vz = mathRng() * 2 - 1, r = M.sqrt(1 - vz * vz);
      return new Vector(r * M.cos(a), r * M.sin(a), vz);
    }
    static copy(v) { return v.copy(); }
    static dot(a, b) { return a.dot(b); }
    static cross(a, b) { return a.cross(b); }
    static dist(a, b) { return a.dist(b); }
    static mag(v) { return v.mag(); }
    static magSq(v) { return v.magSq(); }
    static heading(v) { return v.heading(); }
  }
  // the static forms that return a vector: on a copy of the first (or into ``target``, set to it first)
  for (const [name, n] of [["add", 1], ["sub", 1], ["mult", 1], ["div", 1], ["rem", 1], ["rotate", 1], ["lerp", 2],
                           ["normalize", 0], ["limit", 1], ["setMag", 1]]) {
    defineProperty(Vector, name, { value: function (v, ...rest) {
      const target = rest.length > n && rest[n] instanceof Vector ? rest[n].set(v) : v.copy();
      return target[name](...rest.slice(0, n));
    } });
  }
  freeze(Vector.prototype);
  freeze(Vector);
  def("createVector", (...args) => {
    if (args.length === 0) args = [0, 0, 0];
    else if (isArray(args[0])) args = args[0].slice();
    return new Vector(IN_SKETCH, ...args);
  });
  // `new p5(sketch)` (instance mode, which p5.brush takes through brush.instance(p)) was "TypeError: p5 is not a
  // constructor": it is the skeleton the sandbox does not run, and says so
  function P5() {
    const msg = "missing skeleton: p5 instance mode (new p5(sketch)) is not run here; write global setup() and draw()";
    violate(msg);
    throw sandboxError(msg);
  }
  defineProperty(P5, "Vector", { value: Vector });
  defineProperty(P5, "Color", { value: ColorClass });
  def("p5", freeze(P5));
  def("millis", () => 0);
  // a still render has no clock: the time functions answer one fixed moment (noon, 1 January 2026), so a sketch that
  // reads them makes one program (they were ReferenceErrors)
  const MOMENT = { year: 2026, month: 1, day: 1, hour: 12, minute: 0, second: 0 };
  for (const k in MOMENT) def(k, () => MOMENT[k]);
  def("keyIsDown", () => false);
  // p5's small conversions a colour may be built with ('#' + hex(r, 2) + ...), as p5 2.x writes them
  const each = (f) => function self(n, d) { return isArray(n) ? n.map((x) => self(x, d)) : f(n, d); };
  def("hex", each((n, digits) => {
    const d = digits === undefined || digits === null ? 8 : digits;
    if (n === Infinity || n === -Infinity) return (n === Infinity ? "F" : "0").repeat(d);
    if (typeof n !== "number") return undefined;
    let h = Number(n < 0 ? 0xffffffff + n + 1 : n).toString(16).toUpperCase();
    while (h.length < d) h = "0" + h;
    return h.substring(h.length - d, h.length);
  }));
  def("unhex", each((n) => parseInt("0x" + n, 16)));
  def("boolean", each((n) => (typeof n === "number" ? n !== 0 : typeof n === "string" ? n.toLowerCase() === "true"
    : typeof n === "boolean" ? n : undefined)));
  def("char", each(function c(n) {
    if (typeof n === "number" && !Number.isNaN(n)) return StringC.fromCharCode(n);
    return typeof n === "string" ? c(parseInt(n, 10)) : undefined;
  }));
  def("unchar", each((n) => (typeof n === "string" && n.length === 1 ? n.charCodeAt(0) : undefined)));
  def("byte", each((n) => { const v = p5.int(n, 10); return typeof v === "number" ? ((v + 128) % 256) - 128 : undefined; }));
  // p5's number formatting, as p5 2.x writes it (nf pads the whole part and rounds with toFixed; nfc groups
  // thousands and cuts the decimals, it does not round): a sketch that labels or keys on nf(...) was a ReferenceError
  const nfOne = (num, left, right) => {
    const neg = num < 0;
    const abs = M.abs(num);
    const parts = StringC(right === undefined ? abs : abs.toFixed(right)).split(".");
    const whole = parts[0].padStart(left, "0");
    const out = parts[1] === undefined || (right === undefined && !parts[1]) ? whole : whole + "." + parts[1];
    return neg ? "-" + out : out;
  };
  const nf = (nums, left, right) => (isArray(nums) ? nums.map((x) => nfOne(x, left, right)) : nfOne(nums, left, right));
  def("nf", nf);
  const nfcOne = (num, right) => {
    const s = StringC(num);
    const dot = s.indexOf(".");
    let rem = dot === -1 ? "" : s.substring(dot);
    const whole = (dot === -1 ? s : s.substring(0, dot)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    if (right === 0) rem = "";
    else if (right !== undefined) {
      if (right > rem.length) {
        if (dot === -1) rem += ".";
        rem = rem.padEnd(right + 1, "0");
      } else rem = rem.substring(0, right + 1);
    }
    return whole + rem;
  };
  def("nfc", (num, right) => (isArray(num) ? num.map((x) => nfcOne(x, right)) : nfcOne(num, right)));
  const signed = (mark, keep) => (...args) => {
    const r = nf(...args);
    const add = (s) => (keep(parseFloat(s)) ? mark + StringC(s) : StringC(s));
    return isArray(r) ? r.map(add) : add(r);
  };
  def("nfp", signed("+", (v) => v > 0));
  def("nfs", signed(" ", (v) => v >= 0));
  def("splitTokens", (value, delims) => {
    let d = /\s/g;
    if (delims !== undefined) { // p5 puts the delimiters in a character class, moving one [ or ] to its end
      let s = StringC(delims), tail = "";
      for (const b of ["]", "["]) {
        const pos = s.indexOf(b);
        if (pos !== -1) { s = s.slice(0, pos) + s.slice(pos + 1); tail = (b === "]" ? "\\]" : "\\[") + tail; }
      }
      d = new RegExp("[" + (tail === "\\[\\]" ? "\\[" + s + "\\]" : s + tail) + "]", "g");
    }
    return value.split(d).filter((n) => n);
  });
  // p5 2.x's curve helpers, with its arithmetic; splinePoint/splineTangent read the tightness splineProperty sets
  let tightness = 0;
  def("splineProperty", (k, v) => {
    if (k !== "tightness") return undefined;
    if (v === undefined) return tightness;
    tightness = +v;
  });
  def("splineProperties", (o) => {
    if (o === undefined) return { tightness: tightness };
    if (o !== null && typeof o === "object" && o.tightness !== undefined) tightness = +o.tightness;
  });
  def("bezierPoint", (a, b, c, d, t) => {
    const u = 1 - t;
    return M.pow(u, 3) * a + 3 * M.pow(u, 2) * t * b + 3 * u * M.pow(t, 2) * c + M.pow(t, 3) * d;
  });
  def("bezierTangent", (a, b, c, d, t) => {
    const u = 1 - t;
    return 3 * d * M.pow(t, 2) - 3 * c * M.pow(t, 2) + 6 * c * u * t - 6 * b * u * t + 3 * b * M.pow(u, 2) -
      3 * a * M.pow(u, 2);
  });
  def("splinePoint", (a, b, c, d, t) => {
    const s = tightness, t3 = t * t * t, t2 = t * t;
    const f1 = (s - 1) / 2 * t3 + (1 - s) * t2 + (s - 1) / 2 * t, f2 = (s + 3) / 2 * t3 + (-5 - s) / 2 * t2 + 1.0;
    const f3 = (-3 - s) / 2 * t3 + (s + 2) * t2 + (1 - s) / 2 * t, f4 = (1 - s) / 2 * t3 + (s - 1) / 2 * t2;
    return a * f1 + b * f2 + c * f3 + d * f4;
  });
  def("splineTangent", (a, b, c, d, t) => {
    const s = tightness, tt3 = t * t * 3, t2 = t * 2;
    const f1 = (s - 1) / 2 * tt3 + (1 - s) * t2 + (s - 1) / 2, f2 = (s + 3) / 2 * tt3 + (-5 - s) / 2 * t2;
    const f3 = (-3 - s) / 2 * tt3 + (s + 2) * t2 + (1 - s) / 2, f4 = (1 - s) / 2 * tt3 + (s - 1) / 2 * t2;
    return a * f1 + b * f2 + c * f3 + d * f4;
  });
  // a still render has no pointer, keys or screen: the values p5 holds before any event (reading one was a
  // ReferenceError, so an interactive sketch's draw() failed here and painted in p5)
  for (const k of ["mouseX", "mouseY", "pmouseX", "pmouseY", "winMouseX", "winMouseY", "pwinMouseX", "pwinMouseY",
                   "movedX", "movedY", "keyCode"]) def(k, 0);
  def("mouseIsPressed", false);
  def("keyIsPressed", false);
  def("key", "");
  def("focused", true);
  def("pixelDensity", () => 1);  // setting it changes nothing a program holds; reading it gives the density
  def("displayDensity", () => 1);

  def("color", function () { return parseColorArgs(argsOf(arguments), cmode); });
  // p5 2.x mixes in 0-1 units and does not clamp the amount (1.5 goes past the second colour)
  const mix01 = (u, v, t) => (u / 255 + (v / 255 - u / 255) * t) * 255;
  // two colours of one space (two HSB colours, two hsl() strings) mix in it, the hue the shorter way round; any
  // other pair in sRGB. The mix answers alpha() in the sketch's colour mode.
  function lerpColor_(a, b, t) {
    const sp = a.__space === b.__space ? a.__space : "rgb";
    const al = mix01(a.a, b.a, t);
    if (sp === "rgb") {
      const p = rgb01(a), q = rgb01(b), f = (i) => (p[i] + (q[i] - p[i]) * t) * 255;
      return makeColor(f(0), f(1), f(2), al, cmode);
    }
    const p = a.__coords, q = b.__coords;
    let h1 = p[0], h2 = q[0];
    if (h2 - h1 > 180) h1 += 360; else if (h2 - h1 < -180) h2 += 360;
    return fromSpace(sp, [(((h1 + (h2 - h1) * t) % 360) + 360) % 360, p[1] + (q[1] - p[1]) * t, p[2] + (q[2] - p[2]) * t],
                     al, cmode);
  }
  def("lerpColor", lerpColor_);
  def("paletteLerp", (stops, amt) => {  // p5's: the stop below amt mixed toward the next
    if (amt < stops[0][1]) return colorOf([stops[0][0]]);
    for (let i = 1; i < stops.length; i++) {
      if (amt < stops[i][1]) {
        const p = stops[i - 1];
        return lerpColor_(colorOf([p[0]]), colorOf([stops[i][0]]), (amt - p[1]) / (stops[i][1] - p[1]));
      }
    }
    return colorOf([stops[stops.length - 1][0]]);
  });
  // red/green/blue answer in RGB's maximums, alpha in those of the colour's own mode, as p5 2.x does
  const inMax = (v, max) => (max === 255 ? v : (v / 255) * max);
  const colorOf = (a) => parseColorArgs(a, cmode);
  def("red", function () { return inMax(colorOf(argsOf(arguments)).r, MAXES.rgb[0]); });
  def("green", function () { return inMax(colorOf(argsOf(arguments)).g, MAXES.rgb[1]); });
  def("blue", function () { return inMax(colorOf(argsOf(arguments)).b, MAXES.rgb[2]); });
  def("alpha", function () { const c = colorOf(argsOf(arguments)); return inMax(c.a, MAXES[c.__mode][3]); });

  function hslOf(c) {  // sRGB to HSL as p5 2.x's colour library does it, for hue/saturation/lightness
    const r = c.r / 255, g = c.g / 255, b = c.b / 255;
    const max = M.max(r, g, b), min = M.min(r, g, b), l = (max + min) / 2, d = max - min;
    let h = 0, s = 0;
    if (d !== 0) {
      s = l === 0 || l === 1 ? 0 : (max - l) / M.min(l, 1 - l);
      h = (max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4) * 60;
    }
    return [h, s * 100, l * 100];
  }
  // hue/saturation/brightness/lightness as p5 2.x answers them (measured in Chromium): an HSB or HSL colour's own
  // coordinates for hue and saturation, any other colour's converted to the sketch's mode if that is HSB or HSL,
  // else HSL; brightness through HSB and lightness through HSL; mapped into that mode's maximum (p5's map,
  // v / 360 * max, which moves the last bit of some)
  function hsxOf(c, space) {
    if (c.__mode === space && c.__space === space && c.__coords) return c.__coords;
    return space === "hsb" ? hsbOf01(rgb01(c)) : hslOf(c);
  }
  const hsxGetter = (space, i, full) => function () {
    const c = colorOf(argsOf(arguments));
    const own = (m) => m === "hsb" || m === "hsl";
    const sp = i < 2 ? (own(c.__mode) ? c.__mode : own(cmode) ? cmode : "hsl") : space;
    return (hsxOf(c, sp)[i] / full) * MAXES[sp][i];
  };
  def("hue", hsxGetter("hsl", 0, 360));
  def("saturation", hsxGetter("hsl", 1, 100));
  def("brightness", hsxGetter("hsb", 2, 100));
  def("lightness", hsxGetter("hsl", 2, 100));

  def("createCanvas", (w, h, mode) => {
    canvas.created = true;
    // a size out of range was once dropped for p5's 100 x 100 default: a 600 px painting then fell off the canvas
    // and scored as an empty one with no reason given; it is named instead (the Program's limits, 1-8192). A
    // numeric string is p5's number too (the canvas coerces it)
    const num = (v) => (typeof v === "string" && v.trim() !== "" ? Number(v) : v);
    const fits = (v) => v === undefined || (isNum(num(v)) && num(v) >= 1 && num(v) <= 8192);
    const shown = (v) => (typeof v === "number" ? StringC(v) : stringify(plain(v, 0)));
    // each side up to 8192, the two together at most 4096 x 4096 pixels (the Program's MAX_PIXELS): the size is
    // kept only when both hold, as an out-of-range one is
    const side = (v, now) => (v !== undefined && fits(v) ? M.round(num(v)) : now);
    const big = fits(w) && fits(h) && side(w, canvas.w) * side(h, canvas.h) > 4096 * 4096;
    if (!fits(w) || !fits(h)) violate(`createCanvas(${shown(w)}, ${shown(h)}): width and height must be numbers from 1 to 8192`);
    else if (big) violate(`createCanvas(${shown(w)}, ${shown(h)}): at most 16777216 pixels (4096 x 4096), the most a canvas is painted at`);
    if (!big) {
      canvas.w = side(w, canvas.w);
      canvas.h = side(h, canvas.h);
    }
    canvas.mode = mode === undefined ? null : StringC(mode);
    canvas.webgl = mode === C.WEBGL || mode === C.WEBGL2;
    if (phase !== "setup") violate("createCanvas() must be called in setup()");
    resetMatrix();
  });
  def("resizeCanvas", () => {});
  def("angleMode", (m) => {
    if (m === undefined) return angleUnits;
    if (m === C.DEGREES || m === C.RADIANS) angleUnits = m;
  });
  def("background", function () {
    const a = argsOf(arguments);
    let args;
    if (a.length === 1 && isColor(a[0])) args = [colorHex(a[0]).slice(0, 7)];
    else if (!plainRgb() && a.length && (isNum(a[0]) || isArray(a[0]))) args = [colorHex(colorOf(a)).slice(0, 7)];
    else args = trimArgs(a.map((v) => plain(v, 0)));
    record("background", args);
  });
  def("colorMode", function (m) {
    if (m === undefined) return cmode;
    if (m !== C.RGB && m !== C.HSB && m !== C.HSL) {
      throw new ErrorC("colorMode(" + stringify(m) + ") is not supported in the sandbox; use RGB, HSB or HSL");
    }
    const a = argsOf(arguments).slice(1);
    for (let i = 0; i < a.length && i < 4; i++) {
      if (!(isFinite_(a[i]) && a[i] > 0)) {  // p5 would divide by it: every colour NaN
        const shown = typeof a[i] === "number" ? StringC(a[i]) : stringify(plain(a[i], 0));
        throw new ErrorC("colorMode(): each maximum must be a number above 0, got " + shown);
      }
    }
    cmode = m;
    if (a.length === 1 && isNum(a[0])) MAXES[m] = [a[0], a[0], a[0], a[0]];
    else if (a.length >= 3 && a.slice(0, 3).every(isNum)) {
      MAXES[m] = [a[0], a[1], a[2], a.length >= 4 && isNum(a[3]) ? a[3] : MAXES[m][3]];
    }
    return cmode;
  });
  // p5.brush's p5 add-on wraps push()/pop() to save and restore its fill, wash, stroke, hatch, mass and field
  // state: recorded as commands the state model replays, with what this sandbox tracks of that state alongside
  def("push", () => {
    record("push", []);
    push_(stack, [mat, angleUnits, cmode, brushFlags()]);
  });
  def("pop", () => {
    record("pop", []);
    const s = stack.pop();
    if (s) { mat = s[0]; cmode = s[2]; setBrushFlags(s[3]); }
  });
  def("translate", (x, y) => { mat = mul(mat, [1, 0, 0, 1, +x || 0, +y || 0]); });
  const rotateBy = (a) => { const r = toRad(+a || 0); mat = mul(mat, [M.cos(r), M.sin(r), -M.sin(r), M.cos(r), 0, 0]); };
  def("rotate", rotateBy);
  def("scale", (x, y) => {
    if (isArray(x)) { y = x[1]; x = x[0]; }
    if (y === undefined) y = x;
    mat = mul(mat, [+x, 0, 0, +y, 0, 0]);
  });
  def("resetMatrix", resetMatrix);
  // applyMatrix's 2-D form (a, b, c, d, e, f) or an array of it; of the 3-D form (16 numbers, column-major) the part
  // that moves the canvas plane. shearX/shearY as p5 builds them; WEBGL's rotateZ is rotate in the canvas plane.
  def("applyMatrix", function () {
    let a = argsOf(arguments);
    if (a.length === 1 && (isArray(a[0]) || ArrayBufferIsView(a[0]))) a = ArrayFrom(a[0]);
    const m = a.length === 16 ? [a[0], a[1], a[4], a[5], a[12], a[13]] : a.length === 6 ? a : null;
    if (m === null || !m.every(isNum)) throw new ErrorC("applyMatrix() takes 6 numbers (a, b, c, d, e, f) or 16");
    mat = mul(mat, m);
  });
  def("shearX", (a) => { mat = mul(mat, [1, 0, M.tan(toRad(+a || 0)), 1, 0, 0]); });
  def("shearY", (a) => { mat = mul(mat, [1, M.tan(toRad(+a || 0)), 0, 1, 0, 0]); });
  def("rotateZ", rotateBy);
  // the loop state and frame rate a sketch may read back, as p5 answers in setup (no frame has been timed yet)
  let looping = true, targetFps = 60;
  def("noLoop", () => { looping = false; });
  def("loop", () => { looping = true; });
  def("isLooping", () => looping);
  const SKETCH = freeze({}); // what p5's setters answer (the p5 instance), for a sketch that prints it
  def("frameRate", (fps) => {
    if (typeof fps !== "number" || fps < 0) return 0;
    targetFps = fps;
    return SKETCH;
  });
  def("getFrameRate", () => 0);
  def("getTargetFrameRate", () => targetFps);
  // a still render is opened at no address: no path, no query parameters
  def("getURL", () => "");
  def("getURLPath", () => []);
  def("getURLParams", () => ({}));
  const NOOPS = ["redraw", "smooth", "noSmooth", "rectMode", "ellipseMode",
    "blendMode", "strokeCap", "strokeJoin", "fill", "noFill", "stroke", "noStroke", "strokeWeight", "noCursor", "cursor",
    "describe", "describeElement", "textOutput", "gridOutput", "print", "randomSeedDone", "clear", "erase", "noErase",
    "textSize", "textAlign", "textFont",
    // saving the canvas downloads a file in a browser and changes no pixel: a sketch that ends with saveCanvas()
    // paints the same painting (it was a "forbidden global", the gate's 0)
    "saveCanvas", "save", "saveFrames", "saveGif"];
  for (let i = 0; i < NOOPS.length; i++) def(NOOPS[i], () => undefined);
  const BARE = ["ellipse", "rect", "line", "point", "text", "image", "triangle", "quad", "arc", "bezier", "bezierVertex",
    "curve", "curveVertex", "quadraticVertex", "vertex", "beginShape", "endShape", "circle", "square", "plane",
    "sphere", "torus", "cylinder", "cone", "ellipsoid", "box", "beginContour", "endContour", "model", "texture",
    "loadPixels", "updatePixels", "set", "copy", "filter", "get", "splineVertex", "spline"];
  for (let i = 0; i < BARE.length; i++) {
    const n = BARE[i];
    def(n, () => { violate("bare p5 drawing " + n + "() (only brush.* paints; " + (target[n] ? "use brush." + n + "()" : "not allowed") + ")"); });
  }
  const FORBIDDEN = ["fetch", "XMLHttpRequest", "WebSocket", "require", "process", "setTimeout", "setInterval",
    "setImmediate", "clearTimeout", "clearInterval", "queueMicrotask", "eval", "Function", "importScripts", "Worker",
    "WebAssembly", "SharedArrayBuffer", "Atomics", "loadImage", "loadJSON", "loadStrings", "loadTable", "loadFont",
    "loadShader", "loadModel", "httpGet", "httpPost", "httpDo", "createGraphics", "createImg", "createCapture",
    "select", "selectAll", "document", "window", "navigator", "location", "localStorage", "Deno", "Bun", "module",
    "exports", "__timer_manager"];
  function forbiddenFn(n) {
    return function () { violate("forbidden global " + n); throw sandboxError(n + " is not available in the sandbox"); };
  }
  const FORBIDDEN_FNS = {};
  for (let i = 0; i < FORBIDDEN.length; i++) FORBIDDEN_FNS[FORBIDDEN[i]] = forbiddenFn(FORBIDDEN[i]);

  // Constructors reachable from any function object must not compile strings.
  const ctorStub = forbiddenFn("Function");
  const fnProtos = [Function.prototype, getProto(async function () {}), getProto(function* () {}), getProto(async function* () {})];
  for (let i = 0; i < fnProtos.length; i++) defineProperty(fnProtos[i], "constructor", { value: ctorStub, writable: false, configurable: false });

  // Install globals: p5 names as non-writable so the skeleton cannot lose them by accident,
  // forbidden names as throwing stubs.
  // Names V8 (or mini-racer) really provides are locked; the others are web/node APIs that do
  // not exist here at all: their stubs only record use, and a sketch may declare its own
  // (`function process() {}`), as it could in a browser.
  const NATIVE = { eval: 1, Function: 1, setTimeout: 1, clearTimeout: 1, __timer_manager: 1, WebAssembly: 1,
    SharedArrayBuffer: 1, Atomics: 1, queueMicrotask: 1 };
  for (const k in FORBIDDEN_FNS) {
    try { delete G[k]; } catch (e) { /* ignore */ }
    try {
      const lock = NATIVE[k] === 1;
      defineProperty(G, k, { value: FORBIDDEN_FNS[k], writable: !lock, configurable: !lock, enumerable: false });
    } catch (e) { // a non-configurable `var` (mini-racer's own setTimeout): still replace and lock it
      defineProperty(G, k, { value: FORBIDDEN_FNS[k], writable: false });
    }
  }
  // p5 names stay configurable so a sketch may declare its own `scale` or `palette` helpers, as in a browser.
  for (const k in p5) defineProperty(G, k, { value: p5[k], writable: true, configurable: true, enumerable: false });
  defineProperty(G, "brush", { value: brush, writable: false, configurable: false });
  defineProperty(G, "width", { get: () => canvas.w, set: () => {}, configurable: true });
  defineProperty(G, "height", { get: () => canvas.h, set: () => {}, configurable: true });
  const SCREEN = 600; // a still render's window and display: one size for both
  defineProperty(G, "windowWidth", { value: SCREEN, writable: false, configurable: false });
  defineProperty(G, "windowHeight", { value: SCREEN, writable: false, configurable: false });
  defineProperty(G, "frameCount", { get: () => (phase === "draw" ? 1 : 0), configurable: true });
  defineProperty(G, "displayWidth", { value: SCREEN, writable: false, configurable: true });
  defineProperty(G, "displayHeight", { value: SCREEN, writable: false, configurable: true });
  defineProperty(G, "touches", { value: freeze([]), writable: false, configurable: true });
  defineProperty(G, "deltaTime", { configurable: true, value: 16, writable: false, configurable: false });
  const noop = () => undefined;
  defineProperty(G, "console", { value: freeze({ log: noop, warn: noop, error: noop, info: noop, debug: noop }), writable: false, configurable: false });

  // ------------------------------------------------------------------ host API (read-only)
  // Each host step runs once; a sketch that calls them itself only breaks its own run.
  const used = {};
  function once(step) {
    if (used[step]) violate("forbidden: sketches may not call the sandbox host API");
    if (used[step]) throw sandboxError("the sandbox host API is not for sketches (" + step + ")");
    used[step] = true;
  }
  const host = freeze({
    init(json) {
      once("init");
      const c = JSON.parse(json);
      cfg = c;
      // as if the sketch opened with randomSeed(seed) and noiseSeed(seed), as its export does
      rng = p5Lcg(c.seed);
      queryRng = mulberry32(seedInt(c.seed) ^ 0x5bd1e995);
      mathRng = mulberry32(seedInt(c.seed) ^ 0x68e31da4);
      noiseRng = p5Lcg(c.seed);
      perlin = null;
      for (let i = 0; i < c.static.length; i++) violate(c.static[i]);
    },
    // Runs setup(); returns "sync" when done, "async" when it awaits (host then calls settled()).
    startSetup() {
      once("startSetup");
      if (typeof G.setup !== "function") violate("missing skeleton: no setup() function");
      if (typeof G.draw !== "function") violate("missing skeleton: no draw() function");
      if (typeof G.setup !== "function") return "sync";
      phase = "setup";
      const r = G.setup();
      if (r !== null && typeof r === "object" && typeof r.then === "function") {
        r.then(() => { setupState = "done"; }, (e) => { setupState = "error"; setupError = e; });
        return "async";
      }
      return "sync";
    },
    setupState() { if (setupState === "error") { const e = setupError; setupState = "raised"; throw e; } return setupState; },
    runDraw() {
      once("runDraw");
      if (!canvas.created) violate("missing skeleton: setup() never calls createCanvas(..., WEBGL)");
      else if (!canvas.webgl) violate("missing skeleton: createCanvas() needs WEBGL (p5.brush 2 draws with WebGL)");
      phase = "draw";
      resetMatrix();
      if (typeof G.draw === "function") G.draw();
      phase = "done";
    },
    limitHit() { return limitHit; },
    result() {
      return stringify({ calls: calls, queried: queried, violations: violations, limit: limitHit, canvas: canvas, angleMode: angleUnits,
                         seed: leadSeed });
    },
  });
  let setupState = "pending", setupError = null;
  defineProperty(G, "__aq_host", { value: host, writable: false, configurable: false, enumerable: false });

  // ------------------------------------------------------------------ determinism
  // Math.random and the clock are the sketch's seed too: same seed, same program.
  defineProperty(M, "random", { value: () => mathRng(), writable: false, configurable: false });
  const RealDate = Date;
  class FixedDate extends RealDate {
    constructor(...a) { if (a.length === 0) super(0); else super(...a); }
    static now() { return 0; }
  }
  defineProperty(G, "Date", { value: FixedDate, writable: true, configurable: true });
  if (typeof G.performance === "object" && G.performance) { try { G.performance.now = () => 0; } catch (e) { /* ignore */ } }
  // V8 alone has no `performance`, every browser has: a sketch timing itself with performance.now() ran into a
  // ReferenceError; it reads the same still clock as millis()
  else defineProperty(G, "performance", { value: freeze({ now: () => 0 }), writable: true, configurable: true });

  // ------------------------------------------------------------------ freeze built-ins
  const BUILTINS = ["Object", "Array", "Function", "String", "Number", "Boolean", "Symbol", "Error", "TypeError",
    "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "JSON", "Math", "Reflect", "Proxy",
    "Promise", "Map", "Set", "WeakMap", "WeakSet", "Date", "RegExp", "ArrayBuffer", "DataView", "Float32Array",
    "Float64Array", "Int8Array", "Int16Array", "Int32Array", "Uint8Array", "Uint16Array", "Uint32Array",
    "Uint8ClampedArray", "BigInt", "BigInt64Array", "BigUint64Array", "Intl", "WeakRef", "FinalizationRegistry",
    "AggregateError", "Iterator"];
  // a Set, not a list searched per object: the walk meets ~560 objects, and the quadratic search took
  // 5 of the prelude's 7 ms (all of this runs before the sketch, so the Set cannot have been tampered with)
  const frozen = new Set();
  function deepFreeze(o) {
    if (o === null || (typeof o !== "object" && typeof o !== "function")) return;
    if (frozen.has(o)) return;
    frozen.add(o);
    freeze(o);
    const names = getOwnNames(o);
    for (let i = 0; i < names.length; i++) {
      let v;
      try { v = o[names[i]]; } catch (e) { continue; }
      if (v !== null && (typeof v === "object" || typeof v === "function")) deepFreeze(v);
    }
    deepFreeze(getProto(o));
  }
  for (let i = 0; i < BUILTINS.length; i++) {
    const v = G[BUILTINS[i]];
    if (v !== undefined) {
      deepFreeze(v);
      defineProperty(G, BUILTINS[i], { value: v, writable: false, configurable: false });
    }
  }
  for (let i = 0; i < fnProtos.length; i++) deepFreeze(fnProtos[i]);
  deepFreeze(getProto([][Symbol.iterator]()));
  deepFreeze(getProto(new Float32Array(0)));
})();
//# sourceURL=aquarelle-prelude.js
