// hostile: unbounded recursion
// expect: limit=none reason=Maximum call stack size exceeded
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function paint(n) { return paint(n + 1) + 1; }
function draw() { brush.circle(300, 300, paint(0)); }
