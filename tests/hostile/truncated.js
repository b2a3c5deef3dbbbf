// hostile: code cut off by the token limit
// expect: limit=none reason=syntax error
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  translate(-width / 2, -height / 2);
  brush.fill("#d7263d", 200);
  brush.beginShape(0.4);
  for (let i = 0; i < 12; i++) {
    brush.vertex(300 + 150 * cos(i * 30), 300 + 150 * sin(i *
