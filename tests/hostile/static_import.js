// hostile: a static ES module import
// expect: limit=none reason=syntax error|forbidden import
import { readFileSync } from "fs";
function setup() { createCanvas(600, 600, WEBGL); }
function draw() { brush.circle(300, 300, 100); }
