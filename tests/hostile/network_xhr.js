// hostile: XMLHttpRequest to the loopback listener
// expect: limit=none reason=forbidden global XMLHttpRequest
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const x = new XMLHttpRequest(); x.open("GET", "http://127.0.0.1:__PORT__/xhr"); x.send(); }
