// hostile: a string doubled until V8 refuses (or the heap runs out)
// expect: limit=heap|none reason=heap limit|Invalid string length
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { let s = "watercolour"; for (;;) s = s + s; brush.fill(s, 10); }
