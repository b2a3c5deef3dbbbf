// hostile: patches Function.prototype.call/apply/bind and toString to hide a bare p5 call
// expect: limit=none reason=bare p5 drawing rect
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  try { Function.prototype.call = function () { return undefined; }; } catch (e) {}
  try { Function.prototype.apply = function () { return undefined; }; } catch (e) {}
  try { Function.prototype.toString = () => "function brush() {}"; } catch (e) {}
  rect(0, 0, 600, 600);
}
