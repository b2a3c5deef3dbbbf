// hostile: one 1 MB string passed to 600 calls (1 MB of heap, 600 MB of recorded arguments to read back)
// expect: limit=heap reason=heap limit
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const s = "x".repeat(1 << 20); for (let i = 0; i < 600; i++) brush.fill(s, 200); }
