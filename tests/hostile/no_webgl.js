// hostile: a 2D canvas (p5.brush 2 needs WEBGL)
// expect: limit=none reason=needs WEBGL
function setup() { createCanvas(600, 600); }
function draw() { brush.fill("#d7263d", 200); brush.circle(300, 300, 100); }
