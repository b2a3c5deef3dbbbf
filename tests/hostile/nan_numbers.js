// hostile: NaN coordinates
// expect: limit=none reason=invalid call
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { brush.fill("#d7263d", 200); brush.circle(0 / 0, 300, 100); }
