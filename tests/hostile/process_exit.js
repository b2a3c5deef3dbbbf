// hostile: process.exit and the environment
// expect: limit=none reason=forbidden global process
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const k = process.env.HOME; process.exit(1); }
