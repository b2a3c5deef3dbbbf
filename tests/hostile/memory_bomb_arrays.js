// hostile: allocate arrays until the heap is gone
// expect: limit=heap reason=heap limit
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random())); }
