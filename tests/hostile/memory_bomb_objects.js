// hostile: a linked list of objects that grows without bound
// expect: limit=heap reason=heap limit
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { let head = null; for (let i = 0; ; i++) head = { i: i, next: head, pad: new Array(5000).fill(i), tag: { i: i } }; }
