// hostile: an infinite loop in draw()
// expect: limit=time reason=time limit
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { translate(-width / 2, -height / 2); brush.fill("#d7263d", 200); while (true) {} }
