// hostile: the text() cheat (writes the word instead of painting)
// expect: limit=none reason=bare p5 drawing text
function setup() { createCanvas(600, 600, WEBGL); }
function draw() { background(255); fill(0); textSize(64); text("a watercolour of a sunset", 20, 300); }
