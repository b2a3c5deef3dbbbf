// hostile: bare p5 shapes instead of brush calls
// expect: limit=none reason=bare p5 drawing ellipse
function setup() { createCanvas(600, 600, WEBGL); }
function draw() { fill(200, 30, 30); ellipse(0, 0, 300, 300); rect(-200, -200, 100, 100); }
