// hostile: BigInt and Symbol where numbers belong
// expect: limit=none reason=invalid call|BigInt|Symbol
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { brush.fill("#d7263d", 200); brush.circle(10n, Symbol("x"), 100); }
