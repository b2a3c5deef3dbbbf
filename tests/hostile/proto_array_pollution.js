// hostile: replaces Array.prototype.push / indexOf so the recorder would drop the violation
// expect: limit=none reason=bare p5 drawing text
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  try { Array.prototype.push = function () { return 0; }; } catch (e) {}
  try { Object.defineProperty(Array.prototype, "length", { get: () => 0 }); } catch (e) {}
  try { Array.prototype[0] = "ok"; } catch (e) {}
  text("hidden", 10, 10);
}
