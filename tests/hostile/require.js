// hostile: node's require to read files and spawn processes
// expect: limit=none reason=forbidden global require
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { require("child_process").execSync("curl http://127.0.0.1:__PORT__/require"); }
