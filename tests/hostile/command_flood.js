// hostile: brush calls without end
// expect: limit=commands reason=command limit
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { translate(-width / 2, -height / 2); brush.fill("#1b998b", 100); for (;;) brush.circle(300, 300, 10); }
