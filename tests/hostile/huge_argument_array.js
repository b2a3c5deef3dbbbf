// hostile: one call with two million points
// expect: limit=none reason=argument array too long
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const pts = []; for (let i = 0; i < 2e6; i++) pts.push([i % 600, i % 599]); brush.polygon(pts); }
