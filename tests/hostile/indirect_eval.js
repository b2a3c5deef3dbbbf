// hostile: eval reached by a computed name, no literal 'eval' call
// expect: limit=none reason=forbidden global eval
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const g = (function () { return this; })(); g["ev" + "al"]("1 + 1"); brush.circle(300, 300, 100); }
