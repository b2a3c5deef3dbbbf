// hostile: overwrites, deletes and re-defines brush methods so an unknown call would look legal
// expect: limit=none reason=unknown brush method brush.teleport
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  try { brush.circle = function () {}; } catch (e) {}
  try { delete brush.fill; } catch (e) {}
  try { Object.defineProperty(brush, "teleport", { value: () => 0 }); } catch (e) {}
  try { Object.setPrototypeOf(brush, { teleport() {} }); } catch (e) {}
  brush.teleport(1, 2, 3);
}
