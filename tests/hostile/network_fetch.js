// hostile: fetch() to the loopback listener (nothing may arrive)
// expect: limit=none reason=forbidden global fetch
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { fetch("http://127.0.0.1:__PORT__/fetch?leak=1"); brush.circle(300, 300, 100); }
