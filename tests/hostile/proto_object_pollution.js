// hostile: pollutes Object.prototype (and toJSON) to rewrite what the host reads back, then cheats with text()
// expect: limit=none reason=bare p5 drawing text
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  try { Object.prototype.violations = []; } catch (e) {}
  try { Object.defineProperty(Object.prototype, "toJSON", { value: () => ({ calls: [], violations: [] }) }); } catch (e) {}
  try { Object.setPrototypeOf(Object.prototype, { calls: [] }); } catch (e) {}
  text("a beautiful watercolour", 10, 10);
}
