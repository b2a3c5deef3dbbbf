// hostile: eval() of a string that paints
// expect: limit=none reason=forbidden global eval
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { eval("brush.circle(300, 300, 100)"); }
