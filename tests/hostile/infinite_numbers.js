// hostile: infinite sizes and coordinates
// expect: limit=none reason=invalid call
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { brush.fill("#d7263d", 200); brush.rect(-Infinity, 0, 1e309, 600); }
