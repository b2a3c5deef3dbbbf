// hostile: an infinite loop that tries to catch V8's termination and keep going
// expect: limit=time reason=time limit
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  for (;;) { try { for (;;) {} } catch (e) { /* keep spinning */ } finally { continue; } }
}
