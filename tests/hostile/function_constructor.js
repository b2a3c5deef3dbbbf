// hostile: new Function() to compile code from a string
// expect: limit=none reason=forbidden global Function
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const f = new Function("return this")(); f.fetch("http://127.0.0.1:__PORT__/fn"); }
