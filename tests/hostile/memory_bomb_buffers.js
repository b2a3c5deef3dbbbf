// hostile: typed arrays (their memory lives outside the V8 heap that the heap limit bounds)
// expect: limit=heap|time reason=heap limit|time limit
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const keep = []; for (;;) keep.push(new Float64Array(1e7).fill(Math.random())); }
