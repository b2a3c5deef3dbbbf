// hostile: catches the command-limit error and keeps calling (then pretends all is well)
// expect: limit=commands reason=command limit
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  for (let round = 0; round < 1000; round++) {
    try { for (;;) brush.fillBleed(0.1); } catch (e) { /* swallow and retry */ }
  }
  brush.fill("#d7263d", 200);
  brush.circle(300, 300, 100);
}
