// hostile: an argument nested thousands of levels deep
// expect: limit=none reason=nested too deeply
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { let a = [1, 2]; for (let i = 0; i < 5000; i++) a = [a]; brush.polygon(a); }
